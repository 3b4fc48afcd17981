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

/* How a table on a terminal is painted: only ever asked for when the stream animates. */
struct bench__table_paint {
    bool color;            /* error rows red, skipped rows yellow, the in-flight row dim */
    const char *live_name; /* NULL, or the in-flight case: a last row `<spinner> <name>` whose
                            * n cell says measuring (a frame drawn in place) */
    const struct bench__kv *live_labels;
    size_t live_n_labels;
    const char *spinner;
};

/* bench__bench_table_render, painted (paint NULL: exactly bench__bench_table_render). */
BENCH__HIDDEN void bench__bench_table_paint(FILE *out, const struct bench__row *const *rows,
                                            size_t n, const struct bench__column_desc *const *cols,
                                            size_t n_cols, char *const *group_keys,
                                            size_t n_group_keys, const char *title,
                                            struct bench__table_memory *memory,
                                            const struct bench__table_paint *paint);

#endif /* BENCH_REPORT_BENCH_TABLE_H */
