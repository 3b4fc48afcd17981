/* SPDX-License-Identifier: MIT */
/* report_table.c: owns what `libbench report` prints on stdout (docs/reference/results.md,
 * "libbench report"): the runs compared, the rows' table (every percentile with its n, a tail not
 * judged shown as an em dash with the n it needs, the run a state holds since), and with
 * --changes the change points of the rows' series, with --metrics the target run's metrics (an
 * estimate marked ≈). It computes no statistic and judges nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/table.h"
#include "report_tool.h"
#include "util/alloc.h"
#include "util/format.h"
#include "util/text.h"

#define EM_DASH "\xe2\x80\x94"

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

/* A tail's delta, or why it has none: "— (n < 10)" when it was not judged for its samples. */
static char *dup_tail(double delta, double pct, bool judged, bool compared, size_t min_n)
{
    if (judged || !compared)
        return dup_delta(delta, pct);
    return bench__xasprintf(EM_DASH " (n < %zu)", min_n);
}

static char *dup_failures(const struct bench__result_aggregate *a)
{
    return bench__xasprintf("%zu/%zu (%.0f%%)", a->failure_count, a->total_count,
                            a->failure_rate * 100.0);
}

static const struct results_run *since_run(const struct report_rows *rows,
                                           const struct bench__result_row *r)
{
    const struct report_history *h = r->ctx;
    if (!h || !h->judged || h->verdict.since >= h->n ||
        (r->state != BENCH__RESULT_REGRESSION && r->state != BENCH__RESULT_WATCH))
        return NULL;
    return report_series_run(&rows->series, h->series[h->verdict.since]);
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

/* Every cell sanitized (a name from a document may hold control characters), then drawn. */
static void render(const struct bench__column *cols, size_t n_cols, char **cells, size_t n_rows)
{
    for (size_t k = 0; k < n_rows * n_cols; k++) {
        size_t len = strlen(cells[k]) + 1;
        char *clean = bench__xmalloc(len);
        bench__sanitize_copy(cells[k], clean, len);
        free(cells[k]);
        cells[k] = clean;
    }
    struct bench__table t = {NULL, cols, n_cols, cells, n_rows, NULL};
    struct bench__table_memory memory = {0};
    bench__table_render(stdout, &t, &memory);
    bench__table_memory_free(&memory);
    for (size_t i = 0; i < n_rows * n_cols; i++)
        free(cells[i]);
    free(cells);
}

static void print_rows(const struct report_options *opt, const struct report_rows *rows)
{
    static const struct bench__column cols[] = {
        {"state", BENCH__LEFT},       {"profile", BENCH__LEFT},   {"scenario", BENCH__LEFT},
        {"operation", BENCH__LEFT},   {"subject", BENCH__LEFT},   {"p50", BENCH__DECIMAL},
        {"p90", BENCH__DECIMAL},      {"p99", BENCH__DECIMAL},    {"n", BENCH__RIGHT},
        {"base p50", BENCH__DECIMAL}, {"Δ p50", BENCH__LEFT},     {"Δ p90", BENCH__LEFT},
        {"Δ p99", BENCH__LEFT},       {"failures", BENCH__RIGHT}, {"since", BENCH__LEFT},
        {"why", BENCH__LEFT},
    };
    enum { N_COLS = sizeof cols / sizeof cols[0] };
    size_t n = rows->n;
    char **cells = bench__xcalloc(n * N_COLS + 1, sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        const struct bench__result_row *r = &rows->rows[i];
        const struct bench__result_aggregate *a = r->target;
        char **c = cells + i * N_COLS;
        const struct bench__result_aggregate *d =
            r->decided_by && !strcmp(r->decided_by, "reference") ? r->reference : r->baseline;
        bool compared = d && d->sample_count > 0 && a->sample_count > 0;
        c[0] = bench__xstrdup(bench__result_state_name(r->state));
        c[1] = bench__xstrdup(a->profile);
        c[2] = bench__xstrdup(a->scenario);
        c[3] = bench__xstrdup(a->operation[0] ? a->operation : EM_DASH);
        c[4] = bench__xstrdup(a->subject);
        c[5] = dup_ns(a->p50);
        c[6] = dup_ns(a->p90);
        c[7] = dup_ns(a->p99);
        c[8] = bench__xasprintf("%zu", a->sample_count);
        c[9] = dup_ns(isfinite(r->history_ref_p50) ? r->history_ref_p50 : d ? d->p50 : NAN);
        c[10] = dup_delta(r->delta_p50_ns, r->slower_p50_pct);
        c[11] = dup_tail(r->delta_p90_ns, r->slower_p90_pct, r->p90_judged, compared,
                         opt->thresholds.min_n_p90);
        c[12] = dup_tail(r->delta_p99_ns, r->slower_p99_pct, r->p99_judged, compared,
                         opt->thresholds.min_n_p99);
        c[13] = dup_failures(a);
        const struct results_run *since = since_run(rows, r);
        c[14] = bench__xstrdup(since ? since->bench_id : EM_DASH);
        c[15] = bench__xstrdup(r->why[0] ? r->why : EM_DASH);
    }
    render(cols, N_COLS, cells, n);
}

/* "lz4=3a4f…,zstd=9c1e…" from a sources object's text; an em dash when none. */
static char *dup_sources(const char *json_text)
{
    json_t *o = json_text ? json_loads(json_text, 0, NULL) : NULL;
    struct bench__text t = {0};
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        const char *h = json_string_value(v);
        char *part = bench__xasprintf("%s%s=%.12s", t.len ? "," : "", k, h ? h : "?");
        if (bench__text_append(part, strlen(part), &t) != 0)
            bench__out_of_memory();
        free(part);
    }
    json_decref(o);
    return t.data ? t.data : bench__xstrdup(EM_DASH);
}

static char *dup_size(const struct results_change *c)
{
    if (!isfinite(c->size_rel))
        return bench__xstrdup(EM_DASH);
    if (!isfinite(c->ci_low_rel) || !isfinite(c->ci_high_rel))
        return bench__xasprintf("%+.1f%%", c->size_rel * 100);
    return bench__xasprintf("%+.1f%% [%+.1f%%, %+.1f%%] %.0f%%", c->size_rel * 100,
                            c->ci_low_rel * 100, c->ci_high_rel * 100, c->ci_level * 100);
}

static void print_changes(const struct report_rows *rows)
{
    static const struct bench__column cols[] = {
        {"profile", BENCH__LEFT},   {"scenario", BENCH__LEFT},  {"operation", BENCH__LEFT},
        {"subject", BENCH__LEFT},   {"run", BENCH__LEFT},       {"commit", BENCH__LEFT},
        {"sources", BENCH__LEFT},   {"before", BENCH__DECIMAL}, {"after", BENCH__DECIMAL},
        {"size [CI]", BENCH__LEFT}, {"p", BENCH__RIGHT},        {"row now", BENCH__LEFT},
    };
    enum { N_COLS = sizeof cols / sizeof cols[0] };
    size_t total = 0, k = 0;
    for (size_t i = 0; i < rows->n; i++)
        total += ((const struct report_history *)rows->rows[i].ctx)->n_cps;
    printf("change points: %zu\n", total);
    if (total == 0)
        return;
    char **cells = bench__xcalloc(total * N_COLS + 1, sizeof *cells);
    for (size_t i = 0; i < rows->n; i++) {
        const struct bench__result_row *r = &rows->rows[i];
        const struct report_history *h = r->ctx;
        for (size_t j = 0; j < h->n_cps; j++, k++) {
            struct results_change c;
            report_change_of(&rows->series, h->series, h->n, h->runs, &h->cps[j], &c);
            char **x = cells + k * N_COLS;
            bool open = h->judged && r->state == BENCH__RESULT_REGRESSION &&
                        h->verdict.state == BENCH__RESULT_REGRESSION &&
                        h->verdict.since == h->cps[j].index;
            x[0] = bench__xstrdup(c.profile);
            x[1] = bench__xstrdup(c.scenario);
            x[2] = bench__xstrdup(c.operation[0] ? c.operation : EM_DASH);
            x[3] = bench__xstrdup(c.subject);
            x[4] = bench__xstrdup(c.bench_id);
            x[5] = c.source_revision ? bench__xasprintf("%.12s", c.source_revision)
                                     : bench__xstrdup(EM_DASH);
            x[6] = dup_sources(c.sources);
            x[7] = dup_ns(c.median_before_ns);
            x[8] = dup_ns(c.median_after_ns);
            x[9] = dup_size(&c);
            x[10] = bench__xasprintf("%.2g", c.p);
            x[11] = bench__xasprintf("%s%s", bench__result_state_name(r->state),
                                     open ? " (since this change)" : "");
        }
    }
    render(cols, N_COLS, cells, total);
}

/* The metrics of the target run, one line per row and metric: the median over its repetitions,
 * ≈ when one of them was an estimate scaled for multiplexing. */
static void print_metrics(const struct report_rows *rows, const struct results_list *values)
{
    static const struct bench__column cols[] = {
        {"profile", BENCH__LEFT}, {"scenario", BENCH__LEFT}, {"operation", BENCH__LEFT},
        {"subject", BENCH__LEFT}, {"metric", BENCH__LEFT},   {"value", BENCH__DECIMAL},
        {"n", BENCH__RIGHT},
    };
    enum { N_COLS = sizeof cols / sizeof cols[0] };
    char **cells = NULL;
    size_t cap = 0, k = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const struct bench__result_aggregate *a = rows->rows[i].target;
        json_t *m = report_json_metrics(values, a);
        const char *name;
        json_t *o;
        json_object_foreach(m, name, o)
        {
            cells = bench__grow(cells, &cap, (k + 1) * N_COLS + 1, sizeof *cells);
            char **x = cells + k++ * N_COLS;
            char buf[BENCH__NUMBER_MAX];
            const json_t *med = json_object_get(o, "median");
            bench__format_metric(json_is_number(med) ? json_number_value(med) : NAN,
                                 BENCH__FORMAT_COUNT, json_is_true(json_object_get(o, "estimated")),
                                 buf, sizeof buf);
            x[0] = bench__xstrdup(a->profile);
            x[1] = bench__xstrdup(a->scenario);
            x[2] = bench__xstrdup(a->operation[0] ? a->operation : EM_DASH);
            x[3] = bench__xstrdup(a->subject);
            x[4] = bench__xstrdup(name);
            x[5] = bench__xstrdup(buf);
            x[6] = bench__xasprintf("%lld", (long long)json_integer_value(json_object_get(o, "n")));
        }
        json_decref(m);
    }
    printf("metrics of the target run (the median over its repetitions; ≈ an estimate scaled "
           "for counter multiplexing):\n");
    if (k)
        render(cols, N_COLS, cells, k);
    else
        printf("  none recorded\n");
    if (!k)
        free(cells);
}

static const char *judged_how(const struct report_selection *sel)
{
    if (!strcmp(sel->mode, "segments"))
        return "each row's history: the latest run against its last stable segment";
    if (!strcmp(sel->mode, "baseline_run"))
        return "each row's history: the latest run against the segment of the baseline run";
    if (!strcmp(sel->mode, "latest_vs_previous"))
        return "the run before the target (--mode=latest-vs-previous)";
    return "the latest run of the baseline subject";
}

int report_print(const struct report_options *opt, const struct report_selection *sel,
                 const struct report_rows *rows, const struct results_list *values, bool changes,
                 bool metrics)
{
    print_run("target:", sel->target, sel->target_subject);
    if (strcmp(sel->mode, "segments") != 0) /* in segments each row has its own reference */
        print_run("baseline:", sel->baseline, sel->baseline_subject);
    if (opt->guardrail_subject)
        print_run("guardrail:", sel->reference, sel->reference_subject);
    printf("judged:   against %s", judged_how(sel));
    if (opt->since)
        printf(", runs since %s", opt->since);
    printf("\n");
    print_rows(opt, rows);
    if (changes)
        print_changes(rows);
    if (metrics)
        print_metrics(rows, values);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -1;
}
