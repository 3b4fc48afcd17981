/* SPDX-License-Identifier: MIT */
/* mann_whitney.c: owns the Mann-Whitney test of a cell: 2U, the exact two-sided permutation p by
 * the doubled-mid-rank DP, the normal approximation, and the runs a family needs before an exact
 * p can pass Benjamini-Hochberg. Pure arithmetic. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "compare.h"
#include "engine.h"

#define TWO_POW_63 (UINT64_C(1) << 63)

/* ---- Mann–Whitney ---------------------------------------------------------------------- */

uint64_t bench__mw_two_u(const double *b, size_t nb, const double *c, size_t nc)
{
    uint64_t two_u = 0;
    for (size_t i = 0; i < nc; i++)
        for (size_t j = 0; j < nb; j++)
            two_u += c[i] > b[j] ? 2 : c[i] == b[j] ? 1 : 0;
    return two_u;
}

uint64_t bench__gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* C(n, k), or 0 when it exceeds `limit` (every C(n, k) ≥ 1, so 0 is free). */
static uint64_t choose_capped(uint64_t n, uint64_t k, uint64_t limit)
{
    if (k > n)
        return 0;
    if (k > n - k)
        k = n - k;
    uint64_t c = 1; /* C(n − k + i, i) after step i: increasing in i */
    for (uint64_t i = 1; i <= k; i++) {
        uint64_t g = bench__gcd64(c, i);
        uint64_t num = (n - k + i) / (i / g); /* exact: (c/g)·(n−k+i) is divisible by i/g */
        c /= g;
        if (c > limit / num)
            return 0;
        c *= num;
        if (c > limit)
            return 0;
    }
    return c;
}

struct pooled {
    double v;
    uint32_t cand; /* 1 for the candidate arm */
};

static int compare_pooled(const void *pa, const void *pb)
{
    const struct pooled *a = pa, *b = pb;
    return (a->v > b->v) - (a->v < b->v);
}

/* The doubled mid-ranks of the pooled sample (ascending), 2U of the candidate arm, and the
 * tie sum Σ(t³ − t). `pool` and `rank` hold N = nb + nc entries. */
static void mw_ranks(const double *b, size_t nb, const double *c, size_t nc, struct pooled *pool,
                     uint64_t *rank, uint64_t *two_u, double *tie_sum)
{
    size_t n = nb + nc;
    for (size_t i = 0; i < nb; i++)
        pool[i] = (struct pooled){b[i], 0};
    for (size_t i = 0; i < nc; i++)
        pool[nb + i] = (struct pooled){c[i], 1};
    qsort(pool, n, sizeof *pool, compare_pooled);
    uint64_t rank_sum_c = 0;
    double ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && pool[j + 1].v == pool[i].v)
            j++;
        uint64_t r = (uint64_t)(i + 1) + (uint64_t)(j + 1); /* positions i+1..j+1, doubled */
        for (size_t t = i; t <= j; t++) {
            rank[t] = r;
            if (pool[t].cand)
                rank_sum_c += r;
        }
        double t = (double)(j - i + 1);
        ties += t * t * t - t;
        i = j + 1;
    }
    *two_u = rank_sum_c - (uint64_t)nc * (uint64_t)(nc + 1);
    *tie_sum = ties;
}

static uint64_t abs_diff(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* The exact p by the doubled-rank subset-sum DP: 0, or 1 when C(N, k) > 2^63. */
int bench__mw_exact_core(const double *b, size_t nb, const double *c, size_t nc, uint64_t *num,
                         uint64_t *den)
{
    size_t n = nb + nc, k = nb < nc ? nb : nc;
    uint64_t total = choose_capped(n, k, TWO_POW_63);
    if (total == 0)
        return 1;
    if (k == 0) {
        *num = *den = 1;
        return 0;
    }
    struct pooled *pool = bench__xmalloc(n * sizeof *pool);
    uint64_t *rank = bench__xmalloc(n * sizeof *rank);
    /* The largest sum of k doubled ranks is at most k·2N. */
    size_t smax = 2 * k * n;
    uint64_t *cnt = bench__xcalloc((k + 1) * (smax + 1), sizeof *cnt);
    uint64_t two_u_obs;
    double ties;
    mw_ranks(b, nb, c, nc, pool, rank, &two_u_obs, &ties);
    uint64_t mean2 = (uint64_t)nb * (uint64_t)nc; /* the null mean of 2U */
    uint64_t dist_obs = abs_diff(two_u_obs, mean2);

    /* cnt[j·(smax+1) + s]: subsets of j elements among those seen with doubled-rank sum s.
     * Ranks arrive ascending, so j of them sum to at most j·r (r the latest). */
    size_t w = smax + 1;
    cnt[0] = 1;
    for (size_t i = 0; i < n; i++) {
        size_t r = (size_t)rank[i];
        size_t jmax = i + 1 < k ? i + 1 : k;
        for (size_t j = jmax; j >= 1; j--) {
            uint64_t *dst = cnt + j * w;
            const uint64_t *src = cnt + (j - 1) * w;
            size_t top = j * r < smax ? j * r : smax;
            for (size_t s = top; s >= r; s--)
                dst[s] += src[s - r];
        }
    }
    /* A subset in the smaller arm's role has 2U = S − k(k+1); |2U − nb·nc| is the same
     * whichever arm it names, since 2U_B + 2U_C = 2·nb·nc. */
    uint64_t base = (uint64_t)k * (uint64_t)(k + 1);
    uint64_t hits = 0, all = 0;
    const uint64_t *row = cnt + k * w;
    for (size_t s = 0; s <= smax; s++) {
        if (!row[s])
            continue;
        all += row[s];
        if (abs_diff((uint64_t)s - base, mean2) >= dist_obs)
            hits += row[s];
    }
    free(pool);
    free(rank);
    free(cnt);
    if (all != total) /* cannot happen: the DP counts every subset once */
        return BENCH_EINVAL;
    uint64_t g = bench__gcd64(hits, all);
    *num = hits / g;
    *den = all / g;
    return 0;
}

bool bench__mw_exact(const double *b, size_t nb, const double *c, size_t nc, uint64_t *numerator,
                     uint64_t *denominator)
{
    uint64_t num = 0, den = 0;
    if (bench__mw_exact_core(b, nb, c, nc, &num, &den) != 0)
        return false;
    *numerator = num;
    *denominator = den;
    return true;
}

static double mw_normal_from(uint64_t two_u, double ties, size_t nb, size_t nc)
{
    double n = (double)(nb + nc);
    uint64_t mean2 = (uint64_t)nb * (uint64_t)nc;
    double var = (double)mean2 / 12.0 * ((n + 1) - ties / (n * (n - 1)));
    if (!(var > 0))
        return 1.0; /* every value tied: 2U sits at its mean */
    double z = fmax((double)abs_diff(two_u, mean2) / 2.0 - 0.5, 0.0) / sqrt(var);
    return erfc(z / sqrt(2.0));
}

double bench__mw_normal(const double *b, size_t nb, const double *c, size_t nc)
{
    size_t n = nb + nc;
    if (nb == 0 || nc == 0 || n < 2)
        return 1.0;
    struct pooled *pool = bench__xmalloc(n * sizeof *pool);
    uint64_t *rank = bench__xmalloc(n * sizeof *rank);
    uint64_t two_u;
    double ties;
    mw_ranks(b, nb, c, nc, pool, rank, &two_u, &ties);
    free(pool);
    free(rank);
    return mw_normal_from(two_u, ties, nb, nc);
}

/* ---- runs needed ----------------------------------------------------------------------- */

unsigned bench__runs_needed(size_t family_size, double q)
{
    if (!(q > 0))
        return 0; /* no run count reaches a zero threshold */
    double need = 2.0 * (double)family_size;
    /* C(2n, n) exactly while it fits, then in double (inf ends the loop for any q > 0). */
    uint64_t exact = 20; /* C(6, 3) */
    double approx = 20.0;
    bool fits = true;
    for (unsigned n = 3;; n++) {
        double c = fits ? (double)exact : approx;
        if (need <= q * c)
            return n;
        /* C(2n+2, n+1) = C(2n, n) · 2(2n+1) / (n+1) */
        uint64_t f = 2 * (2 * (uint64_t)n + 1), g = bench__gcd64(exact, (uint64_t)n + 1);
        uint64_t a = exact / g, mul = f / (((uint64_t)n + 1) / g);
        if (fits && a <= UINT64_MAX / mul) {
            exact = a * mul;
        } else {
            fits = false;
            approx = c * (double)f / (double)(n + 1);
        }
    }
}
