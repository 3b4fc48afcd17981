/* SPDX-License-Identifier: MIT */
/* summary.c: owns the summary statistics of a row (median, MAD, min, max) and the median the
 * comparison engine shares. Pure functions: no I/O, no global state, and no mean anywhere. */
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
