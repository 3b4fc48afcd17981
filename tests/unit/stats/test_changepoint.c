/* SPDX-License-Identifier: MIT */
/* test_changepoint.c: the change points and lasting states of the results history
 * (lib/stats/changepoint.c, cp_size.c, student.c, history.c): the primitives against SciPy's
 * figures and brute force, the detector on hand-made series (a clean step, none, two, an outlier,
 * runs without a value), determinism, every state the latest run can take in every mode, and the
 * fixed-seed figures of the simulation of benchmarks/history_detect/ (a small version of it).
 * No clock is read: every figure is a count or a number computed from literals. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bench/errors.h>

#include "history_sim.h"
#include "stats/changepoint.h"
#include "stats/compare.h"

static void assert_rel(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * fabs(want)))
        fail_msg("got %.17g, want %.17g", got, want);
}

/* ---- primitives ------------------------------------------------------------------------ */

static void test_student_p(void **state)
{
    (void)state;
    /* scipy.stats.t.sf(t, df) * 2 */
    assert_rel(bench__student_p(2.0, 10), 0.07338803477074039, 1e-9);
    assert_rel(bench__student_p(-2.0, 10), 0.07338803477074039, 1e-9);
    assert_rel(bench__student_p(3.169, 10), 0.010004633364384848, 1e-9);
    assert_rel(bench__student_p(5.5, 3), 0.011829591570328521, 1e-9);
    assert_rel(bench__student_p(0.3, 1), 0.8144528418445154, 1e-9);
    assert_rel(bench__student_p(12.0, 40), 7.82417130425597e-15, 1e-6);
    assert_true(bench__student_p(0, 5) == 1);
    assert_true(bench__student_p(INFINITY, 5) == 0);
    assert_true(isnan(bench__student_p(1, 0)));
}

static void test_student_test(void **state)
{
    (void)state;
    double a[] = {100, 102, 98, 101, 99, 103}, b[] = {110, 108, 112, 109};
    for (size_t i = 0; i < 6; i++)
        a[i] = log(a[i]);
    for (size_t i = 0; i < 4; i++)
        b[i] = log(b[i]);
    double t;
    /* scipy.stats.ttest_ind(a, b): p 5.284816404231404e-05, statistic −7.790183366315016 (a − b) */
    assert_rel(bench__student_test(a, 6, b, 4, &t), 5.284816404231404e-05, 1e-8);
    assert_rel(t, 7.790183366315016, 1e-10);
    /* no spread: different sides are certain, equal sides are not different */
    double c[] = {1, 1, 1}, d[] = {2, 2};
    assert_true(bench__student_test(c, 3, d, 2, &t) == 0 && t == INFINITY);
    assert_true(bench__student_test(c, 3, c, 2, &t) == 1 && t == 0);
    /* fewer than 3 values: no test */
    assert_true(bench__student_test(c, 1, d, 1, &t) == 1);
    assert_true(bench__student_test(c, 0, d, 2, NULL) == 1);
}

/* Hodges-Lehmann and Moses's exact interval against brute force (every arrangement of 6 + 7). */
static void test_hl_shift(void **state)
{
    (void)state;
    double x[] = {1, 2, 3, 4, 5, 6}, y[] = {3.5, 5.5, 7.5, 8.5, 9.5, 10.5, 4.2};
    double est, lo, hi, level;
    bench__hl_shift(x, 6, y, 7, 0.95, &est, &lo, &hi, &level);
    assert_rel(est, 3.5, 1e-12);
    assert_rel(lo, 0.2, 1e-12);
    assert_rel(hi, 6.5, 1e-12);
    assert_rel(level, 0.965034965034965, 1e-12);
    /* too small for 95%: the whole range, and the level it reaches (1 − 2/C(4, 2)) */
    double x2[] = {0, 1}, y2[] = {5, 7};
    bench__hl_shift(x2, 2, y2, 2, 0.95, &est, &lo, &hi, &level);
    assert_rel(est, 5.5, 1e-12);
    assert_true(lo == 4 && hi == 7);
    assert_rel(level, 2.0 / 3.0, 1e-12);
    /* no interval asked */
    bench__hl_shift(x2, 2, y2, 2, 0, &est, &lo, &hi, &level);
    assert_true(isnan(lo) && isnan(hi) && !isnan(est));
    /* above 2 500 pairs, the normal approximation: a shift of 1 in 60 + 60 values */
    double big_x[60], big_y[60];
    for (size_t i = 0; i < 60; i++) {
        big_x[i] = (double)((i * 37) % 60) / 60.0;
        big_y[i] = 1 + (double)((i * 23) % 60) / 60.0;
    }
    bench__hl_shift(big_x, 60, big_y, 60, 0.95, &est, &lo, &hi, &level);
    assert_rel(est, 1, 1e-12);
    assert_true(lo < 1 && hi > 1 && lo > 0.8 && hi < 1.2);
    assert_true(fabs(level - 0.95) < 0.005);
}

/* ---- the detector ---------------------------------------------------------------------- */

/* A run of value level·(1 + e), e a fixed ±1% pattern with no level in it. */
static struct bench__cp_run run_at(double level, size_t i)
{
    static const double pattern[] = {0.004, -0.007, 0.010,  -0.002, 0.006, -0.010,
                                     0.001, 0.008,  -0.005, 0.003,  -0.008};
    return (struct bench__cp_run){level * (1 + pattern[i % 11]), 3, level * 0.01};
}

static size_t series(struct bench__cp_run *r, const double *levels, const size_t *lengths,
                     size_t parts)
{
    size_t n = 0;
    for (size_t p = 0; p < parts; p++)
        for (size_t i = 0; i < lengths[p]; i++, n++)
            r[n] = run_at(levels[p], n);
    return n;
}

static size_t detect(const struct bench__cp_run *r, size_t n, struct bench__changepoint *out)
{
    struct bench__cp_params p;
    bench__cp_defaults(&p);
    size_t k = 99;
    assert_int_equal(bench__changepoints(r, n, &p, out, &k), 0);
    return k;
}

static void test_defaults(void **state)
{
    (void)state;
    struct bench__cp_params p;
    bench__cp_defaults(&p);
    assert_int_equal(p.window, 30);
    assert_int_equal(p.min_segment, 2);
    assert_true(p.max_p == 0.0005 && p.first_p == 0.01 && p.min_rel == 0 && p.ci_level == 0.95);
    struct bench__hist_params h;
    bench__hist_defaults(&h);
    assert_true(h.threshold.pct == 10 && h.threshold.min_ns == 1);
    assert_true(h.unmistakable_k == 4 && h.unmistakable_k_own == 2);
    assert_true(h.unmistakable_min_n == 3 && h.unmistakable_min_runs == 3);
    assert_true(h.tail_p == 0.005 && h.tail_open == 3 && h.tail_hold == 8);
}

static void test_clean_step(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    struct bench__changepoint cp[64];
    size_t n = series(r, (double[]){100, 110}, (size_t[]){20, 20}, 2);
    assert_int_equal(detect(r, n, cp), 1);
    assert_int_equal(cp[0].index, 20);
    assert_int_equal(cp[0].start, 0);
    assert_int_equal(cp[0].end, 40);
    assert_int_equal(cp[0].n_before, 20);
    assert_int_equal(cp[0].n_after, 20);
    assert_true(fabs(cp[0].median_before - 100) < 1 && fabs(cp[0].median_after - 110) < 1);
    assert_true(fabs(cp[0].rel - 0.10) < 0.005);
    assert_true(cp[0].ci_lo < cp[0].rel && cp[0].rel < cp[0].ci_hi);
    assert_true(cp[0].ci_lo > 0.08 && cp[0].ci_hi < 0.12);
    assert_true(cp[0].ci_level >= 0.95 && cp[0].ci_level < 0.96);
    assert_true(cp[0].p < 1e-10 && cp[0].t > 0);
    /* a speed-up is a change point too, with a negative size */
    n = series(r, (double[]){110, 100}, (size_t[]){20, 20}, 2);
    assert_int_equal(detect(r, n, cp), 1);
    assert_int_equal(cp[0].index, 20);
    assert_true(cp[0].rel < -0.08 && cp[0].t < 0);
}

static void test_no_step(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    struct bench__changepoint cp[64];
    size_t n = series(r, (double[]){100}, (size_t[]){60}, 1);
    assert_int_equal(detect(r, n, cp), 0);
    /* too short to hold two segments */
    assert_int_equal(detect(r, 3, cp), 0);
    assert_int_equal(detect(r, 0, cp), 0);
}

static void test_two_steps(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    struct bench__changepoint cp[64];
    size_t n = series(r, (double[]){100, 110, 95}, (size_t[]){20, 15, 20}, 3);
    assert_int_equal(detect(r, n, cp), 2);
    assert_int_equal(cp[0].index, 20);
    assert_int_equal(cp[1].index, 35);
    /* each is tested against its neighbours only */
    assert_int_equal(cp[0].start, 0);
    assert_int_equal(cp[0].end, 35);
    assert_int_equal(cp[1].start, 20);
    assert_int_equal(cp[1].end, 55);
    assert_true(cp[0].rel > 0.08 && cp[1].rel < -0.12);
}

/* One run out of line is no segment: a change point needs min_segment runs on each side. */
static void test_outlier(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    struct bench__changepoint cp[64];
    size_t n = series(r, (double[]){100}, (size_t[]){40}, 1);
    r[20].value = 130;
    assert_int_equal(detect(r, n, cp), 0);
    r[39].value = 130; /* the latest, too */
    assert_int_equal(detect(r, n, cp), 0);
}

/* Runs without a value take no part, and indexes still count them; bad input is refused. */
static void test_missing_and_invalid(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    struct bench__changepoint cp[64];
    size_t n = series(r, (double[]){100, 110}, (size_t[]){20, 20}, 2);
    r[3].value = NAN;
    r[20].value = NAN; /* the step's first run failed: the new segment starts at it */
    r[25].value = NAN;
    assert_int_equal(detect(r, n, cp), 1);
    assert_true(cp[0].index == 21 || cp[0].index == 20);
    assert_int_equal(cp[0].n_before + cp[0].n_after, 37);

    struct bench__cp_params p;
    bench__cp_defaults(&p);
    size_t k;
    r[5].value = 0;
    assert_int_equal(bench__changepoints(r, n, &p, cp, &k), BENCH_EINVAL);
    r[5].value = INFINITY;
    assert_int_equal(bench__changepoints(r, n, &p, cp, &k), BENCH_EINVAL);
    r[5].value = 100;
    assert_int_equal(bench__changepoints(r, n, &p, cp, &k), 0);
    assert_int_equal(bench__changepoints(r, n, NULL, cp, &k), BENCH_EINVAL);
    assert_int_equal(bench__changepoints(r, n, &p, NULL, &k), BENCH_EINVAL);
    p.min_segment = 0;
    assert_int_equal(bench__changepoints(r, n, &p, cp, &k), BENCH_EINVAL);
    bench__cp_defaults(&p);
    p.first_p = p.max_p / 2;
    assert_int_equal(bench__changepoints(r, n, &p, cp, &k), BENCH_EINVAL);
    bench__cp_defaults(&p);
    p.ci_level = 1;
    assert_int_equal(bench__changepoints(r, n, &p, cp, &k), BENCH_EINVAL);
}

/* The same series gives the same change points, bit for bit, wherever it lies in memory. */
static void test_determinism(void **state)
{
    (void)state;
    enum { N = 200 };
    struct bench__cp_run *r = calloc(N, sizeof *r), *copy = calloc(N, sizeof *copy);
    struct bench__changepoint *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    assert_true(r && copy && a && b);
    struct bench__rng rng = {UINT64_C(42)};
    for (size_t i = 0; i < N; i++) {
        double u = ((double)(bench__rng_next(&rng) >> 11) + 0.5) / 9007199254740992.0;
        double level = i < 70 ? 100 : i < 140 ? 104 : 99;
        r[i] = (struct bench__cp_run){level * (1 + 0.04 * (u - 0.5)), 5, 1};
    }
    memcpy(copy, r, N * sizeof *r);
    size_t ka = detect(r, N, a), kb = detect(copy, N, b);
    assert_true(ka >= 2);
    assert_int_equal(ka, kb);
    assert_memory_equal(a, b, ka * sizeof *a);
    free(r);
    free(copy);
    free(a);
    free(b);
}

/* ---- lasting states -------------------------------------------------------------------- */

static struct bench__hist_verdict judge(const struct bench__cp_run *r, size_t n,
                                        enum bench__hist_mode mode, size_t base)
{
    struct bench__hist_params p;
    bench__hist_defaults(&p);
    struct bench__hist_verdict v;
    assert_int_equal(bench__history_judge(r, n, mode, base, &p, &v, NULL, NULL), 0);
    return v;
}

static void assert_verdict(struct bench__hist_verdict v, enum bench__result_state st,
                           const char *why, size_t since)
{
    if (v.state != st || strcmp(v.why, why) || v.since != since)
        fail_msg("got %s (%s) since %zu, want %s (%s) since %zu", bench__result_state_name(v.state),
                 v.why, v.since, bench__result_state_name(st), why, since);
}

/* A real step stays "regressed since" its change point, run after run, until a change point
 * restores it. */
static void test_regressed_until_restored(void **state)
{
    (void)state;
    struct bench__cp_run r[80];
    size_t n = series(r, (double[]){100, 115, 100}, (size_t[]){30, 12, 8}, 3);
    for (size_t end = 33; end <= 42; end++) {
        struct bench__hist_verdict v = judge(r, end, BENCH__HIST_SEGMENTS, 0);
        assert_int_equal(v.state, BENCH__RESULT_REGRESSION);
        assert_int_equal(v.since, 30);
        assert_true(v.slower_pct > 12 && v.slower_pct < 18);
        if (end >= 34) { /* by then a change point decides */
            assert_string_equal(v.why, "regressed_since_change");
            assert_true(v.p < 0.001);
            assert_int_equal(v.ref_start, 0);
            assert_int_equal(v.ref_end, 30);
            assert_int_equal(v.cur_start, 30);
        }
    }
    /* the level is back: restored by the change point at 42 */
    struct bench__hist_verdict v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_OK, "restored", 42);
    assert_true(v.p < 0.001);
    /* one run back is not enough to restore it */
    v = judge(r, 43, BENCH__HIST_SEGMENTS, 0);
    assert_int_equal(v.state, BENCH__RESULT_REGRESSION);
    assert_int_equal(v.since, 30);
}

/* One run out of line is a watch, unless its own samples make it unmistakable. */
static void test_one_run(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    size_t n = series(r, (double[]){100}, (size_t[]){30}, 1);
    /* +15% in its median, but its own samples are spread as wide: unconfirmed */
    r[n++] = (struct bench__cp_run){115, 3, 12};
    struct bench__hist_verdict v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_WATCH, "out_of_line_unconfirmed", 30);
    assert_true(isnan(v.p));
    /* the same median with its samples tight: the whole run moved, together */
    r[30].mad = 1;
    v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_REGRESSION, "unmistakable_run", 30);
    /* without its n (or its MAD) a run's own dispersion is unknown: a watch */
    r[30].n = 0;
    v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_WATCH, "out_of_line_unconfirmed", 30);
    r[30].n = 3;
    r[30].mad = NAN;
    v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_int_equal(v.state, BENCH__RESULT_WATCH);
    /* a run after it at the same level: still regressed since 30 (here a change point already:
     * the series is quiet enough for two runs to pass the strict p) */
    r[30].mad = 1;
    r[n++] = (struct bench__cp_run){114, 3, 1};
    v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_int_equal(v.state, BENCH__RESULT_REGRESSION);
    assert_int_equal(v.since, 30);
    /* an unmistakable run holds while the runs after it stay over: the same with a noisier
     * history, where two runs are no change point yet */
    {
        struct bench__cp_run q[64];
        size_t m = 0;
        for (; m < 30; m++) { /* the ±1% pattern made ±3% */
            q[m] = run_at(100, m);
            q[m].value = 100 + 3 * (q[m].value - 100);
        }
        q[m++] = (struct bench__cp_run){135, 3, 1};
        v = judge(q, m, BENCH__HIST_SEGMENTS, 0);
        assert_verdict(v, BENCH__RESULT_REGRESSION, "unmistakable_run", 30);
        q[m++] = (struct bench__cp_run){134, 3, 1};
        v = judge(q, m, BENCH__HIST_SEGMENTS, 0);
        assert_int_equal(v.state, BENCH__RESULT_REGRESSION);
        assert_int_equal(v.since, 30);
    }
    /* ...and the next run back at the old level says it was one run: no regression */
    r[31] = run_at(100, 31);
    v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_int_equal(v.state, BENCH__RESULT_OK);
    /* under the threshold, one run slower is nothing to report */
    r[30] = (struct bench__cp_run){104, 3, 1};
    v = judge(r, 31, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_OK, "steady", SIZE_MAX);
}

/* The next runs confirm a new segment before the change point's strict p is reached. */
static void test_confirmed_by_next_runs(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    size_t n = series(r, (double[]){100}, (size_t[]){12}, 1);
    r[n++] = (struct bench__cp_run){112, 3, 6}; /* not unmistakable on its own */
    r[n++] = (struct bench__cp_run){113, 3, 6};
    struct bench__hist_verdict v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_int_equal(v.state, BENCH__RESULT_REGRESSION);
    assert_int_equal(v.since, 12);
    assert_true(!strcmp(v.why, "confirmed_by_next_runs") ||
                !strcmp(v.why, "regressed_since_change"));
    assert_true(v.p < 0.005);
    /* one of them alone was a watch */
    v = judge(r, 13, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_WATCH, "out_of_line_unconfirmed", 12);
}

/* A confirmed slowdown under the reportable size is a lasting watch; a speed-up is ok. */
static void test_below_threshold(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    size_t n = series(r, (double[]){100, 105}, (size_t[]){30, 12}, 2);
    struct bench__hist_verdict v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_WATCH, "slower_below_threshold", 30);
    assert_true(v.p < 0.001 && v.slower_pct > 4 && v.slower_pct < 6);
    n = series(r, (double[]){100, 90}, (size_t[]){30, 12}, 2);
    v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_OK, "faster", SIZE_MAX);
    n = series(r, (double[]){100}, (size_t[]){40}, 1);
    v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_OK, "steady", SIZE_MAX);
    assert_int_equal(v.n_changes, 0);
}

/* Today's rule as a mode: the latest run against the run before it (with a value). */
static void test_latest_vs_previous(void **state)
{
    (void)state;
    struct bench__cp_run r[8] = {{100, 3, 1}, {100, 3, 1}, {NAN, 0, NAN}, {111, 3, 1}};
    struct bench__hist_verdict v = judge(r, 4, BENCH__HIST_LATEST_VS_PREVIOUS, 0);
    assert_verdict(v, BENCH__RESULT_REGRESSION, "baseline_p50_ms", 3);
    assert_int_equal(v.ref_start, 1);
    assert_true(fabs(v.slower_pct - 11) < 1e-9 && fabs(v.delta_ns - 11) < 1e-9);
    r[4] = (struct bench__cp_run){112, 3, 1};
    v = judge(r, 5, BENCH__HIST_LATEST_VS_PREVIOUS, 0);
    assert_verdict(v, BENCH__RESULT_WATCH, "slower_below_threshold", 4);
    r[5] = (struct bench__cp_run){100, 3, 1};
    v = judge(r, 6, BENCH__HIST_LATEST_VS_PREVIOUS, 0);
    assert_verdict(v, BENCH__RESULT_OK, "faster", SIZE_MAX);
}

/* --baseline-run: the segment holding the chosen run is the reference and it never moves, so a
 * creep of steps each under the threshold shows; --since: the caller's slice. */
static void test_baseline_run_and_since(void **state)
{
    (void)state;
    struct bench__cp_run r[64];
    size_t n = series(r, (double[]){100, 107, 114.5}, (size_t[]){20, 12, 12}, 3);
    /* against the segment before: each step is under 10% */
    struct bench__hist_verdict v = judge(r, n, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_WATCH, "slower_below_threshold", 32);
    /* against run 5's segment: 14.5% slower since the second step */
    v = judge(r, n, BENCH__HIST_BASELINE_RUN, 5);
    assert_verdict(v, BENCH__RESULT_REGRESSION, "regressed_since_change", 32);
    assert_int_equal(v.ref_start, 0);
    assert_int_equal(v.ref_end, 20);
    /* against run 25's (the middle segment): under the threshold again */
    v = judge(r, n, BENCH__HIST_BASELINE_RUN, 25);
    assert_verdict(v, BENCH__RESULT_WATCH, "slower_below_threshold", 32);
    /* --since: a slice from run 20 on; indexes are the slice's */
    v = judge(r + 20, n - 20, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_WATCH, "slower_below_threshold", 12);

    struct bench__hist_params p;
    bench__hist_defaults(&p);
    r[7].value = NAN;
    assert_int_equal(bench__history_judge(r, n, BENCH__HIST_BASELINE_RUN, 7, &p, &v, NULL, NULL),
                     BENCH_EINVAL);
    assert_int_equal(bench__history_judge(r, n, BENCH__HIST_BASELINE_RUN, n, &p, &v, NULL, NULL),
                     BENCH_EINVAL);
    assert_int_equal(bench__history_judge(r, n, (enum bench__hist_mode)9, 0, &p, &v, NULL, NULL),
                     BENCH_EINVAL);
}

static void test_unmeasured(void **state)
{
    (void)state;
    struct bench__cp_run r[4] = {{100, 3, 1}, {NAN, 0, NAN}};
    struct bench__hist_verdict v = judge(r, 2, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_UNMEASURED, "no_value", SIZE_MAX);
    assert_true(isnan(v.delta_ns) && isnan(v.slower_pct));
    v = judge(r, 1, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_UNMEASURED, "no_history", SIZE_MAX);
    v = judge(r, 0, BENCH__HIST_SEGMENTS, 0);
    assert_verdict(v, BENCH__RESULT_UNMEASURED, "no_value", SIZE_MAX);
    /* the change points come back to the caller when asked */
    struct bench__cp_run s[64];
    struct bench__changepoint cps[64];
    size_t n = series(s, (double[]){100, 120}, (size_t[]){20, 10}, 2), k = 0;
    struct bench__hist_params p;
    bench__hist_defaults(&p);
    assert_int_equal(bench__history_judge(s, n, BENCH__HIST_SEGMENTS, 0, &p, &v, cps, &k), 0);
    assert_int_equal(k, 1);
    assert_int_equal(cps[0].index, 20);
    assert_int_equal(v.n_changes, 1);
}

/* ---- the simulation (benchmarks/history_detect/, small) -------------------------------- */

/* The scripted week of the issue, 10 fixed-seed weeks (40 stepped rows): most stepped rows read
 * "regressed since day 5" on days 5, 6 and 7 (day 5 alone needs its one run to be unmistakable),
 * every disturbed day-7 row is at most a watch, no untouched row is a regression; today's rule
 * forgets the step on day 6 and flags most day-7 noise. One week of 4 stepped rows said too
 * little: each row holds all three days with a probability of about 0.9. */
static void test_week(void **state)
{
    (void)state;
    struct hsim_week w;
    hsim_run_week(UINT64_C(20261108), 10, 3, 0.02, 10, &w);
    assert_int_equal(w.stepped, 40);
    assert_int_equal(w.stepped_held, 33);
    assert_int_equal(w.stepped_day[0], 34);
    assert_int_equal(w.stepped_day[1], 34);
    assert_int_equal(w.stepped_day[2], 38);
    assert_int_equal(w.noisy, 20);
    assert_int_equal(w.noisy_at_most_watch, 20);
    assert_int_equal(w.plain_false, 0);
    assert_int_equal(w.prev_stepped_day[1], 0); /* today's rule: ok from day 6 on */
    assert_int_equal(w.prev_stepped_day[2], 0);
    assert_int_equal(w.prev_noisy_flagged, 17); /* the noise rows */
}

/* The figures of a small run of the benchmark, pinned: any change to the detector, the states
 * or the simulation shows here. Invariants first (they say what the figures mean), then the
 * counts. */
static void test_simulation_pinned(void **state)
{
    (void)state;
    struct hsim_config c;
    hsim_defaults(&c);
    c.per_family = 10;
    static struct hsim_score sc[HSIM_RULES][HSIM_FAMILIES];
    hsim_run(&c, sc);
    const struct hsim_score *noise_new = &sc[HSIM_NEW][HSIM_NOISE];
    const struct hsim_score *noise_prev = &sc[HSIM_PREVIOUS][HSIM_NOISE];
    assert_int_equal(noise_new->series, 20);
    assert_int_equal(noise_new->judged_runs, 20 * 50);
    /* at most 1 false alert per 100 runs, far fewer than today's rule on the same series */
    assert_true(noise_new->false_alerts * 100 <= noise_new->judged_runs);
    assert_true(noise_prev->false_alerts > 10 * (noise_new->false_alerts + 1));
    /* Perfherder waits for 12 runs after the change: never within 3 */
    for (int f = HSIM_STEP2; f <= HSIM_STEP10; f++)
        assert_int_equal(sc[HSIM_PERFHERDER][f].found_within3, 0);
    /* the new rule finds every 10% step within 3 runs */
    assert_int_equal(sc[HSIM_NEW][HSIM_STEP10].found_within3, 10);

    /* judged runs, true alerts, false alerts, found within 3 runs, wrongly red runs; rules in
     * the order new, previous run, Perfherder; families in hsim_family order */
    static const size_t want[HSIM_RULES * HSIM_FAMILIES][5] = {
        {1000, 0, 3, 0, 7},     /* rule 0 family 0 */
        {500, 2, 5, 1, 0},      /* rule 0 family 1 */
        {500, 10, 1, 9, 1},     /* rule 0 family 2 */
        {500, 10, 2, 10, 5},    /* rule 0 family 3 */
        {250, 0, 3, 0, 7},      /* rule 0 family 4 */
        {250, 0, 5, 0, 14},     /* rule 0 family 5 */
        {1000, 0, 223, 0, 223}, /* rule 1 family 0 */
        {500, 7, 100, 7, 50},   /* rule 1 family 1 */
        {500, 9, 117, 9, 50},   /* rule 1 family 2 */
        {500, 10, 97, 10, 51},  /* rule 1 family 3 */
        {250, 0, 56, 0, 56},    /* rule 1 family 4 */
        {250, 0, 58, 0, 58},    /* rule 1 family 5 */
        {1000, 0, 0, 0, 0},     /* rule 2 family 0 */
        {500, 0, 0, 0, 0},      /* rule 2 family 1 */
        {500, 6, 1, 0, 0},      /* rule 2 family 2 */
        {500, 10, 1, 0, 0},     /* rule 2 family 3 */
        {250, 0, 0, 0, 0},      /* rule 2 family 4 */
        {250, 0, 0, 0, 0},      /* rule 2 family 5 */
    };
    for (int r = 0; r < HSIM_RULES; r++)
        for (int f = 0; f < HSIM_FAMILIES; f++) {
            const struct hsim_score *g = &sc[r][f];
            const size_t *w = want[r * HSIM_FAMILIES + f];
            size_t got[5] = {g->judged_runs, g->true_alerts, g->false_alerts, g->found_within3,
                             g->red_runs_false};
            for (int i = 0; i < 5; i++)
                if (got[i] != w[i])
                    fail_msg("%s, %s: figure %d is %zu, pinned %zu",
                             hsim_rule_name((enum hsim_rule)r),
                             hsim_family_name((enum hsim_family)f), i, got[i], w[i]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_student_p),
        cmocka_unit_test(test_student_test),
        cmocka_unit_test(test_hl_shift),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_clean_step),
        cmocka_unit_test(test_no_step),
        cmocka_unit_test(test_two_steps),
        cmocka_unit_test(test_outlier),
        cmocka_unit_test(test_missing_and_invalid),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_regressed_until_restored),
        cmocka_unit_test(test_one_run),
        cmocka_unit_test(test_confirmed_by_next_runs),
        cmocka_unit_test(test_below_threshold),
        cmocka_unit_test(test_latest_vs_previous),
        cmocka_unit_test(test_baseline_run_and_since),
        cmocka_unit_test(test_unmeasured),
        cmocka_unit_test(test_week),
        cmocka_unit_test(test_simulation_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
