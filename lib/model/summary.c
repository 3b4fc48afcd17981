/* SPDX-License-Identifier: MIT */
/* summary.c: owns the summary statistics of a row (median, MAD, min, max), the median the
 * comparison engine shares, the normal quantile, and the order-statistic interval of a median
 * that --bench-precision stops on. Pure functions: no I/O, no global state, no mean anywhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "summary.h"

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

void bench__sort_doubles(double *values, size_t n)
{
    if (n > 32) {
        qsort(values, n, sizeof *values, compare_doubles);
        return;
    }
    for (size_t i = 1; i < n; i++) { /* insertion sort: the engine's cells are small */
        double v = values[i];
        size_t j = i;
        for (; j > 0 && values[j - 1] > v; j--)
            values[j] = values[j - 1];
        values[j] = v;
    }
}

double bench__median_sorted(const double *sorted, size_t n)
{
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

double bench__median_of(const double *values, size_t n)
{
    if (n == 0 || !values)
        return NAN;
    double stack[64];
    double *s = n <= 64 ? stack : bench__xmalloc(n * sizeof *s);
    memcpy(s, values, n * sizeof *s);
    bench__sort_doubles(s, n);
    double m = bench__median_sorted(s, n);
    if (s != stack)
        free(s);
    return m;
}

struct bench__summary bench__summarize(double *values, size_t n)
{
    struct bench__summary s = {NAN, NAN, NAN, NAN};
    if (n == 0)
        return s;
    bench__sort_doubles(values, n);
    s.median = bench__median_sorted(values, n);
    s.min = values[0];
    s.max = values[n - 1];
    double *dev = bench__xmalloc(n * sizeof *dev);
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(values[i] - s.median);
    bench__sort_doubles(dev, n);
    s.mad = bench__median_sorted(dev, n);
    free(dev);
    return s;
}

double bench__z_two_sided(double alpha)
{
    if (!(alpha > 0))
        return INFINITY;
    if (!(alpha < 1))
        return 0.0;
    double lo = 0.0, hi = 40.0; /* erfc(z/√2) falls from 1 to below any double */
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2.0;
        if (mid <= lo || mid >= hi)
            break;
        if (erfc(mid / sqrt(2.0)) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2.0;
}

/* The largest k ≥ 1 with P(B ≤ k − 1) ≤ half, B ~ Binomial(n, ½); 0 when none. */
static size_t median_ci_k(size_t n, double half)
{
    if (n > BENCH__MEDIAN_CI_EXACT_MAX) {
        double z = bench__z_two_sided(2.0 * half), nn = (double)n;
        double k = floor(nn / 2.0 + 0.5 - z * sqrt(nn) / 2.0);
        return k >= 1 ? (size_t)k : 0;
    }
    /* P(B = i) in logs, summed upward: P(B = 0) = 2^−n underflows for large n, its log does
     * not. */
    double lp = -(double)n * log(2.0), cdf = exp(lp);
    size_t k = 0;
    while (cdf <= half && k < n) {
        k++;
        lp += log((double)(n - k + 1)) - log((double)k);
        cdf += exp(lp);
    }
    return k;
}

bool bench__median_ci(const double *sorted, size_t n, double level, double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (n == 0 || !sorted || !(level > 0) || !(level < 1))
        return false;
    size_t k = median_ci_k(n, (1.0 - level) / 2.0);
    if (k == 0)
        return false;
    *lo = sorted[k - 1];
    *hi = sorted[n - k];
    return true;
}

bool bench__median_precise(const double *sorted, size_t n, double level, double pct)
{
    double lo, hi;
    if (n < BENCH__PRECISION_MIN_SAMPLES || !(pct > 0) ||
        !bench__median_ci(sorted, n, level, &lo, &hi))
        return false;
    double m = bench__median_sorted(sorted, n);
    return lo >= m * (1.0 - pct) && hi <= m * (1.0 + pct);
}
