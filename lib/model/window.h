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

/* One total a window reports: a count over the whole window under its own name, never a
 * per-iteration catalog id (docs/reference/bench-json.md, "Counter objects"). */
struct bench__total_desc {
    const char *object; /* the window's member it sits in: "perf", "perfSw", "tier0", ... */
    const char *nest;   /* NULL, or the member of that object it sits in ("named", "events") */
    const char *key;    /* its JSON key ("instructions", "readBytes"); NULL: table only (ipc) */
    const char *header; /* the workloads table's header ("instr", "rd-bytes") */
    const char *metric; /* the catalog id --metrics selects it by ("instr"), or NULL */
    enum bench__format format;
    bool is_default; /* a workloads table column without --metrics */
};

/* One total's value (NaN = not measured, never 0); `desc` outlives the window. */
struct bench__total {
    const struct bench__total_desc *desc;
    double value;
    bool estimate; /* multiplex-scaled: rendered with a leading U+2248 */
};

/* What a window reports of one counting source as a whole. */
struct bench__window_group {
    const char *object; /* as in its totals' desc->object */
    bool has_scale;     /* a perf group: its running/enabled ratio is reported */
    double scale;       /* rounded to 3 decimals; 0 = never scheduled or enabled; NaN = unread */
    int user_only;      /* -1: not reported; 0 or 1: the group counted user space only */
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
    struct bench__total *totals;        /* counter totals, grouped by source (table order) */
    size_t n_totals;
    struct bench__window_group *groups; /* one per source with totals, in the same order */
    size_t n_groups;
    char *note; /* "" when none */
};

/* Every window of a run. */
struct bench__workloads {
    struct bench__window *windows;
    size_t n, cap;
    size_t failures; /* failures outside any window (no row) */
    bool ran;        /* some WORKLOAD was measured: the JSON gets a "windows" array */
    /* the total descriptions the windows point to, each one allocation (with any text it
     * owns), freed with the windows */
    struct bench__total_desc **descs;
    size_t n_descs;
};

BENCH__HIDDEN void bench__workloads_free(struct bench__workloads *w);

/* The regime's word in tables ("steady", "warm", "cold") and in JSON ("steadyState", "warm",
 * "cold"); "?" for a value outside the enum. */
BENCH__HIDDEN const char *bench__regime_word(enum bench_cache_regime regime);
BENCH__HIDDEN const char *bench__regime_json_word(enum bench_cache_regime regime);

#endif /* BENCH_MODEL_WINDOW_H */
