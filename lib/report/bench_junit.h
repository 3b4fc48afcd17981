/* SPDX-License-Identifier: MIT */
/* bench_junit.h: --bench --junit: every benchmark row as a JUnit test case (an error row is a
 * failure, a skipped row a skip, the median and MAD as properties). */
#ifndef BENCH_REPORT_BENCH_JUNIT_H
#define BENCH_REPORT_BENCH_JUNIT_H

#include <stddef.h>

#include "../model/row.h"

/* Write the document of n rows (a <testsuite> named suite_name) atomically to path: 0, or an
 * errno (bench__write_file_strerror says it). */
BENCH__HIDDEN int bench__bench_junit_write(const char *path, const char *suite_name,
                                           const struct bench__row *rows, size_t n);

#endif /* BENCH_REPORT_BENCH_JUNIT_H */
