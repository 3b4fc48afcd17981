/* SPDX-License-Identifier: MIT */
/* rng.c: owns the reproducible randomness of a comparison: SplitMix64 streams, FNV-1a,
 * the stream seed of a cell and the Fisher-Yates shuffle of a run's subjects. Pure arithmetic. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <string.h>

#include "compare.h"
#include "draw.h"

uint64_t bench__rng_next(struct bench__rng *rng)
{
    return bench__splitmix64(&rng->state);
}

uint64_t bench__rng_below(struct bench__rng *rng, uint64_t n)
{
    if (n == 0)
        return 0; /* [0, 0) is empty: nothing to draw, and no state is consumed */
    uint64_t t = (0 - n) % n;
    for (;;) {
        uint64_t x = bench__splitmix64(&rng->state);
        if (x >= t)
            return x % n;
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
