/* SPDX-License-Identifier: MIT */
/* window.h: what a workload run measured, in the shape every renderer reads: one record per
 * window (its wall-clock decomposition, PSI context, page-cache stamp, counter totals, notes)
 * and the regime words tables and JSON use. Durations in ns; NaN = not measured, never 0. */
#ifndef BENCH_MODEL_WINDOW_H
#define BENCH_MODEL_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bench/core.h>

#include "row.h"

/* What one page-cache prep established and verified; attached to the next window. */
struct bench__regime_stamp {
    bool present;
    enum bench_cache_regime requested, effective;
    double resident_before, resident_after; /* page-weighted fractions; NaN = unverifiable */
    char note[400];                         /* "; "-joined disclosures, UTF-8, "" when none */
};

/* Where a window's wall-clock time went. */
struct bench__window_time {
    double wall_ns, on_cpu_user_ns, on_cpu_kernel_ns, offcpu_runqueue_ns, offcpu_disk_ns,
        offcpu_other_ns;
    const char *scope; /* "thread" or "process" */
};

/* One measured window's record. Kept small (no inline text buffers): a loop of thousands of
 * windows grows this array, and each new page of it costs a page fault inside the loop. */
struct bench__window {
    char *name;
    uint32_t reps;
    enum bench__row_state state; /* OK, ERROR or SKIPPED */
    char *error;                 /* "" when ok */
    struct bench__window_time wall;
    bool psi_present;
    double psi[5]; /* ioSome, ioFull, memSome, memFull, cpuSome (ns, system-wide) */
    struct bench__regime_stamp *regime; /* NULL: no workload_files stamp for this window */
    struct bench__cell *cells;          /* counter totals of the window (catalog columns) */
    size_t n_cells;
    char *note; /* "" when none */
};

/* Every window of a run. */
struct bench__workloads {
    struct bench__window *windows;
    size_t n, cap;
    size_t failures; /* failures outside any window (no row) */
    bool ran;        /* some WORKLOAD was measured: the JSON gets a "windows" array */
};

BENCH__HIDDEN void bench__workloads_free(struct bench__workloads *w);

/* The regime's word in tables ("steady", "warm", "cold") and in JSON ("steadyState", "warm",
 * "cold"); "?" for a value outside the enum. */
BENCH__HIDDEN const char *bench__regime_word(enum bench_cache_regime regime);
BENCH__HIDDEN const char *bench__regime_json_word(enum bench_cache_regime regime);

#endif /* BENCH_MODEL_WINDOW_H */
