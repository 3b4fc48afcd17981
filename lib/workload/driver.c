/* SPDX-License-Identifier: MIT */
/* driver.c: owns running every WORKLOAD of a suite: each body once (or .reps times) in this
 * process with the catalog's sources counting for the whole test, failures outside windows, and
 * the once-per-run disclosures (scope, runqueue, PSI, each source's window floor). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "run_state.h"
#include "workload.h"

/* ---- the driver ---------------------------------------------------------------------------- */

void bench__wl_report(struct bench__wl *w)
{
    for (; w->n_reported < w->out->n; w->n_reported++)
        if (w->hooks->window)
            w->hooks->window(w->hooks->arg, w->n_reported);
}

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
    for (size_t i = 0; i < w->catalog->n_sources; i++) {
        const struct bench__open_source *src = &w->catalog->sources[i];
        if (!src->state)
            continue;
        if (src->ops->run_name)
            src->ops->run_name(src->state, e->full_name);
        src->ops->run_begin(src->state);
    }
    int jumped = setjmp(escape);
    if (jumped == 0) {
        bench__wl_open_edges(w, &w->edges);
        w->candidate = true;
        e->test->fn(&ctx);
        if (w->in_window) { /* break, return or goto out of a WORKLOAD_WINDOW block */
            struct bench__window *win = bench__wl_close_edges(w, &w->edges, w->inline_name, true);
            bench__wl_fail_window(
                win, BENCH__FAILED,
                "the body left a WORKLOAD_WINDOW block early (break, return or goto); "
                "later windows of this body ran inertly");
            w->in_window = false;
        } else if (w->candidate && w->windows_made == 0) {
            w->fallback_reps = true;
            for (uint32_t rep = 1; rep < w->reps; rep++)
                e->test->fn(&ctx);
            w->fallback_reps = false;
            struct bench__window *win = bench__wl_close_edges(w, &w->edges, NULL, true);
            bench__wl_finish_window(w, win);
            w->candidate = false;
        } else {
            bench__wl_drop_candidate(w);
        }
    } else if (jumped == 2) {
        /* a function window failed: its error window is recorded and fails the run */
    } else if (w->in_window) {
        /* a failure or skip inside an inline window: that window records it */
        struct bench__window *win = bench__wl_close_edges(w, &w->edges, w->inline_name, true);
        bench__wl_fail_window(win, ctx.outcome, ctx.message);
        w->in_window = false;
    } else {
        /* outside any window: no row; a failure counts, a skip is said */
        if (w->candidate)
            bench__wl_close_edges(w, &w->edges, NULL, false);
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
 * edges: the sources after it in edge order (read after it at the opening edge, before it at
 * the closing one), two readings each. */
static void disclose_floors(const struct bench__wl *w, FILE *err)
{
    const struct bench__catalog *catalog = w->catalog;
    for (size_t k = 0; k < w->n_edge; k++) {
        const struct bench__open_source *s = &catalog->sources[w->edge_order[k]];
        if (!s->ops->window_floor)
            continue;
        unsigned calls = 0;
        uint64_t bytes = 0;
        for (size_t j = k + 1; j < w->n_edge; j++) {
            const struct bench__open_source *inner = &catalog->sources[w->edge_order[j]];
            unsigned c = 0;
            uint64_t n = 0;
            if (inner->ops->edge_cost)
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

/* The window totals of one open source, owned by `out` (see bench__source_ops.totals). */
static const struct bench__total_desc *totals_of(const struct bench__open_source *s,
                                                 struct bench__workloads *out, size_t *n)
{
    const struct bench__source_ops *ops = s->ops;
    *n = ops->totals ? ops->n_totals : s->n_family;
    struct bench__total_desc *d = bench__xcalloc(*n + 1, sizeof *d);
    for (size_t f = 0; f < *n; f++) {
        if (ops->totals) {
            d[f] = ops->totals[f];
            continue;
        }
        const struct bench__column_desc *col = &s->family[f];
        if (ops->window_total)
            ops->window_total(col, &d[f]);
        else
            d[f] = (struct bench__total_desc){ops->name, NULL,        col->name,      col->header,
                                              col->name, col->format, col->is_default};
    }
    out->descs = bench__xrealloc(out->descs, (out->n_descs + 1) * sizeof *out->descs);
    out->descs[out->n_descs++] = d;
    return d;
}

/* Each open source's window totals, and the edge order: by edge_rank, outer (small) first;
 * equal ranks in table order. */
static void plan_sources(struct bench__wl *w)
{
    const struct bench__catalog *c = w->catalog;
    w->totals = bench__xcalloc(c->n_sources + 1, sizeof *w->totals);
    w->n_totals = bench__xcalloc(c->n_sources + 1, sizeof *w->n_totals);
    w->edge_order = bench__xcalloc(c->n_sources + 1, sizeof *w->edge_order);
    w->n_edge = 0;
    for (size_t i = 0; i < c->n_sources; i++) {
        if (!c->sources[i].state)
            continue;
        w->totals[i] = totals_of(&c->sources[i], w->out, &w->n_totals[i]);
        size_t k = w->n_edge++;
        while (k > 0 &&
               c->sources[w->edge_order[k - 1]].ops->edge_rank > c->sources[i].ops->edge_rank) {
            w->edge_order[k] = w->edge_order[k - 1];
            k--;
        }
        w->edge_order[k] = i;
    }
}

void bench__workloads_run(const struct bench__config *cfg, const struct bench__suite *suite,
                          const size_t *order, size_t n_order, struct bench__catalog *catalog,
                          struct bench__workloads *out, FILE *err,
                          const struct bench__workload_hooks *hooks)
{
    static const struct bench__workload_hooks none = {0};
    if (!hooks)
        hooks = &none;
    memset(out, 0, sizeof *out);
    if (n_order == 0)
        return;
    struct bench__wl w = {.cfg = cfg, .catalog = catalog, .out = out, .err = err, .hooks = hooks};
    plan_sources(&w);
    bench__wall_open(&w.wall);
    char reason[256] = "";
    w.psi_ok = bench__psi_open(&w.psi, reason, sizeof reason);
    char disclosure[512];
    if (!hooks->disclosed) {
        if (bench__wall_runqueue_disclosure(&w.wall, disclosure, sizeof disclosure))
            fprintf(err, "%s\n", disclosure);
        if (!w.wall.thread_scope)
            fprintf(err, "workload: process scope — %s\n", w.wall.rusage_reason);
        if (!w.psi_ok)
            fprintf(err, "workload: psi unavailable (%s) — no io-stall context\n", reason);
        disclose_floors(&w, err);
    }
    out->ran = true;
    size_t n_src = catalog->n_sources, most = 0;
    w.snapshot_open = bench__xcalloc(n_src + 1, sizeof *w.snapshot_open);
    w.snapshot_close = bench__xcalloc(n_src + 1, sizeof *w.snapshot_close);
    for (size_t i = 0; i < n_src; i++) {
        if (!catalog->sources[i].state)
            continue;
        size_t size = catalog->sources[i].ops->edge_size ? catalog->sources[i].ops->edge_size : 1;
        w.snapshot_open[i] = bench__xcalloc(1, size);
        w.snapshot_close[i] = bench__xcalloc(1, size);
        if (w.n_totals[i] > most)
            most = w.n_totals[i];
    }
    w.values = bench__xcalloc(most + 1, sizeof *w.values);
    w.estimate = bench__xcalloc(most + 1, sizeof *w.estimate);
    for (size_t i = 0; i < n_order; i++) {
        const struct bench__entry *e = &suite->entries[order[i]];
        size_t failures = out->failures;
        if (hooks->begin)
            hooks->begin(hooks->arg, e);
        run_workload(&w, e);
        bench__wl_report(&w);
        if (hooks->end)
            hooks->end(hooks->arg, e, out->failures - failures);
    }
    for (size_t i = 0; i < n_src; i++) {
        free(w.snapshot_open[i]);
        free(w.snapshot_close[i]);
    }
    free(w.snapshot_open);
    free(w.snapshot_close);
    free(w.values);
    free(w.estimate);
    free(w.totals);
    free(w.n_totals);
    free(w.edge_order);
    bench__wall_close(&w.wall);
    bench__psi_close(&w.psi);
}
