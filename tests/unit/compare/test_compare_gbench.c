/* SPDX-License-Identifier: MIT */
/* test_compare_gbench.c: `libbench compare`'s reader of Google Benchmark JSON
 * (tools/compare/gbench.c) and file mode's loading of runs (tools/compare/files.c), on
 * hand-written documents: units, names and arguments, repetitions as runs, aggregates,
 * errors, bad documents refused with their field, and hostile input. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare/compare.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- documents ------------------------------------------------------------------------------ */

static char text[1 << 16];

/* A Google Benchmark document around the given rows ("" for none). */
static const char *gb_doc(const char *rows)
{
    snprintf(text, sizeof text,
             "{\"context\": {\"date\": \"2026-01-01T00:00:00+00:00\", \"host_name\": \"h\", "
             "\"num_cpus\": 2, \"caches\": [], \"load_avg\": [0.5, 0.4, 0.3], "
             "\"library_build_type\": \"release\"},\n \"benchmarks\": [%s]}\n",
             rows);
    return text;
}

/* One iteration row as Google Benchmark 1.7 writes it. */
static char *iter(const char *name, int rep, int reps, const char *real_time, const char *unit)
{
    char *row;
    int n = asprintf(&row,
                     "{\"name\": \"%s\", \"family_index\": 0, \"per_family_instance_index\": 0, "
                     "\"run_name\": \"%s\", \"run_type\": \"iteration\", \"repetitions\": %d, "
                     "\"repetition_index\": %d, \"threads\": 1, \"iterations\": 1000, "
                     "\"real_time\": %s, \"cpu_time\": 1.0e+00, \"time_unit\": \"%s\"}",
                     name, name, reps, rep, real_time, unit);
    assert_true(n > 0);
    return row;
}

static char *aggregate(const char *run_name, const char *which, int reps)
{
    char *row;
    int n = asprintf(&row,
                     "{\"name\": \"%s_%s\", \"run_name\": \"%s\", \"run_type\": \"aggregate\", "
                     "\"repetitions\": %d, \"threads\": 1, \"aggregate_name\": \"%s\", "
                     "\"aggregate_unit\": \"time\", \"iterations\": %d, \"real_time\": 5.0e+00, "
                     "\"cpu_time\": 5.0e+00, \"time_unit\": \"ns\"}",
                     run_name, which, run_name, reps, which, reps);
    assert_true(n > 0);
    return row;
}

/* rows joined with ", " (each freed) */
static char *join(size_t n, ...)
{
    static char buf[1 << 15];
    buf[0] = '\0';
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        char *row = va_arg(ap, char *);
        if (i)
            strcat(buf, ", ");
        assert_true(strlen(buf) + strlen(row) + 3 < sizeof buf);
        strcat(buf, row);
        free(row);
    }
    va_end(ap);
    return buf;
}

static struct compare_doc *parse_ok(const char *doc, size_t *n)
{
    struct compare_doc *docs = NULL;
    char err[COMPARE_ERROR_MAX] = "";
    int rc = compare_doc_parse_runs(doc, strlen(doc), &docs, n, err, sizeof err);
    if (rc != 0)
        printf("unexpected failure: %s\n", err);
    assert_int_equal(rc, 0);
    assert_non_null(docs);
    return docs;
}

static void parse_fails(const char *doc, const char *want)
{
    struct compare_doc *docs = (struct compare_doc *)1;
    size_t n = 99;
    char err[COMPARE_ERROR_MAX] = "";
    int rc = compare_doc_parse_runs(doc, strlen(doc), &docs, &n, err, sizeof err);
    if (rc == 0 || !strstr(err, want))
        printf("document: %s\nerror: '%s'\nwanted: '%s'\n", doc, err, want);
    assert_int_equal(rc, -1);
    assert_null(docs);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err, want));
    for (const char *c = err; *c; c++)
        assert_true((unsigned char)*c >= 0x20 && *c != 0x7F); /* one clean line */
}

static const struct compare_row *row_named(const struct compare_doc *d, const char *name,
                                           const char *operation)
{
    for (size_t i = 0; i < d->n_rows; i++)
        if (strcmp(d->rows[i].name, name) == 0 && strcmp(d->rows[i].operation, operation) == 0)
            return &d->rows[i];
    printf("no row '%s' {%s}\n", name, operation);
    fail();
    return NULL;
}

/* ---- units ---------------------------------------------------------------------------------- */

static void test_units(void **state)
{
    (void)state;
    size_t n;
    struct compare_doc *docs = parse_ok(
        gb_doc(join(5, iter("BM_ns", 0, 1, "1.5e+00", "ns"), iter("BM_us", 0, 1, "1.5e+00", "us"),
                    iter("BM_ms", 0, 1, "2.5e-01", "ms"), iter("BM_s", 0, 1, "2", "s"),
                    iter("BM_tiny", 0, 1, "3.0000000000000001e-07", "ms"))),
        &n);
    assert_int_equal(n, 1);
    assert_int_equal(docs[0].n_rows, 5);
    assert_true(row_named(&docs[0], "BM_ns", "")->median_ns == 1.5);
    assert_true(row_named(&docs[0], "BM_us", "")->median_ns == 1500.0);
    assert_true(row_named(&docs[0], "BM_ms", "")->median_ns == 250000.0);
    assert_true(row_named(&docs[0], "BM_s", "")->median_ns == 2e9); /* an integer is a number */
    assert_true(fabs(row_named(&docs[0], "BM_tiny", "")->median_ns - 0.3) < 1e-12);
    for (size_t i = 0; i < docs[0].n_rows; i++)
        assert_null(docs[0].rows[i].skip);
    compare_docs_free(docs, n);
}

/* ---- names and arguments -------------------------------------------------------------------- */

static const struct {
    const char *gbench, *name, *operation;
} names[] = {
    {"BM_foo", "BM_foo", ""},
    {"BM_foo/8", "BM_foo", "arg0=8"},
    {"BM_foo/8/64", "BM_foo", "arg0=8,arg1=64"},
    {"BM_foo/-5", "BM_foo", "arg0=-5"},
    {"BM_foo/x:8/y:64", "BM_foo", "x=8,y=64"},
    {"BM_foo/x:8/64", "BM_foo", "arg1=64,x=8"},
    {"BM_foo/x:-3", "BM_foo", "x=-3"},
    {"BM_foo/threads:4", "BM_foo", "threads=4"},
    {"BM_foo/8/threads:4", "BM_foo", "arg0=8,threads=4"},
    {"BM_foo/min_time:0.500/real_time", "BM_foo", "min_time=0.500,time=real_time"},
    {"BM_foo/manual_time", "BM_foo", "time=manual_time"},
    {"BM_foo/process_time/real_time/threads:8", "BM_foo", "threads=8,time=process_time/real_time"},
    {"BM_foo/process_time", "BM_foo", "time=process_time"},
    {"BM_bar<int>/iterations:100/repeats:3", "BM_bar<int>", "iterations=100,repeats=3"},
    {"BM_foo/1/min_time:0.010/min_warmup_time:0.250/iterations:7/repeats:2/process_time/"
     "manual_time/threads:2",
     "BM_foo",
     "arg0=1,iterations=7,min_time=0.010,min_warmup_time=0.250,repeats=2,threads=2,"
     "time=process_time/manual_time"},
    /* a BENCHMARK_CAPTURE name stays in the name; its arguments do not */
    {"BM_capture/small", "BM_capture/small", ""},
    {"BM_capture/small/16", "BM_capture/small", "arg0=16"},
    /* the parts keep their order: out of order, a part stays in the name or is an argument */
    {"BM_foo/threads:4/real_time", "BM_foo", "arg0=threads:4,time=real_time"},
    {"BM_foo/threads:4/threads:2", "BM_foo", "arg0=threads:4,threads=2"},
    {"BM_foo/real_time/8", "BM_foo/real_time", "arg0=8"},
    /* a named argument never takes a reserved key, an argN key, or a key given twice */
    {"BM_foo/time:3", "BM_foo", "arg0=time:3"},
    {"BM_foo/arg1:5/7", "BM_foo", "arg0=arg1:5,arg1=7"},
    {"BM_foo/x:1/x:2", "BM_foo", "arg1=x:2,x=1"},
    {"BM_foo/a:b:5", "BM_foo", "a:b=5"},
    /* not arguments: a value that is not an integer, an empty name or value */
    {"BM_foo/x:", "BM_foo/x:", ""},
    {"BM_foo/:5", "BM_foo/:5", ""},
    {"BM_foo/8.5", "BM_foo/8.5", ""},
    {"BM_foo/threads:x", "BM_foo/threads:x", ""},
    {"BM_foo/min_time:", "BM_foo/min_time:", ""},
    {"BM_foo//8", "BM_foo/", "arg0=8"},
    /* the first part always stays; an empty first part keeps the whole name */
    {"8", "8", ""},
    {"threads:4", "threads:4", ""},
    {"/8", "/8", ""},
    {"/", "/", ""},
    {"a/", "a/", ""},
    {"BM_t<std::ratio<1/2>>", "BM_t<std::ratio<1/2>>", ""},
};

static void test_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_OF(names); i++) {
        size_t n;
        struct compare_doc *docs =
            parse_ok(gb_doc(join(1, iter(names[i].gbench, 0, 1, "5", "ns"))), &n);
        assert_int_equal(n, 1);
        assert_int_equal(docs[0].n_rows, 1);
        const struct compare_row *r = &docs[0].rows[0];
        if (strcmp(r->name, names[i].name) != 0 || strcmp(r->operation, names[i].operation) != 0)
            printf("'%s': got '%s' {%s}, want '%s' {%s}\n", names[i].gbench, r->name, r->operation,
                   names[i].name, names[i].operation);
        assert_string_equal(r->name, names[i].name);
        assert_string_equal(r->operation, names[i].operation);
        for (size_t k = 1; k < r->n_labels; k++)
            assert_true(strcmp(r->labels[k - 1].key, r->labels[k].key) < 0);
        compare_docs_free(docs, n);
    }
    /* different names are different cells: all of them in one document are accepted */
    static char rows[1 << 15];
    rows[0] = '\0';
    for (size_t i = 0; i < N_OF(names); i++) {
        char *row = iter(names[i].gbench, 0, 1, "5", "ns");
        if (i)
            strcat(rows, ", ");
        strcat(rows, row);
        free(row);
    }
    size_t n;
    struct compare_doc *docs = parse_ok(gb_doc(rows), &n);
    assert_int_equal(docs[0].n_rows, N_OF(names));
    compare_docs_free(docs, n);
}

/* Named arguments are matched by name: the same names and values in another order are the same
 * cell, so both in one document are refused, naming both rows. */
static void test_named_order(void **state)
{
    (void)state;
    parse_fails(gb_doc(join(2, iter("BM_f/x:1/y:2", 0, 1, "5", "ns"),
                            iter("BM_f/y:2/x:1", 0, 1, "6", "ns"))),
                "benchmarks[1]: the same cell and repetition as benchmarks[0] ('BM_f' {x=1,y=2}, "
                "repetition_index 0)");
}

/* ---- repetitions, aggregates, errors -------------------------------------------------------- */

static void test_repetitions(void **state)
{
    (void)state;
    /* three repetitions, written out of order (random interleaving), with their aggregates and
     * a family's BigO and RMS; BM_b declares 2 repetitions (Repetitions(2) in its code) */
    const char *doc =
        gb_doc(join(12, iter("BM_a/1", 2, 3, "30", "ns"), iter("BM_b", 0, 2, "1", "us"),
                    iter("BM_a/1", 0, 3, "10", "ns"), iter("BM_a/1", 1, 3, "20", "ns"),
                    iter("BM_b", 1, 2, "2", "us"), aggregate("BM_a/1", "mean", 3),
                    aggregate("BM_a/1", "median", 3), aggregate("BM_a/1", "stddev", 3),
                    aggregate("BM_a/1", "cv", 3), aggregate("BM_b", "mean", 2),
                    aggregate("BM_a", "BigO", 3), aggregate("BM_a", "RMS", 3)));
    size_t n;
    struct compare_doc *docs = parse_ok(doc, &n);
    assert_int_equal(n, 3);
    for (size_t r = 0; r < n; r++) {
        /* every run has every cell, in the order of their first rows; no cell "BM_a" of BigO */
        assert_int_equal(docs[r].n_rows, 2);
        assert_string_equal(docs[r].rows[0].name, "BM_a");
        assert_string_equal(docs[r].rows[0].operation, "arg0=1");
        assert_string_equal(docs[r].rows[1].name, "BM_b");
        assert_true(docs[r].rows[0].median_ns == 10.0 * (double)(r + 1));
        assert_null(docs[r].rows[0].skip);
    }
    assert_true(docs[0].rows[1].median_ns == 1000.0);
    assert_true(docs[1].rows[1].median_ns == 2000.0);
    assert_true(isnan(docs[2].rows[1].median_ns));
    assert_string_equal(docs[2].rows[1].skip,
                        "not in the file: this benchmark ran 2 repetitions (repetition_index 0 "
                        "to 1)");
    compare_docs_free(docs, n);

    /* one repetition missing from the file (edited by hand): a skip that says so */
    docs =
        parse_ok(gb_doc(join(2, iter("BM_a", 0, 3, "1", "ns"), iter("BM_a", 2, 3, "3", "ns"))), &n);
    assert_int_equal(n, 3);
    assert_string_equal(docs[1].rows[0].skip, "no row for repetition_index 1 in the file");
    assert_true(docs[2].rows[0].median_ns == 3.0);
    compare_docs_free(docs, n);

    /* the same repetition twice */
    parse_fails(gb_doc(join(3, iter("BM_a", 0, 2, "1", "ns"), iter("BM_a", 1, 2, "1", "ns"),
                            iter("BM_a", 1, 2, "2", "ns"))),
                "benchmarks[2]: the same cell and repetition as benchmarks[1] ('BM_a' {}, "
                "repetition_index 1)");
}

static void test_aggregates_only(void **state)
{
    (void)state;
    /* a benchmark with ReportAggregatesOnly among others: a cell whose every run is a skip */
    size_t n;
    struct compare_doc *docs =
        parse_ok(gb_doc(join(4, iter("BM_a", 0, 2, "1", "ns"), iter("BM_a", 1, 2, "2", "ns"),
                             aggregate("BM_agg/4", "mean", 2), aggregate("BM_agg/4", "median", 2))),
                 &n);
    assert_int_equal(n, 2);
    for (size_t r = 0; r < n; r++) {
        const struct compare_row *row = row_named(&docs[r], "BM_agg", "arg0=4");
        assert_true(isnan(row->median_ns));
        assert_non_null(strstr(row->skip, "only aggregate rows (mean, median, ...) in the file"));
    }
    compare_docs_free(docs, n);
    /* a whole file of aggregates (--benchmark_report_aggregates_only): refused */
    parse_fails(gb_doc(join(2, aggregate("BM_a", "mean", 3), aggregate("BM_a", "median", 3))),
                "benchmarks: only aggregate rows (mean, median, ...), no repetition of any "
                "benchmark: write the file without --benchmark_report_aggregates_only");
}

static void test_errors(void **state)
{
    (void)state;
    const char *doc = gb_doc(
        "{\"name\": \"BM_err\", \"run_name\": \"BM_err\", \"run_type\": \"iteration\", "
        "\"repetitions\": 2, \"repetition_index\": 0, \"threads\": 1, \"error_occurred\": true, "
        "\"error_message\": \"no device\", \"iterations\": 1, \"real_time\": 0.0, "
        "\"cpu_time\": 0.0, \"time_unit\": \"ns\"},"
        "{\"name\": \"BM_err\", \"run_name\": \"BM_err\", \"run_type\": \"iteration\", "
        "\"repetitions\": 2, \"repetition_index\": 1, \"threads\": 1, \"iterations\": 5, "
        "\"real_time\": 7.0, \"cpu_time\": 7.0, \"time_unit\": \"ns\"},"
        "{\"name\": \"BM_skip\", \"run_name\": \"BM_skip\", \"run_type\": \"iteration\", "
        "\"repetitions\": 2, \"repetition_index\": 0, \"threads\": 1, \"skipped\": true, "
        "\"skip_message\": \"needs root\", \"iterations\": 0},"
        "{\"name\": \"BM_skip\", \"run_name\": \"BM_skip\", \"run_type\": \"iteration\", "
        "\"repetitions\": 2, \"repetition_index\": 1, \"threads\": 1, \"error_occurred\": true},"
        "{\"name\": \"BM_zero\", \"run_name\": \"BM_zero\", \"run_type\": \"iteration\", "
        "\"repetitions\": 1, \"repetition_index\": 0, \"threads\": 1, \"iterations\": 5, "
        "\"real_time\": 0, \"cpu_time\": 0, \"time_unit\": \"ns\"},"
        "{\"name\": \"BM_ok\", \"run_name\": \"BM_ok\", \"run_type\": \"iteration\", "
        "\"repetitions\": 1, \"repetition_index\": 0, \"threads\": 1, \"error_occurred\": false, "
        "\"iterations\": 5, \"real_time\": 3, \"cpu_time\": 3, \"time_unit\": \"ns\", "
        "\"my_counter\": NaN, \"rate\": Infinity, \"neg\": -Infinity, \"label\": \"NaN\"}");
    size_t n;
    struct compare_doc *docs = parse_ok(doc, &n);
    assert_int_equal(n, 2);
    const struct compare_row *r = row_named(&docs[0], "BM_err", "");
    assert_true(isnan(r->median_ns));
    assert_string_equal(r->skip, "error: no device");
    assert_true(row_named(&docs[1], "BM_err", "")->median_ns == 7.0);
    assert_string_equal(row_named(&docs[0], "BM_skip", "")->skip, "skipped: needs root");
    assert_string_equal(row_named(&docs[1], "BM_skip", "")->skip, "error: (no message)");
    assert_string_equal(row_named(&docs[0], "BM_zero", "")->skip,
                        "real_time is 0: nothing was timed");
    /* NaN and Infinity of a counter: Google Benchmark writes them bare; read as null */
    assert_true(row_named(&docs[0], "BM_ok", "")->median_ns == 3.0);
    compare_docs_free(docs, n);
}

/* ---- recognised by content ------------------------------------------------------------------ */

static void test_detection(void **state)
{
    (void)state;
    /* a --bench-json document is one run, whatever the file is called */
    const char *bench = "{\"schema\": 2, \"rows\": [{\"name\": \"x\", \"labels\": {}, "
                        "\"medianNs\": 5, \"error\": \"\"}]}";
    size_t n;
    struct compare_doc *docs = parse_ok(bench, &n);
    assert_int_equal(n, 1);
    assert_int_equal(docs[0].n_rows, 1);
    compare_docs_free(docs, n);
    /* "schema" decides even when "benchmarks" is there too */
    parse_fails("{\"schema\": 2, \"benchmarks\": [], \"context\": {}}", "rows: missing");
    /* bare NaN is read only in a Google Benchmark document */
    parse_fails("{\"schema\": 2, \"rows\": [], \"x\": NaN}", "invalid JSON");
    parse_fails("{\"rows\": [], \"x\": NaN}", "invalid JSON");
    parse_fails("{\"rows\": []}", "schema: missing");
    /* an empty Google Benchmark run: one run, no cell */
    docs = parse_ok(gb_doc(""), &n);
    assert_int_equal(n, 1);
    assert_int_equal(docs[0].n_rows, 0);
    compare_docs_free(docs, n);
    /* json_schema_version 1 (newer versions write it) */
    docs = parse_ok("{\"context\": {\"json_schema_version\": 1}, \"benchmarks\": []}", &n);
    compare_docs_free(docs, n);
}

/* ---- bad documents -------------------------------------------------------------------------- */

#define ROW_HEAD "{\"name\": \"BM_a\", \"run_type\": \"iteration\", \"repetitions\": 1, "

static const struct {
    const char *doc; /* NULL: rows given to gb_doc instead */
    const char *rows;
    const char *want;
} bad[] = {
    {"{\"benchmarks\": []}", NULL, "context: missing (a Google Benchmark document has"},
    {"{\"context\": []}", NULL, "context: must be an object, not an array"},
    {"{\"context\": {}}", NULL, "benchmarks: missing"},
    {"{\"context\": {}, \"benchmarks\": {}}", NULL, "benchmarks: must be an array, not an object"},
    {"{\"context\": {\"json_schema_version\": 2}, \"benchmarks\": []}", NULL,
     "context.json_schema_version: unsupported version 2 (this libbench reads version 1)"},
    {"{\"context\": {\"json_schema_version\": \"1\"}, \"benchmarks\": []}", NULL,
     "context.json_schema_version: must be an integer, not a string"},
    {"{\"context\": {}, \"benchmarks\": [1]}", NULL, "benchmarks[0]: must be an object"},
    {"{\"context\": {}, \"benchmarks\": [{\"context\": {}, \"benchmarks\": NaN}]}", NULL,
     "benchmarks[0].run_type: missing"},
    {NULL, "{\"name\": \"x\"}", "benchmarks[0].run_type: missing"},
    {NULL, "{\"run_type\": 3}", "benchmarks[0].run_type: must be a string, not an integer"},
    {NULL, "{\"run_type\": \"total\"}",
     "benchmarks[0].run_type: must be \"iteration\" or \"aggregate\", not 'total'"},
    {NULL, "{\"run_type\": \"iteration\"}", "benchmarks[0].name: missing"},
    {NULL, "{\"run_type\": \"iteration\", \"name\": 5}",
     "benchmarks[0].name: must be a string, not an integer"},
    {NULL, "{\"run_type\": \"iteration\", \"name\": \"\"}",
     "benchmarks[0].name: must not be empty"},
    {NULL, "{\"run_type\": \"iteration\", \"name\": \"a\"}", "benchmarks[0].repetitions: missing"},
    {NULL, "{\"run_type\": \"iteration\", \"name\": \"a\", \"repetitions\": 1.0}",
     "benchmarks[0].repetitions: must be an integer, not a real"},
    {NULL, "{\"run_type\": \"iteration\", \"name\": \"a\", \"repetitions\": 1001}",
     "benchmarks[0].repetitions: must be from 1 to 1000, not 1001"},
    {NULL, "{\"run_type\": \"iteration\", \"name\": \"a\", \"repetitions\": 0}",
     "benchmarks[0].repetitions: must be from 1 to 1000, not 0"},
    {NULL, ROW_HEAD "\"repetition_index\": 1}",
     "benchmarks[0].repetition_index: must be from 0 to 0, not 1"},
    {NULL, ROW_HEAD "\"repetition_index\": -1}",
     "benchmarks[0].repetition_index: must be from 0 to 0, not -1"},
    {NULL, ROW_HEAD "\"repetition_index\": 99999999999999999999}", "invalid JSON"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"error_occurred\": 1}",
     "benchmarks[0].error_occurred: must be true or false, not an integer"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"skipped\": \"yes\"}",
     "benchmarks[0].skipped: must be true or false, not a string"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"error_occurred\": true, \"error_message\": 3}",
     "benchmarks[0].error_message: must be a string, not an integer"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"real_time\": 5}",
     "benchmarks[0].time_unit: missing"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"real_time\": 5, \"time_unit\": \"fs\"}",
     "benchmarks[0].time_unit: must be ns, us, ms or s, not 'fs'"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"real_time\": 5, \"time_unit\": \"n\\u0001s\"}",
     "benchmarks[0].time_unit: must be ns, us, ms or s, not 'n?s'"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"ns\"}",
     "benchmarks[0].real_time: missing"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"ns\", \"real_time\": \"5\"}",
     "benchmarks[0].real_time: must be a number, not a string"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"ns\", \"real_time\": NaN}",
     "benchmarks[0].real_time: must be a number, not null (NaN or Infinity in the file)"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"ns\", \"real_time\": -Infinity}",
     "benchmarks[0].real_time: must be a number, not null"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"ns\", \"real_time\": -1}",
     "benchmarks[0].real_time: must be finite and >= 0, not -1 ns"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"s\", \"real_time\": 1e300}",
     "benchmarks[0].real_time: must be finite and >= 0, not 1.0000000000000001e+300 s"},
    {NULL, ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"ns\", \"real_time\": 1e999}",
     "invalid JSON"},
    {NULL,
     ROW_HEAD "\"repetition_index\": 0, \"time_unit\": \"ns\", \"real_time\": 1, "
              "\"real_time\": 2}",
     "invalid JSON: duplicate object key"},
};

static void test_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_OF(bad); i++) {
        parse_fails(bad[i].doc ? bad[i].doc : gb_doc(bad[i].rows), bad[i].want);
    }
}

/* ---- hostile input -------------------------------------------------------------------------- */

static void check_runs(const struct compare_doc *docs, size_t n)
{
    assert_true(n >= 1 && n <= COMPARE_GBENCH_REPETITIONS_MAX);
    for (size_t r = 0; r < n; r++) {
        assert_int_equal(docs[r].n_rows, docs[0].n_rows);
        for (size_t i = 0; i < docs[r].n_rows; i++) {
            const struct compare_row *row = &docs[r].rows[i];
            assert_true(row->name[0] != '\0');
            assert_string_equal(row->key, docs[0].rows[i].key); /* one cell per index */
            if (row->skip)
                assert_true(isnan(row->median_ns));
            else
                assert_true(isfinite(row->median_ns) && row->median_ns > 0);
        }
    }
}

/* Every cut of a real document and every byte of it replaced by a few others: never a crash
 * or a leak (ASan), a failure is one clean line, a success holds every run's invariants. */
static void test_hostile(void **state)
{
    (void)state;
    static char good[sizeof text];
    strcpy(good, gb_doc(join(5, iter("BM_a/x:8/64/threads:2", 0, 2, "1.5e+00", "us"),
                             iter("BM_a/x:8/64/threads:2", 1, 2, "NaN", "us"),
                             aggregate("BM_a/x:8/64/threads:2", "mean", 2),
                             iter("BM_b/min_time:0.500/real_time", 0, 1, "1", "ms"),
                             aggregate("BM_c", "median", 1))));
    /* the NaN real_time above makes the whole document a failure: make it a value */
    char *nan = strstr(good, "\"real_time\": NaN");
    assert_non_null(nan);
    memcpy(nan, "\"real_time\": 2e0", 16);
    size_t len = strlen(good);
    static const char replacements[] = {'\0', '"', '\\', '/', ':', '{', '[', '-', '9', 'N', 0x01};
    size_t successes = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        for (size_t k = 0; k <= N_OF(replacements); k++) {
            static char doc[sizeof text];
            memcpy(doc, good, len);
            size_t doc_len = len;
            if (k == N_OF(replacements))
                doc_len = cut; /* the cut */
            else if (cut < len)
                doc[cut] = replacements[k];
            else
                continue;
            struct compare_doc *docs;
            size_t n;
            char err[COMPARE_ERROR_MAX] = "";
            if (compare_doc_parse_runs(doc, doc_len, &docs, &n, err, sizeof err) == 0) {
                check_runs(docs, n);
                compare_docs_free(docs, n);
                successes++;
            } else {
                assert_null(docs);
                assert_true(err[0] != '\0');
                for (const char *c = err; *c; c++)
                    assert_true((unsigned char)*c >= 0x20 && *c != 0x7F);
            }
        }
    }
    assert_true(successes > 0);

    /* a bomb: one benchmark with 1000 repetitions and very many others: refused, bounded */
    size_t cap = 1u << 26;
    char *big = malloc(cap);
    assert_non_null(big);
    size_t used = (size_t)snprintf(big, cap, "{\"context\": {}, \"benchmarks\": [");
    used +=
        (size_t)snprintf(big + used, cap - used,
                         "{\"name\": \"r\", \"run_type\": \"iteration\", \"repetitions\": 1000, "
                         "\"repetition_index\": 999, \"real_time\": 1, \"time_unit\": \"ns\"}");
    for (size_t i = 0; i < 1100; i++)
        used += (size_t)snprintf(big + used, cap - used,
                                 ", {\"name\": \"b%zu\", \"run_type\": \"iteration\", "
                                 "\"repetitions\": 1, \"repetition_index\": 0, \"real_time\": 1, "
                                 "\"time_unit\": \"ns\"}",
                                 i);
    used += (size_t)snprintf(big + used, cap - used, "]}");
    struct compare_doc *docs;
    size_t n;
    char err[COMPARE_ERROR_MAX];
    assert_int_equal(compare_doc_parse_runs(big, used, &docs, &n, err, sizeof err), -1);
    assert_string_equal(err, "benchmarks: 1101 benchmarks × 1000 repetitions is more than 1048576 "
                             "values in one file");
    free(big);

    /* a name made of thousands of parts */
    static char rows[1 << 15];
    char name[12000];
    size_t p = 0;
    name[p++] = 'B';
    while (p + 3 < 12000) {
        name[p] = '/';
        name[p + 1] = (char)('0' + p % 10);
        p += 2;
    }
    name[p] = '\0';
    char *row = iter(name, 0, 1, "1", "ns");
    snprintf(rows, sizeof rows, "%s", row);
    free(row);
    docs = parse_ok(gb_doc(rows), &n);
    assert_string_equal(docs[0].rows[0].name, "B");
    assert_int_equal(docs[0].rows[0].n_labels, (p - 1) / 2);
    compare_docs_free(docs, n);
}

/* ---- file mode: files into runs ------------------------------------------------------------- */

static char *write_temp(const char *content)
{
    char *path = strdup("/tmp/test_compare_gbench_XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t len = strlen(content);
    assert_int_equal(write(fd, content, len), (ssize_t)len);
    close(fd);
    return path;
}

/* What compare_cmd.c's state_free releases of a state compare_load_files filled. */
static void state_release(struct compare_state *st)
{
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        compare_docs_free(st->docs[s], st->n_runs[s]);
        free(st->run_fail[s]);
        free(st->opts.files[s]);
    }
}

/* The runs of every file of a subject, in the order given: a file with repetitions adds one
 * run per repetition; each run knows its file. */
static void test_load_files(void **state)
{
    (void)state;
    char *two =
        write_temp(gb_doc(join(2, iter("BM_a", 0, 2, "1", "ns"), iter("BM_a", 1, 2, "2", "ns"))));
    char *one = write_temp(gb_doc(join(1, iter("BM_a", 0, 1, "3", "ns"))));
    char *bench = write_temp("{\"schema\": 2, \"rows\": [{\"name\": \"BM_a\", \"labels\": {}, "
                             "\"medianNs\": 4, \"error\": \"\"}]}");
    char *broken = write_temp(gb_doc(join(1, iter("BM_a", 0, 1, "-1", "ns"))));

    struct compare_state st;
    memset(&st, 0, sizeof st);
    char *base[] = {two, one, bench}, *cand[] = {one, two};
    st.opts.files[SUBJ_BASELINE] = calloc(3, sizeof(char *));
    st.opts.files[SUBJ_CANDIDATE] = calloc(2, sizeof(char *));
    memcpy(st.opts.files[SUBJ_BASELINE], base, sizeof base);
    memcpy(st.opts.files[SUBJ_CANDIDATE], cand, sizeof cand);
    st.opts.n_files[SUBJ_BASELINE] = 3;
    st.opts.n_files[SUBJ_CANDIDATE] = 2;
    char err[COMPARE_ERROR_MAX + 300];
    assert_int_equal(compare_load_files(&st, err, sizeof err), 0);
    assert_int_equal(st.n_runs[SUBJ_BASELINE], 4);
    assert_int_equal(st.n_runs[SUBJ_CANDIDATE], 3);
    assert_int_equal(st.n_runs[SUBJ_AA], 0);
    static const double base_values[] = {1, 2, 3, 4}, cand_values[] = {3, 1, 2};
    const char *base_files[] = {two, two, one, bench}, *cand_files[] = {one, two, two};
    for (size_t r = 0; r < 4; r++) {
        assert_true(st.docs[SUBJ_BASELINE][r].rows[0].median_ns == base_values[r]);
        assert_ptr_equal(st.opts.files[SUBJ_BASELINE][r], base_files[r]);
        assert_null(st.run_fail[SUBJ_BASELINE][r]);
    }
    for (size_t r = 0; r < 3; r++) {
        assert_true(st.docs[SUBJ_CANDIDATE][r].rows[0].median_ns == cand_values[r]);
        assert_ptr_equal(st.opts.files[SUBJ_CANDIDATE][r], cand_files[r]);
    }
    assert_int_equal(st.opts.n_files[SUBJ_BASELINE], 4);
    state_release(&st);

    /* a bad file: "FILE: FIELD: problem", and what was loaded is freed (ASan) */
    memset(&st, 0, sizeof st);
    char *with_broken[] = {two, broken};
    st.opts.files[SUBJ_BASELINE] = calloc(2, sizeof(char *));
    memcpy(st.opts.files[SUBJ_BASELINE], with_broken, sizeof with_broken);
    st.opts.n_files[SUBJ_BASELINE] = 2;
    assert_int_equal(compare_load_files(&st, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: benchmarks[0].real_time: must be finite and >= 0, not -1 ns",
             broken);
    assert_string_equal(err, want);
    state_release(&st);

    /* more than 1000 runs for one subject: refused */
    char *many = write_temp(gb_doc(join(1, iter("BM_a", 999, 1000, "1", "ns"))));
    memset(&st, 0, sizeof st);
    char *twice[] = {many, one};
    st.opts.files[SUBJ_AA] = calloc(2, sizeof(char *));
    memcpy(st.opts.files[SUBJ_AA], twice, sizeof twice);
    st.opts.n_files[SUBJ_AA] = 2;
    assert_int_equal(compare_load_files(&st, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s: more than 1000 runs in all for one subject (files and their repetitions)", one);
    assert_string_equal(err, want);
    state_release(&st);

    char *paths[] = {two, one, bench, broken, many};
    for (size_t i = 0; i < N_OF(paths); i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),           cmocka_unit_test(test_names),
        cmocka_unit_test(test_named_order),     cmocka_unit_test(test_repetitions),
        cmocka_unit_test(test_aggregates_only), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_detection),       cmocka_unit_test(test_bad),
        cmocka_unit_test(test_hostile),         cmocka_unit_test(test_load_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
