/* SPDX-License-Identifier: MIT */
/* history_sim.c: owns the synthetic histories of benchmarks/history_detect/ and their scoring:
 * it draws runs (a run effect and per-sample noise, lognormal, from SplitMix64), judges every run
 * of every series with the three rules, and counts true and false alerts, delays and red runs.
 * It must not measure time (its figures are counts) nor decide anything for the library. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history_sim.h"
#include "stats/changepoint.h"
#include "stats/compare.h"
#include "stats/results.h"
#include "util/alloc.h"

#define LEVEL_NS 1000.0 /* an in-process row of 1 µs: the ns-scale minimums apply */

void hsim_defaults(struct hsim_config *c)
{
    *c = (struct hsim_config){
        .seed = UINT64_C(20261108),
        .per_family = 100,
        .length = 60,
        .warmup = 10,
        .reps = 3,
        .cv = 0.02,
        .min_pct = 3,
        .previous_tails_any_n = true,
    };
}

const char *hsim_family_name(enum hsim_family f)
{
    static const char *const names[] = {
        "noise only", "step 2%", "step 5%", "step 10%", "outlier (disturbed)", "outlier (shifted)"};
    return f < HSIM_FAMILIES ? names[f] : "?";
}

const char *hsim_rule_name(enum hsim_rule r)
{
    static const char *const names[] = {"new (lasting states)", "previous run (today)",
                                        "Perfherder-style t-test"};
    return r < HSIM_RULES ? names[r] : "?";
}

/* ---- drawing ---------------------------------------------------------------------------- */

/* The stream of one series (or one row of one week): its start is the seed, then each key in
 * turn, mixed through SplitMix64's output function. A start of seed ^ (k · γ) would not do: γ is
 * SplitMix64's own increment, so with a seed whose set bits are all below those of 8γ (seed 7)
 * series k + 8 was series k shifted by the 8 draws of one run, and a family of 500 series was 8
 * series seen through sliding windows. */
static struct bench__rng stream_of(uint64_t seed, uint64_t a, uint64_t b)
{
    struct bench__rng r = {seed};
    r.state = bench__rng_next(&r) ^ a;
    r.state = bench__rng_next(&r) ^ b;
    r.state = bench__rng_next(&r);
    return r;
}

static double uniform(struct bench__rng *rng)
{
    return ((double)(bench__rng_next(rng) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double normal(struct bench__rng *rng)
{
    double u = uniform(rng), v = uniform(rng);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The noise of a sample: a run effect shared by the run's samples and each sample's own, split
 * so that the median of `reps` samples varies by `cv` from run to run (the median of n normal
 * values has a variance of about π/(2n) σ² for large n, 0.449 σ² for 3). The two parts are
 * equal in variance, each sample's part scaled by that factor. */
struct noise {
    double run_sigma, sample_sigma;
};

static struct noise noise_for(double cv, size_t reps)
{
    double f = reps == 1 ? 1.0 : reps == 3 ? 0.449 : M_PI / (2.0 * (double)reps);
    double half = cv * cv / 2;
    return (struct noise){sqrt(half), sqrt(half / f)};
}

enum disturb { NONE_D, SPREAD_D, SHIFT_D };

/* Sorts a run's samples and takes its value (median), n and MAD (no scale factor). */
static void summarize_run(double *s, size_t reps, struct bench__cp_run *r)
{
    qsort(s, reps, sizeof *s, cmp_double);
    double med = reps % 2 ? s[reps / 2] : (s[reps / 2 - 1] + s[reps / 2]) / 2;
    double *dev = bench__xmalloc(reps * sizeof *dev);
    for (size_t j = 0; j < reps; j++)
        dev[j] = fabs(s[j] - med);
    qsort(dev, reps, sizeof *dev, cmp_double);
    r->value = med;
    r->n = reps;
    r->mad = reps % 2 ? dev[reps / 2] : (dev[reps / 2 - 1] + dev[reps / 2]) / 2;
    free(dev);
}

/* One run's samples into s[0..reps): level × exp(run effect + sample noise), then a disturbance
 * of size delta: SPREAD_D slows each sample by its own delta·E (E exponential, mean 1), SHIFT_D
 * slows every sample by delta. Its value (median), n and MAD into *r. */
static void draw_run(struct bench__rng *rng, double level, const struct noise *nz, size_t reps,
                     enum disturb kind, double delta, double *s, struct bench__cp_run *r)
{
    double b = nz->run_sigma * normal(rng);
    for (size_t j = 0; j < reps; j++) {
        s[j] = level * exp(b + nz->sample_sigma * normal(rng));
        if (kind == SPREAD_D)
            s[j] *= 1 + delta * -log(uniform(rng));
        else if (kind == SHIFT_D)
            s[j] *= 1 + delta;
    }
    summarize_run(s, reps, r);
}

/* ---- the rules -------------------------------------------------------------------------- */

static void agg_of(const double *s, size_t reps, struct bench__result_aggregate *a)
{
    /* nearest rank as lib/stats/results.c takes it */
    size_t r90 = (90 * reps + 99) / 100, r99 = (99 * reps + 99) / 100;
    *a = (struct bench__result_aggregate){
        .sample_count = reps,
        .total_count = reps,
        .p50 = reps % 2 ? s[reps / 2] : (s[reps / 2 - 1] + s[reps / 2]) / 2,
        .p90 = s[(r90 ? r90 : 1) - 1],
        .p99 = s[(r99 ? r99 : 1) - 1],
        .min = s[0],
        .max = s[reps - 1],
    };
}

/* Perfherder's detector (treeherder perf/analysis, as published): for each run i, a back window
 * of the runs before it (at least 12, up to 24 while no change was seen) and a fore window of i
 * and the 11 after, linearly weighted averages, t = Δ / sqrt(v1/n1 + v2/n2); i is a change when
 * both windows are full, t > 7 and no neighbour's t is larger. An alert also needs a change of at
 * least 2% (its alert threshold); a regression is a higher value. flags[i] set for each alert. */
static void perfherder(const double *x, size_t n, bool *flags)
{
    enum { MIN_BACK = 12, MAX_BACK = 24, FORE = 12 };
    double *t = bench__xcalloc(n, sizeof *t), *rel = bench__xcalloc(n, sizeof *rel);
    size_t *nb = bench__xcalloc(n, sizeof *nb), *nf = bench__xcalloc(n, sizeof *nf);
    size_t last_seen = 0;
    for (size_t i = 1; i < n; i++) {
        size_t limit = last_seen > MIN_BACK ? last_seen : MIN_BACK;
        limit = limit < MAX_BACK ? limit : MAX_BACK;
        size_t b = 0;
        while (b < MAX_BACK && b < i && b + 1 <= limit)
            b++;
        size_t f = 0;
        while (f < FORE && i + f < n)
            f++;
        nb[i] = b;
        nf[i] = f;
        double avg[2], var[2];
        size_t len[2] = {b, f};
        for (int w = 0; w < 2; w++) {
            double ws = 0, wsum = 0;
            for (size_t k = 0; k < len[w]; k++) {
                double weight = (double)(len[w] - k) / (double)len[w];
                double v = w == 0 ? x[i - 1 - k] : x[i + k];
                ws += v * weight;
                wsum += weight;
            }
            avg[w] = ws / wsum;
            double ss = 0;
            for (size_t k = 0; k < len[w]; k++) {
                double v = w == 0 ? x[i - 1 - k] : x[i + k];
                ss += (v - avg[w]) * (v - avg[w]);
            }
            var[w] = len[w] > 1 ? ss / (double)(len[w] - 1) : 0;
        }
        double d = avg[1] - avg[0];
        t[i] = d == 0 ? 0
               : var[0] == 0 && var[1] == 0
                   ? INFINITY
                   : fabs(d / sqrt(var[0] / (double)b + var[1] / (double)f));
        rel[i] = d / avg[0];
        last_seen = t[i] > 7 ? 0 : last_seen + 1;
    }
    for (size_t i = 1; i < n; i++) {
        flags[i] = false;
        if (nb[i] < MIN_BACK || nf[i] < FORE || t[i] <= 7)
            continue;
        if (t[i - 1] > t[i] || (i + 1 < n && t[i + 1] > t[i]))
            continue;
        flags[i] = rel[i] >= 0.02;
    }
    flags[0] = false;
    free(t);
    free(rel);
    free(nb);
    free(nf);
}

/* ---- one series ------------------------------------------------------------------------- */

struct series {
    size_t length, step_at; /* step_at == length: no step */
    struct bench__cp_run *runs;
    double *samples; /* length × reps, each run's sorted */
};

/* The alerts of one series and rule, keyed by the run each names (the run a lasting state says
 * it regressed since, the run the previous-run rule judged, the run Perfherder marks). A state
 * rule raises an alert when its row turns `regression`, unless it names a run already alerted
 * (the same regression read again after a run in between); while the row stays `regression`, no
 * new alert. An alert is true when it comes at or after the step and names a run within 2 of
 * it, and no alert found that step before. */
#define ALERT_KEYS 256
struct alerts {
    size_t key[ALERT_KEYS], n;
    bool found;
};

static void raise_alert(struct hsim_score *sc, const struct series *s, size_t t, size_t named,
                        struct alerts *a)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->key[i] == named)
            return; /* the same alert, read again */
    if (a->n < ALERT_KEYS)
        a->key[a->n++] = named;
    bool step = s->step_at < s->length && t >= s->step_at && named + 2 >= s->step_at &&
                named <= s->step_at + 2;
    if (step && !a->found) {
        size_t delay = t - s->step_at + 1;
        a->found = true;
        sc->true_alerts++;
        sc->found++;
        sc->found_within3 += delay <= 3;
        sc->delay[delay < HSIM_DELAYS ? delay : HSIM_DELAYS - 1]++;
    } else {
        sc->false_alerts++;
        if (s->step_at >= s->length || t < s->step_at)
            sc->false_before++;
        else if (step)
            sc->false_repeat++;
        else if (named + 2 < s->step_at)
            sc->false_early++;
        else
            sc->false_late++;
    }
}

static void judge_series(const struct hsim_config *c, const struct series *s,
                         struct hsim_score sc[HSIM_RULES])
{
    struct bench__hist_params hp;
    bench__hist_defaults(&hp);
    hp.threshold = (struct bench__result_threshold){.pct = c->min_pct, .min_ns = 1};

    struct bench__result_thresholds th;
    bench__result_thresholds_default(&th);
    th.baseline[0].pct = c->min_pct;
    if (c->previous_tails_any_n)
        th.min_n_p90 = th.min_n_p99 = 1;
    bool *flags = bench__xcalloc(s->length, sizeof *flags);
    struct alerts al[HSIM_RULES] = {{{0}, 0, false}, {{0}, 0, false}, {{0}, 0, false}};
    bool red_prev[2] = {false, false};
    double *x = bench__xmalloc(s->length * sizeof *x);
    for (size_t i = 0; i < s->length; i++)
        x[i] = s->runs[i].value;
    for (int r = 0; r < HSIM_RULES; r++)
        sc[r].series++;
    for (size_t t = c->warmup - 1; t < s->length; t++) {
        bool judged = t >= c->warmup, nothing = t < s->step_at;
        struct bench__hist_verdict v;
        bench__history_judge(s->runs, t + 1, BENCH__HIST_SEGMENTS, 0, &hp, &v, NULL, NULL);
        struct bench__result_aggregate cur, prev;
        agg_of(s->samples + t * c->reps, c->reps, &cur);
        agg_of(s->samples + (t - 1) * c->reps, c->reps, &prev);
        struct bench__result_row row = {.target = &cur, .baseline = &prev};
        bench__result_row_judge(&row, &th);
        bool red[2] = {v.state == BENCH__RESULT_REGRESSION, row.state == BENCH__RESULT_REGRESSION};
        size_t named[2] = {v.since, t};
        for (int r = 0; r < 2 && judged; r++) {
            sc[r].judged_runs++;
            if (nothing) {
                sc[r].red_runs_possible++;
                sc[r].red_runs_false += red[r];
            }
            /* the previous-run rule judges each run afresh: every red run is its own alert */
            if (red[r] && (r == HSIM_PREVIOUS || !red_prev[r]))
                raise_alert(&sc[r], s, t, named[r], &al[r]);
        }
        red_prev[0] = red[0];
        red_prev[1] = red[1];
        if (judged) {
            perfherder(x, t + 1, flags);
            sc[HSIM_PERFHERDER].judged_runs++;
            if (nothing)
                sc[HSIM_PERFHERDER].red_runs_possible++;
            for (size_t i = 0; i <= t; i++)
                if (flags[i]) {
                    size_t before = sc[HSIM_PERFHERDER].false_alerts;
                    raise_alert(&sc[HSIM_PERFHERDER], s, t, i, &al[HSIM_PERFHERDER]);
                    sc[HSIM_PERFHERDER].red_runs_false +=
                        nothing && sc[HSIM_PERFHERDER].false_alerts > before;
                }
        }
    }
    free(flags);
    free(x);
}

void hsim_run(const struct hsim_config *c, struct hsim_score score[HSIM_RULES][HSIM_FAMILIES])
{
    memset(score, 0, sizeof(struct hsim_score) * HSIM_RULES * HSIM_FAMILIES);
    struct noise nz = noise_for(c->cv, c->reps);
    struct series s = {.length = c->length};
    s.runs = bench__xmalloc(c->length * sizeof *s.runs);
    s.samples = bench__xmalloc(c->length * c->reps * sizeof *s.samples);
    for (int f = 0; f < HSIM_FAMILIES; f++) {
        size_t count = f == HSIM_NOISE            ? 2 * c->per_family
                       : f >= HSIM_OUTLIER_SPREAD ? c->per_family / 2
                                                  : c->per_family;
        double step = f == HSIM_STEP2 ? 0.02 : f == HSIM_STEP5 ? 0.05 : f == HSIM_STEP10 ? 0.10 : 0;
        for (size_t k = 0; k < count; k++) {
            /* one stream per series: a family's series do not depend on another family's */
            struct bench__rng rng = stream_of(c->seed, (uint64_t)f, k);
            s.step_at = step > 0 ? 25 + (size_t)bench__rng_below(&rng, 11) : c->length;
            size_t out_at = f >= HSIM_OUTLIER_SPREAD
                                ? 15 + (size_t)bench__rng_below(&rng, c->length - 20)
                                : c->length;
            double delta = 0.10 + 0.20 * uniform(&rng);
            for (size_t i = 0; i < c->length; i++) {
                double level = LEVEL_NS * (i >= s.step_at ? 1 + step : 1);
                enum disturb d = i != out_at                ? NONE_D
                                 : f == HSIM_OUTLIER_SPREAD ? SPREAD_D
                                                            : SHIFT_D;
                draw_run(&rng, level, &nz, c->reps, d, delta, s.samples + i * c->reps, &s.runs[i]);
            }
            struct hsim_score per[HSIM_RULES];
            for (int r = 0; r < HSIM_RULES; r++)
                per[r] = score[r][f];
            judge_series(c, &s, per);
            for (int r = 0; r < HSIM_RULES; r++)
                score[r][f] = per[r];
        }
    }
    free(s.runs);
    free(s.samples);
}

size_t hsim_median_delay(const struct hsim_score *s)
{
    size_t half = (s->found + 1) / 2, seen = 0;
    for (size_t d = 0; d < HSIM_DELAYS; d++) {
        seen += s->delay[d];
        if (s->found && seen >= half)
            return d;
    }
    return 0;
}

/* ---- the week --------------------------------------------------------------------------- */

void hsim_run_week(uint64_t seed, size_t weeks, size_t reps, double cv, double min_pct,
                   struct hsim_week *w)
{
    enum { DAYS = 7, ROWS = 20, STEP_DAY = 4, NOISE_DAY = 6 };
    memset(w, 0, sizeof *w);
    w->weeks = weeks;
    struct noise nz = noise_for(cv, reps);
    struct bench__hist_params hp;
    bench__hist_defaults(&hp);
    hp.threshold.pct = min_pct;
    struct bench__result_thresholds th;
    bench__result_thresholds_default(&th);
    th.baseline[0].pct = min_pct;
    double *samples = bench__xmalloc(DAYS * reps * sizeof *samples);
    struct bench__cp_run runs[DAYS];
    for (size_t wk = 0; wk < weeks; wk++) {
        for (size_t row = 0; row < ROWS; row++) {
            struct bench__rng rng = stream_of(seed, (uint64_t)HSIM_FAMILIES + wk, row);
            bool stepped = row < 4, noisy = row == 4 || row == 5, shifted = row == 6 || row == 7;
            double delta = row % 2 ? 0.20 : 0.12;
            for (size_t d = 0; d < DAYS; d++) {
                double level = LEVEL_NS * (stepped && d >= STEP_DAY ? 1.15 : 1);
                double *s = samples + d * reps;
                draw_run(&rng, level, &nz, reps, d == NOISE_DAY && shifted ? SHIFT_D : NONE_D,
                         delta, s, &runs[d]);
                if (d == NOISE_DAY && noisy) {
                    /* two of the three repetitions disturbed, by delta and by twice delta: the
                     * median moves by about delta, the spread with it */
                    for (size_t j = 1; j < reps; j++)
                        s[j] *= 1 + delta * (double)j;
                    summarize_run(s, reps, &runs[d]);
                }
            }
            bool held = true;
            for (size_t d = 1; d < DAYS; d++) {
                struct bench__hist_verdict v;
                bench__history_judge(runs, d + 1, BENCH__HIST_SEGMENTS, 0, &hp, &v, NULL, NULL);
                struct bench__result_aggregate cur, prev;
                agg_of(samples + d * reps, reps, &cur);
                agg_of(samples + (d - 1) * reps, reps, &prev);
                struct bench__result_row r = {.target = &cur, .baseline = &prev};
                bench__result_row_judge(&r, &th);
                bool reg = v.state == BENCH__RESULT_REGRESSION;
                bool prev_reg = r.state == BENCH__RESULT_REGRESSION;
                if (stepped && d >= STEP_DAY) {
                    bool ok = reg && v.since == STEP_DAY;
                    w->stepped_day[d - STEP_DAY] += ok;
                    w->prev_stepped_day[d - STEP_DAY] += prev_reg;
                    held = held && ok;
                }
                if (noisy && d == NOISE_DAY) {
                    w->noisy_at_most_watch += !reg;
                    w->prev_noisy_flagged += prev_reg;
                }
                if (shifted && d == NOISE_DAY)
                    w->shifted_flagged += reg;
                if (!stepped && !noisy && !shifted) {
                    w->plain_runs++;
                    w->plain_false += reg;
                    w->prev_plain_false += prev_reg;
                }
            }
            w->stepped += stepped;
            w->stepped_held += stepped && held;
            w->noisy += noisy;
            w->shifted += shifted;
        }
    }
    free(samples);
}
