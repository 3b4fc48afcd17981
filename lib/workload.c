/* SPDX-License-Identifier: MIT */
/* workload.c: owns the workload model: running each WORKLOAD body once (or reps times) in
 * this process, its windows (function and inline, named, nested and inert), the whole-body
 * candidate window, edge snapshots in a fixed nesting order, the page-cache stamps of
 * workload_files and window failures (the table is report/workload_table.c). The body is
 * never re-run for counting: every source is read at the window's edges. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/psi.h"
#include "sources/source.h"
#include "workload.h"

/* The edges of an open window. */
struct edges {
    bool open;
    struct bench__psi_snapshot psi0;
    int64_t t0;
    struct bench__wall_snapshot wall0;
    struct bench__edge_shared shared0;
};

/* A resolved window name and how many windows of this test have had it. */
struct name_count {
    char *base;
    unsigned count;
};

/* A workload measurement in progress (one WORKLOAD test). */
struct bench__wl {
    const struct bench__config *cfg;
    struct bench__catalog *catalog;
    struct bench__workloads *out;
    FILE *err;
    struct bench__wall wall;
    struct bench__psi psi;
    bool psi_ok;
    const struct bench__entry *entry;
    uint32_t reps;
    enum bench_cache_regime regime;
    /* windows */
    bool candidate;      /* the whole-body candidate window is open */
    bool in_window;      /* an in-body window is open (nested calls are inert) */
    bool fallback_reps;  /* running reps 2+ of a body inside the candidate */
    size_t windows_made; /* in-body windows measured for this test */
    unsigned files_calls_before_window;
    struct edges edges;
    /* the inline window */
    const char *inline_name;
    uint32_t inline_left;
    unsigned inert_depth; /* inline blocks running inertly inside a window (or during reps) */
    /* stamps and notes for the next window */
    struct bench__regime_stamp pending_stamp;
    char pending_note[512];
    uint32_t window_reps_done;
    struct name_count *names; /* this test's distinct window names, for "#2", "#3" */
    size_t n_names;
    /* per open source (catalog order): the snapshots of the open window's two edges */
    void **snapshot_open, **snapshot_close;
    char decomposition_note[BENCH__WALL_NOTE_MAX]; /* of the last window closed */
    double *values;                                /* scratch for one source's window counts */
    bool *estimate;
};

void bench__append_note(char *buf, size_t size, const char *text)
{
    if (strstr(buf, text))
        return; /* said once is enough */
    size_t len = strlen(buf);
    if (len && len + 2 < size) {
        strcat(buf, "; ");
        len += 2;
    }
    snprintf(buf + len, size - len, "%s", text);
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

/* ---- edges -------------------------------------------------------------------------------- */

/* Counting sources, outer → inner: the reverse of the source table (perf innermost). Each is
 * read cumulatively (its run began with the workload test): one snapshot per edge. */
static void open_edges(struct bench__wl *w, struct edges *e)
{
    if (w->psi_ok)
        bench__psi_read(&w->psi, &e->psi0);
    e->t0 = bench__clock_ns();
    bench__wall_read(&w->wall, &e->wall0, &e->shared0);
    for (size_t i = w->catalog->n_sources; i-- > 0;)
        if (w->catalog->sources[i].state)
            w->catalog->sources[i].ops->edge_read(w->catalog->sources[i].state,
                                                  w->snapshot_open[i]);
    e->open = true;
}

static void window_note_add(struct bench__window *win, const char *text)
{
    char note[1024];
    snprintf(note, sizeof note, "%s", win->note);
    bench__append_note(note, sizeof note, text);
    free(win->note);
    win->note = xstrdup(note);
}

/* A group's scale gate, said in the window's note (inventory 2.7 "scale notes"). */
static void scale_note(struct bench__window *win, const struct bench__open_source *s,
                       const struct bench__counts *counts)
{
    char text[160];
    if (isnan(counts->scale))
        return; /* not a perf group, or its reading failed */
    if (counts->scale == 0) {
        snprintf(text, sizeof text, "%s: group never scheduled across the window", s->ops->name);
    } else {
        /* the gate drops counts of a multiplexed window with under 1 ms of PMU time, also when
         * its ratio rounds to 1; a scaled window keeps them, marked as estimates */
        for (size_t f = 0; f < s->n_family; f++)
            if (!isnan(counts->values[f]))
                return;
        snprintf(text, sizeof text, "%s: multiplexed window under 1 ms PMU time — counts dropped",
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
static struct bench__window *close_edges(struct bench__wl *w, struct edges *e, const char *name,
                                         bool record)
{
    for (size_t i = 0; i < w->catalog->n_sources; i++)
        if (w->catalog->sources[i].state)
            w->catalog->sources[i].ops->edge_read(w->catalog->sources[i].state,
                                                  w->snapshot_close[i]);
    struct bench__wall_snapshot wall1;
    struct bench__edge_shared shared[2];
    bench__wall_read(&w->wall, &wall1, &shared[1]);
    int64_t t1 = bench__clock_ns();
    struct bench__psi_snapshot psi1;
    if (w->psi_ok)
        bench__psi_read(&w->psi, &psi1);
    e->open = false;
    if (!record)
        return NULL;
    struct bench__window *win = new_window(w, resolve_name(w, name));
    shared[0] = e->shared0;
    size_t n_cells = 0;
    for (size_t i = 0; i < w->catalog->n_sources; i++)
        n_cells += w->catalog->sources[i].state ? w->catalog->sources[i].n_family : 0;
    struct bench__cell *cells = calloc(n_cells + 1, sizeof *cells);
    if (!cells)
        abort();
    size_t k = 0;
    for (size_t i = 0; i < w->catalog->n_sources; i++) {
        struct bench__open_source *s = &w->catalog->sources[i];
        if (!s->state)
            continue;
        for (size_t f = 0; f < s->n_family; f++) {
            w->values[f] = NAN;
            w->estimate[f] = false;
        }
        struct bench__counts counts = {.values = w->values, .estimate = w->estimate, .scale = NAN};
        s->ops->window_counts(s->state, w->snapshot_open[i], w->snapshot_close[i], shared, &counts);
        for (size_t f = 0; f < s->n_family; f++)
            cells[k++] = (struct bench__cell){&s->family[f], w->values[f],
                                              w->estimate[f] && !isnan(w->values[f])};
        scale_note(win, s, &counts);
    }
    win->cells = cells;
    win->n_cells = k;
    struct bench__decomposition d;
    bench__decompose(t1 - e->t0, &w->wall, &e->wall0, &wall1, &d);
    win->wall = (struct bench__window_time){.wall_ns = d.wall_ns,
                                            .on_cpu_user_ns = d.on_cpu_user_ns,
                                            .on_cpu_kernel_ns = d.on_cpu_kernel_ns,
                                            .offcpu_runqueue_ns = d.offcpu_runqueue_ns,
                                            .offcpu_disk_ns = d.offcpu_disk_ns,
                                            .offcpu_other_ns = d.offcpu_other_ns,
                                            .scope = d.scope};
    snprintf(w->decomposition_note, sizeof w->decomposition_note, "%s", d.note);
    win->psi_present = w->psi_ok;
    if (w->psi_ok)
        bench__psi_delta(&e->psi0, &psi1, win->psi);
    return win;
}

/* ---- window records ------------------------------------------------------------------------ */

/* "<test>" or "<test>/<name>", with "#2", "#3" for repeats within the test. */
static char *resolve_name(struct bench__wl *w, const char *name)
{
    char *base = NULL;
    if (name && *name) {
        if (asprintf(&base, "%s/%s", w->entry->full_name, name) < 0)
            abort();
    } else {
        base = xstrdup(w->entry->full_name);
    }
    struct name_count *known = NULL;
    for (size_t i = 0; i < w->n_names && !known; i++)
        if (!strcmp(w->names[i].base, base))
            known = &w->names[i];
    if (!known) {
        struct name_count *grown = realloc(w->names, (w->n_names + 1) * sizeof *grown);
        if (!grown)
            abort();
        w->names = grown;
        known = &w->names[w->n_names++];
        *known = (struct name_count){xstrdup(base), 0};
    }
    unsigned seen = known->count++;
    if (seen == 0)
        return base;
    char *numbered = NULL;
    if (asprintf(&numbered, "%s#%u", base, seen + 1) < 0)
        abort();
    free(base);
    return numbered;
}

/* A window's record, for close_edges (its only caller), which fills in the numbers. */
static struct bench__window *new_window(struct bench__wl *w, char *name)
{
    struct bench__workloads *o = w->out;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        struct bench__window *grown = realloc(o->windows, cap * sizeof *grown);
        if (!grown)
            abort();
        o->windows = grown;
        o->cap = cap;
    }
    struct bench__window *win = &o->windows[o->n++];
    memset(win, 0, sizeof *win);
    win->name = name;
    win->reps = w->reps;
    win->error = xstrdup("");
    for (int i = 0; i < 5; i++)
        win->psi[i] = NAN;
    /* the pending stamp is consumed by this window, and replaced by nothing */
    if (w->pending_stamp.present) {
        win->regime = malloc(sizeof *win->regime);
        if (!win->regime)
            abort();
        *win->regime = w->pending_stamp;
        memset(&w->pending_stamp, 0, sizeof w->pending_stamp);
    }
    w->decomposition_note[0] = '\0';
    char note[1024];
    note[0] = '\0';
    if (w->pending_note[0])
        bench__append_note(note, sizeof note, w->pending_note);
    w->pending_note[0] = '\0';
    if (win->regime && win->regime->effective != BENCH_CACHE_STEADY && w->reps > 1)
        bench__append_note(note, sizeof note,
                           "regime prep ran once — reps 2+ reuse rep 1's cache state");
    win->note = xstrdup(note);
    return win;
}

/* Fold the decomposition's own note into the window's. */
static void finish_window(struct bench__wl *w, struct bench__window *win)
{
    if (w->decomposition_note[0])
        window_note_add(win, w->decomposition_note);
}

static void fail_window(struct bench__window *win, enum bench__outcome outcome, const char *message)
{
    win->state = outcome == BENCH__SKIPPED ? BENCH__ROW_SKIPPED : BENCH__ROW_ERROR;
    free(win->error);
    size_t len = message ? strcspn(message, "\n") : 0;
    char *line = NULL;
    if (!message || !*message)
        line = xstrdup(outcome == BENCH__SKIPPED ? "skipped" : "failed");
    else if (asprintf(&line, "%.*s%s", (int)len, message, message[len] ? " \xe2\x80\xa6" : "") < 0)
        abort();
    win->error = line;
    win->wall.wall_ns = win->wall.on_cpu_user_ns = win->wall.on_cpu_kernel_ns = NAN;
    win->wall.offcpu_runqueue_ns = win->wall.offcpu_disk_ns = win->wall.offcpu_other_ns = NAN;
    for (int i = 0; i < 5; i++)
        win->psi[i] = NAN;
    free(win->cells);
    win->cells = NULL;
    win->n_cells = 0;
}

/* ---- the in-body API ----------------------------------------------------------------------- */

static struct bench__wl *active(bench_t *b)
{
    if (!b)
        b = bench__current;
    return b ? b->workload : NULL;
}

/* Leave the candidate: its readings are discarded once an in-body window exists. */
static void drop_candidate(struct bench__wl *w)
{
    if (w->candidate) {
        close_edges(w, &w->edges, NULL, false);
        w->candidate = false;
    }
}

int bench_window_begin(bench_t *b, const char *name)
{
    struct bench__wl *w = active(b);
    if (!w)
        return 1; /* outside a measurement: the block runs once */
    if (w->in_window || w->fallback_reps) {
        w->inert_depth++; /* nested, or a repetition of the body: once, inertly */
        return 1;
    }
    drop_candidate(w);
    w->in_window = true;
    w->inline_name = name;
    w->inline_left = w->reps;
    open_edges(w, &w->edges);
    return 1;
}

int bench_window_next(bench_t *b)
{
    struct bench__wl *w = active(b);
    if (!w)
        return 0;
    if (w->inert_depth > 0) {
        w->inert_depth--;
        return 0;
    }
    if (!w->in_window || w->inline_left == 0)
        return 0;
    if (--w->inline_left > 0)
        return 1;
    struct bench__window *win = close_edges(w, &w->edges, w->inline_name, true);
    finish_window(w, win);
    w->in_window = false;
    w->windows_made++;
    return 0;
}

/* The window runs in a helper so that nothing setjmp returns to is modified after it. */
static bool run_window_fn(struct bench__wl *w, bench_t *ctx, void (*fn)(void *), void *state)
{
    jmp_buf inner;
    void *outer = ctx->escape;
    ctx->escape = &inner;
    w->window_reps_done = 0;
    if (setjmp(inner) == 0) {
        for (; w->window_reps_done < w->reps; w->window_reps_done++)
            if (fn)
                fn(state);
    }
    ctx->escape = outer;
    return w->window_reps_done == w->reps;
}

int bench_workload_window(bench_t *b, const char *name, void (*fn)(void *state), void *state)
{
    bench_t *const ctx = b ? b : bench__current;
    struct bench__wl *w = ctx ? ctx->workload : NULL;
    if (!w || w->in_window || w->fallback_reps) {
        if (fn)
            fn(state); /* inert: once, nothing measured */
        return 0;
    }
    drop_candidate(w);
    w->in_window = true;
    open_edges(w, &w->edges);
    bool completed = run_window_fn(w, ctx, fn, state);
    struct bench__window *win = close_edges(w, &w->edges, name, true);
    w->in_window = false;
    w->windows_made++;
    if (completed) {
        finish_window(w, win);
        return 0;
    }
    fail_window(win, ctx->outcome, ctx->message);
    if (ctx->outcome == BENCH__SKIPPED)
        return 2; /* a skipped window: the body goes on */
    /* a failure: the window is recorded; the test fails as the body stops here */
    longjmp(*(jmp_buf *)ctx->escape, 2);
}

int bench_workload_files(bench_t *b, int regime, const char *const *paths)
{
    if (regime < -1 || regime > BENCH_CACHE_COLD)
        return BENCH_EINVAL;
    struct bench__wl *w = active(b);
    if (!w || !paths || !paths[0])
        return 0; /* outside a workload measurement: nothing at all */
    if (w->in_window) {
        bench__append_note(
            w->pending_note, sizeof w->pending_note,
            "workload_files inside a window — prep skipped; call it before the window");
        return 0;
    }
    if (w->fallback_reps) {
        bench__append_note(
            w->pending_note, sizeof w->pending_note,
            "workload_files during a repetition of the body — prep skipped; it ran once "
            "before the first repetition");
        return 0;
    }
    size_t n = 0;
    while (paths[n])
        n++;
    bool refresh = w->candidate && w->windows_made == 0;
    if (refresh)
        close_edges(w, &w->edges, NULL, false); /* prep is setup, not measured work */
    enum bench_cache_regime r = regime < 0 ? w->regime : (enum bench_cache_regime)regime;
    bench__regime_prepare(r, paths, n, &w->pending_stamp); /* a later call replaces it */
    if (refresh) {
        if (++w->files_calls_before_window == 2)
            bench__append_note(w->pending_note, sizeof w->pending_note,
                               "workload_files called more than once before any window — only the "
                               "work after the last call is measured");
        open_edges(w, &w->edges);
    }
    return 0;
}

/* ---- the driver ---------------------------------------------------------------------------- */

static void run_workload(struct bench__wl *w, const struct bench__entry *e)
{
    w->entry = e;
    w->reps = e->test->workload->reps ? e->test->workload->reps : 1;
    w->regime = e->test->workload->regime;
    w->candidate = w->in_window = w->fallback_reps = false;
    w->windows_made = 0;
    w->inert_depth = 0;
    w->files_calls_before_window = 0;
    w->pending_note[0] = '\0';
    memset(&w->pending_stamp, 0, sizeof w->pending_stamp);
    struct bench_ctx ctx = {.entry = e, .workload = w, .result_fd = -1};
    jmp_buf escape;
    ctx.escape = &escape;
    struct bench_ctx *saved = bench__current;
    bench__current = &ctx;
    /* the counting sources count for the whole test; windows read them at their edges */
    for (size_t i = 0; i < w->catalog->n_sources; i++)
        if (w->catalog->sources[i].state)
            w->catalog->sources[i].ops->run_begin(w->catalog->sources[i].state);
    int jumped = setjmp(escape);
    if (jumped == 0) {
        open_edges(w, &w->edges);
        w->candidate = true;
        e->test->fn(&ctx);
        if (w->in_window) { /* break, return or goto out of a WORKLOAD_WINDOW block */
            struct bench__window *win = close_edges(w, &w->edges, w->inline_name, true);
            fail_window(win, BENCH__FAILED,
                        "the body left a WORKLOAD_WINDOW block early (break, return or goto); "
                        "later windows of this body ran inertly");
            w->in_window = false;
        } else if (w->candidate && w->windows_made == 0) {
            w->fallback_reps = true;
            for (uint32_t rep = 1; rep < w->reps; rep++)
                e->test->fn(&ctx);
            w->fallback_reps = false;
            struct bench__window *win = close_edges(w, &w->edges, NULL, true);
            finish_window(w, win);
            w->candidate = false;
        } else {
            drop_candidate(w);
        }
    } else if (jumped == 2) {
        /* a function window failed: its error window is recorded and fails the run */
    } else if (w->in_window) {
        /* a failure or skip inside an inline window: that window records it */
        struct bench__window *win = close_edges(w, &w->edges, w->inline_name, true);
        fail_window(win, ctx.outcome, ctx.message);
        w->in_window = false;
    } else {
        /* outside any window: no row; a failure counts, a skip is said */
        if (w->candidate)
            close_edges(w, &w->edges, NULL, false);
        w->candidate = false;
        if (ctx.outcome == BENCH__FAILED)
            w->out->failures++;
        fprintf(w->err, "workload %s %s: %s\n", e->full_name,
                ctx.outcome == BENCH__SKIPPED ? "skipped" : "failed",
                ctx.message[0] ? ctx.message : "(no message)");
    }
    w->fallback_reps = false;
    for (size_t i = 0; i < w->catalog->n_sources; i++)
        if (w->catalog->sources[i].state)
            w->catalog->sources[i].ops->run_end(w->catalog->sources[i].state);
    bench__current = saved;
    for (size_t i = 0; i < w->n_names; i++)
        free(w->names[i].base);
    free(w->names);
    w->names = NULL;
    w->n_names = 0;
}

/* Say, once, what each source's window totals include of the readings nested inside its
 * edges: the sources before it in the table (read after it at the opening edge, before it at
 * the closing one), two readings each. */
static void disclose_floors(const struct bench__catalog *catalog, FILE *err)
{
    for (size_t i = 0; i < catalog->n_sources; i++) {
        const struct bench__open_source *s = &catalog->sources[i];
        if (!s->state || !s->ops->window_floor)
            continue;
        unsigned calls = 0;
        uint64_t bytes = 0;
        for (size_t j = 0; j < i; j++) {
            const struct bench__open_source *inner = &catalog->sources[j];
            unsigned c = 0;
            uint64_t n = 0;
            if (inner->state && inner->ops->edge_cost)
                inner->ops->edge_cost(inner->state, &c, &n);
            calls += 2 * c;
            bytes += 2 * n;
        }
        char text[256];
        s->ops->window_floor(s->state, calls, bytes, text, sizeof text);
        if (text[0])
            fprintf(err, "workload: %s: %s\n", s->ops->name, text);
    }
}

void bench__workloads_run(const struct bench__config *cfg, const struct bench__suite *suite,
                          const size_t *order, size_t n_order, struct bench__catalog *catalog,
                          struct bench__workloads *out, FILE *err)
{
    memset(out, 0, sizeof *out);
    if (n_order == 0)
        return;
    struct bench__wl w = {.cfg = cfg, .catalog = catalog, .out = out, .err = err};
    bench__wall_open(&w.wall);
    char reason[256] = "";
    w.psi_ok = bench__psi_open(&w.psi, reason, sizeof reason);
    char disclosure[512];
    if (bench__wall_runqueue_disclosure(&w.wall, disclosure, sizeof disclosure))
        fprintf(err, "%s\n", disclosure);
    if (!w.wall.thread_scope)
        fprintf(err, "workload: process scope — %s\n", w.wall.rusage_reason);
    if (!w.psi_ok)
        fprintf(err, "workload: psi unavailable (%s) — no io-stall context\n", reason);
    disclose_floors(catalog, err);
    out->ran = true;
    size_t n_src = catalog->n_sources, most = 0;
    w.snapshot_open = calloc(n_src + 1, sizeof *w.snapshot_open);
    w.snapshot_close = calloc(n_src + 1, sizeof *w.snapshot_close);
    if (!w.snapshot_open || !w.snapshot_close)
        abort();
    for (size_t i = 0; i < n_src; i++) {
        if (!catalog->sources[i].state)
            continue;
        size_t size = catalog->sources[i].ops->edge_size ? catalog->sources[i].ops->edge_size : 1;
        w.snapshot_open[i] = calloc(1, size);
        w.snapshot_close[i] = calloc(1, size);
        if (!w.snapshot_open[i] || !w.snapshot_close[i])
            abort();
        if (catalog->sources[i].n_family > most)
            most = catalog->sources[i].n_family;
    }
    w.values = calloc(most + 1, sizeof *w.values);
    w.estimate = calloc(most + 1, sizeof *w.estimate);
    if (!w.values || !w.estimate)
        abort();
    for (size_t i = 0; i < n_order; i++)
        run_workload(&w, &suite->entries[order[i]]);
    for (size_t i = 0; i < n_src; i++) {
        free(w.snapshot_open[i]);
        free(w.snapshot_close[i]);
    }
    free(w.snapshot_open);
    free(w.snapshot_close);
    free(w.values);
    free(w.estimate);
}

void bench__workloads_free(struct bench__workloads *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->windows[i].name);
        free(w->windows[i].error);
        free(w->windows[i].cells);
        free(w->windows[i].note);
        free(w->windows[i].regime);
    }
    free(w->windows);
    memset(w, 0, sizeof *w);
}
