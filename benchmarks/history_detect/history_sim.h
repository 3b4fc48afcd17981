/* SPDX-License-Identifier: MIT */
/* history_sim.h: the simulation behind benchmarks/history_detect/ and the pinned figures of
 * tests/unit/stats/test_changepoint.c: synthetic series of recorded runs (noise only, steps of
 * 2, 5 and 10%, single-run outliers), judged run after run by three rules (the lasting states of
 * lib/stats/history.c, today's previous-run rule of lib/stats/results.c, and a Perfherder-style
 * t-test), and a scripted week. Deterministic: the same seed gives the same figures. */
#ifndef BENCH_HISTORY_SIM_H
#define BENCH_HISTORY_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hsim_config {
    uint64_t seed;
    size_t per_family; /* series per step family; noise-only gets twice, each outlier kind half */
    size_t length;     /* runs per series */
    size_t warmup;     /* the first run judged (the runs before it are history) */
    size_t reps;       /* samples (repetitions) per run */
    double cv;         /* the run-to-run coefficient of variation of a run's value */
    double min_pct;    /* the smallest reportable change, %, of the new and previous-run rules */
    bool previous_tails_any_n; /* today's rule as shipped: p90/p99 judged at any n */
};
/* seed 20261108, per_family 100, length 60, warmup 10, reps 3, cv 0.02, min_pct 3,
 * previous_tails_any_n true. */
void hsim_defaults(struct hsim_config *c);

enum hsim_family {
    HSIM_NOISE,          /* noise only */
    HSIM_STEP2,          /* a 2% slowdown at a run in [25, 36) */
    HSIM_STEP5,          /* 5% */
    HSIM_STEP10,         /* 10% */
    HSIM_OUTLIER_SPREAD, /* one disturbed run: each sample slowed by its own random amount */
    HSIM_OUTLIER_SHIFT,  /* one shifted run: every sample slowed by the same 10 to 30% */
    HSIM_FAMILIES
};
enum hsim_rule { HSIM_NEW, HSIM_PREVIOUS, HSIM_PERFHERDER, HSIM_RULES };

#define HSIM_DELAYS 64
struct hsim_score {
    size_t series, judged_runs;
    size_t true_alerts, false_alerts;
    size_t found, found_within3; /* step families: series whose step was alerted */
    size_t delay[HSIM_DELAYS];   /* found series by delay (runs at the new level, 1 = the
                                    step's own run); the last bucket holds the rest */
    /* false alerts by kind: raised before the step (or in a series without one), naming a run
       more than 2 before the step, naming one more than 2 after it, or a second alert for a
       step already found (naming another run within 2 of it) */
    size_t false_before, false_early, false_late, false_repeat;
    size_t red_runs_false;    /* judged runs read `regression` with nothing to find
                                 (before a step, or in a series without one) */
    size_t red_runs_possible; /* the runs that could have been read so */
};

const char *hsim_family_name(enum hsim_family f);
const char *hsim_rule_name(enum hsim_rule r);
void hsim_run(const struct hsim_config *c, struct hsim_score score[HSIM_RULES][HSIM_FAMILIES]);
/* The median delay of the found series (0 when none). */
size_t hsim_median_delay(const struct hsim_score *s);

/* The scripted week: 7 days, one recorded run a day of `reps` samples, 20 rows: 4 with a real
 * 15% step on day 5, 2 with same-build noise on day 7 (the median of three moved +12% and +20%
 * because two of the three repetitions were disturbed, by different amounts), 2 with a clean
 * shift on day 7 (all three repetitions +12% and +20%: the known limit of judging one run), 12
 * untouched. */
struct hsim_week {
    size_t weeks;
    size_t stepped, stepped_held;      /* stepped rows reading "regressed since day 5" on 5, 6, 7 */
    size_t stepped_day[3];             /* ... on day 5, 6, 7 each */
    size_t noisy, noisy_at_most_watch; /* disturbed day-7 rows at most `watch` on day 7 */
    size_t shifted, shifted_flagged;   /* clean-shift day-7 rows read `regression` on day 7 */
    size_t plain_runs, plain_false;    /* untouched rows × days 2..7, and those read regression */
    /* today's previous-run rule on the same rows */
    size_t prev_stepped_day[3], prev_noisy_flagged, prev_plain_false;
};
void hsim_run_week(uint64_t seed, size_t weeks, size_t reps, double cv, double min_pct,
                   struct hsim_week *w);

#endif
