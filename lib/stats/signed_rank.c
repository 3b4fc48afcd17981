/* SPDX-License-Identifier: MIT */
/* signed_rank.c: owns the signed-rank arithmetic of the paired comparison: the k-th Walsh
 * average by counting (never all n(n+1)/2 of them), Hodges-Lehmann, the exact null distribution
 * and the interval index, the two-sided signed-rank p (exact by sign patterns, or normal), and
 * the normal quantile. Pure arithmetic: no state beyond the caller's cache. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/summary.h"
#include "../util/alloc.h"
#include "engine.h"
#include "paired.h"

/* ---- the k-th Walsh average ---------------------------------------------------------------
 * For sorted x, the sums x_i + x_j (i ≤ j) of row i rise with j, and the last j whose sum is at
 * most S falls as i rises: one pass counts the sums ≤ S. A selection keeps the sums in (L, H]
 * (rows [lo_i, hi_i)), takes as pivot the weighted median of the rows' middle sums (at least a
 * quarter of the range lies on each side of it), and narrows until few enough remain to sort. The
 * sums are compared as x_i + x_j everywhere, and halved only at the end (exact). */

/* end[i] = one past the last j ≥ i with x_i + x_j ≤ S (end[i] = i when none); returns the count. */
static uint64_t count_le(const double *x, size_t n, double s, size_t *end)
{
    uint64_t count = 0;
    size_t j = n; /* one past the candidate j */
    for (size_t i = 0; i < n; i++) {
        while (j > i && x[i] + x[j - 1] > s)
            j--;
        if (j <= i) {
            for (size_t r = i; r < n; r++)
                end[r] = r;
            break;
        }
        end[i] = j;
        count += j - i;
    }
    return count;
}

struct row_mid {
    double sum;
    size_t weight;
};

static int row_mid_compare(const void *pa, const void *pb)
{
    const struct row_mid *a = pa, *b = pb;
    return (a->sum > b->sum) - (a->sum < b->sum);
}

/* The k-th smallest (0-based) of v[0..n), reordering v: a selection with three-way partitions
 * (ties never stall it) around the median of three. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* the answer is in v[lo..hi) */
    for (;;) {
        if (hi - lo <= 1)
            return v[lo];
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,i) = pivot, [gt,hi) > pivot */
        while (i < gt) {
            double x = v[i];
            if (x < pivot) {
                v[i++] = v[lt];
                v[lt++] = x;
            } else if (x > pivot) {
                v[i] = v[--gt];
                v[gt] = x;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
}

double bench__walsh_kth(const double *x, size_t n, uint64_t k)
{
    uint64_t m = (uint64_t)n * (n + 1) / 2;
    if (n == 0 || k < 1 || k > m)
        return NAN;
    size_t *lo = bench__xmalloc(3 * n * sizeof *lo), *hi = lo + n, *piv = lo + 2 * n;
    struct row_mid *mids = bench__xmalloc(n * sizeof *mids);
    size_t cap = 4 * n + 64;
    double *buf = bench__xmalloc(cap * sizeof *buf);
    for (size_t i = 0; i < n; i++) {
        lo[i] = i; /* nothing ≤ −∞ */
        hi[i] = n; /* everything ≤ +∞ */
    }
    uint64_t c_lo = 0, c_hi = m;
    double result = NAN;
    for (;;) {
        if (c_hi - c_lo <= cap) {
            size_t t = 0;
            for (size_t i = 0; i < n; i++)
                for (size_t j = lo[i]; j < hi[i]; j++)
                    buf[t++] = x[i] + x[j];
            result = select_kth(buf, t, (size_t)(k - c_lo - 1)) / 2.0;
            break;
        }
        size_t rows = 0, total = 0;
        for (size_t i = 0; i < n; i++) {
            if (hi[i] <= lo[i])
                continue;
            size_t w = hi[i] - lo[i];
            mids[rows++] = (struct row_mid){x[i] + x[lo[i] + (w - 1) / 2], w};
            total += w;
        }
        qsort(mids, rows, sizeof *mids, row_mid_compare);
        size_t acc = 0, r = 0;
        while (r + 1 < rows && (acc += mids[r].weight) < (total + 1) / 2)
            r++;
        double pivot = mids[r].sum;
        uint64_t c = count_le(x, n, pivot, piv);
        if (c < k) {
            memcpy(lo, piv, n * sizeof *lo);
            c_lo = c;
            continue;
        }
        double below = nextafter(pivot, -INFINITY);
        uint64_t cb = count_le(x, n, below, piv);
        if (cb < k) { /* the sums ≤ pivot reach k, those < pivot do not */
            result = pivot / 2.0;
            break;
        }
        memcpy(hi, piv, n * sizeof *hi);
        c_hi = cb;
    }
    free(lo);
    free(mids);
    free(buf);
    return result;
}

double bench__hodges_lehmann(const double *sorted, size_t n)
{
    if (n == 0)
        return NAN;
    uint64_t m = (uint64_t)n * (n + 1) / 2;
    if (m % 2)
        return bench__walsh_kth(sorted, n, (m + 1) / 2);
    return (bench__walsh_kth(sorted, n, m / 2) + bench__walsh_kth(sorted, n, m / 2 + 1)) / 2.0;
}

/* ---- the null distribution ---------------------------------------------------------------- */

void bench__sr_cache_free(struct bench__sr_cache *cache)
{
    for (size_t n = 0; n <= BENCH__SR_EXACT_MAX; n++)
        free(cache->cum[n]);
    memset(cache, 0, sizeof *cache);
}

/* cum[w] = #{sign patterns of ranks 1..n whose positive ranks sum to ≤ w}, w = 0..n(n+1)/2. */
static uint64_t *null_cum_build(size_t n)
{
    size_t m = n * (n + 1) / 2;
    uint64_t *c = bench__xcalloc(m + 1, sizeof *c);
    c[0] = 1;
    for (size_t r = 1; r <= n; r++) {
        size_t top = r * (r + 1) / 2;
        for (size_t w = top; w >= r; w--)
            c[w] += c[w - r];
    }
    for (size_t w = 1; w <= m; w++)
        c[w] += c[w - 1];
    return c;
}

/* The table of n (≤ BENCH__SR_EXACT_MAX), from the cache or built into *own (freed by the
 * caller). */
static const uint64_t *null_cum(struct bench__sr_cache *cache, size_t n, uint64_t **own)
{
    *own = NULL;
    if (cache) {
        if (!cache->cum[n])
            cache->cum[n] = null_cum_build(n);
        return cache->cum[n];
    }
    return *own = null_cum_build(n);
}

uint64_t bench__sr_ci_k(struct bench__sr_cache *cache, size_t n, double alpha)
{
    if (n == 0 || !(alpha > 0) || !(alpha < 1))
        return 0;
    uint64_t m = (uint64_t)n * (n + 1) / 2;
    if (n <= BENCH__SR_EXACT_MAX) {
        uint64_t *own;
        const uint64_t *cum = null_cum(cache, n, &own);
        double limit = ldexp(alpha / 2.0, (int)n); /* P(T ≤ k − 1) ≤ α/2 in counts */
        uint64_t k = 0;
        while (k < m && (double)cum[k] <= limit)
            k++;
        free(own);
        return k;
    }
    double nn = (double)n;
    double sd = sqrt(nn * (nn + 1) * (2 * nn + 1) / 24.0);
    double k = floor((double)m / 2.0 + 0.5 - bench__z_two_sided(alpha) * sd);
    return k >= 1 ? (uint64_t)k : 0;
}

bool bench__sr_ci(struct bench__sr_cache *cache, const double *sorted, size_t n, double alpha,
                  double *lo, double *hi)
{
    *lo = *hi = NAN;
    uint64_t k = bench__sr_ci_k(cache, n, alpha);
    if (k == 0)
        return false;
    uint64_t m = (uint64_t)n * (n + 1) / 2;
    *lo = bench__walsh_kth(sorted, n, k);
    *hi = bench__walsh_kth(sorted, n, m + 1 - k);
    return true;
}

/* ---- the test ------------------------------------------------------------------------------ */

struct signed_abs {
    double abs;
    int sign; /* −1, 0, +1 */
};

static int signed_abs_compare(const void *pa, const void *pb)
{
    const struct signed_abs *a = pa, *b = pb;
    return (a->abs > b->abs) - (a->abs < b->abs);
}

static void set_exact(struct bench__sr_test *out, uint64_t num, uint64_t den)
{
    uint64_t g = bench__gcd64(num, den);
    out->p_num = num / g;
    out->p_den = den / g;
    out->p = (double)out->p_num / (double)out->p_den;
    out->exact = true;
}

/* Normal approximation in doubled ranks: T2 = 2·T+, R2 = Σ doubled ranks, Q = Σ (doubled rank)². */
static double normal_p(double t2, double r2, double q)
{
    double var = q / 16.0; /* Σ r² / 4 in ranks */
    if (!(var > 0))
        return 1.0;
    double dist = fabs(t2 / 2.0 - r2 / 4.0);
    double z = fmax(dist - 0.5, 0.0) / sqrt(var);
    return erfc(z / sqrt(2.0));
}

void bench__sr_test(struct bench__sr_cache *cache, const double *x, size_t n,
                    struct bench__sr_test *out)
{
    *out = (struct bench__sr_test){.p = 1.0, .exact = true, .p_num = 1, .p_den = 1};
    if (n == 0)
        return;
    struct signed_abs *v = bench__xmalloc(n * sizeof *v);
    uint64_t *r2 = bench__xmalloc(n * sizeof *r2); /* doubled mid-ranks */
    for (size_t i = 0; i < n; i++)
        v[i] = (struct signed_abs){fabs(x[i]), (x[i] > 0) - (x[i] < 0)};
    qsort(v, n, sizeof *v, signed_abs_compare);
    bool ties = false;
    size_t zeros = 0;
    uint64_t t2 = 0, sum2 = 0;
    double sq2 = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1].abs == v[i].abs)
            j++;
        uint64_t r = (uint64_t)(i + 1) + (uint64_t)(j + 1);
        for (size_t t = i; t <= j; t++) {
            r2[t] = r;
            if (v[t].sign == 0) {
                zeros++;
                continue;
            }
            ties |= j > i;
            sum2 += r;
            sq2 += (double)r * (double)r;
            if (v[t].sign > 0)
                t2 += r;
        }
        i = j + 1;
    }
    size_t nz = n - zeros;
    out->n_nonzero = nz;
    out->t_plus = (double)t2 / 2.0;
    if (nz == 0)
        goto done;
    if (nz > BENCH__SR_EXACT_MAX) {
        out->exact = false;
        out->p_num = out->p_den = 0;
        out->p = normal_p((double)t2, (double)sum2, sq2);
        goto done;
    }
    uint64_t den = UINT64_C(1) << nz; /* nz ≤ BENCH__SR_EXACT_MAX = 63 */
    if (!ties && zeros == 0) {
        /* Ranks 1..n: the symmetric null table; the distance form is twice the nearer tail. */
        uint64_t m = (uint64_t)n * (n + 1) / 2, t = t2 / 2;
        if (2 * t == m) {
            set_exact(out, 1, 1);
            goto done;
        }
        uint64_t *own;
        const uint64_t *cum = null_cum(cache, n, &own);
        uint64_t near = t < m - t ? t : m - t;
        set_exact(out, 2 * cum[near], den);
        free(own);
        goto done;
    }
    /* Ties or zeros: count the sign patterns of the non-zero doubled ranks by their positive sum.
     */
    uint64_t *cnt = bench__xcalloc(sum2 + 1, sizeof *cnt);
    cnt[0] = 1;
    uint64_t top = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].sign == 0)
            continue;
        uint64_t r = r2[i];
        top += r;
        for (uint64_t s = top; s >= r; s--)
            cnt[s] += cnt[s - r];
    }
    uint64_t obs = t2 * 2 > sum2 ? t2 * 2 - sum2 : sum2 - t2 * 2, hits = 0;
    for (uint64_t s = 0; s <= sum2; s++) {
        uint64_t dist = s * 2 > sum2 ? s * 2 - sum2 : sum2 - s * 2;
        if (dist >= obs)
            hits += cnt[s];
    }
    free(cnt);
    set_exact(out, hits, den);
done:
    free(v);
    free(r2);
}
