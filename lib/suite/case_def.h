/* SPDX-License-Identifier: MIT */
/* case_def.h: reading the arrays of a caller's struct bench_case_def (labels, metrics) through
 * the strides it gives (label_size, metric_size; 0 = the first released layout), element by
 * element with the size rule of util/abi.h. Every read of a caller's labels or metrics goes
 * through these. */
#ifndef BENCH_SUITE_CASE_DEF_H
#define BENCH_SUITE_CASE_DEF_H

#include <stddef.h>

#include <bench/bench.h>

#include "../util/abi.h"

/* Label or metric i of `def` (i below its count, the array not NULL) into *out: this library's
 * layout, a field beyond the caller's stride zero. A verdict other than BENCH__ABI_ACCEPTED
 * leaves *out unwritten. */
BENCH__HIDDEN enum bench__abi_verdict bench__case_label(const struct bench_case_def *def, size_t i,
                                                        struct bench_label *out);
BENCH__HIDDEN enum bench__abi_verdict bench__case_metric(const struct bench_case_def *def, size_t i,
                                                         struct bench_metric *out);

/* Why an element of def's arrays cannot be read (a stride below the first released one or above
 * BENCH__ABI_MAX_SIZE, a non-zero byte the library does not know), naming the first; NULL when
 * every element can. The counts and arrays must have been checked (no NULL array with a
 * count). */
BENCH__HIDDEN const char *bench__case_elements_problem(const struct bench_case_def *def);

#endif /* BENCH_SUITE_CASE_DEF_H */
