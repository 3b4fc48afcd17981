/* SPDX-License-Identifier: MIT */
/* changepoint.c: owns the change-point detector of the results history: E-Divisive means
 * (Matteson and James) over the logarithms of a series, a Student t-test in place of the
 * permutation test, a first pass in sliding windows at a loose p and a second pass that drops the
 * weakest change point until every one left passes the strict p (Fleming et al., Apache Otava).
 * It must not judge a state (history.c does) nor draw a random number. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bench/errors.h>

#include "../model/summary.h"
#include "../util/alloc.h"
#include "changepoint.h"

/* The runs nearest to a change, per side, that its size and interval are computed from. */
#define SIZE_SIDE_MAX 250

void bench__cp_defaults(struct bench__cp_params *p)
{
    *p = (struct bench__cp_params){
        .window = 30,
        .min_segment = 2,
        .max_p = 0.0005, /* stricter than 0.001: see bench__cp_defaults in changepoint.h */
        .first_p = 0.01,
        .min_rel = 0,
        .ci_level = 0.95,
    };
}

/* The runs with a value: their logarithm, their value and their index in the caller's series. */
struct compact {
    size_t n;
    double *z, *v;
    size_t *at;
};

/* ---- the test ------------------------------------------------------------------------- */

/* The t-test of z[s, x) against z[x, e), robust to one run on a short side: a side of at most
 * SHORT_SIDE runs must also pass without each one of its runs in turn (the largest p of those is
 * the p), so that one run out of line and its neighbour are no segment. */
#define SHORT_SIDE 3
static double robust_test(const double *z, size_t s, size_t x, size_t e, double *t)
{
    double p = bench__student_test(z + s, x - s, z + x, e - x, t);
    double buf[SHORT_SIDE];
    for (int side = 0; side < 2; side++) {
        size_t lo = side ? x : s, hi = side ? e : x;
        if (hi - lo > SHORT_SIDE || hi - lo < 2)
            continue;
        for (size_t drop = lo; drop < hi; drop++) {
            size_t m = 0;
            for (size_t i = lo; i < hi; i++)
                if (i != drop)
                    buf[m++] = z[i];
            double q = side ? bench__student_test(z + s, x - s, buf, m, NULL)
                            : bench__student_test(buf, m, z + x, e - x, NULL);
            p = q > p ? q : p;
        }
    }
    return p;
}

/* ---- E-Divisive in one window ---------------------------------------------------------- */

/* Σ D[i][j] over i in [a, b), j in [c, d), from the 2-D prefix sums P (row width w1). */
static double block(const double *P, size_t w1, size_t a, size_t b, size_t c, size_t d)
{
    return P[b * w1 + d] - P[a * w1 + d] - P[b * w1 + c] + P[a * w1 + c];
}

/* Q̂ of X = [s, tau) against Y = [tau, kappa) with α = 1: (m·n / (m + n)) times twice the mean
 * distance between X and Y, less the mean distance within X and within Y. */
static double qhat(const double *P, size_t w1, size_t s, size_t tau, size_t kappa)
{
    double m = (double)(tau - s), n = (double)(kappa - tau);
    double cross = block(P, w1, s, tau, tau, kappa);
    double within_x = block(P, w1, s, tau, s, tau) / 2;
    double within_y = block(P, w1, tau, kappa, tau, kappa) / 2;
    double e = 2 * cross / (m * n);
    if (m > 1)
        e -= within_x / (m * (m - 1) / 2);
    if (n > 1)
        e -= within_y / (n * (n - 1) / 2);
    return m * n / (m + n) * e;
}

static void insert_sorted(size_t *list, size_t *len, size_t x)
{
    size_t i = *len;
    while (i > 0 && list[i - 1] > x) {
        list[i] = list[i - 1];
        i--;
    }
    list[i] = x;
    (*len)++;
}

/* The change points of z[0..w) at p < first_p into found (local indexes, ascending): the best
 * (tau, kappa) over every interval between the change points found so far, tested by the t-test
 * of its interval's two sides; the first candidate that fails ends the window. P has room for
 * (w + 1)². */
static size_t window_detect(const double *z, size_t w, const struct bench__cp_params *p, double *P,
                            size_t *found)
{
    size_t w1 = w + 1, ms = p->min_segment, nf = 0;
    for (size_t j = 0; j <= w; j++)
        P[j] = 0;
    for (size_t i = 0; i < w; i++) {
        P[(i + 1) * w1] = 0;
        for (size_t j = 0; j < w; j++)
            P[(i + 1) * w1 + j + 1] =
                P[i * w1 + j + 1] + P[(i + 1) * w1 + j] - P[i * w1 + j] + fabs(z[i] - z[j]);
    }
    for (;;) {
        double best = -INFINITY;
        size_t best_tau = 0, best_s = 0, best_e = 0;
        for (size_t k = 0; k <= nf; k++) {
            size_t s = k == 0 ? 0 : found[k - 1], e = k == nf ? w : found[k];
            if (e - s < 2 * ms)
                continue;
            for (size_t tau = s + ms; tau + ms <= e; tau++)
                for (size_t kappa = tau + ms; kappa <= e; kappa++) {
                    double q = qhat(P, w1, s, tau, kappa);
                    if (q > best) { /* strict: the first maximum wins, always the same one */
                        best = q;
                        best_tau = tau;
                        best_s = s;
                        best_e = e;
                    }
                }
        }
        if (best == -INFINITY)
            break;
        double t;
        double pv = robust_test(z, best_s, best_tau, best_e, &t);
        if (!(pv < p->first_p))
            break;
        insert_sorted(found, &nf, best_tau);
    }
    return nf;
}

/* ---- the two passes -------------------------------------------------------------------- */

/* The first pass: windows of p->window runs advancing by half a window (or to the last change
 * point a window found, when that is further), the union of what they found, ascending. */
static size_t first_pass(const struct compact *c, const struct bench__cp_params *p, size_t *weak)
{
    size_t nw = 0, N = c->n, step = p->window / 2 ? p->window / 2 : 1;
    double *P = bench__xmalloc((p->window + 1) * (p->window + 1) * sizeof *P);
    size_t *found = bench__xmalloc(p->window * sizeof *found);
    for (size_t start = 0; start < N;) {
        size_t end = start + p->window < N ? start + p->window : N;
        size_t nf = window_detect(c->z + start, end - start, p, P, found);
        size_t last = 0;
        for (size_t i = 0; i < nf; i++) {
            size_t g = start + found[i];
            bool seen = false;
            for (size_t k = 0; k < nw && !seen; k++)
                seen = weak[k] == g;
            if (!seen)
                insert_sorted(weak, &nw, g);
            last = g > last ? g : last;
        }
        start = last > start + step ? last : start + step;
    }
    free(P);
    free(found);
    return nw;
}

/* The p of change point i of cps[0..k) against its neighbours (1 when a side is shorter than
 * min_segment), and its t. */
static double cp_p(const struct compact *c, const size_t *cps, size_t k, size_t i, size_t ms,
                   double *t)
{
    size_t s = i == 0 ? 0 : cps[i - 1], e = i + 1 == k ? c->n : cps[i + 1], x = cps[i];
    *t = 0;
    if (x - s < ms || e - x < ms)
        return 1;
    return robust_test(c->z, s, x, e, t);
}

static double median_copy(const double *v, size_t n, double *scratch)
{
    memcpy(scratch, v, n * sizeof *v);
    bench__sort_doubles(scratch, n);
    return bench__median_sorted(scratch, n);
}

/* max(a/b, b/a) − 1 of the two sides' medians. */
static double magnitude(const struct compact *c, const size_t *cps, size_t k, size_t i,
                        double *scratch)
{
    size_t s = i == 0 ? 0 : cps[i - 1], e = i + 1 == k ? c->n : cps[i + 1], x = cps[i];
    double a = median_copy(c->v + s, x - s, scratch), b = median_copy(c->v + x, e - x, scratch);
    return (a > b ? a / b : b / a) - 1;
}

/* The second pass: while a change point fails max_p (or, once all pass, min_rel), drop the
 * weakest (the largest p; then the smallest size; the first on a tie), its neighbours then
 * being tested against their new neighbours. */
static size_t second_pass(const struct compact *c, const struct bench__cp_params *p, size_t *cps,
                          size_t k)
{
    double *pv = bench__xmalloc((k ? k : 1) * sizeof *pv);
    double *scratch = bench__xmalloc((c->n ? c->n : 1) * sizeof *scratch);
    while (k > 0) {
        double t;
        size_t weakest = 0;
        for (size_t i = 0; i < k; i++) {
            pv[i] = cp_p(c, cps, k, i, p->min_segment, &t);
            if (pv[i] > pv[weakest])
                weakest = i;
        }
        if (pv[weakest] < p->max_p) {
            if (!(p->min_rel > 0))
                break;
            double least = INFINITY;
            for (size_t i = 0; i < k; i++) {
                double m = magnitude(c, cps, k, i, scratch);
                if (m < least) {
                    least = m;
                    weakest = i;
                }
            }
            if (least >= p->min_rel)
                break;
        }
        memmove(cps + weakest, cps + weakest + 1, (k - weakest - 1) * sizeof *cps);
        k--;
    }
    free(pv);
    free(scratch);
    return k;
}

/* ---- the result ------------------------------------------------------------------------ */

static void describe(const struct compact *c, const size_t *cps, size_t k, size_t i,
                     size_t n_series, const struct bench__cp_params *p, double *scratch,
                     struct bench__changepoint *o)
{
    size_t s = i == 0 ? 0 : cps[i - 1], e = i + 1 == k ? c->n : cps[i + 1], x = cps[i];
    *o = (struct bench__changepoint){
        .index = c->at[x],
        .start = c->at[s],
        .end = e == c->n ? n_series : c->at[e],
        .n_before = x - s,
        .n_after = e - x,
        .median_before = median_copy(c->v + s, x - s, scratch),
        .median_after = median_copy(c->v + x, e - x, scratch),
    };
    o->p = cp_p(c, cps, k, i, p->min_segment, &o->t);
    size_t bs = x - s > SIZE_SIDE_MAX ? x - SIZE_SIDE_MAX : s;
    size_t ae = e - x > SIZE_SIDE_MAX ? x + SIZE_SIDE_MAX : e;
    double est, lo, hi, level;
    bench__hl_shift(c->z + bs, x - bs, c->z + x, ae - x, p->ci_level, &est, &lo, &hi, &level);
    o->rel = expm1(est);
    o->ci_lo = expm1(lo); /* NaN stays NaN */
    o->ci_hi = expm1(hi);
    o->ci_level = level;
}

static bool params_valid(const struct bench__cp_params *p)
{
    return p && p->min_segment >= 1 && p->window >= 2 * p->min_segment && p->max_p > 0 &&
           p->max_p < 1 && p->first_p >= p->max_p && p->first_p < 1 && p->min_rel >= 0 &&
           isfinite(p->min_rel) && p->ci_level >= 0 && p->ci_level < 1;
}

int bench__changepoints(const struct bench__cp_run *runs, size_t n,
                        const struct bench__cp_params *p, struct bench__changepoint *out,
                        size_t *n_out)
{
    if (!n_out || !params_valid(p) || (n && (!runs || !out)))
        return BENCH_EINVAL;
    *n_out = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(runs[i].value) && !(isfinite(runs[i].value) && runs[i].value > 0))
            return BENCH_EINVAL;
    struct compact c = {0};
    size_t cap = n ? n : 1;
    c.z = bench__xmalloc(cap * sizeof *c.z);
    c.v = bench__xmalloc(cap * sizeof *c.v);
    c.at = bench__xmalloc(cap * sizeof *c.at);
    for (size_t i = 0; i < n; i++)
        if (!isnan(runs[i].value)) {
            c.v[c.n] = runs[i].value;
            c.z[c.n] = log(runs[i].value);
            c.at[c.n++] = i;
        }
    if (c.n >= 2 * p->min_segment) {
        size_t *cps = bench__xmalloc(c.n * sizeof *cps);
        size_t k = second_pass(&c, p, cps, first_pass(&c, p, cps));
        double *scratch = bench__xmalloc(c.n * sizeof *scratch);
        for (size_t i = 0; i < k; i++)
            describe(&c, cps, k, i, n, p, scratch, &out[i]);
        *n_out = k;
        free(scratch);
        free(cps);
    }
    free(c.z);
    free(c.v);
    free(c.at);
    return 0;
}
