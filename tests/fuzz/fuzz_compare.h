/* SPDX-License-Identifier: MIT */
/* fuzz_compare.h: the invariants of the documents `libbench compare`'s readers give, shared by its
 * two fuzz targets. */
#ifndef LIBBENCH_TESTS_FUZZ_COMPARE_H
#define LIBBENCH_TESTS_FUZZ_COMPARE_H

#include <stddef.h>

#include "compare/compare.h"

/* Every row named, with its identity; a value finite and > 0, or a skip; labels sorted and
 * unique; no two rows of one cell. */
void fuzz_check_compare_doc(const struct compare_doc *doc);
/* 1 to COMPARE_GBENCH_REPETITIONS_MAX runs, each a valid document with every cell at the same
 * index. */
void fuzz_check_compare_runs(const struct compare_doc *docs, size_t n_docs);

#endif /* LIBBENCH_TESTS_FUZZ_COMPARE_H */
