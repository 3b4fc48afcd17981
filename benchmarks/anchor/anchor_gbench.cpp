/* SPDX-License-Identifier: MIT */
/* anchor_gbench.cpp: the Google Benchmark 1.7.1 side of the anchor comparison: the same
 * six kernels, same names, same shared kernel code, timed by gbench's own loop. */
#include <benchmark/benchmark.h>

#include "kernels.h"

/* Harness overhead per iteration: the loop with nothing in it. */
/* The same barrier as the libbench driver: no instruction, but the loop stays. */
static void empty(benchmark::State &state)
{
    for (auto _ : state) {
        benchmark::ClobberMemory();
    }
}
BENCHMARK(empty);

static void add_chain_1000(benchmark::State &state)
{
    anchor_kernels_init();
    for (auto _ : state)
        benchmark::DoNotOptimize(anchor_add_chain_1000());
}
BENCHMARK(add_chain_1000);

static void div_chain_64(benchmark::State &state)
{
    anchor_kernels_init();
    for (auto _ : state)
        benchmark::DoNotOptimize(anchor_div_chain_64());
}
BENCHMARK(div_chain_64);

static void memcpy_4k(benchmark::State &state)
{
    anchor_kernels_init();
    for (auto _ : state)
        benchmark::DoNotOptimize(anchor_memcpy_4k());
}
BENCHMARK(memcpy_4k);

static void fnv1a_1k(benchmark::State &state)
{
    anchor_kernels_init();
    for (auto _ : state)
        benchmark::DoNotOptimize(anchor_fnv1a_1k());
}
BENCHMARK(fnv1a_1k);

static void qsort_1000(benchmark::State &state)
{
    anchor_kernels_init();
    for (auto _ : state)
        benchmark::DoNotOptimize(anchor_qsort_1000());
}
BENCHMARK(qsort_1000);

BENCHMARK_MAIN();
