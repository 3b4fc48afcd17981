/* SPDX-License-Identifier: MIT */
/* profile.c: a benchmark body that spends about 80% of its CPU time in one non-inlined function
 * and 20% in another, for the --profile checks (built with -O2 -g -fno-omit-frame-pointer, and a
 * stripped copy). */
#include <stdint.h>

#include <bench/shim.h>

/* The same loop in both, 4 to 1 in length: the split is in CPU time of this thread, so it holds
 * on a busy machine. */
__attribute__((noinline)) static uint64_t hot_function(uint64_t x)
{
    for (int i = 0; i < 4000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

__attribute__((noinline)) static uint64_t cold_function(uint64_t x)
{
    for (int i = 0; i < 1000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

BENCHMARK(split_80_20)
{
    uint64_t x = 88172645463325252ull;
    BENCH_ITER(b)
    {
        x = hot_function(x);
        x = cold_function(x);
        bench_do_not_optimize(x);
    }
}

/* A call of a few nanoseconds (issue 32, point 13): with a counting bracket per call, the
 * bracket's ioctl took most of the samples; the pass must show the body, and the harness's share
 * (libbench's own code) on its own line. */
__attribute__((noinline)) static void tiny_call(void *state)
{
    uint64_t *x = state;
    *x ^= *x << 13;
    *x ^= *x >> 7;
    __asm__ volatile("" : : "r"(x) : "memory");
}

BENCHMARK(per_call)
{
    uint64_t x = 88172645463325252ull;
    bench_case(
        b, BENCH_CASE_DEF(.name = "tiny", .state = &x, .state_size = sizeof x, .timed = tiny_call));
}

/* A body that does nothing (issue 32, point 13): most of what its pass samples is the harness's
 * loop that calls it, libbench's own code, which is the harness's share and never the body's. */
BENCHMARK(empty_body)
{
    (void)b;
}

BENCH_MAIN()
