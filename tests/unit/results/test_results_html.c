/* SPDX-License-Identifier: MIT */
/* test_results_html.c: the page of tools/results/results_html.c without a browser, on a stand-in
 * Chart.js file: a null is an em dash and never 0, `unmeasured` is said as such, a delta is
 * absolute and relative together, strings from the document stay text in the table and in the
 * charts' data, the same document gives the same bytes, and each refusal names its cause. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/results_html.h"

static char dir[64], chartjs[96], page[96];

static const char fake_chartjs[] = "window.Chart = function () {}; /* stand-in */\n";

static const char doc[] =
    "{\"schema\": \"libbench-report/1\", \"results\": \"res<1>\","
    " \"selection\": {\"target\": {\"bench_id\": \"T\", \"subject\": \"main\", \"host_id\": \"h\"},"
    "  \"baseline\": null, \"reference\": null, \"mode\": \"latest_vs_previous\","
    "  \"cross_host\": false},"
    " \"rows\": ["
    "  {\"profile\": \"p\", \"scenario\": \"</script><b>x\", \"operation\": \"\","
    "   \"subject\": \"main\", \"whole_process\": false, \"state\": \"regression\","
    "   \"decided_by\": \"baseline\", \"why\": [\"p50_regression\"],"
    "   \"target\": {\"bench_id\": \"T\", \"p50_ns\": 1000, \"p90_ns\": 1100.5, \"p99_ns\": null,"
    "    \"sample_count\": 20, \"failure_count\": 0, \"failure_rate\": 0},"
    "   \"baseline\": {\"bench_id\": \"B\", \"p50_ns\": 800, \"p90_ns\": 900, \"p99_ns\": null,"
    "    \"sample_count\": 20, \"failure_count\": 0, \"failure_rate\": 0},"
    "   \"delta_ns\": {\"p50\": 200, \"p90\": 200.5, \"p99\": null},"
    "   \"slower_pct\": {\"p50\": 25, \"p90\": 22.28, \"p99\": null}, \"severity\": 1.2},"
    "  {\"profile\": \"p\", \"scenario\": \"new\", \"operation\": \"\", \"subject\": \"main\","
    "   \"whole_process\": false, \"state\": \"unmeasured\", \"decided_by\": null,"
    "   \"why\": [\"baseline_missing\"],"
    "   \"target\": {\"bench_id\": \"T\", \"p50_ns\": 5, \"p90_ns\": 6, \"p99_ns\": 7,"
    "    \"sample_count\": 3, \"failure_count\": 0, \"failure_rate\": 0},"
    "   \"baseline\": null, \"reference\": null,"
    "   \"delta_ns\": {\"p50\": null, \"p90\": null, \"p99\": null},"
    "   \"slower_pct\": {\"p50\": null, \"p90\": null, \"p99\": null}, \"severity\": null}],"
    " \"history\": [{\"profile\": \"p\", \"scenario\": \"</script><b>x\", \"operation\": \"\","
    "   \"subject\": \"main\", \"points\": [{\"bench_id\": \"<T>\", \"p50_ns\": 1000,"
    "   \"p90_ns\": null, \"sample_count\": 20, \"failure_count\": 1}]}],"
    " \"latest\": [{\"profile\": \"p\", \"scenario\": \"</script><b>x\", \"operation\": \"\","
    "   \"subject\": \"main\", \"bench_id\": \"T\", \"values_ns\": [990, 1000, 1010]}]}";

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_results_html.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(chartjs, sizeof chartjs, "%s/chart.min.js", dir);
    snprintf(page, sizeof page, "%s/report.html", dir);
    FILE *f = fopen(chartjs, "w");
    if (!f)
        return -1;
    fputs(fake_chartjs, f);
    fclose(f);
    results_html_chartjs_path = chartjs;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(page);
    unlink(chartjs);
    return rmdir(dir);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static char *render_ok(const char *json)
{
    char *error = NULL;
    int rc = results_html_write(json, page, &error);
    if (rc != 0)
        fail_msg("results_html_write: %s", error);
    assert_null(error);
    return slurp(page);
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_table(void **state)
{
    (void)state;
    char *html = render_ok(doc);
    /* the rows in the document's order, each with its state said */
    char *regression = strstr(html, "<tr class=\"state-regression\" data-state=\"regression\">");
    char *unmeasured = strstr(html, "<tr class=\"state-unmeasured\" data-state=\"unmeasured\">"
                                    "<td class=\"state\">unmeasured</td>");
    assert_non_null(regression);
    assert_non_null(unmeasured);
    assert_true(regression < unmeasured);
    /* absolute and relative together */
    assert_non_null(strstr(regression, "<td class=\"num slower\">+200.00ns (+25.0%)</td>"));
    assert_non_null(strstr(regression, "<td class=\"num slower\">+200.50ns (+22.3%)</td>"));
    /* the unmeasured row: baseline, deltas, failure rate and samples of the baseline are em
     * dashes (3 + 3 + 1 + 1), never 0 */
    char *end = strstr(unmeasured, "</tr>");
    assert_non_null(end);
    *end = '\0';
    assert_int_equal(count(unmeasured, "<td class=\"num null\">\xe2\x80\x94</td>"), 8);
    assert_null(strstr(unmeasured, ">0<"));
    assert_null(strstr(unmeasured, "0.0% (0 of 0)"));
    /* null p99 of the regression row: em dashes too, with the exact value in a title when
     * there is one */
    assert_non_null(strstr(regression, "<td class=\"num\" title=\"1100.5 ns\">1.1\xc2\xb5s</td>"));
    free(html);
}

static void test_escaping(void **state)
{
    (void)state;
    char *html = render_ok(doc);
    /* text: entities; script data: \u escapes; only the page's own three closers remain */
    assert_non_null(strstr(html, "p / &lt;/script&gt;&lt;b&gt;x"));
    assert_non_null(strstr(html, "\"bench_id\":\"\\u003cT\\u003e\""));
    assert_non_null(strstr(html, "res&lt;1&gt;"));
    assert_int_equal(count(html, "</script>"), 3);
    assert_null(strstr(html, "<b>"));
    /* Chart.js inlined as it is; the charts' canvases are there */
    assert_non_null(strstr(html, fake_chartjs));
    assert_non_null(strstr(html, "<canvas id=\"history-0\""));
    assert_non_null(strstr(html, "<canvas id=\"dist-0\""));
    assert_null(strstr(html, "http:"));
    assert_null(strstr(html, "https:"));
    free(html);
}

static void test_deterministic(void **state)
{
    (void)state;
    char *a = render_ok(doc);
    char *b = render_ok(doc);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static void expect_refusal(const char *json, const char *message)
{
    unlink(page);
    char *error = NULL;
    assert_int_equal(results_html_write(json, page, &error), -1);
    assert_non_null(error);
    if (!strstr(error, message))
        fail_msg("error \"%s\" lacks \"%s\"", error, message);
    assert_null(strchr(error, '\n'));
    free(error);
    assert_int_not_equal(access(page, F_OK), 0);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refusal("{", "report document: line 1");
    expect_refusal("[]", "\"schema\" is not \"libbench-report/1\"");
    expect_refusal("{\"schema\": \"libbench-report/1\", \"rows\": [], \"history\": 1,"
                   " \"latest\": []}",
                   "\"history\" is not an array");
    expect_refusal("{\"schema\": \"libbench-report/1\", \"rows\": [], \"history\": [],"
                   " \"latest\": [null]}",
                   "latest[0] is not an object");
    char missing[128];
    snprintf(missing, sizeof missing, "%s/none/chart.min.js", dir);
    results_html_chartjs_path = missing;
    expect_refusal(doc, "install Debian's libjs-chart.js package");
    results_html_chartjs_path = chartjs;
    FILE *f = fopen(chartjs, "w");
    assert_non_null(f);
    fputs("var s = '<!-- x';\n", f);
    fclose(f);
    expect_refusal(doc, "cannot be inlined");
    f = fopen(chartjs, "w");
    assert_non_null(f);
    fputs(fake_chartjs, f);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
