/* SPDX-License-Identifier: MIT */
/* paired.h: the paired, interleaved comparison of `libbench compare` (docs/explanation/
 * statistics.md, "The paired design"). Per cell and channel, R rounds of three values taken
 * milliseconds apart in a shuffled order: baseline b, candidate c and control a (the baseline
 * binary again). The engine works on the log ratios d = ln(c/b) and e = ln(a/b): the
 * Hodges-Lehmann estimate with its exact signed-rank (Walsh average) interval, the A/A floor from
 * e, the signed-rank p, Benjamini-Hochberg per channel, the states (NO_CHANGE is an equivalence
 * claim), exact channels (counts: a floor of 0), and looks on a fixed schedule with the error
 * spent over them, so that the caller may stop adding rounds to a cell once it is decided.
 * Pure functions over numbers: no I/O, no clock, no global state; the same input gives the same
 * output whatever the order of the items. */
#ifndef BENCH_STATS_PAIRED_H
#define BENCH_STATS_PAIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/summary.h"
#include "../util/hidden.h"

#include <bench/errors.h>

/* ---- the signed-rank primitives (signed_rank.c) ---------------------------------------- */

/* The Walsh averages of n values are the M = n(n+1)/2 means (x_i + x_j) / 2, i ≤ j. The k-th
 * smallest (1 ≤ k ≤ M) of `sorted` (ascending, finite), by counting, without forming all M. */
BENCH__HIDDEN double bench__walsh_kth(const double *sorted, size_t n, uint64_t k);
/* The Hodges-Lehmann estimate: the median of the Walsh averages (even M: the mean of the middle
 * two). NaN for n = 0. */
BENCH__HIDDEN double bench__hodges_lehmann(const double *sorted, size_t n);

/* The exact null distribution of the signed-rank statistic is used up to this many values (its
 * 2^n sign patterns fit in 64 bits); the normal approximation beyond. */
#define BENCH__SR_EXACT_MAX 63

/* The null tables a caller builds once and reuses (one per n, built when first asked for). */
struct bench__sr_cache {
    uint64_t *cum[BENCH__SR_EXACT_MAX + 1]; /* cum[n][w] = #{sign patterns: T+ ≤ w} */
};
BENCH__HIDDEN void bench__sr_cache_free(struct bench__sr_cache *cache);

/* The interval index: the largest k ≥ 1 with P(T+ ≤ k − 1) ≤ alpha / 2, T+ the signed-rank
 * statistic of n untied values under the null (exact up to BENCH__SR_EXACT_MAX, the normal
 * approximation with continuity correction beyond); 0 when there is none (n too small for the
 * level). `cache` may be NULL. */
BENCH__HIDDEN uint64_t bench__sr_ci_k(struct bench__sr_cache *cache, size_t n, double alpha);
/* The interval [W(k), W(M + 1 − k)] of the Walsh averages of `sorted`: it covers the centre of a
 * symmetric distribution with probability at least 1 − alpha. False (both NaN) when k = 0. */
BENCH__HIDDEN bool bench__sr_ci(struct bench__sr_cache *cache, const double *sorted, size_t n,
                                double alpha, double *lo, double *hi);

struct bench__sr_test {
    double p;   /* two-sided */
    bool exact; /* p = p_num / p_den by enumerating every sign pattern */
    uint64_t p_num, p_den;
    double t_plus; /* the sum of the (mid-)ranks of the positive values */
    size_t n_nonzero;
};
/* The signed-rank test of "centred on 0" for x[0..n) (any order). Ranks of |x| with mid-ranks
 * for ties, zeros ranked and then left out (Pratt). Under the null each non-zero value keeps its
 * rank and takes either sign, and p = P(|T+* − E T+*| ≥ |T+ − E T+|): exact when at most
 * BENCH__SR_EXACT_MAX values are non-zero, else the normal approximation with the tie variance
 * and a continuity correction of ½. All zeros: p = 1. `cache` may be NULL. */
BENCH__HIDDEN void bench__sr_test(struct bench__sr_cache *cache, const double *x, size_t n,
                                  struct bench__sr_test *out);

/* (The normal quantile bench__z_two_sided is lib/model/summary.h's.) */

/* ---- the looks (sequential.c) ---------------------------------------------------------- */

struct bench__paired_params {
    double q;                /* 0.05: the false discovery rate of claims, over all looks */
    double alpha;            /* 0.05: the intervals cover with 1 − alpha over all looks */
    double detect;           /* 0.10: PASS says no cell changed by this much (relative) */
    size_t first_look;       /* 8: the rounds of the first look */
    size_t max_rounds;       /* 96: the round cap, which is the last look */
    size_t min_rounds_exact; /* 2: the repeats an exact channel needs to call a count exact */
    uint64_t global_seed;    /* 0: the seed of the round orders */
};
BENCH__HIDDEN void bench__paired_defaults(struct bench__paired_params *p);

/* The schedule: first_look, then ×1.5 and ×4/3 in turn (8, 12, 16, 24, 32, 48, 64, ...) while
 * below max_rounds, and max_rounds last; one look at max_rounds when it is at most first_look.
 * Look k (0-based) spends the share w_k = n_k / Σ n_j of the error: its intervals have the level
 * 1 − alpha·w_k and its Benjamini-Hochberg the rate q·w_k, so that the levels of all looks sum
 * to alpha and q whatever the caller does after any look (Bonferroni over the looks). */
#define BENCH__PAIRED_LOOKS_MAX 64
BENCH__HIDDEN size_t bench__paired_looks(const struct bench__paired_params *p);
BENCH__HIDDEN size_t bench__paired_look_rounds(const struct bench__paired_params *p, size_t look);
BENCH__HIDDEN double bench__paired_look_share(const struct bench__paired_params *p, size_t look);

/* The rounds a claim needs at look k in a channel family of m items: the smallest n whose
 * smallest possible p, 2 / 2^n, passes Benjamini-Hochberg's strictest threshold q·w_k / m. The
 * engine makes no claim with fewer, so a warning computed from this never disagrees with it. */
BENCH__HIDDEN size_t bench__paired_claim_need(const struct bench__paired_params *p, size_t look,
                                              size_t m);
/* The rounds of the first look at which a family of m items could confirm a change; 0 when no
 * look up to max_rounds can (then no change can be claimed, and the caller says so). */
BENCH__HIDDEN size_t bench__paired_claim_rounds(const struct bench__paired_params *p, size_t m);

/* The rounds that would likely decide an undecided item, from its robust spread `spread` (of the
 * log ratios, 1.4826·MAD of d and e about their medians, pooled) and the gap between its
 * estimate and ±detect (NO_CHANGE) or between its estimate and its floor (a claim):
 * docs/explanation/statistics.md, "Rounds needed". Estimates are logs; f_min relative. Returns
 * a look's rounds, or beyond max_rounds (at most BENCH__PAIRED_ROUNDS_MAX) the rounds at the last
 * look's level; 0 when no number of rounds would decide it. */
#define BENCH__PAIRED_ROUNDS_MAX 1000000u
BENCH__HIDDEN unsigned bench__paired_rounds_needed(const struct bench__paired_params *p,
                                                   size_t look, size_t rounds, size_t m,
                                                   double estimate, double aa_estimate,
                                                   double spread, double f_min);

/* The order in which round `round` of a cell takes its three samples: a Fisher-Yates shuffle of
 * {0 baseline, 1 candidate, 2 control} on the SplitMix64 stream seeded global_seed XOR
 * fnv1a64("paired" ␟ "round" ␟ scenario ␟ operation) XOR round·0x9E3779B97F4A7C15. The same for
 * any cell order or thread. */
BENCH__HIDDEN void bench__paired_round_order(uint64_t global_seed, const char *scenario,
                                             const char *operation, uint64_t round,
                                             unsigned order[3]);

/* ---- the engine (paired.c) ------------------------------------------------------------- */

/* What the values of an item are. Items of one name form one Benjamini-Hochberg family. */
struct bench__paired_channel {
    const char *name; /* "time", or a metric name ("instructions", "allocs") */
    bool exact;       /* exact counts (Callgrind Ir, allocations): values ≥ 0, floor 0 */
    double f_min;     /* the smallest floor of the timed rules (relative): 0.01 for time */
    double min_delta; /* the smallest |median(b)·rel_delta| that counts, in the channel's unit */
};
#define BENCH__PAIRED_TIME_F_MIN 0.01

/* One cell on one channel: its rounds, in the order they were taken. A round that lost a sample
 * (a crash, an error row) is left out by the caller: the three arrays hold complete rounds. */
struct bench__paired_item {
    const char *scenario;  /* the row name */
    const char *operation; /* the row's labels "k=v,k2=v2" in key order, "" when none */
    const struct bench__paired_channel *channel;
    const double *b, *c, *a; /* a NULL: no control (UNMEASURED, no_aa_floor) */
    size_t rounds;
    const double *b_aa; /* the baseline the control is paired with when it is another sample
                           than b's (compare --duet); NULL: b */
};

enum bench__paired_state {
    BENCH__PAIRED_NO_CHANGE,   /* the interval lies inside ±detect: an equivalence claim */
    BENCH__PAIRED_REGRESSION,  /* claimed: beyond 0 and the floor, BH-confirmed, ≥ min_delta */
    BENCH__PAIRED_IMPROVEMENT, /* the same, faster */
    BENCH__PAIRED_UNCONFIRMED, /* the interval shows a change that BH does not confirm yet */
    BENCH__PAIRED_UNMEASURED   /* with a reason */
};
BENCH__HIDDEN const char *bench__paired_state_name(enum bench__paired_state state);

/* Every per-item field of the report; NaN for what was not computed. Relative values are
 * exp(log) − 1 of the log-ratio figures. */
struct bench__paired_out {
    size_t look;        /* the look that computed this (a decided item keeps its look) */
    size_t rounds_used; /* the rounds the figures come from: min(rounds, the look's rounds) */
    double level;       /* 1 − alpha·w_look: the level of the intervals */
    double q_level;     /* q·w_look: the rate of Benjamini-Hochberg at this look */
    double median_b, median_c, median_a; /* over the rounds used */
    double estimate;                     /* Hodges-Lehmann of d (log); exact channel: ln(c/b) */
    double rel_delta;                    /* exp(estimate) − 1: + slower */
    double abs_delta;    /* median_b · rel_delta (exact channel: c − b), in the channel's unit */
    double ci_lo, ci_hi; /* relative */
    double aa_estimate;  /* Hodges-Lehmann of e (log) */
    double aa_rel, aa_ci_lo, aa_ci_hi; /* relative */
    double floor;                      /* max(f_min, |aa_rel|); exact: 0 */
    double spread;                     /* 1.4826·MAD of d and e pooled (log) */
    double p, aa_p;
    const char *p_method;  /* "exact" | "normal" | "count" (an exact channel) | NULL */
    uint64_t p_num, p_den; /* an exact p as a fraction (0/0 otherwise) */
    bool bh_rejected, aa_bh_rejected;
    double q_adjusted, aa_q_adjusted;
    size_t family_size; /* items of this channel: the m of Benjamini-Hochberg */
    enum bench__paired_state state;
    const char *direction; /* "regression" | "improvement" (claimed or UNCONFIRMED) | NULL */
    /* insufficient_rounds, no_aa_floor, aa_control_changed, floor_above_detect,
     * ci_wider_than_detect, nondeterministic (UNMEASURED); bh_not_confirmed, too_few_rounds_for_bh
     * (UNCONFIRMED); ci_excludes_zero (NO_CHANGE not yet decided); NULL */
    const char *reason;
    bool decided;           /* no more rounds: a claim, a decided NO_CHANGE, or a state more rounds
                               cannot change */
    unsigned rounds_needed; /* undecided: bench__paired_rounds_needed; else 0 */
    bool deterministic;     /* an exact channel whose counts agreed in every round */
    bool nondeterministic;  /* an exact channel whose counts differed: judged by the timed rules */
    double nondet_spread;   /* (max − min) / max of the subject that varied most (baseline and
                               control pooled, candidate); NaN when deterministic or timed */
    int moved;              /* +1 / −1: the interval lies beyond 0 and the floor; 0 otherwise */
    bool channels_disagree; /* another channel of the same cell moved the other way */
};

struct bench__paired_result {
    size_t look, looks; /* this look (0-based) and how many the schedule has */
    bool last_look;
    size_t items, decided; /* decided items */
    bool all_decided;      /* the caller may stop: nothing more rounds could change */
    size_t claim_rounds;   /* the rounds at which every timed channel family can first confirm
                              a change (bench__paired_claim_rounds, the largest); 0 when there
                              is no timed family or bh_short */
    bool bh_short;         /* a timed channel family can confirm nothing up to max_rounds: no
                              change of it will be claimed (the caller warns; the states agree) */
    size_t disagreeing_cells;
    const char *verdict;    /* "PASS" | "REGRESSION" | "UNMEASURED" */
    int exit_code;          /* 0 | 1 | 2 */
    const char *reason;     /* aa_control_changed, claimed_regression, unconfirmed_regression,
                               unmeasured_cells, or NULL for PASS */
    unsigned rounds_needed; /* the largest rounds_needed of the items that keep the verdict from
                               PASS; 0 when none has an estimate */
};

/* Look `look` over n items. `prev` is the out array of the previous look (NULL at look 0): an
 * item decided there keeps its figures and state, and enters this look's Benjamini-Hochberg as
 * p = 0 (a claim) or p = 1 (anything else). The caller adds rounds only to undecided items, up
 * to bench__paired_look_rounds(look), and passes the items in the same order at every look.
 * Returns 0, or BENCH_EINVAL (bad parameters, a look beyond the schedule, a value that is not
 * finite and > 0 (≥ 0 on an exact channel), one channel name with two kinds; `bad_item` names
 * the item, SIZE_MAX for the parameters). */
BENCH__HIDDEN int bench__paired_look(const struct bench__paired_params *params, size_t look,
                                     const struct bench__paired_item *items, size_t n,
                                     const struct bench__paired_out *prev,
                                     struct bench__paired_out *out,
                                     struct bench__paired_result *result, size_t *bad_item);

#endif /* BENCH_STATS_PAIRED_H */
