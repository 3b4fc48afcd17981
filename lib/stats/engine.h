/* SPDX-License-Identifier: MIT */
/* engine.h: what the files of the comparison engine share beyond compare.h: the cores that take
 * their scratch from the caller (so the engine allocates once per thread, not per cell) and the
 * types of that scratch. Only lib/stats/ includes it. */
#ifndef BENCH_STATS_ENGINE_H
#define BENCH_STATS_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare.h"

/* A value and where it came from: p values for Benjamini-Hochberg, values for ranking. */
struct bench__p_at {
    double p;
    size_t i;
};
/* Ascending by value, ties by index. */
BENCH__HIDDEN int bench__p_at_compare(const void *pa, const void *pb);

/* Scratch for bootstraps over arms of at most `cap` values and CI index k (heaps of k+1),
 * allocated once per engine thread and reused: nothing is allocated per resample. Out of memory
 * aborts with one line (lib/util/alloc.h). */
struct bench__boot_ws {
    size_t cap, heap_cap;
    double *sorted_b, *sorted_c, *low, *high;
    uint32_t *rank_b, *rank_c, *count_b, *count_c;
    struct bench__p_at *order;
};
BENCH__HIDDEN void bench__boot_ws_init(struct bench__boot_ws *ws, size_t cap, size_t k);
BENCH__HIDDEN void bench__boot_ws_free(struct bench__boot_ws *ws);
/* The CI index k = floor(resamples · alpha / 2). */
BENCH__HIDDEN size_t bench__ci_k(uint32_t resamples, double alpha);
/* The bootstrap CI of one pair of arms with the caller's scratch (bench__bootstrap_ci's core). */
BENCH__HIDDEN void bench__boot_core(const struct bench__arm *base, const struct bench__arm *cand,
                                    uint64_t seed, uint32_t resamples, size_t k,
                                    struct bench__boot_ws *ws, double *lo, double *hi,
                                    bool *paired);

/* An arm the engine accepts: every value finite and > 0, run indices ascending and unique. */
BENCH__HIDDEN bool bench__arm_valid(const struct bench__arm *a);
/* The A/A interval of a cell (B vs A on the cell's A/A stream, whose seed goes to *seed) and its
 * floor max(f_min, |lo|, |hi|), returned: one computation for the engine and for --runs=auto. */
BENCH__HIDDEN double bench__aa_floor_core(const struct bench__cmp_params *params,
                                          const char *scenario, const char *operation,
                                          const struct bench__arm *base,
                                          const struct bench__arm *aa, size_t k,
                                          struct bench__boot_ws *ws, double *lo, double *hi,
                                          uint64_t *seed);

/* The exact p by the doubled-rank subset-sum DP: 0, or 1 when C(N, k) > 2^63. */
BENCH__HIDDEN int bench__mw_exact_core(const double *b, size_t nb, const double *c, size_t nc,
                                       uint64_t *num, uint64_t *den);
/* The greatest common divisor (of an exact p's fraction). */
BENCH__HIDDEN uint64_t bench__gcd64(uint64_t a, uint64_t b);
/* Benjamini-Hochberg with the caller's scratch of m entries; returns k* (0 = none). */
BENCH__HIDDEN size_t bench__bh_core(const double *p, size_t m, double q, bool *rejected,
                                    double *q_adjusted, struct bench__p_at *sorted);

#endif /* BENCH_STATS_ENGINE_H */
