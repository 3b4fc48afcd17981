/* SPDX-License-Identifier: MIT */
/* perf_family.h: the columns and window totals of the "perf" source, shared by its Linux file
 * (perf.c) and by off_platform.c, which lists them as absent where perf_event does not exist.
 * Data only: no event, no OS call. Included once per file (static tables). */
#ifndef BENCH_SOURCES_PERF_FAMILY_H
#define BENCH_SOURCES_PERF_FAMILY_H

#include "source.h"

/* The family, in catalog order. */
enum { M_IPC, M_INSTR, M_BR_MISS, M_CACHE_MISS, M_CYCLES, M_BRANCHES, M_PGFLT, M_N };

static const struct bench__column_desc perf_family[M_N] = {
    {"ipc", "IPC", BENCH__FORMAT_RATIO, BENCH__DIAGNOSTIC, "perf", true},
    {"instr", "instr/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf", true},
    {"br-miss", "br-miss", BENCH__FORMAT_PERCENT, BENCH__DIAGNOSTIC, "perf", true},
    {"cache-miss", "cache-miss", BENCH__FORMAT_PERCENT, BENCH__DIAGNOSTIC, "perf", true},
    {"cycles", "cycles/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf", false},
    {"branches", "branch/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf", false},
    {"page-faults", "pgflt/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf", false},
};

/* A window's totals, under their own names (window_counts fills them in this order). */
enum {
    T_INSTR,
    T_CYCLES,
    T_IPC,
    T_BRANCHES,
    T_BR_MISSES,
    T_CACHE_REFS,
    T_CACHE_MISSES,
    T_PGFLT,
    T_N
};

static const struct bench__total_desc perf_totals[T_N] = {
    {"perf", NULL, "instructions", "instr", "instr", BENCH__FORMAT_COUNT, true},
    {"perf", NULL, "cycles", "cycles", "cycles", BENCH__FORMAT_COUNT, true},
    {"perf", NULL, NULL, "ipc", "ipc", BENCH__FORMAT_RATIO, true}, /* table only */
    {"perf", NULL, "branches", "branches", "branches", BENCH__FORMAT_COUNT, false},
    {"perf", NULL, "branchMisses", "br-misses", "br-miss", BENCH__FORMAT_COUNT, false},
    {"perf", NULL, "cacheReferences", "cache-refs", "cache-miss", BENCH__FORMAT_COUNT, false},
    {"perf", NULL, "cacheMisses", "cache-misses", "cache-miss", BENCH__FORMAT_COUNT, false},
    {"perf", NULL, "pageFaults", "pg-flt", "page-faults", BENCH__FORMAT_COUNT, true},
};

/* The source's identity in struct bench__source_ops, the same in every build (perf.c and
 * off_platform.c start their ops with it). */
#define BENCH__PERF_IDENTITY                                                                       \
    .name = "perf", .flag = "perf",                                                                \
    .flag_help = "with --bench: open the perf_event counting pass", .lead = "instr",               \
    .family = perf_family, .n_family = M_N

#endif /* BENCH_SOURCES_PERF_FAMILY_H */
