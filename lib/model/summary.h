/* SPDX-License-Identifier: MIT */
/* summary.h: the summary statistics of libbench (median, MAD, min, max) and the one median
 * every module uses, the comparison engine included. No mean anywhere. Pure functions. */
#ifndef BENCH_MODEL_SUMMARY_H
#define BENCH_MODEL_SUMMARY_H

#include <stdbool.h>
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

/* z with P(|Z| > z) = alpha for a standard normal Z (INFINITY for alpha ≤ 0, 0 for alpha ≥ 1). */
BENCH__HIDDEN double bench__z_two_sided(double alpha);

/* The distribution-free confidence interval of the median of n sorted values, from order
 * statistics: [x(k), x(n + 1 − k)] (1-based) with k the largest integer ≥ 1 such that
 * P(B ≤ k − 1) ≤ (1 − level) / 2 for B ~ Binomial(n, ½). It covers the population median with
 * probability at least `level` for any continuous distribution. The binomial is summed exactly
 * up to BENCH__MEDIAN_CI_EXACT_MAX values, the normal approximation with continuity correction
 * beyond. False (lo, hi NaN) when no k exists (at 95%: fewer than 6 values). */
#define BENCH__MEDIAN_CI_EXACT_MAX 1000
BENCH__HIDDEN bool bench__median_ci(const double *sorted, size_t n, double level, double *lo,
                                    double *hi);
/* The rule of --bench-precision=PCT: at least BENCH__PRECISION_MIN_SAMPLES values and the
 * `level` interval of their median within ±pct of it (pct relative: 0.01 for 1%). */
#define BENCH__PRECISION_MIN_SAMPLES 8
BENCH__HIDDEN bool bench__median_precise(const double *sorted, size_t n, double level, double pct);

#endif /* BENCH_MODEL_SUMMARY_H */
