/* SPDX-License-Identifier: MIT */
/* test_sensitivity.c: what a comparison could have seen (lib/stats/sensitivity.c): the runs
 * that would likely bring an A/A floor under --detect (by hand and by simulation), the stopping
 * rule of --runs=auto, and A/A/A families (three arms of one distribution) run under that rule:
 * the share of families with a claimed change must stay at most q. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- deterministic noise ------------------------------------------------------------------ */

static double uniform(struct bench__rng *g)
{
    return ((double)(bench__rng_next(g) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double gaussian(struct bench__rng *g)
{
    double u = uniform(g), v = uniform(g);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* The noise of one subject's process run: a small phase shared by every cell of the process,
 * and now and then a burst of load that slows the whole process by 10% to 60%. */
struct process_noise {
    double phase, burst;
};

static struct process_noise process_run(struct bench__rng *g)
{
    struct process_noise p = {0.015 * gaussian(g), 1.0};
    if (uniform(g) < 0.05)
        p.burst = 1.1 + 0.5 * uniform(g);
    return p;
}

/* One cell's per-run median: lognormal around `level` with the cell's own spread. */
static double value(struct bench__rng *g, double level, double sigma, struct process_noise p)
{
    return level * exp(p.phase + sigma * gaussian(g)) * p.burst;
}

/* ---- bench__floor_runs_needed by hand ------------------------------------------------------ */

static void test_floor_runs_by_hand(void **state)
{
    (void)state;
    uint64_t runs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    /* ln v − its arm's median: 0, ±0.1, ±0.2 in both arms. The pooled deviations are
     * 0 0 .1 .1 .1 .1 .2 .2 .2 .2, their median 0.1, s = 0.14826; (7 s / 0.1)² = 107.71. */
    double b[5], a[5];
    static const double dev[5] = {0.0, 0.1, -0.1, 0.2, -0.2};
    for (size_t i = 0; i < 5; i++) {
        b[i] = 100.0 * exp(dev[i]);
        a[i] = 50.0 * exp(dev[4 - i]);
    }
    struct bench__arm B = {b, runs, 5}, A = {a, runs, 5};
    assert_int_equal(bench__floor_runs_needed(&B, &A, 0.10), 108);
    assert_int_equal(bench__floor_runs_needed(&B, &A, 0.20), 27); /* (7 s / 0.2)² = 26.93 */
    assert_int_equal(bench__floor_runs_needed(&B, &A, 0.50), 6);  /* 4.3: one more run at least */

    /* No spread at all: one more run than the smaller arm. */
    double same[7] = {10, 10, 10, 10, 10, 10, 10};
    struct bench__arm S7 = {same, runs, 7}, S4 = {same, runs, 4};
    assert_int_equal(bench__floor_runs_needed(&S7, &S4, 0.10), 5);
    /* No requirement: the same. */
    assert_int_equal(bench__floor_runs_needed(&B, &A, INFINITY), 6);
    /* A huge spread asked for a tiny change: capped. */
    assert_int_equal(bench__floor_runs_needed(&B, &A, 1e-9), BENCH__FLOOR_RUNS_MAX);
    /* Nothing to estimate from. */
    struct bench__arm E = {b, runs, 0};
    assert_int_equal(bench__floor_runs_needed(&E, &A, 0.10), 0);
    assert_int_equal(bench__floor_runs_needed(&B, &A, 0.0), 0);
    assert_int_equal(bench__floor_runs_needed(&B, &A, NAN), 0);
}

/* ---- bench__floor_runs_needed against simulated runs -------------------------------------- */

static double aa_floor(const double *b, const double *a, const uint64_t *runs, size_t n,
                       uint64_t seed)
{
    struct bench__arm B = {b, runs, n}, A = {a, runs, n};
    double lo, hi;
    bool paired;
    bench__bootstrap_ci(&B, &A, seed, 10000, 0.05, &lo, &hi, &paired);
    return fmax(0.03, fmax(fabs(lo), fabs(hi)));
}

/* Cells of several spreads measured 5 times; for each whose floor is above 10%, a fresh
 * measurement with the estimated number of runs. The estimate says "likely": at least half of
 * those floors must then be under 10%. It must not be wildly generous either: at a quarter of
 * the estimate, most floors must still be above. */
static void test_floor_runs_simulated(void **state)
{
    (void)state;
    enum { CELLS = 150, CAP = 400 };
    static const double sigmas[] = {0.03, 0.05, 0.08};
    static double b[CAP], a[CAP];
    static uint64_t runs[CAP];
    for (size_t i = 0; i < CAP; i++)
        runs[i] = i + 1;
    struct bench__rng g = {20260131};
    unsigned above = 0, under_at_estimate = 0, under_at_quarter = 0, capped = 0;
    unsigned estimates[CELLS];
    for (unsigned c = 0; c < CELLS; c++) {
        double sigma = sigmas[c % N_OF(sigmas)];
        for (size_t r = 0; r < 5; r++) {
            struct process_noise p = process_run(&g);
            b[r] = value(&g, 100, sigma, p);
            a[r] = value(&g, 100, sigma, process_run(&g));
        }
        if (aa_floor(b, a, runs, 5, bench__rng_next(&g)) <= 0.10)
            continue;
        struct bench__arm B = {b, runs, 5}, A = {a, runs, 5};
        unsigned want = bench__floor_runs_needed(&B, &A, 0.10);
        assert_true(want >= 6);
        estimates[above++] = want;
        if (want > CAP) {
            capped++;
            want = CAP;
        }
        for (int pass = 0; pass < 2; pass++) {
            size_t n = pass == 0 ? want : (want / 4 > 5 ? want / 4 : 5);
            for (size_t r = 0; r < n; r++) {
                b[r] = value(&g, 100, sigma, process_run(&g));
                a[r] = value(&g, 100, sigma, process_run(&g));
            }
            bool under = aa_floor(b, a, runs, n, bench__rng_next(&g)) <= 0.10;
            if (pass == 0)
                under_at_estimate += under;
            else
                under_at_quarter += under;
        }
    }
    unsigned sorted[CELLS];
    memcpy(sorted, estimates, above * sizeof *sorted);
    for (unsigned i = 1; i < above; i++)
        for (unsigned j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            unsigned t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    printf("[ ESTIMATE ] %u of %u cells had a floor above 10%% at 5 runs; estimated runs: median "
           "%u, max %u (%u above %d)\n",
           above, (unsigned)CELLS, sorted[above / 2], sorted[above - 1], capped, CAP);
    printf("[ ESTIMATE ] floor under 10%% with the estimated runs: %u of %u (%.1f%%); with a "
           "quarter of them: %u (%.1f%%)\n",
           under_at_estimate, above, 100.0 * under_at_estimate / above, under_at_quarter,
           100.0 * under_at_quarter / above);
    assert_true(above >= 50);
    assert_true(2 * under_at_estimate >= above);
    assert_true(2 * under_at_quarter < above);
}

/* ---- the stopping rule ------------------------------------------------------------------ */

static void test_auto_rule(void **state)
{
    (void)state;
    struct bench__cmp_params pp;
    bench__cmp_defaults(&pp);
    pp.subj_b = "baseline";
    pp.subj_c = "candidate";
    pp.subj_a = "aa";
    static const double quiet_b[] = {100, 101, 99, 100.5, 99.5, 100.2};
    static const double quiet_a[] = {100.2, 99.8, 100.6, 99.4, 100.1, 100.3};
    static const double noisy_a[] = {127, 97, 112, 101, 138, 90};
    static const uint64_t runs[] = {1, 2, 3, 4, 5, 6};
    struct bench__aa_cell cells[12];
    for (size_t i = 0; i < N_OF(cells); i++)
        cells[i] = (struct bench__aa_cell){"cell", "", {quiet_b, runs, 5}, {quiet_a, runs, 5}, 5};
    bool more = true;
    size_t pending = 99, bad = 0;

    /* quiet cells, a family of 1: done at 5 runs */
    assert_int_equal(bench__auto_more_runs(&pp, cells, 1, 5, &more, &pending, &bad), 0);
    assert_false(more);
    assert_int_equal(pending, 0);
    /* a noisy A/A arm: its floor is above 10%, more runs */
    cells[0].aa.values = noisy_a;
    assert_int_equal(bench__auto_more_runs(&pp, cells, 1, 5, &more, &pending, &bad), 0);
    assert_true(more);
    assert_int_equal(pending, 1);
    /* ... unless 50% is all the user needs */
    pp.detect = 0.50;
    assert_int_equal(bench__auto_more_runs(&pp, cells, 1, 5, &more, &pending, &bad), 0);
    assert_false(more);
    pp.detect = 0.10;
    cells[0].aa.values = quiet_a;
    /* too few runs in an arm, the candidate's included: more */
    cells[0].n_candidate = 2;
    assert_int_equal(bench__auto_more_runs(&pp, cells, 1, 5, &more, &pending, &bad), 0);
    assert_true(more);
    /* an arm with no value at all (a cell only in the candidate): not waited for */
    cells[0].n_candidate = 5;
    cells[1].base.n = 0;
    cells[1].aa.n = 0;
    assert_int_equal(bench__auto_more_runs(&pp, cells, 2, 5, &more, &pending, &bad), 0);
    assert_false(more);
    cells[1].base.n = cells[1].aa.n = 5;
    /* 12 quiet cells at 5 runs: BH needs 6 runs per arm for a family of 7 to 23 */
    assert_int_equal(bench__auto_more_runs(&pp, cells, 12, 5, &more, &pending, &bad), 0);
    assert_true(more);
    assert_int_equal(pending, 0);
    for (size_t i = 0; i < N_OF(cells); i++)
        cells[i].base.n = cells[i].aa.n = cells[i].n_candidate = 6;
    assert_int_equal(bench__auto_more_runs(&pp, cells, 12, 6, &more, &pending, &bad), 0);
    assert_false(more);
    /* bad input: named */
    static const double zero[] = {100, 0, 100, 100, 100};
    cells[3].aa = (struct bench__arm){zero, runs, 5};
    assert_int_equal(bench__auto_more_runs(&pp, cells, 12, 6, &more, &pending, &bad), BENCH_EINVAL);
    assert_int_equal(bad, 3);
}

/* The rule's floor is the engine's floor: stopping because every floor is under --detect means
 * the judged cells have those very floors. */
static void test_auto_floor_is_engine_floor(void **state)
{
    (void)state;
    struct bench__cmp_params pp;
    bench__cmp_defaults(&pp);
    pp.subj_b = "baseline";
    pp.subj_c = "candidate";
    pp.subj_a = "aa";
    static const double b[] = {100, 109, 96, 104, 101, 99, 103};
    static const double c[] = {150, 151, 149, 152, 148, 150, 151};
    static const double a[] = {104, 97, 111, 100, 95, 102, 106};
    static const uint64_t runs[] = {1, 2, 3, 4, 5, 6, 7};
    for (size_t n = 5; n <= 7; n++) {
        struct bench__cmp_cell_in in = {"x", "k=v", {b, runs, n}, {c, runs, n}, {a, runs, n}};
        struct bench__cmp_cell_out out;
        struct bench__cmp_result res;
        size_t bad;
        assert_int_equal(bench__compare(&pp, &in, 1, &out, &res, &bad), 0);
        for (int side = 0; side < 2; side++) { /* detect just under and at the engine's floor */
            pp.detect = side == 0 ? nextafter(out.floor, 0) : out.floor;
            struct bench__aa_cell cell = {"x", "k=v", in.base, in.aa, n};
            bool more;
            assert_int_equal(bench__auto_more_runs(&pp, &cell, 1, n, &more, NULL, &bad), 0);
            assert_int_equal(more, side == 0);
        }
        pp.detect = 0.10;
    }
}

/* ---- A/A/A families under --runs=auto ------------------------------------------------------ */

enum { FAMILIES = 240, CELLS = 4, RUNS_START = 5, RUNS_MAX = 30 };

struct aaa_family {
    double values[3][CELLS][RUNS_MAX]; /* baseline, candidate, aa */
    uint64_t runs[RUNS_MAX];
};

/* Three arms of one distribution, run by run: every subject's process run has its own phase and
 * bursts; each cell its own level and spread (quiet to noisy). `shift` slows the candidate's
 * cell 1 (0 for A/A/A). */
static void aaa_run(struct bench__rng *g, struct aaa_family *f, size_t r, const double *sigma,
                    double shift)
{
    for (size_t s = 0; s < 3; s++) {
        struct process_noise p = process_run(g);
        for (size_t c = 0; c < CELLS; c++)
            f->values[s][c][r] = value(g, 100.0 * (double)(c + 1), sigma[c], p) *
                                 (s == 1 && c == 1 ? 1.0 + shift : 1.0);
    }
    f->runs[r] = r + 1;
}

static void cells_in(const struct aaa_family *f, size_t n, const char *const *names,
                     struct bench__cmp_cell_in *in)
{
    for (size_t c = 0; c < CELLS; c++)
        in[c] = (struct bench__cmp_cell_in){names[c],
                                            "",
                                            {f->values[0][c], f->runs, n},
                                            {f->values[1][c], f->runs, n},
                                            {f->values[2][c], f->runs, n}};
}

static bool any_claim(const struct bench__cmp_cell_out *out)
{
    for (size_t c = 0; c < CELLS; c++)
        if (out[c].state == BENCH__CMP_CLAIMED)
            return true;
    return false;
}

struct families_seen {
    unsigned families, claimed, regression, claimed_at_start, at_max;
    unsigned verdicts[3]; /* PASS, REGRESSION, UNMEASURED */
    unsigned stop_hist[RUNS_MAX + 1];
};

/* `count` families under the auto rule: add a run, ask the rule, judge once it says stop. */
static void run_families(unsigned count, double shift, uint64_t seed, struct families_seen *seen)
{
    static const char *const names[CELLS] = {"parse", "hash", "copy", "sort"};
    static const double spreads[][CELLS] = {
        {0.01, 0.02, 0.03, 0.05}, {0.02, 0.04, 0.06, 0.08}, {0.03, 0.05, 0.08, 0.12}};
    struct bench__cmp_params pp;
    bench__cmp_defaults(&pp); /* q 0.05, detect 10%, 10 000 resamples: the tool's defaults */
    pp.subj_b = "baseline";
    pp.subj_c = "candidate";
    pp.subj_a = "aa";
    static struct aaa_family f;
    struct bench__rng g = {seed};
    memset(seen, 0, sizeof *seen);
    seen->families = count;
    for (unsigned fam = 0; fam < count; fam++) {
        const double *sigma = spreads[fam % N_OF(spreads)];
        pp.global_seed = fam; /* every family its own bootstrap streams, as --seed would */
        size_t n = 0;
        bool more = true;
        struct bench__cmp_cell_in in[CELLS];
        struct bench__cmp_cell_out out[CELLS];
        struct bench__cmp_result res;
        size_t bad;
        while (n < RUNS_MAX && more) {
            aaa_run(&g, &f, n++, sigma, shift);
            if (n == RUNS_START) { /* what a fixed --runs 5 would have claimed */
                cells_in(&f, n, names, in);
                assert_int_equal(bench__compare(&pp, in, CELLS, out, &res, &bad), 0);
                seen->claimed_at_start += any_claim(out);
            }
            if (n < RUNS_START)
                continue;
            /* the rule sees the baseline and A/A arms and the candidate's count only */
            struct bench__aa_cell aa[CELLS];
            for (size_t c = 0; c < CELLS; c++)
                aa[c] = (struct bench__aa_cell){
                    names[c], "", {f.values[0][c], f.runs, n}, {f.values[2][c], f.runs, n}, n};
            assert_int_equal(bench__auto_more_runs(&pp, aa, CELLS, n, &more, NULL, &bad), 0);
        }
        seen->stop_hist[n]++;
        seen->at_max += more;
        cells_in(&f, n, names, in);
        assert_int_equal(bench__compare(&pp, in, CELLS, out, &res, &bad), 0);
        seen->claimed += any_claim(out);
        seen->regression += res.exit_code == 1;
        seen->verdicts[res.exit_code]++;
    }
}

static size_t median_stop(const struct families_seen *seen)
{
    size_t n = 0, counted = 0;
    for (; n <= RUNS_MAX; n++) {
        counted += seen->stop_hist[n];
        if (counted * 2 >= seen->families)
            break;
    }
    return n;
}

/* The one-sided 95% upper confidence bound of a binomial rate with k of n (Clopper-Pearson):
 * the p at which P(X <= k) = 0.05, by bisection. */
static double rate_upper_bound(unsigned k, unsigned n)
{
    double lo = (double)k / n, hi = 1.0;
    for (int it = 0; it < 60; it++) {
        double p = (lo + hi) / 2, cdf = 0, term = pow(1 - p, n); /* P(X = 0) */
        for (unsigned x = 0; x <= k; x++) {
            cdf += term;
            term *= (double)(n - x) / (x + 1) * p / (1 - p);
        }
        if (cdf > 0.05)
            lo = p;
        else
            hi = p;
    }
    return hi;
}

static void test_aaa_families_under_auto(void **state)
{
    (void)state;
    struct families_seen null, effect;
    run_families(240, 0.0, 0xAAA0, &null);
    double share = (double)null.claimed / null.families;
    printf("[ A/A/A    ] %u families of %d cells, three arms of one distribution (lognormal "
           "spreads 1%%-12%%, a shared phase per process run, 5%% of process runs slowed by "
           "10%%-60%%), --runs=auto:%d, --detect=10, q 0.05\n",
           null.families, CELLS, RUNS_MAX);
    printf("[ A/A/A    ] stopped after a median of %zu runs; %u families reached %d runs\n",
           median_stop(&null), null.at_max, RUNS_MAX);
    printf("[ A/A/A    ] families with a claimed change: %u of %u = %.2f%% (95%% upper bound "
           "%.2f%%; q = 5%%); verdict REGRESSION: %u; at a fixed 5 runs: %u claimed\n",
           null.claimed, null.families, 100.0 * share,
           100.0 * rate_upper_bound(null.claimed, null.families), null.regression,
           null.claimed_at_start);
    printf("[ A/A/A    ] verdicts: PASS %u, REGRESSION %u, UNMEASURED %u\n", null.verdicts[0],
           null.verdicts[1], null.verdicts[2]);
    assert_true(share <= 0.05);

    /* The same harness claims a real change (it is not silent by construction), and how often
     * a change near --detect is caught once every floor is under it. */
    static const double shifts[] = {0.10, 0.15, 0.20};
    for (size_t i = 0; i < N_OF(shifts); i++) {
        run_families(40, shifts[i], 0xEFF0 + i, &effect);
        printf("[ A/A/A    ] control: the candidate %.0f%% slower in one cell: %u of %u families "
               "claimed a change (median %zu runs); verdicts PASS %u, REGRESSION %u, "
               "UNMEASURED %u\n",
               100 * shifts[i], effect.claimed, effect.families, median_stop(&effect),
               effect.verdicts[0], effect.verdicts[1], effect.verdicts[2]);
    }
    assert_true(effect.claimed * 2 > effect.families); /* the 20% one */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_runs_by_hand),
        cmocka_unit_test(test_floor_runs_simulated),
        cmocka_unit_test(test_auto_rule),
        cmocka_unit_test(test_auto_floor_is_engine_floor),
        cmocka_unit_test(test_aaa_families_under_auto),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
