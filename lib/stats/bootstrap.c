/* SPDX-License-Identifier: MIT */
/* bootstrap.c: owns the percentile bootstrap of the relative median delta (paired when the two
 * arms have the same runs): counted medians instead of sorts, so 10 000 resamples of a cell cost
 * microseconds. Pure arithmetic; the same seed gives the same interval. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "compare.h"
#include "engine.h"
#include "draw.h"

/* ---- percentile bootstrap -------------------------------------------------------------- */

void bench__boot_ws_free(struct bench__boot_ws *ws)
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

void bench__boot_ws_init(struct bench__boot_ws *ws, size_t cap, size_t k)
{
    memset(ws, 0, sizeof *ws);
    ws->cap = cap ? cap : 1;
    ws->heap_cap = k + 1;
    ws->sorted_b = bench__xmalloc(ws->cap * sizeof *ws->sorted_b);
    ws->sorted_c = bench__xmalloc(ws->cap * sizeof *ws->sorted_c);
    ws->low = bench__xmalloc(ws->heap_cap * sizeof *ws->low);
    ws->high = bench__xmalloc(ws->heap_cap * sizeof *ws->high);
    ws->rank_b = bench__xmalloc(ws->cap * sizeof *ws->rank_b);
    ws->rank_c = bench__xmalloc(ws->cap * sizeof *ws->rank_c);
    ws->count_b = bench__xmalloc(ws->cap * sizeof *ws->count_b);
    ws->count_c = bench__xmalloc(ws->cap * sizeof *ws->count_c);
    ws->order = bench__xmalloc(ws->cap * sizeof *ws->order);
}

/* sorted[] = the values ascending; rank[i] = the position of values[i] in sorted[]. */
static void rank_values(const double *values, size_t n, double *sorted, uint32_t *rank,
                        struct bench__p_at *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = (struct bench__p_at){values[i], i};
    if (n > 32) {
        qsort(order, n, sizeof *order, bench__p_at_compare);
    } else {
        for (size_t i = 1; i < n; i++) {
            struct bench__p_at v = order[i];
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
size_t bench__ci_k(uint32_t resamples, double alpha)
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

/* The draws of one resample, in a fixed order (it is part of what a seed reproduces): paired, n
 * indices shared by both arms; unpaired, n_B baseline indices first, then n_C candidate indices. */
void bench__boot_core(const struct bench__arm *base, const struct bench__arm *cand, uint64_t seed,
                      uint32_t resamples, size_t k, struct bench__boot_ws *ws, double *lo,
                      double *hi, bool *paired)
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
    struct bench__below draw_b, draw_c;
    bench__below_init(&draw_b, nb);
    bench__below_init(&draw_c, nc);

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
                    size_t j = (size_t)bench__below_draw(&state, &draw_b);
                    count_b += inc_b[j];
                    count_c += inc_c[j];
                }
            } else {
                for (size_t i = 0; i < nb; i++)
                    count_b += inc_b[bench__below_draw(&state, &draw_b)];
                for (size_t i = 0; i < nc; i++)
                    count_c += inc_c[bench__below_draw(&state, &draw_c)];
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
                    size_t j = (size_t)bench__below_draw(&state, &draw_b);
                    count_b[rank_b[j]]++;
                    count_c[rank_c[j]]++;
                }
            } else {
                for (size_t i = 0; i < nb; i++)
                    count_b[rank_b[bench__below_draw(&state, &draw_b)]]++;
                for (size_t i = 0; i < nc; i++)
                    count_c[rank_c[bench__below_draw(&state, &draw_c)]]++;
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
    struct bench__boot_ws ws;
    size_t k = bench__ci_k(resamples, alpha);
    bench__boot_ws_init(&ws, base->n > cand->n ? base->n : cand->n, k);
    bench__boot_core(base, cand, seed, resamples, k, &ws, lo, hi, paired);
    bench__boot_ws_free(&ws);
}
