/* SPDX-License-Identifier: MIT */
/* report_select.c: owns which recorded runs `libbench report` compares and how each row is
 * judged: by default the latest run against its history (lib/stats/changepoint.h: the last
 * stable segment, "regressed since <run>"), against the segment of a chosen run
 * (--baseline-run), against the run before it (--mode=latest-vs-previous, the rule before issue
 * 28), or the latest runs of two subjects; with an optional guardrail subject. Judged and sorted
 * by lib/stats. It reads nothing itself: the runs and aggregates come from the index. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_tool.h"
#include "common/json.h"
#include "util/alloc.h"

void report_options_default(struct report_options *o)
{
    memset(o, 0, sizeof *o);
    bench__result_thresholds_default(&o->thresholds);
    bench__hist_defaults(&o->hist);
    o->mode = REPORT_MODE_SEGMENTS;
}

size_t report_run_index(const struct results_list *runs, const char *bench_id)
{
    for (size_t i = 0; i < runs->n_runs; i++)
        if (!strcmp(runs->runs[i].bench_id, bench_id))
            return i;
    return (size_t)-1;
}

static int agg_order(const struct bench__result_aggregate *a,
                     const struct bench__result_aggregate *b)
{
    int c;
    if ((c = strcmp(a->bench_id, b->bench_id)) || (c = strcmp(a->subject, b->subject)) ||
        (c = strcmp(a->profile, b->profile)) || (c = strcmp(a->scenario, b->scenario)))
        return c;
    return strcmp(a->operation, b->operation);
}

static int agg_cmp(const void *a, const void *b)
{
    return agg_order(a, b);
}

const struct bench__result_aggregate *report_find(const struct results_list *aggs,
                                                  const char *bench_id, const char *subject,
                                                  const struct bench__result_aggregate *cell)
{
    struct bench__result_aggregate key = *cell;
    key.bench_id = bench_id;
    key.subject = subject;
    return bsearch(&key, aggs->aggs, aggs->n_aggs, sizeof *aggs->aggs, agg_cmp);
}

/* Whether a run has an aggregate of the subject: one bsearch on (bench_id, subject). */
static int run_subject_cmp(const void *k, const void *e)
{
    const struct bench__result_aggregate *key = k, *a = e;
    int c = strcmp(key->bench_id, a->bench_id);
    return c ? c : strcmp(key->subject, a->subject);
}

static bool run_has_subject(const struct results_list *aggs, const char *bench_id,
                            const char *subject)
{
    struct bench__result_aggregate key = {.bench_id = bench_id, .subject = subject};
    return bsearch(&key, aggs->aggs, aggs->n_aggs, sizeof *aggs->aggs, run_subject_cmp) != NULL;
}

/* The latest run in [first, before) (an index; n_runs for "any") on the host of `host` (unless
 * cross_host) that has `subject` (NULL: any run). */
static const struct results_run *latest(const struct results_list *runs,
                                        const struct results_list *aggs, size_t first,
                                        size_t before, const struct results_run *host,
                                        bool cross_host, const char *subject)
{
    for (size_t i = before; i-- > first;) {
        const struct results_run *r = &runs->runs[i];
        if (host && !cross_host && strcmp(r->host_id, host->host_id) != 0)
            continue;
        if (subject && !run_has_subject(aggs, r->bench_id, subject))
            continue;
        return r;
    }
    return NULL;
}

/* The first run recorded at or after --since (a prefix of an RFC 3339 UTC time compares as
 * text: "2026-11-05" is before "2026-11-05T06:00:00Z"). */
static size_t first_run_since(const struct results_list *runs, const char *since)
{
    size_t i = 0;
    while (since && i < runs->n_runs && strcmp(runs->runs[i].timestamp_utc, since) < 0)
        i++;
    return i;
}

static int pick_runs(const struct results_list *runs, const struct results_list *aggs,
                     const struct report_options *opt, size_t *target_run,
                     struct report_selection *sel, char *err, size_t err_size)
{
    size_t t = *target_run, first = sel->first_run;
    if (first >= runs->n_runs)
        return tool_json_error(err, err_size, "no run recorded since %s", opt->since);
    if (opt->target_subject) {
        if (t == (size_t)-1) {
            sel->target = latest(runs, aggs, first, runs->n_runs, NULL, true, opt->target_subject);
            if (!sel->target)
                return tool_json_error(err, err_size, "no run recorded of subject '%s'%s%s",
                                       opt->target_subject, opt->since ? " since " : "",
                                       opt->since ? opt->since : "");
            t = (size_t)(sel->target - runs->runs);
        }
        sel->target = &runs->runs[t];
        sel->target_subject = opt->target_subject;
    } else {
        if (t == (size_t)-1)
            t = runs->n_runs - 1;
        sel->target = &runs->runs[t];
    }
    const char *own = opt->target_subject;
    if (opt->baseline_subject) {
        sel->mode = "subjects";
        /* the latest run of the baseline subject, before or after the target's */
        sel->baseline = latest(runs, aggs, first, runs->n_runs, sel->target, opt->cross_host,
                               opt->baseline_subject);
        sel->baseline_subject = opt->baseline_subject;
    } else if (opt->baseline_run) {
        sel->mode = "baseline_run";
        size_t b = report_run_index(runs, opt->baseline_run);
        if (b == (size_t)-1 || b < first || b > t)
            return tool_json_error(err, err_size,
                                   "--baseline-run %s: no such run recorded%s before the target",
                                   opt->baseline_run, opt->since ? " since --since and" : "");
        if (!opt->cross_host && strcmp(runs->runs[b].host_id, sel->target->host_id) != 0)
            return tool_json_error(err, err_size,
                                   "--baseline-run %s: a run of another host (see --cross-host)",
                                   opt->baseline_run);
        sel->baseline = &runs->runs[b];
        sel->baseline_subject = own;
    } else {
        sel->mode = opt->mode == REPORT_MODE_LATEST_VS_PREVIOUS ? "latest_vs_previous" : "segments";
        sel->baseline = latest(runs, aggs, first, t, sel->target, opt->cross_host, own);
        sel->baseline_subject = own;
    }
    if (opt->guardrail_subject) {
        /* comparing subjects: the guardrail's latest run; a run against its history: the
         * guardrail's latest run up to that run (an old run is judged as it was then) */
        size_t upto = opt->baseline_subject ? runs->n_runs : t + 1;
        sel->reference =
            latest(runs, aggs, first, upto, sel->target, opt->cross_host, opt->guardrail_subject);
        sel->reference_subject = opt->guardrail_subject;
    }
    *target_run = t;
    return 0;
}

/* The row's series and the engine's verdict on it; in modes segments and baseline_run the
 * verdict decides, and the row's point of comparison (failure rate, tails) is the last run of
 * the segment it was judged against. */
static void judge_history(const struct report_options *opt, const struct report_selection *sel,
                          size_t target_run, struct bench__result_row *r, struct report_history *h,
                          const struct report_series *s)
{
    const struct bench__result_aggregate *a = r->target;
    h->n = report_series_of(s, a, sel->first_run, target_run, &h->series);
    h->runs = bench__xmalloc((h->n ? h->n : 1) * sizeof *h->runs);
    h->cps = bench__xmalloc((h->n ? h->n : 1) * sizeof *h->cps);
    report_series_cp_runs(s, h->series, h->n, h->runs);
    struct bench__hist_params p = opt->hist;
    p.threshold = opt->thresholds.baseline[a->whole_process ? 1 : 0];
    bool by_run = !strcmp(sel->mode, "baseline_run");
    size_t base = SIZE_MAX;
    for (size_t i = 0; by_run && i < h->n; i++)
        if (!strcmp(s->aggs->aggs[h->series[i]].bench_id, sel->baseline->bench_id))
            base = i;
    bool no_base = by_run && (base == SIZE_MAX || isnan(h->runs[base].value));
    enum bench__hist_mode mode =
        by_run && !no_base ? BENCH__HIST_BASELINE_RUN : BENCH__HIST_SEGMENTS;
    if (bench__history_judge(h->runs, h->n, mode, base, &p, &h->verdict, h->cps, &h->n_cps) != 0)
        h->verdict = (struct bench__hist_verdict){.state = BENCH__RESULT_UNMEASURED,
                                                  .why = "no_history",
                                                  .since = SIZE_MAX,
                                                  .ref_median = NAN,
                                                  .cur_median = NAN,
                                                  .delta_ns = NAN,
                                                  .slower_pct = NAN,
                                                  .p = NAN};
    if (no_base)
        h->verdict = (struct bench__hist_verdict){.state = BENCH__RESULT_UNMEASURED,
                                                  .why = "baseline_run_has_no_value",
                                                  .since = SIZE_MAX,
                                                  .ref_median = NAN,
                                                  .cur_median = NAN,
                                                  .delta_ns = NAN,
                                                  .slower_pct = NAN,
                                                  .p = NAN,
                                                  .n_changes = h->n_cps};
    if (!strcmp(sel->mode, "segments") || by_run) {
        const struct bench__hist_verdict *v = &h->verdict;
        /* the last run of the reference before the target (a steady segment holds it too) */
        size_t end = v->ref_end > v->ref_start && v->ref_end < h->n ? v->ref_end : h->n - 1;
        r->baseline = h->n >= 2 && end >= 1 ? &s->aggs->aggs[h->series[end - 1]] : NULL;
        h->judged = true;
    }
}

int report_select(const struct results_list *runs, const struct results_list *aggs,
                  const struct report_options *opt, size_t target_run, struct report_selection *sel,
                  struct report_rows *out, char *err, size_t err_size)
{
    memset(sel, 0, sizeof *sel);
    memset(out, 0, sizeof *out);
    if (runs->n_runs == 0)
        return tool_json_error(err, err_size, "no run recorded yet (see libbench record)");
    sel->first_run = first_run_since(runs, opt->since);
    size_t t = target_run;
    if (pick_runs(runs, aggs, opt, &t, sel, err, err_size) != 0)
        return -1;
    if (!opt->without_history)
        report_series_init(&out->series, runs, aggs, opt->cross_host);

    size_t cap = 0, n = 0, hcap = 0;
    struct bench__result_row *rows = NULL;
    struct report_history *hist = NULL;
    for (size_t i = 0; i < aggs->n_aggs; i++) {
        const struct bench__result_aggregate *a = &aggs->aggs[i];
        if (strcmp(a->bench_id, sel->target->bench_id) != 0)
            continue;
        if (sel->target_subject && strcmp(a->subject, sel->target_subject) != 0)
            continue;
        if (!sel->target_subject && opt->guardrail_subject &&
            !strcmp(a->subject, opt->guardrail_subject))
            continue; /* the guardrail is the reference, not a row of its own */
        rows = bench__grow(rows, &cap, n + 1, sizeof *rows);
        hist = bench__grow(hist, &hcap, n + 1, sizeof *hist);
        struct bench__result_row *r = &rows[n];
        struct report_history *h = &hist[n++];
        memset(r, 0, sizeof *r);
        memset(h, 0, sizeof *h);
        r->target = a;
        if (sel->baseline)
            r->baseline =
                report_find(aggs, sel->baseline->bench_id,
                            sel->baseline_subject ? sel->baseline_subject : a->subject, a);
        if (sel->reference)
            r->reference = report_find(aggs, sel->reference->bench_id, sel->reference_subject, a);
        if (!opt->without_history)
            judge_history(opt, sel, t, r, h, &out->series);
    }
    /* the pointers to the histories are taken once the array has stopped moving */
    for (size_t i = 0; i < n; i++) {
        rows[i].ctx = &hist[i];
        if (hist[i].judged)
            bench__result_row_judge_history(&rows[i], &hist[i].verdict, &opt->thresholds);
        else
            bench__result_row_judge(&rows[i], &opt->thresholds);
    }
    bench__result_rows_sort(rows, n, &opt->priorities);
    out->rows = rows;
    out->n = n;
    out->hist = hist;
    out->min_n_p90 = opt->thresholds.min_n_p90;
    out->min_n_p99 = opt->thresholds.min_n_p99;
    return 0;
}

void report_rows_free(struct report_rows *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->hist[i].runs);
        free(r->hist[i].cps);
    }
    free(r->hist);
    free(r->rows);
    if (r->series.order)
        report_series_free(&r->series);
    memset(r, 0, sizeof *r);
}
