/* SPDX-License-Identifier: MIT */
/* stats.c: owns the summary statistics of a row (median, MAD, min, max). Pure functions:
 * no I/O, no global state, and no mean anywhere. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double sorted_median(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

struct bench__summary bench__summarize(double *values, size_t n)
{
    struct bench__summary s = {NAN, NAN, NAN, NAN};
    if (n == 0)
        return s;
    qsort(values, n, sizeof *values, compare_doubles);
    s.median = sorted_median(values, n);
    s.min = values[0];
    s.max = values[n - 1];
    double *dev = malloc(n * sizeof *dev);
    if (!dev)
        return s;
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(values[i] - s.median);
    qsort(dev, n, sizeof *dev, compare_doubles);
    s.mad = sorted_median(dev, n);
    free(dev);
    return s;
}
