/* SPDX-License-Identifier: MIT */
/* test_deadline.c: --timeout's arithmetic shared by both isolation modes (core/deadline.c), on a
 * fake clock: no limit, a test past its limit, one exactly at it, and the poll timeout to the
 * nearest of the others, rounded up to whole milliseconds, and a due time of its own (the grace
 * after a time-out request). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testmode/deadline.h"
#include "util/clock.h"

static int64_t fake_now;

static int64_t fake_clock(void)
{
    return fake_now;
}

static int setup(void **state)
{
    (void)state;
    bench__clock_deadline_ns = fake_clock;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    bench__clock_reset();
    return 0;
}

static void no_limit(void **state)
{
    (void)state;
    fake_now = 1000000000000LL;
    struct bench__deadlines d;
    bench__deadlines_begin(&d, 0);
    assert_false(bench__deadline_passed(&d, 0));
    assert_int_equal(bench__deadlines_ms(&d), -1);
}

static void passed_and_nearest(void **state)
{
    (void)state;
    fake_now = 100LL * 1000000000LL;
    struct bench__deadlines d;
    bench__deadlines_begin(&d, 2);
    assert_true(bench__deadline_passed(&d, fake_now - 3000000000LL)); /* ran 3 s */
    assert_true(bench__deadline_passed(&d, fake_now - 2000000000LL)); /* exactly 2 s */
    assert_int_equal(bench__deadlines_ms(&d), -1); /* the passed ones are no deadline */
    assert_false(bench__deadline_passed(&d, fake_now - 500000000LL));  /* 1.5 s left */
    assert_false(bench__deadline_passed(&d, fake_now - 1999999999LL)); /* 1 ns left */
    assert_false(bench__deadline_passed(&d, fake_now));                /* 2 s left */
    assert_int_equal(bench__deadlines_ms(&d), 1); /* 1 ns, rounded up to a whole ms */
}

static void rounds_up(void **state)
{
    (void)state;
    fake_now = 50LL * 1000000000LL;
    struct bench__deadlines d;
    bench__deadlines_begin(&d, 1);
    assert_false(bench__deadline_passed(&d, fake_now - 998500000LL)); /* 1.5 ms left */
    assert_int_equal(bench__deadlines_ms(&d), 2);
}

static void due(void **state)
{
    (void)state;
    fake_now = 10LL * 1000000000LL;
    struct bench__deadlines d;
    bench__deadlines_begin(&d, 1);
    assert_true(bench__deadline_due(&d, fake_now));     /* it is now */
    assert_true(bench__deadline_due(&d, fake_now - 1)); /* past */
    assert_false(bench__deadline_due(&d, fake_now + 3000000LL));
    assert_false(bench__deadline_passed(&d, fake_now)); /* 1 s left */
    assert_int_equal(bench__deadlines_ms(&d), 3);       /* the nearest of both */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(no_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(passed_and_nearest, setup, teardown),
        cmocka_unit_test_setup_teardown(rounds_up, setup, teardown),
        cmocka_unit_test_setup_teardown(due, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
