/* SPDX-License-Identifier: MIT */
/* format.h: how numbers look in every table and line libbench prints: durations, metric values
 * in their format (count, ratio, percent), shell-quoted words and escaped patterns. Pure. */
#ifndef BENCH_UTIL_FORMAT_H
#define BENCH_UTIL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "hidden.h"

/* The formats of a metric value. */
enum bench__format { BENCH__FORMAT_COUNT, BENCH__FORMAT_RATIO, BENCH__FORMAT_PERCENT };

/* The format's word in JSON and the catalog: "count", "ratio", "percent". */
BENCH__HIDDEN const char *bench__format_name(enum bench__format format);

/* A buffer that holds any formatted number (a longer one is cut and marked). */
#define BENCH__NUMBER_MAX 32

/* A duration in ns as "11.48ns", "1.5ms", "2.0s"; NaN or negative → em dash. */
BENCH__HIDDEN void bench__format_ns(double ns, char *buf, size_t size);
/* Two durations side by side (a comparison's baseline and candidate medians): one unit for
 * both, picked from the larger as bench__format_ns picks it, and the decimals of
 * bench__format_ns, more when needed (at most BENCH__FORMAT_PAIR_DECIMALS_MAX) until the last
 * digit is at most a tenth of their difference, so that a change shows in the two numbers
 * ("1.300µs", "1.361µs", not "1.3µs" twice). Equal values keep the usual decimals. A value that
 * is NaN or negative is an em dash; beyond an hour each is formatted alone. */
#define BENCH__FORMAT_PAIR_DECIMALS_MAX 6
BENCH__HIDDEN void bench__format_ns_pair(double a, double b, char *abuf, char *bbuf, size_t size);
/* The same, with the last digit at most a tenth of `step` (ns) instead of their difference: a
 * paired comparison reports the median of the per-round ratios, which two equal medians can
 * hide, so it passes that change (|delta| × the smaller median) as the step. A step that is not
 * positive (or NaN) falls back on the difference. */
BENCH__HIDDEN void bench__format_ns_pair_step(double a, double b, double step, char *abuf,
                                              char *bbuf, size_t size);
/* A metric value in its format: count (SI-scaled: 1.25G, 118.40k, 233, 3.37), ratio
 * (%.2f), percent (%.2f%); NaN → em dash; an estimate gets a leading U+2248. */
BENCH__HIDDEN void bench__format_metric(double value, enum bench__format format, bool estimate,
                                        char *buf, size_t size);
/* The word quoted for a POSIX shell when it needs quoting (malloc'd). */
BENCH__HIDDEN char *bench__shell_quote(const char *word);
/* The text with ERE metacharacters escaped so it matches itself (malloc'd). */
BENCH__HIDDEN char *bench__regex_escape(const char *text);

#endif /* BENCH_UTIL_FORMAT_H */
