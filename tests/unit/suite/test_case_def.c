/* SPDX-License-Identifier: MIT */
/* test_case_def.c: a case definition's label and metric arrays read through their strides
 * (lib/suite/case_def.c): the first released layout (stride 0 or its own size), a newer caller's
 * larger elements with a zero or a non-zero unknown field, strides out of range; and bench_case
 * itself, run inertly, accepting and refusing the same definitions, with a definition size at and
 * above the 4096-byte cap. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <bench/bench.h>

#include "suite/case_def.h"

/* The element types of a later header: one field appended to each. */
struct label_v9 {
    struct bench_label now;
    uint64_t extra;
};
struct metric_v9 {
    struct bench_metric now;
    uint64_t extra;
};

static struct label_v9 grown_labels[3];
static struct metric_v9 grown_metrics[2];
static unsigned timed_calls;

static void timed(void *state)
{
    (void)state;
    timed_calls++;
}

static void grow(void)
{
    memset(grown_labels, 0, sizeof grown_labels);
    memset(grown_metrics, 0, sizeof grown_metrics);
    static const char *const keys[] = {"impl", "size", "mode"};
    static const char *const values[] = {"fast", "64", "cold"};
    for (size_t i = 0; i < 3; i++)
        grown_labels[i].now = (struct bench_label){keys[i], values[i]};
    grown_metrics[0].now = (struct bench_metric){"B", 64, BENCH_RATE};
    grown_metrics[1].now = (struct bench_metric){"depth", 3, BENCH_LEVEL};
}

static struct bench_case_def grown_def(void)
{
    grow();
    return (struct bench_case_def){.size = sizeof(struct bench_case_def),
                                   .name = "grown",
                                   .labels = &grown_labels[0].now,
                                   .n_labels = 3,
                                   .timed = timed,
                                   .metrics = &grown_metrics[0].now,
                                   .n_metrics = 2,
                                   .label_size = sizeof grown_labels[0],
                                   .metric_size = sizeof grown_metrics[0]};
}

/* Stride 0 and the first released stride both read a plain array. */
static void test_first_layout(void **state)
{
    (void)state;
    const struct bench_label labels[] = {{"a", "1"}, {"b", "2"}};
    const struct bench_metric metrics[] = {{"x", 1.5, BENCH_LEVEL}, {"y", 2, BENCH_RATE}};
    static const uint32_t label_strides[] = {0, BENCH_LABEL_SIZE_V1};
    static const uint32_t metric_strides[] = {0, BENCH_METRIC_SIZE_V1};
    for (size_t k = 0; k < 2; k++) {
        const struct bench_case_def def = {.size = sizeof def,
                                           .labels = labels,
                                           .n_labels = 2,
                                           .metrics = metrics,
                                           .n_metrics = 2,
                                           .label_size = label_strides[k],
                                           .metric_size = metric_strides[k]};
        assert_null(bench__case_elements_problem(&def));
        for (size_t i = 0; i < 2; i++) {
            struct bench_label l;
            struct bench_metric m;
            assert_int_equal(bench__case_label(&def, i, &l), BENCH__ABI_ACCEPTED);
            assert_int_equal(bench__case_metric(&def, i, &m), BENCH__ABI_ACCEPTED);
            assert_ptr_equal(l.key, labels[i].key);
            assert_ptr_equal(l.value, labels[i].value);
            assert_ptr_equal(m.unit, metrics[i].unit);
            assert_true(m.amount == metrics[i].amount);
            assert_int_equal(m.mode, metrics[i].mode);
        }
    }
}

/* A newer caller's elements: each read from its own place (the stride honoured) while the unknown
 * field is zero; the first element whose unknown field is set names the refusal. */
static void test_newer_layout(void **state)
{
    (void)state;
    struct bench_case_def def = grown_def();
    assert_null(bench__case_elements_problem(&def));
    for (size_t i = 0; i < 3; i++) {
        struct bench_label l;
        assert_int_equal(bench__case_label(&def, i, &l), BENCH__ABI_ACCEPTED);
        assert_string_equal(l.key, grown_labels[i].now.key);
        assert_string_equal(l.value, grown_labels[i].now.value);
    }
    struct bench_metric m;
    assert_int_equal(bench__case_metric(&def, 1, &m), BENCH__ABI_ACCEPTED);
    assert_string_equal(m.unit, "depth");
    assert_true(m.amount == 3 && m.mode == BENCH_LEVEL);

    grown_labels[2].extra = 1;
    assert_int_equal(bench__case_label(&def, 2, &(struct bench_label){0}), BENCH__ABI_UNKNOWN_TAIL);
    assert_string_equal(bench__case_elements_problem(&def),
                        "a label has fields this libbench does not know");
    grown_labels[2].extra = 0;
    grown_metrics[0].extra = 1;
    assert_string_equal(bench__case_elements_problem(&def),
                        "a metric has fields this libbench does not know");
}

/* Strides below the first released one or above the cap: refused before anything is judged. */
static void test_strides_out_of_range(void **state)
{
    (void)state;
    struct bench_case_def def = grown_def();
    def.label_size = BENCH_LABEL_SIZE_V1 - 1;
    assert_string_equal(bench__case_elements_problem(&def),
                        "label_size is below the first released size of struct bench_label");
    def.label_size = 0;
    def.metric_size = 4097;
    assert_string_equal(bench__case_elements_problem(&def),
                        "metric_size is above 4096 bytes, the most a libbench struct may have");
    def.metric_size = 1;
    assert_string_equal(bench__case_elements_problem(&def),
                        "metric_size is below the first released size of struct bench_metric");
    /* with no element, no stride is read */
    def.n_metrics = 0;
    assert_null(bench__case_elements_problem(&def));
}

/* bench_case outside --bench: the grown definition runs; each refusal returns BENCH_ESTRUCT and
 * runs nothing; an unknown mode (a uint32_t now) is BENCH_EINVAL. */
static void test_bench_case_inert(void **state)
{
    (void)state;
    struct bench_case_def def = grown_def();
    timed_calls = 0;
    assert_int_equal(bench_case(NULL, &def), 0);
    assert_int_equal(timed_calls, 1);

    grown_labels[1].extra = 5;
    assert_int_equal(bench_case(NULL, &def), BENCH_ESTRUCT);
    grown_labels[1].extra = 0;
    def.metric_size = BENCH_METRIC_SIZE_V1 / 2;
    assert_int_equal(bench_case(NULL, &def), BENCH_ESTRUCT);
    def.metric_size = 8192;
    assert_int_equal(bench_case(NULL, &def), BENCH_ESTRUCT);
    def.metric_size = sizeof grown_metrics[0];
    grown_metrics[1].now.mode = 2;
    assert_int_equal(bench_case(NULL, &def), BENCH_EINVAL);
    grown_metrics[1].now.mode = UINT32_MAX;
    assert_int_equal(bench_case(NULL, &def), BENCH_EINVAL);
    assert_int_equal(timed_calls, 1);
}

/* A definition whose size is just at the cap is a newer caller's (zero tail: accepted); above
 * it, refused whatever follows. */
static void test_bench_case_size_cap(void **state)
{
    (void)state;
    static union {
        struct bench_case_def def;
        unsigned char bytes[4096 + 16];
    } caller;
    memset(&caller, 0, sizeof caller);
    caller.def = grown_def();
    caller.def.size = 4096;
    timed_calls = 0;
    assert_int_equal(bench_case(NULL, &caller.def), 0);
    assert_int_equal(timed_calls, 1);
    caller.bytes[4095] = 1;
    assert_int_equal(bench_case(NULL, &caller.def), BENCH_ESTRUCT);
    caller.bytes[4095] = 0;
    caller.def.size = 4097;
    assert_int_equal(bench_case(NULL, &caller.def), BENCH_ESTRUCT);
    caller.def.size = UINT32_MAX;
    assert_int_equal(bench_case(NULL, &caller.def), BENCH_ESTRUCT);
    assert_int_equal(timed_calls, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_layout),         cmocka_unit_test(test_newer_layout),
        cmocka_unit_test(test_strides_out_of_range), cmocka_unit_test(test_bench_case_inert),
        cmocka_unit_test(test_bench_case_size_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
