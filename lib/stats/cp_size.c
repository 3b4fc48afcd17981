/* SPDX-License-Identifier: MIT */
/* cp_size.c: owns the size of a change point and its interval: the Hodges-Lehmann shift (the
 * median of every pairwise difference) and Moses's distribution-free interval from the
 * Mann-Whitney distribution, exact for small sides, normal above. Pure: no randomness, no mean;
 * its scratch is allocated and freed per call. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/summary.h"
#include "../util/alloc.h"
#include "changepoint.h"

/* Below this many pairs the interval's ranks come from the exact distribution of U. */
#define EXACT_PAIRS 2500

/* counts[u], u = 0..a·b: the arrangements of a and b values (no ties) whose Mann-Whitney U is
 * u, by N(a, b, u) = N(a − 1, b, u − b) + N(a, b − 1, u), one layer of b at a time. Doubles:
 * C(100, 50) exceeds 2^64, and only additions are made, so no cancellation. */
static void u_counts(size_t a, size_t b, double *counts)
{
    size_t width = a * b + 1;
    double *prev = bench__xcalloc((a + 1) * width, sizeof *prev);
    double *cur = bench__xcalloc((a + 1) * width, sizeof *cur);
    for (size_t i = 0; i <= a; i++)
        prev[i * width] = 1; /* N(i, 0, 0) = 1 */
    for (size_t bb = 1; bb <= b; bb++) {
        for (size_t i = 0; i <= a; i++) {
            double *row = cur + i * width;
            for (size_t u = 0; u <= i * bb; u++) {
                double v = u <= i * (bb - 1) ? prev[i * width + u] : 0;
                if (i > 0 && u >= bb && u - bb <= (i - 1) * bb)
                    v += cur[(i - 1) * width + u - bb];
                row[u] = v;
            }
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    memcpy(counts, prev + a * width, width * sizeof *counts);
    free(prev);
    free(cur);
}

/* The z with P(Z > z) = tail, by bisection on erfc (deterministic, 1e-12 close). */
static double normal_upper(double tail)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2;
        if (0.5 * erfc(mid / M_SQRT2) > tail)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* The 1-based rank k of the interval [D(k), D(mn − k + 1)] for the asked level, and the level
 * it reaches. */
static size_t moses_rank(size_t m, size_t n, double level, double *achieved)
{
    size_t mn = m * n;
    double alpha_half = (1 - level) / 2;
    if (mn <= EXACT_PAIRS) {
        size_t a = m < n ? m : n, b = m < n ? n : m;
        double *counts = bench__xmalloc((mn + 1) * sizeof *counts);
        u_counts(a, b, counts);
        double total = 0;
        for (size_t u = 0; u <= mn; u++)
            total += counts[u];
        /* the largest k with P(U <= k − 1) <= alpha/2, at least 1 */
        size_t k = 1;
        double cdf = counts[0] / total; /* P(U <= k − 1) for k = 1 */
        while (k < (mn + 1) / 2 && cdf + counts[k] / total <= alpha_half) {
            cdf += counts[k] / total;
            k++;
        }
        free(counts);
        *achieved = 1 - 2 * cdf;
        return k;
    }
    double sigma = sqrt((double)mn * (double)(m + n + 1) / 12.0);
    double z = normal_upper(alpha_half);
    double kk = floor((double)mn / 2 - z * sigma + 0.5);
    size_t k = kk < 1 ? 1 : (size_t)kk;
    *achieved = 1 - erfc(((double)mn / 2 - (double)k + 0.5) / (sigma * M_SQRT2));
    return k;
}

void bench__hl_shift(const double *x, size_t m, const double *y, size_t n, double level,
                     double *est, double *lo, double *hi, double *achieved)
{
    *est = *lo = *hi = *achieved = NAN;
    if (m == 0 || n == 0)
        return;
    size_t mn = m * n;
    double *d = bench__xmalloc(mn * sizeof *d);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = y[j] - x[i];
    bench__sort_doubles(d, mn);
    *est = bench__median_sorted(d, mn);
    if (level > 0 && level < 1) {
        size_t k = moses_rank(m, n, level, achieved);
        *lo = d[k - 1];
        *hi = d[mn - k];
    }
    free(d);
}
