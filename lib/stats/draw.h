/* SPDX-License-Identifier: MIT */
/* draw.h: the random draws of the engine, inline because the bootstrap makes hundreds of millions
 * of them: SplitMix64, and an unbiased draw below a fixed n with its division done once. Only the
 * engine's own files include it. */
#ifndef BENCH_STATS_DRAW_H
#define BENCH_STATS_DRAW_H

#include <stdint.h>

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;
#define HAVE_U128 1
#endif

static inline uint64_t bench__splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* below(n) for a fixed n, with the threshold and the remainder's reciprocal computed once:
 * the same draws and results as bench__rng_below, without a division per draw. */
struct bench__below {
    uint64_t n, t;
#ifdef HAVE_U128
    uint64_t inv; /* floor((2^64 − 1) / n): the quotient is exact or one too small */
#endif
};

static inline void bench__below_init(struct bench__below *b, uint64_t n)
{
    b->n = n;
    b->t = (0 - n) % n;
#ifdef HAVE_U128
    b->inv = UINT64_MAX / n;
#endif
}

static inline uint64_t bench__below_draw(uint64_t *state, const struct bench__below *b)
{
    for (;;) {
        uint64_t x = bench__splitmix64(state);
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

#endif /* BENCH_STATS_DRAW_H */
