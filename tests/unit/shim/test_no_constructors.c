/* SPDX-License-Identifier: MIT */
/* test_no_constructors.c: the shim without constructor functions (BENCH_NO_CONSTRUCTORS, set by
 * tests/meson.build for this file only): the benchmarks listed with BENCH_REGISTRATIONS are
 * registered by main and run (bench_smoke); one defined but left off the list is not registered,
 * so a constructor that slipped in fails this test. */
#include <bench/shim.h>

#include <stdio.h>
#include <string.h>

#ifndef BENCH_NO_CONSTRUCTORS
#error "this test is compiled with -DBENCH_NO_CONSTRUCTORS"
#endif

static int ran_listed;

BENCHMARK(listed_one)
{
    ran_listed++;
}

BENCHMARK(listed_two)
{
    BENCH_CHECK(1 + 1 == 2);
}

/* Defined, never listed: only a constructor could register it. */
BENCHMARK(not_listed)
{
    BENCH_CHECK(0);
}

BENCH_REGISTRATIONS(these_tests, BENCH_ENTRY(listed_one), BENCH_ENTRY(listed_two));

int main(void)
{
    bench_register_list(these_tests);
    int one = bench_smoke("listed_one"), two = bench_smoke("listed_two");
    int missing = bench_smoke("not_listed");
    if (one != 0 || two != 0 || ran_listed != 1) {
        fprintf(stderr, "FAIL: listed tests: %d %d (ran %d)\n", one, two, ran_listed);
        return 1;
    }
    if (missing != BENCH_ENOENT) {
        fprintf(stderr, "FAIL: not_listed was registered (%d): a constructor slipped in\n",
                missing);
        return 1;
    }
    printf("ok: 2 listed tests registered and run, the unlisted one absent\n");
    return 0;
}
