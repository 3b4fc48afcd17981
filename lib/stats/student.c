/* SPDX-License-Identifier: MIT */
/* student.c: owns Student's t distribution (its two-sided p, through the regularized incomplete
 * beta function) and the two-sample pooled-variance t-test the change-point detector decides
 * with. Pure arithmetic: no allocation, no state. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>

#include "changepoint.h"

/* The continued fraction of the incomplete beta function (modified Lentz), valid where
 * x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a, b) = 1 − I_{1−x}(b, a)
 * elsewhere. */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 500; m++) {
        double m2 = 2.0 * m;
        /* the even step: m (b − m) x / ((a + 2m − 1)(a + 2m)) */
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + num * d;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = 1.0 + num / c;
        if (fabs(c) < tiny)
            c = tiny;
        h *= d * c;
        /* the odd step: −(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + num * d;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = 1.0 + num / c;
        if (fabs(c) < tiny)
            c = tiny;
        double step = d * c;
        h *= step;
        if (fabs(step - 1.0) < eps)
            break;
    }
    return h;
}

/* The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1]. */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double ln_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return exp(ln_front) * beta_fraction(a, b, x) / a;
    return 1.0 - exp(ln_front) * beta_fraction(b, a, 1.0 - x) / b;
}

double bench__student_p(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return 0;
    if (t == 0)
        return 1;
    /* P(|T| >= |t|) = I_{df / (df + t²)}(df / 2, 1 / 2) */
    double p = incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* Two-pass mean and sum of squared deviations, so that a series of equal values has exactly 0
 * spread (no cancellation). */
static void moments(const double *v, size_t n, double *mean, double *ss)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    double m = s / (double)n, q = 0;
    for (size_t i = 0; i < n; i++)
        q += (v[i] - m) * (v[i] - m);
    *mean = m;
    *ss = q;
}

double bench__student_test(const double *a, size_t na, const double *b, size_t nb, double *t_out)
{
    if (t_out)
        *t_out = 0;
    if (na == 0 || nb == 0 || na + nb < 3)
        return 1;
    double ma, sa, mb, sb;
    moments(a, na, &ma, &sa);
    moments(b, nb, &mb, &sb);
    double df = (double)(na + nb - 2);
    double pooled = (sa + sb) / df;
    double diff = mb - ma;
    if (!(pooled > 0)) {
        /* no spread on either side: the sides differ or they do not */
        if (t_out)
            *t_out = diff > 0 ? INFINITY : diff < 0 ? -INFINITY : 0;
        return diff != 0 ? 0 : 1;
    }
    double t = diff / sqrt(pooled * (1.0 / (double)na + 1.0 / (double)nb));
    if (t_out)
        *t_out = t;
    return bench__student_p(t, df);
}
