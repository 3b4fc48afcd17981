/* SPDX-License-Identifier: MIT */
/* sequential.c: owns the looks of the paired comparison: the fixed schedule of rounds, the share
 * of alpha and q each look spends, the rounds a claim needs under Benjamini-Hochberg, the rounds
 * that would likely decide an item, and the shuffled order of a round's three samples. Pure
 * arithmetic; it never reads the values of an item (paired.c does). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <string.h>

#include "compare.h"
#include "paired.h"

void bench__paired_defaults(struct bench__paired_params *p)
{
    *p = (struct bench__paired_params){
        .q = 0.05,
        .alpha = 0.05,
        .detect = 0.10,
        .first_look = 8,
        .max_rounds = 96,
        .min_rounds_exact = 2,
        .global_seed = 0,
    };
}

/* rounds[0..K) of the schedule; returns K (≥ 1). */
static size_t schedule(const struct bench__paired_params *p, size_t *rounds)
{
    size_t first = p->first_look ? p->first_look : 1, cap = p->max_rounds;
    if (cap <= first) {
        rounds[0] = cap;
        return 1;
    }
    size_t k = 0, n = first;
    bool half = true;
    while (n < cap && k < BENCH__PAIRED_LOOKS_MAX - 1) {
        rounds[k++] = n;
        size_t next = half ? n + n / 2 : n + n / 3; /* 8 12 16 24 32 48 64 96 ... */
        half = !half;
        n = next > n ? next : n + 1;
    }
    rounds[k++] = cap;
    return k;
}

size_t bench__paired_looks(const struct bench__paired_params *p)
{
    size_t rounds[BENCH__PAIRED_LOOKS_MAX];
    return schedule(p, rounds);
}

size_t bench__paired_look_rounds(const struct bench__paired_params *p, size_t look)
{
    size_t rounds[BENCH__PAIRED_LOOKS_MAX];
    size_t k = schedule(p, rounds);
    return look < k ? rounds[look] : 0;
}

double bench__paired_look_share(const struct bench__paired_params *p, size_t look)
{
    size_t rounds[BENCH__PAIRED_LOOKS_MAX];
    size_t k = schedule(p, rounds);
    if (look >= k)
        return 0.0;
    double total = 0;
    for (size_t i = 0; i < k; i++)
        total += (double)rounds[i];
    return total > 0 ? (double)rounds[look] / total : 0.0;
}

size_t bench__paired_claim_need(const struct bench__paired_params *p, size_t look, size_t m)
{
    double threshold = p->q * bench__paired_look_share(p, look) / (double)(m ? m : 1);
    if (!(threshold > 0))
        return SIZE_MAX;
    size_t n = 1;
    while (ldexp(1.0, 1 - (int)n) > threshold) /* 2 / 2^n: all n of one sign */
        n++;
    return n;
}

size_t bench__paired_claim_rounds(const struct bench__paired_params *p, size_t m)
{
    size_t looks = bench__paired_looks(p);
    for (size_t k = 0; k < looks; k++) {
        size_t n = bench__paired_look_rounds(p, k);
        if (n >= bench__paired_claim_need(p, k, m))
            return n;
    }
    return 0;
}

/* ---- rounds needed ------------------------------------------------------------------------
 * A Hodges-Lehmann estimate has the standard error √(π/3)·σ/√n for normal data (asymptotic
 * efficiency 3/π relative to the mean), and its interval at look j reaches about z_j of them on
 * each side. The estimates are first shrunk toward 0 by SHRINK standard errors of the current
 * rounds, so that the noise of an estimate does not make the plan jump between two runs of one
 * comparison: an item that shows nothing clearly is planned as an item with no change. (With 2
 * instead of 3, two runs of a simulated comparison agreed within 2× in 82-90% of the pairs
 * instead of 95-97%.) The floor is max(f_min, the control's shift), as paired.c takes it. */
#define SHRINK 3.0
/* NO_CHANGE needs |estimate| + half the interval + |control shift| under detect; with no change
 * the two estimates wander by about WANDER standard errors together. 2.5 makes the estimate
 * "likely": simulated A/A items measured again with the rounds it asked for were decided in 69-78%
 * of cases (1 gave 23-25%, 2 gave 50-64%, 3 gave 83-85%; unit/paired_sim prints the figure). */
#define WANDER 2.5
#define HL_SE_FACTOR 1.0233267079464885 /* √(π/3) */

/* Whether an item with (shrunk) change `delta`, control shift `shift` and standard error `se`
 * is decided at z: NO_CHANGE or a claim. */
static bool decides(double delta, double shift, double se, double z, double detect,
                    double least_floor)
{
    bool no_change = delta + shift + (z + WANDER) * se < detect;
    bool claim = delta - z * se > fmax(least_floor, shift);
    return no_change || claim;
}

unsigned bench__paired_rounds_needed(const struct bench__paired_params *p, size_t look,
                                     size_t rounds, size_t m, double estimate, double aa_estimate,
                                     double spread, double f_min)
{
    size_t looks = bench__paired_looks(p);
    if (!(spread >= 0) || !isfinite(spread) || !isfinite(estimate) || !isfinite(aa_estimate) ||
        rounds == 0 || look >= looks)
        return 0;
    double detect = log1p(p->detect), least_floor = log1p(f_min > 0 ? f_min : 0);
    double se_now = HL_SE_FACTOR * spread / sqrt((double)rounds);
    double delta = fmax(fabs(estimate) - SHRINK * se_now, 0.0);
    double shift = fmax(fabs(aa_estimate) - SHRINK * se_now, 0.0);
    bool claimable = delta > 0;
    for (size_t k = look + 1; k < looks; k++) {
        size_t n = bench__paired_look_rounds(p, k);
        double z = bench__z_two_sided(p->alpha * bench__paired_look_share(p, k));
        double se = HL_SE_FACTOR * spread / sqrt((double)n);
        bool claim_ok = claimable && n >= bench__paired_claim_need(p, k, m);
        if (decides(delta, shift, se, z, detect, claim_ok ? least_floor : INFINITY))
            return (unsigned)n;
    }
    /* Beyond the cap: the rounds at the last look's level. */
    if (!(spread > 0))
        return 0; /* no spread: more rounds change nothing */
    double z = bench__z_two_sided(p->alpha * bench__paired_look_share(p, looks - 1));
    double se_nc = (detect - delta - shift) / (z + WANDER);
    double se_claim = claimable ? (delta - fmax(least_floor, shift)) / z : 0.0;
    double se = fmax(se_nc, se_claim);
    if (!(se > 0))
        return 0;
    double n = floor(pow(HL_SE_FACTOR * spread / se, 2.0)) + 1.0;
    double least = (double)p->max_rounds + 1.0;
    if (se_claim >= se_nc && se_claim > 0)
        least = fmax(least, (double)bench__paired_claim_need(p, looks - 1, m));
    n = fmax(n, least);
    return n >= (double)BENCH__PAIRED_ROUNDS_MAX ? BENCH__PAIRED_ROUNDS_MAX : (unsigned)n;
}

void bench__paired_round_order(uint64_t global_seed, const char *scenario, const char *operation,
                               uint64_t round, unsigned order[3])
{
    uint64_t seed = bench__stream_seed(global_seed, "paired", "round", scenario ? scenario : "",
                                       operation ? operation : "");
    struct bench__rng rng = {seed ^ (round * UINT64_C(0x9E3779B97F4A7C15))};
    size_t o[3] = {0, 1, 2};
    bench__shuffle(&rng, o, 3);
    for (size_t i = 0; i < 3; i++)
        order[i] = (unsigned)o[i];
}
