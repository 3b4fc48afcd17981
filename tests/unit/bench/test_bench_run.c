/* SPDX-License-Identifier: MIT */
/* test_bench_run.c: the timing protocol end to end on a fake clock: doubling to the budget (and
 * through a preempted sample), pinned counts, the per-call probe call and stop rule, a stalled
 * clock, whole bodies, one row per name and labels, and sampling rounds (--bench-rounds). */
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

#include "entry/cli.h"
#include "bench/supervising/run.h"
#include "bench/measuring/sampler.h"
#include "sources/source.h"
#include "suite/registry.h"
#include "util/clock.h"

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

/* The thread CPU clock: half the fake time (the body is on a CPU half the time it takes). */
static int64_t fake_cpu_clock(void)
{
    if (counters_enabled)
        clock_reads_while_counting++;
    return fake_now / 2;
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

static void *fake_open(const struct bench__source_request *req, struct bench__caps *caps,
                       char *status, size_t status_size)
{
    (void)req;
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
    out->scaled_group = !isnan(window_scale); /* a perf-backed source reports its scale */
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
    .flag = "perf",
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

/* 100 ns per iteration, but the first batch of 8192 iterations takes 10× as long (the body
 * was preempted during the doubling). */
static bool preempted_once;

BENCHMARK(iter_preempted)
{
    for (uint64_t n = bench_iter_begin(b); n != 0; n = bench_iter_next(b)) {
        int64_t cost = 100 * (int64_t)n;
        if (n == 8192 && !preempted_once) {
            preempted_once = true;
            cost *= 10;
        }
        fake_now += cost;
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

/* 4.7 us calls, the 11th timed call preempted for 4 ms (the 1063 calls fell to 353) */
static void preempted_tenth(void *state)
{
    (void)state;
    fake_now += calls == 11 ? 4000000 : 4700; /* call 0 is the untimed probe */
    calls++;
}

BENCHMARK(per_call_preempted)
{
    bench_case(b, BENCH_CASE_DEF(.name = "per_call_preempted", .timed = preempted_tenth));
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

/* ---- one row per name and labels: bodies whose cases or rows would share a cell --------- */

static int dup_codes[8];
static const struct bench_label impl_x[] = {{"impl", "x"}};

/* Two bodies register the case 'shared' {impl=x}; the second one registers it twice. */
BENCHMARK(dup_a)
{
    dup_codes[0] = bench_case(b, BENCH_CASE_DEF(.name = "shared", .labels = impl_x, .n_labels = 1,
                                                .timed = advance_1000, .iterations = 40));
}

BENCHMARK(dup_b)
{
    for (int k = 1; k <= 2; k++)
        dup_codes[k] =
            bench_case(b, BENCH_CASE_DEF(.name = "shared", .labels = impl_x, .n_labels = 1,
                                         .timed = advance_1000, .iterations = 40));
}

/* Cases whose rows (test_bench_run.<name>) are named like the rows of BENCHMARK iter_100ns
 * of this file (its loop, its 2nd loop, its failure after loops), and names that are not (no
 * labels: #1 and #02 are never row names; a label makes another cell). */
BENCHMARK(dup_named_like_rows)
{
    static const char *const names[] = {
        "iter_100ns", "iter_100ns#2", "iter_100ns (body)", "iter_100ns#1", "iter_100ns#02",
    };
    for (int k = 0; k < 5; k++)
        dup_codes[k] = bench_case(
            b, BENCH_CASE_DEF(.name = names[k], .timed = advance_1000, .iterations = 40));
    dup_codes[5] =
        bench_case(b, BENCH_CASE_DEF(.name = "iter_100ns", .labels = impl_x, .n_labels = 1,
                                     .timed = advance_1000, .iterations = 40));
}

/* ---- row names: <file-stem>.<name> for a BENCHMARK's rows and a case's alike ------------- */

/* A BENCHMARK whose one case has the BENCHMARK's name: the case is its row. */
BENCHMARK(named_case)
{
    dup_codes[0] = bench_case(
        b, BENCH_CASE_DEF(.name = "named_case", .timed = advance_1000, .iterations = 40));
}

/* The same, and then the body fails: its failure row is "named_case_fails (body)". */
BENCHMARK(named_case_fails)
{
    dup_codes[1] = bench_case(
        b, BENCH_CASE_DEF(.name = "named_case_fails", .timed = advance_1000, .iterations = 40));
    bench_fail(b, "after its case");
}

/* A case that another BENCHMARK of this file names like named_case's row: refused. */
BENCHMARK(takes_named_case)
{
    dup_codes[2] = bench_case(
        b, BENCH_CASE_DEF(.name = "named_case", .timed = advance_1000, .iterations = 40));
}

/* A body of another file (stem "codec") registering the case 'shared' {impl=x}, as dup_a of
 * this file does: two rows, codec.shared and test_bench_run.shared. */
static void codec_body(bench_t *b)
{
    dup_codes[3] = bench_case(b, BENCH_CASE_DEF(.name = "shared", .labels = impl_x, .n_labels = 1,
                                                .timed = advance_1000, .iterations = 40));
}

static const struct bench_benchmark_opts codec_opts = {.size = sizeof(struct bench_benchmark_opts)};
static struct bench_test codec_test = {.size = sizeof(struct bench_test),
                                       .kind = BENCH_KIND_BENCHMARK,
                                       .name = "matrix",
                                       .file = "src/codec/codec.c",
                                       .line = 1,
                                       .build = BENCH_BUILD_NDEBUG | BENCH_BUILD_OPTIMIZED,
                                       .compiler = "test",
                                       .fn = codec_body,
                                       .benchmark = &codec_opts};

__attribute__((constructor)) static void register_codec_test(void)
{
    bench_register(&codec_test);
}

/* Label keys given twice (the second pair only once the document's UTF-8 repair is applied),
 * and two names that are one name in the document: 0xE9 is not UTF-8 and becomes U+FFFD. */
BENCHMARK(dup_keys)
{
    static const struct bench_label twice[] = {{"impl", "a"}, {"size", "1"}, {"impl", "b"}};
    static const struct bench_label repaired[] = {{"k\xff", "a"}, {"k\xfe", "b"}};
    dup_codes[0] = bench_case(b, BENCH_CASE_DEF(.name = "keys", .labels = twice, .n_labels = 3,
                                                .timed = advance_1000, .iterations = 40));
    dup_codes[1] = bench_case(b, BENCH_CASE_DEF(.name = "keys2", .labels = repaired, .n_labels = 2,
                                                .timed = advance_1000, .iterations = 40));
    dup_codes[2] =
        bench_case(b, BENCH_CASE_DEF(.name = "caf\xe9", .timed = advance_1000, .iterations = 40));
    dup_codes[3] = bench_case(
        b, BENCH_CASE_DEF(.name = "caf\xef\xbf\xbd", .timed = advance_1000, .iterations = 40));
}

/* Two loops: rows test_bench_run.two_loops and test_bench_run.two_loops#2. */
BENCHMARK(two_loops)
{
    BENCH_ITER(b)
    {
        fake_now += 100;
    }
    BENCH_ITER(b)
    {
        fake_now += 100;
    }
}

/* A body registered by hand under a name no BENCHMARK macro can give, "two_loops#2": its
 * whole-body row would take the name of two_loops's second loop. Only the last check on a
 * finished row can catch this one. */
static void odd_body(bench_t *b)
{
    (void)b;
    fake_now += 50;
}

static const struct bench_benchmark_opts odd_opts = {.size = sizeof(struct bench_benchmark_opts)};
static struct bench_test odd_test = {.size = sizeof(struct bench_test),
                                     .kind = BENCH_KIND_BENCHMARK,
                                     .name = "two_loops#2",
                                     .file = __FILE__,
                                     .line = __LINE__,
                                     .build = BENCH_BUILD_NDEBUG | BENCH_BUILD_OPTIMIZED,
                                     .compiler = "test",
                                     .fn = odd_body,
                                     .benchmark = &odd_opts};

__attribute__((constructor)) static void register_odd_test(void)
{
    bench_register(&odd_test);
}

/* ---- sampling rounds (--bench-rounds): bodies that record how they were run ------------ */

/* One entry per call of a logged body: which body, and how many batches of its loop ran
 * with a count below 65536 (still doubling) and at 65536 (a sample, one of the two discarded
 * samples that stop the doubling, or a round's discarded warm-up sample). */
struct body_entry {
    char body;
    unsigned small, full;
};
enum { MAX_ENTRIES = 64 };
static struct body_entry entry_log[MAX_ENTRIES];
static size_t n_entries;

static void reset_entry_log(void)
{
    memset(entry_log, 0, sizeof entry_log);
    n_entries = 0;
}

/* The letters of the logged bodies in the order they were entered, e.g. "ABAB". */
static const char *entry_letters(void)
{
    static char letters[MAX_ENTRIES + 1];
    size_t n = n_entries < MAX_ENTRIES ? n_entries : MAX_ENTRIES;
    for (size_t i = 0; i < n; i++)
        letters[i] = entry_log[i].body;
    letters[n] = '\0';
    return letters;
}

/* BENCH_ITER written out, at 100 ns per iteration, so the count of every batch is seen. */
static void logged_loop(bench_t *b, char body)
{
    struct body_entry *e = n_entries < MAX_ENTRIES ? &entry_log[n_entries] : NULL;
    n_entries++;
    if (e)
        e->body = body;
    for (uint64_t n = bench_iter_begin(b); n != 0; n = bench_iter_next(b)) {
        if (e && n < 65536)
            e->small++;
        else if (e)
            e->full++;
        fake_now += 100 * (int64_t)n;
    }
}

BENCHMARK(rounds_a)
{
    logged_loop(b, 'A');
}

BENCHMARK(rounds_b)
{
    logged_loop(b, 'B');
}

BENCHMARK(rounds_pinned, .iterations = 7)
{
    logged_loop(b, 'P');
}

/* A whole-body row at 50 ns per call that counts its calls. */
BENCHMARK(rounds_whole)
{
    (void)b;
    calls++;
    fake_now += 50;
}

/* A per-call row whose setup and body entries are counted. */
static unsigned case_setups, case_body_entries;

static void count_setup(void *state)
{
    (void)state;
    case_setups++;
}

BENCHMARK(rounds_case)
{
    case_body_entries++;
    bench_case(b,
               BENCH_CASE_DEF(.name = "rounds_case", .setup = count_setup, .timed = advance_1000));
}

/* A loop whose check fails in the first iteration of the fail_on-th call of the body, or of
 * every call when fail_always is set. */
static unsigned fail_entries, fail_on;
static bool fail_always;

BENCHMARK(rounds_fails)
{
    unsigned entry = ++fail_entries;
    BENCH_ITER(b)
    {
        BENCH_CHECK(entry != fail_on && !fail_always);
        fake_now += 100;
    }
}

/* Run one benchmark under --bench with the fake clock; return its JSON row. */
static json_t *run_one_with(const char *name, const char *extra, json_t **doc_out);

static json_t *run_one(const char *name, json_t **doc_out)
{
    return run_one_with(name, NULL, doc_out);
}

/* The exit status and the text of the document of the last run_selected(). */
static int last_status;
static char *last_text;

/* Run the tests whose names (after "test_bench_run.") match the ERE `names`, `n_selected` of
 * them, under --bench with the fake clock and the NULL-terminated `extra` arguments; return
 * the JSON document. */
/* Run the tests whose full names match `pattern` (n_selected of them) under --bench with the
 * fake clock; return the JSON document. */
static json_t *run_pattern(const char *pattern, size_t n_selected, const char *const *extra)
{
    char path[] = "/tmp/test_bench_run.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char json_arg[128];
    snprintf(json_arg, sizeof json_arg, "--bench-json=%s", path);
    char *argv[16] = {(char *)"prog", (char *)"--bench", (char *)"-i", (char *)pattern, json_arg};
    int argc = 5;
    for (size_t i = 0; extra && extra[i]; i++) {
        assert_true(argc < 15);
        argv[argc++] = (char *)extra[i];
    }
    argv[argc] = NULL;
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, argc, argv, err, sizeof err), 0);
    struct bench__suite suite;
    assert_int_equal(bench__suite_load(&suite, NULL, err, sizeof err), 0);
    bench__suite_filter(&suite, &cfg);
    assert_int_equal(suite.count, n_selected);
    calls = 0;
    fake_now = 1000000;
    bench__clock_measure_ns = fake_clock;
    bench__clock_thread_cpu_ns = fake_cpu_clock;
    last_status = bench__run_bench(&cfg, &suite);
    bench__suite_free(&suite);
    bench__config_free(&cfg);
    free(last_text);
    last_text = NULL;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[4096];
    size_t len = 0, got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        char *grown = realloc(last_text, len + got + 1);
        assert_non_null(grown);
        last_text = grown;
        memcpy(last_text + len, buf, got);
        len += got;
    }
    fclose(f);
    unlink(path);
    assert_non_null(last_text);
    last_text[len] = '\0';
    json_error_t jerr;
    json_t *doc = json_loads(last_text, 0, &jerr);
    assert_non_null(doc);
    return doc;
}

/* Run the tests of this file named `names` (an ERE alternation), n_selected of them. */
static json_t *run_selected(const char *names, size_t n_selected, const char *const *extra)
{
    char pattern[256];
    snprintf(pattern, sizeof pattern, "^test_bench_run\\.(%s)$", names);
    return run_pattern(pattern, n_selected, extra);
}

/* Run one test under --bench with the fake clock; return the JSON document. */
static json_t *run_doc(const char *name, const char *extra)
{
    const char *const args[] = {extra, NULL};
    return run_selected(name, 1, args);
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
    /* the thread's CPU time per iteration over the kept samples (issue 32, point 4) */
    assert_true(num(row, "cpuNs") == 50.0);
    json_decref(doc);
}

/* One preempted sample during the doubling: the row still gets the count its budget needs
 * (8192 iterations take 8.2 ms when preempted, but 0.8 ms when timed again). */
static void test_batched_preempted_sample_keeps_doubling(void **state)
{
    (void)state;
    preempted_once = false;
    json_t *doc, *row = run_one("iter_preempted", &doc);
    assert_true(preempted_once);
    assert_int_equal((int64_t)num(row, "iterations"), 65536);
    assert_int_equal((int64_t)num(row, "samples"), 32);
    assert_true(num(row, "medianNs") == 100.0);
    assert_true(num(row, "maxNs") == 100.0); /* the slow sample was not kept */
    assert_true(num(row, "cpuNs") == 50.0);  /* nor its CPU time */
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
    assert_true(num(row, "cpuNs") == 25.0);
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
    assert_null(json_object_get(row, "cpuNs")); /* single-call samples: not measured */
    json_decref(doc);
}

/* One preempted call cannot shrink n below the minimum of 1000 calls (docs/reference/cli.md,
 * --bench-min-time): without it the row takes 1064 calls; with it the budget is reached after
 * 214, and the row takes 1000. */
static void test_per_call_preempted_keeps_the_minimum(void **state)
{
    (void)state;
    json_t *doc, *row = run_one("per_call_preempted", &doc);
    assert_int_equal((int64_t)num(row, "samples"), 1000);
    assert_int_equal(calls, 1001);
    assert_true(num(row, "medianNs") == 4700.0);
    assert_true(num(row, "maxNs") == 4000000.0);
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

/* A body that skips before any loop or case: the skip line on stderr, no row, not a failure. */
static void test_skip_before_registering_is_a_line_not_a_row(void **state)
{
    (void)state;
    char path[] = "/tmp/test_bench_run_err.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    json_t *doc = run_doc("smoke_skips", NULL);
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    char err[1024] = "";
    ssize_t n = pread(fd, err, sizeof err - 1, 0);
    close(fd);
    unlink(path);
    assert_true(n > 0);
    err[n] = '\0';
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 0);
    assert_int_equal(last_status, 0);
    assert_non_null(strstr(err, " \xe2\x8a\x98 test_bench_run.smoke_skips (not here)\n"));
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
    assert_null(json_object_get(fake, "scale")); /* not a perf group: no scale */
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
    /* a ratio that rounds to 1 (running just under enabled, under 1 ms): dropped all the same */
    win = run_window(1, true, &doc);
    assert_non_null(
        strstr(window_note(win), "fake: multiplexed window under 1 ms PMU time — counts dropped"));
    json_decref(doc);
}

static void test_window_scaled_estimate_has_no_note(void **state)
{
    (void)state;
    json_t *doc, *win = run_window(0.5, false, &doc);
    assert_null(strstr(window_note(win), "fake:"));
    json_t *fake = json_object_get(win, "fake");
    assert_true(json_number_value(json_object_get(fake, "fake-calls")) == 3.0);
    /* an estimate is said by the group's scale, as the window reports it */
    assert_true(json_number_value(json_object_get(fake, "scale")) == 0.5);
    assert_null(json_object_get(fake, "estimatedMetrics"));
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

/* ---- one row per name and labels ------------------------------------------------------- */

static json_t *row_named(json_t *doc, const char *name);

/* No two rows of the document have the same name and labels (the rule of `libbench compare`'s
 * reader, tools/compare/bench_json.c). */
static void assert_cells_unique(json_t *doc)
{
    json_t *rows = json_object_get(doc, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++)
        for (size_t j = 0; j < i; j++) {
            json_t *a = json_array_get(rows, i), *b = json_array_get(rows, j);
            bool same = json_equal(json_object_get(a, "name"), json_object_get(b, "name")) &&
                        json_equal(json_object_get(a, "labels"), json_object_get(b, "labels"));
            if (same)
                print_message("rows[%zu] and rows[%zu] are both '%s'\n", i, j,
                              json_string_value(json_object_get(a, "name")));
            assert_false(same);
        }
}

static json_t *row_at(json_t *doc, size_t i)
{
    return json_array_get(json_object_get(doc, "rows"), i);
}

static const char *text_of(json_t *row, const char *key)
{
    const char *s = json_string_value(json_object_get(row, key));
    assert_non_null(s);
    return s;
}

/* The case a run has already is refused where it is registered again: an error row under the
 * first free name "shared (2)", "shared (3)", whose note names both bodies; the first row is
 * measured as usual. The same with --group-by (cases measured after every body). */
static void test_duplicate_case_is_refused(void **state)
{
    (void)state;
    static const char *const modes[] = {NULL, "--group-by=impl"};
    for (size_t k = 0; k < 2; k++) {
        const char *const args[] = {modes[k], NULL};
        memset(dup_codes, 0x55, sizeof dup_codes);
        json_t *doc = run_selected("dup_a|dup_b", 2, args);
        assert_int_equal(last_status, 1);
        assert_int_equal(dup_codes[0], 0);
        assert_int_equal(dup_codes[1], BENCH_EDUP);
        assert_int_equal(dup_codes[2], BENCH_EDUP);
        assert_int_equal(json_array_size(json_object_get(doc, "rows")), 3);
        assert_cells_unique(doc);
        static const char *const names[] = {"test_bench_run.shared", "test_bench_run.shared (2)",
                                            "test_bench_run.shared (3)"};
        for (size_t i = 0; i < 3; i++) {
            json_t *row = row_at(doc, i);
            assert_string_equal(text_of(row, "name"), names[i]);
            assert_string_equal(text_of(json_object_get(row, "labels"), "impl"), "x");
            if (i == 0) {
                assert_string_equal(text_of(row, "error"), "");
                assert_int_equal((int64_t)num(row, "samples"), 40);
                continue;
            }
            assert_string_equal(text_of(row, "error"),
                                "registration: the case 'test_bench_run.shared' {impl=x} is "
                                "registered by test_bench_run.dup_a and again by "
                                "test_bench_run.dup_b: a run has one row per case name and "
                                "labels");
        }
        json_decref(doc);
    }
    /* a run of one of them alone has no duplicate */
    memset(dup_codes, 0x55, sizeof dup_codes);
    json_t *doc = run_doc("dup_a", NULL);
    assert_int_equal(last_status, 0);
    assert_int_equal(dup_codes[0], 0);
    json_decref(doc);
}

/* A case without labels may not take a name that a BENCHMARK of the run names its own rows
 * with; only when that BENCHMARK is in the run. */
static void test_case_named_like_a_body_row(void **state)
{
    (void)state;
    memset(dup_codes, 0x55, sizeof dup_codes);
    json_t *doc = run_selected("iter_100ns|dup_named_like_rows", 2, NULL);
    assert_int_equal(last_status, 1);
    static const int codes[] = {BENCH_EDUP, BENCH_EDUP, BENCH_EDUP, 0, 0, 0};
    for (size_t k = 0; k < 6; k++)
        assert_int_equal(dup_codes[k], codes[k]);
    assert_cells_unique(doc);
    json_t *row = row_named(doc, "test_bench_run.iter_100ns (2)");
    assert_string_equal(text_of(row, "error"),
                        "registration: the case name 'test_bench_run.iter_100ns' without labels "
                        "is the name of a row of BENCHMARK test_bench_run.iter_100ns: give the "
                        "case a label or another name");
    /* the case with the label has the cell test_bench_run.iter_100ns {impl=x} */
    json_t *labelled = NULL;
    for (size_t i = 0; i < json_array_size(json_object_get(doc, "rows")); i++) {
        json_t *r = row_at(doc, i);
        if (!strcmp(text_of(r, "name"), "test_bench_run.iter_100ns") &&
            json_object_size(json_object_get(r, "labels")) == 1)
            labelled = r;
    }
    assert_non_null(labelled);
    assert_string_equal(text_of(labelled, "error"), "");
    assert_non_null(strstr(text_of(row_named(doc, "test_bench_run.iter_100ns#2 (2)"), "error"),
                           "is the name of a row of BENCHMARK test_bench_run.iter_100ns"));
    assert_non_null(strstr(text_of(row_named(doc, "test_bench_run.iter_100ns (body) (2)"), "error"),
                           "is the name of a row of BENCHMARK test_bench_run.iter_100ns"));
    assert_string_equal(text_of(row_named(doc, "test_bench_run.iter_100ns"), "error"), "");
    assert_string_equal(text_of(row_named(doc, "test_bench_run.iter_100ns#1"), "error"), "");
    assert_string_equal(text_of(row_named(doc, "test_bench_run.iter_100ns#02"), "error"), "");
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 7);
    json_decref(doc);

    memset(dup_codes, 0x55, sizeof dup_codes);
    doc = run_doc("dup_named_like_rows", NULL);
    assert_int_equal(last_status, 0);
    for (size_t k = 0; k < 6; k++)
        assert_int_equal(dup_codes[k], 0);
    json_decref(doc);
}

/* A BENCHMARK's rows and a case's rows are named by one rule, <file-stem>.<name>: a case may
 * have its BENCHMARK's own name (it is that BENCHMARK's row, and a failure of the body after it
 * is "<name> (body)"), another body's case may not take it, and a case of another file with the
 * same name and labels is another cell. */
static void test_case_rows_named_by_file_stem(void **state)
{
    (void)state;
    memset(dup_codes, 0x55, sizeof dup_codes);
    json_t *doc = run_selected("iter_100ns|named_case|named_case_fails|takes_named_case", 4, NULL);
    assert_int_equal(last_status, 1);
    assert_int_equal(dup_codes[0], 0);
    assert_int_equal(dup_codes[1], 0);
    assert_int_equal(dup_codes[2], BENCH_EDUP);
    assert_cells_unique(doc);
    /* the loop row of a BENCHMARK and the row of a case: one rule */
    assert_string_equal(text_of(row_named(doc, "test_bench_run.iter_100ns"), "error"), "");
    json_t *own = row_named(doc, "test_bench_run.named_case");
    assert_string_equal(text_of(own, "error"), "");
    assert_int_equal((int64_t)num(own, "samples"), 40);
    assert_int_equal((int64_t)num(own, "iterations"), 1); /* a case: one call per sample */
    assert_string_equal(text_of(row_named(doc, "test_bench_run.named_case_fails"), "error"), "");
    assert_string_equal(text_of(row_named(doc, "test_bench_run.named_case_fails (body)"), "error"),
                        "after its case");
    assert_string_equal(text_of(row_named(doc, "test_bench_run.named_case (2)"), "error"),
                        "registration: the case name 'test_bench_run.named_case' without labels "
                        "is the name of a row of BENCHMARK test_bench_run.named_case: give the "
                        "case a label or another name");
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 5);
    json_decref(doc);

    /* the same case name and labels in two files: two cells, both measured */
    memset(dup_codes, 0x55, sizeof dup_codes);
    doc = run_pattern("^(test_bench_run\\.dup_a|codec\\.matrix)$", 2, NULL);
    assert_int_equal(last_status, 0);
    assert_int_equal(dup_codes[0], 0);
    assert_int_equal(dup_codes[3], 0);
    assert_cells_unique(doc);
    json_t *mine = row_named(doc, "test_bench_run.shared");
    json_t *theirs = row_named(doc, "codec.shared");
    assert_string_equal(text_of(mine, "error"), "");
    assert_string_equal(text_of(theirs, "error"), "");
    assert_string_equal(text_of(json_object_get(theirs, "labels"), "impl"), "x");
    json_decref(doc);
}

/* A label key given twice is refused (the document's labels are an object): the row keeps the
 * first; two names that the document writes alike are one cell. */
static void test_repeated_label_key_and_repaired_names(void **state)
{
    (void)state;
    memset(dup_codes, 0x55, sizeof dup_codes);
    json_t *doc = run_doc("dup_keys", NULL);
    assert_int_equal(last_status, 1);
    assert_int_equal(dup_codes[0], BENCH_EDUP);
    assert_int_equal(dup_codes[1], BENCH_EDUP);
    assert_int_equal(dup_codes[2], 0);
    assert_int_equal(dup_codes[3], BENCH_EDUP);
    assert_cells_unique(doc);
    json_t *keys = row_named(doc, "test_bench_run.keys");
    assert_string_equal(text_of(keys, "error"), "registration: two labels have the same key");
    json_t *labels = json_object_get(keys, "labels");
    assert_int_equal(json_object_size(labels), 2);
    assert_string_equal(text_of(labels, "impl"), "a");
    assert_string_equal(text_of(labels, "size"), "1");
    assert_int_equal(
        json_object_size(json_object_get(row_named(doc, "test_bench_run.keys2"), "labels")), 1);
    assert_string_equal(text_of(row_named(doc, "test_bench_run.caf\xef\xbf\xbd"), "error"), "");
    assert_non_null(strstr(text_of(row_named(doc, "test_bench_run.caf\xef\xbf\xbd (2)"), "error"),
                           "is registered twice by test_bench_run.dup_keys"));
    json_decref(doc);

    /* outside --bench the definition is refused the same way, and nothing runs */
    calls = 0;
    assert_int_equal(
        bench_case(NULL, BENCH_CASE_DEF(.name = "keys",
                                        .labels = (const struct bench_label[]){{"impl", "a"},
                                                                               {"impl", "b"}},
                                        .n_labels = 2, .timed = advance_1000)),
        BENCH_EDUP);
    assert_int_equal(calls, 0);
}

/* The last check on a finished row: a body registered under the name "two_loops#2" would have
 * the name of two_loops's second loop; the later row becomes an error row under a free name. */
static void test_body_rows_never_share_a_cell(void **state)
{
    (void)state;
    json_t *doc = run_selected("two_loops|two_loops#2", 2, NULL);
    assert_int_equal(last_status, 1);
    assert_cells_unique(doc);
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 3);
    assert_string_equal(text_of(row_at(doc, 0), "name"), "test_bench_run.two_loops");
    assert_string_equal(text_of(row_at(doc, 1), "name"), "test_bench_run.two_loops#2");
    assert_string_equal(text_of(row_at(doc, 1), "error"), "");
    assert_string_equal(text_of(row_at(doc, 2), "name"), "test_bench_run.two_loops#2 (2)");
    assert_string_equal(text_of(row_at(doc, 2), "error"),
                        "'test_bench_run.two_loops#2' is already a row of "
                        "test_bench_run.two_loops");
    json_decref(doc);
}

/* ---- sampling rounds (--bench-rounds) --------------------------------------------------- */

static json_t *row_named(json_t *doc, const char *name)
{
    json_t *rows = json_object_get(doc, "rows"), *row;
    size_t i;
    json_array_foreach(rows, i, row)
    {
        if (!strcmp(json_string_value(json_object_get(row, "name")), name))
            return row;
    }
    print_message("no row named %s\n", name);
    fail();
    return NULL;
}

static json_t *run_rounds(const char *names, size_t n_selected, const char *rounds)
{
    const char *const args[] = {rounds, NULL};
    return run_selected(names, n_selected, args);
}

/* A BENCH_ITER row keeps its iterations per sample and its 32 samples. */
static void test_rounds_keep_count_and_samples(void **state)
{
    (void)state;
    json_t *doc = run_rounds("iter_100ns", 1, "--bench-rounds=4");
    json_t *row = row_named(doc, "test_bench_run.iter_100ns");
    assert_int_equal((int64_t)num(row, "iterations"), 65536);
    assert_int_equal((int64_t)num(row, "samples"), 32);
    assert_true(num(row, "medianNs") == 100.0);
    assert_true(num(row, "deviationNs") == 0.0);
    assert_true(num(row, "minNs") == 100.0 && num(row, "maxNs") == 100.0);
    assert_string_equal(json_string_value(json_object_get(row, "error")), "");
    assert_int_equal(last_status, 0);
    json_decref(doc);
}

/* Each round runs the body once. The count doubles in the first round only (16 batches
 * below 65536, then the two discarded samples at 65536 that stop the doubling); every later
 * round discards one warm-up sample; early rounds take 32/N samples each and the last one the
 * rest. */
static void test_rounds_share_the_samples(void **state)
{
    (void)state;
    static const struct {
        const char *arg;
        unsigned rounds;
    } table[] = {
        {NULL, 1},
        {"--bench-rounds=0", 1},
        {"--bench-rounds=1", 1},
        {"--bench-rounds=2", 2},
        {"--bench-rounds=3", 3}, /* up to 10, 21, 32: 10, 11, 11 */
        {"--bench-rounds=4", 4},
        {"--bench-rounds=5", 5},   /* up to 6, 12, 19, 25, 32: 6, 6, 7, 6, 7 */
        {"--bench-rounds=17", 17}, /* shares of 1 and 2, never 16 at the end */
        {"--bench-rounds=32", 32},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        unsigned rounds = table[k].rounds;
        print_message("%s\n", table[k].arg ? table[k].arg : "(no --bench-rounds)");
        reset_entry_log();
        json_t *doc = run_rounds("rounds_a", 1, table[k].arg);
        json_t *row = row_named(doc, "test_bench_run.rounds_a");
        assert_int_equal((int64_t)num(row, "iterations"), 65536);
        assert_int_equal((int64_t)num(row, "samples"), 32);
        assert_true(num(row, "medianNs") == 100.0);
        assert_int_equal(n_entries, rounds);
        unsigned total_full = 0;
        for (size_t r = 0; r < n_entries; r++) {
            assert_int_equal(entry_log[r].body, 'A');
            assert_int_equal(entry_log[r].small, r == 0 ? 16 : 0);
            /* each round takes the samples up to 32 × (r + 1) ÷ rounds */
            unsigned taken = 32 * (r + 1) / rounds - 32 * r / rounds;
            assert_true(taken == 32 / rounds || taken == 32 / rounds + 1);
            /* the two samples that stop the doubling, or one warm-up sample */
            assert_int_equal(entry_log[r].full, (r == 0 ? 2 : 1) + taken);
            total_full += entry_log[r].full;
        }
        assert_int_equal(total_full, 32 + rounds + 1);
        json_decref(doc);
    }
}

/* A pinned count never doubles; later rounds still discard one warm-up sample. */
static void test_rounds_pinned_count(void **state)
{
    (void)state;
    reset_entry_log();
    json_t *doc = run_rounds("rounds_pinned", 1, "--bench-rounds=4");
    json_t *row = row_named(doc, "test_bench_run.rounds_pinned");
    assert_int_equal((int64_t)num(row, "iterations"), 7);
    assert_int_equal((int64_t)num(row, "samples"), 32);
    assert_string_equal(entry_letters(), "PPPP");
    /* every batch has the pinned count 7: 8 samples, then a warm-up and 8 samples thrice */
    assert_int_equal(entry_log[0].small, 8);
    for (size_t r = 1; r < 4; r++)
        assert_int_equal(entry_log[r].small, 9);
    json_decref(doc);
}

/* The rounds interleave the bodies: A B A B A B A B, and only the last round counts. */
static void test_rounds_interleave_bodies(void **state)
{
    (void)state;
    reset_entry_log();
    json_t *doc = run_rounds("rounds_a|rounds_b", 2, NULL);
    assert_string_equal(entry_letters(), "AB");
    json_decref(doc);

    reset_entry_log();
    doc = run_rounds("rounds_a|rounds_b", 2, "--bench-rounds=4");
    assert_string_equal(entry_letters(), "ABABABAB");
    for (size_t r = 0; r < 8; r++) {
        assert_int_equal(entry_log[r].small, r < 2 ? 16 : 0); /* each doubles once */
        /* 8 samples, after the two that stop the doubling, then after a warm-up sample */
        assert_int_equal(entry_log[r].full, r < 2 ? 10 : 9);
    }
    for (int k = 0; k < 2; k++) {
        json_t *row = row_named(doc, k ? "test_bench_run.rounds_b" : "test_bench_run.rounds_a");
        assert_int_equal((int64_t)num(row, "iterations"), 65536);
        assert_int_equal((int64_t)num(row, "samples"), 32);
    }
    json_decref(doc);

    /* with a counting source open, each body runs once more, in the last round only */
    const struct bench__source_ops *const *saved = bench__sources;
    size_t saved_n = bench__n_sources;
    use_fake_source();
    reset_entry_log();
    const char *const args[] = {"--perf", "--bench-rounds=4", NULL};
    doc = run_selected("rounds_a|rounds_b", 2, args);
    bench__sources = saved;
    bench__n_sources = saved_n;
    assert_string_equal(entry_letters(), "ABABABAABB");
    assert_int_equal(clock_reads_while_counting, 0);
    for (int k = 0; k < 2; k++) {
        json_t *row = row_named(doc, k ? "test_bench_run.rounds_b" : "test_bench_run.rounds_a");
        assert_int_equal((int64_t)num(row, "samples"), 32);
        assert_int_equal((int64_t)num(row, "countIterations"), 65536);
    }
    json_decref(doc);
}

/* A whole-body row: one untimed discovery call per round, the doubling once (1 + 2 + ... +
 * 65536 calls, then the two discarded samples of 131072 that stop it), 32 samples of 131072
 * calls and one discarded warm-up sample per later round. */
static void test_rounds_whole_body(void **state)
{
    (void)state;
    json_t *doc = run_rounds("rounds_whole", 1, NULL);
    assert_int_equal(calls, 1 + 131071 + (2 + 32) * 131072ULL);
    json_decref(doc);

    doc = run_rounds("rounds_whole", 1, "--bench-rounds=4");
    assert_int_equal(calls, 4 + 131071 + (2 + 32 + 3) * 131072ULL);
    json_t *row = row_named(doc, "test_bench_run.rounds_whole");
    assert_int_equal((int64_t)num(row, "iterations"), 131072);
    assert_int_equal((int64_t)num(row, "samples"), 32);
    assert_true(num(row, "medianNs") == 50.0);
    assert_string_equal(json_string_value(json_object_get(row, "error")), "");
    json_decref(doc);
}

/* A bench_case row is measured once, in the last round: one setup, the samples and calls
 * of a run without rounds; the body itself runs once per round. */
static void test_rounds_per_call_once(void **state)
{
    (void)state;
    case_setups = case_body_entries = 0;
    json_t *doc = run_rounds("rounds_case", 1, "--bench-rounds=4");
    assert_int_equal(case_body_entries, 4);
    assert_int_equal(case_setups, 1);
    assert_int_equal(calls, 5001);
    json_t *row = row_named(doc, "test_bench_run.rounds_case");
    assert_int_equal((int64_t)num(row, "samples"), 5000);
    assert_int_equal((int64_t)num(row, "iterations"), 1);
    assert_true(num(row, "medianNs") == 1000.0);
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 1);
    json_decref(doc);

    /* --group-by measures every registered case after the bodies: still just the one */
    case_setups = case_body_entries = 0;
    const char *const grouped[] = {"--bench-rounds=4", "--group-by=all", NULL};
    doc = run_selected("rounds_case", 1, grouped);
    assert_int_equal(case_body_entries, 4);
    assert_int_equal(case_setups, 1);
    assert_int_equal(calls, 5001);
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 1);
    assert_int_equal((int64_t)num(row_named(doc, "test_bench_run.rounds_case"), "samples"), 5000);
    json_decref(doc);
}

/* Run with stderr captured into *text (caller frees). */
static json_t *run_rounds_stderr(const char *names, const char *rounds, char **text)
{
    fflush(stderr);
    FILE *capture = tmpfile();
    assert_non_null(capture);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(capture), STDERR_FILENO) >= 0);
    json_t *doc = run_rounds(names, 1, rounds);
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    assert_int_equal(fseek(capture, 0, SEEK_END), 0); /* the fd's writes, past stdio */
    long size = ftell(capture);
    assert_true(size >= 0);
    *text = calloc((size_t)size + 1, 1);
    assert_non_null(*text);
    rewind(capture);
    assert_true(fread(*text, 1, (size_t)size, capture) == (size_t)size);
    fclose(capture);
    return doc;
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A failure in the last round gives the row a run without rounds gives; a failure in an
 * early round is said once on stderr, and the row is still measured in full. */
static void test_rounds_failures(void **state)
{
    (void)state;
    fail_entries = 0;
    fail_on = 1;
    json_t *plain = run_rounds("rounds_fails", 1, NULL);
    assert_int_equal(last_status, 1);
    json_t *want = row_named(plain, "test_bench_run.rounds_fails");
    const char *error = json_string_value(json_object_get(want, "error"));
    assert_non_null(strstr(error, "entry != fail_on"));

    fail_entries = 0;
    fail_on = 4;
    json_t *doc = run_rounds("rounds_fails", 1, "--bench-rounds=4");
    assert_int_equal(fail_entries, 4);
    assert_int_equal(last_status, 1);
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 1);
    json_t *row = row_named(doc, "test_bench_run.rounds_fails");
    assert_true(json_equal(row, want));
    assert_true(json_is_null(json_object_get(row, "medianNs")));
    assert_true(json_is_null(json_object_get(row, "samples")));
    json_decref(doc);
    json_decref(plain);

    for (fail_on = 1; fail_on <= 3; fail_on++) {
        print_message("fails in round %u of 4\n", fail_on);
        fail_entries = 0;
        char *err = NULL;
        doc = run_rounds_stderr("rounds_fails", "--bench-rounds=4", &err);
        char said[160];
        snprintf(said, sizeof said,
                 "--bench-rounds: test_bench_run.rounds_fails failed in round %u of 4: ", fail_on);
        assert_int_equal(count_of(err, said), 1);
        assert_int_equal(count_of(err, "--bench-rounds: "), 1);
        assert_non_null(strstr(err,
                               "check failed: entry != fail_on && !fail_always — its rows keep "
                               "the samples of the other rounds\n"));
        free(err);
        assert_int_equal(fail_entries, 4);
        assert_int_equal(last_status, 0);
        assert_int_equal(json_array_size(json_object_get(doc, "rows")), 1);
        row = row_named(doc, "test_bench_run.rounds_fails");
        assert_string_equal(json_string_value(json_object_get(row, "error")), "");
        assert_int_equal((int64_t)num(row, "iterations"), 65536);
        assert_int_equal((int64_t)num(row, "samples"), 32);
        assert_true(num(row, "medianNs") == 100.0);
        json_decref(doc);
    }
    fail_on = 0;

    /* failing in every round: said once for the early rounds, then the error row */
    fail_always = true;
    fail_entries = 0;
    char *err = NULL;
    doc = run_rounds_stderr("rounds_fails", "--bench-rounds=4", &err);
    fail_always = false;
    assert_int_equal(count_of(err, "--bench-rounds: test_bench_run.rounds_fails failed in round 1 "
                                   "of 4: "),
                     1);
    assert_int_equal(count_of(err, "--bench-rounds: "), 1);
    free(err);
    assert_int_equal(fail_entries, 4);
    assert_int_equal(last_status, 1);
    row = row_named(doc, "test_bench_run.rounds_fails");
    assert_non_null(strstr(json_string_value(json_object_get(row, "error")), "check failed"));
    json_decref(doc);
}

/* The document text with its date (the only field a fake clock does not fix) masked. */
static char *masked_text(void)
{
    char *text = strdup(last_text);
    assert_non_null(text);
    char *date = strstr(text, "\"date\": \"");
    assert_non_null(date);
    memset(date + 9, 'X', 10);
    return text;
}

/* meta.rounds is written only for N > 1; without it the document is unchanged. */
static void test_rounds_in_meta(void **state)
{
    (void)state;
    json_t *doc = run_rounds("iter_100ns", 1, "--bench-rounds=4");
    json_t *meta = json_object_get(doc, "meta");
    assert_true(json_is_integer(json_object_get(meta, "rounds")));
    assert_int_equal(json_integer_value(json_object_get(meta, "rounds")), 4);
    assert_int_equal(json_integer_value(json_object_get(meta, "sampleCount")), 32);
    json_decref(doc);

    doc = run_rounds("iter_100ns", 1, "--bench-rounds=32");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "meta"), "rounds")),
                     32);
    json_decref(doc);

    doc = run_rounds("iter_100ns", 1, NULL);
    assert_null(json_object_get(json_object_get(doc, "meta"), "rounds"));
    assert_null(strstr(last_text, "rounds"));
    char *plain = masked_text();
    json_decref(doc);
    static const char *const same[] = {"--bench-rounds=1", "--bench-rounds=0"};
    for (size_t k = 0; k < 2; k++) {
        doc = run_rounds("iter_100ns", 1, same[k]);
        char *text = masked_text();
        if (strcmp(text, plain))
            print_message("%s:\n%s\nwithout:\n%s\n", same[k], text, plain);
        assert_string_equal(text, plain);
        free(text);
        json_decref(doc);
    }
    free(plain);
}

int main(void)
{
    bench__bench_in_process = true; /* white-box: the counts are read in this process */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batched_doubles_to_the_budget),
        cmocka_unit_test(test_batched_preempted_sample_keeps_doubling),
        cmocka_unit_test(test_batched_pinned_never_scales),
        cmocka_unit_test(test_whole_body),
        cmocka_unit_test(test_per_call_probe_and_budget),
        cmocka_unit_test(test_per_call_preempted_keeps_the_minimum),
        cmocka_unit_test(test_per_call_pinned_has_no_probe),
        cmocka_unit_test(test_per_call_stalled_clock_stops_at_32),
        cmocka_unit_test(test_probe_after_error_is_an_error_row),
        cmocka_unit_test(test_skip_before_registering_is_a_line_not_a_row),
        cmocka_unit_test(test_smoke_runs_a_body_once),
        cmocka_unit_test(test_counting_pass_of_a_loop),
        cmocka_unit_test(test_counting_pass_of_a_case),
        cmocka_unit_test(test_window_counts_of_a_workload),
        cmocka_unit_test(test_window_note_never_scheduled),
        cmocka_unit_test(test_window_note_multiplexed_dropped),
        cmocka_unit_test(test_window_scaled_estimate_has_no_note),
        cmocka_unit_test(test_perf_iters_and_batch_pins),
        cmocka_unit_test(test_duplicate_case_is_refused),
        cmocka_unit_test(test_case_named_like_a_body_row),
        cmocka_unit_test(test_case_rows_named_by_file_stem),
        cmocka_unit_test(test_repeated_label_key_and_repaired_names),
        cmocka_unit_test(test_body_rows_never_share_a_cell),
        cmocka_unit_test(test_rounds_keep_count_and_samples),
        cmocka_unit_test(test_rounds_share_the_samples),
        cmocka_unit_test(test_rounds_pinned_count),
        cmocka_unit_test(test_rounds_interleave_bodies),
        cmocka_unit_test(test_rounds_whole_body),
        cmocka_unit_test(test_rounds_per_call_once),
        cmocka_unit_test(test_rounds_failures),
        cmocka_unit_test(test_rounds_in_meta),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(last_text);
    return failed;
}
