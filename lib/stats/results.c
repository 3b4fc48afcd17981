/* SPDX-License-Identifier: MIT */
/* results.c: owns the statistics of the results history: the aggregate of a recorded cell
 * (median, nearest-rank p90/p99, min, max, counts), the default thresholds, a row's state and
 * its deltas against the comparison that decided it, and the dashboard's deterministic sort.
 * Pure: no I/O, no global state, no mean; an unmeasured value stays NaN, never 0. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <bench/errors.h>

#include "model/summary.h"
#include "util/alloc.h"
#include "changepoint.h"
#include "results.h"

/* ---- aggregation ----------------------------------------------------------------------- */

static int str_cmp(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int group_cmp(const struct bench__result_measurement *a,
                     const struct bench__result_measurement *b)
{
    int c;
    if ((c = str_cmp(a->bench_id, b->bench_id)) != 0)
        return c;
    if ((c = str_cmp(a->subject, b->subject)) != 0)
        return c;
    if ((c = str_cmp(a->profile, b->profile)) != 0)
        return c;
    if ((c = str_cmp(a->scenario, b->scenario)) != 0)
        return c;
    return str_cmp(a->operation, b->operation);
}

static int ptr_group_cmp(const void *pa, const void *pb)
{
    const struct bench__result_measurement *a =
        *(const struct bench__result_measurement *const *)pa;
    const struct bench__result_measurement *b =
        *(const struct bench__result_measurement *const *)pb;
    int c = group_cmp(a, b);
    if (c)
        return c;
    /* keep the input order inside a group, so "the first measurement" is well defined */
    return (a > b) - (a < b);
}

/* The 1-based nearest rank of percentile pct among n sorted values: ceil(pct·n/100) computed in
 * integers, so no float rounding can move it (0.07·100 is 7.000000000000001 in binary floating
 * point, and its ceil 8), clamped to [1, n]. */
static size_t nearest_rank(unsigned pct, size_t n)
{
    size_t r = ((size_t)pct * n + 99) / 100;
    if (r < 1)
        r = 1;
    if (r > n)
        r = n;
    return r;
}

static void aggregate_group(const struct bench__result_measurement *const *g, size_t len,
                            double *scratch, struct bench__result_aggregate *a)
{
    const struct bench__result_measurement *first = g[0];
    *a = (struct bench__result_aggregate){
        .bench_id = first->bench_id,
        .subject = first->subject,
        .profile = first->profile,
        .scenario = first->scenario,
        .operation = first->operation,
        .host_id = first->host_id,
        .whole_process = first->whole_process,
        .total_count = len,
    };
    size_t n = 0;
    const struct bench__result_measurement *only = NULL;
    a->contention = NAN;
    for (size_t i = 0; i < len; i++) {
        if (g[i]->returncode == 0 && isfinite(g[i]->value_ns)) {
            scratch[n++] = g[i]->value_ns;
            only = g[i];
            double c = g[i]->contention;
            if (g[i]->contention_known && isfinite(c) && !(c <= a->contention))
                a->contention = c; /* the largest; the first known one replaces NaN */
        } else if (g[i]->returncode == BENCH__RESULT_SKIP) {
            a->skip_count++;
        }
    }
    a->sample_count = n;
    /* a skip counts as a failure too (docs/reference/results.md, "Aggregates"); skip_count says
     * how many of the failures were skips */
    a->failure_count = len - n;
    a->failure_rate = (double)a->failure_count / (double)len;
    if (n == 0) {
        /* no success: every latency figure is unmeasured, the failure rate carries the signal */
        a->p50 = a->p90 = a->p99 = a->min = a->max = a->mad = NAN;
        return;
    }
    bench__sort_doubles(scratch, n); /* finite values only: no NaN to order */
    a->p50 = bench__median_sorted(scratch, n);
    a->p90 = scratch[nearest_rank(90, n) - 1];
    a->p99 = scratch[nearest_rank(99, n) - 1];
    a->min = scratch[0];
    a->max = scratch[n - 1];
    if (n >= 2) {
        a->mad = bench__summarize(scratch, n).mad; /* sorted already: the same values */
        a->mad_n = n;
    } else if (only->row_samples > 0 && isfinite(only->row_mad_ns) && only->row_mad_ns >= 0) {
        a->mad = only->row_mad_ns; /* one repetition: the dispersion of its own samples */
        a->mad_n = only->row_samples;
    } else {
        a->mad = NAN;
    }
}

int bench__results_aggregate(const struct bench__result_measurement *m, size_t n,
                             struct bench__result_aggregate **out, size_t *n_out)
{
    if (!out || !n_out || (n && !m))
        return BENCH_EINVAL;
    *out = NULL;
    *n_out = 0;
    if (n == 0)
        return 0;
    const struct bench__result_measurement **order = bench__xmalloc(n * sizeof *order);
    double *scratch = bench__xmalloc(n * sizeof *scratch);
    for (size_t i = 0; i < n; i++)
        order[i] = &m[i];
    qsort(order, n, sizeof *order, ptr_group_cmp);
    size_t groups = 1;
    for (size_t i = 1; i < n; i++)
        groups += group_cmp(order[i - 1], order[i]) != 0;
    struct bench__result_aggregate *aggs = bench__xmalloc(groups * sizeof *aggs);
    size_t k = 0;
    for (size_t start = 0; start < n;) {
        size_t end = start + 1;
        while (end < n && group_cmp(order[start], order[end]) == 0)
            end++;
        aggregate_group(order + start, end - start, scratch, &aggs[k++]);
        start = end;
    }
    free(order);
    free(scratch);
    *out = aggs;
    *n_out = groups;
    return 0;
}

/* ---- states and thresholds ------------------------------------------------------------- */

const char *bench__result_state_name(enum bench__result_state state)
{
    switch (state) {
    case BENCH__RESULT_FAIL: return "fail";
    case BENCH__RESULT_UNMEASURED: return "unmeasured";
    case BENCH__RESULT_REGRESSION: return "regression";
    case BENCH__RESULT_GUARDRAIL: return "guardrail";
    case BENCH__RESULT_WATCH: return "watch";
    case BENCH__RESULT_OK: return "ok";
    }
    return "unknown";
}

#define MS 1e6 /* ns */

void bench__result_thresholds_default(struct bench__result_thresholds *t)
{
    /* Whole-process rows ([1]): 10%/5 ms, 25%/10 ms, 50%/50 ms (docs/reference/results.md, "Row
     * states and thresholds"). A process run is milliseconds long and
     * its spread (scheduling, page cache, process start) is milliseconds wide, so a relative
     * change needs a few ms to mean something.
     * In-process rows ([0]): the same percentages, with minimums scaled to what a per-iteration
     * figure resolves. Those figures are medians of batched samples, so they resolve well under
     * a nanosecond, and 1 ns (a few cycles) is the smallest per-call change that is still a
     * change in code rather than in rounding; the reference and tail minimums keep the
     * whole-process proportions to the baseline one (5 : 10 : 50 ms gives 1 : 2 : 10 ns). The
     * percentage does the real work for in-process rows: the minimum only keeps sub-nanosecond rows
     * (e.g. 0.3 ns → 0.4 ns) from reading as regressions. */
    *t = (struct bench__result_thresholds){
        .baseline = {{10, 1}, {10, 5 * MS}},
        .reference = {{25, 2}, {25, 10 * MS}},
        .tail = {{50, 10}, {50, 50 * MS}},
        .fail_pp = 0,
        .min_n_p90 = 10,
        .min_n_p99 = 100,
    };
}

static bool measured(const struct bench__result_aggregate *a)
{
    return a && a->sample_count > 0;
}

static double slower_pct(double t, double b)
{
    if (isnan(t) || isnan(b))
        return NAN;
    if (b == 0) /* an observed zero: any slowdown is unbounded, none is 0% */
        return t > 0 ? INFINITY : t < 0 ? -INFINITY : 0;
    return (t - b) / b * 100;
}

static double ratio(double t, double b)
{
    if (isnan(t) || isnan(b))
        return NAN;
    if (b == 0)
        return t > 0 ? INFINITY : t < 0 ? 0 : 1;
    return t / b;
}

/* Both conditions on the same percentile; NaN is never over a threshold. */
static bool over(double t, double b, const struct bench__result_threshold *th)
{
    double d = t - b;
    return !isnan(d) && d >= th->min_ns && slower_pct(t, b) >= th->pct;
}

static void why_add(struct bench__result_row *row, const char *token)
{
    size_t len = strlen(row->why);
    size_t add = strlen(token) + (len ? 1 : 0);
    if (len + add >= sizeof row->why)
        return; /* the tokens are few and short: cannot happen with the names below */
    if (len)
        row->why[len++] = ',';
    memcpy(row->why + len, token, strlen(token) + 1);
}

/* Checks the p50/p90 threshold and the p99 tail of one comparison, adding a token per hit
 * ("<name>_p50_ms", "<name>_p90_ms", "<name>_p99_tail", the names docs/reference/results.md lists,
 * kept for in-process
 * rows too: "_ms" names the absolute condition, whatever its unit). */
/* Whether both sides have the samples a percentile needs to be judged (issue 28: a tail rule
 * fires only with enough samples; nearest rank of 3 samples reads the maximum for p90 and p99). */
static bool enough(const struct bench__result_aggregate *t, const struct bench__result_aggregate *o,
                   size_t min_n)
{
    return t->sample_count >= min_n && o->sample_count >= min_n;
}

static bool judge_against(struct bench__result_row *row, const struct bench__result_aggregate *o,
                          const char *name, const struct bench__result_threshold *th,
                          const struct bench__result_threshold *tail,
                          const struct bench__result_thresholds *all, bool record, bool with_p50)
{
    const struct bench__result_aggregate *t = row->target;
    bool hit50 = with_p50 && over(t->p50, o->p50, th);
    bool hit90 = enough(t, o, all->min_n_p90) && over(t->p90, o->p90, th);
    bool hit99 = enough(t, o, all->min_n_p99) && over(t->p99, o->p99, tail);
    if (record) {
        char token[32];
        if (hit50) {
            strcpy(token, name);
            why_add(row, strcat(token, "_p50_ms"));
        }
        if (hit90) {
            strcpy(token, name);
            why_add(row, strcat(token, "_p90_ms"));
        }
        if (hit99) {
            strcpy(token, name);
            why_add(row, strcat(token, "_p99_tail"));
        }
    }
    return hit50 || hit90 || hit99;
}

static bool failure_rule(const struct bench__result_aggregate *t,
                         const struct bench__result_aggregate *b, double fail_pp)
{
    if (!b || isnan(t->failure_rate) || isnan(b->failure_rate))
        return false;
    if (b->failure_rate == 0 && t->failure_rate > 0)
        return true;
    return (t->failure_rate - b->failure_rate) * 100 > fail_pp;
}

static void fill_derived(struct bench__result_row *row, const struct bench__result_aggregate *d,
                         const struct bench__result_thresholds *th)
{
    const struct bench__result_aggregate *t = row->target;
    row->p90_judged = row->p99_judged = false;
    row->not_judged = "";
    if (!measured(d)) {
        row->delta_p50_ns = row->delta_p90_ns = row->delta_p99_ns = NAN;
        row->slower_p50_pct = row->slower_p90_pct = row->slower_p99_pct = NAN;
        row->severity = NAN;
        return;
    }
    if (t->sample_count > 0) {
        row->p90_judged = enough(t, d, th->min_n_p90);
        row->p99_judged = enough(t, d, th->min_n_p99);
        row->not_judged = !row->p90_judged   ? "p90_few_samples,p99_few_samples"
                          : !row->p99_judged ? "p99_few_samples"
                                             : "";
    }
    row->delta_p50_ns = t->p50 - d->p50; /* NaN when the target is unmeasured */
    row->slower_p50_pct = slower_pct(t->p50, d->p50);
    row->delta_p90_ns = row->p90_judged ? t->p90 - d->p90 : NAN;
    row->slower_p90_pct = row->p90_judged ? slower_pct(t->p90, d->p90) : NAN;
    row->delta_p99_ns = row->p99_judged ? t->p99 - d->p99 : NAN;
    row->slower_p99_pct = row->p99_judged ? slower_pct(t->p99, d->p99) : NAN;
    /* over the tails judged only; NaN never becomes a number */
    double r90 = row->p90_judged ? ratio(t->p90, d->p90) : NAN;
    double r99 = row->p99_judged ? ratio(t->p99, d->p99) : NAN;
    row->severity = isnan(r99) ? r90 : isnan(r90) ? r99 : r90 > r99 ? r90 : r99;
}

/* The states no comparison decides: every line a skip, no successful sample, a failure rate
 * that rose against b. Returns whether one of them decided the row. */
static bool failed_or_skipped(struct bench__result_row *row,
                              const struct bench__result_aggregate *b,
                              const struct bench__result_thresholds *t)
{
    const struct bench__result_aggregate *tg = row->target;
    if (tg->sample_count == 0 && tg->total_count > 0 && tg->skip_count == tg->total_count) {
        /* every line a skip: nothing ran and failed, nothing was measured either */
        row->state = BENCH__RESULT_UNMEASURED;
        why_add(row, "all_skipped");
    } else if (tg->sample_count == 0) {
        row->state = BENCH__RESULT_FAIL;
        why_add(row, "no_successful_samples");
    } else if (failure_rule(tg, b, t->fail_pp)) {
        row->state = BENCH__RESULT_FAIL;
        why_add(row, "failure_rate_increase");
    } else {
        return false;
    }
    return true;
}

void bench__result_row_judge(struct bench__result_row *row,
                             const struct bench__result_thresholds *t)
{
    const struct bench__result_aggregate *tg = row->target, *b = row->baseline, *r = row->reference;
    int k = tg->whole_process ? 1 : 0;
    row->why[0] = '\0';
    row->decided_by = measured(b) ? "baseline" : NULL;
    const struct bench__result_aggregate *decider = measured(b) ? b : NULL;
    row->history_ref_p50 = NAN;

    if (failed_or_skipped(row, b, t)) {
        /* decided by the target alone, or its failure rate */
    } else if (!b) {
        row->state = BENCH__RESULT_UNMEASURED;
        why_add(row, "no_baseline");
    } else if (!measured(b)) {
        row->state = BENCH__RESULT_UNMEASURED;
        why_add(row, "baseline_has_no_samples");
    } else if (judge_against(row, b, "baseline", &t->baseline[k], &t->tail[k], t, true, true)) {
        row->state = BENCH__RESULT_REGRESSION;
    } else if (measured(r) &&
               judge_against(row, r, "reference", &t->reference[k], &t->tail[k], t, true, true)) {
        row->state = BENCH__RESULT_GUARDRAIL;
        row->decided_by = "reference";
        decider = r;
    } else if (tg->p50 > b->p50 || (enough(tg, b, t->min_n_p90) && tg->p90 > b->p90)) {
        row->state = BENCH__RESULT_WATCH;
        why_add(row, "slower_below_threshold");
    } else {
        row->state = BENCH__RESULT_OK;
    }
    fill_derived(row, decider, t);
}

void bench__result_row_judge_history(struct bench__result_row *row,
                                     const struct bench__hist_verdict *v,
                                     const struct bench__result_thresholds *t)
{
    const struct bench__result_aggregate *tg = row->target, *b = row->baseline, *r = row->reference;
    int k = tg->whole_process ? 1 : 0;
    row->why[0] = '\0';
    row->history_ref_p50 = NAN;
    row->decided_by = measured(b) ? "baseline" : NULL;
    const struct bench__result_aggregate *decider = measured(b) ? b : NULL;
    bool history = false;
    if (failed_or_skipped(row, b, t)) {
        /* decided without the history */
    } else if (v->state == BENCH__RESULT_UNMEASURED) {
        row->state = BENCH__RESULT_UNMEASURED;
        why_add(row, v->why ? v->why : "no_history");
        row->decided_by = NULL;
        decider = NULL;
    } else {
        bool tails = decider && judge_against(row, b, "baseline", &t->baseline[k], &t->tail[k], t,
                                              false, false);
        history = true;
        if (v->state == BENCH__RESULT_REGRESSION || tails) {
            row->state = BENCH__RESULT_REGRESSION;
            if (v->state == BENCH__RESULT_REGRESSION)
                why_add(row, v->why);
            else
                history = false; /* a tail decided, point by point */
            if (tails)
                judge_against(row, b, "baseline", &t->baseline[k], &t->tail[k], t, true, false);
        } else if (measured(r) && judge_against(row, r, "reference", &t->reference[k], &t->tail[k],
                                                t, true, true)) {
            row->state = BENCH__RESULT_GUARDRAIL;
            row->decided_by = "reference";
            decider = r;
            history = false;
        } else if (v->state == BENCH__RESULT_WATCH) {
            row->state = BENCH__RESULT_WATCH;
            why_add(row, v->why);
        } else if (decider && enough(tg, b, t->min_n_p90) && tg->p90 > b->p90) {
            row->state = BENCH__RESULT_WATCH;
            why_add(row, "slower_p90_below_threshold");
        } else {
            row->state = BENCH__RESULT_OK;
            why_add(row, v->why);
        }
    }
    fill_derived(row, decider, t);
    if (history) {
        row->decided_by = "history";
        row->history_ref_p50 = v->ref_median;
        row->delta_p50_ns = tg->p50 - v->ref_median; /* NaN stays NaN */
        row->slower_p50_pct = slower_pct(tg->p50, v->ref_median);
    }
}

/* ---- the dashboard's order ------------------------------------------------------------- */

/* Descending, NaN last (a NaN is unmeasured: it never outranks a number). */
static int desc_nan_last(double a, double b)
{
    bool na = isnan(a), nb = isnan(b);
    if (na || nb)
        return na - nb;
    return (a < b) - (a > b);
}

static size_t list_rank(const char *s, const char *const *list, size_t n, bool prefix)
{
    if (!s)
        return n;
    for (size_t i = 0; i < n; i++) {
        if (!list[i])
            continue;
        if (prefix ? strncmp(s, list[i], strlen(list[i])) == 0 : strcmp(s, list[i]) == 0)
            return i;
    }
    return n; /* unlisted values after every listed one */
}

static int size_cmp(size_t a, size_t b)
{
    return (a > b) - (a < b);
}

static int row_cmp(const struct bench__result_row *a, const struct bench__result_row *b,
                   const struct bench__result_priorities *p)
{
    const struct bench__result_aggregate *ta = a->target, *tb = b->target;
    int c;
    if ((c = (a->state > b->state) - (a->state < b->state)) != 0)
        return c;
    if ((c = desc_nan_last(a->severity, b->severity)) != 0)
        return c;
    if ((c = desc_nan_last(a->delta_p50_ns, b->delta_p50_ns)) != 0)
        return c;
    if (p) {
        if ((c = size_cmp(list_rank(ta->profile, p->profiles, p->n_profiles, false),
                          list_rank(tb->profile, p->profiles, p->n_profiles, false))) != 0)
            return c;
        if ((c = size_cmp(list_rank(ta->scenario, p->scenarios, p->n_scenarios, false),
                          list_rank(tb->scenario, p->scenarios, p->n_scenarios, false))) != 0)
            return c;
        if ((c = size_cmp(
                 list_rank(ta->operation, p->operation_prefixes, p->n_operation_prefixes, true),
                 list_rank(tb->operation, p->operation_prefixes, p->n_operation_prefixes, true))) !=
            0)
            return c;
    }
    if ((c = str_cmp(ta->profile, tb->profile)) != 0)
        return c;
    if ((c = str_cmp(ta->scenario, tb->scenario)) != 0)
        return c;
    if ((c = str_cmp(ta->operation, tb->operation)) != 0)
        return c;
    return str_cmp(ta->subject, tb->subject);
}

static void insertion_sort(struct bench__result_row *rows, size_t n,
                           const struct bench__result_priorities *p)
{
    for (size_t i = 1; i < n; i++) {
        struct bench__result_row x = rows[i];
        size_t j = i;
        while (j > 0 && row_cmp(&rows[j - 1], &x, p) > 0) {
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = x;
    }
}

void bench__result_rows_sort(struct bench__result_row *rows, size_t n,
                             const struct bench__result_priorities *p)
{
    /* A stable merge sort of its own: C11's qsort passes the comparator no context (the
     * priority lists), and qsort_r differs between C libraries. The comparator is total, so
     * the order depends on the rows only, never on their input order. */
    if (n <= 16) {
        insertion_sort(rows, n, p); /* few rows: the same order, no scratch */
        return;
    }
    struct bench__result_row *tmp = bench__xmalloc(n * sizeof *tmp);
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = row_cmp(&rows[j], &rows[i], p) < 0 ? rows[j++] : rows[i++];
            while (i < mid)
                tmp[k++] = rows[i++];
            while (j < hi)
                tmp[k++] = rows[j++];
        }
        memcpy(rows, tmp, n * sizeof *rows);
    }
    free(tmp);
}

void bench__results_sort_values(double *values, size_t n)
{
    bench__sort_doubles(values, n);
}

double bench__results_median(double *values, size_t n)
{
    if (n == 0)
        return NAN;
    bench__sort_doubles(values, n);
    return bench__median_sorted(values, n);
}
