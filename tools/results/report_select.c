/* SPDX-License-Identifier: MIT */
/* report_select.c: owns which recorded runs `libbench report` compares (the latest run against
 * the run before it on the same host, or the latest runs of two subjects, with an optional
 * guardrail subject) and the rows that come of it, judged and sorted by lib/stats/results.h. It
 * reads nothing itself: the runs and aggregates come from the index. */
#include <stdlib.h>
#include <string.h>

#include "report_tool.h"
#include "common/json.h"
#include "util/alloc.h"

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

static bool run_has_subject(const struct results_list *aggs, const char *bench_id,
                            const char *subject)
{
    for (size_t i = 0; i < aggs->n_aggs; i++)
        if (!strcmp(aggs->aggs[i].bench_id, bench_id) && !strcmp(aggs->aggs[i].subject, subject))
            return true;
    return false;
}

/* The latest run before `before` (an index; n_runs for "any") on the host of `host` (unless
 * cross_host) that has `subject` (NULL: any run). */
static const struct results_run *latest(const struct results_list *runs,
                                        const struct results_list *aggs, size_t before,
                                        const struct results_run *host, bool cross_host,
                                        const char *subject)
{
    for (size_t i = before; i-- > 0;) {
        const struct results_run *r = &runs->runs[i];
        if (host && !cross_host && strcmp(r->host_id, host->host_id) != 0)
            continue;
        if (subject && !run_has_subject(aggs, r->bench_id, subject))
            continue;
        return r;
    }
    return NULL;
}

int report_select(const struct results_list *runs, const struct results_list *aggs,
                  const struct report_options *opt, size_t target_run, struct report_selection *sel,
                  struct bench__result_row **rows_out, size_t *n_rows, char *err, size_t err_size)
{
    memset(sel, 0, sizeof *sel);
    *rows_out = NULL;
    *n_rows = 0;
    if (runs->n_runs == 0)
        return tool_json_error(err, err_size, "no run recorded yet (see libbench record)");
    size_t t = target_run;
    if (opt->target_subject) {
        sel->mode = "subjects";
        if (t == (size_t)-1) {
            sel->target = latest(runs, aggs, runs->n_runs, NULL, true, opt->target_subject);
            if (!sel->target)
                return tool_json_error(err, err_size, "no run recorded of subject '%s'",
                                       opt->target_subject);
            t = (size_t)(sel->target - runs->runs);
        }
        sel->target = &runs->runs[t];
        sel->target_subject = opt->target_subject;
        if (opt->baseline_subject) {
            /* the latest run of the baseline subject, before or after the target's */
            sel->baseline = latest(runs, aggs, runs->n_runs, sel->target, opt->cross_host,
                                   opt->baseline_subject);
            sel->baseline_subject = opt->baseline_subject;
        } else {
            sel->baseline =
                latest(runs, aggs, t, sel->target, opt->cross_host, opt->target_subject);
            sel->baseline_subject = opt->target_subject;
        }
    } else {
        sel->mode = "latest_vs_previous";
        if (t == (size_t)-1)
            t = runs->n_runs - 1;
        sel->target = &runs->runs[t];
        sel->baseline = latest(runs, aggs, t, sel->target, opt->cross_host, NULL);
    }
    if (opt->guardrail_subject) {
        /* comparing subjects: the guardrail's latest run; a run against its predecessor: the
         * guardrail's latest run up to that run (an old run is judged as it was then) */
        size_t upto = opt->target_subject ? runs->n_runs : t + 1;
        sel->reference =
            latest(runs, aggs, upto, sel->target, opt->cross_host, opt->guardrail_subject);
        sel->reference_subject = opt->guardrail_subject;
    }

    size_t cap = 0, n = 0;
    struct bench__result_row *rows = NULL;
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
        struct bench__result_row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->target = a;
        if (sel->baseline)
            r->baseline =
                report_find(aggs, sel->baseline->bench_id,
                            sel->baseline_subject ? sel->baseline_subject : a->subject, a);
        if (sel->reference)
            r->reference = report_find(aggs, sel->reference->bench_id, sel->reference_subject, a);
        bench__result_row_judge(r, &opt->thresholds);
    }
    bench__result_rows_sort(rows, n, &opt->priorities);
    *rows_out = rows;
    *n_rows = n;
    return 0;
}
