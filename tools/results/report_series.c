/* SPDX-License-Identifier: MIT */
/* report_series.c: owns the series of the results history (docs/explanation/results-history.md,
 * "Change points and states that last"): the aggregates of one profile + scenario + operation +
 * subject (+ host unless --cross-host) in run order, found by one sort of the index's aggregates,
 * the runs the engine (lib/stats/changepoint.h) reads from them, and every series' change points
 * for the index's table. It judges nothing and reads no file: the index's lists come in. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_tool.h"
#include "common/json.h"
#include "util/alloc.h"

/* The run order of each aggregate: the index in runs->runs of its bench_id, found by bsearch in
 * a copy of the runs sorted by bench_id. */
struct run_key {
    const char *bench_id;
    size_t index;
};

static int run_key_cmp(const void *a, const void *b)
{
    return strcmp(((const struct run_key *)a)->bench_id, ((const struct run_key *)b)->bench_id);
}

static int text_cmp(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int cell_cmp(const struct bench__result_aggregate *a,
                    const struct bench__result_aggregate *b, bool cross_host)
{
    int c;
    if ((c = text_cmp(a->profile, b->profile)) || (c = text_cmp(a->scenario, b->scenario)) ||
        (c = text_cmp(a->operation, b->operation)) || (c = text_cmp(a->subject, b->subject)))
        return c;
    return cross_host ? 0 : text_cmp(a->host_id, b->host_id);
}

/* One aggregate in the sort: the cell, then the run order. */
struct entry {
    const struct bench__result_aggregate *a;
    size_t run, index;
};

static int entry_cmp(const struct entry *a, const struct entry *b, bool cross_host)
{
    int c = cell_cmp(a->a, b->a, cross_host);
    if (c)
        return c;
    return (a->run > b->run) - (a->run < b->run);
}

static int entry_cmp_host(const void *a, const void *b)
{
    return entry_cmp(a, b, false);
}

static int entry_cmp_cross(const void *a, const void *b)
{
    return entry_cmp(a, b, true);
}

void report_series_init(struct report_series *s, const struct results_list *runs,
                        const struct results_list *aggs, bool cross_host)
{
    memset(s, 0, sizeof *s);
    s->runs = runs;
    s->aggs = aggs;
    s->cross_host = cross_host;
    size_t nr = runs->n_runs, na = aggs->n_aggs;
    struct run_key *keys = bench__xmalloc((nr ? nr : 1) * sizeof *keys);
    for (size_t i = 0; i < nr; i++)
        keys[i] = (struct run_key){runs->runs[i].bench_id, i};
    qsort(keys, nr, sizeof *keys, run_key_cmp);
    s->run_of = bench__xmalloc((na ? na : 1) * sizeof *s->run_of);
    struct entry *e = bench__xmalloc((na ? na : 1) * sizeof *e);
    for (size_t i = 0; i < na; i++) {
        struct run_key k = {aggs->aggs[i].bench_id, 0};
        const struct run_key *found = nr ? bsearch(&k, keys, nr, sizeof *keys, run_key_cmp) : NULL;
        s->run_of[i] = found ? found->index : SIZE_MAX;
        if (found) /* an aggregate of no known run belongs to no series */
            e[s->n++] = (struct entry){&aggs->aggs[i], found->index, i};
    }
    free(keys);
    qsort(e, s->n, sizeof *e, cross_host ? entry_cmp_cross : entry_cmp_host);
    s->order = bench__xmalloc((s->n ? s->n : 1) * sizeof *s->order);
    for (size_t i = 0; i < s->n; i++)
        s->order[i] = e[i].index;
    free(e);
}

void report_series_free(struct report_series *s)
{
    free(s->order);
    free(s->run_of);
    memset(s, 0, sizeof *s);
}

size_t report_series_of(const struct report_series *s, const struct bench__result_aggregate *cell,
                        size_t first_run, size_t last_run, const size_t **out)
{
    /* the first aggregate of the cell's series: a lower bound over the sorted order */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cell_cmp(&s->aggs->aggs[s->order[mid]], cell, s->cross_host) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < s->n && cell_cmp(&s->aggs->aggs[s->order[end]], cell, s->cross_host) == 0)
        end++;
    while (lo < end && s->run_of[s->order[lo]] < first_run)
        lo++;
    while (end > lo && s->run_of[s->order[end - 1]] > last_run)
        end--;
    *out = s->order + lo;
    return end - lo;
}

void report_series_cp_runs(const struct report_series *s, const size_t *series, size_t n,
                           struct bench__cp_run *out)
{
    for (size_t i = 0; i < n; i++) {
        const struct bench__result_aggregate *a = &s->aggs->aggs[series[i]];
        /* the engine reads logarithms: a run without a value, or at 0, takes no part */
        bool value = a->sample_count > 0 && isfinite(a->p50) && a->p50 > 0;
        out[i] = (struct bench__cp_run){
            .value = value ? a->p50 : NAN,
            .n = a->mad_n,
            .mad = a->mad,
        };
    }
}

const struct results_run *report_series_run(const struct report_series *s, size_t agg)
{
    size_t r = s->run_of[agg];
    return r == SIZE_MAX ? NULL : &s->runs->runs[r];
}

void report_change_of(const struct report_series *s, const size_t *series, size_t n,
                      const struct bench__cp_run *runs, const struct bench__changepoint *cp,
                      struct results_change *out)
{
    const struct bench__result_aggregate *a = &s->aggs->aggs[series[cp->index]];
    const struct results_run *r = report_series_run(s, series[cp->index]);
    size_t prev = cp->index;
    while (prev-- > 0 && isnan(runs[prev].value)) {
    }
    size_t last = cp->end > 0 ? cp->end - 1 : 0;
    *out = (struct results_change){
        .profile = a->profile,
        .scenario = a->scenario,
        .operation = a->operation,
        .subject = a->subject,
        .host_id = a->host_id,
        .bench_id = a->bench_id,
        .timestamp_utc = r->timestamp_utc,
        .source_revision = r->source_revision,
        .sources = r->sources,
        .previous_bench_id = s->aggs->aggs[series[prev < n ? prev : 0]].bench_id,
        .first_bench_id = s->aggs->aggs[series[cp->start]].bench_id,
        .last_bench_id = s->aggs->aggs[series[last < n ? last : n - 1]].bench_id,
        .runs_before = cp->n_before,
        .runs_after = cp->n_after,
        .median_before_ns = cp->median_before,
        .median_after_ns = cp->median_after,
        .size_rel = cp->rel,
        .ci_low_rel = cp->ci_lo,
        .ci_high_rel = cp->ci_hi,
        .ci_level = cp->ci_level,
        .p = cp->p,
        .t = cp->t,
    };
}

int report_series_changes(const struct results_list *runs, const struct results_list *aggs,
                          struct results_change **out, size_t *n_out, char *err, size_t err_size)
{
    struct report_series s;
    report_series_init(&s, runs, aggs, false);
    struct bench__cp_params p;
    bench__cp_defaults(&p);
    struct bench__cp_run *cr = bench__xmalloc((s.n ? s.n : 1) * sizeof *cr);
    struct bench__changepoint *cps = bench__xmalloc((s.n ? s.n : 1) * sizeof *cps);
    size_t cap = 0, count = 0;
    struct results_change *all = NULL;
    int rc = 0;
    for (size_t start = 0; start < s.n && rc == 0;) {
        size_t end = start + 1;
        while (end < s.n &&
               cell_cmp(&aggs->aggs[s.order[start]], &aggs->aggs[s.order[end]], false) == 0)
            end++;
        const size_t *series = s.order + start;
        size_t n = end - start, k = 0;
        report_series_cp_runs(&s, series, n, cr);
        if (bench__changepoints(cr, n, &p, cps, &k) != 0)
            rc = tool_json_error(err, err_size, "cannot find the change points of %s",
                                 aggs->aggs[series[0]].scenario);
        all = bench__grow(all, &cap, count + k + 1, sizeof *all);
        for (size_t i = 0; i < k && rc == 0; i++)
            report_change_of(&s, series, n, cr, &cps[i], &all[count++]);
        start = end;
    }
    free(cr);
    free(cps);
    report_series_free(&s);
    *out = all;
    *n_out = count;
    return rc;
}
