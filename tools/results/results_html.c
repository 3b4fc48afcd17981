/* SPDX-License-Identifier: MIT */
/* results_html.c: owns the HTML dashboard of `libbench report --html` (results_html.h): the page
 * made a row at a time, its header (the runs judged and how), the top (the open regressions, then
 * the rows to watch), the table and the charts assembled (results_html_table.c,
 * results_html_chart.c), the data the charts read embedded as escaped JSON, and Chart.js inlined
 * from its file. It computes no statistic and judges no row: every number and state comes from
 * the report document. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "results_html.h"
#include "results_html_int.h"
#include "common/file.h"
#include "util/alloc.h"
#include "util/text.h"

#ifndef RESULTS_HTML_CHARTJS_PATH
#define RESULTS_HTML_CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js"
#endif
const char *results_html_chartjs_path = RESULTS_HTML_CHARTJS_PATH;
#define CHARTJS_MAX_BYTES (16u << 20) /* Chart.js is about 200 KiB */

static const char *const STATES[] = {"fail",      "unmeasured", "regression",
                                     "guardrail", "watch",      "ok"};
#define N_STATES (sizeof STATES / sizeof STATES[0])

/* ---- the page, a row at a time ---- */

struct results_html {
    json_t *head;
    struct bench__text table, charts, open, watch;
    json_t *data; /* the charts' data */
    size_t counts[N_STATES], n_rows, n_table, n_charts, n_open, n_watch;
};

struct results_html *results_html_begin(const json_t *head)
{
    struct results_html *h = bench__xcalloc(1, sizeof *h);
    h->head = json_copy((json_t *)head); /* shallow: its members are shared, not copied */
    json_object_del(h->head, "rows");
    h->data = json_array();
    html_table_head(&h->table);
    return h;
}

/* A state's first reason in words, for the top of the page (the token follows it). */
static const char *said(const char *why)
{
    static const struct {
        const char *token, *words;
    } words[] = {
        {"regressed_since_change", "regressed"},
        {"confirmed_by_next_runs", "regressed, confirmed by the next runs,"},
        {"unmistakable_run", "regressed in one unmistakable run"},
        {"out_of_line_unconfirmed", "out of line, not confirmed yet,"},
        {"slower_below_threshold", "slower, under the reportable minimum,"},
    };
    for (size_t i = 0; why && i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(why, words[i].token))
            return words[i].words;
    return "slower";
}

/* The run a row's state holds since, its commit, and the change point that opened it: one line
 * of the top of the page. */
static void put_top_item(struct bench__text *t, const json_t *row, long chart, const char *cls)
{
    const json_t *since = json_object_get(row, "since");
    const json_t *hist = json_object_get(row, "history");
    html_put(t, "<li class=\"");
    html_put(t, cls);
    html_put(t, "\">");
    if (chart >= 0)
        html_putf(t, "<a href=\"#bench-%ld\">", chart);
    html_put_identity(t, row);
    if (chart >= 0)
        html_put(t, "</a>");
    html_put(t, " <small>(");
    html_put_esc(t, html_str(row, "subject"));
    html_put(t, ")</small>: ");
    const char *why = json_string_value(json_array_get(json_object_get(row, "why"), 0));
    html_put(t, said(why));
    if (json_is_object(since)) {
        html_put(t, " since ");
        html_put_when(t, html_str(since, "timestamp_utc"));
        html_put(t, " (run <code>");
        html_put_esc(t, html_str(since, "bench_id"));
        html_put(t, "</code>");
        const char *commit = html_str(since, "source_revision");
        if (commit[0]) {
            html_put(t, ", commit <code>");
            html_put_n(t, commit, strlen(commit) < 12 ? strlen(commit) : 12);
            html_put(t, "</code>");
        }
        html_put(t, ")");
    }
    html_put(t, ": p50 ");
    html_put_ns(t, html_num(row, "reference_level_ns"));
    html_put(t, " &#8594; ");
    html_put_ns(t, html_num(json_object_get(row, "target"), "p50_ns"));
    html_put(t, " (");
    html_put_rel(t, html_num(json_object_get(row, "slower_pct"), "p50") / 100);
    html_put(t, ")");
    const json_t *cps = json_object_get(hist, "changes");
    for (size_t i = 0; i < json_array_size(cps); i++) {
        const json_t *cp = json_array_get(cps, i);
        if (!json_is_true(json_object_get(cp, "open")))
            continue;
        html_put(t, "; change point ");
        html_put_rel(t, html_num(cp, "size_rel"));
        html_put(t, " [");
        html_put_rel(t, html_num(cp, "ci_low_rel"));
        html_put(t, ", ");
        html_put_rel(t, html_num(cp, "ci_high_rel"));
        html_putf(t, "], p = %.2g", html_num(cp, "p"));
    }
    if (why) {
        html_put(t, " <small><code>");
        html_put_esc(t, why);
        html_put(t, "</code></small>");
    }
    html_put(t, "</li>\n");
}

void results_html_row(struct results_html *h, const json_t *row)
{
    const char *state = html_str(row, "state");
    for (size_t s = 0; s < N_STATES; s++)
        h->counts[s] += strcmp(state, STATES[s]) == 0;
    long chart = -1;
    if (h->n_table < RESULTS_HTML_TABLE_MAX) {
        if (h->n_charts < RESULTS_HTML_CHARTS_MAX)
            chart = (long)h->n_charts++;
        html_table_row(&h->table, row, chart);
        if (chart >= 0)
            html_chart_section(&h->charts, h->data, row, (size_t)chart);
        h->n_table++;
    }
    if (!strcmp(state, "regression")) {
        put_top_item(&h->open, row, chart, "open-regression");
        h->n_open++;
    } else if (!strcmp(state, "watch")) {
        put_top_item(&h->watch, row, chart, "watch-item");
        h->n_watch++;
    }
    h->n_rows++;
}

static void put_run(struct bench__text *t, const char *role, const json_t *run)
{
    html_put(t, "<dt>");
    html_put(t, role);
    html_put(t, "</dt><dd>");
    if (!json_is_object(run)) {
        html_put(t, "none</dd>");
        return;
    }
    const char *subject = html_str(run, "subject");
    html_put(t, "run <code>");
    html_put_esc(t, html_str(run, "bench_id"));
    html_put(t, "</code>, ");
    html_put_when(t, html_str(run, "timestamp_utc"));
    if (subject[0]) { /* null in the default mode: every subject of the run */
        html_put(t, ", subject ");
        html_put_esc(t, subject);
    }
    const char *commit = html_str(run, "source_revision");
    if (commit[0]) {
        html_put(t, ", commit <code>");
        html_put_esc(t, commit);
        html_put(t, "</code>");
    }
    html_put(t, ", host ");
    html_put_esc(t, html_str(run, "host_id"));
    html_put(t, "</dd>");
}

static const char *mode_text(const char *mode)
{
    if (!strcmp(mode, "segments"))
        return "each row's latest run against its history: the last stable segment between its "
               "change points";
    if (!strcmp(mode, "baseline_run"))
        return "each row's latest run against the segment holding the baseline run";
    if (!strcmp(mode, "latest_vs_previous"))
        return "each row's latest run against the run before it (latest-vs-previous)";
    if (!strcmp(mode, "subjects"))
        return "the target subject's latest run against the baseline subject's";
    return mode;
}

static void put_header(struct bench__text *t, const struct results_html *h)
{
    const json_t *doc = h->head, *sel = json_object_get(doc, "selection");
    html_put(t, "<h1>libbench report</h1>\n<dl class=\"meta\"><dt>Results</dt><dd>");
    html_put_esc(t, html_str(doc, "results"));
    html_put(t, "</dd>");
    put_run(t, "Target", json_object_get(sel, "target"));
    const char *mode = html_str(sel, "mode");
    if (strcmp(mode, "segments") != 0)
        put_run(t, "Baseline", json_object_get(sel, "baseline"));
    const json_t *reference = json_object_get(sel, "reference");
    if (json_is_object(reference))
        put_run(t, "Guardrail", reference);
    html_put(t, "<dt>Judged</dt><dd>");
    html_put_esc(t, mode_text(mode));
    html_put(t, json_is_true(json_object_get(sel, "cross_host")) ? ", across hosts"
                                                                 : ", within one host");
    const char *since = html_str(sel, "since");
    if (since[0]) {
        html_put(t, ", runs since ");
        html_put_esc(t, since);
    }
    html_put(t, "</dd></dl>\n<p class=\"summary\">");
    for (size_t s = 0; s < N_STATES; s++)
        html_putf(t, "<span class=\"count-%s\">%zu %s</span>", STATES[s], h->counts[s], STATES[s]);
    html_put(t, "</p>\n");
}

static void put_list(struct bench__text *t, const struct bench__text *items)
{
    html_put(t, "<ul>\n");
    html_put_n(t, items->data, items->len);
    html_put(t, "</ul>");
}

static void put_top(struct bench__text *t, const struct results_html *h)
{
    html_putf(t, "<section class=\"top\" id=\"open-regressions\"><h2>Open regressions (%zu)</h2>",
              h->n_open);
    if (h->n_open)
        put_list(t, &h->open);
    else
        html_put(t, "<p class=\"none\">None: no row's latest runs stand slower than their "
                    "history by the reportable minimum.</p>");
    html_putf(t, "</section>\n<section class=\"top\" id=\"watch\"><h2>Watch (%zu)</h2>",
              h->n_watch);
    if (h->n_watch)
        put_list(t, &h->watch);
    else
        html_put(t, "<p class=\"none\">None.</p>");
    html_put(t, "</section>\n");
    const json_t *thresholds = json_object_get(h->head, "thresholds");
    if (thresholds) {
        char *text = json_dumps(thresholds, JSON_INDENT(2) | JSON_SORT_KEYS |
                                                JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
        if (!text)
            bench__out_of_memory();
        html_put(t, "<details><summary>Thresholds and the change-point method</summary><pre>");
        html_put_esc(t, text);
        html_put(t, "</pre></details>\n");
        free(text);
    }
}

/* JSON text made safe inside <script>: '<', '>' and '&' only occur in strings, where \u escapes
 * mean the same; the text is ASCII (JSON_ENSURE_ASCII), so U+2028 and U+2029 cannot occur. */
static void put_script_json(struct bench__text *t, const char *json)
{
    for (const char *s = json; *s; s++) {
        switch (*s) {
        case '<': html_put(t, "\\u003c"); break;
        case '>': html_put(t, "\\u003e"); break;
        case '&': html_put(t, "\\u0026"); break;
        default: html_put_n(t, s, 1);
        }
    }
}

/* Chart.js's text, checked to be something a <script> element can hold as it is. */
static int read_chartjs(struct bench__text *js, char **error)
{
    const char *path = results_html_chartjs_path;
    char why[160];
    char *data;
    size_t len;
    if (tool_read_file(path, CHARTJS_MAX_BYTES, &data, &len, why, sizeof why) != 0) {
        const char *reason = strncmp(why, "cannot read: ", 13) == 0 ? why + 13 : why;
        *error = bench__xasprintf("cannot read Chart.js at %s (%s): install Debian's "
                                  "libjs-chart.js package, which the HTML report inlines",
                                  path, reason);
        return -1;
    }
    html_put_n(js, data, len);
    free(data);
    if (js->len == 0 || strlen(js->data) != js->len) {
        *error = bench__xasprintf("cannot read Chart.js at %s: empty or not text", path);
        return -1;
    }
    for (size_t i = 0; i < js->len; i++)
        if (js->data[i] == '<' && (strncasecmp(js->data + i, "</script", 8) == 0 ||
                                   strncmp(js->data + i, "<!--", 4) == 0)) {
            *error = bench__xasprintf("Chart.js at %s holds \"</script\" or \"<!--\" and cannot "
                                      "be inlined into a <script> element",
                                      path);
            return -1;
        }
    return 0;
}

static void html_free(struct results_html *h)
{
    json_decref(h->head);
    json_decref(h->data);
    free(h->table.data);
    free(h->charts.data);
    free(h->open.data);
    free(h->watch.data);
    free(h);
}

int results_html_end(struct results_html *h, struct bench__text *page, char **error)
{
    *error = NULL;
    struct bench__text js = {0}, t = {0};
    int rc = -1;
    if (read_chartjs(&js, error) != 0)
        goto out;
    html_put(&t, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                 "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<meta name=\"generator\" content=\"libbench report\">\n"
                 "<title>libbench report</title>\n<style>\n");
    html_put(&t, html_style);
    html_put(&t, "</style>\n</head>\n<body>\n");
    put_header(&t, h);
    put_top(&t, h);
    html_table_end(&h->table, h->n_table, h->n_rows);
    html_put_n(&t, h->table.data, h->table.len);
    html_put(&t, "<noscript><p>The charts need JavaScript; the table above is complete "
                 "without it.</p></noscript>\n");
    if (h->n_rows > h->n_charts)
        html_putf(&t, "<p class=\"capped\">Charts for the first %zu rows of %zu.</p>\n",
                  h->n_charts, h->n_rows);
    if (h->charts.len)
        html_put_n(&t, h->charts.data, h->charts.len);
    char *blob = json_dumps(h->data, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
                                         JSON_REAL_PRECISION(17));
    if (!blob)
        bench__out_of_memory();
    html_put(&t, "<script type=\"application/json\" id=\"report-data\">");
    put_script_json(&t, blob);
    free(blob);
    html_put(&t, "</script>\n<script>\n/* Chart.js, inlined from Debian's libjs-chart.js (MIT "
                 "license, its notice below) */\n");
    html_put_n(&t, js.data, js.len);
    html_put(&t, "\n</script>\n<script>\n");
    for (size_t i = 0; html_script[i]; i++)
        html_put(&t, html_script[i]);
    html_put(&t, "</script>\n</body>\n</html>\n");
    *page = t;
    t = (struct bench__text){0};
    rc = 0;
out:
    free(js.data);
    free(t.data);
    html_free(h);
    return rc;
}

static int check_document(const json_t *doc, char **error)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strcmp(schema, "libbench-report/2") != 0) {
        *error = bench__xstrdup("not a report document: \"schema\" is not \"libbench-report/2\"");
        return -1;
    }
    const json_t *rows = json_object_get(doc, "rows");
    if (!json_is_array(rows)) {
        *error = bench__xstrdup("report document: \"rows\" is not an array");
        return -1;
    }
    for (size_t j = 0; j < json_array_size(rows); j++) {
        const json_t *r = json_array_get(rows, j);
        if (!json_is_object(r)) {
            *error = bench__xasprintf("report document: rows[%zu] is not an object", j);
            return -1;
        }
        const json_t *h = json_object_get(r, "history");
        if (h && !json_is_object(h)) {
            *error = bench__xasprintf("report document: rows[%zu].history is not an object", j);
            return -1;
        }
    }
    return 0;
}

int results_html_render(const char *report_json_text, struct bench__text *page, char **error)
{
    *error = NULL;
    json_error_t jerr;
    json_t *doc = json_loads(report_json_text, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        *error = bench__xasprintf("report document: line %d: %s", jerr.line, jerr.text);
        bench__sanitize(*error);
        return -1;
    }
    if (check_document(doc, error) != 0) {
        json_decref(doc);
        return -1;
    }
    struct results_html *h = results_html_begin(doc);
    const json_t *rows = json_object_get(doc, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++)
        results_html_row(h, json_array_get(rows, i));
    json_decref(doc);
    return results_html_end(h, page, error);
}

int results_html_save(const struct bench__text *page, const char *path, char **error)
{
    int e = bench__write_file(path, page->data, page->len);
    if (e != 0) {
        *error = bench__xasprintf("cannot write %s: %s", path, bench__write_file_strerror(e));
        return -1;
    }
    return 0;
}

int results_html_write(const char *report_json_text, const char *path, char **error)
{
    struct bench__text page = {0};
    if (results_html_render(report_json_text, &page, error) != 0)
        return -1;
    int rc = results_html_save(&page, path, error);
    free(page.data);
    return rc;
}
