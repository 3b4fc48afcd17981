/* SPDX-License-Identifier: MIT */
/* compare.h: the statistical comparison engine of `libbench compare`: SplitMix64 streams, the
 * percentile bootstrap, the A/A floor, the exact Mann-Whitney permutation p, Benjamini-Hochberg,
 * cell states, the sensitivity (--detect), runs_needed, the verdict and the stopping rule of
 * --runs=auto (docs/explanation/statistics.md). Pure functions over numbers: no I/O. An internal
 * static library the tools link (lib/stats/), not part of libbench.so: one implementation for every
 * tool. */
#ifndef BENCH_COMPARE_H
#define BENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/summary.h"
#include "../util/hidden.h"

#include <bench/errors.h>

/* ---- primitives (each pinned by stats-vectors.json) ----------------------------------- */

struct bench__rng {
    uint64_t state;
};
BENCH__HIDDEN uint64_t bench__rng_next(struct bench__rng *rng);              /* SplitMix64 */
BENCH__HIDDEN uint64_t bench__rng_below(struct bench__rng *rng, uint64_t n); /* unbiased [0, n) */
BENCH__HIDDEN uint64_t bench__fnv1a64(const void *data, size_t len);
/* global_seed XOR fnv1a64(subj_b 0x1F subj_x 0x1F scenario 0x1F operation) */
BENCH__HIDDEN uint64_t bench__stream_seed(uint64_t global_seed, const char *subj_b,
                                          const char *subj_x, const char *scenario,
                                          const char *operation);
/* Fisher-Yates shuffle of order[0..n): the subject order of one run. */
BENCH__HIDDEN void bench__shuffle(struct bench__rng *rng, size_t *order, size_t n);

/* Mann-Whitney: 2·U of the candidate arm (ties score 1, i.e. ½ doubled). */
BENCH__HIDDEN uint64_t bench__mw_two_u(const double *b, size_t nb, const double *c, size_t nc);
/* The two-sided permutation p = #{|two_u* − nb·nc| ≥ |two_u − nb·nc|} / C(N, nc), as an exact
 * fraction (numerator, denominator) by the doubled-mid-rank DP. Returns false when
 * C(N, min(nb, nc)) > 2^63 (use the normal approximation). */
BENCH__HIDDEN bool bench__mw_exact(const double *b, size_t nb, const double *c, size_t nc,
                                   uint64_t *numerator, uint64_t *denominator);
/* Normal approximation with tie and continuity correction: p = erfc(z/√2). */
BENCH__HIDDEN double bench__mw_normal(const double *b, size_t nb, const double *c, size_t nc);

/* Benjamini-Hochberg over p[0..m): rejected[i], adjusted q[i]; returns k* (0 = none). */
BENCH__HIDDEN size_t bench__bh(const double *p, size_t m, double q, bool *rejected,
                               double *q_adjusted);

/* Percentile bootstrap CI of rel_delta = (med(C) − med(B)) / med(B): paired when
 * the run-index sets are identical (pairs ordered by run index), unpaired otherwise
 * (baseline indices first). k = floor(B·α/2); lo = d[k], hi = d[B−1−k]. */
struct bench__arm {
    const double *values; /* per-run medians, in ascending run-index order */
    const uint64_t *runs; /* run indices, ascending, unique */
    size_t n;
};
BENCH__HIDDEN void bench__bootstrap_ci(const struct bench__arm *base, const struct bench__arm *cand,
                                       uint64_t seed, uint32_t resamples, double alpha, double *lo,
                                       double *hi, bool *paired);

/* The runs per arm a family of family_size cells needs before an exact p can pass
 * Benjamini-Hochberg at q (docs/explanation/statistics.md, "runs_needed"). */
BENCH__HIDDEN unsigned bench__runs_needed(size_t family_size, double q);

/* The runs per arm that would likely bring a cell's A/A floor under `detect`, estimated from the
 * spread of its baseline and A/A arms (docs/explanation/statistics.md, "runs_needed"):
 * s = 1.4826 · the median, over both arms, of |ln v − the median of ln v in v's arm|, and
 * n = ceil((BENCH__FLOOR_SPREAD_FACTOR · s / detect)²), at least one more than the smaller arm
 * and at most BENCH__FLOOR_RUNS_MAX. 0 when an arm is empty or detect is not > 0. */
#define BENCH__FLOOR_SPREAD_FACTOR 7.0
#define BENCH__FLOOR_RUNS_MAX 1000000u
BENCH__HIDDEN unsigned bench__floor_runs_needed(const struct bench__arm *base,
                                                const struct bench__arm *aa, double detect);

/* The runs per arm that would likely bring a cell's CI inside ±detect: its half width shrinks
 * like 1/√n around its delta, so n · (half width / (detect − |delta|))², at least n + 1, at most
 * BENCH__FLOOR_RUNS_MAX; n the smaller of the two arms. 0 when |delta| ≥ detect (more runs of
 * the same change cannot show it inside) or an input is not finite. */
BENCH__HIDDEN unsigned bench__ci_runs_needed(size_t n, double rel_delta, double ci_lo, double ci_hi,
                                             double detect);

/* Benjamini-Hochberg at q over a family of m cells, cell i with nb[i] baseline and nc[i]
 * candidate runs: the smallest k such that k cells, each at its smallest possible p (complete
 * separation: 2 / C(nb + nc, nc)), are confirmed; 0 when even all m together cannot be (too
 * few runs: no change can be confirmed whatever the data). */
BENCH__HIDDEN size_t bench__bh_min_cells(const size_t *nb, const size_t *nc, size_t m, double q);

/* ---- the engine ------------------------------------------------------------------------ */

struct bench__cmp_params {
    size_t min_runs;                      /* 3 */
    double q;                             /* 0.05 */
    double f_min;                         /* 0.03 */
    double min_delta;                     /* 0, in the input unit (ns) */
    uint32_t resamples;                   /* 10000 */
    double alpha;                         /* 0.05 (ci_level 0.95) */
    double detect;                        /* 0.10: the smallest relative change every cell must
                                             be able to show; INFINITY asks for none */
    uint64_t global_seed;                 /* 0 */
    const char *subj_b, *subj_c, *subj_a; /* subject names for the stream seeds */
    double global_floor;                  /* --global-noise-floor: 0 = none; > 0 the floor every
                                             tested cell takes at least;
                                             BENCH__CMP_GLOBAL_FLOOR_WORST: the largest A/A floor
                                             of the tested cells */
};
#define BENCH__CMP_GLOBAL_FLOOR_WORST (-1.0)
BENCH__HIDDEN void bench__cmp_defaults(struct bench__cmp_params *p);

struct bench__cmp_cell_in {
    const char *scenario;  /* the row name */
    const char *operation; /* the row's labels as "k=v,k2=v2" in key order, "" when none */
    struct bench__arm base, cand, aa;
};

enum bench__cmp_state {
    BENCH__CMP_CLAIMED,
    BENCH__CMP_UNCONFIRMED,
    BENCH__CMP_NO_CLAIM,
    BENCH__CMP_UNMEASURED,
    BENCH__CMP_NO_CHANGE /* an equivalence claim: the CI lies inside ±detect */
};
#define BENCH__CMP_N_STATES 5

/* Every per-cell field of the report (docs/explanation/statistics.md); NaN for what was not
 * computed (UNMEASURED cells). */
struct bench__cmp_cell_out {
    size_t n_baseline, n_candidate, n_aa;
    double median_baseline, median_candidate, median_aa, rel_delta, abs_delta;
    double ci_lo, ci_hi;
    bool paired;
    uint64_t seed;
    double aa_ci_lo, aa_ci_hi;
    uint64_t aa_seed;
    double floor;
    double p;
    const char *p_method;                /* "exact" | "normal" | NULL */
    uint64_t p_numerator, p_denominator; /* exact p as a fraction (0/0 otherwise) */
    bool bh_rejected;
    double q_adjusted;
    enum bench__cmp_state state;
    const char *direction; /* "regression" | "improvement" | NULL */
    const char *reason;    /* "insufficient_runs", "no_aa_floor", "floor_above_detect",
                              "exact_count", "count_not_exact" (bench__cmp_exact_counts),
                              "ci_wider_than_detect", "too_few_runs_for_bh", "ci_includes_zero",
                              "ci_within_floor", "below_min_delta", or NULL */
    bool tested;           /* in the Benjamini-Hochberg family: its numbers were computed */
    unsigned runs_needed;  /* UNCONFIRMED and too_few_runs_for_bh: bench__runs_needed of the
                              family; floor_above_detect: bench__floor_runs_needed;
                              ci_wider_than_detect: bench__ci_runs_needed; 0 otherwise */
    double aa_p;
    bool aa_bh_rejected;
    double aa_q_adjusted;
    bool aa_confirmed_change;
};

struct bench__cmp_result {
    size_t family_size;
    size_t detectable_cells; /* cells whose A/A floor is at most params->detect */
    const char *verdict;     /* "PASS" | "REGRESSION" | "UNMEASURED" */
    int exit_code;           /* 0 | 1 | 2 */
    const char *reason;      /* aa_control_changed, claimed_regression, unconfirmed_regression,
                                too_few_runs_for_bh, unmeasured_cells, floor_above_detect,
                                ci_wider_than_detect, or NULL for PASS */
    unsigned runs_needed;    /* when an UNCONFIRMED regression, too few runs for BH, a floor
                                above detect or a CI wider than detect decides the verdict; else 0 */
    size_t bh_min_cells;     /* the fewest cells that, each completely separated, Benjamini-
                                Hochberg could confirm together with the family's run counts
                                (bench__bh_min_cells); 0 when it could confirm none */
    size_t bh_fewest_runs;   /* the fewest runs in the baseline or candidate arm of a tested
                                cell (what limits BH); 0 when no cell was tested */
    double global_floor;     /* the floor applied to every tested cell (--global-noise-floor);
                                NaN when none */
};

/* The whole comparison of n cells (medians, intervals, p values, BH, states, verdict). Returns 0,
 * or BENCH_EINVAL when an input value is not finite and > 0 or run indices are not ascending and
 * unique (then `bad_cell` names the cell). */
BENCH__HIDDEN int bench__compare(const struct bench__cmp_params *params,
                                 const struct bench__cmp_cell_in *cells, size_t n,
                                 struct bench__cmp_cell_out *out, struct bench__cmp_result *result,
                                 size_t *bad_cell);
BENCH__HIDDEN const char *bench__cmp_state_name(enum bench__cmp_state state);

/* The same comparison for an exact count (exact_count.c: allocs, frees, alloc-bytes per
 * iteration), values finite and ≥ 0: a cell whose counts repeat exactly in every run of each arm
 * is NO_CHANGE when baseline and candidate agree and CLAIMED (regression when the candidate
 * counts more) when they differ, with a floor of 0, no p and no Benjamini-Hochberg (an exact
 * difference needs no test); counts that vary between runs of one arm make it UNMEASURED
 * (count_not_exact), an A/A count that differs from the baseline's is aa_confirmed_change. Its
 * reason is "exact_count", p_method "count". Fewer than min_runs runs: as bench__compare. */
BENCH__HIDDEN int bench__cmp_exact_counts(const struct bench__cmp_params *params,
                                          const struct bench__cmp_cell_in *cells, size_t n,
                                          struct bench__cmp_cell_out *out,
                                          struct bench__cmp_result *result, size_t *bad_cell);

/* ---- --runs=auto ----------------------------------------------------------------------- */

/* What the stopping rule of --runs=auto may see of a cell: its baseline and A/A arms and the
 * candidate's count of values, never the candidate's values, so that when to stop cannot depend
 * on the baseline-versus-candidate difference (docs/explanation/statistics.md, "Adaptive
 * runs"). */
struct bench__aa_cell {
    const char *scenario, *operation;
    struct bench__arm base, aa;
    size_t n_candidate;
};

/* After `runs_done` runs: *more is true while a cell that has values in every arm has fewer than
 * min_runs in one, or an A/A floor (the very floor bench__compare computes from these arms)
 * above params->detect, or while runs_done is below bench__runs_needed of the number of such
 * cells. *pending (may be NULL) counts the cells that still need runs. Returns 0 or BENCH_EINVAL
 * (bad parameters or values, `bad_cell` names the cell). */
BENCH__HIDDEN int bench__auto_more_runs(const struct bench__cmp_params *params,
                                        const struct bench__aa_cell *cells, size_t n,
                                        size_t runs_done, bool *more, size_t *pending,
                                        size_t *bad_cell);

#endif /* BENCH_COMPARE_H */
