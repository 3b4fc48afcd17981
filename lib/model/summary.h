/* SPDX-License-Identifier: MIT */
/* summary.h: the summary statistics of libbench (median, MAD, min, max) and the one median
 * every module uses, the comparison engine included. No mean anywhere. Pure functions. */
#ifndef BENCH_MODEL_SUMMARY_H
#define BENCH_MODEL_SUMMARY_H

#include <stddef.h>

#include "../util/hidden.h"

struct bench__summary {
    double median, mad, min, max;
};

/* Sort n doubles ascending (none may be NaN). */
BENCH__HIDDEN void bench__sort_doubles(double *values, size_t n);
/* The median of n sorted values: the middle one, or the mean of the middle two (even n). */
BENCH__HIDDEN double bench__median_sorted(const double *sorted, size_t n);
/* The median of n values (copied, not modified); NaN for none. */
BENCH__HIDDEN double bench__median_of(const double *values, size_t n);
/* Median, MAD (the median of absolute deviations, no scale factor), min and max of n values;
 * sorts `values`. All NaN for none. */
BENCH__HIDDEN struct bench__summary bench__summarize(double *values, size_t n);

#endif /* BENCH_MODEL_SUMMARY_H */
