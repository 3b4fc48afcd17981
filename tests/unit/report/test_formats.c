/* SPDX-License-Identifier: MIT */
/* test_formats.c: the other formats of the --bench-json document (report/formats.c, gbench.c,
 * bmf.c): the --bench-format words, a row's name with its labels, Google Benchmark's entries and
 * context (no time that was not measured, cpu_time's source said), Bencher's BMF checked against
 * its documented structure, and the write. docs/reference/formats.md holds the rules. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/formats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#define N(a) (sizeof(a) / sizeof *(a))

/* ---- fixtures ------------------------------------------------------------------------ */

static struct bench__column_desc col_items = {"items/s",           "items/s", BENCH__FORMAT_COUNT,
                                              BENCH__QUANTITATIVE, "client",  true};
static struct bench__column_desc col_depth = {
    "depth", "depth", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "client", true};
static struct bench__column_desc col_iters = {
    "iterations", "iterations", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "client", true};
static struct bench__column_desc col_latency = {"latency",           "latency", BENCH__FORMAT_COUNT,
                                                BENCH__QUANTITATIVE, "client",  true};
static struct bench__column_desc col_long = {
    "a-client-metric-whose-name-is-far-longer-than-the-sixty-four-characters-bencher-takes",
    "long",
    BENCH__FORMAT_COUNT,
    BENCH__QUANTITATIVE,
    "client",
    true};
static struct bench__column_desc col_instr = {"instructions",    "instr/iter", BENCH__FORMAT_COUNT,
                                              BENCH__DIAGNOSTIC, "perf",       false};
static struct bench__column_desc col_task = {
    "task-clock", "task-clock/iter", BENCH__FORMAT_COUNT, BENCH__DIAGNOSTIC, "perf-sw", true};
static const struct bench__column_desc *const columns[] = {
    &col_items, &col_depth, &col_iters, &col_latency, &col_long, &col_instr, &col_task};

static struct bench__kv labels_two[] = {{"dataset", "small"}, {"impl", "fast"}};

static struct bench__cell cells_client[] = {
    {&col_items, 4.5e8, false, 0}, {&col_depth, NAN, false, 0}, {&col_iters, 7.0, false, 0},
    {&col_latency, 3.0, false, 0}, {&col_long, 1.0, false, 0},  {&col_instr, 200.0, false, 0},
};
static struct bench__cell cells_task[] = {{&col_task, 41.5, false, 0}};
static struct bench__cell cells_task_nan[] = {{&col_task, NAN, false, 0}};

static struct bench__row rows[] = {
    {.name = "count",
     .source = "cases.count",
     .labels = labels_two,
     .n_labels = N(labels_two),
     .state = BENCH__ROW_OK,
     .iterations = 1000,
     .samples = 32,
     .stats = {30.25, 0.5, 29.0, 47.75},
     .cells = cells_client,
     .n_cells = N(cells_client),
     .error = ""},
    {.name = "broken",
     .source = "cases.count",
     .state = BENCH__ROW_ERROR,
     .iterations = 5,
     .samples = 6,
     .stats = {NAN, NAN, NAN, NAN},
     .cells = cells_task,
     .n_cells = N(cells_task),
     .error = "result mismatch"},
    {.name = "timed",
     .source = "cases.timed",
     .state = BENCH__ROW_OK,
     .iterations = 64,
     .samples = 32,
     .stats = {40.0, 1.0, 39.0, 44.0},
     .cells = cells_task,
     .n_cells = N(cells_task),
     .cpu_ns = 39.5, /* the thread's CPU time, never the task-clock cell (41.5) */
     .error = ""},
    {.name = "later",
     .source = "cases.count",
     .state = BENCH__ROW_OK,
     .iterations = 2,
     .samples = 32,
     .stats = {5.0, 0.0, 5.0, 5.0},
     .cells = cells_task_nan,
     .n_cells = N(cells_task_nan),
     .error = ""},
    {.name = "skipped",
     .source = "cases.skip",
     .state = BENCH__ROW_SKIPPED,
     .stats = {NAN, NAN, NAN, NAN},
     .error = "needs root"},
    /* the same name and labels as "timed": one cell twice */
    {.name = "timed",
     .source = "cases.timed",
     .state = BENCH__ROW_OK,
     .iterations = 64,
     .samples = 32,
     .stats = {41.0, 1.0, 40.0, 45.0},
     .error = ""},
};

static struct bench__report make_report(size_t n_rows)
{
    struct bench__report r = {
        .meta = {.date = "2026-07-10",
                 .hostname = "h",
                 .os = "linux",
                 .arch = "x86_64",
                 .compiler = "GCC 12.2.0",
                 .cpu = "cpu",
                 .online_cpus = 4,
                 .min_time_ms = 5,
                 .sample_count = 32,
                 .clock_overhead_ns = NAN},
        .columns = columns,
        .n_columns = N(columns),
        .rows = rows,
        .n_rows = n_rows,
    };
    return r;
}

static json_t *parse(const char *text)
{
    assert_non_null(text);
    assert_true(strlen(text) > 0 && text[strlen(text) - 1] == '\n');
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    if (!doc)
        fail_msg("not JSON: %s (line %d)\n%s", e.text, e.line, text);
    return doc;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("%s: not a number", key);
    return json_number_value(v);
}

static const char *str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        fail_msg("%s: not a string", key);
    return json_string_value(v);
}

/* ---- the words and the names ------------------------------------------------------------ */

static void test_format_words(void **state)
{
    (void)state;
    static const char *const words[] = {"libbench", "gbench", "bmf"};
    for (size_t i = 0; i < N(words); i++) {
        enum bench__doc_format f = BENCH__DOC_BMF + 1;
        assert_int_equal(bench__doc_format_parse(words[i], &f), 0);
        assert_int_equal(f, (enum bench__doc_format)i);
        assert_string_equal(bench__doc_format_name(f), words[i]);
    }
    enum bench__doc_format f = BENCH__DOC_GBENCH;
    static const char *const bad[] = {"", "json", "GBENCH", "bmf ", "csv", "markdown"};
    for (size_t i = 0; i < N(bad); i++) {
        assert_int_equal(bench__doc_format_parse(bad[i], &f), -1);
        assert_int_equal(f, BENCH__DOC_GBENCH); /* untouched */
    }
    assert_int_equal(bench__doc_format_parse(NULL, &f), -1);
    assert_string_equal(bench__doc_format_name((enum bench__doc_format)7), "?");
}

static void test_row_name(void **state)
{
    (void)state;
    char *name = bench__doc_row_name(&rows[0]);
    assert_string_equal(name, "count/dataset:small/impl:fast");
    free(name);
    name = bench__doc_row_name(&rows[2]);
    assert_string_equal(name, "timed");
    free(name);
    struct bench__row empty = {.name = NULL};
    name = bench__doc_row_name(&empty);
    assert_string_equal(name, "");
    free(name);
}

/* ---- Google Benchmark --------------------------------------------------------------------- */

static void test_gbench_document(void **state)
{
    (void)state;
    struct bench__report r = make_report(N(rows));
    char *text = bench__gbench_render(&r);
    json_t *doc = parse(text);
    assert_int_equal(json_object_size(doc), 2);

    json_t *ctx = json_object_get(doc, "context");
    assert_string_equal(str(ctx, "date"), "2026-07-10");
    assert_string_equal(str(ctx, "host_name"), "h");
    assert_int_equal(num(ctx, "num_cpus"), 4);
    assert_true(strncmp(str(ctx, "library_version"), "libbench ", 9) == 0);
    const char *build = str(ctx, "library_build_type");
    assert_true(!strcmp(build, "release") || !strcmp(build, "debug"));
    assert_string_equal(str(ctx, "libbench_cpu_time"),
                        "the thread's CPU time per iteration, read between samples, where "
                        "measured; else real_time repeated (not measured: a bench_case row, "
                        "whose samples are single calls; its entry's label says so)");
    /* the rows that measured nothing: named with their reason, never as times */
    json_t *un = json_object_get(ctx, "libbench_unmeasured");
    assert_int_equal(json_array_size(un), 2);
    assert_string_equal(str(json_array_get(un, 0), "name"), "broken");
    assert_string_equal(str(json_array_get(un, 0), "state"), "error");
    assert_string_equal(str(json_array_get(un, 0), "reason"), "result mismatch");
    assert_string_equal(str(json_array_get(un, 1), "name"), "skipped");
    assert_string_equal(str(json_array_get(un, 1), "state"), "skipped");
    assert_string_equal(str(json_array_get(un, 1), "reason"), "needs root");

    json_t *b = json_object_get(doc, "benchmarks");
    assert_int_equal(json_array_size(b), 4);
    static const struct {
        const char *name;
        double real, cpu, iterations;
        int family, instance;
    } want[] = {
        {"count/dataset:small/impl:fast", 30.25, 30.25, 32000, 0, 0},
        {"timed", 40.0, 39.5, 2048, 1, 0}, /* cpu_time: the thread's CPU time */
        {"later", 5.0, 5.0, 64, 0, 2},     /* not measured: real_time repeated */
        {"timed", 41.0, 41.0, 2048, 1, 1},
    };
    static const char *const keys[] = {"name",
                                       "family_index",
                                       "per_family_instance_index",
                                       "run_name",
                                       "run_type",
                                       "repetitions",
                                       "repetition_index",
                                       "iterations",
                                       "real_time",
                                       "cpu_time",
                                       "time_unit"};
    for (size_t i = 0; i < N(want); i++) {
        json_t *e = json_array_get(b, i);
        const char *key;
        json_t *v;
        size_t k = 0;
        json_object_foreach(e, key, v)
        {
            if (k < N(keys))
                assert_string_equal(key, keys[k]); /* Google Benchmark's order */
            k++;
        }
        assert_string_equal(str(e, "name"), want[i].name);
        assert_string_equal(str(e, "run_name"), want[i].name);
        assert_string_equal(str(e, "run_type"), "iteration");
        assert_string_equal(str(e, "time_unit"), "ns");
        assert_true(json_is_real(json_object_get(e, "real_time")));
        assert_float_equal(num(e, "real_time"), want[i].real, 1e-9);
        assert_float_equal(num(e, "cpu_time"), want[i].cpu, 1e-9);
        assert_float_equal(num(e, "iterations"), want[i].iterations, 0);
        assert_int_equal(num(e, "repetitions"), 1);
        assert_int_equal(num(e, "repetition_index"), 0);
        assert_int_equal(num(e, "family_index"), want[i].family);
        assert_int_equal(num(e, "per_family_instance_index"), want[i].instance);
        assert_null(json_object_get(e, "error_occurred"));
    }
    /* client metrics as counters: measured ones only, never over an entry's own key, never a
     * counter of another source */
    json_t *e = json_array_get(b, 0);
    assert_float_equal(num(e, "items/s"), 4.5e8, 0);
    assert_float_equal(num(e, "latency"), 3.0, 0);
    assert_null(json_object_get(e, "depth"));
    assert_int_equal(num(e, "iterations"), 32000);
    assert_null(json_object_get(e, "instructions"));
    assert_int_equal(json_object_size(e), 11 + 3 + 1); /* items/s, latency, the long one; label */
    assert_null(json_object_get(json_array_get(b, 1), "task-clock"));
    /* an entry whose cpu_time was not measured says so in its label; a measured one has none */
    assert_string_equal(str(json_array_get(b, 0), "label"),
                        "cpu_time not measured: real_time repeated");
    assert_null(json_object_get(json_array_get(b, 1), "label"));

    json_decref(doc);
    free(text);
}

static void test_gbench_cpu_time_words(void **state)
{
    (void)state;
    struct bench__report r = make_report(1); /* no task-clock */
    char *text = bench__gbench_render(&r);
    json_t *doc = parse(text);
    json_t *ctx = json_object_get(doc, "context");
    assert_string_equal(str(ctx, "libbench_cpu_time"),
                        "real_time repeated: CPU time was not measured");
    assert_null(json_object_get(ctx, "libbench_unmeasured"));
    json_decref(doc);
    free(text);

    r.rows = &rows[2]; /* CPU time measured */
    text = bench__gbench_render(&r);
    doc = parse(text);
    assert_string_equal(str(json_object_get(doc, "context"), "libbench_cpu_time"),
                        "the thread's CPU time per iteration, read between samples");
    json_decref(doc);
    free(text);

    r.n_rows = 0; /* nothing at all: an empty array, and no unknown count of CPUs */
    r.meta.online_cpus = -1;
    text = bench__gbench_render(&r);
    doc = parse(text);
    assert_int_equal(json_array_size(json_object_get(doc, "benchmarks")), 0);
    assert_null(json_object_get(json_object_get(doc, "context"), "num_cpus"));
    json_decref(doc);
    free(text);
}

/* ---- Bencher Metric Format --------------------------------------------------------------- */

static size_t chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The structure Bencher documents for BMF: an object of benchmarks (names of 1 to 1024
 * characters), each an object of measures (names of 1 to 64 characters), each an object with a
 * number "value" and optionally the numbers "lower_value" and "upper_value"; nothing else. */
static void check_bmf_structure(const json_t *doc)
{
    assert_true(json_is_object(doc));
    const char *bench;
    json_t *measures;
    json_object_foreach((json_t *)doc, bench, measures)
    {
        assert_true(chars(bench) >= 1 && chars(bench) <= 1024);
        assert_true(json_is_object(measures));
        const char *mname;
        json_t *m;
        json_object_foreach(measures, mname, m)
        {
            assert_true(chars(mname) >= 1 && chars(mname) <= 64);
            assert_true(json_is_object(m));
            assert_true(json_is_number(json_object_get(m, "value")));
            const char *k;
            json_t *v;
            json_object_foreach(m, k, v)
            {
                assert_true(!strcmp(k, "value") || !strcmp(k, "lower_value") ||
                            !strcmp(k, "upper_value"));
                assert_true(json_is_number(v));
            }
        }
    }
}

static void test_bmf_document(void **state)
{
    (void)state;
    struct bench__report r = make_report(N(rows));
    char *text = bench__bmf_render(&r);
    json_t *doc = parse(text);
    check_bmf_structure(doc);
    /* the measured rows only (BMF has no place for an error); the second "timed" is "#2" */
    assert_int_equal(json_object_size(doc), 4);
    const char *names[] = {"count/dataset:small/impl:fast", "timed", "later", "timed#2"};
    const char *key;
    json_t *v;
    size_t i = 0;
    json_object_foreach(doc, key, v) assert_string_equal(key, names[i++]);

    json_t *count = json_object_get(doc, names[0]);
    json_t *lat = json_object_get(count, "latency");
    assert_float_equal(num(lat, "value"), 30.25, 0);
    assert_float_equal(num(lat, "lower_value"), 29.0, 0);
    assert_float_equal(num(lat, "upper_value"), 47.75, 0);
    /* client metrics: measured ones, by their names; never "latency" twice, never a name
     * longer than Bencher takes, never another source's metric */
    assert_float_equal(num(json_object_get(count, "items/s"), "value"), 4.5e8, 0);
    assert_float_equal(num(json_object_get(count, "iterations"), "value"), 7.0, 0);
    assert_null(json_object_get(json_object_get(count, "items/s"), "lower_value"));
    assert_null(json_object_get(count, "depth"));
    assert_null(json_object_get(count, "instructions"));
    assert_int_equal(json_object_size(count), 3);
    assert_float_equal(num(json_object_get(json_object_get(doc, "timed#2"), "latency"), "value"),
                       41.0, 0);
    json_decref(doc);
    free(text);

    r.n_rows = 0;
    text = bench__bmf_render(&r);
    assert_string_equal(text, "{}\n");
    free(text);
}

/* ---- the write ---------------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

static void test_document_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_formats.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/doc.json", dir);
    struct bench__report r = make_report(N(rows));
    char err[256] = "";
    char *(*render[])(const struct bench__report *) = {NULL, bench__gbench_render,
                                                       bench__bmf_render};
    for (int f = BENCH__DOC_GBENCH; f <= BENCH__DOC_BMF; f++) {
        assert_int_equal(
            bench__document_write(&r, (enum bench__doc_format)f, path, err, sizeof err), 0);
        char *got = slurp(path), *want = render[f](&r);
        assert_string_equal(got, want);
        free(got);
        free(want);
    }
    assert_int_equal(bench__document_write(&r, BENCH__DOC_LIBBENCH, path, err, sizeof err), 0);
    char *got = slurp(path);
    assert_non_null(strstr(got, "\"schema\": 2"));
    free(got);
    unlink(path);
    assert_int_equal(bench__document_write(&r, BENCH__DOC_BMF, dir, err, sizeof err), -EISDIR);
    assert_non_null(strstr(err, "cannot write"));
    assert_int_equal(bench__document_write(&r, BENCH__DOC_GBENCH, "", err, sizeof err), -ENOENT);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_words),    cmocka_unit_test(test_row_name),
        cmocka_unit_test(test_gbench_document), cmocka_unit_test(test_gbench_cpu_time_words),
        cmocka_unit_test(test_bmf_document),    cmocka_unit_test(test_document_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
