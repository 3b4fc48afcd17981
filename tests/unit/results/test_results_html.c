/* SPDX-License-Identifier: MIT */
/* test_results_html.c: the page of tools/results/results_html.c without a browser, on a stand-in
 * Chart.js file: the open regressions at the top with their run, commit and change point, a
 * null is an em dash and never 0, `unmeasured` is said as such, a delta is absolute and relative
 * together, a tail not judged says the n it needs, an estimate keeps its ≈, change points are
 * listed and in the charts' data, no histogram under 10 samples, rows past the caps are counted,
 * strings from the document stay text, the same document gives the same bytes (a row at a time
 * too), and each refusal names its cause. */
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
#include "util/atomic_file.h"

static char dir[64], chartjs[96], page[96];

static const char fake_chartjs[] = "window.Chart = function () {}; /* stand-in */\n";

static const char doc[] =
    "{\"schema\": \"libbench-report/2\", \"results\": \"res<1>\","
    " \"selection\": {\"target\": {\"bench_id\": \"T\", \"subject\": \"main\", \"host_id\": \"h\","
    "  \"timestamp_utc\": \"2026-11-07T06:00:00Z\", \"source_revision\": \"c0ffee\"},"
    "  \"baseline\": null, \"reference\": null, \"mode\": \"segments\", \"cross_host\": false,"
    "  \"since\": null},"
    " \"rows\": ["
    "  {\"profile\": \"p\", \"scenario\": \"</script><b>x\", \"operation\": \"\","
    "   \"subject\": \"main\", \"whole_process\": false, \"state\": \"regression\","
    "   \"decided_by\": \"history\", \"why\": [\"regressed_since_change\"], \"not_judged\": [],"
    "   \"target\": {\"bench_id\": \"T\", \"p50_ns\": 1000, \"p90_ns\": 1100.5, \"p99_ns\": 1200,"
    "    \"sample_count\": 20, \"failure_count\": 0, \"failure_rate\": 0},"
    "   \"baseline\": {\"bench_id\": \"B\", \"p50_ns\": 800, \"p90_ns\": 900, \"p99_ns\": null,"
    "    \"sample_count\": 20, \"failure_count\": 0, \"failure_rate\": 0},"
    "   \"reference_level_ns\": 800,"
    "   \"delta_ns\": {\"p50\": 200, \"p90\": 200.5, \"p99\": null},"
    "   \"slower_pct\": {\"p50\": 25, \"p90\": 22.28, \"p99\": null}, \"severity\": 1.2,"
    "   \"tails\": {\"p90\": {\"judged\": true, \"min_n\": 10, \"reason\": null},"
    "    \"p99\": {\"judged\": false, \"min_n\": 100, \"reason\": \"p99_few_samples\"}},"
    "   \"since\": {\"bench_id\": \"S\", \"timestamp_utc\": \"2026-11-05T06:00:00Z\","
    "    \"source_revision\": \"abcdef0123456789\"},"
    "   \"metrics\": {\"cycles\": {\"median\": 3000, \"n\": 3, \"estimated\": true},"
    "    \"instr\": {\"median\": 9000, \"n\": 3, \"estimated\": false}},"
    "   \"values_ns\": [990, 991, 992, 993, 994, 995, 996, 997, 998, 999, 1000, 1010],"
    "   \"history\": {\"judged\": true, \"points\": [{\"bench_id\": \"<T>\","
    "    \"timestamp_utc\": \"2026-11-05T06:00:00Z\", \"p50_ns\": 1000, \"p90_ns\": null,"
    "    \"sample_count\": 20, \"failure_count\": 1}],"
    "    \"changes\": [{\"bench_id\": \"S\", \"timestamp_utc\": \"2026-11-05T06:00:00Z\","
    "     \"source_revision\": \"abcdef0123456789\", \"sources\": {\"lz4\": \"<h>\"},"
    "     \"median_before_ns\": 800, \"median_after_ns\": 1000, \"size_rel\": 0.25,"
    "     \"ci_low_rel\": 0.2, \"ci_high_rel\": 0.3, \"ci_level\": 0.95, \"p\": 0.0001,"
    "     \"open\": true}]}},"
    "  {\"profile\": \"p\", \"scenario\": \"new\", \"operation\": \"\", \"subject\": \"main\","
    "   \"whole_process\": false, \"state\": \"unmeasured\", \"decided_by\": null,"
    "   \"why\": [\"no_history\"], \"not_judged\": [],"
    "   \"target\": {\"bench_id\": \"T\", \"p50_ns\": 5, \"p90_ns\": 6, \"p99_ns\": 7,"
    "    \"sample_count\": 3, \"failure_count\": 0, \"failure_rate\": 0},"
    "   \"baseline\": null, \"reference\": null, \"reference_level_ns\": null,"
    "   \"delta_ns\": {\"p50\": null, \"p90\": null, \"p99\": null},"
    "   \"slower_pct\": {\"p50\": null, \"p90\": null, \"p99\": null}, \"severity\": null,"
    "   \"tails\": {\"p90\": {\"judged\": false, \"min_n\": 10, \"reason\": "
    "\"nothing_to_compare\"},"
    "    \"p99\": {\"judged\": false, \"min_n\": 100, \"reason\": \"nothing_to_compare\"}},"
    "   \"since\": null, \"metrics\": {}, \"values_ns\": [4, 5, 6],"
    "   \"history\": {\"judged\": true, \"points\": [], \"changes\": []}}]}";

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
    /* the top: the open regression with its run, commit and the change point's size */
    char *top = strstr(html, "<li class=\"open-regression\">");
    assert_non_null(top);
    assert_non_null(strstr(top, "since 2026-11-05 06:00 UTC (run <code>S</code>, commit "
                                "<code>abcdef012345</code>)"));
    assert_non_null(strstr(top, "change point +25.0% [+20.0%, +30.0%]"));
    assert_non_null(strstr(html, "<h2>Watch (0)</h2>"));
    /* the rows in the document's order, each with its state said */
    char *regression = strstr(html, "<tr class=\"state-regression\" data-state=\"regression\">");
    char *unmeasured = strstr(html, "<tr class=\"state-unmeasured\" data-state=\"unmeasured\">"
                                    "<td class=\"state\">unmeasured</td>");
    assert_non_null(regression);
    assert_non_null(unmeasured);
    assert_true(top < regression && regression < unmeasured);
    /* absolute and relative together */
    assert_non_null(strstr(regression, "<span class=\"d slower\">+200.00ns (+25.0%)</span>"));
    assert_non_null(strstr(regression, "<span class=\"d slower\">+200.50ns (+22.3%)</span>"));
    /* a p99 not judged for its samples says the n it needs */
    assert_non_null(strstr(regression, "\xe2\x80\x94 n &lt; 100</span>"));
    /* the exact value in a title */
    assert_non_null(strstr(regression, "<td class=\"num\" title=\"1100.5 ns\">"));
    /* since: the run's time, its id and commit in the title */
    assert_non_null(strstr(regression, "<td class=\"since\" title=\"run S, commit "
                                       "abcdef0123456789\">2026-11-05 06:00 UTC</td>"));
    /* the details: an estimate keeps its mark */
    assert_non_null(strstr(regression, "cycles <span class=\"est\">\xe2\x89\x88"
                                       "3.00k</span>"));
    assert_non_null(strstr(regression, "instr <span>9.00k</span>"));
    /* the unmeasured row: no delta, no failure rate of a baseline, never 0 */
    char *end = strstr(unmeasured, "</tr>");
    assert_non_null(end);
    *end = '\0';
    assert_int_equal(count(unmeasured, "<span class=\"d null\">\xe2\x80\x94</span>"), 3);
    assert_null(strstr(unmeasured, ">0<"));
    assert_null(strstr(unmeasured, "base 0%"));
    free(html);
}

static void test_charts(void **state)
{
    (void)state;
    char *html = render_ok(doc);
    /* the change point under the chart and in its data; 12 values draw a histogram, 3 do not */
    assert_non_null(strstr(html, "<li class=\"cp open\" data-bench-id=\"S\">"));
    assert_non_null(strstr(html, "lz4 <code>&lt;h&gt;</code>"));
    assert_non_null(strstr(html, "data-changes=\"1\""));
    assert_non_null(strstr(html, "<canvas id=\"dist-0\""));
    assert_null(strstr(html, "<canvas id=\"dist-1\""));
    assert_non_null(strstr(html, "3 successful samples in the latest run: 4.00ns, 5.00ns, "
                                 "6.00ns (no histogram under 10)"));
    free(html);
}

/* Rows beyond the caps are counted and named, never silently dropped. */
static void test_caps(void **state)
{
    (void)state;
    size_t n = RESULTS_HTML_CHARTS_MAX + 3, cap = 200 * n + 256, len = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    len += (size_t)snprintf(big + len, cap - len,
                            "{\"schema\": \"libbench-report/2\", \"results\": \"r\", \"rows\": [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(big + len, cap - len,
                                "%s{\"profile\": \"p\", \"scenario\": \"s%zu\", \"state\": \"ok\","
                                " \"history\": {\"points\": [{\"bench_id\": \"T\", "
                                "\"timestamp_utc\": \"2026-11-01T00:00:00Z\"}]}}",
                                i ? "," : "", i);
    snprintf(big + len, cap - len, "]}");
    char *html = render_ok(big);
    char want[128];
    snprintf(want, sizeof want, "Charts for the first %d rows of %zu.", RESULTS_HTML_CHARTS_MAX, n);
    assert_non_null(strstr(html, want));
    assert_int_equal(count(html, "<tr class=\"state-ok\""), n);
    free(html);
    free(big);
}

/* The page made a row at a time is the page of the whole document. */
static void test_incremental(void **state)
{
    (void)state;
    char *whole = render_ok(doc);
    json_t *d = json_loads(doc, 0, NULL);
    json_t *rows = json_incref(json_object_get(d, "rows"));
    json_object_del(d, "rows");
    struct results_html *h = results_html_begin(d);
    for (size_t i = 0; i < json_array_size(rows); i++)
        results_html_row(h, json_array_get(rows, i));
    struct bench__text t = {0};
    char *error = NULL;
    assert_int_equal(results_html_end(h, &t, &error), 0);
    assert_string_equal(t.data, whole);
    free(t.data);
    free(whole);
    json_decref(rows);
    json_decref(d);
}

static void test_escaping(void **state)
{
    (void)state;
    char *html = render_ok(doc);
    /* text: entities; script data: \u escapes; only the page's own three closers remain */
    assert_non_null(strstr(html, "p / &lt;/script&gt;&lt;b&gt;x"));
    assert_non_null(strstr(html, "\"bench_id\":\"\\u003cT\\u003e\""));
    assert_non_null(strstr(html, "\"lz4\":\"\\u003ch\\u003e\""));
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
    expect_refusal("[]", "\"schema\" is not \"libbench-report/2\"");
    expect_refusal("{\"schema\": \"libbench-report/1\", \"rows\": []}",
                   "\"schema\" is not \"libbench-report/2\"");
    expect_refusal("{\"schema\": \"libbench-report/2\", \"rows\": 1}", "\"rows\" is not an array");
    expect_refusal("{\"schema\": \"libbench-report/2\", \"rows\": [null]}",
                   "rows[0] is not an object");
    expect_refusal("{\"schema\": \"libbench-report/2\", \"rows\": [{\"history\": []}]}",
                   "rows[0].history is not an object");
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
        cmocka_unit_test(test_table),    cmocka_unit_test(test_charts),
        cmocka_unit_test(test_caps),     cmocka_unit_test(test_incremental),
        cmocka_unit_test(test_escaping), cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
