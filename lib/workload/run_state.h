/* SPDX-License-Identifier: MIT */
/* run_state.h: the state of one WORKLOAD measurement, shared by the files of workload/: the
 * in-body API (window.c) opens and closes windows through the edges (edges.c), and the driver
 * (driver.c) runs each body. Not seen outside workload/. */
#ifndef BENCH_WORKLOAD_RUN_STATE_H
#define BENCH_WORKLOAD_RUN_STATE_H

#include <stdio.h>

#include "../catalog/catalog.h"
#include "../model/window.h"
#include "../suite/context.h"
#include "psi.h"
#include "wall.h"

/* The edges of an open window. */
struct bench__edges {
    bool open;
    struct bench__psi_snapshot psi0;
    int64_t t0;
    struct bench__wall_snapshot wall0;
    struct bench__edge_shared shared0;
};

/* A resolved window name and how many windows of this test have had it. */
struct bench__name_count {
    char *base;
    unsigned count;
};

/* A workload measurement in progress (one WORKLOAD test). */
struct bench__workload_hooks;

struct bench__wl {
    const struct bench__config *cfg;
    struct bench__catalog *catalog;
    struct bench__workloads *out;
    FILE *err;
    const struct bench__workload_hooks *hooks;
    size_t n_reported; /* out->windows reported to hooks->window so far */
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
    struct bench__edges edges;
    /* the inline window */
    const char *inline_name;
    uint32_t inline_left;
    unsigned inert_depth; /* inline blocks running inertly inside a window (or during reps) */
    /* stamps and notes for the next window */
    struct bench__regime_stamp pending_stamp;
    char pending_note[512];
    uint32_t window_reps_done;
    struct bench__name_count *names; /* this test's distinct window names, for "#2", "#3" */
    size_t n_names;
    /* per open source (catalog order): the snapshots of the open window's two edges, and
     * the totals its windows report (owned by out->descs) */
    void **snapshot_open, **snapshot_close;
    const struct bench__total_desc **totals;
    size_t *n_totals;
    /* the open sources' catalog indexes in edge order, outer to inner (by edge_rank) */
    size_t *edge_order;
    size_t n_edge;
    char decomposition_note[BENCH__WALL_NOTE_MAX]; /* of the last window closed */
    double *values;                                /* scratch for one source's window counts */
    bool *estimate;
};

/* Hand every window finished since the last call to hooks->window (outside any window). */
BENCH__HIDDEN void bench__wl_report(struct bench__wl *w);

/* Open a window's edges: PSI, the clock, the wall reading, then every open source outer to
 * inner (perf innermost). */
BENCH__HIDDEN void bench__wl_open_edges(struct bench__wl *w, struct bench__edges *e);
/* Close the edges (inner to outer; PSI's closing read after the wall clock stopped) and, with
 * `record`, make the window's record named after `name` and fill in its numbers (NULL
 * without). */
BENCH__HIDDEN struct bench__window *
bench__wl_close_edges(struct bench__wl *w, struct bench__edges *e, const char *name, bool record);
/* Fold the decomposition's own note into the window's. */
BENCH__HIDDEN void bench__wl_finish_window(struct bench__wl *w, struct bench__window *win);
/* Turn a window into an error or skip window: its numbers are dropped. */
BENCH__HIDDEN void bench__wl_fail_window(struct bench__window *win, enum bench__outcome outcome,
                                         const char *message);

/* Leave the whole-body candidate window: its readings are discarded once an in-body window
 * exists. */
BENCH__HIDDEN void bench__wl_drop_candidate(struct bench__wl *w);

#endif /* BENCH_WORKLOAD_RUN_STATE_H */
