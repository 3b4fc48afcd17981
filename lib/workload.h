/* SPDX-License-Identifier: MIT */
/* workload.h: the workload model's records and driver entry points, shared by protocol.c
 * (which runs them after the benchmarks) and the renderers. */
#ifndef BENCH_WORKLOAD_H
#define BENCH_WORKLOAD_H

#include "cache_regime.h"
#include "catalog.h"
#include "wall.h"

/* A window's share of bench__decomposition: the numbers (its note joins the window's).
 * Durations in ns; NaN = not measured (em dash / null), never 0. */
struct bench__window_time {
    double wall_ns, on_cpu_user_ns, on_cpu_kernel_ns, offcpu_runqueue_ns, offcpu_disk_ns,
        offcpu_other_ns;
    const char *scope;
};

/* One measured window's record. Kept small (no inline text buffers): a loop of thousands of windows
 * grows this array, and each new page of it costs a page fault inside the loop. */
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

struct bench__workloads {
    struct bench__window *windows;
    size_t n, cap;
    size_t failures; /* failures outside any window (no row) */
    bool ran;        /* some WORKLOAD was measured: the JSON gets a "windows" array */
};

/* Measure every WORKLOAD of the suite (`order`: suite indices, in full-name order) with the
 * catalog's open sources. Notes go to `err`. */
BENCH__HIDDEN void bench__workloads_run(const struct bench__config *cfg,
                                        const struct bench__suite *suite, const size_t *order,
                                        size_t n_order, struct bench__catalog *catalog,
                                        struct bench__workloads *out, FILE *err);
/* Append a note to a "; "-joined note buffer, once (a note already there is not repeated). */
BENCH__HIDDEN void bench__append_note(char *buf, size_t size, const char *text);
/* The `workloads` table (report/workload_table.c). */
BENCH__HIDDEN void bench__workloads_render(FILE *out, const struct bench__workloads *w,
                                           const struct bench__catalog *catalog,
                                           struct bench__table_memory *memory);
BENCH__HIDDEN void bench__workloads_free(struct bench__workloads *w);

#endif /* BENCH_WORKLOAD_H */
