/* SPDX-License-Identifier: MIT */
/* changepoint.h: change points of one series of the results history (one profile + scenario +
 * operation + subject + host class over its recorded runs, oldest first) and the lasting state of
 * its latest run (docs/explanation/results-history.md, "Change points" and "States that last").
 * The method is E-Divisive means with a Student t-test instead of permutations, in sliding
 * windows with a stricter second pass, as Apache Otava (formerly Hunter) does it. Pure functions
 * over numbers: no I/O, no randomness, so the same series always gives the same change points,
 * bit for bit. What is shown is medians; the t-test's means stay inside the test. */
#ifndef BENCH_STATS_CHANGEPOINT_H
#define BENCH_STATS_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"
#include "results.h"

/* One recorded run of a series. */
struct bench__cp_run {
    double value; /* the run's value, ns (its p50); NaN: the run has no value (a failure, a
                     skip): it takes no part, and indexes still count it */
    size_t n;     /* the samples behind the value; 0 unknown */
    double mad;   /* their MAD, ns (no scale factor); NaN unknown */
};

/* ---- the detector ---------------------------------------------------------------------- */

/* Every parameter of the detector; bench__cp_defaults fills the documented defaults. */
struct bench__cp_params {
    size_t window;      /* runs per sliding window of the first pass; windows advance by half */
    size_t min_segment; /* fewest runs with a value on each side of a change point (>= 2) */
    double max_p;       /* the second (final) pass keeps a change point when its p < max_p */
    double first_p;     /* the first pass's looser threshold: the "weak" change points */
    double min_rel;     /* the second pass also drops a change point whose size is under this
                           (relative, either direction: max(a/b, b/a) − 1); 0 keeps every size */
    double ci_level;    /* the confidence of the size's interval; 0 computes none (NaN) */
};
/* window 30, min_segment 2, max_p 0.0005, first_p 0.01, min_rel 0, ci_level 0.95. The p of a
 * change point is that of the split E-Divisive chose as the best of its window, so it is
 * optimistic; at max_p 0.001 the change points of 5% steps that passed with p in [0.0005, 0.001)
 * were mostly placed 3 to 8 runs before the step (a false alert and a missed step at once). The
 * benchmark's figures are flat from 0.0003 to 0.0007 on both seed sets: 0.0005 is in the middle,
 * not on an edge (benchmarks/history_detect/README.md). */
BENCH__HIDDEN void bench__cp_defaults(struct bench__cp_params *p);

struct bench__changepoint {
    size_t index;             /* the run where the new segment starts (an index of the series) */
    size_t start, end;        /* the segment before starts at run `start`; the one after ends
                                 before run `end`: the runs the test compared, [start, end) */
    size_t n_before, n_after; /* runs with a value on each side */
    double median_before, median_after; /* ns */
    /* The size: the median of every after/before ratio of a run after and a run before, − 1
     * (Hodges-Lehmann on the logarithms), and its distribution-free interval (Moses): exact
     * below 2 500 pairs, the normal approximation above. ci_level is the confidence the
     * interval reaches: below the asked level when the sides are too small for it (2 runs
     * before and 2 after reach 1 − 2/6). Each side uses at most its 250 runs nearest to the
     * change. */
    double rel, ci_lo, ci_hi, ci_level;
    double p; /* two-sided Student t-test of the logarithms of the two sides */
    double t; /* its statistic (positive: slower after) */
};

/* The change points of runs[0..n), oldest first, into out[0..*n_out) (room for n entries),
 * ascending by index. Returns 0, or BENCH_EINVAL for bad parameters, a NULL pointer, or a value
 * that is infinite or not > 0. */
BENCH__HIDDEN int bench__changepoints(const struct bench__cp_run *runs, size_t n,
                                      const struct bench__cp_params *p,
                                      struct bench__changepoint *out, size_t *n_out);

/* ---- primitives (pinned by tests/unit/stats/test_changepoint.c) ------------------------- */

/* The two-sided p of Student's t with df degrees of freedom (df > 0); 1 for t = 0. */
BENCH__HIDDEN double bench__student_p(double t, double df);
/* The two-sided Student t-test (pooled variance) of a[0..na) against b[0..nb): p, and t when
 * t_out is not NULL. p is 1 with fewer than 3 values in all; with no spread on either side, 0
 * when the sides differ and 1 when they do not. */
BENCH__HIDDEN double bench__student_test(const double *a, size_t na, const double *b, size_t nb,
                                         double *t_out);
/* The Hodges-Lehmann shift of y[0..n) against x[0..m) (the median of every y[j] − x[i]) into
 * *est, and Moses's interval at `level` (exact Mann-Whitney ranks up to 2 500 pairs, the normal
 * approximation above) into *lo, *hi with the level it reaches in *achieved; the interval is NaN
 * when level is not in (0, 1), everything NaN when a side is empty. */
BENCH__HIDDEN void bench__hl_shift(const double *x, size_t m, const double *y, size_t n,
                                   double level, double *est, double *lo, double *hi,
                                   double *achieved);

/* ---- the lasting state of the latest run ------------------------------------------------ */

enum bench__hist_mode {
    BENCH__HIST_SEGMENTS,           /* the latest run against the last stable segment (default) */
    BENCH__HIST_LATEST_VS_PREVIOUS, /* today's rule: the latest run against the run before it */
    BENCH__HIST_BASELINE_RUN,       /* against the segment holding a chosen run (--baseline-run) */
};

struct bench__hist_params {
    struct bench__cp_params cp;
    /* The smallest reportable change: the seed's threshold (pct and an absolute minimum, ns),
     * as bench__result_thresholds_default gives it (baseline[0] or [1]). Every regression passes
     * it; a confirmed slowdown under it reads `watch`. */
    struct bench__result_threshold threshold;
    /* One run is unmistakable (a regression before a second run confirms it) when its own
     * dispersion is known (n >= unmistakable_min_n and a MAD), the base it leaves has at least
     * unmistakable_min_runs runs, its slowdown passes `threshold`, and d = ln(run / base median)
     * is at least unmistakable_k times the spread between runs (1.4826 × the MAD of the base's
     * logarithms, or of every run's distance to its segment's median before it, or the standard
     * deviation of those distances, the largest) and
     * at least unmistakable_k_own times the spread of its own samples (1.4826·MAD / value, or
     * the base runs' typical one, the larger): the whole run moved, and moved together. */
    double unmistakable_k, unmistakable_k_own;
    size_t unmistakable_min_n, unmistakable_min_runs;
    /* The newest runs, before a change point decides them: a run j among the last tail_hold runs
     * opens a regression when it is unmistakable, or when its first m runs (min_segment <= m <=
     * tail_open) pass the threshold and their t-test against the base gives p < tail_p; the
     * regression holds while [j, latest] passes it. Whether runs pass the threshold against
     * others is read from the Hodges-Lehmann shift of their logarithms (the size a change point
     * reports), for segments as for the newest runs. */
    double tail_p;
    size_t tail_open, tail_hold;
};
/* cp defaults, threshold 10% and 1 ns (an in-process row), unmistakable_k 4, unmistakable_k_own
 * 2, min_n 3, min_runs 3, tail_p 0.005, tail_open 3, tail_hold 8. */
BENCH__HIDDEN void bench__hist_defaults(struct bench__hist_params *p);

struct bench__hist_verdict {
    enum bench__result_state state; /* REGRESSION, WATCH, OK or UNMEASURED */
    /* One token, static: regressed_since_change, confirmed_by_next_runs, unmistakable_run
     * (regression); out_of_line_unconfirmed, slower_below_threshold (watch); restored, steady,
     * faster (ok); no_value, no_history (unmeasured); and in mode latest-vs-previous
     * baseline_p50_ms, slower_below_threshold, steady, faster. */
    const char *why;
    size_t since;              /* the run the state holds since (the change point that opened
                                  the regression, the unmistakable run, the restoring change);
                                  SIZE_MAX when none */
    size_t ref_start, ref_end; /* the runs judged against: [ref_start, ref_end); 0, 0 when none */
    size_t cur_start;          /* the runs judged: [cur_start, n) */
    double ref_median, cur_median; /* ns; NaN when unmeasured */
    double delta_ns, slower_pct;   /* cur − ref, and in percent of ref; NaN when unmeasured */
    double p;                      /* the deciding change point's p; NaN when none decided */
    size_t n_changes;              /* change points of the series */
};

/* The state of the latest run of runs[0..n) (oldest first; the caller slices the series for
 * --since) in `mode`; baseline_index names the chosen run in BENCH__HIST_BASELINE_RUN (it must
 * have a value). The change points go to cps[0..*n_cps) when cps is not NULL (room for n).
 * Returns 0 or BENCH_EINVAL (as bench__changepoints, or a bad mode or baseline index). */
BENCH__HIDDEN int bench__history_judge(const struct bench__cp_run *runs, size_t n,
                                       enum bench__hist_mode mode, size_t baseline_index,
                                       const struct bench__hist_params *p,
                                       struct bench__hist_verdict *v,
                                       struct bench__changepoint *cps, size_t *n_cps);

#endif /* BENCH_STATS_CHANGEPOINT_H */
