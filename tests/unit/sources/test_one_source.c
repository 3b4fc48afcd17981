/* SPDX-License-Identifier: MIT */
/* test_one_source.c: a counting source is one file and one line. This test is linked against a
 * library built from libbench's own sources plus tests/unit/sources/fake_source/fake.c, with the
 * one line of tests/unit/sources/fake_source/list_extra.h appended to lib/sources/list.h; no other
 * library file names the fake. It checks that the fake reaches the source table, the command line
 * (--fake,
 * --help), the catalog (--list-metrics, --metrics), the counting passes and workload windows,
 * the tables and the JSON document, and that it stays closed when nothing asks for it. Every run
 * is on a fake clock, with perf_event_open and dlopen refused through the fault-injection seam,
 * so the numbers do not depend on the host. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bench/shim.h>

#include "fake_host.h"
#include "fake_source/fake.h"
#include "bench/supervising/run.h"
#include "platform/os.h"
#include "sources/source.h"
#include "util/clock.h"

#ifndef BENCH__SOURCE_LIST_EXTRA
#error "this test is built with the fake source appended to the list (tests/meson.build)"
#endif

static size_t builtin_source_count(void); /* at the end: the list without the extra line */

/* ---- the fake clock and host -------------------------------------------------------------- */

static int64_t fake_now;
static unsigned clock_reads_in_bracket;

static int64_t fake_clock(void)
{
    if (bench__fake_tally.in_bracket)
        clock_reads_in_bracket++; /* never a clock read inside a counting bracket */
    return fake_now;
}

/* ---- the suite ---------------------------------------------------------------------------- */

/* Each call advances ticks by 3 and tocks by 7; the body's own prologue advances ticks by 1000
 * outside the loop, which a counting bracket must not see. */
BENCHMARK(ticks)
{
    bench__fake_ticks += 1000;
    BENCH_ITER(b)
    {
        fake_now += 100;
        bench__fake_ticks += 3;
        bench__fake_tocks += 7;
    }
}

/* One window of 5 ticks, with 100 ticks before it that the window must not count. */
WORKLOAD(window_ticks)
{
    bench__fake_ticks += 100;
    WORKLOAD_WINDOW(b, "five")
    {
        fake_now += 50000;
        bench__fake_ticks += 5;
    }
}

/* ---- running bench_main ------------------------------------------------------------------- */

struct run {
    int status;
    char *out, *err; /* what it printed */
    json_t *doc;     /* the --bench-json document, or NULL */
};

static char *slurp(const char *path)
{
    char *data = fake_host_slurp(path, NULL);
    assert_non_null(data);
    return data;
}

/* Run bench_main with args (NULL-terminated, after the program name; "JSON" stands for
 * --bench-json=<a temporary file>) on the fake clock, stdout and stderr captured. The tally
 * and the event counters start from zero. */
static struct run run_main(const char *const *args)
{
    memset(&bench__fake_tally, 0, sizeof bench__fake_tally);
    bench__fake_ticks = bench__fake_tocks = 0;
    clock_reads_in_bracket = 0;
    fake_now = 1000000;
    bench__clock_measure_ns = fake_clock;
    fake_host_refuse("no soft dependency in this test");
    struct fake_host_run run;
    fake_host_main("test_one_source", args, &run);
    bench__clock_reset();
    bench__os_reset();
    int status = run.status;

    struct run r = {.status = status, .out = slurp(run.out), .err = slurp(run.err)};
    if (run.has_json) {
        json_error_t error;
        r.doc = json_load_file(run.json, 0, &error);
        if (!r.doc)
            print_error("%s: %s\n", run.json, error.text);
    }
    fake_host_run_remove(&run);
    return r;
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
    json_decref(r->doc);
}

/* Show what a run printed when one of its checks is about to fail. */
static void show(const struct run *r)
{
    print_message("status %d\n--- stdout\n%s--- stderr\n%s---\n", r->status, r->out, r->err);
}

/* ---- reading the table -------------------------------------------------------------------- */

#define BAR "\xe2\x94\x82" /* │, the table's cell separator */

/* The trimmed cells of one table line (at most `max`), written into `cells` (each malloc'd). */
static size_t split_cells(const char *line, size_t len, char **cells, size_t max)
{
    size_t n = 0;
    const char *end = line + len;
    const char *p = strstr(line, BAR);
    while (p && p < end && n < max) {
        const char *start = p + strlen(BAR);
        const char *next = strstr(start, BAR);
        if (!next || next >= end)
            break;
        const char *a = start, *b = next;
        while (a < b && *a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        cells[n++] = strndup(a, (size_t)(b - a));
        p = next;
    }
    return n;
}

/* The cell under `header` in the row whose first cell is `row`, or NULL when the table printed
 * no such row or column (the caller frees it). The header line is the one above the table's
 * heavy rule ("┝"). */
static char *table_cell(const char *text, const char *row, const char *header)
{
    enum { MAX_CELLS = 64 };
    const char *header_line = NULL, *previous = NULL;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, "\xe2\x94\x9d", 3)) /* ┝ */
            header_line = previous;
        char *cells[MAX_CELLS];
        size_t n = split_cells(p, len, cells, MAX_CELLS);
        char *found = NULL;
        if (n > 0 && !strcmp(cells[0], row) && header_line) {
            const char *hnl = strchr(header_line, '\n');
            char *heads[MAX_CELLS];
            size_t nh = split_cells(header_line, (size_t)(hnl - header_line), heads, MAX_CELLS);
            for (size_t k = 0; k < nh && k < n && !found; k++)
                if (!strcmp(heads[k], header))
                    found = strdup(cells[k]);
            for (size_t k = 0; k < nh; k++)
                free(heads[k]);
        }
        for (size_t k = 0; k < n; k++)
            free(cells[k]);
        if (found)
            return found;
        previous = p;
        p = nl ? nl + 1 : p + len;
    }
    return NULL;
}

static void assert_cell(const struct run *r, const char *row, const char *header, const char *want)
{
    char *got = table_cell(r->out, row, header);
    if (!got || strcmp(got, want) != 0) {
        show(r);
        print_error("table cell %s / %s: got %s, want %s\n", row, header, got ? got : "(none)",
                    want);
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* ---- reading the JSON document ------------------------------------------------------------ */

static json_t *find_named(json_t *array, const char *name)
{
    size_t i;
    json_t *item;
    json_array_foreach(array, i, item)
    {
        json_t *n = json_object_get(item, "name");
        if (json_is_string(n) && !strcmp(json_string_value(n), name))
            return item;
    }
    return NULL;
}

static void assert_column(const struct run *r, const char *name, const char *format,
                          const char *cls)
{
    assert_non_null(r->doc);
    json_t *col = find_named(json_object_get(r->doc, "columns"), name);
    assert_non_null(col);
    assert_string_equal(json_string_value(json_object_get(col, "header")), name);
    assert_string_equal(json_string_value(json_object_get(col, "format")), format);
    assert_string_equal(json_string_value(json_object_get(col, "class")), cls);
    assert_string_equal(json_string_value(json_object_get(col, "source")), "fake");
}

static json_t *row_metrics(const struct run *r, const char *row)
{
    assert_non_null(r->doc);
    json_t *found = find_named(json_object_get(r->doc, "rows"), row);
    assert_non_null(found);
    json_t *metrics = json_object_get(found, "metrics");
    assert_true(json_is_object(metrics));
    return metrics;
}

static void assert_metric(json_t *metrics, const char *name, double want)
{
    json_t *v = json_object_get(metrics, name);
    assert_true(json_is_number(v));
    assert_true(fabs(json_number_value(v) - want) < 1e-9);
}

/* ---- the list ----------------------------------------------------------------------------- */

/* The one line of list_extra.h puts the fake last in the table the whole library reads, once. */
static void test_list_has_the_fake_last(void **state)
{
    (void)state;
    assert_int_equal(bench__source_list_count, builtin_source_count() + 1);
    assert_ptr_equal(bench__source_list[bench__source_list_count - 1], &bench__source_fake);
    for (size_t i = 0; i + 1 < bench__source_list_count; i++)
        assert_ptr_not_equal(bench__source_list[i], &bench__source_fake);
    assert_ptr_equal(bench__sources, bench__source_list);
    assert_int_equal(bench__n_sources, bench__source_list_count);
    assert_string_equal(bench__sources[bench__n_sources - 1]->name, "fake");
}

/* What the catalog relies on of every source of the list, the fake included: one name per
 * source, a static family whose columns name their source, and column names and headers that
 * no other source uses (they key the JSON rows and --metrics). */
static void test_every_source_of_the_list_is_distinct(void **state)
{
    (void)state;
    for (size_t i = 0; i < bench__source_list_count; i++) {
        const struct bench__source_ops *a = bench__source_list[i];
        assert_non_null(a->name);
        assert_non_null(a->open);
        for (size_t k = 0; k < a->n_family; k++)
            assert_string_equal(a->family[k].source, a->name);
        for (size_t j = i + 1; j < bench__source_list_count; j++) {
            const struct bench__source_ops *b = bench__source_list[j];
            assert_string_not_equal(a->name, b->name);
            for (size_t k = 0; k < a->n_family; k++)
                for (size_t l = 0; l < b->n_family; l++) {
                    assert_string_not_equal(a->family[k].name, b->family[l].name);
                    assert_string_not_equal(a->family[k].header, b->family[l].header);
                }
        }
    }
}

/* ---- a counting pass ---------------------------------------------------------------------- */

/* --fake opens it; a pass of 1000 calls in brackets of 250 counts 3 ticks per call (not the
 * 1000 of the body's prologue), 250 calls per bracket, in the table and in the document. */
static void test_counting_pass_through_the_brackets(void **state)
{
    (void)state;
    struct run r =
        run_main((const char *const[]){"--bench", "--fake", "--perf-iters=1000", "--perf-batch=250",
                                       "-i", "^test_one_source\\.ticks$", "JSON", NULL});
    if (r.status != 0)
        show(&r);
    assert_int_equal(r.status, 0);

    /* the library called the fake exactly as a counting pass does */
    assert_int_equal(bench__fake_tally.opens, 1);
    assert_int_equal(bench__fake_tally.closes, 1);
    assert_int_equal(bench__fake_tally.passes, 1);
    assert_int_equal(bench__fake_tally.brackets, 4);
    assert_int_equal(bench__fake_tally.iterations, 1000);
    assert_int_equal(bench__fake_tally.last_mask, 1);
    assert_false(bench__fake_tally.in_bracket);
    assert_int_equal(clock_reads_in_bracket, 0);

    /* the table: the default column, not the diagnostic one */
    assert_cell(&r, "test_one_source.ticks", "fake-calls", "3");
    assert_null(strstr(r.out, "fake-ratio"));

    /* the document: both columns (every available one), both values, the pass's iterations */
    assert_column(&r, "fake-calls", "count", "quantitative");
    assert_column(&r, "fake-ratio", "ratio", "diagnostic");
    json_t *metrics = row_metrics(&r, "test_one_source.ticks");
    assert_metric(metrics, "fake-calls", 3);
    assert_metric(metrics, "fake-ratio", 250);
    json_t *row = find_named(json_object_get(r.doc, "rows"), "test_one_source.ticks");
    assert_int_equal(json_integer_value(json_object_get(row, "countIterations")), 1000);
    run_free(&r);
}

/* --fake=LIST reaches the source as its request's values: tocks alone, then both (with the
 * status line it reports), the diagnostic column shown when --metrics names it. */
static void test_flag_values_reach_the_source(void **state)
{
    (void)state;
    struct run r = run_main((const char *const[]){"--bench", "--fake=tock", "--perf-iters=100",
                                                  "--perf-batch=10", "-i",
                                                  "^test_one_source\\.ticks$", "JSON", NULL});
    assert_int_equal(r.status, 0);
    assert_int_equal(bench__fake_tally.last_mask, 2);
    assert_metric(row_metrics(&r, "test_one_source.ticks"), "fake-calls", 7);
    assert_metric(row_metrics(&r, "test_one_source.ticks"), "fake-ratio", 10);
    assert_cell(&r, "test_one_source.ticks", "fake-calls", "7");
    run_free(&r);

    r = run_main((const char *const[]){
        "--bench", "--fake=tick,tock", "--metrics=fake-calls,fake-ratio", "--perf-iters=1000",
        "--perf-batch=250", "-i", "^test_one_source\\.ticks$", NULL});
    if (r.status != 0 || !strstr(r.err, "--fake: fake counts ticks and tocks together\n"))
        show(&r);
    assert_int_equal(r.status, 0);
    assert_int_equal(bench__fake_tally.last_mask, 3);
    assert_non_null(strstr(r.err, "--fake: fake counts ticks and tocks together\n"));
    assert_cell(&r, "test_one_source.ticks", "fake-calls", "10");
    assert_cell(&r, "test_one_source.ticks", "fake-ratio", "250.00");
    run_free(&r);

    /* a value the source refuses is a usage error, in the source's words */
    r = run_main((const char *const[]){"--bench", "--fake=tick,bogus", NULL});
    assert_int_equal(r.status, 2);
    assert_non_null(
        strstr(r.err, "error: option '--fake': 'bogus' is not a fake event (tick, tock)"));
    assert_int_equal(bench__fake_tally.opens, 0);
    run_free(&r);
}

/* ---- a workload window ---------------------------------------------------------------------- */

/* The window counts the 5 ticks between its edges, not the 100 before it; no brackets, so no
 * calls per bracket (null, never 0). */
static void test_window_counts_between_edges(void **state)
{
    (void)state;
    struct run r = run_main((const char *const[]){
        "--bench", "--fake", "-i", "^test_one_source\\.window_ticks$", "JSON", NULL});
    if (r.status != 0)
        show(&r);
    assert_int_equal(r.status, 0);
    assert_int_equal(bench__fake_tally.runs_begun, 1);
    assert_int_equal(bench__fake_tally.runs_ended, 1);
    assert_true(bench__fake_tally.edges_read >= 2);
    assert_non_null(r.doc);
    json_t *win =
        find_named(json_object_get(r.doc, "windows"), "test_one_source.window_ticks/five");
    assert_non_null(win);
    json_t *fake = json_object_get(win, "fake");
    assert_true(json_is_object(fake));
    assert_metric(fake, "fake-calls", 5);
    assert_true(json_is_null(json_object_get(fake, "fake-ratio")));
    assert_cell(&r, "test_one_source.window_ticks/five", "fake-calls", "5");
    run_free(&r);
}

/* ---- the command line and the catalog ------------------------------------------------------ */

static bool has_line_with(const char *text, const char *const *parts)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, len);
        bool all = true;
        for (size_t i = 0; parts[i] && all; i++)
            all = strstr(line, parts[i]) != NULL;
        free(line);
        if (all)
            return true;
        p = nl ? nl + 1 : p + len;
    }
    return false;
}

static void test_help_lists_the_flag(void **state)
{
    (void)state;
    struct run r = run_main((const char *const[]){"--help", NULL});
    assert_int_equal(r.status, 0);
    if (!has_line_with(
            r.out, (const char *const[]){"--fake[=EVENTS]", bench__source_fake.flag_help, NULL}))
        show(&r);
    assert_true(has_line_with(
        r.out, (const char *const[]){"--fake[=EVENTS]", bench__source_fake.flag_help, NULL}));
    assert_non_null(strstr(bench__source_fake.flag_help, "fake events"));
    run_free(&r);
}

static void test_list_metrics_lists_the_family(void **state)
{
    (void)state;
    struct run r = run_main((const char *const[]){"--list-metrics", NULL});
    assert_int_equal(r.status, 0);
    if (!has_line_with(
            r.out, (const char *const[]){" fake-calls ", "quantitative", " fake ", " yes ", NULL}))
        show(&r);
    assert_true(has_line_with(
        r.out, (const char *const[]){" fake-calls ", "quantitative", " fake ", " yes ", NULL}));
    assert_true(has_line_with(
        r.out, (const char *const[]){" fake-ratio ", "diagnostic", " fake ", " yes ", NULL}));
    assert_true(has_line_with(r.out, (const char *const[]){"fake", "\xe2\x9c\x93 counting", NULL}));
    assert_true(has_line_with(
        r.out, (const char *const[]){"countingScaled", "the fake never multiplexes", NULL}));
    /* the listing probes every source once and closes it */
    assert_int_equal(bench__fake_tally.opens, 1);
    assert_int_equal(bench__fake_tally.closes, 1);
    run_free(&r);
}

/* ---- when nothing asks for it -------------------------------------------------------------- */

static void test_not_opened_unless_asked(void **state)
{
    (void)state;
    struct run r =
        run_main((const char *const[]){"--bench", "-i", "^test_one_source\\.ticks$", "JSON", NULL});
    assert_int_equal(r.status, 0);
    assert_int_equal(bench__fake_tally.opens + bench__fake_tally.refusals, 0);
    assert_int_equal(bench__fake_tally.passes, 0);
    assert_int_equal(bench__fake_tally.brackets, 0);
    assert_null(strstr(r.out, "fake-"));
    assert_non_null(r.doc);
    assert_null(find_named(json_object_get(r.doc, "columns"), "fake-calls"));
    assert_null(find_named(json_object_get(r.doc, "columns"), "fake-ratio"));
    assert_null(json_object_get(row_metrics(&r, "test_one_source.ticks"), "fake-calls"));
    run_free(&r);

    /* naming one of its metrics asks for it too (the catalog's --metrics rule) */
    r = run_main((const char *const[]){"--bench", "--metrics=fake-ratio", "--perf-iters=100",
                                       "--perf-batch=50", "-i", "^test_one_source\\.ticks$", NULL});
    assert_int_equal(r.status, 0);
    assert_int_equal(bench__fake_tally.opens, 1);
    assert_cell(&r, "test_one_source.ticks", "fake-ratio", "50.00");
    assert_null(table_cell(r.out, "test_one_source.ticks", "fake-calls"));
    run_free(&r);
}

/* A source that cannot open is absent with its reason: announced on stderr, an em dash in the
 * table and null in the document, never 0. */
static void test_refused_source_is_absent_with_its_reason(void **state)
{
    (void)state;
    bench__fake_refusal = "the test keeps the fake closed";
    struct run r = run_main((const char *const[]){"--bench", "--fake", "--metrics=fake-calls", "-i",
                                                  "^test_one_source\\.ticks$", "JSON", NULL});
    bench__fake_refusal = NULL;
    if (r.status != 0 ||
        !strstr(r.err, "--fake: counting unavailable (the test keeps the fake closed)\n"))
        show(&r);
    assert_int_equal(r.status, 0);
    assert_int_equal(bench__fake_tally.refusals, 1);
    assert_int_equal(bench__fake_tally.opens, 0);
    assert_int_equal(bench__fake_tally.passes, 0);
    assert_non_null(
        strstr(r.err, "--fake: counting unavailable (the test keeps the fake closed)\n"));
    assert_cell(&r, "test_one_source.ticks", "fake-calls", "\xe2\x80\x94");
    assert_column(&r, "fake-calls", "count", "quantitative");
    json_t *metrics = row_metrics(&r, "test_one_source.ticks");
    assert_true(json_is_null(json_object_get(metrics, "fake-calls")));
    run_free(&r);
}

int main(void)
{
    bench__bench_in_process = true; /* white-box: the counts are read in this process */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_has_the_fake_last),
        cmocka_unit_test(test_every_source_of_the_list_is_distinct),
        cmocka_unit_test(test_counting_pass_through_the_brackets),
        cmocka_unit_test(test_flag_values_reach_the_source),
        cmocka_unit_test(test_window_counts_between_edges),
        cmocka_unit_test(test_help_lists_the_flag),
        cmocka_unit_test(test_list_metrics_lists_the_family),
        cmocka_unit_test(test_not_opened_unless_asked),
        cmocka_unit_test(test_refused_source_is_absent_with_its_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* ---- the list without the extra line ------------------------------------------------------- */

/* Counted from lib/sources/list.h itself, so a source added to the library keeps this test
 * true; only the extra line is switched off. */
#undef BENCH__SOURCE_LIST_EXTRA
#define BENCH__SOURCE(id) +1
static size_t builtin_source_count(void)
{
    return 0
#include "sources/list.h"
        ;
}
#undef BENCH__SOURCE
