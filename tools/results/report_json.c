/* SPDX-License-Identifier: MIT */
/* report_json.c: owns the report document of `libbench report --json` (docs/reference/results.md,
 * "The report document"), which the HTML dashboard reads: the selection, the thresholds, the
 * rows in dashboard order, each row's history and the target run's values. Unmeasured is null,
 * never 0. It computes no statistic and writes no file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_tool.h"
#include "util/alloc.h"

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *run_ref(const struct results_run *r, const char *subject)
{
    if (!r)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "bench_id", json_string(r->bench_id));
    json_object_set_new(o, "subject", str(subject));
    json_object_set_new(o, "host_id", json_string(r->host_id));
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
    json_object_set_new(o, "sample_count", json_integer((json_int_t)a->sample_count));
    json_object_set_new(o, "failure_count", json_integer((json_int_t)a->failure_count));
    json_object_set_new(o, "skip_count", json_integer((json_int_t)a->skip_count));
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

static json_t *why_list(const char *why)
{
    json_t *a = json_array();
    const char *p = why;
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

static void identity(json_t *o, const struct bench__result_aggregate *a)
{
    json_object_set_new(o, "profile", json_string(a->profile));
    json_object_set_new(o, "scenario", json_string(a->scenario));
    json_object_set_new(o, "operation", json_string(a->operation));
    json_object_set_new(o, "subject", json_string(a->subject));
}

json_t *report_json(const char *results_dir, const struct report_options *opt,
                    const struct report_selection *sel, const struct bench__result_row *rows,
                    size_t n_rows, const struct results_list *runs, const struct results_list *aggs,
                    const struct results_list *values)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("libbench-report/1"));
    json_object_set_new(doc, "results", json_string(results_dir));

    json_t *s = json_object();
    json_object_set_new(s, "target", run_ref(sel->target, sel->target_subject));
    json_object_set_new(s, "baseline", run_ref(sel->baseline, sel->baseline_subject));
    json_object_set_new(s, "reference", run_ref(sel->reference, sel->reference_subject));
    json_object_set_new(s, "mode", json_string(sel->mode));
    json_object_set_new(s, "cross_host", json_boolean(opt->cross_host));
    json_object_set_new(doc, "selection", s);

    json_t *t = json_object();
    json_object_set_new(t, "in_process", thresholds(&opt->thresholds, 0));
    json_object_set_new(t, "whole_process", thresholds(&opt->thresholds, 1));
    json_object_set_new(t, "fail_pp", num(opt->thresholds.fail_pp));
    json_object_set_new(doc, "thresholds", t);

    json_t *jrows = json_array(), *history = json_array(), *latest = json_array();
    size_t target_index = report_run_index(runs, sel->target->bench_id);
    for (size_t i = 0; i < n_rows; i++) {
        const struct bench__result_row *r = &rows[i];
        const struct bench__result_aggregate *a = r->target;
        json_t *o = json_object();
        identity(o, a);
        json_object_set_new(o, "whole_process", json_boolean(a->whole_process));
        json_object_set_new(o, "state", json_string(bench__result_state_name(r->state)));
        json_object_set_new(o, "decided_by", str(r->decided_by));
        json_object_set_new(o, "why", why_list(r->why));
        json_object_set_new(o, "target", side(r->target));
        json_object_set_new(o, "baseline", side(r->baseline));
        json_object_set_new(o, "reference", side(r->reference));
        json_object_set_new(o, "delta_ns",
                            triple(r->delta_p50_ns, r->delta_p90_ns, r->delta_p99_ns));
        json_object_set_new(o, "slower_pct",
                            triple(r->slower_p50_pct, r->slower_p90_pct, r->slower_p99_pct));
        json_object_set_new(o, "severity", num(r->severity));
        json_array_append_new(jrows, o);

        /* the history of the row's cell: its runs up to the target, on the target's host */
        json_t *h = json_object(), *points = json_array();
        identity(h, a);
        for (size_t k = 0; k <= target_index && k < runs->n_runs; k++) {
            const struct results_run *run = &runs->runs[k];
            if (!opt->cross_host && strcmp(run->host_id, sel->target->host_id) != 0)
                continue;
            const struct bench__result_aggregate *p =
                report_find(aggs, run->bench_id, a->subject, a);
            if (!p)
                continue;
            json_t *pt = json_object();
            json_object_set_new(pt, "bench_id", json_string(run->bench_id));
            json_object_set_new(pt, "timestamp_utc", json_string(run->timestamp_utc));
            json_object_set_new(pt, "p50_ns", num(p->p50));
            json_object_set_new(pt, "p90_ns", num(p->p90));
            json_object_set_new(pt, "sample_count", json_integer((json_int_t)p->sample_count));
            json_object_set_new(pt, "failure_count", json_integer((json_int_t)p->failure_count));
            json_array_append_new(points, pt);
        }
        json_object_set_new(h, "points", points);
        json_array_append_new(history, h);

        /* the target run's successful values of the row, ascending */
        double *v = bench__xcalloc(values->n_values + 1, sizeof *v);
        size_t nv = 0;
        for (size_t k = 0; k < values->n_values; k++) {
            const struct bench__result_measurement *m = &values->values[k].m;
            if (m->returncode == 0 && isfinite(m->value_ns) && !strcmp(m->subject, a->subject) &&
                !strcmp(m->profile, a->profile) && !strcmp(m->scenario, a->scenario) &&
                !strcmp(m->operation, a->operation))
                v[nv++] = m->value_ns;
        }
        bench__results_sort_values(v, nv);
        json_t *l = json_object(), *vals = json_array();
        identity(l, a);
        json_object_set_new(l, "bench_id", json_string(a->bench_id));
        for (size_t k = 0; k < nv; k++)
            json_array_append_new(vals, json_real(v[k]));
        json_object_set_new(l, "values_ns", vals);
        json_array_append_new(latest, l);
        free(v);
    }
    json_object_set_new(doc, "rows", jrows);
    json_object_set_new(doc, "history", history);
    json_object_set_new(doc, "latest", latest);
    return doc;
}
