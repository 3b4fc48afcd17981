/* SPDX-License-Identifier: MIT */
/* results_html.c: owns the HTML dashboard of `libbench report --html` (results_html.h): the
 * static page (header, the table in the rows' order, one chart section per benchmark), the data
 * the charts read, embedded as escaped JSON, and Chart.js inlined from its file. It computes no
 * statistic and judges no row: every number and state comes from the report document. */
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
#include "common/file.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/format.h"
#include "util/text.h"

#ifndef RESULTS_HTML_CHARTJS_PATH
#define RESULTS_HTML_CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js"
#endif
const char *results_html_chartjs_path = RESULTS_HTML_CHARTJS_PATH;
#define CHARTJS_MAX_BYTES (16u << 20) /* Chart.js is about 200 KiB */

#define EM_DASH "\xe2\x80\x94"
#define STATES "fail", "unmeasured", "regression", "guardrail", "watch", "ok"

static void put_n(struct bench__text *t, const char *s, size_t n)
{
    if (bench__text_append(s, n, t) != 0)
        bench__out_of_memory();
}

static void put(struct bench__text *t, const char *s)
{
    put_n(t, s, strlen(s));
}

/* Text from the document, escaped for HTML text and for attribute values. */
static void put_esc(struct bench__text *t, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': put(t, "&amp;"); break;
        case '<': put(t, "&lt;"); break;
        case '>': put(t, "&gt;"); break;
        case '"': put(t, "&quot;"); break;
        case '\'': put(t, "&#39;"); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                put(t, "\xef\xbf\xbd"); /* U+FFFD: a control character is not text */
            else
                put_n(t, s, 1);
        }
    }
}

static void putf(struct bench__text *t, const char *fmt, ...) BENCH_PRINTF(2, 3);
static void putf(struct bench__text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(t, buf);
}

/* A member's string, or "" when it is missing or not a string. */
static const char *str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

/* A member's number; NaN (shown as an em dash) when it is null, missing or not a number. */
static double num(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void put_ns(struct bench__text *t, double ns)
{
    char buf[BENCH__NUMBER_MAX];
    bench__format_ns(ns, buf, sizeof buf);
    put(t, buf);
}

/* A cell with a duration, its exact value in ns in the title. */
static void cell_ns(struct bench__text *t, const json_t *side, const char *key)
{
    double ns = side ? num(side, key) : NAN;
    if (isnan(ns)) {
        put(t, "<td class=\"num null\">" EM_DASH "</td>");
        return;
    }
    char exact[32];
    for (int precision = 1; precision <= 17; precision++) { /* the shortest round-trip form */
        bench__fmt(exact, sizeof exact, "%.*g", precision, ns);
        if (strtod(exact, NULL) == ns)
            break;
    }
    putf(t, "<td class=\"num\" title=\"%s ns\">", exact);
    put_ns(t, ns);
    put(t, "</td>");
}

/* The difference against the comparison that decided the row: absolute, then relative; never a
 * percentage alone. */
static void cell_delta(struct bench__text *t, const json_t *row, const char *pct)
{
    double d = num(json_object_get(row, "delta_ns"), pct);
    double rel = num(json_object_get(row, "slower_pct"), pct);
    if (isnan(d)) {
        put(t, "<td class=\"num null\">" EM_DASH "</td>");
        return;
    }
    putf(t, "<td class=\"num %s\">", d > 0 ? "slower" : d < 0 ? "faster" : "same");
    put(t, d < 0 ? "\xe2\x88\x92" : d > 0 ? "+" : ""); /* U+2212 minus */
    put_ns(t, fabs(d));
    if (!isnan(rel))
        putf(t, " (%s%.1f%%)", rel < 0 ? "\xe2\x88\x92" : rel > 0 ? "+" : "", fabs(rel));
    if (strcmp(str(row, "decided_by"), "reference") == 0)
        put(t, "<br><small>vs guardrail</small>");
    put(t, "</td>");
}

static void cell_rate(struct bench__text *t, const json_t *side)
{
    double rate = side ? num(side, "failure_rate") : NAN;
    if (isnan(rate)) {
        put(t, "<td class=\"num null\">" EM_DASH "</td>");
        return;
    }
    double failures = num(side, "failure_count"), samples = num(side, "sample_count");
    putf(t, "<td class=\"num%s\">%.1f%%", rate > 0 ? " failing" : "", rate * 100.0);
    if (!isnan(failures) && !isnan(samples))
        putf(t, " (%.0f of %.0f)", failures, failures + samples);
    put(t, "</td>");
}

static void cell_count(struct bench__text *t, const json_t *side, const char *key)
{
    double n = side ? num(side, key) : NAN;
    if (isnan(n))
        put(t, "<td class=\"num null\">" EM_DASH "</td>");
    else
        putf(t, "<td class=\"num\">%.0f</td>", n);
}

/* "profile / scenario / operation", an empty part left out. */
static void put_identity(struct bench__text *t, const json_t *obj)
{
    const char *parts[] = {str(obj, "profile"), str(obj, "scenario"), str(obj, "operation")};
    bool first = true;
    for (size_t i = 0; i < 3; i++) {
        if (!parts[i][0])
            continue;
        if (!first)
            put(t, " / ");
        put_esc(t, parts[i]);
        first = false;
    }
}

static bool same_identity(const json_t *a, const json_t *b)
{
    static const char *const keys[] = {"profile", "scenario", "operation", "subject"};
    for (size_t i = 0; i < 4; i++)
        if (strcmp(str(a, keys[i]), str(b, keys[i])) != 0)
            return false;
    return true;
}

/* The index in arr of the entry with obj's identity, or -1. */
static long find_identity(const json_t *arr, const json_t *obj)
{
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (same_identity(json_array_get(arr, i), obj))
            return (long)i;
    return -1;
}

static void put_run(struct bench__text *t, const char *role, const json_t *run)
{
    put(t, "<dt>");
    put(t, role);
    put(t, "</dt><dd>");
    if (!json_is_object(run)) {
        put(t, "none</dd>");
        return;
    }
    const char *subject = str(run, "subject");
    put(t, "run ");
    put_esc(t, str(run, "bench_id"));
    if (subject && subject[0]) { /* null in the default mode: every subject of the run */
        put(t, " of subject ");
        put_esc(t, subject);
    }
    put(t, " on host ");
    put_esc(t, str(run, "host_id"));
    put(t, "</dd>");
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em;color:#1b1b1b;background:#fff}\n"
    "h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.1em;margin:1.2em 0 .3em}\n"
    "dl.meta{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:0 0 1em}\n"
    "dl.meta dt{font-weight:600}dl.meta dd{margin:0}\n"
    ".scroll{overflow-x:auto}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:12px}\n"
    "th,td{border:1px solid #c8c8c8;padding:.2em .3em;white-space:nowrap}\n"
    "th{background:#f0f0f0}td.num{text-align:right}td.null{color:#777;text-align:center}\n"
    "td.why{white-space:normal;min-width:10em;max-width:20em}td.slower{color:"
    "#a40000}td.faster{"
    "color:#006b1f}\n"
    "td.failing{color:#a40000;font-weight:600}\n"
    "td.state{font-weight:700;text-transform:uppercase;font-size:.85em}\n"
    "tr.state-fail td.state{background:#d62728;color:#fff}\n"
    "tr.state-regression td.state{background:#ff7f0e;color:#000}\n"
    "tr.state-guardrail td.state{background:#ffd23f;color:#000}\n"
    "tr.state-watch td.state{background:#fff2b3;color:#000}\n"
    "tr.state-unmeasured td.state{background:repeating-linear-gradient(45deg,#ddd 0 6px,#f4f4f4 "
    "6px 12px);color:#333}\n"
    "tr.state-ok td.state{background:#e3f4e1;color:#14532d}\n"
    ".summary span{margin-right:1em}\n"
    ".bench{border-top:1px solid #ddd;margin-top:1em}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:1em}\n"
    ".chart{position:relative;width:560px;height:240px}\n"
    ".nodata{color:#555;font-style:italic;width:560px}\n";

/* The page's script: one history chart and one distribution chart per benchmark section, from
 * the embedded data. Every canvas is marked data-drawn="1" once Chart.js has drawn it. */
static const char script[] =
    "(function(){\n"
    "'use strict';\n"
    "var data=JSON.parse(document.getElementById('report-data').textContent);\n"
    "function fmtNs(v){if(v===null||!isFinite(v))return '\\u2014';var a=Math.abs(v);\n"
    " var u=[[1e3,1,'ns'],[1e6,1e3,'\\u00b5s'],[1e9,1e6,'ms'],[Infinity,1e9,'s']];\n"
    " for(var i=0;i<u.length;i++)if(a<u[i][0])return Number((v/u[i][1]).toPrecision(3))+u[i][2];}\n"
    "var "
    "drawn={id:'libbenchDrawn',afterRender:function(c){c.canvas.setAttribute('data-drawn','1');}};"
    "\n"
    "Chart.register(drawn);\n"
    "Chart.defaults.animation=false;Chart.defaults.responsive=true;\n"
    "Chart.defaults.maintainAspectRatio=false;\n"
    "function history(b){\n"
    " var p=b.points,fail=p.map(function(x){return x.failure_count>0;});\n"
    " function line(k,label,color){return {type:'line',label:label,data:p.map(function(x){\n"
    "  return x[k]===undefined?null:x[k];}),borderColor:color,backgroundColor:color,\n"
    "  spanGaps:false,yAxisID:'y',pointRadius:p.map(function(x,i){return fail[i]?6:3;}),\n"
    "  pointStyle:p.map(function(x,i){return fail[i]?'crossRot':'circle';}),\n"
    "  pointBorderColor:p.map(function(x,i){return fail[i]?'#d62728':color;})};}\n"
    " new Chart(document.getElementById('history-'+b.index),{data:{\n"
    "  labels:p.map(function(x){return x.bench_id;}),datasets:[line('p50_ns','p50','#1f77b4'),\n"
    "  line('p90_ns','p90','#9467bd'),{type:'bar',label:'failures',yAxisID:'y1',\n"
    "  backgroundColor:'rgba(214,39,40,0.55)',data:p.map(function(x){return "
    "x.failure_count;})}]},\n"
    "  options:{plugins:{title:{display:true,text:'History: p50 and p90 per recorded run'},\n"
    "  tooltip:{callbacks:{label:function(c){return c.dataset.label+': "
    "'+(c.dataset.yAxisID==='y'?\n"
    "  fmtNs(c.parsed.y):c.parsed.y);}}}},scales:{y:{position:'left',ticks:{callback:fmtNs},\n"
    "  title:{display:true,text:'time'}},y1:{position:'right',beginAtZero:true,\n"
    "  "
    "ticks:{precision:0},grid:{drawOnChartArea:false},title:{display:true,text:'failures'}}}}});}\n"
    "function distribution(b){\n"
    " var "
    "v=b.values_ns,lo=v[0],hi=v[v.length-1],n=Math.max(1,Math.min(30,Math.ceil(Math.sqrt(v.length))"
    "));\n"
    " if(hi===lo)n=1;var w=(hi-lo)/n,counts=[],labels=[];\n"
    " for(var "
    "i=0;i<n;i++){counts.push(0);labels.push(fmtNs(lo+w*i)+'\\u2013'+fmtNs(i===n-1?hi:lo+w*(i+1)));"
    "}\n"
    " v.forEach(function(x){var i=w>0?Math.min(n-1,Math.floor((x-lo)/w)):0;counts[i]++;});\n"
    " new Chart(document.getElementById('dist-'+b.index),{type:'bar',data:{labels:labels,\n"
    "  datasets:[{label:'samples of run '+b.bench_id,data:counts,backgroundColor:'#1f77b4',\n"
    "  barPercentage:1,categoryPercentage:1}]},options:{plugins:{title:{display:true,\n"
    "  text:'Latest run: distribution of '+v.length+' successful samples'}},\n"
    "  scales:{y:{beginAtZero:true,ticks:{precision:0},title:{display:true,text:'samples'}}}}});}\n"
    "data.forEach(function(b){if(b.points)history(b);if(b.values_ns)distribution(b);});\n"
    "})();\n";

/* JSON text made safe inside <script>: '<', '>' and '&' only occur in strings, where \u escapes
 * mean the same; the text is ASCII (JSON_ENSURE_ASCII), so U+2028 and U+2029 cannot occur. */
static void put_script_json(struct bench__text *t, const char *json)
{
    for (const char *s = json; *s; s++) {
        switch (*s) {
        case '<': put(t, "\\u003c"); break;
        case '>': put(t, "\\u003e"); break;
        case '&': put(t, "\\u0026"); break;
        default: put_n(t, s, 1);
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
    put_n(js, data, len);
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

static void put_header(struct bench__text *t, const json_t *doc, const json_t *rows)
{
    const json_t *sel = json_object_get(doc, "selection");
    put(t, "<h1>libbench report</h1>\n<dl class=\"meta\"><dt>Results</dt><dd>");
    put_esc(t, str(doc, "results"));
    put(t, "</dd>");
    put_run(t, "Target", json_object_get(sel, "target"));
    put_run(t, "Baseline", json_object_get(sel, "baseline"));
    const json_t *reference = json_object_get(sel, "reference");
    if (json_is_object(reference))
        put_run(t, "Guardrail", reference);
    put(t, "<dt>Mode</dt><dd>");
    put_esc(t, str(sel, "mode"));
    put(t, json_is_true(json_object_get(sel, "cross_host"))
               ? ", rows compare across hosts"
               : ", rows compare only within one host");
    put(t, "</dd></dl>\n<p class=\"summary\">");
    static const char *const states[] = {STATES};
    for (size_t s = 0; s < sizeof states / sizeof states[0]; s++) {
        size_t count = 0;
        for (size_t i = 0; i < json_array_size(rows); i++)
            count += strcmp(str(json_array_get(rows, i), "state"), states[s]) == 0;
        putf(t, "<span class=\"count-%s\">%zu %s</span>", states[s], count, states[s]);
    }
    put(t, "</p>\n");
    const json_t *thresholds = json_object_get(doc, "thresholds");
    if (thresholds) {
        char *text = json_dumps(thresholds, JSON_INDENT(2) | JSON_SORT_KEYS |
                                                JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
        if (!text)
            bench__out_of_memory();
        put(t, "<details><summary>Thresholds</summary><pre>");
        put_esc(t, text);
        put(t, "</pre></details>\n");
        free(text);
    }
}

static void put_row(struct bench__text *t, const json_t *row, long chart)
{
    const char *state = str(row, "state");
    static const char *const states[] = {STATES};
    bool known = false;
    for (size_t s = 0; s < sizeof states / sizeof states[0]; s++)
        known = known || strcmp(state, states[s]) == 0;
    const json_t *target = json_object_get(row, "target");
    const json_t *baseline = json_object_get(row, "baseline");
    if (!json_is_object(baseline))
        baseline = NULL;
    if (!json_is_object(target))
        target = NULL;
    put(t, "<tr class=\"state-");
    put_esc(t, known ? state : "unknown");
    put(t, "\" data-state=\"");
    put_esc(t, state);
    put(t, "\"><td class=\"state\">");
    put_esc(t, state[0] ? state : "?");
    put(t, "</td><td class=\"bench\">");
    if (chart >= 0)
        putf(t, "<a href=\"#bench-%ld\">", chart);
    put_identity(t, row);
    if (chart >= 0)
        put(t, "</a>");
    if (json_is_true(json_object_get(row, "whole_process")))
        put(t, "<br><small>(whole process)</small>");
    put(t, "</td><td>");
    put_esc(t, str(row, "subject"));
    put(t, "</td>");
    static const char *const pcts[] = {"p50", "p90", "p99"};
    for (size_t p = 0; p < 3; p++) {
        char key[16];
        bench__fmt(key, sizeof key, "%s_ns", pcts[p]);
        cell_ns(t, target, key);
        cell_ns(t, baseline, key);
        cell_delta(t, row, pcts[p]);
    }
    cell_rate(t, target);
    cell_rate(t, baseline);
    cell_count(t, target, "sample_count");
    cell_count(t, baseline, "sample_count");
    put(t, "<td class=\"why\">");
    const json_t *why = json_object_get(row, "why");
    for (size_t i = 0; i < json_array_size(why); i++) {
        if (i)
            put(t, ", ");
        put_esc(t, json_string_value(json_array_get(why, i))
                       ? json_string_value(json_array_get(why, i))
                       : "?");
    }
    const char *decided = str(row, "decided_by");
    if (decided[0] && json_array_size(why)) {
        put(t, " <small>(against ");
        const json_t *reference = json_object_get(row, "reference");
        if (strcmp(decided, "reference") == 0 && json_is_object(reference)) {
            put(t, "the guardrail ");
            put_esc(t, str(reference, "bench_id"));
            put(t, ": p50 ");
            put_ns(t, num(reference, "p50_ns"));
            put(t, ", p90 ");
            put_ns(t, num(reference, "p90_ns"));
            put(t, ", p99 ");
            put_ns(t, num(reference, "p99_ns"));
        } else {
            put_esc(t, strcmp(decided, "reference") == 0 ? "the guardrail" : decided);
        }
        put(t, ")</small>");
    }
    put(t, "</td></tr>\n");
}

static void put_table(struct bench__text *t, const json_t *rows, const json_t *history)
{
    put(t,
        "<div class=\"scroll\"><table id=\"dashboard\">\n<thead>\n<tr><th rowspan=\"2\">State</th>"
        "<th rowspan=\"2\">Profile / scenario / operation</th><th rowspan=\"2\">Subject</th>"
        "<th colspan=\"3\">p50</th><th colspan=\"3\">p90</th><th colspan=\"3\">p99</th>"
        "<th colspan=\"2\">Failure rate</th><th colspan=\"2\">Samples</th>"
        "<th rowspan=\"2\">Why</th></tr>\n<tr>");
    for (int p = 0; p < 3; p++)
        put(t, "<th>target</th><th>baseline</th><th>&#916; (relative)</th>");
    put(t, "<th>target</th><th>baseline</th><th>target</th><th>baseline</th></tr>\n</thead>\n"
           "<tbody>\n");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        const json_t *row = json_array_get(rows, i);
        put_row(t, row, find_identity(history, row));
    }
    if (json_array_size(rows) == 0)
        put(t, "<tr><td colspan=\"17\" class=\"null\">no rows</td></tr>\n");
    put(t, "</tbody>\n</table></div>\n");
}

/* One section per benchmark of the history (in the rows' order), and the data its charts read. */
static void put_charts(struct bench__text *t, const json_t *history, const json_t *latest,
                       json_t *data)
{
    put(t, "<noscript><p>The charts need JavaScript; the table above is complete "
           "without it.</p></noscript>\n");
    for (size_t i = 0; i < json_array_size(history); i++) {
        const json_t *h = json_array_get(history, i);
        json_t *points = json_object_get(h, "points");
        long li = find_identity(latest, h);
        json_t *values =
            li >= 0 ? json_object_get(json_array_get(latest, (size_t)li), "values_ns") : NULL;
        bool has_points = json_array_size(points) > 0;
        bool has_values = json_array_size(values) > 0;
        putf(t, "<section class=\"bench\" id=\"bench-%zu\"><h2>", i);
        put_identity(t, h);
        put(t, " <small>(");
        put_esc(t, str(h, "subject"));
        put(t, ")</small></h2>\n<div class=\"charts\">");
        if (has_points)
            putf(t,
                 "<div class=\"chart\"><canvas id=\"history-%zu\" role=\"img\" "
                 "aria-label=\"history\"></canvas></div>",
                 i);
        else
            put(t, "<p class=\"nodata\">No recorded run.</p>");
        if (has_values)
            putf(t,
                 "<div class=\"chart\"><canvas id=\"dist-%zu\" role=\"img\" "
                 "aria-label=\"distribution\"></canvas></div>",
                 i);
        else
            put(t, "<p class=\"nodata\">No successful measurement in the latest run: no "
                   "distribution to draw.</p>");
        put(t, "</div></section>\n");
        json_t *entry = json_object();
        json_object_set_new(entry, "index", json_integer((json_int_t)i));
        if (has_points)
            json_object_set(entry, "points", points);
        if (has_values) {
            json_object_set(entry, "values_ns", values);
            json_object_set(entry, "bench_id",
                            json_object_get(json_array_get(latest, (size_t)li), "bench_id"));
        }
        json_array_append_new(data, entry);
    }
}

static int check_document(const json_t *doc, char **error)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strcmp(schema, "libbench-report/1") != 0) {
        *error = bench__xstrdup("not a report document: \"schema\" is not \"libbench-report/1\"");
        return -1;
    }
    static const char *const arrays[] = {"rows", "history", "latest"};
    for (size_t i = 0; i < 3; i++) {
        const json_t *a = json_object_get(doc, arrays[i]);
        if (!json_is_array(a)) {
            *error = bench__xasprintf("report document: \"%s\" is not an array", arrays[i]);
            return -1;
        }
        for (size_t j = 0; j < json_array_size(a); j++)
            if (!json_is_object(json_array_get(a, j))) {
                *error =
                    bench__xasprintf("report document: %s[%zu] is not an object", arrays[i], j);
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
    struct bench__text js = {0}, t = {0};
    int rc = -1;
    if (check_document(doc, error) != 0 || read_chartjs(&js, error) != 0)
        goto out;
    const json_t *rows = json_object_get(doc, "rows");
    const json_t *history = json_object_get(doc, "history");
    put(&t, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"generator\" content=\"libbench report\">\n"
            "<title>libbench report</title>\n<style>\n");
    put(&t, style);
    put(&t, "</style>\n</head>\n<body>\n");
    put_header(&t, doc, rows);
    put_table(&t, rows, history);
    json_t *data = json_array();
    put_charts(&t, history, json_object_get(doc, "latest"), data);
    char *blob = json_dumps(data, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
                                      JSON_REAL_PRECISION(17));
    json_decref(data);
    if (!blob)
        bench__out_of_memory();
    put(&t, "<script type=\"application/json\" id=\"report-data\">");
    put_script_json(&t, blob);
    free(blob);
    put(&t, "</script>\n<script>\n/* Chart.js, inlined from Debian's libjs-chart.js (MIT license, "
            "its notice below) */\n");
    put_n(&t, js.data, js.len);
    put(&t, "\n</script>\n<script>\n");
    put(&t, script);
    put(&t, "</script>\n</body>\n</html>\n");
    *page = t;
    t = (struct bench__text){0};
    rc = 0;
out:
    free(js.data);
    free(t.data);
    json_decref(doc);
    return rc;
}

int results_html_write(const char *report_json_text, const char *path, char **error)
{
    struct bench__text page = {0};
    if (results_html_render(report_json_text, &page, error) != 0)
        return -1;
    int e = bench__write_file(path, page.data, page.len);
    free(page.data);
    if (e != 0) {
        *error = bench__xasprintf("cannot write %s: %s", path, bench__write_file_strerror(e));
        return -1;
    }
    return 0;
}
