/* SPDX-License-Identifier: MIT */
/* report_cmd.c: owns `libbench report`: its command line (subjects, runs, modes, thresholds,
 * priorities), the index read (results_index.h), the tables on stdout (report_table.c), the
 * report document (report_json.c) written atomically, the HTML dashboard (results_html.c) fed
 * the same rows for --html, and the exit status (0, 1 with --fail-on-regression when a row is
 * fail or regression, 2 usage or store errors). It computes no statistic (lib/stats does). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_tool.h"
#include "results_html.h"
#include "results_tool.h"
#include "common/args.h"
#include "common/json.h"
#include "common/output.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/text.h"

#define MAX_PRIORITIES 64

void report_usage(FILE *out)
{
    fputs("usage: libbench report [--results DIR] [--target SUBJECT] [--baseline SUBJECT]\n"
          "                       [--baseline-run ID] [--since DATE] [--mode MODE]\n"
          "                       [--guardrail SUBJECT] [--cross-host] [THRESHOLDS] [PRIORITIES]\n"
          "                       [--fail-on-regression] [--changes] [--metrics] [--json FILE]\n"
          "                       [--html FILE] [--junit FILE] [--summary FILE]\n"
          "\n"
          "Judge the latest recorded run of the store and print every row with its state (fail,\n"
          "unmeasured, regression, guardrail, watch, ok), sorted worst first: raw p50, p90, p99\n"
          "and their n, failures, and the deltas in time and in percent. By default each row's\n"
          "latest run is judged against its history on the same host: the last stable segment\n"
          "between change points; a regression reads \"since\" the run where it began until a\n"
          "later change point restores it, and one run out of line is a watch until the next\n"
          "runs confirm it.\n"
          "\n"
          "options:\n"
          "  --results DIR|URL        the store: a directory, or a postgresql:// URL (default:\n"
          "                           $LIBBENCH_RESULTS, else results)\n"
          "  --target SUBJECT         the latest run of SUBJECT is the target\n"
          "  --baseline SUBJECT       ... compared with the latest run of SUBJECT instead of\n"
          "                           its history (needs --target)\n"
          "  --baseline-run ID        judge against the segment holding run ID (a bench_id)\n"
          "  --since DATE             the history starts at DATE (YYYY-MM-DD or a UTC time)\n"
          "  --mode MODE              segments (the default) or latest-vs-previous: the latest\n"
          "                           run against the run before it, the rule before change\n"
          "                           points\n"
          "  --guardrail SUBJECT      also compare with the latest run of SUBJECT (the reference)\n"
          "  --cross-host             compare runs of different hosts too\n"
          "  --changes                also list the change points of the rows' histories\n"
          "  --metrics                also list the target run's metrics (≈: an estimate)\n"
          "  --json FILE              also write the report document (what --html reads)\n"
          "  --html FILE              also write the dashboard: one static HTML page, no network\n"
          "  --junit FILE             also write each row as a JUnit test case (fail and\n"
          "                           regression fail, unmeasured is skipped)\n"
          "  --summary FILE           append the states and the worst rows as Markdown (for\n"
          "                           $GITHUB_STEP_SUMMARY); --junit and --summary gate as\n"
          "                           --fail-on-regression does\n"
          "  --fail-on-regression     exit 1 when a row is fail or regression\n"
          "thresholds (a percentile is over one when it is both pct and min-ns slower):\n"
          "  --baseline-pct P, --baseline-min-ns NS, --baseline-min-ns-process NS\n"
          "  --guardrail-pct P, --guardrail-min-ns NS, --guardrail-min-ns-process NS\n"
          "  --tail-pct P, --tail-min-ns NS, --tail-min-ns-process NS   (p99)\n"
          "  --fail-pp PP             failure-rate increase that fails a row (default 0)\n"
          "  (-process: rows of `libbench run`, whole processes; the others: in-process rows)\n"
          "priorities (comma-separated, first first; unlisted after):\n"
          "  --profile-priority LIST, --scenario-priority LIST, --operation-priority PREFIXES\n"
          "  -h, --help               print this help and exit\n"
          "\n"
          "exit status: 0, 1 with --fail-on-regression when a row is fail or regression, 2 a\n"
          "usage error or a store that cannot be read\n",
          out);
}

/* A comma-separated list split in place into list (at most MAX_PRIORITIES). */
static size_t split_list(char *text, const char **list)
{
    size_t n = 0;
    for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok && n < MAX_PRIORITIES;
         tok = strtok_r(NULL, ",", &save))
        list[n++] = tok;
    return n;
}

/* The threshold options: name, which threshold, which field. */
struct threshold_option {
    const char *name;
    int which; /* 0 baseline, 1 reference, 2 tail */
    int kind;  /* 0 in-process, 1 whole-process */
    bool pct;
};
static const struct threshold_option THRESHOLDS[] = {
    {"--baseline-pct", 0, -1, true},
    {"--baseline-min-ns", 0, 0, false},
    {"--baseline-min-ns-process", 0, 1, false},
    {"--guardrail-pct", 1, -1, true},
    {"--guardrail-min-ns", 1, 0, false},
    {"--guardrail-min-ns-process", 1, 1, false},
    {"--tail-pct", 2, -1, true},
    {"--tail-min-ns", 2, 0, false},
    {"--tail-min-ns-process", 2, 1, false},
};

static void set_threshold(struct bench__result_thresholds *t, const struct threshold_option *o,
                          double v)
{
    struct bench__result_threshold *th = o->which == 0   ? t->baseline
                                         : o->which == 1 ? t->reference
                                                         : t->tail;
    for (int k = 0; k < 2; k++) {
        if (o->pct)
            th[k].pct = v;
        else if (k == o->kind)
            th[k].min_ns = v;
    }
}

/* --mode, --since and --baseline-run, and what goes with what. 0, or -1 (said). */
static int check_history_options(struct report_options *opt, const char *mode)
{
    if (mode && !strcmp(mode, "latest-vs-previous"))
        opt->mode = REPORT_MODE_LATEST_VS_PREVIOUS;
    else if (mode && strcmp(mode, "segments") != 0)
        return tool_usage_error("report", "--mode '%s': segments or latest-vs-previous", mode);
    if (opt->baseline_run && opt->baseline_subject)
        return tool_usage_error("report", "--baseline-run and --baseline: one baseline%s", "");
    if (opt->baseline_run && opt->mode == REPORT_MODE_LATEST_VS_PREVIOUS)
        return tool_usage_error("report",
                                "--baseline-run judges against a segment: not with "
                                "--mode=latest-vs-previous%s",
                                "");
    if (opt->baseline_run && strlen(opt->baseline_run) != 16)
        return tool_usage_error("report", "--baseline-run '%s': a bench_id, YYYYMMDDTHHMMSSZ",
                                opt->baseline_run);
    int64_t epoch;
    if (opt->since) {
        size_t n = strlen(opt->since);
        char full[32];
        bench__fmt(full, sizeof full, "%sT00:00:00Z", opt->since);
        if (!(n == 10 ? results_time_parse(full, &epoch) : results_time_parse(opt->since, &epoch)))
            return tool_usage_error("report",
                                    "--since '%s': a date YYYY-MM-DD or a UTC time "
                                    "YYYY-MM-DDTHH:MM:SSZ",
                                    opt->since);
    }
    return 0;
}

/* The rows one at a time, for the document's text and the page. */
struct row_feed {
    const struct report_rows *rows;
    const struct results_list *values;
    struct results_html *html;
    bool html_fed;
};

static json_t *feed_row(void *ctx, size_t i)
{
    struct row_feed *f = ctx;
    return report_json_row(f->rows, i, f->values);
}

static void feed_page(void *ctx, json_t *row)
{
    struct row_feed *f = ctx;
    if (f->html)
        results_html_row(f->html, row);
}

/* The document's text, written as it is made (bench__write_file_from's producer). */
struct doc_feed {
    const json_t *head;
    struct row_feed *rows;
    int (*put)(void *sink, const char *data, size_t len);
    void *sink;
};

static int drain_doc(void *ctx, const char *data, size_t len)
{
    const struct doc_feed *d = ctx;
    return d->put(d->sink, data, len);
}

static int produce_doc(void *ctx, int (*put)(void *sink, const char *data, size_t len), void *sink)
{
    struct doc_feed *d = ctx;
    struct bench__text text = {0};
    d->put = put;
    d->sink = sink;
    int e = report_json_text(d->head, d->rows->rows->n, feed_row, feed_page, d->rows, &text,
                             drain_doc, d);
    free(text.data);
    return e;
}

/* --json and --html: the document and the page from the same rows. 0, or 2 (said). */
static int write_outputs(const char *dir, const struct report_options *opt,
                         const struct report_selection *sel, const struct report_rows *rows,
                         const struct results_list *values, const char *json_path,
                         const char *html_path)
{
    int ret = 0;
    json_t *head = report_json_head(dir, opt, sel, rows);
    struct row_feed f = {rows, values, html_path ? results_html_begin(head) : NULL, false};
    if (json_path) {
        struct doc_feed d = {head, &f, NULL, NULL};
        int e = bench__write_file_from(json_path, produce_doc, &d);
        if (d.put)
            f.html_fed = true; /* the rows were made, and the page saw them */
        if (e != 0) {
            char shown[256];
            bench__sanitize_copy(json_path, shown, sizeof shown);
            fprintf(stderr, "error: cannot write %s: %s\n", shown, bench__write_file_strerror(e));
            ret = 2;
        }
    }
    for (size_t i = 0; f.html && !f.html_fed && i < rows->n; i++) {
        json_t *row = feed_row(&f, i);
        feed_page(&f, row);
        json_decref(row);
    }
    json_decref(head);
    char *html_error = NULL;
    struct bench__text page = {0};
    if (f.html && (results_html_end(f.html, &page, &html_error) != 0 ||
                   results_html_save(&page, html_path, &html_error) != 0)) {
        size_t len = strlen(html_error) + 1;
        char *shown = bench__xmalloc(len);
        bench__sanitize_copy(html_error, shown, len);
        fprintf(stderr, "libbench report: %s\n", shown);
        free(shown);
        free(html_error);
        ret = 2;
    }
    free(page.data);
    return ret;
}

int report_main(int argc, char **argv)
{
    struct report_options opt;
    report_options_default(&opt);
    const char *dir = NULL, *json_path = NULL, *html_path = NULL, *mode = NULL;
    const char *junit_path = NULL, *summary_path = NULL;
    bool gate = false, changes = false, metrics = false;
    static const char *profiles[MAX_PRIORITIES], *scenarios[MAX_PRIORITIES],
        *operations[MAX_PRIORITIES];
    char *lists[3] = {NULL, NULL, NULL};
    int ret = 2;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            report_usage(stdout);
            ret = 0;
            goto out;
        }
        if (!strcmp(arg, "--cross-host")) {
            opt.cross_host = true;
            continue;
        }
        if (!strcmp(arg, "--fail-on-regression")) {
            gate = true;
            continue;
        }
        if (!strcmp(arg, "--changes")) {
            changes = true;
            continue;
        }
        if (!strcmp(arg, "--metrics")) {
            metrics = true;
            continue;
        }
        const char **slot = NULL, *name = NULL;
        int list = -1;
        const struct threshold_option *th = NULL;
        if (tool_option_is(arg, "--results", &value))
            slot = &dir, name = "--results";
        else if (tool_option_is(arg, "--target", &value))
            slot = &opt.target_subject, name = "--target";
        else if (tool_option_is(arg, "--baseline", &value))
            slot = &opt.baseline_subject, name = "--baseline";
        else if (tool_option_is(arg, "--guardrail", &value))
            slot = &opt.guardrail_subject, name = "--guardrail";
        else if (tool_option_is(arg, "--baseline-run", &value))
            slot = &opt.baseline_run, name = "--baseline-run";
        else if (tool_option_is(arg, "--since", &value))
            slot = &opt.since, name = "--since";
        else if (tool_option_is(arg, "--mode", &value))
            slot = &mode, name = "--mode";
        else if (tool_option_is(arg, "--json", &value))
            slot = &json_path, name = "--json";
        else if (tool_option_is(arg, "--html", &value))
            slot = &html_path, name = "--html";
        else if (tool_option_is(arg, "--junit", &value))
            slot = &junit_path, name = "--junit";
        else if (tool_option_is(arg, "--summary", &value))
            slot = &summary_path, name = "--summary";
        else if (tool_option_is(arg, "--profile-priority", &value))
            list = 0, name = "--profile-priority";
        else if (tool_option_is(arg, "--scenario-priority", &value))
            list = 1, name = "--scenario-priority";
        else if (tool_option_is(arg, "--operation-priority", &value))
            list = 2, name = "--operation-priority";
        else if (tool_option_is(arg, "--fail-pp", &value))
            name = "--fail-pp";
        else
            for (size_t k = 0; k < sizeof THRESHOLDS / sizeof THRESHOLDS[0]; k++)
                if (tool_option_is(arg, THRESHOLDS[k].name, &value))
                    th = &THRESHOLDS[k], name = th->name;
        if (!name) {
            if (tool_looks_like_option(arg))
                tool_usage_error("report", "unknown option '%s'", arg);
            else
                tool_usage_error("report", "unexpected argument '%s'", arg);
            goto out;
        }
        tool_take_value(argc, argv, &i, &value);
        if (!value) {
            tool_usage_error("report", "%s needs a value", name);
            goto out;
        }
        if (slot) {
            if (*slot) {
                tool_usage_error("report", "%s given more than once", name);
                goto out;
            }
            if (!value[0]) {
                tool_usage_error("report", "%s needs a non-empty value", name);
                goto out;
            }
            *slot = value;
        } else if (list >= 0) {
            if (lists[list]) {
                tool_usage_error("report", "%s given more than once", name);
                goto out;
            }
            lists[list] = bench__xstrdup(value);
        } else {
            double v;
            if (!tool_parse_decimal(value, &v)) {
                char shown[128];
                bench__sanitize_copy(value, shown, sizeof shown);
                fprintf(stderr, "error: %s: '%s' is not a number (see libbench report --help)\n",
                        name, shown);
                goto out;
            }
            if (th)
                set_threshold(&opt.thresholds, th, v);
            else
                opt.thresholds.fail_pp = v;
        }
    }
    if (opt.baseline_subject && !opt.target_subject) {
        tool_usage_error("report", "--baseline needs --target%s", "");
        goto out;
    }
    if (check_history_options(&opt, mode) != 0)
        goto out;
    if (lists[0])
        opt.priorities.profiles = profiles,
        opt.priorities.n_profiles = split_list(lists[0], profiles);
    if (lists[1])
        opt.priorities.scenarios = scenarios,
        opt.priorities.n_scenarios = split_list(lists[1], scenarios);
    if (lists[2])
        opt.priorities.operation_prefixes = operations,
        opt.priorities.n_operation_prefixes = split_list(lists[2], operations);
    if (!dir)
        dir = results_location_default(); /* LIBBENCH_RESULTS */
    enum results_location_kind kind;
    if (results_location("report", dir, &kind) != 0)
        goto out;
    if (!dir)
        dir = RESULTS_DEFAULT_DIR;

    char err[512];
    struct results_store store = {.fd = -1};
    struct results_index *ix = NULL;
    struct results_list runs = {0}, aggs = {0}, values = {0};
    struct report_rows rows = {0};
    struct report_selection sel;
    /* a report creates no store; it indexes what a stopped record left (or says so) */
    if (results_store_open_for_report(dir, &store, &ix, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto done;
    }
    results_index_reader_cache(ix); /* the reconciliation is done: from here the index is read */
    if (results_index_runs(ix, &runs, err, sizeof err) != 0 ||
        results_index_aggregates(ix, &aggs, err, sizeof err) != 0 ||
        report_select(&runs, &aggs, &opt, (size_t)-1, &sel, &rows, err, sizeof err) != 0 ||
        results_index_measurements(ix, sel.target->bench_id, &values, err, sizeof err) != 0) {
        char shown[256];
        bench__sanitize_copy(store.dir, shown, sizeof shown); /* a URL: without its password */
        fprintf(stderr, "error: %s: %s\n", shown, err);
        goto done;
    }
    if (report_print(&opt, &sel, &rows, &values, changes, metrics) != 0) {
        fprintf(stderr, "error: cannot write the report on stdout\n");
        goto done;
    }
    size_t bad = 0;
    for (size_t i = 0; i < rows.n; i++)
        bad += rows.rows[i].state == BENCH__RESULT_FAIL ||
               rows.rows[i].state == BENCH__RESULT_REGRESSION;
    /* --junit and --summary gate as --fail-on-regression does: a file for CI that shows a failed
     * row (a REGRESSION) never comes with exit status 0 */
    if (junit_path || summary_path)
        gate = true;
    ret = gate && bad ? 1 : 0;
    if (json_path || html_path) {
        int w = write_outputs(store.dir, &opt, &sel, &rows, &values, json_path, html_path);
        ret = w ? w : ret;
    }
    if (junit_path && report_junit_write(&rows, junit_path, err, sizeof err) != 0) {
        char shown[256];
        bench__sanitize_copy(junit_path, shown, sizeof shown);
        fprintf(stderr, "error: --junit: '%s': %s\n", shown, err);
        ret = 2;
    }
    if (summary_path && report_summary_append(&rows, summary_path, err, sizeof err) != 0) {
        char shown[256];
        bench__sanitize_copy(summary_path, shown, sizeof shown);
        fprintf(stderr, "error: --summary: '%s': %s\n", shown, err);
        ret = 2;
    }
done:
    report_rows_free(&rows);
    results_list_free(&runs);
    results_list_free(&aggs);
    results_list_free(&values);
    results_index_close(ix);
    results_store_close(&store);
    if (ret != 2 && tool_stdout_finish() != 0)
        ret = 2;
out:
    for (int k = 0; k < 3; k++)
        free(lists[k]);
    return ret;
}
