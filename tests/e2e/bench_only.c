/* SPDX-License-Identifier: MIT */
/* bench_only.c: benchmarks whose bodies fail, skip or run whole, for --bench end to end:
 * a failing body becomes an error row and the run fails, the others are still measured. */
#include <bench/shim.h>

static volatile unsigned sink;

BENCHMARK(whole_body)
{
    sink = sink + 1;
}

BENCHMARK(checks_and_fails)
{
    BENCH_CHECK(sink == 12345u);
}

BENCHMARK(skips)
{
    bench_skip(b, "no fixture here");
}

BENCH_MAIN()
