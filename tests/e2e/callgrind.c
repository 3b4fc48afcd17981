/* SPDX-License-Identifier: MIT */
/* callgrind.c: bodies of a known instruction count, for the end-to-end checks of the "callgrind"
 * source (run_callgrind.py): 1000 nops, an empty body (the loop's own fixed cost), a per-call
 * case, a body whose work an environment variable sets (two "builds" for compare
 * --metric=instructions), a body that calls exit() (an error row, under Valgrind too) and two
 * workload windows (1000 nops, and nothing). */
#include <stdlib.h>

#include <bench/shim.h>

BENCHMARK(nops_1000)
{
    BENCH_ITER(b)
    {
        __asm__ volatile(".rept 1000\n\tnop\n\t.endr" ::: "memory");
    }
}

BENCHMARK(empty_body)
{
    BENCH_ITER(b)
    {
        __asm__ volatile("" ::: "memory");
    }
}

static void nops_100(void *state)
{
    (void)state;
    __asm__ volatile(".rept 100\n\tnop\n\t.endr" ::: "memory");
}

BENCHMARK(per_call)
{
    bench_case(b, BENCH_CASE_DEF(.name = "nops_100", .timed = nops_100));
}

/* 10000 (+ $E2E_CG_EXTRA) nops per iteration, read in the untimed setup: two builds whose
 * instruction counts differ by EXTRA nops. */
BENCHMARK(env_work)
{
    const char *extra = getenv("E2E_CG_EXTRA");
    long n = 10000 + (extra ? atol(extra) : 0);
    BENCH_CHECK(n >= 10000 && n <= 20000);
    BENCH_ITER(b)
    {
        for (long i = 0; i < n; i++)
            __asm__ volatile("nop" ::: "memory");
    }
}

BENCHMARK(exits)
{
    BENCH_ITER(b)
    {
        exit(3);
    }
}

/* Workload windows: one of 1000 nops, one of nothing (the edges' own fixed cost). */
static void window_nops(void *state)
{
    (void)state;
    __asm__ volatile(".rept 1000\n\tnop\n\t.endr" ::: "memory");
}

static void window_empty(void *state)
{
    (void)state;
    __asm__ volatile("" ::: "memory");
}

WORKLOAD(windows)
{
    workload_window(b, "nops_1000", window_nops, NULL);
    workload_window(b, "empty", window_empty, NULL);
}

BENCH_MAIN()
