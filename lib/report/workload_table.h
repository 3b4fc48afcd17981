/* SPDX-License-Identifier: MIT */
/* workload_table.h: workload windows as the `workloads` console table. */
#ifndef BENCH_REPORT_WORKLOAD_TABLE_H
#define BENCH_REPORT_WORKLOAD_TABLE_H

#include "../model/window.h"
#include "table.h"

/* Render the windows. Their totals are columns (headed by their own names, never `/iter`):
 * the default ones, and those whose catalog id is in `selected` (the ids --metrics selected;
 * none without it). */
BENCH__HIDDEN void bench__workloads_render(FILE *out, const struct bench__workloads *w,
                                           const char *const *selected, size_t n_selected,
                                           struct bench__table_memory *memory);

#endif /* BENCH_REPORT_WORKLOAD_TABLE_H */
