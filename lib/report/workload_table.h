/* SPDX-License-Identifier: MIT */
/* workload_table.h: workload windows as the `workloads` console table. */
#ifndef BENCH_REPORT_WORKLOAD_TABLE_H
#define BENCH_REPORT_WORKLOAD_TABLE_H

#include "../model/window.h"
#include "table.h"

/* Render the windows with the counter columns `cols` (the run's table columns, in order). */
BENCH__HIDDEN void bench__workloads_render(FILE *out, const struct bench__workloads *w,
                                           const struct bench__column_desc *const *cols,
                                           size_t n_cols, struct bench__table_memory *memory);

#endif /* BENCH_REPORT_WORKLOAD_TABLE_H */
