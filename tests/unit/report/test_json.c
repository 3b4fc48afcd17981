/* SPDX-License-Identifier: MIT */
/* test_json.c: bench__json_render against the schema-2 rules of inventory 4.3 (key order,
 * number rules, error/skip rows, optional keys, determinism) and bench__json_write
 * (atomic replace, devices, FIFOs, failures that leave the target and directory clean). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/json.h"
#include "suite/config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

/* ---- fixtures ------------------------------------------------------------------------ */

static struct bench__column_desc col_instr = {"instr",           "instr/iter", BENCH__FORMAT_COUNT,
                                              BENCH__DIAGNOSTIC, "perf",       false};
static struct bench__column_desc col_bps = {
    "B/s", "B/s", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "client", false};
static struct bench__column_desc col_ipc = {"ipc",  "IPC", BENCH__FORMAT_RATIO, BENCH__DIAGNOSTIC,
                                            "perf", false};
static struct bench__column_desc col_brmiss = {"br-miss",         "br-miss", BENCH__FORMAT_PERCENT,
                                               BENCH__DIAGNOSTIC, "perf",    false};
static const struct bench__column_desc *const columns[] = {&col_instr, &col_bps, &col_ipc,
                                                           &col_brmiss};

static struct bench__kv labels_parse[] = {{"dataset", "twitter"}, {"operation", "parse"}};
static struct bench__kv labels_one[] = {{"size", "64"}};

/* Row-cell order differs from catalog order on purpose (trap 13). */
static struct bench__cell cells_normal[] = {{&col_bps, 261554.4, false, 0},
                                            {&col_ipc, 2.0, false, 0},
                                            {&col_instr, 200.0, false, 0},
                                            {&col_brmiss, NAN, false, 0}};
static struct bench__cell cells_estimate[] = {
    {&col_instr, 1234.5, false, 0}, {&col_ipc, 2.71539, true, 0}, {&col_brmiss, 0.257415, true, 0}};
static struct bench__cell cells_count[] = {{&col_bps, 165175000.5, false, 0}};
static struct bench__cell cells_ignored[] = {{&col_ipc, 1.5, true, 0}};

#define N(a) (sizeof(a) / sizeof *(a))

static struct bench__row rows[] = {
    {.name = "mir-ion",
     .source = "sample.parse",
     .labels = labels_parse,
     .n_labels = N(labels_parse),
     .state = BENCH__ROW_OK,
     .iterations = 1,
     .samples = 42,
     .stats = {3823300.0, 41200.0, 3615100.0, 4891000.0},
     .cells = cells_normal,
     .n_cells = N(cells_normal),
     .contention = 0.3125,
     .error = ""},
    {.name = "estimate",
     .source = "sample.estimate",
     .labels = labels_one,
     .n_labels = N(labels_one),
     .state = BENCH__ROW_OK,
     .iterations = 1024,
     .samples = 32,
     .stats = {11.48, 0.25, 11.0, 13.75},
     .cells = cells_estimate,
     .n_cells = N(cells_estimate),
     .contention = NAN,
     .error = ""},
    {.name = "counted",
     .source = "sample.counted",
     .state = BENCH__ROW_OK,
     .iterations = 3,
     .samples = 32,
     .stats = {123456.7, 0.5, 120000.0, 130000.25},
     .cells = cells_count,
     .n_cells = N(cells_count),
     .count_iterations = 336,
     .contention = 0, /* measured: nothing else ran */
     .error = ""},
    /* error and skipped rows carry stale fields that must not leak into the document */
    {.name = "broken",
     .source = "sample.broken",
     .labels = labels_one,
     .n_labels = N(labels_one),
     .state = BENCH__ROW_ERROR,
     .iterations = 5,
     .samples = 6,
     .stats = {NAN, NAN, NAN, NAN},
     .cells = cells_ignored,
     .n_cells = N(cells_ignored),
     .count_iterations = 9,
     .contention = 0.5,
     .error = "sample.c:12: assertion failed: x == 1"},
    {.name = "skipped",
     .source = "sample.skipped",
     .state = BENCH__ROW_SKIPPED,
     .stats = {NAN, NAN, NAN, NAN},
     .cells = cells_ignored,
     .n_cells = N(cells_ignored),
     .error = "needs root"},
    {.name = "nan-stats",
     .source = "sample.nan",
     .state = BENCH__ROW_OK,
     .iterations = 1,
     .samples = 0,
     .stats = {NAN, INFINITY, -INFINITY, NAN},
     .contention = NAN,
     .error = ""},
};

static char *provenance[] = {"perf: user-only (paranoid 2)", "psi: unavailable"};

static struct bench__report make_report(void)
{
    struct bench__report r = {
        .meta = {.date = "2026-07-10",
                 .hostname = "h",
                 .os = "linux",
                 .arch = "x86_64",
                 .compiler = "GCC 12.2.0",
                 .cpu = "cpu",
                 .min_time_ms = 5,
                 .sample_count = 32,
                 .clock_overhead_ns = NAN},
        .columns = columns,
        .n_columns = N(columns),
        .rows = rows,
        .n_rows = N(rows),
    };
    return r;
}

/* ---- helpers ------------------------------------------------------------------------- */

struct parsed {
    char *text;
    json_t *doc;
};

static struct parsed render(const struct bench__report *r)
{
    struct parsed p;
    p.text = bench__json_render(r);
    assert_non_null(p.text);
    json_error_t error;
    p.doc = json_loads(p.text, 0, &error);
    if (!p.doc)
        fail_msg("render produced invalid JSON: %s (line %d)\n%s", error.text, error.line, p.text);
    return p;
}

static void release(struct parsed *p)
{
    json_decref(p->doc);
    free(p->text);
}

static void assert_keys(json_t *obj, const char *const *want, size_t n)
{
    assert_true(json_is_object(obj));
    size_t i = 0;
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it), i++) {
        assert_true(i < n);
        assert_string_equal(json_object_iter_key(it), want[i]);
    }
    assert_int_equal(i, n);
}

static void assert_contains(const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("missing %s in:\n%s", needle, text);
}

static json_t *row_at(const struct parsed *p, size_t i)
{
    json_t *r = json_array_get(json_object_get(p->doc, "rows"), i);
    assert_non_null(r);
    return r;
}

static void assert_int_field(json_t *obj, const char *key, json_int_t want)
{
    json_t *v = json_object_get(obj, key);
    assert_true(json_is_integer(v));
    assert_int_equal(json_integer_value(v), want);
}

static void assert_null_field(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    assert_non_null(v);
    assert_true(json_is_null(v));
}

/* ---- the document ------------------------------------------------------------------------ */

static void test_top_level(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    static const char *const top[] = {"schema", "meta", "columns", "rows"};
    assert_keys(p.doc, top, N(top));
    assert_int_field(p.doc, "schema", 2);
    assert_null(json_object_get(p.doc, "windows"));
    static const char head[] = "{\n  \"schema\": 2,\n  \"meta\": {\n";
    assert_memory_equal(p.text, head, sizeof head - 1);
    size_t len = strlen(p.text);
    assert_true(len > 2 && p.text[len - 1] == '\n' && p.text[len - 2] == '}');
    assert_int_equal(json_array_size(json_object_get(p.doc, "rows")), N(rows));
    release(&p);
}

static void test_meta(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *meta = json_object_get(p.doc, "meta");
    static const char *const keys[] = {
        "date",        "hostname",           "os", "arch", "compiler", "cpu", "minSampleTimeMs",
        "sampleCount", "contentionThreshold"};
    assert_keys(meta, keys, N(keys));
    assert_string_equal(json_string_value(json_object_get(meta, "date")), "2026-07-10");
    assert_string_equal(json_string_value(json_object_get(meta, "hostname")), "h");
    assert_string_equal(json_string_value(json_object_get(meta, "os")), "linux");
    assert_string_equal(json_string_value(json_object_get(meta, "arch")), "x86_64");
    assert_string_equal(json_string_value(json_object_get(meta, "compiler")), "GCC 12.2.0");
    assert_string_equal(json_string_value(json_object_get(meta, "cpu")), "cpu");
    assert_int_field(meta, "minSampleTimeMs", 5);
    assert_int_field(meta, "sampleCount", 32);
    assert_contains(p.text, "\"contentionThreshold\": 0.25\n");
    release(&p);
}

static void test_meta_provenance(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    r.meta.provenance = provenance;
    r.meta.n_provenance = N(provenance);
    struct parsed p = render(&r);
    json_t *meta = json_object_get(p.doc, "meta");
    static const char *const keys[] = {"date",
                                       "hostname",
                                       "os",
                                       "arch",
                                       "compiler",
                                       "cpu",
                                       "minSampleTimeMs",
                                       "sampleCount",
                                       "contentionThreshold",
                                       "provenance"};
    assert_keys(meta, keys, N(keys));
    json_t *prov = json_object_get(meta, "provenance");
    assert_int_equal(json_array_size(prov), 2);
    assert_string_equal(json_string_value(json_array_get(prov, 0)), provenance[0]);
    assert_string_equal(json_string_value(json_array_get(prov, 1)), provenance[1]);
    release(&p);
}

static void test_columns(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *cols = json_object_get(p.doc, "columns");
    assert_int_equal(json_array_size(cols), N(columns));
    static const char *const keys[] = {"name", "header", "format", "class", "source"};
    static const char *const want[][5] = {
        {"instr", "instr/iter", "count", "diagnostic", "perf"},
        {"B/s", "B/s", "count", "quantitative", "client"},
        {"ipc", "IPC", "ratio", "diagnostic", "perf"},
        {"br-miss", "br-miss", "percent", "diagnostic", "perf"},
    };
    for (size_t i = 0; i < N(want); i++) {
        json_t *c = json_array_get(cols, i);
        assert_keys(c, keys, N(keys));
        for (size_t k = 0; k < 5; k++)
            assert_string_equal(json_string_value(json_object_get(c, keys[k])), want[i][k]);
    }
    release(&p);
}

static void test_normal_row(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *row = row_at(&p, 0);
    static const char *const keys[] = {"name",     "labels",      "iterations", "samples",
                                       "medianNs", "deviationNs", "minNs",      "maxNs",
                                       "metrics",  "contention",  "error"};
    assert_keys(row, keys, N(keys));
    assert_string_equal(json_string_value(json_object_get(row, "name")), "mir-ion");
    static const char *const label_keys[] = {"dataset", "operation"};
    json_t *labels = json_object_get(row, "labels");
    assert_keys(labels, label_keys, N(label_keys));
    assert_string_equal(json_string_value(json_object_get(labels, "dataset")), "twitter");
    assert_string_equal(json_string_value(json_object_get(labels, "operation")), "parse");
    assert_int_field(row, "iterations", 1);
    assert_int_field(row, "samples", 42);
    assert_int_field(row, "medianNs", 3823300);
    assert_int_field(row, "deviationNs", 41200);
    assert_int_field(row, "minNs", 3615100);
    assert_int_field(row, "maxNs", 4891000);
    /* integral doubles are printed as integers, not 3823300.0 */
    assert_contains(p.text, "\"medianNs\": 3823300,\n");
    assert_contains(p.text, "\"deviationNs\": 41200,\n");
    json_t *metrics = json_object_get(row, "metrics");
    static const char *const metric_keys[] = {"B/s", "ipc", "instr", "br-miss"};
    assert_keys(metrics, metric_keys, N(metric_keys));
    /* a metric keeps every digit it was measured with (issue 32, point 4) */
    assert_true(json_real_value(json_object_get(metrics, "B/s")) == 261554.4);
    assert_int_field(metrics, "ipc", 2);
    assert_int_field(metrics, "instr", 200);
    assert_null_field(metrics, "br-miss");
    assert_contains(p.text, "\"B/s\": 261554.4,\n");
    assert_contains(p.text, "\"br-miss\": null\n");
    assert_string_equal(json_string_value(json_object_get(row, "error")), "");
    assert_contains(p.text, "\"contention\": 0.3125,\n");
    release(&p);
}

static void test_estimate_row(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *row = row_at(&p, 1);
    static const char *const keys[] = {"name",     "labels",           "iterations", "samples",
                                       "medianNs", "deviationNs",      "minNs",      "maxNs",
                                       "metrics",  "estimatedMetrics", "contention", "error"};
    assert_keys(row, keys, N(keys));
    json_t *est = json_object_get(row, "estimatedMetrics");
    assert_int_equal(json_array_size(est), 2);
    assert_string_equal(json_string_value(json_array_get(est, 0)), "ipc");
    assert_string_equal(json_string_value(json_array_get(est, 1)), "br-miss");
    /* non-integral values: %.6g, a JSON real */
    json_t *median = json_object_get(row, "medianNs");
    assert_true(json_is_real(median));
    assert_true(json_real_value(median) == 11.48);
    assert_contains(p.text, "\"medianNs\": 11.48,\n");
    assert_contains(p.text, "\"deviationNs\": 0.25,\n");
    assert_contains(p.text, "\"maxNs\": 13.75,\n");
    assert_contains(p.text, "\"instr\": 1234.5,\n");
    assert_contains(p.text, "\"ipc\": 2.71539,\n");
    assert_contains(p.text, "\"br-miss\": 0.257415\n");
    assert_int_field(row, "iterations", 1024);
    assert_null_field(row, "contention"); /* not measured: null, never 0 */
    release(&p);
}

static void test_count_row(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *row = row_at(&p, 2);
    static const char *const keys[] = {"name",     "labels",          "iterations", "samples",
                                       "medianNs", "deviationNs",     "minNs",      "maxNs",
                                       "metrics",  "countIterations", "contention", "error"};
    assert_keys(row, keys, N(keys));
    assert_int_field(row, "countIterations", 336);
    assert_int_field(row, "contention", 0); /* a measured 0 stays 0 */
    assert_int_equal(json_object_size(json_object_get(row, "labels")), 0);
    assert_contains(p.text, "\"labels\": {},\n      \"iterations\": 3,\n");
    /* 15 significant digits: 123456.7 stays 123456.7 */
    assert_true(json_real_value(json_object_get(row, "medianNs")) == 123456.7);
    assert_contains(p.text, "\"medianNs\": 123456.7,\n");
    assert_contains(p.text, "\"maxNs\": 130000.25,\n");
    /* a count of 165175000.5 per iteration keeps its digits (issue 32, point 4; was 1.65175e8) */
    assert_contains(p.text, "\"B/s\": 165175000.5\n");
    assert_true(json_real_value(json_object_get(json_object_get(row, "metrics"), "B/s")) ==
                165175000.5);
    release(&p);
}

static void assert_unmeasured_row(json_t *row, const char *name, const char *error)
{
    static const char *const keys[] = {"name",     "labels",      "iterations", "samples",
                                       "medianNs", "deviationNs", "minNs",      "maxNs",
                                       "metrics",  "contention",  "error"};
    assert_keys(row, keys, N(keys));
    assert_string_equal(json_string_value(json_object_get(row, "name")), name);
    static const char *const timing[] = {"iterations",  "samples", "medianNs",
                                         "deviationNs", "minNs",   "maxNs"};
    for (size_t i = 0; i < N(timing); i++)
        assert_null_field(row, timing[i]);
    json_t *metrics = json_object_get(row, "metrics");
    assert_true(json_is_object(metrics));
    assert_int_equal(json_object_size(metrics), 0);
    assert_null_field(row, "contention"); /* a stale value never leaks */
    assert_string_equal(json_string_value(json_object_get(row, "error")), error);
}

static void test_error_row(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *row = row_at(&p, 3);
    assert_unmeasured_row(row, "broken", "sample.c:12: assertion failed: x == 1");
    static const char *const label_keys[] = {"size"};
    assert_keys(json_object_get(row, "labels"), label_keys, 1);
    assert_contains(p.text, "\"iterations\": null,\n      \"samples\": null,\n"
                            "      \"medianNs\": null,\n      \"deviationNs\": null,\n"
                            "      \"minNs\": null,\n      \"maxNs\": null,\n"
                            "      \"metrics\": {},\n"
                            "      \"contention\": null,\n"
                            "      \"error\": \"sample.c:12: assertion failed: x == 1\"\n");
    release(&p);
}

static void test_skipped_row(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *row = row_at(&p, 4);
    assert_unmeasured_row(row, "skipped", "needs root");
    assert_null(json_object_get(row, "skipped")); /* skips are not flagged */
    release(&p);
}

static void test_nan_stats_row(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    struct parsed p = render(&r);
    json_t *row = row_at(&p, 5);
    static const char *const keys[] = {"name",     "labels",      "iterations", "samples",
                                       "medianNs", "deviationNs", "minNs",      "maxNs",
                                       "metrics",  "contention",  "error"};
    assert_keys(row, keys, N(keys));
    assert_int_field(row, "iterations", 1);
    assert_int_field(row, "samples", 0);
    assert_null_field(row, "medianNs");
    assert_null_field(row, "deviationNs"); /* +inf */
    assert_null_field(row, "minNs");       /* -inf */
    assert_null_field(row, "maxNs");
    assert_int_equal(json_object_size(json_object_get(row, "metrics")), 0);
    assert_string_equal(json_string_value(json_object_get(row, "error")), "");
    release(&p);
}

/* The number rules on their own: each value as the only metric of a row, by its text. */
struct number_case {
    double value;
    const char *want;
};

static const struct number_case number_cases[] = {
    {0.0, "0"},
    {-0.0, "0"},
    {-42.0, "-42"},
    {3823300.0, "3823300"},
    {9007199254740992.0, "9007199254740992"}, /* 2^53: still an integer */
    {-9007199254740992.0, "-9007199254740992"},
    {9007199254740994.0, "9.00719925474099e15"}, /* above 2^53: %.15g */
    {1e20, "1e20"},
    {123456.7, "123456.7"}, /* every digit measured (issue 32, point 4) */
    {-123456.7, "-123456.7"},
    {999999.6, "999999.6"},
    {0.9999999, "0.9999999"},
    {0.5, "0.5"},
    {0.1, "0.1"}, /* never the noise digits of %.17g */
    {2.715391234, "2.715391234"},
    {1234567.8, "1234567.8"},
    {884856000.5, "884856000.5"},
    {1.0 / 3.0, "0.333333333333333"},
    {1e-5, "1e-5"},
    {1.5e-300, "1.5e-300"},
    {NAN, "null"},
    {INFINITY, "null"},
    {-INFINITY, "null"},
};

static void test_number_rules(void **state)
{
    (void)state;
    struct bench__column_desc col = {"x",      "x",  BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE,
                                     "client", false};
    for (size_t i = 0; i < N(number_cases); i++) {
        struct bench__cell cell = {&col, number_cases[i].value, false, 0};
        struct bench__row row = {.name = "n",
                                 .state = BENCH__ROW_OK,
                                 .iterations = 1,
                                 .samples = 1,
                                 .stats = {1, 0, 1, 1},
                                 .cells = &cell,
                                 .n_cells = 1,
                                 .error = ""};
        struct bench__report r = make_report();
        r.rows = &row;
        r.n_rows = 1;
        struct parsed p = render(&r);
        char want[128];
        snprintf(want, sizeof want, "\"metrics\": {\n        \"x\": %s\n      },",
                 number_cases[i].want);
        if (!strstr(p.text, want))
            fail_msg("%.17g: want %s in\n%s", number_cases[i].value, number_cases[i].want, p.text);
        release(&p);
    }
}

static void test_large_counts(void **state)
{
    (void)state;
    struct bench__row row = {.name = "big",
                             .state = BENCH__ROW_OK,
                             .iterations = (1ULL << 53),
                             .samples = 32,
                             .stats = {1, 0, 1, 1},
                             .count_iterations = (1ULL << 53) + 2,
                             .error = ""};
    struct bench__report r = make_report();
    r.rows = &row;
    r.n_rows = 1;
    struct parsed p = render(&r);
    assert_contains(p.text, "\"iterations\": 9007199254740992,\n");
    assert_contains(p.text, "\"countIterations\": 9.00719925474099e15,\n");
    release(&p);
}

static void test_empty_report(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    r.n_columns = 0;
    r.columns = NULL;
    r.n_rows = 0;
    r.rows = NULL;
    struct parsed p = render(&r);
    assert_contains(p.text, "\n  \"columns\": [],\n  \"rows\": []\n}\n");
    release(&p);
}

static void test_strings(void **state)
{
    (void)state;
    struct bench__kv labels[] = {{"k\xff", "v\"\\\n\t\x01"}};
    struct bench__column_desc col = {"m\xc3\x28",         "m",      BENCH__FORMAT_COUNT,
                                     BENCH__QUANTITATIVE, "client", false};
    struct bench__cell cell = {&col, 1.0, false, 0};
    struct bench__row row = {.name = "caf\xc3\xa9 \xe2\x89\x88",
                             .labels = labels,
                             .n_labels = 1,
                             .state = BENCH__ROW_ERROR,
                             .cells = &cell,
                             .n_cells = 1,
                             .error = "bad \xed\xa0\x80 surrogate"};
    struct bench__report r = make_report();
    r.meta.hostname = "host\xc0\xaf"; /* overlong '/' */
    const struct bench__column_desc *cols[] = {&col};
    r.columns = cols;
    r.n_columns = 1;
    r.rows = &row;
    r.n_rows = 1;
    struct parsed p = render(&r);
    json_t *meta = json_object_get(p.doc, "meta");
    assert_string_equal(json_string_value(json_object_get(meta, "hostname")),
                        "host\xef\xbf\xbd\xef\xbf\xbd");
    json_t *rr = row_at(&p, 0);
    assert_string_equal(json_string_value(json_object_get(rr, "name")), "caf\xc3\xa9 \xe2\x89\x88");
    json_t *lab = json_object_get(rr, "labels");
    assert_string_equal(json_string_value(json_object_get(lab, "k\xef\xbf\xbd")), "v\"\\\n\t\x01");
    assert_contains(p.text, "\"v\\\"\\\\\\n\\t\\u0001\"");
    assert_string_equal(json_string_value(json_object_get(rr, "error")),
                        "bad \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd surrogate");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(p.doc, "columns"), 0), "name")),
                        "m\xef\xbf\xbd(");
    release(&p);
}

static void test_deterministic(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    r.meta.provenance = provenance;
    r.meta.n_provenance = N(provenance);
    char *a = bench__json_render(&r);
    char *b = bench__json_render(&r);
    assert_non_null(a);
    assert_non_null(b);
    size_t la = strlen(a), lb = strlen(b);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
}

/* ---- writing ------------------------------------------------------------------------------ */

struct tmpdir {
    char path[64];
};

static void tmpdir_make(struct tmpdir *d)
{
    const char *base = getenv("TMPDIR");
    snprintf(d->path, sizeof d->path, "%s/test_json.XXXXXX",
             base && *base && strlen(base) < 32 ? base : "/tmp");
    assert_non_null(mkdtemp(d->path));
}

/* Names in the directory, "." and ".." excluded, sorted, '/'-joined. */
static void dir_listing(const char *dir, char *out, size_t size)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0) {
            if (out[0])
                strncat(out, "/", size - strlen(out) - 1);
            strncat(out, names[i]->d_name, size - strlen(out) - 1);
        }
        free(names[i]);
    }
    free(names);
}

static void tmpdir_remove(struct tmpdir *d)
{
    struct dirent **names;
    int n = scandir(d->path, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", d->path, names[i]->d_name);
        if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0)
            unlink(p);
        free(names[i]);
    }
    if (n >= 0)
        free(names);
    rmdir(d->path);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (len + 2 > cap) {
            cap = cap ? cap * 2 : 4096;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        buf[len++] = (char)c;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = '\0';
    return buf;
}

static void test_write_fresh(void **state)
{
    (void)state;
    struct tmpdir d;
    tmpdir_make(&d);
    char path[PATH_MAX], err[BENCH__ERROR_MAX] = "";
    snprintf(path, sizeof path, "%s/out.json", d.path);
    struct bench__report r = make_report();
    mode_t old = umask(027);
    int rc = bench__json_write(&r, path, err, sizeof err);
    umask(old);
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    char *got = slurp(path), *want = bench__json_render(&r);
    assert_non_null(got);
    assert_string_equal(got, want);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640); /* 0644 under umask 027, not mkstemp's 0600 */
    char listing[256];
    dir_listing(d.path, listing, sizeof listing);
    assert_string_equal(listing, "out.json");
    free(got);
    free(want);
    tmpdir_remove(&d);
}

static void test_write_replaces(void **state)
{
    (void)state;
    struct tmpdir d;
    tmpdir_make(&d);
    char path[PATH_MAX], link[PATH_MAX], err[BENCH__ERROR_MAX] = "";
    snprintf(path, sizeof path, "%s/out.json", d.path);
    snprintf(link, sizeof link, "%s/link.json", d.path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old content that is longer than nothing\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(symlink("out.json", link), 0);
    struct bench__report r = make_report();
    /* through the link: the file it names is replaced, the link stays a link */
    assert_int_equal(bench__json_write(&r, link, err, sizeof err), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char *got = slurp(path), *want = bench__json_render(&r);
    assert_string_equal(got, want);
    free(got);
    r.n_rows = 1;
    assert_int_equal(bench__json_write(&r, path, err, sizeof err), 0);
    free(want);
    got = slurp(path);
    want = bench__json_render(&r);
    assert_string_equal(got, want);
    char listing[256];
    dir_listing(d.path, listing, sizeof listing);
    assert_string_equal(listing, "link.json/out.json");
    free(got);
    free(want);
    tmpdir_remove(&d);
}

static void test_write_dev_full(void **state)
{
    (void)state;
    struct stat st;
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode)) {
        skip();
        return;
    }
    char err[BENCH__ERROR_MAX] = "";
    struct bench__report r = make_report();
    int rc = bench__json_write(&r, "/dev/full", err, sizeof err);
    assert_int_equal(rc, -ENOSPC);
    assert_string_equal(err, "cannot write '/dev/full': No space left on device");
    glob_t g;
    assert_int_equal(glob("/dev/full.*", 0, NULL, &g), GLOB_NOMATCH);
    globfree(&g);
}

static void test_write_missing_dir(void **state)
{
    (void)state;
    struct tmpdir d;
    tmpdir_make(&d);
    char path[PATH_MAX], err[BENCH__ERROR_MAX] = "", want[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/missing/out.json", d.path);
    struct bench__report r = make_report();
    assert_int_equal(bench__json_write(&r, path, err, sizeof err), -ENOENT);
    snprintf(want, sizeof want, "cannot write '%s': No such file or directory", path);
    assert_string_equal(err, want);
    char listing[256];
    dir_listing(d.path, listing, sizeof listing);
    assert_string_equal(listing, "");
    tmpdir_remove(&d);
}

static void test_write_directory(void **state)
{
    (void)state;
    struct tmpdir d;
    tmpdir_make(&d);
    char err[BENCH__ERROR_MAX] = "", want[PATH_MAX + 64];
    struct bench__report r = make_report();
    assert_int_equal(bench__json_write(&r, d.path, err, sizeof err), -EISDIR);
    snprintf(want, sizeof want, "cannot write '%s': Is a directory", d.path);
    assert_string_equal(err, want);
    char listing[256];
    dir_listing(d.path, listing, sizeof listing);
    assert_string_equal(listing, "");
    tmpdir_remove(&d);
}

static void test_write_err_one_line(void **state)
{
    (void)state;
    char err[BENCH__ERROR_MAX] = "";
    struct bench__report r = make_report();
    assert_true(bench__json_write(&r, "/nonexistent-dir\n/x.json", err, sizeof err) < 0);
    assert_string_equal(err, "cannot write '/nonexistent-dir?/x.json': No such file or directory");
    assert_int_equal(bench__json_write(&r, "", err, sizeof err), -ENOENT);
}

static void test_write_fifo(void **state)
{
    (void)state;
    struct tmpdir d;
    tmpdir_make(&d);
    char path[PATH_MAX], err[BENCH__ERROR_MAX] = "";
    snprintf(path, sizeof path, "%s/pipe", d.path);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct bench__report r = make_report();
    char *want = bench__json_render(&r);
    size_t want_len = strlen(want);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* reader: exit 0 when it read exactly the document */
        FILE *f = fopen(path, "rb");
        if (!f)
            _exit(2);
        size_t got = 0;
        int c, same = 1;
        while ((c = fgetc(f)) != EOF) {
            same = same && got < want_len && want[got] == (char)c;
            got++;
        }
        _exit(same && got == want_len ? 0 : 1);
    }
    assert_int_equal(bench__json_write(&r, path, err, sizeof err), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    struct stat st; /* still a FIFO: nothing was renamed over it */
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    char listing[256];
    dir_listing(d.path, listing, sizeof listing);
    assert_string_equal(listing, "pipe");
    free(want);
    tmpdir_remove(&d);
}

/* A rewrite that fails half-way (the file size limit, so write() returns EFBIG) leaves the
 * old file intact and no temporary file behind. */
static void test_write_failure_keeps_old(void **state)
{
    (void)state;
    struct tmpdir d;
    tmpdir_make(&d);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/out.json", d.path);
    static const char old_content[] = "{\"old\": true}\n";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(old_content, f);
    assert_int_equal(fclose(f), 0);

    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {64, 64};
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
            _exit(10);
        char err[BENCH__ERROR_MAX] = "", want[PATH_MAX + 64];
        struct bench__report r = make_report();
        int rc = bench__json_write(&r, path, err, sizeof err);
        if (rc != -EFBIG)
            _exit(11);
        snprintf(want, sizeof want, "cannot write '%s': File too large", path);
        _exit(strcmp(err, want) == 0 ? 0 : 12);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *got = slurp(path);
    assert_string_equal(got, old_content);
    free(got);
    char listing[256];
    dir_listing(d.path, listing, sizeof listing);
    assert_string_equal(listing, "out.json");
    tmpdir_remove(&d);
}

/* JSON_SAMPLE_OUT=<path>: also write the fixture document there (with provenance), for
 * trying tests/e2e/check_json_schema.py on real output. */
static int write_sample(const char *out)
{
    struct bench__report r = make_report();
    r.meta.provenance = provenance;
    r.meta.n_provenance = N(provenance);
    char err[BENCH__ERROR_MAX] = "";
    if (bench__json_write(&r, out, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    return 0;
}

static void test_clock_overhead_only_when_measured(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    char *text = bench__json_render(&r);
    assert_non_null(text);
    assert_null(strstr(text, "clockOverheadNs"));
    free(text);
    r.meta.clock_overhead_ns = 21;
    text = bench__json_render(&r);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"contentionThreshold\": 0.25,\n    \"clockOverheadNs\": 21,\n"
                                 "    \"clockResolutionFactor\": 2\n  },"));
    free(text);
}

/* A row at the clock's resolution says so ("atClockResolution": true); the others leave the
 * key out. */
static void test_at_clock_resolution_key(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    char *text = bench__json_render(&r);
    assert_non_null(text);
    assert_null(strstr(text, "atClockResolution"));
    free(text);
    rows[0].at_clock_resolution = true;
    text = bench__json_render(&r);
    rows[0].at_clock_resolution = false;
    assert_non_null(text);
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    free(text);
    assert_non_null(doc);
    json_t *list = json_object_get(doc, "rows");
    bool first = json_is_true(json_object_get(json_array_get(list, 0), "atClockResolution"));
    size_t marked = 0;
    for (size_t i = 0; i < json_array_size(list); i++)
        marked += json_object_get(json_array_get(list, i), "atClockResolution") != NULL;
    json_decref(doc);
    assert_true(first);
    assert_int_equal(marked, 1);
}

/* A row counted one call per bracket lists what the empty bracket included in each count read
 * ("bracketIncluded"), never subtracted; the others leave the key out (issue 32, point 3). */
static void test_bracket_included_key(void **state)
{
    (void)state;
    struct bench__report r = make_report();
    char *text = bench__json_render(&r);
    assert_non_null(text);
    assert_null(strstr(text, "bracketIncluded"));
    free(text);
    cells_count[0].bracket = 2220.5;
    text = bench__json_render(&r);
    cells_count[0].bracket = 0;
    assert_non_null(text);
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    free(text);
    assert_non_null(doc);
    json_t *list = json_object_get(doc, "rows");
    size_t marked = 0;
    double included = 0, value = 0;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *row = json_array_get(list, i);
        json_t *b = json_object_get(row, "bracketIncluded");
        if (!b)
            continue;
        marked++;
        included = json_real_value(json_object_get(b, "B/s"));
        value = json_number_value(json_object_get(json_object_get(row, "metrics"), "B/s"));
    }
    json_decref(doc);
    assert_int_equal(marked, 1);
    assert_true(included == 2220.5);
    assert_true(value == 165175000.5); /* the value as counted, not less 2220.5 */
}

int main(void)
{
    const char *sample = getenv("JSON_SAMPLE_OUT");
    if (sample && *sample && write_sample(sample) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_at_clock_resolution_key),
        cmocka_unit_test(test_bracket_included_key),
        cmocka_unit_test(test_clock_overhead_only_when_measured),
        cmocka_unit_test(test_top_level),
        cmocka_unit_test(test_meta),
        cmocka_unit_test(test_meta_provenance),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_normal_row),
        cmocka_unit_test(test_estimate_row),
        cmocka_unit_test(test_count_row),
        cmocka_unit_test(test_error_row),
        cmocka_unit_test(test_skipped_row),
        cmocka_unit_test(test_nan_stats_row),
        cmocka_unit_test(test_number_rules),
        cmocka_unit_test(test_large_counts),
        cmocka_unit_test(test_empty_report),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_write_fresh),
        cmocka_unit_test(test_write_replaces),
        cmocka_unit_test(test_write_dev_full),
        cmocka_unit_test(test_write_missing_dir),
        cmocka_unit_test(test_write_directory),
        cmocka_unit_test(test_write_err_one_line),
        cmocka_unit_test(test_write_fifo),
        cmocka_unit_test(test_write_failure_keeps_old),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
