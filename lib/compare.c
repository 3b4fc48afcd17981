/* SPDX-License-Identifier: MIT */
/* compare.c: owns the statistical comparison engine of compare.h (spec §B.1 Steps 1–10).
 * Pure arithmetic over numbers: no I/O, no global state, no clock; results never depend on
 * the order or the threads in which cells are computed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;
#define HAVE_U128 1
#endif

#define TWO_POW_63 (UINT64_C(1) << 63)

/* ---- SplitMix64, FNV-1a, stream seeds, Fisher–Yates (Steps 2, 10) ------------------- */

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t bench__rng_next(struct bench__rng *rng)
{
    return splitmix64(&rng->state);
}

uint64_t bench__rng_below(struct bench__rng *rng, uint64_t n)
{
    if (n == 0)
        return 0; /* [0, 0) is empty: nothing to draw, and no state is consumed */
    uint64_t t = (0 - n) % n;
    for (;;) {
        uint64_t x = splitmix64(&rng->state);
        if (x >= t)
            return x % n;
    }
}

/* below(n) for a fixed n, with the threshold and the remainder's reciprocal computed once:
 * the same draws and results as bench__rng_below, without a division per draw. */
struct below {
    uint64_t n, t;
#ifdef HAVE_U128
    uint64_t inv; /* floor((2^64 − 1) / n): the quotient is exact or one too small */
#endif
};

static void below_init(struct below *b, uint64_t n)
{
    b->n = n;
    b->t = (0 - n) % n;
#ifdef HAVE_U128
    b->inv = UINT64_MAX / n;
#endif
}

static inline uint64_t below_draw(uint64_t *state, const struct below *b)
{
    for (;;) {
        uint64_t x = splitmix64(state);
        if (x < b->t)
            continue;
#ifdef HAVE_U128
        uint64_t q = (uint64_t)(((u128)x * b->inv) >> 64);
        uint64_t r = x - q * b->n;
        return r >= b->n ? r - b->n : r;
#else
        return x % b->n;
#endif
    }
}

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

static uint64_t fnv_update(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t bench__fnv1a64(const void *data, size_t len)
{
    return fnv_update(FNV_OFFSET, data, len);
}

uint64_t bench__stream_seed(uint64_t global_seed, const char *subj_b, const char *subj_x,
                            const char *scenario, const char *operation)
{
    const char *parts[4] = {subj_b, subj_x, scenario, operation};
    const unsigned char sep = 0x1F;
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < 4; i++) {
        if (i > 0)
            h = fnv_update(h, &sep, 1);
        if (parts[i])
            h = fnv_update(h, parts[i], strlen(parts[i]));
    }
    return global_seed ^ h;
}

void bench__shuffle(struct bench__rng *rng, size_t *order, size_t n)
{
    for (size_t i = n; i-- > 1;) {
        size_t j = (size_t)bench__rng_below(rng, (uint64_t)i + 1);
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* ---- medians (Step 1) ------------------------------------------------------------------ */

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static void sort_doubles(double *x, size_t n)
{
    if (n > 32) {
        qsort(x, n, sizeof *x, compare_doubles);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        for (; j > 0 && x[j - 1] > v; j--)
            x[j] = x[j - 1];
        x[j] = v;
    }
}

static double sorted_median(const double *s, size_t n)
{
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double bench__median_of(const double *x, size_t n)
{
    if (n == 0 || !x)
        return NAN;
    double stack[64];
    double *s = n <= 64 ? stack : malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    sort_doubles(s, n);
    double m = sorted_median(s, n);
    if (s != stack)
        free(s);
    return m;
}

/* ---- Mann–Whitney (Step 5) ------------------------------------------------------------- */

uint64_t bench__mw_two_u(const double *b, size_t nb, const double *c, size_t nc)
{
    uint64_t two_u = 0;
    for (size_t i = 0; i < nc; i++)
        for (size_t j = 0; j < nb; j++)
            two_u += c[i] > b[j] ? 2 : c[i] == b[j] ? 1 : 0;
    return two_u;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
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
        uint64_t g = gcd64(c, i);
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

/* The exact p by the doubled-rank subset-sum DP: 0, 1 when C(N, k) > 2^63, or ENOMEM. */
static int mw_exact_core(const double *b, size_t nb, const double *c, size_t nc, uint64_t *num,
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
    struct pooled *pool = malloc(n * sizeof *pool);
    uint64_t *rank = malloc(n * sizeof *rank);
    /* The largest sum of k doubled ranks is at most k·2N. */
    size_t smax = 2 * k * n;
    uint64_t *cnt = calloc((k + 1) * (smax + 1), sizeof *cnt);
    if (!pool || !rank || !cnt) {
        free(pool);
        free(rank);
        free(cnt);
        return BENCH_ENOMEM;
    }
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
    uint64_t g = gcd64(hits, all);
    *num = hits / g;
    *den = all / g;
    return 0;
}

bool bench__mw_exact(const double *b, size_t nb, const double *c, size_t nc, uint64_t *numerator,
                     uint64_t *denominator)
{
    uint64_t num = 0, den = 0;
    if (mw_exact_core(b, nb, c, nc, &num, &den) != 0)
        return false;
    *numerator = num;
    *denominator = den;
    return true;
}

/* Enumeration is the oracle: it compares the values pair by pair, never through ranks. */
#define MW_ENUM_MAX_N 62
#define MW_ENUM_MAX_SUBSETS (UINT64_C(1) << 24)

bool bench__mw_enumerate(const double *b, size_t nb, const double *c, size_t nc,
                         uint64_t *numerator, uint64_t *denominator)
{
    size_t n = nb + nc;
    if (n > MW_ENUM_MAX_N || choose_capped(n, nc, MW_ENUM_MAX_SUBSETS) == 0)
        return false;
    double pool[MW_ENUM_MAX_N];
    if (nb)
        memcpy(pool, b, nb * sizeof *pool);
    if (nc)
        memcpy(pool + nb, c, nc * sizeof *pool);
    uint64_t mean2 = (uint64_t)nb * (uint64_t)nc;
    uint64_t dist_obs = abs_diff(bench__mw_two_u(b, nb, c, nc), mean2);
    uint64_t hits = 0, all = 0;
    uint64_t mask = nc ? (UINT64_C(1) << nc) - 1 : 0, end = UINT64_C(1) << n;
    while (mask < end) {
        uint64_t two_u = 0;
        for (size_t i = 0; i < n; i++) {
            if (!(mask >> i & 1))
                continue;
            for (size_t j = 0; j < n; j++)
                if (!(mask >> j & 1))
                    two_u += pool[i] > pool[j] ? 2 : pool[i] == pool[j] ? 1 : 0;
        }
        all++;
        if (abs_diff(two_u, mean2) >= dist_obs)
            hits++;
        if (mask == 0)
            break;
        uint64_t low = mask & -mask, ripple = mask + low; /* Gosper: next mask, same count */
        mask = ripple | (((mask ^ ripple) >> 2) / low);
    }
    uint64_t g = gcd64(hits, all);
    *numerator = hits / g;
    *denominator = all / g;
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

static int mw_normal_core(const double *b, size_t nb, const double *c, size_t nc, double *p)
{
    size_t n = nb + nc;
    if (nb == 0 || nc == 0 || n < 2) {
        *p = 1.0;
        return 0;
    }
    struct pooled *pool = malloc(n * sizeof *pool);
    uint64_t *rank = malloc(n * sizeof *rank);
    if (!pool || !rank) {
        free(pool);
        free(rank);
        return BENCH_ENOMEM;
    }
    uint64_t two_u;
    double ties;
    mw_ranks(b, nb, c, nc, pool, rank, &two_u, &ties);
    free(pool);
    free(rank);
    *p = mw_normal_from(two_u, ties, nb, nc);
    return 0;
}

double bench__mw_normal(const double *b, size_t nb, const double *c, size_t nc)
{
    double p;
    return mw_normal_core(b, nb, c, nc, &p) == 0 ? p : NAN;
}

/* ---- Benjamini–Hochberg (Step 6) ------------------------------------------------------- */

struct p_at {
    double p;
    size_t i;
};

static int compare_p_at(const void *pa, const void *pb)
{
    const struct p_at *a = pa, *b = pb;
    if (a->p != b->p)
        return (a->p > b->p) - (a->p < b->p);
    return (a->i > b->i) - (a->i < b->i);
}

static size_t bh_core(const double *p, size_t m, double q, bool *rejected, double *q_adjusted,
                      struct p_at *sorted)
{
    for (size_t i = 0; i < m; i++)
        sorted[i] = (struct p_at){p[i], i};
    qsort(sorted, m, sizeof *sorted, compare_p_at);
    size_t k_star = 0;
    for (size_t k = m; k >= 1; k--) {
        if (sorted[k - 1].p <= (double)k * q / (double)m) {
            k_star = k;
            break;
        }
    }
    double cut = k_star ? sorted[k_star - 1].p : -INFINITY;
    double run = 1.0;
    for (size_t j = m; j >= 1; j--) {
        double v = (double)m * sorted[j - 1].p / (double)j;
        if (v < run)
            run = v;
        q_adjusted[sorted[j - 1].i] = run;
    }
    for (size_t i = 0; i < m; i++)
        rejected[i] = k_star > 0 && p[i] <= cut;
    return k_star;
}

size_t bench__bh(const double *p, size_t m, double q, bool *rejected, double *q_adjusted)
{
    if (m == 0)
        return 0;
    struct p_at *sorted = malloc(m * sizeof *sorted);
    if (!sorted) { /* no memory: reject nothing, and say that no q was computed */
        for (size_t i = 0; i < m; i++) {
            rejected[i] = false;
            q_adjusted[i] = NAN;
        }
        return 0;
    }
    size_t k = bh_core(p, m, q, rejected, q_adjusted, sorted);
    free(sorted);
    return k;
}

/* ---- percentile bootstrap (Step 3) ---------------------------------------------------- */

/* Scratch for bootstraps over arms of at most `cap` values and CI index k (heaps of k+1),
 * allocated once per engine thread and reused: nothing is allocated per resample. */
struct boot_ws {
    size_t cap, heap_cap;
    double *sorted_b, *sorted_c, *low, *high;
    uint32_t *rank_b, *rank_c, *count_b, *count_c;
    struct p_at *order;
};

static void boot_ws_free(struct boot_ws *ws)
{
    free(ws->sorted_b);
    free(ws->sorted_c);
    free(ws->low);
    free(ws->high);
    free(ws->rank_b);
    free(ws->rank_c);
    free(ws->count_b);
    free(ws->count_c);
    free(ws->order);
    memset(ws, 0, sizeof *ws);
}

static int boot_ws_init(struct boot_ws *ws, size_t cap, size_t k)
{
    memset(ws, 0, sizeof *ws);
    ws->cap = cap ? cap : 1;
    ws->heap_cap = k + 1;
    ws->sorted_b = malloc(ws->cap * sizeof *ws->sorted_b);
    ws->sorted_c = malloc(ws->cap * sizeof *ws->sorted_c);
    ws->low = malloc(ws->heap_cap * sizeof *ws->low);
    ws->high = malloc(ws->heap_cap * sizeof *ws->high);
    ws->rank_b = malloc(ws->cap * sizeof *ws->rank_b);
    ws->rank_c = malloc(ws->cap * sizeof *ws->rank_c);
    ws->count_b = malloc(ws->cap * sizeof *ws->count_b);
    ws->count_c = malloc(ws->cap * sizeof *ws->count_c);
    ws->order = malloc(ws->cap * sizeof *ws->order);
    if (!ws->sorted_b || !ws->sorted_c || !ws->low || !ws->high || !ws->rank_b || !ws->rank_c ||
        !ws->count_b || !ws->count_c || !ws->order) {
        boot_ws_free(ws);
        return BENCH_ENOMEM;
    }
    return 0;
}

/* sorted[] = the values ascending; rank[i] = the position of values[i] in sorted[]. */
static void rank_values(const double *values, size_t n, double *sorted, uint32_t *rank,
                        struct p_at *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = (struct p_at){values[i], i};
    if (n > 32) {
        qsort(order, n, sizeof *order, compare_p_at);
    } else {
        for (size_t i = 1; i < n; i++) {
            struct p_at v = order[i];
            size_t j = i;
            for (; j > 0 && order[j - 1].p > v.p; j--)
                order[j] = order[j - 1];
            order[j] = v;
        }
    }
    for (size_t t = 0; t < n; t++) {
        sorted[t] = order[t].p;
        rank[order[t].i] = (uint32_t)t;
    }
}

/* A resample is kept as a count per rank: sorted, it is sorted[r] repeated count[r] times,
 * so its median is the very number that sorting the drawn values would give.
 *
 * Arms of up to 15 values keep the counts as the 4-bit nibbles of one register (rank r in
 * nibble r). A multiply by 0x11…1 turns them into prefix sums (each ≤ n ≤ 15: nothing
 * carries), and the rank holding sorted position `pos` is the number of prefix nibbles
 * ≤ pos, counted on the even and odd nibbles spread into bytes. */
#define SWAR_MAX_N 15
#define NIBBLE_ONES UINT64_C(0x1111111111111111)
#define BYTE_LOW4 UINT64_C(0x0F0F0F0F0F0F0F0F)
#define BYTE_ONES UINT64_C(0x0101010101010101)
#define BYTE_HIGH UINT64_C(0x8080808080808080)

static inline uint64_t bytes_at_most(uint64_t x, uint64_t pos_bytes)
{
    uint64_t le = ((pos_bytes | BYTE_HIGH) - x) & BYTE_HIGH; /* bytes of x that are ≤ pos */
    return ((le >> 7) * BYTE_ONES) >> 56;
}

static inline size_t nibble_rank_at(uint64_t prefix, uint64_t pos)
{
    uint64_t pos_bytes = pos * BYTE_ONES;
    return (size_t)(bytes_at_most(prefix & BYTE_LOW4, pos_bytes) +
                    bytes_at_most((prefix >> 4) & BYTE_LOW4, pos_bytes));
}

static inline double nibble_median(uint64_t counts, const double *sorted, size_t n)
{
    uint64_t prefix = counts * NIBBLE_ONES;
    uint64_t mid = n / 2;
    if (n % 2)
        return sorted[nibble_rank_at(prefix, mid)];
    return (sorted[nibble_rank_at(prefix, mid - 1)] + sorted[nibble_rank_at(prefix, mid)]) / 2.0;
}

static inline double counted_median(const uint32_t *count, const double *sorted, size_t n)
{
    size_t hi_pos = n / 2, acc = 0, r = 0;
    if (n % 2) {
        while ((acc += count[r]) <= hi_pos)
            r++;
        return sorted[r];
    }
    while ((acc += count[r]) <= hi_pos - 1)
        r++;
    double a = sorted[r];
    while (acc <= hi_pos)
        acc += count[++r];
    return (a + sorted[r]) / 2.0;
}

/* A max-heap holding the `cap` smallest values pushed so far: its top is then the
 * (cap−1)-th smallest (0-based). The deltas of the upper tail go in negated. This replaces
 * sorting the B deltas: only d[k] and d[B−1−k] are needed, and equal values are equal. */
struct kheap {
    double *v;
    size_t n, cap;
};

static inline void kheap_push(struct kheap *h, double x)
{
    double *v = h->v;
    size_t i;
    if (h->n < h->cap) {
        i = h->n++;
        while (i > 0 && v[(i - 1) / 2] < x) {
            v[i] = v[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        v[i] = x;
        return;
    }
    if (!(x < v[0]))
        return;
    i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && v[c + 1] > v[c])
            c++;
        if (!(v[c] > x))
            break;
        v[i] = v[c];
        i = c;
    }
    v[i] = x;
}

/* k = floor(B·α/2) in integers: α is taken as a multiple of 1e-9 (0.05 → 50 000 000), so
 * B = 10 000 gives exactly 250 however α was computed (e.g. 1 − 0.95). */
static size_t ci_k(uint32_t resamples, double alpha)
{
    if (!(alpha > 0))
        return 0;
    if (!(alpha < 1))
        alpha = 1;
    uint64_t a = (uint64_t)llround(alpha * 1e9);
    uint64_t k = (uint64_t)resamples * a / UINT64_C(2000000000);
    uint64_t kmax = resamples ? ((uint64_t)resamples - 1) / 2 : 0;
    return (size_t)(k < kmax ? k : kmax);
}

static bool same_runs(const struct bench__arm *a, const struct bench__arm *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->runs[i] != b->runs[i])
            return false;
    return true;
}

/* The draws of one resample, in the spec's order: paired, n indices shared by both arms;
 * unpaired, n_B baseline indices first, then n_C candidate indices. */
static void boot_core(const struct bench__arm *base, const struct bench__arm *cand, uint64_t seed,
                      uint32_t resamples, size_t k, struct boot_ws *ws, double *lo, double *hi,
                      bool *paired)
{
    size_t nb = base->n, nc = cand->n;
    bool pair = same_runs(base, cand);
    *paired = pair;
    rank_values(base->values, nb, ws->sorted_b, ws->rank_b, ws->order);
    rank_values(cand->values, nc, ws->sorted_c, ws->rank_c, ws->order);
    const uint32_t *rank_b = ws->rank_b, *rank_c = ws->rank_c;
    const double *sorted_b = ws->sorted_b, *sorted_c = ws->sorted_c;
    struct kheap low = {ws->low, 0, k + 1}, high = {ws->high, 0, k + 1};
    uint64_t state = seed;
    struct below draw_b, draw_c;
    below_init(&draw_b, nb);
    below_init(&draw_c, nc);

    if (nb <= SWAR_MAX_N && nc <= SWAR_MAX_N) {
        uint64_t inc_b[SWAR_MAX_N], inc_c[SWAR_MAX_N];
        for (size_t i = 0; i < nb; i++)
            inc_b[i] = UINT64_C(1) << (4 * rank_b[i]);
        for (size_t i = 0; i < nc; i++)
            inc_c[i] = UINT64_C(1) << (4 * rank_c[i]);
        for (uint32_t t = 0; t < resamples; t++) {
            uint64_t count_b = 0, count_c = 0;
            if (pair) {
                for (size_t i = 0; i < nb; i++) {
                    size_t j = (size_t)below_draw(&state, &draw_b);
                    count_b += inc_b[j];
                    count_c += inc_c[j];
                }
            } else {
                for (size_t i = 0; i < nb; i++)
                    count_b += inc_b[below_draw(&state, &draw_b)];
                for (size_t i = 0; i < nc; i++)
                    count_c += inc_c[below_draw(&state, &draw_c)];
            }
            double mb = nibble_median(count_b, sorted_b, nb);
            double mc = nibble_median(count_c, sorted_c, nc);
            double d = (mc - mb) / mb;
            kheap_push(&low, d);
            kheap_push(&high, -d);
        }
    } else {
        uint32_t *count_b = ws->count_b, *count_c = ws->count_c;
        for (uint32_t t = 0; t < resamples; t++) {
            memset(count_b, 0, nb * sizeof *count_b);
            memset(count_c, 0, nc * sizeof *count_c);
            if (pair) {
                for (size_t i = 0; i < nb; i++) {
                    size_t j = (size_t)below_draw(&state, &draw_b);
                    count_b[rank_b[j]]++;
                    count_c[rank_c[j]]++;
                }
            } else {
                for (size_t i = 0; i < nb; i++)
                    count_b[rank_b[below_draw(&state, &draw_b)]]++;
                for (size_t i = 0; i < nc; i++)
                    count_c[rank_c[below_draw(&state, &draw_c)]]++;
            }
            double mb = counted_median(count_b, sorted_b, nb);
            double mc = counted_median(count_c, sorted_c, nc);
            double d = (mc - mb) / mb;
            kheap_push(&low, d);
            kheap_push(&high, -d);
        }
    }
    *lo = low.v[0];   /* the (k+1) smallest: d[k] */
    *hi = -high.v[0]; /* the (k+1) largest: d[B−1−k] */
}

static bool arm_usable(const struct bench__arm *a)
{
    return a && a->n > 0 && a->values && a->runs && a->n <= UINT32_MAX;
}

void bench__bootstrap_ci(const struct bench__arm *base, const struct bench__arm *cand,
                         uint64_t seed, uint32_t resamples, double alpha, double *lo, double *hi,
                         bool *paired)
{
    *lo = *hi = NAN;
    *paired = false;
    if (!arm_usable(base) || !arm_usable(cand) || resamples == 0)
        return;
    struct boot_ws ws;
    size_t k = ci_k(resamples, alpha);
    if (boot_ws_init(&ws, base->n > cand->n ? base->n : cand->n, k) != 0)
        return;
    boot_core(base, cand, seed, resamples, k, &ws, lo, hi, paired);
    boot_ws_free(&ws);
}

/* ---- runs needed (Steps 5, 9) ---------------------------------------------------------- */

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
        uint64_t f = 2 * (2 * (uint64_t)n + 1), g = gcd64(exact, (uint64_t)n + 1);
        uint64_t a = exact / g, mul = f / (((uint64_t)n + 1) / g);
        if (fits && a <= UINT64_MAX / mul) {
            exact = a * mul;
        } else {
            fits = false;
            approx = c * (double)f / (double)(n + 1);
        }
    }
}

/* ---- the engine (Steps 1–9) ------------------------------------------------------------ */

void bench__cmp_defaults(struct bench__cmp_params *p)
{
    *p = (struct bench__cmp_params){
        .min_runs = 3,
        .q = 0.05,
        .f_min = 0.03,
        .min_delta = 0,
        .resamples = 10000,
        .alpha = 0.05,
        .global_seed = 0,
        .subj_b = NULL,
        .subj_c = NULL,
        .subj_a = NULL,
    };
}

const char *bench__cmp_state_name(enum bench__cmp_state state)
{
    switch (state) {
    case BENCH__CMP_CLAIMED: return "CLAIMED";
    case BENCH__CMP_UNCONFIRMED: return "UNCONFIRMED";
    case BENCH__CMP_NO_CLAIM: return "NO_CLAIM";
    case BENCH__CMP_UNMEASURED: return "UNMEASURED";
    }
    return "?";
}

static bool arm_valid(const struct bench__arm *a)
{
    if (a->n == 0)
        return true;
    if (!a->values || !a->runs)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (!isfinite(a->values[i]) || !(a->values[i] > 0))
            return false;
        if (i > 0 && a->runs[i] <= a->runs[i - 1])
            return false;
    }
    return true;
}

static bool params_valid(const struct bench__cmp_params *p)
{
    return p->q > 0 && p->q <= 1 && p->alpha > 0 && p->alpha < 1 && p->f_min >= 0 &&
           isfinite(p->f_min) && p->min_delta >= 0 && isfinite(p->min_delta) && p->resamples > 0;
}

static void cell_unmeasured(struct bench__cmp_cell_out *o, const struct bench__cmp_cell_in *in,
                            const char *reason)
{
    *o = (struct bench__cmp_cell_out){
        .n_baseline = in->base.n,
        .n_candidate = in->cand.n,
        .n_aa = in->aa.n,
        .median_baseline = NAN,
        .median_candidate = NAN,
        .median_aa = NAN,
        .rel_delta = NAN,
        .abs_delta = NAN,
        .ci_lo = NAN,
        .ci_hi = NAN,
        .aa_ci_lo = NAN,
        .aa_ci_hi = NAN,
        .floor = NAN,
        .p = NAN,
        .q_adjusted = NAN,
        .state = BENCH__CMP_UNMEASURED,
        .reason = reason,
        .aa_p = NAN,
        .aa_q_adjusted = NAN,
    };
}

/* p of B vs X (Step 5): exact when C(N, n_small) ≤ 2^63, else the normal approximation. */
static int cell_p(const struct bench__arm *base, const struct bench__arm *x, double *p,
                  const char **method, uint64_t *num, uint64_t *den)
{
    int rc = mw_exact_core(base->values, base->n, x->values, x->n, num, den);
    if (rc == 0) {
        *p = (double)*num / (double)*den;
        *method = "exact";
        return 0;
    }
    if (rc != 1)
        return rc;
    *num = *den = 0;
    *method = "normal";
    return mw_normal_core(base->values, base->n, x->values, x->n, p);
}

/* The bootstrap CI must lie wholly beyond `floor` on one side. */
static bool ci_beyond(double lo, double hi, double floor)
{
    return lo > floor || hi < -floor;
}

/* Steps 1–5 for one cell: everything that does not depend on the other cells. */
static int cell_measure(const struct bench__cmp_params *params, const struct bench__cmp_cell_in *in,
                        struct bench__cmp_cell_out *o, size_t k, struct boot_ws *ws)
{
    size_t min_runs = params->min_runs ? params->min_runs : 1; /* an empty arm never counts */
    if (in->base.n < min_runs || in->cand.n < min_runs) {
        cell_unmeasured(o, in, "insufficient_runs");
        return 0;
    }
    if (in->aa.n < min_runs) {
        cell_unmeasured(o, in, "no_aa_floor");
        return 0;
    }
    const char *sb = params->subj_b ? params->subj_b : "";
    const char *sc = params->subj_c ? params->subj_c : "";
    const char *sa = params->subj_a ? params->subj_a : "";
    const char *scen = in->scenario ? in->scenario : "";
    const char *op = in->operation ? in->operation : "";
    *o = (struct bench__cmp_cell_out){
        .n_baseline = in->base.n,
        .n_candidate = in->cand.n,
        .n_aa = in->aa.n,
        .state = BENCH__CMP_NO_CLAIM,
    };
    o->median_baseline = bench__median_of(in->base.values, in->base.n);
    o->median_candidate = bench__median_of(in->cand.values, in->cand.n);
    o->median_aa = bench__median_of(in->aa.values, in->aa.n);
    if (isnan(o->median_baseline) || isnan(o->median_candidate) || isnan(o->median_aa))
        return BENCH_ENOMEM; /* only an allocation failure makes a median NaN here */
    o->rel_delta = (o->median_candidate - o->median_baseline) / o->median_baseline;
    o->abs_delta = o->median_candidate - o->median_baseline;

    o->seed = bench__stream_seed(params->global_seed, sb, sc, scen, op);
    boot_core(&in->base, &in->cand, o->seed, params->resamples, k, ws, &o->ci_lo, &o->ci_hi,
              &o->paired);
    o->aa_seed = bench__stream_seed(params->global_seed, sb, sa, scen, op);
    bool aa_paired;
    boot_core(&in->base, &in->aa, o->aa_seed, params->resamples, k, ws, &o->aa_ci_lo, &o->aa_ci_hi,
              &aa_paired);
    o->floor = fmax(params->f_min, fmax(fabs(o->aa_ci_lo), fabs(o->aa_ci_hi)));

    int rc = cell_p(&in->base, &in->cand, &o->p, &o->p_method, &o->p_numerator, &o->p_denominator);
    if (rc != 0)
        return rc;
    const char *aa_method;
    uint64_t aa_num, aa_den;
    return cell_p(&in->base, &in->aa, &o->aa_p, &aa_method, &aa_num, &aa_den);
}

/* Cells are independent (each bootstrap has its own stream), so they are spread over up to
 * MEASURE_THREADS_MAX threads, cell i to worker i mod T: the results are the same for any T. */
#define MEASURE_THREADS_MAX 8
#define MEASURE_THREADED_RESAMPLES 200000 /* below this much work, one thread is faster */

struct measure_job {
    const struct bench__cmp_params *params;
    const struct bench__cmp_cell_in *cells;
    struct bench__cmp_cell_out *out;
    size_t n, first, step, cap, k;
    int rc;
};

static void *measure_worker(void *arg)
{
    struct measure_job *job = arg;
    struct boot_ws ws;
    job->rc = boot_ws_init(&ws, job->cap, job->k);
    if (job->rc != 0)
        return NULL;
    for (size_t i = job->first; i < job->n && job->rc == 0; i += job->step)
        job->rc = cell_measure(job->params, &job->cells[i], &job->out[i], job->k, &ws);
    boot_ws_free(&ws);
    return NULL;
}

static int measure_cells(const struct bench__cmp_params *params,
                         const struct bench__cmp_cell_in *cells, size_t n,
                         struct bench__cmp_cell_out *out, size_t cap, size_t k)
{
    size_t threads = 1;
    if ((uint64_t)n * params->resamples >= MEASURE_THREADED_RESAMPLES) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 1 ? (size_t)cpus : 1;
        if (threads > MEASURE_THREADS_MAX)
            threads = MEASURE_THREADS_MAX;
        if (threads > n)
            threads = n;
    }
    struct measure_job jobs[MEASURE_THREADS_MAX];
    pthread_t tid[MEASURE_THREADS_MAX];
    bool started[MEASURE_THREADS_MAX] = {false};
    for (size_t t = 0; t < threads; t++)
        jobs[t] = (struct measure_job){params, cells, out, n, t, threads, cap, k, 0};
    for (size_t t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, measure_worker, &jobs[t]) == 0;
    measure_worker(&jobs[0]);
    int rc = jobs[0].rc;
    for (size_t t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            measure_worker(&jobs[t]); /* no thread: do its share here */
        if (rc == 0)
            rc = jobs[t].rc;
    }
    return rc;
}

int bench__compare(const struct bench__cmp_params *params, const struct bench__cmp_cell_in *cells,
                   size_t n, struct bench__cmp_cell_out *out, struct bench__cmp_result *result,
                   size_t *bad_cell)
{
    if (!params || (n && (!cells || !out)) || !result || !params_valid(params)) {
        if (bad_cell)
            *bad_cell = SIZE_MAX; /* the parameters, not a cell */
        return BENCH_EINVAL;
    }
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) {
        const struct bench__arm *arms[3] = {&cells[i].base, &cells[i].cand, &cells[i].aa};
        for (size_t a = 0; a < 3; a++) {
            if (!arm_valid(arms[a]) || arms[a]->n > UINT32_MAX) {
                if (bad_cell)
                    *bad_cell = i;
                return BENCH_EINVAL;
            }
            if (arms[a]->n > cap)
                cap = arms[a]->n;
        }
    }

    /* Steps 1–5 per cell. */
    size_t k = ci_k(params->resamples, params->alpha);
    int rc = measure_cells(params, cells, n, out, cap, k);
    if (rc != 0)
        return rc;

    size_t slots = n ? n : 1;
    size_t *tested = malloc(slots * sizeof *tested);
    double *p = calloc(slots * 4, sizeof *p); /* p, q_adj, aa_p, aa_q_adj */
    bool *rej = calloc(slots * 2, sizeof *rej);
    struct p_at *order = malloc(slots * sizeof *order);
    if (!tested || !p || !rej || !order) {
        rc = BENCH_ENOMEM;
        goto done;
    }
    double *q_adj = p + n, *aa_p = p + 2 * n, *aa_q_adj = p + 3 * n;
    bool *aa_rej = rej + n;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (out[i].state == BENCH__CMP_UNMEASURED)
            continue;
        tested[m] = i;
        p[m] = out[i].p;
        aa_p[m] = out[i].aa_p;
        m++;
    }

    /* Step 6 and the A/A family of Step 8. */
    bh_core(p, m, params->q, rej, q_adj, order);
    bh_core(aa_p, m, params->q, aa_rej, aa_q_adj, order);
    unsigned runs_needed = bench__runs_needed(m, params->q);

    /* Steps 7–8 per tested cell. */
    bool aa_changed = false, claimed_regression = false, unconfirmed_regression = false;
    for (size_t t = 0; t < m; t++) {
        struct bench__cmp_cell_out *o = &out[tested[t]];
        o->bh_rejected = rej[t];
        o->q_adjusted = q_adj[t];
        o->aa_bh_rejected = aa_rej[t];
        o->aa_q_adjusted = aa_q_adj[t];

        bool excl0 = o->ci_lo > 0 || o->ci_hi < 0;
        bool beyond = ci_beyond(o->ci_lo, o->ci_hi, o->floor);
        bool absok = fabs(o->abs_delta) >= params->min_delta;
        const char *direction = o->rel_delta > 0 ? "regression" : "improvement";
        if (excl0 && beyond && absok) {
            o->direction = direction;
            if (o->bh_rejected) {
                o->state = BENCH__CMP_CLAIMED;
                claimed_regression |= o->rel_delta > 0;
            } else {
                o->state = BENCH__CMP_UNCONFIRMED;
                o->runs_needed = runs_needed;
                unconfirmed_regression |= o->rel_delta > 0;
            }
        } else {
            o->state = BENCH__CMP_NO_CLAIM;
            o->reason = !excl0    ? "ci_includes_zero"
                        : !beyond ? "ci_within_floor"
                                  : "below_min_delta";
        }

        double aa_abs_delta = o->median_aa - o->median_baseline;
        o->aa_confirmed_change = o->aa_bh_rejected && (o->aa_ci_lo > 0 || o->aa_ci_hi < 0) &&
                                 ci_beyond(o->aa_ci_lo, o->aa_ci_hi, params->f_min) &&
                                 fabs(aa_abs_delta) >= params->min_delta;
        aa_changed |= o->aa_confirmed_change;
    }

    /* Step 9: the first matching row wins. */
    *result = (struct bench__cmp_result){.family_size = m};
    if (aa_changed) {
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "aa_control_changed";
    } else if (claimed_regression) {
        result->verdict = "REGRESSION";
        result->exit_code = 1;
        result->reason = "claimed_regression";
    } else if (unconfirmed_regression) {
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "unconfirmed_regression";
        result->runs_needed = runs_needed;
    } else if (m < n || n == 0) {
        /* A missing cell is never a pass, and neither is a comparison of nothing. */
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "unmeasured_cells";
    } else {
        result->verdict = "PASS";
        result->exit_code = 0;
        result->reason = NULL;
    }
    rc = 0;

done:
    free(tested);
    free(p);
    free(rej);
    free(order);
    return rc;
}
