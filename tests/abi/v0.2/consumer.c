/* SPDX-License-Identifier: MIT */
/* consumer.c: a test program as it was written for libbench 0.2.0, compiled only against the
 * frozen 0.2.0 headers beside it (include/ and shim/ here) and linked against the libbench being
 * built. It leans on what 0.3.0 changed under it: a bench_case with labels and metrics in arrays
 * of the 0.2.0 layout (no strides), a WORKLOAD whose .regime was an enum field, the catalog's
 * size-prefixed info structs, BENCH_DISPATCH's "not mine" and bench_smoke's statuses as 0.2.0
 * numbered them. Nothing later may be used here. Driven by run_abi.py. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <bench/shim.h>

/* The proof that the build gave this file the frozen 0.2.0 headers and nothing newer. */
#if BENCH_VERSION_NUMBER != 0x000200
#error "consumer.c must be compiled against the frozen 0.2.0 headers (tests/abi/v0.2)"
#endif
#if !defined(BENCH_METRIC_INFO_SIZE_V1) || defined(BENCH_LABEL_SIZE_V1) ||                         \
    defined(BENCH_NOT_DISPATCHED) || defined(BENCH_CACHE_FROM_OPTS)
#error "consumer.c sees libbench headers other than 0.2.0's"
#endif

/* ---- the catalog: info structs the library writes, sized by the program ------------------ */

BENCH_TEST(catalog_entries)
{
    bench_catalog_t *cat = NULL;
    BENCH_CHECK(bench_catalog_open(&cat) == 0);
    BENCH_CHECK(bench_catalog_metric_count(cat) > 0 && bench_catalog_capability_count(cat) > 0);
    struct bench_metric_info m = BENCH_METRIC_INFO_INIT;
    BENCH_CHECK(bench_catalog_metric(cat, 0, &m) == 0);
    BENCH_CHECK(m.size == sizeof m && m.name != NULL && m.source != NULL);
    BENCH_CHECK(m.available == (m.reason == NULL));
    struct bench_capability_info c = BENCH_CAPABILITY_INFO_INIT;
    c.size = BENCH_CAPABILITY_INFO_SIZE_V1; /* the first released layout: no `detail` written */
    c.detail = "untouched";
    BENCH_CHECK(bench_catalog_capability(cat, 0, &c) == 0);
    BENCH_CHECK(c.source != NULL && c.name != NULL && c.present == (c.reason == NULL));
    BENCH_CHECK(c.detail != NULL && c.detail[0] == 'u');
    struct bench_metric_info small = BENCH_METRIC_INFO_INIT;
    small.size = BENCH_METRIC_INFO_SIZE_V1 - 1;
    BENCH_CHECK(bench_catalog_metric(cat, 0, &small) == BENCH_ESTRUCT);
    bench_catalog_close(cat);
}

/* ---- a matrix row: three labels and two metrics in arrays of the 0.2.0 layout --------------- */

struct codec {
    uint64_t word;
};

static void encode_timed(void *state)
{
    struct codec *c = state;
    c->word = (c->word << 7) ^ (c->word >> 3) ^ 0x9e37u;
    bench_do_not_optimize(c->word);
}

BENCHMARK(codec)
{
    struct codec state = {11};
    const struct bench_label labels[] = {{"codec", "rot"}, {"width", "64"}, {"abi", "0.2"}};
    const struct bench_metric metrics[] = {{"words", 1, BENCH_RATE}, {"bits", 64, BENCH_LEVEL}};
    BENCH_CHECK(bench_case(b, BENCH_CASE_DEF(.name = "encode", .labels = labels, .n_labels = 3,
                                             .state = &state, .state_size = sizeof state,
                                             .timed = encode_timed, .metrics = metrics,
                                             .n_metrics = 2)) == 0);
}

BENCHMARK(skipper)
{
    bench_skip(b, "skipped on purpose");
}

/* ---- a workload whose options hold a regime (an enum field in 0.2.0) ----------------------- */

static void fold(void *state)
{
    uint64_t *x = state;
    for (int i = 0; i < 500; i++)
        *x = *x * 3 + 1;
    bench_do_not_optimize(*x);
}

static void skip_window(void *state)
{
    (void)state;
    bench_skip(NULL, "window skipped on purpose");
}

WORKLOAD(evicted, .reps = 1, .regime = BENCH_CACHE_COLD)
{
    const char *path = getenv("ABI_REGIME_FILE");
    if (path)
        BENCH_CHECK(workload_files(b, path) == 0); /* -1: the regime of the options */
    uint64_t x = 1;
    BENCH_CHECK(workload_window(b, "fold", fold, &x) == 0);
    BENCH_CHECK(workload_window(b, "skip", skip_window, NULL) == 2); /* 0.2.0: 2 = skipped */
}

int main(int argc, char **argv)
{
    if (getenv("ABI_SMOKE")) { /* bench_smoke's statuses, as 0.2.0 numbered them */
        static const char *const names[] = {"codec", "consumer.skipper", "evicted", "nope"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            printf("bench_smoke(%s) = %d\n", names[i], bench_smoke(names[i]));
        return 0;
    }
    BENCH_DISPATCH(argc, argv); /* 0.2.0's shim: returns when the status is >= 0 */
    return bench_main(argc, argv);
}
