/* SPDX-License-Identifier: MIT */
/* bench_table.h: benchmark rows as a console table. */
#ifndef BENCH_REPORT_BENCH_TABLE_H
#define BENCH_REPORT_BENCH_TABLE_H

#include "../model/row.h"
#include "table.h"

/* Render the rows of one group: flat (title NULL: label columns, then `benchmark`) or grouped
 * (title `benchmark: <title>`, stub column `implementation`). Every source column of `cols`
 * shows (em dashes where unmeasured); a client column only when some row has a cell for it. */
BENCH__HIDDEN void bench__bench_table_render(FILE *out, const struct bench__row *const *rows,
                                             size_t n, const struct bench__column_desc *const *cols,
                                             size_t n_cols, char *const *group_keys,
                                             size_t n_group_keys, const char *title,
                                             struct bench__table_memory *memory);

#endif /* BENCH_REPORT_BENCH_TABLE_H */
