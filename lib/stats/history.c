/* SPDX-License-Identifier: MIT */
/* history.c: owns the lasting state of the latest run of a series: the segments between its
 * change points, the reference a regression is measured from, "regressed since <run>" until a
 * change point restores it, the one run out of line (watch, or unmistakable by its own
 * dispersion), and today's latest-vs-previous rule as a mode. It finds no change point itself
 * (changepoint.c does) and reads no file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <bench/errors.h>

#include "../model/summary.h"
#include "../util/alloc.h"
#include "changepoint.h"

#define NONE SIZE_MAX
#define MAD_TO_SIGMA 1.4826 /* the MAD of a normal distribution is 0.6745 σ */

void bench__hist_defaults(struct bench__hist_params *p)
{
    bench__cp_defaults(&p->cp);
    p->threshold = (struct bench__result_threshold){.pct = 10, .min_ns = 1};
    p->unmistakable_k = 4;
    p->unmistakable_k_own = 2;
    p->unmistakable_min_n = 3;
    p->unmistakable_min_runs = 3;
    p->tail_p = 0.005;
    p->tail_open = 3;
    p->tail_hold = 8;
}

/* The segments of a series: segment i is runs [b[i], b[i + 1]), i in [0, k]. */
struct segments {
    const struct bench__cp_run *runs;
    size_t *b;
    size_t k;
    double *scratch; /* room for the series */
};

/* The median of the values of runs [s, e); NaN when none has one. `low` takes the lower of the
 * two middle values of an even count: the level a segment is shown with, so that a segment of
 * two runs does not read slower because one of them was (whether it is slower is shift_over's
 * question). */
static double level(const struct segments *g, size_t s, size_t e, bool low)
{
    size_t m = 0;
    for (size_t i = s; i < e; i++)
        if (!isnan(g->runs[i].value))
            g->scratch[m++] = g->runs[i].value;
    if (m == 0)
        return NAN;
    bench__sort_doubles(g->scratch, m);
    return low ? g->scratch[(m - 1) / 2] : bench__median_sorted(g->scratch, m);
}

static double seg_level(const struct segments *g, size_t i, bool low)
{
    return level(g, g->b[i], g->b[i + 1], low);
}

static size_t count_values(const struct bench__cp_run *runs, size_t s, size_t e)
{
    size_t m = 0;
    for (size_t i = s; i < e; i++)
        m += !isnan(runs[i].value);
    return m;
}

/* Slower by at least the threshold: both its percentage and its absolute minimum. */
static bool over(double cur, double ref, const struct bench__result_threshold *th)
{
    double d = cur - ref;
    return !isnan(d) && ref > 0 && d >= th->min_ns && d / ref * 100 >= th->pct;
}

/* The robust relative spread of a run's own samples, or NaN when it is not known. */
static double own_spread(const struct bench__cp_run *r, size_t min_n)
{
    if (r->n < min_n || !isfinite(r->mad) || r->mad < 0 || !(r->value > 0))
        return NAN;
    return MAD_TO_SIGMA * r->mad / r->value;
}

/* The spread between runs over the whole history before run `upto`, from d = |ln v − ln (its
 * segment's median)| over the runs of every segment with two runs or more before `upto`: the
 * larger of 1.4826 × the median of d (robust) and √(Σd² / (m − 1)) (efficient); 0 when there are
 * none. A short segment alone says little of it. The MAD's efficiency at the normal is 37%: from
 * 10 to 20 runs it often says half the true spread, and a run 2σ out then looked 4σ out (most of
 * the unmistakable false alerts of the benchmark, all in short histories); the standard
 * deviation is not fooled so, and an outlier in the history only makes it larger, which makes
 * the rule stricter, never looser. */
static double history_spread(const struct segments *g, size_t upto)
{
    size_t m = 0;
    double *dev = bench__xmalloc((upto ? upto : 1) * sizeof *dev);
    for (size_t i = 0; i <= g->k && g->b[i] < upto; i++) {
        size_t e = g->b[i + 1] < upto ? g->b[i + 1] : upto;
        if (count_values(g->runs, g->b[i], e) < 2)
            continue;
        double med = log(level(g, g->b[i], e, false));
        for (size_t r = g->b[i]; r < e; r++)
            if (!isnan(g->runs[r].value))
                dev[m++] = fabs(log(g->runs[r].value) - med);
    }
    double spread = 0, ss = 0;
    for (size_t i = 0; i < m; i++)
        ss += dev[i] * dev[i];
    if (m) {
        bench__sort_doubles(dev, m);
        spread = MAD_TO_SIGMA * bench__median_sorted(dev, m);
    }
    if (m > 1 && sqrt(ss / (double)(m - 1)) > spread)
        spread = sqrt(ss / (double)(m - 1));
    free(dev);
    return spread;
}

/* The unmistakable rule (changepoint.h, bench__hist_params): run `run` against the runs [s, e)
 * it leaves, whose median is lb; the threshold has already been passed. */
static bool unmistakable(const struct segments *g, size_t run, size_t s, size_t e, double lb,
                         const struct bench__hist_params *p)
{
    double own = own_spread(&g->runs[run], p->unmistakable_min_n);
    if (isnan(own) || count_values(g->runs, s, e) < p->unmistakable_min_runs)
        return false;
    size_t m = 0;
    for (size_t i = s; i < e; i++) { /* the typical own spread of the segment's runs */
        double o = own_spread(&g->runs[i], 2);
        if (!isnan(o))
            g->scratch[m++] = o;
    }
    double typical = 0;
    if (m) {
        bench__sort_doubles(g->scratch, m);
        typical = bench__median_sorted(g->scratch, m);
    }
    m = 0;
    for (size_t i = s; i < e; i++) /* the spread between the segment's runs */
        if (!isnan(g->runs[i].value))
            g->scratch[m++] = log(g->runs[i].value);
    double between = MAD_TO_SIGMA * bench__summarize(g->scratch, m).mad;
    double pooled = history_spread(g, run);
    between = pooled > between ? pooled : between;
    double own_max = typical > own ? typical : own;
    double d = log(g->runs[run].value / lb);
    return d >= p->unmistakable_k * between && d >= p->unmistakable_k_own * own_max;
}

static void set_range(struct bench__hist_verdict *v, size_t rs, size_t re, double ref, size_t cs,
                      double cur)
{
    v->ref_start = rs;
    v->ref_end = re;
    v->cur_start = cs;
    v->ref_median = ref;
    v->cur_median = cur;
    v->delta_ns = cur - ref;
    v->slower_pct = ref > 0 ? (cur - ref) / ref * 100 : NAN;
}

static void latest_vs_previous(const struct bench__cp_run *runs, size_t n,
                               const struct bench__hist_params *p, struct bench__hist_verdict *v)
{
    size_t latest = n - 1, prev = latest;
    while (prev-- > 0 && isnan(runs[prev].value)) {
    }
    double x = runs[latest].value, b = runs[prev].value;
    set_range(v, prev, prev + 1, b, latest, x);
    v->since = latest;
    if (over(x, b, &p->threshold)) {
        v->state = BENCH__RESULT_REGRESSION;
        v->why = "baseline_p50_ms";
    } else if (x > b) {
        v->state = BENCH__RESULT_WATCH;
        v->why = "slower_below_threshold";
    } else {
        v->state = BENCH__RESULT_OK;
        v->why = x < b ? "faster" : "steady";
        v->since = NONE;
    }
}

/* The segment holding run i. */
static size_t segment_of(const struct segments *g, size_t i)
{
    size_t s = 0;
    while (s < g->k && g->b[s + 1] <= i)
        s++;
    return s;
}

/* The runs the latest ones are judged against when no change point decided: the reference's
 * runs before run c (the segment before it, when the reference has none before c). */
static void base_of(const struct segments *g, size_t ref, size_t c, size_t *bs, size_t *be)
{
    *bs = g->b[ref];
    *be = g->b[ref + 1] < c ? g->b[ref + 1] : c;
    if (count_values(g->runs, *bs, *be) == 0 && ref > 0) {
        *bs = g->b[ref - 1];
        *be = g->b[ref];
    }
}

/* Every run with a value in [c, n) over `lb`. */
static bool all_over(const struct segments *g, size_t c, size_t n, double lb,
                     const struct bench__result_threshold *th)
{
    for (size_t i = c; i < n; i++)
        if (!isnan(g->runs[i].value) && !over(g->runs[i].value, lb, th))
            return false;
    return true;
}

/* The earliest run j of the current segment (after its first run) such that every run from j
 * on is over the level of the base before j: the runs out of line; NONE when the latest is not. */
static size_t out_of_line(const struct segments *g, size_t ref, size_t n,
                          const struct bench__result_threshold *th)
{
    size_t j = NONE, bs, be;
    for (size_t c = n - 1; c > g->b[g->k]; c--) {
        if (isnan(g->runs[c].value))
            continue;
        base_of(g, ref, c, &bs, &be);
        double lb = level(g, bs, be, false);
        if (isnan(lb) || !all_over(g, c, n, lb, th))
            break;
        j = c;
    }
    return j;
}

/* The runs with a value in [s, e), as logarithms, into out; their count. */
static size_t logs_of(const struct bench__cp_run *runs, size_t s, size_t e, double *out)
{
    size_t m = 0;
    for (size_t i = s; i < e; i++)
        if (!isnan(runs[i].value))
            out[m++] = log(runs[i].value);
    return m;
}

/* The runs nearest to the boundary, per side, that a size is computed from (as changepoint.c). */
#define SIZE_SIDE_MAX 250

/* Runs [s, e) slower than runs [bs, be) (bs < s), whose median is lb, by the threshold, the size
 * being the Hodges-Lehmann shift of their logarithms (the median of every pairwise ratio, the size
 * a change point reports) from at most SIZE_SIDE_MAX runs of each side nearest to the other. A
 * size from every pair of runs, not the lower middle value of the newer side: that one dipped
 * under the threshold from one run to the next on a 5% step at a 3% minimum (2.5σ of the noise
 * of one run), and the state left `regression` and came back naming another run. */
static bool shift_over(const struct segments *g, size_t bs, size_t be, size_t s, size_t e,
                       double lb, const struct bench__result_threshold *th)
{
    double *x = bench__xmalloc((be - bs + 1) * sizeof *x),
           *y = bench__xmalloc((e - s + 1) * sizeof *y);
    size_t m = logs_of(g->runs, bs, be, x), n = logs_of(g->runs, s, e, y);
    double *xs = m > SIZE_SIDE_MAX ? x + (m - SIZE_SIDE_MAX) : x;
    m = m > SIZE_SIDE_MAX ? SIZE_SIDE_MAX : m;
    n = n > SIZE_SIDE_MAX ? SIZE_SIDE_MAX : n;
    double est = NAN, lo, hi, level_reached;
    if (m && n)
        bench__hl_shift(xs, m, y, n, 0, &est, &lo, &hi, &level_reached);
    free(x);
    free(y);
    return !isnan(est) && over(lb * exp(est), lb, th);
}

/* A regression at the end that no change point has decided yet (changepoint.h, "the newest
 * runs"): the earliest run j among the last tail_hold runs of the current segment (its first run
 * excluded) such that run j is over the base before it, the runs [j, n) still are (their
 * shift_over), and j was opened: run j unmistakable on its own, or its first m runs
 * (min_segment <= m <= tail_open) over the base by their shift with a t-test against the base at
 * p < tail_p (one hypothesis about the newest runs, not a search of the whole history). */
static bool tail_regression(const struct segments *g, size_t ref, size_t n,
                            const struct bench__hist_params *p, struct bench__hist_verdict *v)
{
    const struct bench__result_threshold *th = &p->threshold;
    size_t first = g->b[g->k] + 1;
    if (n > p->tail_hold && n - p->tail_hold > first)
        first = n - p->tail_hold;
    double *a = bench__xmalloc(n * sizeof *a), *b = bench__xmalloc(n * sizeof *b);
    const char *opened = NULL;
    double pv = NAN, lb = NAN;
    size_t j, bs = 0, be = 0;
    for (j = first; j < n && !opened; j++) {
        if (isnan(g->runs[j].value))
            continue;
        base_of(g, ref, j, &bs, &be);
        lb = level(g, bs, be, false);
        if (!over(g->runs[j].value, lb, th) || !shift_over(g, bs, be, j, n, lb, th))
            continue;
        if (unmistakable(g, j, bs, be, lb, p)) {
            opened = "unmistakable_run";
            break;
        }
        size_t na = logs_of(g->runs, bs, be, a);
        for (size_t m = j + 1; m <= n && m <= j + p->tail_open && !opened; m++) {
            size_t nb = logs_of(g->runs, j, m, b);
            if (nb < p->cp.min_segment || !shift_over(g, bs, be, j, m, lb, th))
                continue;
            pv = bench__student_test(a, na, b, nb, NULL);
            if (pv < p->tail_p)
                opened = "confirmed_by_next_runs";
        }
        if (opened)
            break;
    }
    if (opened) {
        set_range(v, bs, be, lb, j, level(g, j, n, true));
        v->state = BENCH__RESULT_REGRESSION;
        v->why = opened;
        v->since = j;
        v->p = opened[0] == 'c' ? pv : NAN;
    }
    free(a);
    free(b);
    return opened != NULL;
}

static void judge_segments(const struct segments *g, size_t n, size_t first_ref, bool movable,
                           const struct bench__changepoint *cps, const struct bench__hist_params *p,
                           struct bench__hist_verdict *v)
{
    const struct bench__result_threshold *th = &p->threshold;
    size_t ref = first_ref, chain = NONE, restored = NONE, k = g->k;
    for (size_t i = first_ref + 1; i <= k; i++) {
        if (shift_over(g, g->b[ref], g->b[ref + 1], g->b[i], g->b[i + 1], seg_level(g, ref, false),
                       th)) {
            if (chain == NONE)
                chain = i;
        } else {
            if (chain != NONE)
                restored = i;
            chain = NONE;
            if (movable)
                ref = i;
        }
    }
    double ref_level = seg_level(g, ref, false), cur = seg_level(g, k, true);
    if (chain != NONE) { /* the current segment is still over its reference */
        set_range(v, g->b[ref], g->b[ref + 1], ref_level, g->b[k], cur);
        v->state = BENCH__RESULT_REGRESSION;
        v->why = "regressed_since_change";
        v->since = g->b[chain];
        v->p = cps[chain - 1].p;
        return;
    }
    /* No change point decided: a regression at the end that the newest runs opened, or else the
     * latest runs out of line, unconfirmed. */
    if (tail_regression(g, ref, n, p, v))
        return;
    size_t j = out_of_line(g, ref, n, th);
    if (j != NONE) {
        size_t bs, be;
        base_of(g, ref, j, &bs, &be);
        double lb = level(g, bs, be, false);
        set_range(v, bs, be, lb, j, level(g, j, n, true));
        v->since = j;
        v->state = BENCH__RESULT_WATCH;
        v->why = "out_of_line_unconfirmed";
        return;
    }
    /* the segment the current one is compared with: the one before it, or the chosen one */
    size_t prev = movable ? (k > 0 ? k - 1 : NONE) : (ref < k ? ref : NONE);
    double prev_level = prev != NONE ? seg_level(g, prev, false) : NAN;
    if (restored == k) {
        set_range(v, g->b[k - 1], g->b[k], seg_level(g, k - 1, false), g->b[k], cur);
        v->state = BENCH__RESULT_OK;
        v->why = "restored";
        v->since = g->b[k];
        v->p = cps[k - 1].p;
    } else if (prev != NONE && prev_level < cur) {
        set_range(v, g->b[prev], g->b[prev + 1], prev_level, g->b[k], cur);
        v->state = BENCH__RESULT_WATCH;
        v->why = "slower_below_threshold";
        v->since = movable ? g->b[k] : g->b[prev + 1];
        v->p = movable ? cps[k - 1].p : NAN;
    } else {
        set_range(v, g->b[ref], g->b[ref + 1], ref_level, g->b[k], cur);
        v->state = BENCH__RESULT_OK;
        v->why = prev != NONE && prev_level > cur ? "faster" : "steady";
    }
}

int bench__history_judge(const struct bench__cp_run *runs, size_t n, enum bench__hist_mode mode,
                         size_t baseline_index, const struct bench__hist_params *p,
                         struct bench__hist_verdict *v, struct bench__changepoint *cps,
                         size_t *n_cps)
{
    if (!p || !v || (n && !runs) || (cps && !n_cps) || !(p->unmistakable_k > 0) ||
        !(p->unmistakable_k_own >= 0) || !(p->threshold.pct >= 0) || isnan(p->threshold.min_ns) ||
        !(p->tail_p > 0 && p->tail_p < 1) || p->tail_hold == 0)
        return BENCH_EINVAL;
    if (mode != BENCH__HIST_SEGMENTS && mode != BENCH__HIST_LATEST_VS_PREVIOUS &&
        mode != BENCH__HIST_BASELINE_RUN)
        return BENCH_EINVAL;
    if (mode == BENCH__HIST_BASELINE_RUN &&
        (baseline_index >= n || isnan(runs[baseline_index].value)))
        return BENCH_EINVAL;
    *v = (struct bench__hist_verdict){
        .state = BENCH__RESULT_UNMEASURED,
        .since = NONE,
        .ref_median = NAN,
        .cur_median = NAN,
        .delta_ns = NAN,
        .slower_pct = NAN,
        .p = NAN,
        .cur_start = n ? n - 1 : 0,
    };
    struct bench__changepoint *found = cps ? cps : bench__xmalloc((n ? n : 1) * sizeof *found);
    size_t k = 0;
    int rc = bench__changepoints(runs, n, &p->cp, found, &k);
    if (rc == 0) {
        v->n_changes = k;
        if (n_cps)
            *n_cps = k;
        if (n == 0 || isnan(runs[n - 1].value)) {
            v->why = "no_value";
        } else if (count_values(runs, 0, n) < 2) {
            v->why = "no_history";
        } else if (mode == BENCH__HIST_LATEST_VS_PREVIOUS) {
            latest_vs_previous(runs, n, p, v);
        } else {
            struct segments g = {.runs = runs, .k = k};
            g.b = bench__xmalloc((k + 2) * sizeof *g.b);
            g.scratch = bench__xmalloc(n * sizeof *g.scratch);
            g.b[0] = 0;
            for (size_t i = 0; i < k; i++)
                g.b[i + 1] = found[i].index;
            g.b[k + 1] = n;
            size_t first = mode == BENCH__HIST_BASELINE_RUN ? segment_of(&g, baseline_index) : 0;
            judge_segments(&g, n, first, mode == BENCH__HIST_SEGMENTS, found, p, v);
            free(g.b);
            free(g.scratch);
        }
    }
    if (!cps)
        free(found);
    return rc;
}
