/* SPDX-License-Identifier: MIT */
/* shim_usage.c: every macro and inline helper of <bench/shim.h> used the way a test
 * binary uses them, and the catalog API of <bench/catalog.h> with its initializers; compiled by
 * check_headers.py as C11 and C++20, warnings as errors. */
#include <bench/shim.h>

struct pair {
    int a, b;
};

static struct pair make_pair(int a)
{
    struct pair p = {a, a + 1};
    return p;
}

static int twice(int x)
{
    return 2 * x;
}

BENCH_TEST(plain)
{
    BENCH_CHECK(twice(2) == 4);
}

BENCH_TEST(uses_handle)
{
    if (twice(1) != 2)
        bench_fail(b, "twice(1) = %d", twice(1));
    if (twice(0) != 0)
        bench_skip(b, "%s", "never");
}

BENCHMARK(auto_scaled)
{
    int x = 3;
    BENCH_ITER(b)
    {
        bench_do_not_optimize(twice(x));     /* an rvalue */
        bench_do_not_optimize(x);            /* an lvalue */
        bench_do_not_optimize(make_pair(x)); /* a struct */
        bench_clobber_memory();
    }
}

BENCHMARK(pinned, .iterations = 1000)
{
    bench_clobber_memory();
}

WORKLOAD(window)
{
    bench_clobber_memory();
}

WORKLOAD(cold_window, .reps = 2, .regime = BENCH_CACHE_COLD)
{
    bench_clobber_memory();
}

/* The first released sizes are constants of the size fields' type, in C and in C++. */
BENCH_TEST(first_released_sizes)
{
    uint32_t sizes[] = {BENCH_TEST_SIZE_V1,          BENCH_BENCHMARK_OPTS_SIZE_V1,
                        BENCH_WORKLOAD_OPTS_SIZE_V1, BENCH_CASE_DEF_SIZE_V1,
                        BENCH_METRIC_INFO_SIZE_V1,   BENCH_CAPABILITY_INFO_SIZE_V1,
                        BENCH_LABEL_SIZE_V1,         BENCH_METRIC_SIZE_V1};
    BENCH_CHECK(sizes[0] <= sizeof(struct bench_test));
    BENCH_CHECK(sizes[1] <= sizeof(struct bench_benchmark_opts));
    BENCH_CHECK(sizes[2] <= sizeof(struct bench_workload_opts));
    BENCH_CHECK(sizes[3] <= sizeof(struct bench_case_def));
    BENCH_CHECK(sizes[4] <= sizeof(struct bench_metric_info));
    BENCH_CHECK(sizes[5] <= sizeof(struct bench_capability_info));
    BENCH_CHECK(sizes[6] == sizeof(struct bench_label) && sizes[7] == sizeof(struct bench_metric));
}

/* The named statuses and the dispatch sentinel, where a program meets them. */
static int framework_main(int argc, char **argv)
{
    BENCH_DISPATCH(argc, argv);
    return BENCH_EXIT_OK;
}

static void window_code(void *state)
{
    (void)state;
}

WORKLOAD(statuses, .regime = BENCH_CACHE_WARM)
{
    char name[] = "prog";
    char *argv[] = {name, NULL};
    BENCH_CHECK(framework_main(1, argv) == BENCH_EXIT_OK);
    const char *const files[] = {"data.bin", NULL};
    BENCH_CHECK(bench_workload_files(b, BENCH_CACHE_FROM_OPTS, files) == BENCH_OK);
    BENCH_CHECK(workload_window(b, "w", window_code, NULL) != BENCH_STATUS_SKIPPED);
    BENCH_CHECK(bench_smoke("pinned") == BENCH_STATUS_PASSED);
    BENCH_CHECK(bench_main(1, argv) != BENCH_EXIT_USAGE && BENCH_EXIT_FAILED == 1);
    BENCH_CHECK(bench_dispatch(1, argv) == BENCH_NOT_DISPATCHED && BENCH_STATUS_FAILED == 1);
}

/* The catalog as a program reads it: how many things are absent, each with its reason. */
static int count_absences(void)
{
    bench_catalog_t *cat = NULL;
    int rc = bench_catalog_open(&cat);
    if (rc != 0)
        return rc;
    int absent = 0;
    for (size_t i = 0; i < bench_catalog_metric_count(cat); i++) {
        struct bench_metric_info m = BENCH_METRIC_INFO_INIT;
        if (bench_catalog_metric(cat, i, &m) == 0 && m.size >= BENCH_METRIC_INFO_SIZE_V1 &&
            !m.available && m.reason)
            absent++;
    }
    for (size_t i = 0; i < bench_catalog_capability_count(cat); i++) {
        struct bench_capability_info c = BENCH_CAPABILITY_INFO_INIT;
        if (bench_catalog_capability(cat, i, &c) == 0 && c.size >= BENCH_CAPABILITY_INFO_SIZE_V1 &&
            !c.present && c.reason)
            absent++;
    }
    bench_catalog_close(cat);
    return absent;
}

BENCH_TEST(catalog)
{
    int absent = count_absences();
    if (absent < 0)
        bench_fail(b, "bench_catalog_open: %s", bench_strerror(absent));
}

BENCH_MAIN()
