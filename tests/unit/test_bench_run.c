/* SPDX-License-Identifier: MIT */
/* test_bench_run.c: the timing protocol end to end on a fake clock: doubling to the budget,
 * pinned counts, the per-call probe call and stop rule, a stalled clock, whole bodies. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bench/shim.h>

#include "internal.h"
#include "sources/source.h"

static int64_t fake_now;
static uint64_t calls;

/* ---- a fake counting source: it knows whether a bracket is open ---------------------- */

static bool counters_enabled;
static uint64_t counted_calls, uncounted_calls, brackets_seen, clock_reads_while_counting;

static int64_t fake_clock(void)
{
    if (counters_enabled)
        clock_reads_while_counting++; /* invariant 3: never a clock inside a bracket */
    return fake_now;
}

static const struct bench__column_desc fake_family[] = {
    {.name = "fake-calls",
     .header = "fake/iter",
     .format = BENCH__FORMAT_COUNT,
     .cls = BENCH__DIAGNOSTIC,
     .source = "fake",
     .is_default = true},
};

static int fake_state_token;

static void *fake_open(const struct bench__config *cfg, struct bench__caps *caps, char *status,
                       size_t status_size)
{
    (void)cfg;
    (void)status_size;
    status[0] = '\0';
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    return &fake_state_token;
}

static void fake_close(void *state)
{
    (void)state;
}

static void fake_pass_begin(void *state)
{
    (void)state;
    counted_calls = brackets_seen = 0;
}

static void fake_bracket_begin(void *state)
{
    (void)state;
    counters_enabled = true;
    brackets_seen++;
}

static void fake_bracket_end(void *state)
{
    (void)state;
    counters_enabled = false;
}

static void fake_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                          struct bench__counts *out)
{
    (void)state;
    assert_int_equal(brackets, brackets_seen);
    out->values[0] = (double)counted_calls / (double)iterations;
}

/* Workload windows: the fake counts `window_events` (a WORKLOAD body adds to it) for the
 * whole test and reports the delta between two edges with `window_scale` as its scale (and
 * NaN values when `window_dropped`, as a perf group's gates would). */
static uint64_t window_events;
static double window_scale = NAN;
static bool window_dropped;
static unsigned runs_begun, runs_ended, edges_read;
static bool in_run;

static void fake_run_begin(void *state)
{
    (void)state;
    assert_false(in_run);
    in_run = true;
    runs_begun++;
}

static void fake_edge_read(void *state, void *snapshot)
{
    (void)state;
    assert_true(in_run);
    edges_read++;
    memcpy(snapshot, &window_events, sizeof window_events);
}

static void fake_window_counts(void *state, const void *open, const void *close,
                               const struct bench__edge_shared shared[2], struct bench__counts *out)
{
    (void)state;
    (void)shared;
    uint64_t a, b;
    memcpy(&a, open, sizeof a);
    memcpy(&b, close, sizeof b);
    out->values[0] = window_dropped ? NAN : (double)(b - a);
    out->estimate[0] = !window_dropped && window_scale < 0.9995;
    out->scale = window_scale;
}

static void fake_run_end(void *state)
{
    (void)state;
    assert_true(in_run);
    in_run = false;
    runs_ended++;
}

static const struct bench__source_ops fake_source = {
    .name = "fake",
    .request_flag = "--perf",
    .family = fake_family,
    .n_family = 1,
    .open = fake_open,
    .close = fake_close,
    .pass_begin = fake_pass_begin,
    .bracket_begin = fake_bracket_begin,
    .bracket_end = fake_bracket_end,
    .pass_end = fake_pass_end,
    .edge_size = sizeof(uint64_t),
    .run_begin = fake_run_begin,
    .edge_read = fake_edge_read,
    .window_counts = fake_window_counts,
    .run_end = fake_run_end,
};
static const struct bench__source_ops *const fake_table[] = {&fake_source};

static void count_call(void)
{
    if (counters_enabled)
        counted_calls++;
    else
        uncounted_calls++;
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

BENCHMARK(counted_loop)
{
    BENCH_ITER(b)
    {
        count_call();
        fake_now += 1000;
    }
}

static void counted_timed(void *state)
{
    (void)state;
    count_call();
    fake_now += 1000;
}

static uint64_t after_while_counting;

static int counted_after(void *state, const char **message)
{
    (void)state;
    (void)message;
    if (counters_enabled)
        after_while_counting++;
    return 0;
}

BENCHMARK(counted_case)
{
    bench_case(b, BENCH_CASE_DEF(.name = "counted_case", .timed = counted_timed,
                                 .after = counted_after, .iterations = 200));
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

WORKLOAD(windowed)
{
    (void)b;
    window_events += 3;
}

/* Run one benchmark under --bench with the fake clock; return its JSON row. */
static json_t *run_one_with(const char *name, const char *extra, json_t **doc_out);

static json_t *run_one(const char *name, json_t **doc_out)
{
    return run_one_with(name, NULL, doc_out);
}

/* Run one test under --bench with the fake clock; return the JSON document. */
static json_t *run_doc(const char *name, const char *extra)
{
    char path[] = "/tmp/test_bench_run.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char pattern[128], json_arg[128];
    snprintf(pattern, sizeof pattern, "^test_bench_run\\.%s$", name);
    snprintf(json_arg, sizeof json_arg, "--bench-json=%s", path);
    char *argv[] = {(char *)"prog", (char *)"--bench", (char *)"-i", pattern,
                    json_arg,       (char *)extra,     NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, extra ? 6 : 5, argv, err, sizeof err), 0);
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
    return doc;
}

static json_t *run_one_with(const char *name, const char *extra, json_t **doc_out)
{
    json_t *doc = run_doc(name, extra);
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

static void use_fake_source(void)
{
    bench__sources = fake_table;
    bench__n_sources = 1;
    counters_enabled = false;
    clock_reads_while_counting = uncounted_calls = after_while_counting = 0;
}

static void test_counting_pass_of_a_loop(void **state)
{
    (void)state;
    const struct bench__source_ops *const *saved = bench__sources;
    size_t saved_n = bench__n_sources;
    use_fake_source();
    json_t *doc, *row = run_one_with("counted_loop", "--perf", &doc);
    bench__sources = saved;
    bench__n_sources = saved_n;
    /* timing: 1 µs per iteration → 8192 per sample; the pass counts every one of them */
    assert_int_equal((int64_t)num(row, "iterations"), 8192);
    assert_int_equal((int64_t)num(row, "countIterations"), 8192);
    json_t *metrics = json_object_get(row, "metrics");
    assert_true(json_number_value(json_object_get(metrics, "fake-calls")) == 1.0);
    /* auto batch: 1 ms / 1 µs = 1000 calls per bracket → 9 brackets for 8192 calls */
    assert_int_equal(brackets_seen, 9);
    assert_int_equal(clock_reads_while_counting, 0);
    json_decref(doc);
}

static void test_counting_pass_of_a_case(void **state)
{
    (void)state;
    const struct bench__source_ops *const *saved = bench__sources;
    size_t saved_n = bench__n_sources;
    use_fake_source();
    json_t *doc, *row = run_one_with("counted_case", "--perf", &doc);
    bench__sources = saved;
    bench__n_sources = saved_n;
    /* per-call rows: one call per bracket, `after` outside every bracket */
    assert_int_equal((int64_t)num(row, "countIterations"), 200);
    assert_int_equal(brackets_seen, 200);
    assert_int_equal(after_while_counting, 0);
    assert_int_equal(clock_reads_while_counting, 0);
    json_t *metrics = json_object_get(row, "metrics");
    assert_true(json_number_value(json_object_get(metrics, "fake-calls")) == 1.0);
    json_decref(doc);
}

/* The one window of WORKLOAD(windowed) with the fake source and `scale`; returns its JSON
 * (owned by *doc). */
static json_t *run_window(double scale, bool dropped, json_t **doc)
{
    const struct bench__source_ops *const *saved = bench__sources;
    size_t saved_n = bench__n_sources;
    use_fake_source();
    window_scale = scale;
    window_dropped = dropped;
    runs_begun = runs_ended = edges_read = 0;
    *doc = run_doc("windowed", "--perf");
    bench__sources = saved;
    bench__n_sources = saved_n;
    window_scale = NAN;
    window_dropped = false;
    /* the source counted for the whole test, read at the candidate window's two edges */
    assert_int_equal(runs_begun, 1);
    assert_int_equal(runs_ended, 1);
    assert_int_equal(edges_read, 2);
    assert_false(in_run);
    json_t *windows = json_object_get(*doc, "windows");
    assert_int_equal(json_array_size(windows), 1);
    json_t *win = json_array_get(windows, 0);
    assert_string_equal(json_string_value(json_object_get(win, "name")), "test_bench_run.windowed");
    return win;
}

static const char *window_note(json_t *win)
{
    json_t *note = json_object_get(win, "note");
    return note ? json_string_value(note) : "";
}

static void test_window_counts_of_a_workload(void **state)
{
    (void)state;
    json_t *doc, *win = run_window(NAN, false, &doc);
    json_t *fake = json_object_get(win, "fake");
    assert_true(json_number_value(json_object_get(fake, "fake-calls")) == 3.0);
    assert_null(json_object_get(fake, "estimatedMetrics"));
    assert_null(strstr(window_note(win), "fake:"));
    json_decref(doc);
}

static void test_window_note_never_scheduled(void **state)
{
    (void)state;
    json_t *doc, *win = run_window(0, true, &doc);
    assert_non_null(strstr(window_note(win), "fake: group never scheduled across the window"));
    assert_true(json_is_null(json_object_get(json_object_get(win, "fake"), "fake-calls")));
    json_decref(doc);
}

static void test_window_note_multiplexed_dropped(void **state)
{
    (void)state;
    json_t *doc, *win = run_window(0.25, true, &doc);
    assert_non_null(
        strstr(window_note(win), "fake: multiplexed window under 1 ms PMU time — counts dropped"));
    assert_null(strstr(window_note(win), "never scheduled"));
    json_decref(doc);
}

static void test_window_scaled_estimate_has_no_note(void **state)
{
    (void)state;
    json_t *doc, *win = run_window(0.5, false, &doc);
    assert_null(strstr(window_note(win), "fake:"));
    json_t *fake = json_object_get(win, "fake");
    assert_true(json_number_value(json_object_get(fake, "fake-calls")) == 3.0);
    json_t *estimated = json_object_get(fake, "estimatedMetrics");
    assert_int_equal(json_array_size(estimated), 1);
    assert_string_equal(json_string_value(json_array_get(estimated, 0)), "fake-calls");
    json_decref(doc);
}

static void test_perf_iters_and_batch_pins(void **state)
{
    (void)state;
    assert_int_equal(bench__count_iterations(0, 8192), 8192);
    assert_int_equal(bench__count_iterations(0, 1u << 20), 100000);
    assert_int_equal(bench__count_iterations(500, 1u << 20), 500);
    assert_int_equal(bench__count_iterations(0, 0), 1);
    assert_int_equal(bench__count_batch(0, 8192, 1000.0), 1000);
    assert_int_equal(bench__count_batch(0, 500, 1000.0), 500);
    assert_int_equal(bench__count_batch(0, 8192, 5e6), 1); /* bodies over 1 ms: 1 */
    assert_int_equal(bench__count_batch(0, 8192, NAN), 1);
    assert_int_equal(bench__count_batch(0, 8192, 0.0), 1);
    assert_int_equal(bench__count_batch(64, 8192, 1000.0), 64);
    assert_int_equal(bench__count_batch(100000, 8192, 1000.0), 8192);
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
        cmocka_unit_test(test_counting_pass_of_a_loop),
        cmocka_unit_test(test_counting_pass_of_a_case),
        cmocka_unit_test(test_window_counts_of_a_workload),
        cmocka_unit_test(test_window_note_never_scheduled),
        cmocka_unit_test(test_window_note_multiplexed_dropped),
        cmocka_unit_test(test_window_scaled_estimate_has_no_note),
        cmocka_unit_test(test_perf_iters_and_batch_pins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
