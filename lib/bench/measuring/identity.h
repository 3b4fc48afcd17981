/* SPDX-License-Identifier: MIT */
/* identity.h: when two rows are one cell of a run's document, which the measuring side
 * (identity.c, for the rows and cases of one worker) and the collector (supervising/, for the
 * rows of every worker) both ask. Pure. */
#ifndef BENCH_BENCH_MEASURING_IDENTITY_H
#define BENCH_BENCH_MEASURING_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../model/row.h"

/* The same cell of the document: names and labels the same text once invalid UTF-8 is read as
 * U+FFFD (as the JSON writes them), labels in any order. */
BENCH__HIDDEN bool bench__same_cell(const char *name_a, const struct bench__kv *labels_a,
                                    size_t n_a, const char *name_b,
                                    const struct bench__kv *labels_b, size_t n_b);
/* A hash of a cell: cells that are the same (bench__same_cell) hash alike. */
BENCH__HIDDEN uint64_t bench__cell_hash(const char *name, const struct bench__kv *labels, size_t n);

#endif /* BENCH_BENCH_MEASURING_IDENTITY_H */
