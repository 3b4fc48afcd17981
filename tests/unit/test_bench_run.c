/* SPDX-License-Identifier: MIT */
/* test_bench_run.c: the timing protocol end to end on a fake clock: doubling to the budget,
 * pinned counts, the per-call probe call and stop rule, a stalled clock, whole bodies. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include <bench/shim.h>

#include "internal.h"

static int64_t fake_now;
static uint64_t calls;

static int64_t fake_clock(void)
{
    return fake_now;
}

BENCHMARK(iter_100ns)
{
    BENCH_ITER(b)
    {
        fake_now += 100;
    }
}

BENCHMARK(iter_pinned, .iterations = 7)
{
    BENCH_ITER(b)
    {
        fake_now += 10;
    }
}

BENCHMARK(whole_50ns)
{
    fake_now += 50;
}

static void advance_1000(void *state)
{
    (void)state;
    calls++;
    fake_now += 1000;
}

static void no_time(void *state)
{
    (void)state;
    calls++;
}

static int fail_first(void *state, const char **message)
{
    (void)state;
    *message = "bad result";
    return 1;
}

BENCHMARK(per_call)
{
    bench_case(b, BENCH_CASE_DEF(.name = "per_call", .timed = advance_1000));
}

BENCHMARK(per_call_pinned)
{
    bench_case(b,
               BENCH_CASE_DEF(.name = "per_call_pinned", .timed = advance_1000, .iterations = 40));
}

BENCHMARK(stalled)
{
    bench_case(b, BENCH_CASE_DEF(.name = "stalled", .timed = no_time));
}

BENCHMARK(probe_fails)
{
    bench_case(b,
               BENCH_CASE_DEF(.name = "probe_fails", .timed = advance_1000, .after = fail_first));
}

BENCHMARK(smoke_fails)
{
    BENCH_ITER(b)
    {
        BENCH_CHECK(fake_now < 0);
    }
}

BENCHMARK(smoke_skips)
{
    bench_skip(b, "not here");
}

/* Run one benchmark under --bench with the fake clock; return its JSON row. */
static json_t *run_one(const char *name, json_t **doc_out)
{
    char path[] = "/tmp/test_bench_run.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char pattern[128], json_arg[128];
    snprintf(pattern, sizeof pattern, "^test_bench_run\\.%s$", name);
    snprintf(json_arg, sizeof json_arg, "--bench-json=%s", path);
    char *argv[] = {(char *)"prog", (char *)"--bench", (char *)"-i", pattern, json_arg, NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, 5, argv, err, sizeof err), 0);
    struct bench__suite suite;
    assert_int_equal(bench__suite_load(&suite, NULL, err, sizeof err), 0);
    bench__suite_filter(&suite, &cfg);
    assert_int_equal(suite.count, 1);
    calls = 0;
    fake_now = 1000000;
    bench__clock_ns = fake_clock;
    (void)bench__run_bench(&cfg, &suite);
    bench__suite_free(&suite);
    bench__config_free(&cfg);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    unlink(path);
    assert_non_null(doc);
    json_t *rows = json_object_get(doc, "rows");
    assert_int_equal(json_array_size(rows), 1);
    *doc_out = doc;
    return json_array_get(rows, 0);
}

static double num(json_t *row, const char *key)
{
    json_t *v = json_object_get(row, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

static void test_batched_doubles_to_the_budget(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("iter_100ns", &doc);
    /* 100 ns per iteration reaches the 5 ms budget at 2^16 = 65536 iterations */
    assert_int_equal((int64_t)num(row, "iterations"), 65536);
    assert_int_equal((int64_t)num(row, "samples"), 32);
    assert_true(num(row, "medianNs") == 100.0);
    assert_true(num(row, "deviationNs") == 0.0);
    json_decref(doc);
}

static void test_batched_pinned_never_scales(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("iter_pinned", &doc);
    assert_int_equal((int64_t)num(row, "iterations"), 7);
    assert_int_equal((int64_t)num(row, "samples"), 32);
    assert_true(num(row, "medianNs") == 10.0);
    json_decref(doc);
}

static void test_whole_body(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("whole_50ns", &doc);
    /* 50 ns per call: 65536 calls are 3.3 ms, 131072 are 6.6 ms */
    assert_int_equal((int64_t)num(row, "iterations"), 131072);
    assert_true(num(row, "medianNs") == 50.0);
    assert_string_equal(json_string_value(json_object_get(row, "name")),
                        "test_bench_run.whole_50ns");
    json_decref(doc);
}

static void test_per_call_probe_and_budget(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("per_call", &doc);
    /* at least 32 samples and 5 ms in total: 5000 calls of 1 µs, plus the untimed probe */
    assert_int_equal((int64_t)num(row, "samples"), 5000);
    assert_int_equal((int64_t)num(row, "iterations"), 1);
    assert_int_equal(calls, 5001);
    assert_true(num(row, "medianNs") == 1000.0);
    json_decref(doc);
}

static void test_per_call_pinned_has_no_probe(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("per_call_pinned", &doc);
    assert_int_equal((int64_t)num(row, "samples"), 40);
    assert_int_equal(calls, 40);
    json_decref(doc);
}

static void test_per_call_stalled_clock_stops_at_32(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("stalled", &doc);
    assert_int_equal((int64_t)num(row, "samples"), 32);
    assert_int_equal(calls, 33);
    assert_true(num(row, "medianNs") == 0.0);
    json_decref(doc);
}

static void test_probe_after_error_is_an_error_row(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("probe_fails", &doc);
    assert_int_equal(calls, 1);
    assert_true(json_is_null(json_object_get(row, "medianNs")));
    assert_string_equal(json_string_value(json_object_get(row, "error")), "bad result");
    json_decref(doc);
}

static void test_smoke_runs_a_body_once(void **state)
{
    (void)state;
    fake_now = 0;
    assert_int_equal(bench_smoke("iter_100ns"), 0);
    assert_true(fake_now == 100); /* BENCH_ITER ran its body exactly once */
    assert_int_equal(bench_smoke("test_bench_run.whole_50ns"), 0);
    assert_int_equal(bench_smoke("smoke_fails"), 1);
    assert_int_equal(bench_smoke("smoke_skips"), 2);
    assert_int_equal(bench_smoke("nothing"), BENCH_ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batched_doubles_to_the_budget),
        cmocka_unit_test(test_batched_pinned_never_scales),
        cmocka_unit_test(test_whole_body),
        cmocka_unit_test(test_per_call_probe_and_budget),
        cmocka_unit_test(test_per_call_pinned_has_no_probe),
        cmocka_unit_test(test_per_call_stalled_clock_stops_at_32),
        cmocka_unit_test(test_probe_after_error_is_an_error_row),
        cmocka_unit_test(test_smoke_runs_a_body_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
