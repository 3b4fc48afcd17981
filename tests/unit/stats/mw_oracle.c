/* SPDX-License-Identifier: MIT */
/* mw_oracle.c: the enumeration oracle of mw_oracle.h. Slow on purpose: it is the definition of
 * the p value, written out. */
#include <string.h>

#include "mw_oracle.h"

#define ORACLE_MAX_N 62
#define ORACLE_MAX_SUBSETS (UINT64_C(1) << 24)

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* C(n, k), or 0 when it exceeds limit. */
static uint64_t subsets(uint64_t n, uint64_t k, uint64_t limit)
{
    if (k > n)
        return 0;
    if (k > n - k)
        k = n - k;
    uint64_t c = 1;
    for (uint64_t i = 1; i <= k; i++) {
        uint64_t g = gcd(c, i);
        c = c / g * ((n - k + i) / (i / g));
        if (c > limit)
            return 0;
    }
    return c;
}

/* 2U of the arm whose members are the set bits of mask, against the others. */
static uint64_t two_u_of(const double *pool, size_t n, uint64_t mask)
{
    uint64_t two_u = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(mask >> i & 1))
            continue;
        for (size_t j = 0; j < n; j++)
            if (!(mask >> j & 1))
                two_u += pool[i] > pool[j] ? 2 : pool[i] == pool[j] ? 1 : 0;
    }
    return two_u;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

bool mw_enumerate(const double *b, size_t nb, const double *c, size_t nc, uint64_t *numerator,
                  uint64_t *denominator)
{
    size_t n = nb + nc;
    if (n > ORACLE_MAX_N || subsets(n, nc, ORACLE_MAX_SUBSETS) == 0)
        return false;
    double pool[ORACLE_MAX_N];
    if (nb)
        memcpy(pool, b, nb * sizeof *pool);
    if (nc)
        memcpy(pool + nb, c, nc * sizeof *pool);
    uint64_t mean2 = (uint64_t)nb * (uint64_t)nc;
    uint64_t observed_mask = nc ? ((UINT64_C(1) << nc) - 1) << nb : 0;
    uint64_t observed = distance(two_u_of(pool, n, observed_mask), mean2);
    uint64_t hits = 0, all = 0;
    uint64_t mask = nc ? (UINT64_C(1) << nc) - 1 : 0, end = UINT64_C(1) << n;
    while (mask < end) {
        all++;
        if (distance(two_u_of(pool, n, mask), mean2) >= observed)
            hits++;
        if (mask == 0)
            break;
        uint64_t low = mask & -mask, ripple = mask + low; /* Gosper: next mask, same count */
        mask = ripple | (((mask ^ ripple) >> 2) / low);
    }
    uint64_t g = gcd(hits, all);
    *numerator = hits / g;
    *denominator = all / g;
    return true;
}
