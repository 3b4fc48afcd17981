/* SPDX-License-Identifier: MIT */
/* results_html_table.c: owns the dashboard's table (docs/reference/results.md, "The HTML
 * page"): one row per report row in its order, narrow enough for a 1400 px window (a fixed
 * layout: long names wrap, nothing widens the table), each percentile with its n, a tail not
 * judged an em dash with the n it needs, the run a state holds since, and the details folding
 * out (both sides' numbers, the segments judged, the metrics with their ≈ marks). Plain HTML:
 * it reads the same without JavaScript. It computes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results_html_int.h"
#include "util/text.h"

void html_table_head(struct bench__text *t)
{
    html_put(t, "<div class=\"table-wrap\"><table id=\"dashboard\">\n"
                "<colgroup><col class=\"c-state\"><col class=\"c-bench\"><col class=\"c-n\">"
                "<col class=\"c-pct\"><col class=\"c-pct\"><col class=\"c-pct\">"
                "<col class=\"c-fail\"><col class=\"c-since\"><col class=\"c-why\"></colgroup>\n"
                "<thead>\n<tr><th>State</th><th>Profile / scenario / operation</th>"
                "<th title=\"successful samples of the target run: the n of its p50, p90 and "
                "p99\">n</th><th>p50<br><small>&#916; against the reference</small></th>"
                "<th>p90<br><small>&#916;</small></th><th>p99<br><small>&#916;</small></th>"
                "<th>Failures</th><th>Since</th><th>Why <small>(details)</small></th></tr>\n"
                "</thead>\n<tbody>\n");
}

/* A percentile of the target (its exact ns in the title), then its delta against what decided
 * the row, absolute and relative, never a percentage alone; a tail that was not judged says
 * the n it needs. */
static void cell_pct(struct bench__text *t, const json_t *row, const char *pct)
{
    char key[16];
    bench__fmt(key, sizeof key, "%s_ns", pct);
    double v = html_num(json_object_get(row, "target"), key);
    double d = html_num(json_object_get(row, "delta_ns"), pct);
    double rel = html_num(json_object_get(row, "slower_pct"), pct);
    const json_t *tail = json_object_get(json_object_get(row, "tails"), pct);
    if (isnan(v)) {
        html_put(t, "<td class=\"num null\">" EM_DASH "</td>");
        return;
    }
    char exact[32];
    for (int precision = 1; precision <= 17; precision++) { /* the shortest round-trip form */
        bench__fmt(exact, sizeof exact, "%.*g", precision, v);
        if (strtod(exact, NULL) == v)
            break;
    }
    html_putf(t, "<td class=\"num\" title=\"%s ns\"><span class=\"v\">", exact);
    html_put_ns(t, v);
    html_put(t, "</span><br>");
    if (!isnan(d)) {
        html_putf(t, "<span class=\"d %s\">", d > 0 ? "slower" : d < 0 ? "faster" : "same");
        html_put(t, d < 0 ? MINUS : d > 0 ? "+" : "");
        html_put_ns(t, fabs(d));
        if (!isnan(rel))
            html_putf(t, " (%s%.1f%%)", rel < 0 ? MINUS : rel > 0 ? "+" : "", fabs(rel));
        html_put(t, "</span>");
    } else if (tail && !json_is_true(json_object_get(tail, "judged")) &&
               !strcmp(html_str(tail, "reason"),
                       strcmp(pct, "p90") ? "p99_few_samples" : "p90_few_samples")) {
        html_putf(t,
                  "<span class=\"d null not-judged\" title=\"a %s is judged from %.0f "
                  "samples on both sides\">" EM_DASH " n &lt; %.0f</span>",
                  pct, html_num(tail, "min_n"), html_num(tail, "min_n"));
    } else {
        html_put(t, "<span class=\"d null\">" EM_DASH "</span>");
    }
    html_put(t, "</td>");
}

static void cell_failures(struct bench__text *t, const json_t *row)
{
    const json_t *target = json_object_get(row, "target"), *base = json_object_get(row, "baseline");
    double rate = html_num(target, "failure_rate");
    if (isnan(rate)) {
        html_put(t, "<td class=\"num null\">" EM_DASH "</td>");
        return;
    }
    double failures = html_num(target, "failure_count"), samples = html_num(target, "sample_count");
    html_putf(t, "<td class=\"num%s\">%.0f/%.0f", rate > 0 ? " failing" : "", failures,
              failures + samples);
    double brate = html_num(base, "failure_rate");
    if (!isnan(brate))
        html_putf(t, "<br><small>base %.0f%%</small>", brate * 100);
    html_put(t, "</td>");
}

static void cell_since(struct bench__text *t, const json_t *row)
{
    const json_t *since = json_object_get(row, "since");
    if (!json_is_object(since)) {
        html_put(t, "<td class=\"null\">" EM_DASH "</td>");
        return;
    }
    html_put(t, "<td class=\"since\" title=\"run ");
    html_put_esc(t, html_str(since, "bench_id"));
    const char *commit = html_str(since, "source_revision");
    if (commit[0]) {
        html_put(t, ", commit ");
        html_put_esc(t, commit);
    }
    html_put(t, "\">");
    html_put_when(t, html_str(since, "timestamp_utc"));
    html_put(t, "</td>");
}

/* One side's numbers in the details: "p50 1.2µs, p90 …, MAD 3ns of 3, contention 2%". */
static void put_side(struct bench__text *t, const char *what, const json_t *side)
{
    if (!json_is_object(side))
        return;
    html_put(t, "<li>");
    html_put(t, what);
    html_put(t, " <code>");
    html_put_esc(t, html_str(side, "bench_id"));
    html_put(t, "</code>:");
    static const char *const keys[] = {"p50_ns", "p90_ns", "p99_ns", "min_ns", "max_ns"};
    static const char *const names[] = {"p50", "p90", "p99", "min", "max"};
    for (size_t k = 0; k < 5; k++) {
        html_putf(t, " %s ", names[k]);
        html_put_ns(t, html_num(side, keys[k]));
    }
    html_putf(t, " (n %.0f); MAD ", html_num(side, "sample_count"));
    html_put_ns(t, html_num(side, "mad_ns"));
    html_putf(t, " of %.0f", html_num(side, "mad_n"));
    double c = html_num(side, "contention");
    if (!isnan(c))
        html_putf(t, "; contention %.1f%%", c * 100);
    html_put(t, "</li>");
}

static void put_range(struct bench__text *t, const char *what, const json_t *r)
{
    if (!json_is_object(r))
        return;
    html_put(t, "<li>");
    html_put(t, what);
    html_putf(t, ": %.0f run%s, <code>", html_num(r, "runs"), html_num(r, "runs") == 1 ? "" : "s");
    html_put_esc(t, html_str(r, "first"));
    html_put(t, "</code> to <code>");
    html_put_esc(t, html_str(r, "last"));
    html_put(t, "</code>, median ");
    html_put_ns(t, html_num(r, "median_ns"));
    html_put(t, "</li>");
}

/* The metrics of the target run, ≈ before an estimate scaled for counter multiplexing. */
static void put_metrics(struct bench__text *t, const json_t *metrics)
{
    if (json_object_size(metrics) == 0)
        return;
    html_put(t, "<li>metrics (median of the run's repetitions):");
    const char *name;
    json_t *m;
    bool first = true;
    json_object_foreach((json_t *)metrics, name, m)
    {
        char buf[BENCH__NUMBER_MAX];
        bench__format_metric(html_num(m, "median"), BENCH__FORMAT_COUNT,
                             json_is_true(json_object_get(m, "estimated")), buf, sizeof buf);
        html_put(t, first ? " " : ", ");
        html_put_esc(t, name);
        html_put(t, json_is_true(json_object_get(m, "estimated")) ? " <span class=\"est\">"
                                                                  : " <span>");
        html_put(t, buf);
        html_put(t, "</span>");
        first = false;
    }
    html_put(t, "</li>");
}

static void cell_why(struct bench__text *t, const json_t *row)
{
    html_put(t, "<td class=\"why\">");
    const json_t *why = json_object_get(row, "why");
    for (size_t i = 0; i < json_array_size(why); i++) {
        const char *w = json_string_value(json_array_get(why, i));
        if (i)
            html_put(t, ", ");
        html_put_esc(t, w ? w : "?");
    }
    if (json_array_size(why) == 0)
        html_put(t, EM_DASH);
    const json_t *hist = json_object_get(row, "history");
    html_put(t, "<details><summary>details</summary><ul class=\"more\">");
    const char *decided = html_str(row, "decided_by");
    html_put(t, "<li>decided by ");
    html_put_esc(t, decided[0] ? decided : "nothing to compare with");
    if (!strcmp(decided, "reference"))
        html_put(t, " (the guardrail)");
    html_put(t, "</li>");
    put_range(t, "reference segment", json_object_get(hist, "reference"));
    put_range(t, "runs judged", json_object_get(hist, "current"));
    put_side(t, "target", json_object_get(row, "target"));
    put_side(t, "compared run", json_object_get(row, "baseline"));
    put_side(t, "guardrail", json_object_get(row, "reference"));
    const json_t *nj = json_object_get(row, "not_judged");
    if (json_array_size(nj)) {
        html_put(t, "<li>not judged:");
        for (size_t i = 0; i < json_array_size(nj); i++) {
            html_put(t, " ");
            html_put_esc(t, json_string_value(json_array_get(nj, i))
                                ? json_string_value(json_array_get(nj, i))
                                : "?");
        }
        html_put(t, "</li>");
    }
    put_metrics(t, json_object_get(row, "metrics"));
    html_putf(t, "<li>%zu change point%s in its history</li>",
              json_array_size(json_object_get(hist, "changes")),
              json_array_size(json_object_get(hist, "changes")) == 1 ? "" : "s");
    html_put(t, "</ul></details></td>");
}

void html_table_row(struct bench__text *t, const json_t *row, long chart)
{
    static const char *const known[] = {"fail",      "unmeasured", "regression",
                                        "guardrail", "watch",      "ok"};
    const char *state = html_str(row, "state");
    bool ok = false;
    for (size_t s = 0; s < sizeof known / sizeof known[0]; s++)
        ok = ok || strcmp(state, known[s]) == 0;
    html_put(t, "<tr class=\"state-");
    html_put_esc(t, ok ? state : "unknown");
    html_put(t, "\" data-state=\"");
    html_put_esc(t, state);
    html_put(t, "\"><td class=\"state\">");
    html_put_esc(t, state[0] ? state : "?");
    html_put(t, "</td><td class=\"bench\">");
    if (chart >= 0)
        html_putf(t, "<a href=\"#bench-%ld\">", chart);
    html_put_identity(t, row);
    if (chart >= 0)
        html_put(t, "</a>");
    html_put(t, " <small class=\"subject\">(");
    html_put_esc(t, html_str(row, "subject"));
    html_put(t, json_is_true(json_object_get(row, "whole_process")) ? ", whole process)</small>"
                                                                    : ")</small>");
    html_put(t, "</td>");
    double n = html_num(json_object_get(row, "target"), "sample_count");
    if (isnan(n))
        html_put(t, "<td class=\"num null\">" EM_DASH "</td>");
    else
        html_putf(t, "<td class=\"num\">%.0f</td>", n);
    cell_pct(t, row, "p50");
    cell_pct(t, row, "p90");
    cell_pct(t, row, "p99");
    cell_failures(t, row);
    cell_since(t, row);
    cell_why(t, row);
    html_put(t, "</tr>\n");
}

void html_table_end(struct bench__text *t, size_t shown, size_t total)
{
    if (total == 0)
        html_put(t, "<tr><td colspan=\"9\" class=\"null\">no rows</td></tr>\n");
    html_put(t, "</tbody>\n</table></div>\n");
    if (shown < total)
        html_putf(t,
                  "<p class=\"capped\">The table shows the first %zu rows of %zu (the worst "
                  "first); every row is in the report document and the terminal.</p>\n",
                  shown, total);
}
