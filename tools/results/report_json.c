/* SPDX-License-Identifier: MIT */
/* report_json.c: owns the report document of `libbench report --json` (docs/reference/results.md,
 * "The report document"), which the HTML dashboard reads: the selection, the thresholds and the
 * engine's parameters, the summary, and the rows in dashboard order, each with its history, its
 * change points, the target run's values and metrics (an estimate marked). The rows are made one
 * at a time and the text written as they come, so no report is ever one tree in memory. Unmeasured
 * is null, never 0. It computes no statistic and writes no file. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_tool.h"
#include "common/json.h"
#include "util/alloc.h"

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *count(size_t n)
{
    return json_integer((json_int_t)n);
}

/* A JSON object's text as the object (the index keeps sources so); null when none. */
static json_t *object_text(const char *text)
{
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    if (o && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    return o ? o : json_null();
}

static json_t *run_ref(const struct results_run *r, const char *subject, bool with_subject)
{
    if (!r)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "bench_id", json_string(r->bench_id));
    json_object_set_new(o, "timestamp_utc", json_string(r->timestamp_utc));
    json_object_set_new(o, "host_id", json_string(r->host_id));
    json_object_set_new(o, "source_revision", str(r->source_revision));
    json_object_set_new(o, "sources", object_text(r->sources));
    if (with_subject)
        json_object_set_new(o, "subject", str(subject));
    return o;
}

static json_t *threshold(const struct bench__result_threshold *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "pct", num(t->pct));
    json_object_set_new(o, "min_ns", num(t->min_ns));
    return o;
}

static json_t *thresholds(const struct bench__result_thresholds *t, int k)
{
    json_t *o = json_object();
    json_object_set_new(o, "baseline", threshold(&t->baseline[k]));
    json_object_set_new(o, "reference", threshold(&t->reference[k]));
    json_object_set_new(o, "tail", threshold(&t->tail[k]));
    return o;
}

/* The engine's parameters (lib/stats/changepoint.h), as the report used them. */
static json_t *engine(const struct bench__hist_params *h)
{
    json_t *o = json_object();
    json_object_set_new(o, "method", json_string("e-divisive-means-t-test"));
    json_object_set_new(o, "window", count(h->cp.window));
    json_object_set_new(o, "min_segment", count(h->cp.min_segment));
    json_object_set_new(o, "max_p", num(h->cp.max_p));
    json_object_set_new(o, "first_p", num(h->cp.first_p));
    json_object_set_new(o, "ci_level", num(h->cp.ci_level));
    json_object_set_new(o, "unmistakable_k", num(h->unmistakable_k));
    json_object_set_new(o, "unmistakable_k_own", num(h->unmistakable_k_own));
    json_object_set_new(o, "unmistakable_min_n", count(h->unmistakable_min_n));
    json_object_set_new(o, "unmistakable_min_runs", count(h->unmistakable_min_runs));
    json_object_set_new(o, "tail_p", num(h->tail_p));
    json_object_set_new(o, "tail_open", count(h->tail_open));
    json_object_set_new(o, "tail_hold", count(h->tail_hold));
    return o;
}

json_t *report_json_head(const char *results_dir, const struct report_options *opt,
                         const struct report_selection *sel, const struct report_rows *rows)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("libbench-report/2"));
    json_object_set_new(doc, "results", json_string(results_dir));

    json_t *s = json_object();
    json_object_set_new(s, "target", run_ref(sel->target, sel->target_subject, true));
    json_object_set_new(s, "baseline", run_ref(sel->baseline, sel->baseline_subject, true));
    json_object_set_new(s, "reference", run_ref(sel->reference, sel->reference_subject, true));
    json_object_set_new(s, "mode", json_string(sel->mode));
    json_object_set_new(s, "cross_host", json_boolean(opt->cross_host));
    json_object_set_new(s, "since", str(opt->since));
    json_object_set_new(doc, "selection", s);

    json_t *t = json_object();
    json_object_set_new(t, "in_process", thresholds(&opt->thresholds, 0));
    json_object_set_new(t, "whole_process", thresholds(&opt->thresholds, 1));
    json_object_set_new(t, "fail_pp", num(opt->thresholds.fail_pp));
    json_object_set_new(t, "min_n_p90", count(opt->thresholds.min_n_p90));
    json_object_set_new(t, "min_n_p99", count(opt->thresholds.min_n_p99));
    json_object_set_new(t, "history", engine(&opt->hist));
    json_object_set_new(doc, "thresholds", t);

    static const enum bench__result_state states[] = {
        BENCH__RESULT_FAIL,      BENCH__RESULT_UNMEASURED, BENCH__RESULT_REGRESSION,
        BENCH__RESULT_GUARDRAIL, BENCH__RESULT_WATCH,      BENCH__RESULT_OK};
    json_t *sum = json_object();
    size_t changes = 0;
    for (size_t i = 0; i < rows->n; i++)
        changes += rows->hist[i].n_cps;
    for (size_t k = 0; k < sizeof states / sizeof states[0]; k++) {
        size_t c = 0;
        for (size_t i = 0; i < rows->n; i++)
            c += rows->rows[i].state == states[k];
        json_object_set_new(sum, bench__result_state_name(states[k]), count(c));
    }
    json_object_set_new(sum, "rows", count(rows->n));
    json_object_set_new(sum, "changes", count(changes));
    json_object_set_new(doc, "summary", sum);
    return doc;
}

/* ---- one row ---- */

static json_t *side(const struct bench__result_aggregate *a)
{
    if (!a)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "bench_id", json_string(a->bench_id));
    json_object_set_new(o, "p50_ns", num(a->p50));
    json_object_set_new(o, "p90_ns", num(a->p90));
    json_object_set_new(o, "p99_ns", num(a->p99));
    json_object_set_new(o, "min_ns", num(a->min));
    json_object_set_new(o, "max_ns", num(a->max));
    json_object_set_new(o, "mad_ns", num(a->mad));
    json_object_set_new(o, "mad_n", count(a->mad_n));
    json_object_set_new(o, "contention", num(a->contention));
    json_object_set_new(o, "sample_count", count(a->sample_count));
    json_object_set_new(o, "failure_count", count(a->failure_count));
    json_object_set_new(o, "skip_count", count(a->skip_count));
    json_object_set_new(o, "failure_rate", num(a->failure_rate));
    return o;
}

static json_t *triple(double p50, double p90, double p99)
{
    json_t *o = json_object();
    json_object_set_new(o, "p50", num(p50));
    json_object_set_new(o, "p90", num(p90));
    json_object_set_new(o, "p99", num(p99));
    return o;
}

static json_t *tokens(const char *list)
{
    json_t *a = json_array();
    const char *p = list;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        if (n)
            json_array_append_new(a, json_stringn(p, n));
        p += n;
        if (*p == ',')
            p++;
    }
    return a;
}

/* Which tail was judged, with its n and the n it needs (issue 28: a tail rule fires only with
 * its samples). */
static json_t *tail(bool judged, const char *reason, size_t min_n)
{
    json_t *o = json_object();
    json_object_set_new(o, "judged", json_boolean(judged));
    json_object_set_new(o, "min_n", count(min_n));
    json_object_set_new(o, "reason", judged ? json_null() : json_string(reason));
    return o;
}

static const struct results_run *run_at(const struct report_rows *r, const struct report_history *h,
                                        size_t i)
{
    return i < h->n ? report_series_run(&r->series, h->series[i]) : NULL;
}

/* The runs [first, end) of the series as {first, last, runs, median_ns}; null when empty. */
static json_t *range(const struct report_rows *r, const struct report_history *h, size_t first,
                     size_t end, double median)
{
    if (end <= first || end > h->n)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "first", json_string(run_at(r, h, first)->bench_id));
    json_object_set_new(o, "last", json_string(run_at(r, h, end - 1)->bench_id));
    json_object_set_new(o, "runs", count(end - first));
    json_object_set_new(o, "median_ns", num(median));
    return o;
}

static json_t *change(const struct report_rows *r, const struct report_history *h,
                      const struct bench__changepoint *cp, bool open)
{
    struct results_change c;
    report_change_of(&r->series, h->series, h->n, h->runs, cp, &c);
    json_t *o = json_object();
    json_object_set_new(o, "bench_id", json_string(c.bench_id));
    json_object_set_new(o, "timestamp_utc", json_string(c.timestamp_utc));
    json_object_set_new(o, "source_revision", str(c.source_revision));
    json_object_set_new(o, "sources", object_text(c.sources));
    json_object_set_new(o, "previous_bench_id", json_string(c.previous_bench_id));
    json_object_set_new(o, "runs_before", count(c.runs_before));
    json_object_set_new(o, "runs_after", count(c.runs_after));
    json_object_set_new(o, "median_before_ns", num(c.median_before_ns));
    json_object_set_new(o, "median_after_ns", num(c.median_after_ns));
    json_object_set_new(o, "size_rel", num(c.size_rel));
    json_object_set_new(o, "ci_low_rel", num(c.ci_low_rel));
    json_object_set_new(o, "ci_high_rel", num(c.ci_high_rel));
    json_object_set_new(o, "ci_level", num(c.ci_level));
    json_object_set_new(o, "p", num(c.p));
    json_object_set_new(o, "open", json_boolean(open));
    return o;
}

static json_t *history(const struct report_rows *r, const struct bench__result_row *row)
{
    const struct report_history *h = row->ctx;
    const struct bench__hist_verdict *v = &h->verdict;
    json_t *o = json_object(), *points = json_array(), *changes = json_array();
    for (size_t i = 0; i < h->n; i++) {
        const struct bench__result_aggregate *a = &r->series.aggs->aggs[h->series[i]];
        const struct results_run *run = run_at(r, h, i);
        json_t *p = json_object();
        json_object_set_new(p, "bench_id", json_string(a->bench_id));
        json_object_set_new(p, "timestamp_utc", json_string(run->timestamp_utc));
        json_object_set_new(p, "source_revision", str(run->source_revision));
        json_object_set_new(p, "p50_ns", num(a->p50));
        json_object_set_new(p, "p90_ns", num(a->p90));
        json_object_set_new(p, "sample_count", count(a->sample_count));
        json_object_set_new(p, "failure_count", count(a->failure_count));
        json_array_append_new(points, p);
    }
    bool open_state =
        h->judged && row->state == BENCH__RESULT_REGRESSION && v->state == BENCH__RESULT_REGRESSION;
    for (size_t i = 0; i < h->n_cps; i++)
        json_array_append_new(changes,
                              change(r, h, &h->cps[i], open_state && h->cps[i].index == v->since));
    json_object_set_new(o, "points", points);
    json_object_set_new(o, "changes", changes);
    json_object_set_new(o, "judged", json_boolean(h->judged));
    json_object_set_new(o, "state", json_string(bench__result_state_name(v->state)));
    json_object_set_new(o, "why", str(v->why));
    json_object_set_new(o, "since", run_ref(run_at(r, h, v->since), NULL, false));
    json_object_set_new(o, "reference", range(r, h, v->ref_start, v->ref_end, v->ref_median));
    json_object_set_new(o, "current", range(r, h, v->cur_start, h->n, v->cur_median));
    json_object_set_new(o, "size_rel",
                        num(v->ref_median > 0 ? v->cur_median / v->ref_median - 1 : NAN));
    json_object_set_new(o, "p", num(v->p));
    return o;
}

/* The target run's measurements of a cell: a lower bound over values, which the index gives in
 * (subject, profile, scenario, operation, run) order. */
static int value_cmp(const struct bench__result_measurement *m,
                     const struct bench__result_aggregate *a)
{
    int c;
    if ((c = strcmp(m->subject, a->subject)) || (c = strcmp(m->profile, a->profile)) ||
        (c = strcmp(m->scenario, a->scenario)))
        return c;
    return strcmp(m->operation, a->operation);
}

static size_t values_of(const struct results_list *values, const struct bench__result_aggregate *a,
                        size_t *first)
{
    size_t lo = 0, hi = values->n_values;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (value_cmp(&values->values[mid].m, a) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < values->n_values && value_cmp(&values->values[end].m, a) == 0)
        end++;
    *first = lo;
    return end - lo;
}

/* Each metric of the target run's lines: the median of its values over the repetitions, how many
 * there were, and whether any of them was an estimate (estimated_metrics: the `≈` mark). */
static json_t *metrics(const struct results_value *v, size_t n)
{
    json_t *all = json_object(), *est = json_object();
    for (size_t i = 0; i < n; i++) {
        if (v[i].m.returncode != 0)
            continue;
        json_t *m = v[i].metrics_json ? json_loads(v[i].metrics_json, 0, NULL) : NULL;
        json_t *e = v[i].estimated_json ? json_loads(v[i].estimated_json, 0, NULL) : NULL;
        const char *k;
        json_t *x;
        json_object_foreach(m, k, x)
        {
            json_t *list = json_object_get(all, k);
            if (!list)
                json_object_set_new(all, k, list = json_array());
            if (json_is_number(x) && isfinite(json_number_value(x)))
                json_array_append(list, x);
        }
        size_t j;
        json_t *name;
        json_array_foreach(e, j, name)
        {
            if (json_is_string(name))
                json_object_set_new(est, json_string_value(name), json_true());
        }
        json_decref(m);
        json_decref(e);
    }
    json_t *out = json_object();
    const char *k;
    json_t *list;
    json_object_foreach(all, k, list)
    {
        size_t c = json_array_size(list);
        double *vals = bench__xmalloc((c ? c : 1) * sizeof *vals);
        for (size_t i = 0; i < c; i++)
            vals[i] = json_number_value(json_array_get(list, i));
        json_t *o = json_object();
        json_object_set_new(o, "median", num(c ? bench__results_median(vals, c) : NAN));
        json_object_set_new(o, "n", count(c));
        json_object_set_new(o, "estimated", json_boolean(json_object_get(est, k) != NULL));
        json_object_set_new(out, k, o);
        free(vals);
    }
    json_decref(all);
    json_decref(est);
    return out;
}

json_t *report_json_row(const struct report_rows *r, size_t i, const struct results_list *values)
{
    const struct bench__result_row *row = &r->rows[i];
    const struct bench__result_aggregate *a = row->target;
    const struct report_history *h = row->ctx;
    json_t *o = json_object();
    json_object_set_new(o, "profile", json_string(a->profile));
    json_object_set_new(o, "scenario", json_string(a->scenario));
    json_object_set_new(o, "operation", json_string(a->operation));
    json_object_set_new(o, "subject", json_string(a->subject));
    json_object_set_new(o, "whole_process", json_boolean(a->whole_process));
    json_object_set_new(o, "state", json_string(bench__result_state_name(row->state)));
    json_object_set_new(o, "decided_by", str(row->decided_by));
    json_object_set_new(o, "why", tokens(row->why));
    json_object_set_new(o, "not_judged", tokens(row->not_judged));
    json_object_set_new(o, "target", side(row->target));
    json_object_set_new(o, "baseline", side(row->baseline));
    json_object_set_new(o, "reference", side(row->reference));
    json_object_set_new(o, "reference_level_ns", num(row->history_ref_p50));
    json_object_set_new(o, "delta_ns",
                        triple(row->delta_p50_ns, row->delta_p90_ns, row->delta_p99_ns));
    json_object_set_new(o, "slower_pct",
                        triple(row->slower_p50_pct, row->slower_p90_pct, row->slower_p99_pct));
    json_object_set_new(o, "severity", num(row->severity));
    json_t *tails = json_object();
    bool judged_any = row->baseline || row->reference;
    json_object_set_new(
        tails, "p90",
        tail(row->p90_judged, judged_any ? "p90_few_samples" : "nothing_to_compare", r->min_n_p90));
    json_object_set_new(
        tails, "p99",
        tail(row->p99_judged, judged_any ? "p99_few_samples" : "nothing_to_compare", r->min_n_p99));
    json_object_set_new(o, "tails", tails);
    json_object_set_new(o, "history", history(r, row));
    json_object_set_new(
        o, "since",
        h->judged && (row->state == BENCH__RESULT_REGRESSION || row->state == BENCH__RESULT_WATCH)
            ? run_ref(run_at(r, h, h->verdict.since), NULL, false)
            : json_null());
    size_t first = 0, n = values ? values_of(values, a, &first) : 0;
    json_t *vals = json_array();
    double *v = bench__xmalloc((n ? n : 1) * sizeof *v);
    size_t nv = 0;
    for (size_t k = 0; k < n; k++) {
        const struct bench__result_measurement *m = &values->values[first + k].m;
        if (m->returncode == 0 && isfinite(m->value_ns))
            v[nv++] = m->value_ns;
    }
    bench__results_sort_values(v, nv);
    for (size_t k = 0; k < nv; k++)
        json_array_append_new(vals, json_real(v[k]));
    free(v);
    json_object_set_new(o, "values_ns", vals);
    json_object_set_new(o, "metrics", n ? metrics(values->values + first, n) : json_object());
    return o;
}

json_t *report_json_metrics(const struct results_list *values,
                            const struct bench__result_aggregate *a)
{
    size_t first = 0, n = values ? values_of(values, a, &first) : 0;
    return n ? metrics(values->values + first, n) : json_object();
}

/* ---- the text ---- */

static void put(struct bench__text *t, const char *s, size_t n)
{
    if (bench__text_append(s, n, t) != 0)
        bench__out_of_memory();
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Hand the text so far to drain once it holds a mebibyte (every piece when drain is NULL: none);
 * after drain's first error the text is dropped unwritten, and that error kept. */
static void drain_some(struct bench__text *out, size_t at_least,
                       int (*drain)(void *ctx, const char *data, size_t len), void *ctx, int *e)
{
    if (!drain || out->len < at_least)
        return;
    if (*e == 0)
        *e = drain(ctx, out->data, out->len);
    out->len = 0;
}

int report_json_text(const json_t *head, size_t n_rows, json_t *(*row)(void *ctx, size_t i),
                     void (*each)(void *ctx, json_t *row), void *ctx, struct bench__text *out,
                     int (*drain)(void *ctx, const char *data, size_t len), void *drain_ctx)
{
    size_t nk = json_object_size(head) + 1, k = 0;
    const char **keys = bench__xmalloc(nk * sizeof *keys);
    const char *key;
    json_t *value;
    int e = 0;
    json_object_foreach((json_t *)head, key, value)
    {
        keys[k++] = key;
    }
    keys[k++] = "rows";
    qsort(keys, k, sizeof *keys, key_cmp);
    put(out, "{\n", 2);
    for (size_t i = 0; i < k; i++) {
        put(out, "  \"", 3);
        put(out, keys[i], strlen(keys[i])); /* the document's own keys: nothing to escape */
        put(out, "\": ", 3);
        if (!strcmp(keys[i], "rows")) {
            put(out, "[", 1);
            for (size_t r = 0; r < n_rows; r++) {
                json_t *o = row(ctx, r);
                put(out, r ? ",\n    " : "\n    ", r ? 6 : 5);
                tool_json_put_value_sorted(out, o); /* tool_json_dump_sorted_line's bytes */
                if (each)
                    each(ctx, o);
                json_decref(o);
                drain_some(out, (size_t)1 << 20, drain, drain_ctx, &e);
            }
            put(out, n_rows ? "\n  ]" : "]", n_rows ? 4 : 1);
        } else {
            struct bench__text v = {0};
            const json_t *x = json_object_get(head, keys[i]);
            if (json_is_object(x) || json_is_array(x)) {
                tool_json_dump_sorted(x, &v);
            } else { /* a string or a number of the head: no real to shorten */
                char *text = json_dumps(x, JSON_ENCODE_ANY);
                if (!text)
                    bench__out_of_memory();
                put(&v, text, strlen(text));
                put(&v, "\n", 1);
                free(text);
            }
            /* nested two spaces deeper: a newline only ever ends a line of the dump (a string
             * holds its newlines escaped) */
            for (size_t c = 0; c + 1 < v.len; c++) {
                put(out, v.data + c, 1);
                if (v.data[c] == '\n')
                    put(out, "  ", 2);
            }
            free(v.data);
        }
        put(out, i + 1 < k ? ",\n" : "\n", i + 1 < k ? 2 : 1);
    }
    put(out, "}\n", 2);
    free(keys);
    drain_some(out, 0, drain, drain_ctx, &e);
    return e;
}
