/* SPDX-License-Identifier: MIT */
/* window.c: owns the calls a WORKLOAD body makes: function and inline windows (named, nested and
 * inert), the whole-body candidate window they replace, and workload_files with its page-cache
 * stamp for the next window. The body is never re-run for counting. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <string.h>

#include "../util/text.h"
#include "cache_regime.h"
#include "run_state.h"

/* ---- the in-body API ----------------------------------------------------------------------- */

static struct bench__wl *active(bench_t *b)
{
    if (!b)
        b = bench__current;
    return b ? b->workload : NULL;
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
    bench__wl_drop_candidate(w);
    w->in_window = true;
    w->inline_name = name;
    w->inline_left = w->reps;
    bench__wl_open_edges(w, &w->edges);
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
    struct bench__window *win = bench__wl_close_edges(w, &w->edges, w->inline_name, true);
    bench__wl_finish_window(w, win);
    w->in_window = false;
    w->windows_made++;
    bench__wl_report(w);
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
        return BENCH_STATUS_PASSED;
    }
    bench__wl_drop_candidate(w);
    w->in_window = true;
    bench__wl_open_edges(w, &w->edges);
    bool completed = run_window_fn(w, ctx, fn, state);
    struct bench__window *win = bench__wl_close_edges(w, &w->edges, name, true);
    w->in_window = false;
    w->windows_made++;
    if (completed) {
        bench__wl_finish_window(w, win);
        bench__wl_report(w);
        return BENCH_STATUS_PASSED;
    }
    bench__wl_fail_window(win, ctx->outcome, ctx->message);
    bench__wl_report(w);
    if (ctx->outcome == BENCH__SKIPPED)
        return BENCH_STATUS_SKIPPED; /* a skipped window: the body goes on */
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
        bench__note_append_once(
            w->pending_note, sizeof w->pending_note,
            "workload_files inside a window — prep skipped; call it before the window");
        return 0;
    }
    if (w->fallback_reps) {
        bench__note_append_once(
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
        bench__wl_close_edges(w, &w->edges, NULL, false); /* prep is setup, not measured work */
    enum bench_cache_regime r = regime < 0 ? w->regime : (enum bench_cache_regime)regime;
    bench__regime_prepare(r, paths, n, &w->pending_stamp); /* a later call replaces it */
    if (refresh) {
        if (++w->files_calls_before_window == 2)
            bench__note_append_once(
                w->pending_note, sizeof w->pending_note,
                "workload_files called more than once before any window — only the "
                "work after the last call is measured");
        bench__wl_open_edges(w, &w->edges);
    }
    return 0;
}
