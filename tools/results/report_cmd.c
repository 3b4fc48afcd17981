/* SPDX-License-Identifier: MIT */
/* report_cmd.c: owns `libbench report`: its command line (subjects, thresholds, priorities), the
 * index read (results_index.h), the sorted table on stdout (lib/report/table.h), the report
 * document (report_json.c) written atomically and handed to the HTML dashboard
 * (results_html.c) for --html, and the exit status (0, 1 with
 * --fail-on-regression when a row is fail or regression, 2 usage or store errors). It computes
 * no statistic (lib/stats/results.h does). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/table.h"
#include "report_tool.h"
#include "results_html.h"
#include "results_tool.h"
#include "common/args.h"
#include "common/json.h"
#include "common/output.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/format.h"
#include "util/text.h"

#define EM_DASH "\xe2\x80\x94"
#define MAX_PRIORITIES 64

void report_usage(FILE *out)
{
    fputs("usage: libbench report [--results DIR] [--target SUBJECT] [--baseline SUBJECT]\n"
          "                       [--guardrail SUBJECT] [--cross-host] [THRESHOLDS] [PRIORITIES]\n"
          "                       [--fail-on-regression] [--json FILE] [--html FILE]\n"
          "\n"
          "Compare the recorded runs of the store and print every row with its state (fail,\n"
          "unmeasured, regression, guardrail, watch, ok), sorted worst first: raw p50, p90, p99,\n"
          "failures, samples, and the deltas in time and in percent. By default the latest run is\n"
          "the target and the run recorded before it on the same host the baseline.\n"
          "\n"
          "options:\n"
          "  --results DIR            the store (default: results)\n"
          "  --target SUBJECT         the latest run of SUBJECT is the target\n"
          "  --baseline SUBJECT       ... compared with the latest run of SUBJECT (default: the\n"
          "                           target subject's run before)\n"
          "  --guardrail SUBJECT      also compare with the latest run of SUBJECT (the reference)\n"
          "  --cross-host             compare runs of different hosts too\n"
          "  --json FILE              also write the report document (what --html reads)\n"
          "  --html FILE              also write the dashboard: one static HTML page, no network\n"
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

static char *dup_ns(double ns)
{
    char buf[BENCH__NUMBER_MAX];
    bench__format_ns(ns, buf, sizeof buf);
    return bench__xstrdup(buf);
}

/* "+1.2µs (+12.3%)": the absolute and relative delta together, never a percentage alone. */
static char *dup_delta(double delta, double pct)
{
    if (!isfinite(delta))
        return bench__xstrdup(EM_DASH);
    char buf[BENCH__NUMBER_MAX];
    bench__format_ns(fabs(delta), buf, sizeof buf);
    const char *sign = delta > 0 ? "+" : delta < 0 ? "-" : "±";
    if (!isfinite(pct))
        return bench__xasprintf("%s%s", sign, buf);
    return bench__xasprintf("%s%s (%+.1f%%)", sign, buf, pct);
}

static char *dup_failures(const struct bench__result_aggregate *a)
{
    if (!a)
        return bench__xstrdup(EM_DASH);
    return bench__xasprintf("%zu/%zu (%.0f%%)", a->failure_count, a->total_count,
                            a->failure_rate * 100.0);
}

static void print_run(const char *what, const struct results_run *r, const char *subject)
{
    if (!r) {
        printf("%-9s none recorded\n", what);
        return;
    }
    printf("%-9s %s (%s)%s%s, host %s\n", what, r->bench_id, r->timestamp_utc,
           subject ? ", subject " : "", subject ? subject : "", r->host_id);
}

static void print_table(const struct bench__result_row *rows, size_t n)
{
    static const struct bench__column cols[] = {
        {"state", BENCH__LEFT},     {"profile", BENCH__LEFT}, {"scenario", BENCH__LEFT},
        {"operation", BENCH__LEFT}, {"subject", BENCH__LEFT}, {"p50", BENCH__DECIMAL},
        {"p90", BENCH__DECIMAL},    {"p99", BENCH__DECIMAL},  {"base p50", BENCH__DECIMAL},
        {"Δ p50", BENCH__LEFT},     {"Δ p90", BENCH__LEFT},   {"Δ p99", BENCH__LEFT},
        {"failures", BENCH__RIGHT}, {"n", BENCH__RIGHT},      {"why", BENCH__LEFT},
    };
    enum { N_COLS = sizeof cols / sizeof cols[0] };
    char **cells = bench__xcalloc(n * N_COLS + 1, sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        const struct bench__result_row *r = &rows[i];
        const struct bench__result_aggregate *a = r->target;
        char **c = cells + i * N_COLS;
        c[0] = bench__xstrdup(bench__result_state_name(r->state));
        c[1] = bench__xstrdup(a->profile);
        c[2] = bench__xstrdup(a->scenario);
        c[3] = bench__xstrdup(a->operation[0] ? a->operation : EM_DASH);
        c[4] = bench__xstrdup(a->subject);
        c[5] = dup_ns(a->p50);
        c[6] = dup_ns(a->p90);
        c[7] = dup_ns(a->p99);
        const struct bench__result_aggregate *d =
            r->decided_by && !strcmp(r->decided_by, "reference") ? r->reference : r->baseline;
        c[8] = dup_ns(d ? d->p50 : NAN);
        c[9] = dup_delta(r->delta_p50_ns, r->slower_p50_pct);
        c[10] = dup_delta(r->delta_p90_ns, r->slower_p90_pct);
        c[11] = dup_delta(r->delta_p99_ns, r->slower_p99_pct);
        c[12] = dup_failures(a);
        c[13] = bench__xasprintf("%zu", a->sample_count);
        c[14] = bench__xstrdup(r->why[0] ? r->why : EM_DASH);
        for (size_t k = 0; k < N_COLS; k++) {
            size_t len = strlen(c[k]) + 1;
            char *clean = bench__xmalloc(len);
            bench__sanitize_copy(c[k], clean, len);
            free(c[k]);
            c[k] = clean;
        }
    }
    struct bench__table t = {NULL, cols, N_COLS, cells, n, NULL};
    struct bench__table_memory memory = {0};
    bench__table_render(stdout, &t, &memory);
    bench__table_memory_free(&memory);
    for (size_t i = 0; i < n * N_COLS; i++)
        free(cells[i]);
    free(cells);
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

int report_main(int argc, char **argv)
{
    struct report_options opt = {0};
    bench__result_thresholds_default(&opt.thresholds);
    const char *dir = NULL, *json_path = NULL, *html_path = NULL;
    bool gate = false;
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
        else if (tool_option_is(arg, "--json", &value))
            slot = &json_path, name = "--json";
        else if (tool_option_is(arg, "--html", &value))
            slot = &html_path, name = "--html";
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
    if (lists[0])
        opt.priorities.profiles = profiles,
        opt.priorities.n_profiles = split_list(lists[0], profiles);
    if (lists[1])
        opt.priorities.scenarios = scenarios,
        opt.priorities.n_scenarios = split_list(lists[1], scenarios);
    if (lists[2])
        opt.priorities.operation_prefixes = operations,
        opt.priorities.n_operation_prefixes = split_list(lists[2], operations);
    enum results_location_kind kind;
    if (results_location("report", dir, &kind) != 0)
        goto out;
    if (!dir)
        dir = RESULTS_DEFAULT_DIR;

    char err[512];
    struct results_store store = {.fd = -1};
    struct results_index *ix = NULL;
    struct results_list runs = {0}, aggs = {0}, values = {0};
    struct bench__result_row *rows = NULL;
    size_t n_rows = 0;
    struct report_selection sel;
    /* a report creates no store; it indexes what a stopped record left (or says so) */
    if (results_store_open_for_report(dir, &store, &ix, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        goto done;
    }
    if (results_index_runs(ix, &runs, err, sizeof err) != 0 ||
        results_index_aggregates(ix, &aggs, err, sizeof err) != 0 ||
        report_select(&runs, &aggs, &opt, (size_t)-1, &sel, &rows, &n_rows, err, sizeof err) != 0 ||
        results_index_measurements(ix, sel.target->bench_id, &values, err, sizeof err) != 0) {
        char shown[256];
        bench__sanitize_copy(dir, shown, sizeof shown);
        fprintf(stderr, "error: %s: %s\n", shown, err);
        goto done;
    }
    print_run("target:", sel.target, sel.target_subject);
    print_run("baseline:", sel.baseline, sel.baseline_subject);
    if (opt.guardrail_subject)
        print_run("guardrail:", sel.reference, sel.reference_subject);
    print_table(rows, n_rows);
    size_t bad = 0;
    for (size_t i = 0; i < n_rows; i++)
        bad += rows[i].state == BENCH__RESULT_FAIL || rows[i].state == BENCH__RESULT_REGRESSION;
    ret = gate && bad ? 1 : 0;
    if (json_path || html_path) {
        json_t *doc = report_json(dir, &opt, &sel, rows, n_rows, &runs, &aggs, &values);
        struct bench__text text = {0};
        tool_json_dump_sorted(doc, &text);
        json_decref(doc);
        int e = json_path ? bench__write_file(json_path, text.data, text.len) : 0;
        if (e != 0) {
            char shown[256];
            bench__sanitize_copy(json_path, shown, sizeof shown);
            fprintf(stderr, "error: cannot write %s: %s\n", shown, bench__write_file_strerror(e));
            ret = 2;
        }
        char *html_error = NULL;
        if (html_path && results_html_write(text.data, html_path, &html_error) != 0) {
            size_t len = strlen(html_error) + 1;
            char *shown = bench__xmalloc(len);
            bench__sanitize_copy(html_error, shown, len);
            fprintf(stderr, "libbench report: %s\n", shown);
            free(shown);
            free(html_error);
            ret = 2;
        }
        free(text.data);
    }
done:
    free(rows);
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
