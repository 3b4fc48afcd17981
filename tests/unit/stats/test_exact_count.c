/* SPDX-License-Identifier: MIT */
/* test_exact_count.c: bench__cmp_exact_counts, the run-level comparison of an exact count
 * (compare --metric=allocs): floor 0, equal counts NO_CHANGE, any difference a claimed change,
 * varying counts UNMEASURED, an A/A count that differs decides the verdict. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stats/compare.h"

static const uint64_t runs[] = {1, 2, 3, 4, 5};

static struct bench__arm arm(const double *v, size_t n)
{
    return (struct bench__arm){v, runs, n};
}

static void test_exact_counts(void **state)
{
    (void)state;
    static const double one[] = {1, 1, 1}, two[] = {2, 2, 2}, zero[] = {0, 0, 0},
                        varies[] = {3, 3, 4}, three[] = {3, 3, 3};
    struct bench__cmp_cell_in in[] = {
        {"same", "", arm(one, 3), arm(one, 3), arm(one, 3)},
        {"more", "", arm(one, 3), arm(two, 3), arm(one, 3)},
        {"fewer", "", arm(two, 3), arm(one, 3), arm(two, 3)},
        {"from_zero", "", arm(zero, 3), arm(one, 3), arm(zero, 3)},
        {"zero", "", arm(zero, 3), arm(zero, 3), arm(zero, 3)},
        {"varies", "", arm(three, 3), arm(varies, 3), arm(three, 3)},
        {"short", "", arm(one, 2), arm(one, 2), arm(one, 2)},
    };
    enum { N = sizeof in / sizeof *in };
    struct bench__cmp_params p;
    bench__cmp_defaults(&p);
    struct bench__cmp_cell_out out[N];
    struct bench__cmp_result r;
    size_t bad;
    assert_int_equal(bench__cmp_exact_counts(&p, in, N, out, &r, &bad), 0);

    assert_int_equal(out[0].state, BENCH__CMP_NO_CHANGE);
    assert_true(out[0].floor == 0 && out[0].rel_delta == 0 && out[0].median_baseline == 1);
    assert_string_equal(out[0].reason, "exact_count");
    assert_int_equal(out[1].state, BENCH__CMP_CLAIMED);
    assert_string_equal(out[1].direction, "regression");
    assert_true(out[1].rel_delta == 1.0 && out[1].abs_delta == 1.0 && isnan(out[1].p));
    assert_int_equal(out[2].state, BENCH__CMP_CLAIMED);
    assert_string_equal(out[2].direction, "improvement");
    /* 0 → 1: a change, its relative size undefined (never a number made up) */
    assert_int_equal(out[3].state, BENCH__CMP_CLAIMED);
    assert_true(isnan(out[3].rel_delta) && out[3].abs_delta == 1.0);
    /* a measured 0 twice: no change, an exact 0 */
    assert_int_equal(out[4].state, BENCH__CMP_NO_CHANGE);
    assert_true(out[4].median_candidate == 0 && out[4].rel_delta == 0);
    assert_int_equal(out[5].state, BENCH__CMP_UNMEASURED);
    assert_string_equal(out[5].reason, "count_not_exact");
    assert_true(isnan(out[5].median_baseline));
    assert_int_equal(out[6].state, BENCH__CMP_UNMEASURED);
    assert_string_equal(out[6].reason, "insufficient_runs");
    assert_string_equal(r.verdict, "REGRESSION");
    assert_int_equal(r.exit_code, 1);
    assert_int_equal(r.family_size, 5);

    /* only equal counts, every cell judged: PASS; an A/A that counts differently: UNMEASURED */
    assert_int_equal(bench__cmp_exact_counts(&p, in, 1, out, &r, &bad), 0);
    assert_string_equal(r.verdict, "PASS");
    struct bench__cmp_cell_in aa = {"aa", "", arm(one, 3), arm(one, 3), arm(two, 3)};
    assert_int_equal(bench__cmp_exact_counts(&p, &aa, 1, out, &r, &bad), 0);
    assert_true(out[0].aa_confirmed_change);
    assert_string_equal(r.reason, "aa_control_changed");
    /* a negative count is refused, the cell named */
    static const double negative[] = {1, -1, 1};
    struct bench__cmp_cell_in neg = {"neg", "", arm(negative, 3), arm(one, 3), arm(one, 3)};
    assert_int_equal(bench__cmp_exact_counts(&p, &neg, 1, out, &r, &bad), BENCH_EINVAL);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_exact_counts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
