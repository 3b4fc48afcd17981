/* SPDX-License-Identifier: MIT */
/* sample.c: a real test binary built with the shim, run by run_e2e.py. Every outcome a
 * test can have is here once: pass, failed check, bench_fail, segfault, abort, skip. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <bench/shim.h>

BENCH_TEST(passes)
{
    BENCH_CHECK(1 + 1 == 2);
}

BENCH_TEST(fails_check)
{
    printf("output before the failure\n");
    BENCH_CHECK(1 + 1 == 3);
    printf("never printed\n");
}

BENCH_TEST(fails_with_message)
{
    bench_fail(b, "expected %d items, got %d", 3, 2);
}

BENCH_TEST(segfaults)
{
    raise(SIGSEGV);
}

BENCH_TEST(aborts)
{
    abort();
}

BENCH_TEST(skipped)
{
    bench_skip(b, "needs %s", "a GPU");
}

BENCH_TEST(exits_early)
{
    exit(3);
}

BENCHMARK(sum_loop)
{
    unsigned long s = 0;
    BENCH_ITER(b)
    {
        s += 1;
        bench_do_not_optimize(s);
    }
}

BENCHMARK(pinned, .iterations = 10)
{
    bench_clobber_memory();
}

WORKLOAD(ingest, .reps = 1, .regime = BENCH_CACHE_STEADY)
{
    bench_clobber_memory();
}

BENCH_MAIN()
