/* SPDX-License-Identifier: MIT */
/* table.h: console tables: box drawing, left/right/decimal alignment, the wrapped notes column,
 * and column widths carried across streamed tables. */
#ifndef BENCH_REPORT_TABLE_H
#define BENCH_REPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../util/hidden.h"

enum bench__align { BENCH__LEFT, BENCH__RIGHT, BENCH__DECIMAL };

struct bench__column {
    const char *header;
    enum bench__align align;
};

struct bench__table {
    const char *title; /* spliced into the top border; NULL for none */
    const struct bench__column *columns;
    size_t n_columns;
    char **cells; /* n_rows * n_columns UTF-8 strings, row-major */
    size_t n_rows;
    const char *const *row_style; /* NULL, or per row an SGR sequence for the whole row (NULL:
                                   * none): only ever set for a colour terminal */
};

/* Column widths carried across streamed tables: they only widen, and reset when the header
 * row changes. */
struct bench__table_memory {
    char *signature;
    size_t n_columns;
    size_t *left, *right;
};

BENCH__HIDDEN void bench__table_render(FILE *out, const struct bench__table *table,
                                       struct bench__table_memory *memory);
BENCH__HIDDEN void bench__table_memory_free(struct bench__table_memory *memory);
/* A copy of `from` (a frame drawn in place must not widen the columns of the tables that stay). */
BENCH__HIDDEN void bench__table_memory_copy(struct bench__table_memory *to,
                                            const struct bench__table_memory *from);
/* Display width of a UTF-8 string (every character we print is one cell wide). */
BENCH__HIDDEN size_t bench__display_width(const char *s, size_t len);

#endif /* BENCH_REPORT_TABLE_H */
