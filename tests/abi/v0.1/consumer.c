/* SPDX-License-Identifier: MIT */
/* consumer.c: a test program as it was written for libbench 0.1.0, compiled only against the
 * frozen 0.1.0 headers beside it (include/ and shim/ here) and linked against the libbench being
 * built: an old binary on a new library. It uses what 0.1.0 offered: BENCH_TEST, BENCHMARK with
 * BENCH_ITER and .iterations, bench_case with labels, metrics and state, a WORKLOAD with reps, a
 * page-cache regime (an enum field in 0.1.0) and a window, BENCH_MAIN. Nothing later may be used
 * here. Driven by run_abi.py. */
#include <stdint.h>
#include <stdlib.h>

#include <bench/shim.h>

/* The proof that the build gave this file the frozen headers and nothing newer. */
#if BENCH_VERSION_NUMBER != 0x000100
#error "consumer.c must be compiled against the frozen 0.1.0 headers (tests/abi/v0.1)"
#endif
#if defined(BENCH_TEST_SIZE_V1) || defined(BENCH_CASE_DEF_SIZE_V1) ||                              \
    defined(BENCH_METRIC_INFO_SIZE_V1)
#error "consumer.c sees a libbench header newer than 0.1.0"
#endif
#if defined(__has_include)
#if __has_include(<bench/catalog.h>)
#error "consumer.c can include <bench/catalog.h>, which 0.1.0 did not have"
#endif
#endif

BENCH_TEST(arithmetic)
{
    BENCH_CHECK(6 * 7 == 42);
}

/* The library loaded at run time is at least the one compiled against. */
BENCH_TEST(runtime_version)
{
    BENCH_CHECK(bench_version() >= BENCH_VERSION_NUMBER);
    BENCH_CHECK(bench_version_string() != NULL);
}

BENCH_TEST(skips)
{
    bench_skip(b, "skipped on purpose");
}

BENCHMARK(pinned_loop, .iterations = 128)
{
    uint64_t x = 1;
    BENCH_ITER(b)
    {
        x = x * 7 + 3;
        bench_do_not_optimize(x);
    }
}

struct parser {
    uint64_t seed;
    uint64_t out;
};

static void parse_setup(void *state)
{
    struct parser *p = state;
    BENCH_CHECK(p->seed == 5); /* the value at registration, copied */
}

static void parse_timed(void *state)
{
    struct parser *p = state;
    p->out = p->out * 31 + p->seed;
    bench_do_not_optimize(p->out);
}

static int parse_after(void *state, const char **message)
{
    struct parser *p = state;
    if (p->seed != 5) {
        *message = "state lost";
        return 1;
    }
    return 0;
}

BENCHMARK(matrix)
{
    struct parser state = {5, 0};
    struct bench_label labels[] = {{"impl", "old"}, {"input", "tiny"}};
    struct bench_metric metrics[] = {{"items", 4, BENCH_RATE}, {"depth", 2, BENCH_LEVEL}};
    int rc = bench_case(
        b, BENCH_CASE_DEF(.name = "parse", .labels = labels, .n_labels = 2, .state = &state,
                          .state_size = sizeof state, .setup = parse_setup, .timed = parse_timed,
                          .after = parse_after, .metrics = metrics, .n_metrics = 2));
    BENCH_CHECK(rc == 0);
    state.seed = 99; /* must not reach the registered copy */
}

WORKLOAD(phases, .reps = 2, .regime = BENCH_CACHE_WARM)
{
    const char *path = getenv("ABI_REGIME_FILE");
    if (path)
        BENCH_CHECK(workload_files(b, path) == 0); /* the regime of the options */
    uint64_t x = 1;
    WORKLOAD_WINDOW(b, "step")
    {
        for (int i = 0; i < 1000; i++) {
            x = x * 5 + 1;
            bench_do_not_optimize(x);
        }
    }
}

BENCH_MAIN()
