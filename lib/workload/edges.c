/* SPDX-License-Identifier: MIT */
/* edges.c: owns a workload window's edges and record: the snapshots of every source in a fixed
 * nesting order, the wall decomposition and PSI deltas between them, window names ("#2" for a
 * repeat), notes, and error or skip windows. No library allocation happens between a window's
 * two edges. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/clock.h"
#include "../util/text.h"
#include "run_state.h"

/* ---- edges -------------------------------------------------------------------------------- */

/* Counting sources, outer → inner in edge order (syscalls, raw, tier0, perf-sw, perf). Each
 * is read cumulatively (its run began with the workload test): one snapshot per edge. */
void bench__wl_open_edges(struct bench__wl *w, struct bench__edges *e)
{
    if (w->psi_ok)
        bench__psi_read(&w->psi, &e->psi0);
    e->t0 = bench__clock_measure_ns();
    bench__wall_read(&w->wall, &e->wall0, &e->shared0);
    for (size_t k = 0; k < w->n_edge; k++) {
        size_t i = w->edge_order[k];
        w->catalog->sources[i].ops->edge_read(w->catalog->sources[i].state, w->snapshot_open[i]);
    }
    e->open = true;
}

/* Add text to the window's note, once ("; "-joined). */
static void window_note_add(struct bench__window *win, const char *text)
{
    if (strstr(win->note, text))
        return;
    char *joined = bench__xasprintf("%s%s%s", win->note, win->note[0] ? "; " : "", text);
    free(win->note);
    win->note = joined;
}

/* A perf group's scale gate, said in the window's note: a group never enabled or never
 * scheduled across the window, or a multiplexed window whose counts were dropped. */
static void scale_note(struct bench__window *win, const struct bench__open_source *s,
                       const struct bench__counts *counts, size_t n)
{
    char text[160];
    if (isnan(counts->scale))
        return; /* not a perf group, or its reading failed */
    if (counts->never_enabled) {
        bench__fmt(text, sizeof text, "%s: group never enabled across the window — unmeasured",
                   s->ops->name);
    } else if (counts->scale == 0) {
        bench__fmt(text, sizeof text, "%s: group never scheduled across the window", s->ops->name);
    } else {
        /* the gate drops counts of a multiplexed window with under 1 ms of PMU time, also when
         * its ratio rounds to 1; a scaled window keeps them, marked as estimates */
        for (size_t f = 0; f < n; f++)
            if (!isnan(counts->values[f]))
                return;
        bench__fmt(text, sizeof text, "%s: multiplexed window under 1 ms PMU time — counts dropped",
                   s->ops->name);
    }
    window_note_add(win, text);
}

static struct bench__window *new_window(struct bench__wl *w, char *name);
static char *resolve_name(struct bench__wl *w, const char *name);

/* Close the edges (inner → outer; PSI's closing read after the wall clock stopped), then,
 * with `record`, make the window's record (named `name`, see resolve_name) and fill its
 * numbers; without, the readings are thrown away and NULL returned. The record is made only
 * after the closing reads, so none of the library's own allocations (or their page faults)
 * falls inside a window. */
struct bench__window *bench__wl_close_edges(struct bench__wl *w, struct bench__edges *e,
                                            const char *name, bool record)
{
    for (size_t k = w->n_edge; k-- > 0;) {
        size_t i = w->edge_order[k];
        w->catalog->sources[i].ops->edge_read(w->catalog->sources[i].state, w->snapshot_close[i]);
    }
    struct bench__wall_snapshot wall1;
    struct bench__edge_shared shared[2];
    bench__wall_read(&w->wall, &wall1, &shared[1]);
    int64_t t1 = bench__clock_measure_ns();
    struct bench__psi_snapshot psi1;
    if (w->psi_ok)
        bench__psi_read(&w->psi, &psi1);
    e->open = false;
    if (!record)
        return NULL;
    struct bench__window *win = new_window(w, resolve_name(w, name));
    shared[0] = e->shared0;
    size_t n_totals = 0;
    for (size_t k = 0; k < w->n_edge; k++)
        n_totals += w->n_totals[w->edge_order[k]];
    /* the record lists the sources in table order (perf first), whatever their edge order */
    struct bench__total *totals = bench__xcalloc(n_totals + 1, sizeof *totals);
    struct bench__window_group *groups = bench__xcalloc(w->n_edge + 1, sizeof *groups);
    size_t t = 0, g = 0;
    for (size_t i = 0; i < w->catalog->n_sources; i++) {
        struct bench__open_source *s = &w->catalog->sources[i];
        size_t n = w->n_totals[i];
        if (!s->state || n == 0)
            continue;
        for (size_t f = 0; f < n; f++) {
            w->values[f] = NAN;
            w->estimate[f] = false;
        }
        struct bench__counts counts = {
            .values = w->values, .estimate = w->estimate, .scale = NAN, .user_only = -1};
        s->ops->window_counts(s->state, w->snapshot_open[i], w->snapshot_close[i], shared, &counts);
        for (size_t f = 0; f < n; f++)
            totals[t++] = (struct bench__total){&w->totals[i][f], w->values[f],
                                                w->estimate[f] && !isnan(w->values[f])};
        groups[g++] = (struct bench__window_group){w->totals[i][0].object, counts.scaled_group,
                                                   counts.scaled_group ? counts.scale : NAN,
                                                   counts.user_only};
        scale_note(win, s, &counts, n);
    }
    win->totals = totals;
    win->n_totals = t;
    win->groups = groups;
    win->n_groups = g;
    struct bench__decomposition d;
    bench__decompose(t1 - e->t0, &w->wall, &e->wall0, &wall1, &d);
    win->wall = (struct bench__window_time){.wall_ns = d.wall_ns,
                                            .on_cpu_user_ns = d.on_cpu_user_ns,
                                            .on_cpu_kernel_ns = d.on_cpu_kernel_ns,
                                            .offcpu_runqueue_ns = d.offcpu_runqueue_ns,
                                            .offcpu_disk_ns = d.offcpu_disk_ns,
                                            .offcpu_other_ns = d.offcpu_other_ns,
                                            .scope = d.scope};
    bench__fmt(w->decomposition_note, sizeof w->decomposition_note, "%s", d.note);
    win->psi_present = w->psi_ok;
    if (w->psi_ok)
        bench__psi_delta(&e->psi0, &psi1, win->psi);
    return win;
}

/* ---- window records ------------------------------------------------------------------------ */

/* "<test>" or "<test>/<name>", with "#2", "#3" for repeats within the test. */
static char *resolve_name(struct bench__wl *w, const char *name)
{
    char *base = name && *name ? bench__xasprintf("%s/%s", w->entry->full_name, name)
                               : bench__xstrdup(w->entry->full_name);
    struct bench__name_count *known = NULL;
    for (size_t i = 0; i < w->n_names && !known; i++)
        if (!strcmp(w->names[i].base, base))
            known = &w->names[i];
    if (!known) {
        w->names = bench__xrealloc(w->names, (w->n_names + 1) * sizeof *w->names);
        known = &w->names[w->n_names++];
        *known = (struct bench__name_count){bench__xstrdup(base), 0};
    }
    unsigned seen = known->count++;
    if (seen == 0)
        return base;
    char *numbered = bench__xasprintf("%s#%u", base, seen + 1);
    free(base);
    return numbered;
}

/* A window's record, for bench__wl_close_edges (its only caller), which fills in the numbers. */
static struct bench__window *new_window(struct bench__wl *w, char *name)
{
    struct bench__workloads *o = w->out;
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 8;
        o->windows = bench__xrealloc(o->windows, o->cap * sizeof *o->windows);
    }
    struct bench__window *win = &o->windows[o->n++];
    memset(win, 0, sizeof *win);
    win->name = name;
    win->reps = w->reps;
    win->error = bench__xstrdup("");
    for (int i = 0; i < 5; i++)
        win->psi[i] = NAN;
    /* the pending stamp is consumed by this window, and replaced by nothing */
    if (w->pending_stamp.present) {
        win->regime = bench__xmalloc(sizeof *win->regime);
        *win->regime = w->pending_stamp;
        memset(&w->pending_stamp, 0, sizeof w->pending_stamp);
    }
    w->decomposition_note[0] = '\0';
    char note[1024];
    note[0] = '\0';
    if (w->pending_note[0])
        bench__note_append_once(note, sizeof note, w->pending_note);
    w->pending_note[0] = '\0';
    if (win->regime && win->regime->effective != BENCH_CACHE_STEADY && w->reps > 1)
        bench__note_append_once(note, sizeof note,
                                "regime prep ran once — reps 2+ reuse rep 1's cache state");
    win->note = bench__xstrdup(note);
    return win;
}

/* Fold the decomposition's own note into the window's. */
void bench__wl_finish_window(struct bench__wl *w, struct bench__window *win)
{
    if (w->decomposition_note[0])
        window_note_add(win, w->decomposition_note);
}

void bench__wl_fail_window(struct bench__window *win, enum bench__outcome outcome,
                           const char *message)
{
    win->state = outcome == BENCH__SKIPPED ? BENCH__ROW_SKIPPED : BENCH__ROW_ERROR;
    free(win->error);
    win->error = bench__first_line(message, outcome == BENCH__SKIPPED ? "skipped" : "failed");
    win->wall.wall_ns = win->wall.on_cpu_user_ns = win->wall.on_cpu_kernel_ns = NAN;
    win->wall.offcpu_runqueue_ns = win->wall.offcpu_disk_ns = win->wall.offcpu_other_ns = NAN;
    for (int i = 0; i < 5; i++)
        win->psi[i] = NAN;
    free(win->totals);
    win->totals = NULL;
    win->n_totals = 0;
    free(win->groups);
    win->groups = NULL;
    win->n_groups = 0;
}

void bench__wl_drop_candidate(struct bench__wl *w)
{
    if (w->candidate) {
        bench__wl_close_edges(w, &w->edges, NULL, false);
        w->candidate = false;
    }
}
