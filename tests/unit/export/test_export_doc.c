/* SPDX-License-Identifier: MIT */
/* test_export_doc.c: `libbench export`'s reader (tools/export/doc.c) from memory: a --bench-json
 * document and a `libbench run --json` one read into one table shape (labels in first-seen order,
 * null as NaN, estimated metrics marked), the CSV written from it, and each refusal one line. */
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

#include "export/export.h"

static const char bench_doc[] =
    "{\"schema\":2,\"meta\":{},\"columns\":[{\"name\":\"items/s\",\"format\":\"ratio\"}],"
    "\"rows\":["
    "{\"name\":\"a\",\"labels\":{\"impl\":\"fast\"},\"iterations\":8,\"samples\":4,"
    "\"medianNs\":12.5,\"deviationNs\":null,\"minNs\":12,\"maxNs\":13,\"cpuNs\":11.5,"
    "\"metrics\":{\"items/s\":8.84856e8},\"estimatedMetrics\":[\"items/"
    "s\"],\"atClockResolution\":true,"
    "\"error\":\"\"},"
    "{\"name\":\"b, quoted\",\"labels\":{\"size\":\"big\",\"impl\":\"slow\"},\"iterations\":null,"
    "\"samples\":null,\"medianNs\":null,\"deviationNs\":null,\"minNs\":null,\"maxNs\":null,"
    "\"metrics\":{},\"error\":\"it failed\"}]}";

static const char run_doc[] =
    "{\"schema\":1,\"tool\":\"libbench run\",\"meta\":{\"runs\":2},"
    "\"columns\":[{\"name\":\"maxrss\",\"unit\":\"bytes\"}],"
    "\"rows\":[{\"name\":\"true\",\"command\":\"true\",\"labels\":{},\"medianNs\":1000,"
    "\"metrics\":{\"maxrss\":4096},\"error\":\"\"}]}";

static void reads_bench_json(void **state)
{
    (void)state;
    struct export_doc doc;
    char err[256] = "";
    assert_int_equal(export_doc_parse(bench_doc, strlen(bench_doc), &doc, err, sizeof err), 0);
    assert_string_equal(doc.kind, "--bench-json");
    assert_int_equal(doc.n_rows, 2);
    assert_int_equal(doc.n_columns, 1);
    assert_int_equal(doc.columns[0].unit, EXPORT_RATIO);
    assert_int_equal(doc.n_label_keys, 2);
    assert_string_equal(doc.label_keys[0], "impl"); /* first seen first */
    assert_string_equal(doc.label_keys[1], "size");
    assert_null(doc.rows[0].labels[1]); /* row a has no size */
    assert_true(doc.rows[0].median_ns == 12.5 && isnan(doc.rows[0].deviation_ns));
    assert_true(doc.rows[0].metrics[0] == 8.84856e8 && doc.rows[0].estimate[0]);
    assert_true(doc.rows[0].cpu_ns == 11.5 && isnan(doc.rows[1].cpu_ns));
    assert_true(doc.rows[0].at_clock_resolution && !doc.rows[1].at_clock_resolution);
    assert_string_equal(doc.rows[1].error, "it failed");
    assert_true(isnan(doc.rows[1].median_ns));

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    export_csv(&doc, out);
    fclose(out);
    /* a metric the document wrote with six digits keeps them: never 884856000 (issue 32, 4) */
    assert_string_equal(text, "name,impl,size,iterations,samples,median_ns,deviation_ns,min_ns,"
                              "max_ns,cpu_ns,items/s,error,estimated,at_clock_resolution\n"
                              "a,fast,,8,4,12.5,,12,13,11.5,8.84856e+08,,items/s,true\n"
                              "\"b, quoted\",slow,big,,,,,,,,,it failed,,\n");
    free(text);

    /* Markdown: the mark on the median and the rate (the ≈ stays), and its line under the table */
    text = NULL;
    out = open_memstream(&text, &len);
    assert_non_null(out);
    export_markdown(&doc, out);
    fclose(out);
    bool marked = strstr(text, "| a | fast |  | 4\xc3\x97"
                               "8 | 12.50ns \xe2\x80\xa1 | \xe2\x80\x94 | "
                               "12.00ns | 13.00ns | \xe2\x89\x88"
                               "884856000.00 \xe2\x80\xa1 |  |\n") &&
                  strstr(text, "|\n\n\xe2\x80\xa1 median within 2\xc3\x97 of one clock read") &&
                  !strstr(strstr(text, "| b, quoted"), "\xe2\x80\xa1 |");
    if (!marked)
        print_error("%s", text);
    free(text);
    assert_true(marked);
    export_doc_free(&doc);
}

static void reads_run_json(void **state)
{
    (void)state;
    struct export_doc doc;
    char err[256] = "";
    assert_int_equal(export_doc_parse(run_doc, strlen(run_doc), &doc, err, sizeof err), 0);
    assert_string_equal(doc.kind, "libbench run --json");
    assert_int_equal(doc.n_rows, 1);
    assert_int_equal(doc.columns[0].unit, EXPORT_BYTES);
    assert_true(doc.rows[0].metrics[0] == 4096);
    export_doc_free(&doc);
}

static void refuses(void **state)
{
    (void)state;
    static const struct {
        const char *doc, *says;
    } bad[] = {
        {"{\"schema\":2,", "not JSON: "},
        {"[1]", "not a libbench document"},
        {"{\"schema\":3}", "unknown document: schema 3"},
        {"{\"schema\":1,\"tool\":\"other\"}", "unknown document: schema 1 of other"},
        {"{\"schema\":2,\"columns\":{}}", "columns: must be an array"},
        {"{\"schema\":2,\"columns\":[],\"rows\":{}}", "rows: must be an array"},
        {"{\"schema\":2,\"columns\":[],\"rows\":[{\"labels\":{}}]}",
         "rows[0].name: must be a string"},
        {"{\"schema\":2,\"columns\":[],\"rows\":[{\"name\":\"a\",\"medianNs\":\"1\"}]}",
         "rows[0].medianNs: must be a number or null"},
        {"{\"schema\":2,\"columns\":[],\"rows\":[{\"name\":\"a\",\"labels\":{\"k\":1}}]}",
         "rows[0].labels.k: must be a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct export_doc doc;
        char err[256] = "";
        assert_int_equal(export_doc_parse(bad[i].doc, strlen(bad[i].doc), &doc, err, sizeof err),
                         -1);
        if (strncmp(err, bad[i].says, strlen(bad[i].says)) != 0)
            fail_msg("case %zu: <%s>, want <%s...>", i, err, bad[i].says);
        assert_null(strchr(err, '\n'));
        export_doc_free(&doc);
    }
}

/* More distinct label keys than EXPORT_LABEL_COLUMNS_MAX: one "labels" column (key=value in key
 * order), not rows x keys cells; at the limit, a column per key. */
static void many_label_keys(void **state)
{
    (void)state;
    /* rows with a key each, and "a": EXPORT_LABEL_COLUMNS_MAX keys, then one more */
    for (size_t keys = EXPORT_LABEL_COLUMNS_MAX - 1; keys <= EXPORT_LABEL_COLUMNS_MAX; keys++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        fputs("{\"schema\":2,\"columns\":[],\"rows\":[", f);
        for (size_t i = 0; i < keys; i++)
            fprintf(f,
                    "%s{\"name\":\"r\",\"labels\":{\"k%02zu\":\"v\",\"a\":\"1\"},\"error\":\"\"}",
                    i ? "," : "", i);
        fputs("]}", f);
        fclose(f);
        struct export_doc doc;
        char err[256] = "";
        assert_int_equal(export_doc_parse(text, len, &doc, err, sizeof err), 0);
        if (keys + 1 <= EXPORT_LABEL_COLUMNS_MAX) {
            assert_int_equal(doc.n_label_keys, keys + 1);
            assert_string_equal(doc.label_keys[0], "k00");
        } else {
            assert_int_equal(doc.n_label_keys, 1);
            assert_string_equal(doc.label_keys[0], "labels");
            assert_string_equal(doc.rows[3].labels[0], "a=1,k03=v");
        }
        export_doc_free(&doc);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_bench_json),
        cmocka_unit_test(reads_run_json),
        cmocka_unit_test(refuses),
        cmocka_unit_test(many_label_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
