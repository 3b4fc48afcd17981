/* SPDX-License-Identifier: MIT */
/* perf_sw_family.h: the columns and window totals of the "perf-sw" source, shared by its Linux
 * file (perf_sw.c) and by off_platform.c, which lists them as absent where perf_event does not
 * exist. Data only: no event, no OS call. Included once per file (static tables). */
#ifndef BENCH_SOURCES_PERF_SW_FAMILY_H
#define BENCH_SOURCES_PERF_SW_FAMILY_H

#include "source.h"

/* The events' order (leader first), which the family and the totals share. */
enum { EV_TASK_CLOCK, EV_PGFLT, EV_CTX_SW, EV_MIGRATIONS, EV_N };

static const struct bench__column_desc sw_family[EV_N] = {
    /* ns of task clock per iteration */
    {"task-clock", "task-clock/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf-sw", true},
    {"sw-page-faults", "sw-pgflt/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf-sw", true},
    {"ctx-switches", "ctx-sw/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf-sw", true},
    {"cpu-migrations", "migr/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf-sw", false},
};

/* A window's totals, under their own names, in the family's order. */
static const struct bench__total_desc sw_totals[EV_N] = {
    {"perfSw", NULL, "taskClockNs", "task-clock", "task-clock", BENCH__FORMAT_COUNT, true},
    {"perfSw", NULL, "pageFaults", "sw-pgflt", "sw-page-faults", BENCH__FORMAT_COUNT, true},
    {"perfSw", NULL, "contextSwitches", "ctx-sw", "ctx-switches", BENCH__FORMAT_COUNT, true},
    {"perfSw", NULL, "cpuMigrations", "migr", "cpu-migrations", BENCH__FORMAT_COUNT, false},
};

/* The source's identity in struct bench__source_ops, the same in every build (perf_sw.c and
 * off_platform.c start their ops with it): the fallback of perf, under the same flag. */
#define BENCH__PERF_SW_IDENTITY                                                                    \
    .name = "perf-sw", .flag = "perf",                                                             \
    .flag_help = "with --bench: open the perf_event counting pass", .fallback_for = "perf",        \
    .family = sw_family, .n_family = EV_N

#endif /* BENCH_SOURCES_PERF_SW_FAMILY_H */
