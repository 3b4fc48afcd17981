/* SPDX-License-Identifier: MIT */
/* test_protocol.c: the statistics (bench__summarize) and the batched-timing sampler (the
 * doubling, its confirmed stop, pinned counts, the 2^40 cap), driven by a fake clock that
 * reports elapsed ns for each sample. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bench/measuring/sampler.h"
#include "suite/config.h"
#include "model/summary.h"

#include <math.h>
#include <string.h>

#define assert_double_exact(a, b)                                                                  \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(a_ == b_))                                                                           \
            fail_msg("%s == %.17g, want %.17g", #a, a_, b_);                                       \
    } while (0)

/* ---- bench__summarize ------------------------------------------------------------------ */

static struct bench__summary summarize_copy(const double *values, size_t n)
{
    double tmp[64];
    assert_true(n <= 64);
    memcpy(tmp, values, n * sizeof *values);
    return bench__summarize(tmp, n);
}

static void test_summarize_odd(void **state)
{
    (void)state;
    /* sorted 1 2 3 4 5: median 3; |x-3| = 0 1 1 2 2 -> MAD 1 */
    static const double v[] = {5, 1, 4, 2, 3};
    struct bench__summary s = summarize_copy(v, 5);
    assert_double_exact(s.median, 3.0);
    assert_double_exact(s.mad, 1.0);
    assert_double_exact(s.min, 1.0);
    assert_double_exact(s.max, 5.0);
}

static void test_summarize_even_median_is_mean_of_middle_two(void **state)
{
    (void)state;
    /* sorted 1 2 3 10: median (2+3)/2 = 2.5 (the mean would be 4); |x-2.5| = 1.5 0.5 0.5
     * 7.5 -> sorted 0.5 0.5 1.5 7.5 -> MAD (0.5+1.5)/2 = 1 */
    static const double v[] = {10, 2, 1, 3};
    struct bench__summary s = summarize_copy(v, 4);
    assert_double_exact(s.median, 2.5);
    assert_double_exact(s.mad, 1.0);
    assert_double_exact(s.min, 1.0);
    assert_double_exact(s.max, 10.0);

    /* fractional values, exact in binary */
    static const double f[] = {1.0, 0.25, 0.75, 0.5};
    s = summarize_copy(f, 4);
    assert_double_exact(s.median, 0.625);
    assert_double_exact(s.mad, 0.25);
    assert_double_exact(s.min, 0.25);
    assert_double_exact(s.max, 1.0);

    /* negative values and an outlier: sorted -5 1 3 1000 -> median 2 */
    static const double o[] = {1000, -5, 3, 1};
    s = summarize_copy(o, 4);
    assert_double_exact(s.median, 2.0);
    /* |x-2| = 998 7 1 1 -> sorted 1 1 7 998 -> MAD 4 */
    assert_double_exact(s.mad, 4.0);
    assert_double_exact(s.min, -5.0);
    assert_double_exact(s.max, 1000.0);
}

static void test_summarize_mad_has_no_consistency_factor(void **state)
{
    (void)state;
    /* median 2; |x-2| = 1 1 0 0 2 4 7 -> sorted 0 0 1 1 2 4 7 -> MAD 1 (not 1.4826) */
    static const double v[] = {1, 1, 2, 2, 4, 6, 9};
    struct bench__summary s = summarize_copy(v, 7);
    assert_double_exact(s.median, 2.0);
    assert_double_exact(s.mad, 1.0);
    assert_double_exact(s.min, 1.0);
    assert_double_exact(s.max, 9.0);
}

static void test_summarize_single_and_constant(void **state)
{
    (void)state;
    static const double one[] = {7.5};
    struct bench__summary s = summarize_copy(one, 1);
    assert_double_exact(s.median, 7.5);
    assert_double_exact(s.mad, 0.0);
    assert_double_exact(s.min, 7.5);
    assert_double_exact(s.max, 7.5);

    double same[BENCH__SAMPLE_COUNT];
    for (size_t i = 0; i < BENCH__SAMPLE_COUNT; i++)
        same[i] = 100.0;
    s = bench__summarize(same, BENCH__SAMPLE_COUNT);
    assert_double_exact(s.median, 100.0);
    assert_double_exact(s.mad, 0.0);
    assert_double_exact(s.min, 100.0);
    assert_double_exact(s.max, 100.0);
}

static void test_summarize_empty_is_all_nan(void **state)
{
    (void)state;
    double unused[1] = {42.0};
    struct bench__summary s = bench__summarize(unused, 0);
    assert_true(isnan(s.median));
    assert_true(isnan(s.mad));
    assert_true(isnan(s.min));
    assert_true(isnan(s.max));
}

/* Every permutation of the input gives the identical summary (Heap's algorithm). */
static void check_all_permutations(const double *values, size_t n, struct bench__summary want)
{
    double a[8];
    size_t c[8] = {0};
    assert_true(n <= 8);
    memcpy(a, values, n * sizeof *a);
    size_t checked = 0;
    for (size_t i = 0;;) {
        struct bench__summary s = summarize_copy(a, n);
        assert_double_exact(s.median, want.median);
        assert_double_exact(s.mad, want.mad);
        assert_double_exact(s.min, want.min);
        assert_double_exact(s.max, want.max);
        checked++;
        while (i < n && c[i] >= i) {
            c[i] = 0;
            i++;
        }
        if (i >= n)
            break;
        size_t j = i % 2 ? c[i] : 0;
        double t = a[j];
        a[j] = a[i];
        a[i] = t;
        c[i]++;
        i = 1;
    }
    size_t fact = 1;
    for (size_t k = 2; k <= n; k++)
        fact *= k;
    assert_int_equal(checked, fact);
}

static void test_summarize_input_order_irrelevant(void **state)
{
    (void)state;
    static const double odd[] = {5, 1, 4, 2, 3};
    check_all_permutations(odd, 5, (struct bench__summary){3.0, 1.0, 1.0, 5.0});
    /* sorted 1 2 3 10 20 40: median 6.5; |x-6.5| = 5.5 4.5 3.5 3.5 13.5 33.5 -> sorted
     * 3.5 3.5 4.5 5.5 13.5 33.5 -> MAD 5 */
    static const double even[] = {40, 3, 1, 20, 10, 2};
    check_all_permutations(even, 6, (struct bench__summary){6.5, 5.0, 1.0, 40.0});
}

/* ---- the sampler, on a fake clock ------------------------------------------------------ */

#define MAX_STEPS 4096

struct trace {
    size_t steps;
    uint64_t count[MAX_STEPS]; /* iterations per sample at each step */
};

/* Drive the sampler with a body that costs `ns_per_iter` per iteration: each sample's
 * elapsed time is ns_per_iter * count, except that the samples whose step index (from 0) has
 * its bit set in `slow_steps` take `slow_factor` times as long (a preempted sample). Records
 * the count of every timed sample. */
static void run_fake_slow(struct bench__sampler *s, struct trace *t, int64_t budget_ns,
                          uint64_t pin, int64_t ns_per_iter, uint64_t slow_steps,
                          int64_t slow_factor)
{
    memset(t, 0, sizeof *t);
    bench__sampler_start(s, budget_ns, pin);
    for (;;) {
        assert_true(t->steps < MAX_STEPS);
        size_t step = t->steps;
        t->count[t->steps++] = s->count;
        int64_t elapsed = ns_per_iter * (int64_t)s->count;
        if (step < 64 && (slow_steps >> step & 1))
            elapsed *= slow_factor;
        if (!bench__sampler_step(s, elapsed))
            break;
    }
}

static void run_fake(struct bench__sampler *s, struct trace *t, int64_t budget_ns, uint64_t pin,
                     int64_t ns_per_iter)
{
    run_fake_slow(s, t, budget_ns, pin, ns_per_iter, 0, 1);
}

static void test_sampler_doubles_from_one_until_budget(void **state)
{
    (void)state;
    struct bench__sampler s;
    struct trace t;
    /* 10 ns/iter, budget 1000 ns: 1..64 are short (10..640 ns), 128 takes 1280 ns, and a
     * second sample at 128 confirms it (both discarded) */
    run_fake(&s, &t, 1000, 0, 10);
    static const uint64_t scaling[] = {1, 2, 4, 8, 16, 32, 64, 128, 128};
    assert_int_equal(t.steps, 9 + BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(t.count[i], scaling[i]);
    for (size_t i = 9; i < t.steps; i++)
        assert_int_equal(t.count[i], 128);
    assert_int_equal(s.count, 128);
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i < BENCH__SAMPLE_COUNT; i++)
        assert_double_exact(s.samples[i], 10.0);
}

/* The sample that reaches the budget, confirmed by a second one at the same count, ends
 * doubling; both are discarded; exactly 32 samples follow at that count, each elapsed/count. */
static void test_sampler_discards_the_budget_sample(void **state)
{
    (void)state;
    struct bench__sampler s;
    bench__sampler_start(&s, 1000, 0);
    assert_int_equal(s.count, 1);
    assert_true(bench__sampler_step(&s, 999)); /* shorter than the budget: double */
    assert_int_equal(s.count, 2);
    assert_int_equal(s.n, 0);
    assert_true(bench__sampler_step(&s, 1000)); /* not shorter: confirm at the same count */
    assert_int_equal(s.count, 2);
    assert_int_equal(s.n, 0);
    assert_true(bench__sampler_step(&s, 1200)); /* confirmed: stop, discard both */
    assert_int_equal(s.count, 2);
    assert_int_equal(s.n, 0);
    for (int i = 0; i < BENCH__SAMPLE_COUNT; i++) {
        bool more = bench__sampler_step(&s, 2 * (500 + i));
        assert_int_equal(s.count, 2);
        assert_int_equal(s.n, (size_t)i + 1);
        assert_int_equal(more, i + 1 < BENCH__SAMPLE_COUNT);
    }
    for (int i = 0; i < BENCH__SAMPLE_COUNT; i++)
        assert_double_exact(s.samples[i], (double)(500 + i));

    /* a first sample already at the budget, and its confirmation, keep count 1 */
    bench__sampler_start(&s, 1000, 0);
    assert_true(bench__sampler_step(&s, 5000));
    assert_true(bench__sampler_step(&s, 5000));
    assert_int_equal(s.count, 1);
    assert_int_equal(s.n, 0);
    assert_true(bench__sampler_step(&s, 4000));
    assert_int_equal(s.n, 1);
    assert_double_exact(s.samples[0], 4000.0);
}

static void test_sampler_sample_is_elapsed_over_count_as_double(void **state)
{
    (void)state;
    struct bench__sampler s;
    /* not integer-truncated: 7 ns over 2 iterations is 3.5 */
    bench__sampler_start(&s, 100, 0);
    assert_true(bench__sampler_step(&s, 1));   /* count 1 -> 2 */
    assert_true(bench__sampler_step(&s, 200)); /* reaches the budget at 2: discarded */
    assert_true(bench__sampler_step(&s, 200)); /* and again: confirmed, discarded */
    assert_true(bench__sampler_step(&s, 7));
    assert_double_exact(s.samples[0], 3.5);

    bench__sampler_start(&s, 5000000, 3);
    for (int i = 0; i < BENCH__SAMPLE_COUNT; i++)
        (void)bench__sampler_step(&s, 10 + i);
    for (int i = 0; i < BENCH__SAMPLE_COUNT; i++)
        assert_double_exact(s.samples[i], (double)(10 + i) / 3.0);
    assert_double_exact(s.samples[0], 10.0 / 3.0);
}

static void test_sampler_cap_stops_doubling(void **state)
{
    (void)state;
    struct bench__sampler s;
    struct trace t;
    /* a body that takes no time never reaches the budget: doubling stops at 2^40 */
    run_fake(&s, &t, INT64_MAX, 0, 0);
    assert_int_equal(t.steps, 41 + BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i <= 40; i++)
        assert_int_equal(t.count[i], 1ULL << i);
    for (size_t i = 41; i < t.steps; i++)
        assert_int_equal(t.count[i], BENCH__MAX_SCALED_ITERATIONS);
    assert_int_equal(s.count, 1ULL << 40);
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i < BENCH__SAMPLE_COUNT; i++)
        assert_double_exact(s.samples[i], 0.0);
}

static void test_sampler_pinned_count_never_scales(void **state)
{
    (void)state;
    struct bench__sampler s;
    /* pin 1000, each sample far below the 5 ms budget: no doubling, no discard */
    bench__sampler_start(&s, 5000000, 1000);
    assert_int_equal(s.count, 1000);
    for (int i = 0; i < BENCH__SAMPLE_COUNT; i++) {
        bool more = bench__sampler_step(&s, 100);
        assert_int_equal(s.count, 1000);
        assert_int_equal(s.n, (size_t)i + 1);
        assert_int_equal(more, i + 1 < BENCH__SAMPLE_COUNT);
    }
    for (int i = 0; i < BENCH__SAMPLE_COUNT; i++)
        assert_double_exact(s.samples[i], 0.1);

    /* a pinned count of 1 is still pinned (not auto-scaled from 1) */
    struct trace t;
    run_fake(&s, &t, 5000000, 1, 100);
    assert_int_equal(t.steps, BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i < t.steps; i++)
        assert_int_equal(t.count[i], 1);
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);
    assert_double_exact(s.samples[0], 100.0);

    /* a pinned count whose samples exceed the budget: still exactly 32, none dropped */
    run_fake(&s, &t, 1000, 1000, 100);
    assert_int_equal(t.steps, BENCH__SAMPLE_COUNT);
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);
    assert_double_exact(s.samples[BENCH__SAMPLE_COUNT - 1], 100.0);
}

static void test_sampler_default_budget_100ns_body_reaches_65536(void **state)
{
    (void)state;
    struct bench__sampler s;
    struct trace t;
    /* 100 ns/iter, 5 ms: 32768 iterations take 3.2768 ms (< 5 ms, double), 65536 take
     * 6.5536 ms (>= 5 ms: confirm, then stop; both discarded), then 32 samples at 65536 */
    run_fake(&s, &t, (int64_t)BENCH__DEFAULT_MIN_TIME_MS * 1000000, 0, 100);
    assert_int_equal(t.steps, 18 + BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i <= 16; i++)
        assert_int_equal(t.count[i], 1ULL << i);
    for (size_t i = 17; i < t.steps; i++)
        assert_int_equal(t.count[i], 65536);
    assert_int_equal(s.count, 65536);
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i < BENCH__SAMPLE_COUNT; i++)
        assert_double_exact(s.samples[i], 100.0);
    struct bench__summary sum = bench__summarize(s.samples, s.n);
    assert_double_exact(sum.median, 100.0);
    assert_double_exact(sum.mad, 0.0);
}

/* One sample 10× too slow during the doubling (a preemption) does not end it: the stop is
 * confirmed by a second sample at that count, which is short, so the count goes on doubling to
 * the one the budget needs. Without the confirmation the row would be measured at 8192. */
static void test_sampler_one_slow_sample_does_not_end_doubling(void **state)
{
    (void)state;
    struct bench__sampler s;
    struct trace t;
    const int64_t budget = (int64_t)BENCH__DEFAULT_MIN_TIME_MS * 1000000;
    /* 100 ns/iter: the 14th sample (8192 iterations, 0.82 ms) takes 8.2 ms */
    run_fake_slow(&s, &t, budget, 0, 100, 1ULL << 13, 10);
    static const uint64_t want[] = {1,    2,    4,    8,    16,   32,    64,    128,   256,  512,
                                    1024, 2048, 4096, 8192, 8192, 16384, 32768, 65536, 65536};
    size_t n_want = sizeof want / sizeof want[0];
    assert_int_equal(t.steps, n_want + BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i < n_want; i++)
        assert_int_equal(t.count[i], want[i]);
    for (size_t i = n_want; i < t.steps; i++)
        assert_int_equal(t.count[i], 65536);
    assert_int_equal(s.count, 65536);
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);
    for (size_t i = 0; i < BENCH__SAMPLE_COUNT; i++)
        assert_double_exact(s.samples[i], 100.0); /* the slow sample is not among them */

    /* the first sample slow (a cold first call): confirmed short, so doubling goes on */
    run_fake_slow(&s, &t, budget, 0, 100, 1, 100000);
    assert_int_equal(t.count[0], 1);
    assert_int_equal(t.count[1], 1);
    assert_int_equal(t.count[2], 2);
    assert_int_equal(s.count, 65536);

    /* every step slow from 8192 on: the second slow sample confirms, as it must for a body
     * that really got slower (the rule's limit: two preemptions in a row stop it) */
    run_fake_slow(&s, &t, budget, 0, 100, ~0ULL << 13, 10);
    assert_int_equal(t.count[13], 8192);
    assert_int_equal(t.count[14], 8192);
    assert_int_equal(t.count[15], 8192);
    assert_int_equal(s.count, 8192);
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);

    /* a pinned count is never scaled, slow samples or not: every one is kept */
    run_fake_slow(&s, &t, budget, 16, 100, 0x5, 100000);
    assert_int_equal(t.steps, BENCH__SAMPLE_COUNT);
    assert_int_equal(s.count, 16);
    assert_double_exact(s.samples[0], 100.0 * 100000);
    assert_double_exact(s.samples[1], 100.0);
}

/* --bench-precision (issue 26 point 6): a pinned row stops early only when the 95% CI of its
 * median is narrow, never before 8 samples, else at the usual 32. Synthetic samples: no timing. */
static void test_sampler_precision_stops_only_when_narrow(void **state)
{
    (void)state;
    struct bench__sampler s;
    /* identical samples: the interval is the point, the row ends at the 8th sample */
    bench__sampler_start(&s, 5000000, 1000);
    s.precision = 0.01;
    size_t taken = 0;
    while (bench__sampler_step(&s, 100000))
        taken++;
    assert_int_equal(s.n, BENCH__PRECISION_MIN_SAMPLES);
    assert_int_equal(taken + 1, BENCH__PRECISION_MIN_SAMPLES);

    /* samples spread ±50%: the interval never narrows to ±1%, all 32 are taken */
    bench__sampler_start(&s, 5000000, 1000);
    s.precision = 0.01;
    for (int i = 0; bench__sampler_step(&s, i % 2 ? 150000 : 50000 + i); i++)
        ;
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);

    /* off (0): identical samples still take 32 */
    bench__sampler_start(&s, 5000000, 1000);
    while (bench__sampler_step(&s, 100000))
        ;
    assert_int_equal(s.n, BENCH__SAMPLE_COUNT);

    /* a loose bound: spread samples stop once min..max (8 samples) fit in ±60% */
    bench__sampler_start(&s, 5000000, 1000);
    s.precision = 0.60;
    while (bench__sampler_step(&s, s.n % 2 ? 120000 : 80000))
        ;
    assert_int_equal(s.n, BENCH__PRECISION_MIN_SAMPLES);
}

static void test_median_ci_within(void **state)
{
    (void)state;
    /* n = 8: the 95% interval is [x(1), x(8)] (P(B ≤ 1) = 9/256 > 2.5%) */
    static const double eight[] = {100, 101, 99, 100, 102, 98, 100, 100};
    assert_true(bench__median_ci_within(eight, 8, 0.021));
    assert_false(bench__median_ci_within(eight, 8, 0.019));
    /* n = 20: l = 6 (P(B ≤ 5) = 2.07%, P(B ≤ 6) = 5.77%): the five lowest and highest are out */
    double twenty[20];
    for (int i = 0; i < 20; i++)
        twenty[i] = 100.0;
    for (int i = 0; i < 5; i++) {
        twenty[i] = 10.0;       /* far below */
        twenty[19 - i] = 500.0; /* far above */
    }
    assert_true(bench__median_ci_within(twenty, 20, 0.001));
    twenty[5] = 10.0; /* a sixth one below: now x(6) is out of ±50% */
    assert_false(bench__median_ci_within(twenty, 20, 0.5));
    /* too few samples for a 95% interval, a zero median, no precision */
    assert_false(bench__median_ci_within(eight, 5, 0.5));
    static const double zeros[] = {0, 0, 0, 0, 0, 0, 0, 0};
    assert_false(bench__median_ci_within(zeros, 8, 0.5));
    assert_false(bench__median_ci_within(eight, 8, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summarize_odd),
        cmocka_unit_test(test_summarize_even_median_is_mean_of_middle_two),
        cmocka_unit_test(test_summarize_mad_has_no_consistency_factor),
        cmocka_unit_test(test_summarize_single_and_constant),
        cmocka_unit_test(test_summarize_empty_is_all_nan),
        cmocka_unit_test(test_summarize_input_order_irrelevant),
        cmocka_unit_test(test_sampler_doubles_from_one_until_budget),
        cmocka_unit_test(test_sampler_discards_the_budget_sample),
        cmocka_unit_test(test_sampler_sample_is_elapsed_over_count_as_double),
        cmocka_unit_test(test_sampler_cap_stops_doubling),
        cmocka_unit_test(test_sampler_pinned_count_never_scales),
        cmocka_unit_test(test_sampler_default_budget_100ns_body_reaches_65536),
        cmocka_unit_test(test_sampler_one_slow_sample_does_not_end_doubling),
        cmocka_unit_test(test_sampler_precision_stops_only_when_narrow),
        cmocka_unit_test(test_median_ci_within),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
