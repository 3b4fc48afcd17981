/* SPDX-License-Identifier: MIT */
/* grouping.h: the streaming keys of --group-by, table titles, and the order of rows within a
 * table (--sort-by). Pure functions over rows. */
#ifndef BENCH_MODEL_GROUPING_H
#define BENCH_MODEL_GROUPING_H

#include <stdbool.h>
#include <stddef.h>

#include "row.h"

/* The group of a row for --group-by keys: each value as "=<v>" or "!" when missing, joined by
 * 0x1F (malloc'd). Keys sort ascending; missing values first. */
BENCH__HIDDEN char *bench__group_key(const struct bench__row *row, char *const *keys,
                                     size_t n_keys);
/* "v1/v2" with "?" for a missing value, "(unlabeled)" when every value is missing (malloc'd). */
BENCH__HIDDEN char *bench__group_title(const char *key);
/* Does a --sort-by key name something these columns can sort by (name, median/iter, a metric id
 * or its header)? */
BENCH__HIDDEN bool
bench__sort_key_known(const char *key, const struct bench__column_desc *const *cols, size_t n_cols);
/* Order rows for one table: ascending by the key (median/iter when NULL); rows without a value
 * after rows with one; error and skip rows last, by name; ties keep their order. */
BENCH__HIDDEN void bench__sort_rows(const struct bench__row **rows, size_t n, const char *key);

#endif /* BENCH_MODEL_GROUPING_H */
