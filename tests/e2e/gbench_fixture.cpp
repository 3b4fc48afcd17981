/* SPDX-License-Identifier: MIT */
/* gbench_fixture.cpp: a small Google Benchmark program whose JSON output the end-to-end tests of
 * `libbench compare` read (run_compare_gbench.py): numbered and named arguments, a template, a
 * thread count, a time unit other than ns. GBENCH_FIXTURE_EXTRA_WORK=PCT makes every benchmark
 * do PCT percent more work (a slower candidate); GBENCH_FIXTURE_FAIL=1 makes one of them fail. */
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>

/* n steps, plus GBENCH_FIXTURE_EXTRA_WORK percent */
static int64_t work(int64_t n)
{
    const char *text = std::getenv("GBENCH_FIXTURE_EXTRA_WORK");
    long long extra = text ? std::atoll(text) : 0;
    return extra > 0 ? n + n * extra / 100 : n;
}

/* A chain of n dependent steps: the time is proportional to n. */
static uint64_t chain(int64_t n)
{
    uint64_t x = 1;
    for (int64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        benchmark::DoNotOptimize(x);
    }
    return x;
}

/* BM_chain/512, BM_chain/2048: one numbered argument */
static void BM_chain(benchmark::State &state)
{
    int64_t n = work(state.range(0));
    for (auto _ : state)
        benchmark::DoNotOptimize(chain(n));
}
BENCHMARK(BM_chain)->Arg(512)->Arg(2048);

/* BM_grid/rows:16/cols:64: named arguments */
static void BM_grid(benchmark::State &state)
{
    int64_t n = work(state.range(0) * state.range(1));
    for (auto _ : state)
        benchmark::DoNotOptimize(chain(n));
}
BENCHMARK(BM_grid)->ArgNames({"rows", "cols"})->Args({16, 64});

/* BM_typed<uint32_t>/1024: a template */
template <typename T> static void BM_typed(benchmark::State &state)
{
    int64_t n = work(state.range(0));
    for (auto _ : state)
        benchmark::DoNotOptimize(static_cast<T>(chain(n)));
}
BENCHMARK_TEMPLATE(BM_typed, uint32_t)->Arg(1024);

/* BM_micro/4096/real_time/threads:1: microseconds, wall time, a thread count; it fails when
 * GBENCH_FIXTURE_FAIL is set */
static void BM_micro(benchmark::State &state)
{
    if (std::getenv("GBENCH_FIXTURE_FAIL")) {
        state.SkipWithError("fixture: asked to fail");
        return;
    }
    int64_t n = work(state.range(0));
    for (auto _ : state)
        benchmark::DoNotOptimize(chain(n));
}
BENCHMARK(BM_micro)->Arg(4096)->UseRealTime()->Threads(1)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
