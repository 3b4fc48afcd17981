/* SPDX-License-Identifier: MIT */
/* paired.c: owns one look of the paired comparison over a family: per item the log ratios, the
 * Hodges-Lehmann estimate with its signed-rank interval, the A/A floor, the p values and the
 * exact-channel rule; then Benjamini-Hochberg per channel, the states, channels_disagree and the
 * verdict (docs/explanation/statistics.md, "The paired design"). It keeps nothing between looks:
 * what a look decided comes back through `prev`. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/summary.h"
#include "../util/alloc.h"
#include "engine.h"
#include "paired.h"

#define MAD_TO_SIGMA 1.4826

const char *bench__paired_state_name(enum bench__paired_state state)
{
    switch (state) {
    case BENCH__PAIRED_NO_CHANGE: return "NO_CHANGE";
    case BENCH__PAIRED_REGRESSION: return "REGRESSION";
    case BENCH__PAIRED_IMPROVEMENT: return "IMPROVEMENT";
    case BENCH__PAIRED_UNCONFIRMED: return "UNCONFIRMED";
    case BENCH__PAIRED_UNMEASURED: return "UNMEASURED";
    }
    return "?";
}

static const char *str(const char *s)
{
    return s ? s : "";
}

/* What every item of one look shares. */
struct look_ctx {
    const struct bench__paired_params *params;
    size_t look, look_rounds;
    double alpha, q; /* this look's shares */
    struct bench__sr_cache cache;
    double *d, *e, *tmp; /* scratch of the largest item */
};

/* ---- one item ------------------------------------------------------------------------------ */

static void out_blank(struct bench__paired_out *o, const struct look_ctx *cx)
{
    *o = (struct bench__paired_out){
        .look = cx->look,
        .level = 1.0 - cx->alpha,
        .q_level = cx->q,
        .median_b = NAN,
        .median_c = NAN,
        .median_a = NAN,
        .estimate = NAN,
        .rel_delta = NAN,
        .abs_delta = NAN,
        .ci_lo = NAN,
        .ci_hi = NAN,
        .aa_estimate = NAN,
        .aa_rel = NAN,
        .aa_ci_lo = NAN,
        .aa_ci_hi = NAN,
        .floor = NAN,
        .spread = NAN,
        .p = NAN,
        .aa_p = NAN,
        .q_adjusted = NAN,
        .aa_q_adjusted = NAN,
        .state = BENCH__PAIRED_UNMEASURED,
        .nondet_spread = NAN,
    };
}

static double median_first(const double *v, size_t n, double *tmp)
{
    if (n == 0)
        return NAN;
    memcpy(tmp, v, n * sizeof *tmp);
    bench__sort_doubles(tmp, n);
    return bench__median_sorted(tmp, n);
}

/* 1.4826 · the median of |v − median(v)| over the sorted arrays x and y (y may be empty). */
static double pooled_spread(const double *x, const double *y, size_t n, size_t ny, double *tmp)
{
    double mx = bench__median_sorted(x, n), my = ny ? bench__median_sorted(y, ny) : 0;
    for (size_t i = 0; i < n; i++)
        tmp[i] = fabs(x[i] - mx);
    for (size_t i = 0; i < ny; i++)
        tmp[n + i] = fabs(y[i] - my);
    bench__sort_doubles(tmp, n + ny);
    return MAD_TO_SIGMA * bench__median_sorted(tmp, n + ny);
}

static void set_medians(struct look_ctx *cx, const struct bench__paired_item *it,
                        struct bench__paired_out *o, size_t n)
{
    o->rounds_used = n;
    o->median_b = median_first(it->b, n, cx->tmp);
    o->median_c = median_first(it->c, n, cx->tmp);
    o->median_a = it->a ? median_first(it->a, n, cx->tmp) : NAN;
}

/* The timed rules on the first n rounds: figures only; the states come with the family. */
static void eval_timed(struct look_ctx *cx, const struct bench__paired_item *it,
                       struct bench__paired_out *o, size_t n)
{
    set_medians(cx, it, o, n);
    if (!it->a) {
        o->reason = "no_aa_floor";
        o->decided = true; /* more rounds bring no control */
        return;
    }
    if (n == 0) {
        o->reason = "insufficient_rounds";
        return;
    }
    double *d = cx->d, *e = cx->e;
    for (size_t r = 0; r < n; r++) {
        d[r] = log(it->c[r] / it->b[r]);
        e[r] = log(it->a[r] / (it->b_aa ? it->b_aa : it->b)[r]);
    }
    struct bench__sr_test td, te;
    bench__sr_test(&cx->cache, d, n, &td);
    bench__sr_test(&cx->cache, e, n, &te);
    bench__sort_doubles(d, n);
    bench__sort_doubles(e, n);
    o->estimate = bench__hodges_lehmann(d, n);
    o->aa_estimate = bench__hodges_lehmann(e, n);
    o->rel_delta = expm1(o->estimate);
    o->aa_rel = expm1(o->aa_estimate);
    o->abs_delta = o->median_b * o->rel_delta;
    o->spread = pooled_spread(d, e, n, n, cx->tmp);
    double lo, hi, alo, ahi;
    if (!bench__sr_ci(&cx->cache, d, n, cx->alpha, &lo, &hi) ||
        !bench__sr_ci(&cx->cache, e, n, cx->alpha, &alo, &ahi)) {
        o->reason = "insufficient_rounds"; /* no interval at this look's level yet */
        return;
    }
    o->ci_lo = expm1(lo);
    o->ci_hi = expm1(hi);
    o->aa_ci_lo = expm1(alo);
    o->aa_ci_hi = expm1(ahi);
    /* The control's own shift, never less than f_min: the interval of d already carries the
     * noise of the rounds, so the floor does not add the control's interval to it again. */
    o->floor = fmax(it->channel->f_min, fabs(o->aa_rel));
    o->p = td.p;
    o->aa_p = te.p;
    o->p_method = td.exact ? "exact" : "normal";
    if (td.exact) {
        o->p_num = td.p_num;
        o->p_den = td.p_den;
    }
}

static bool all_equal(const double *v, size_t n, double to)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != to)
            return false;
    return true;
}

static bool all_positive(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] > 0))
            return false;
    return true;
}

static void widen(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++) {
        *lo = fmin(*lo, v[i]);
        *hi = fmax(*hi, v[i]);
    }
}

/* (max − min) / max over x[0..n) and y[0..ny) (y may be NULL when ny is 0): 0 for all zeros. */
static double rel_range(const double *x, size_t n, const double *y, size_t ny)
{
    double lo = INFINITY, hi = -INFINITY;
    widen(x, n, &lo, &hi);
    if (y)
        widen(y, ny, &lo, &hi);
    return hi > 0 ? (hi - lo) / hi : 0.0;
}

/* An exact channel: when every count of the baseline binary (b and a) is one number and every
 * count of the candidate another, the difference is exact (floor 0); else the timed rules, with
 * the item marked nondeterministic. */
static void eval_exact(struct look_ctx *cx, const struct bench__paired_item *it,
                       struct bench__paired_out *o)
{
    size_t n = it->rounds;
    if (!it->a || n < cx->params->min_rounds_exact) {
        set_medians(cx, it, o, n);
        o->reason = it->a ? "insufficient_rounds" : "no_aa_floor";
        o->decided = !it->a;
        return;
    }
    double b0 = it->b[0], c0 = it->c[0];
    if (all_equal(it->b, n, b0) && all_equal(it->a, n, b0) && all_equal(it->c, n, c0)) {
        o->rounds_used = n;
        o->deterministic = true;
        o->median_b = o->median_a = b0;
        o->median_c = c0;
        o->abs_delta = c0 - b0;
        o->rel_delta = b0 > 0 ? (c0 - b0) / b0 : NAN;
        o->estimate = b0 > 0 && c0 > 0 ? log(c0 / b0) : NAN;
        o->ci_lo = o->ci_hi = o->rel_delta;
        o->aa_estimate = o->aa_rel = o->aa_ci_lo = o->aa_ci_hi = 0.0;
        o->floor = 0.0;
        o->spread = 0.0;
        o->p = c0 != b0 ? 0.0 : 1.0;
        o->aa_p = 1.0;
        o->p_method = "count";
        return;
    }
    o->nondeterministic = true;
    double spread = fmax(rel_range(it->b, n, it->a, n), rel_range(it->c, n, NULL, 0));
    if (!all_positive(it->b, n) || !all_positive(it->c, n) || !all_positive(it->a, n) ||
        (it->b_aa && !all_positive(it->b_aa, n))) {
        /* Zero counts that vary: no log ratio, and more rounds will not make one. */
        set_medians(cx, it, o, n);
        o->reason = "nondeterministic";
        o->decided = true;
        o->nondet_spread = spread;
        return;
    }
    eval_timed(cx, it, o, n < cx->look_rounds ? n : cx->look_rounds);
    o->nondet_spread = spread;
}

/* ---- the family ---------------------------------------------------------------------------- */

static bool claimed(const struct bench__paired_out *o)
{
    return o->state == BENCH__PAIRED_REGRESSION || o->state == BENCH__PAIRED_IMPROVEMENT;
}

/* The state of an item evaluated at this look, once its family's Benjamini-Hochberg is known. */
static void judge(const struct look_ctx *cx, const struct bench__paired_item *it,
                  struct bench__paired_out *o, size_t claim_need)
{
    const struct bench__paired_params *p = cx->params;
    if (o->reason) /* no_aa_floor, insufficient_rounds, nondeterministic: UNMEASURED already */
        goto plan;
    bool big = fabs(o->abs_delta) >= it->channel->min_delta;
    if (o->deterministic) {
        o->decided = true;
        o->moved = (o->abs_delta > 0) - (o->abs_delta < 0);
        if (o->moved != 0 && big) {
            o->state = o->moved > 0 ? BENCH__PAIRED_REGRESSION : BENCH__PAIRED_IMPROVEMENT;
            o->direction = o->moved > 0 ? "regression" : "improvement";
        } else {
            o->state = BENCH__PAIRED_NO_CHANGE;
        }
        return;
    }
    if (o->aa_bh_rejected && (o->aa_ci_lo > p->detect || o->aa_ci_hi < -p->detect)) {
        /* The baseline told apart from itself by more than detect: nothing here can be trusted,
         * and more rounds only confirm it. */
        o->reason = "aa_control_changed";
        o->decided = true;
        return;
    }
    bool excl0 = o->ci_lo > 0 || o->ci_hi < 0;
    bool beyond = o->ci_lo > o->floor || o->ci_hi < -o->floor;
    o->moved = excl0 && beyond ? (o->ci_lo > 0 ? 1 : -1) : 0;
    if (o->moved != 0 && big) {
        o->direction = o->moved > 0 ? "regression" : "improvement";
        if (o->rounds_used < claim_need) {
            o->state = BENCH__PAIRED_UNCONFIRMED;
            o->reason = "too_few_rounds_for_bh";
        } else if (!o->bh_rejected) {
            o->state = BENCH__PAIRED_UNCONFIRMED;
            o->reason = "bh_not_confirmed";
        } else {
            o->state = o->moved > 0 ? BENCH__PAIRED_REGRESSION : BENCH__PAIRED_IMPROVEMENT;
            o->decided = true;
            return;
        }
    } else if (o->floor > p->detect) {
        o->reason = "floor_above_detect";
    } else if (fmax(fabs(o->ci_lo), fabs(o->ci_hi)) + fabs(o->aa_rel) < p->detect) {
        /* Equivalence: the interval, moved out by the control's own shift, inside ±detect.
         * Decided unless it hints at a change beyond the floor that more rounds may confirm. */
        o->state = BENCH__PAIRED_NO_CHANGE;
        o->decided = !excl0 || !big || (o->ci_lo >= -o->floor && o->ci_hi <= o->floor);
        if (o->decided)
            return;
        o->reason = "ci_excludes_zero";
    } else {
        o->reason = "ci_wider_than_detect";
    }
plan:
    if (!o->decided)
        o->rounds_needed =
            bench__paired_rounds_needed(p, cx->look, o->rounds_used, o->family_size, o->estimate,
                                        o->aa_estimate, o->spread, it->channel->f_min);
}

struct keyed {
    const struct bench__paired_item *it;
    size_t i;
};

static int by_channel(const void *pa, const void *pb)
{
    const struct keyed *a = pa, *b = pb;
    int c = strcmp(str(a->it->channel->name), str(b->it->channel->name));
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int cell_compare(const struct bench__paired_item *a, const struct bench__paired_item *b)
{
    int c = strcmp(str(a->scenario), str(b->scenario));
    return c ? c : strcmp(str(a->operation), str(b->operation));
}

static int by_cell(const void *pa, const void *pb)
{
    const struct keyed *a = pa, *b = pb;
    int c = cell_compare(a->it, b->it);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

/* Benjamini-Hochberg over one channel's items order[0..m), then their states. An item decided at
 * an earlier look enters as p = 0 (a claim; the control: its aa_control_changed) or p = 1. */
static void judge_channel(struct look_ctx *cx, const struct keyed *order, size_t m,
                          const bool *fresh, struct bench__paired_out *out, double *scratch,
                          bool *rej, struct bench__p_at *sorted)
{
    double *p = scratch, *aa = scratch + m, *qa = scratch + 2 * m, *aqa = scratch + 3 * m;
    bool *arej = rej + m;
    for (size_t t = 0; t < m; t++) {
        const struct bench__paired_out *o = &out[order[t].i];
        if (!fresh[order[t].i]) {
            p[t] = claimed(o) ? 0.0 : 1.0;
            aa[t] = o->reason && strcmp(o->reason, "aa_control_changed") == 0 ? 0.0 : 1.0;
        } else {
            p[t] = isnan(o->p) ? 1.0 : o->p;
            aa[t] = isnan(o->aa_p) ? 1.0 : o->aa_p;
        }
    }
    bench__bh_core(p, m, cx->q, rej, qa, sorted);
    bench__bh_core(aa, m, cx->q, arej, aqa, sorted);
    size_t need = bench__paired_claim_need(cx->params, cx->look, m);
    for (size_t t = 0; t < m; t++) {
        size_t i = order[t].i;
        if (!fresh[i])
            continue;
        struct bench__paired_out *o = &out[i];
        o->family_size = m;
        if (!isnan(o->p)) {
            o->bh_rejected = rej[t];
            o->q_adjusted = qa[t];
        }
        if (!isnan(o->aa_p)) {
            o->aa_bh_rejected = arej[t];
            o->aa_q_adjusted = aqa[t];
        }
        judge(cx, order[t].it, o, need);
    }
}

/* ---- the look ------------------------------------------------------------------------------ */

static bool params_valid(const struct bench__paired_params *p)
{
    return p->q > 0 && p->q <= 1 && p->alpha > 0 && p->alpha < 1 && p->detect > 0 &&
           p->max_rounds >= 1 && p->min_rounds_exact >= 1;
}

static bool item_valid(const struct bench__paired_item *it)
{
    const struct bench__paired_channel *ch = it->channel;
    if (!ch || (it->rounds && (!it->b || !it->c)) || !(ch->f_min >= 0) || !isfinite(ch->f_min) ||
        !(ch->min_delta >= 0) || !isfinite(ch->min_delta))
        return false;
    const double *arms[3] = {it->b, it->c, it->a};
    for (size_t k = 0; k < 3; k++) {
        for (size_t r = 0; arms[k] && r < it->rounds; r++) {
            double v = arms[k][r];
            if (!isfinite(v) || v < 0 || (v == 0 && !ch->exact))
                return false;
        }
    }
    return true;
}

/* channels_disagree: a cell one of whose channels moved up beyond its floor and another down. */
static size_t mark_disagreement(const struct bench__paired_item *items, size_t n,
                                struct bench__paired_out *out, struct keyed *order)
{
    for (size_t i = 0; i < n; i++) {
        order[i] = (struct keyed){&items[i], i};
        out[i].channels_disagree = false;
    }
    qsort(order, n, sizeof *order, by_cell);
    size_t cells = 0;
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n && cell_compare(order[s].it, order[e].it) == 0)
            e++;
        bool up = false, down = false;
        for (size_t t = s; t < e; t++) {
            up |= out[order[t].i].moved > 0;
            down |= out[order[t].i].moved < 0;
        }
        if (up && down) {
            cells++;
            for (size_t t = s; t < e; t++)
                out[order[t].i].channels_disagree = true;
        }
        s = e;
    }
    return cells;
}

static void verdict(const struct bench__paired_out *out, size_t n, struct bench__paired_result *r)
{
    bool aa_changed = false, regression = false, unconfirmed = false, open = n == 0;
    unsigned needed = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bench__paired_out *o = &out[i];
        aa_changed |= o->reason && strcmp(o->reason, "aa_control_changed") == 0;
        regression |= o->state == BENCH__PAIRED_REGRESSION;
        unconfirmed |= o->state == BENCH__PAIRED_UNCONFIRMED && o->moved > 0;
        if (o->state != BENCH__PAIRED_NO_CHANGE && !claimed(o)) {
            open = true;
            if (o->rounds_needed > needed)
                needed = o->rounds_needed;
        }
    }
    r->verdict = "UNMEASURED";
    r->exit_code = 2;
    if (aa_changed) {
        r->reason = "aa_control_changed";
    } else if (regression) {
        r->verdict = "REGRESSION";
        r->exit_code = 1;
        r->reason = "claimed_regression";
    } else if (unconfirmed) {
        r->reason = "unconfirmed_regression";
        r->rounds_needed = needed;
    } else if (open) {
        r->reason = "unmeasured_cells"; /* a cell not shown equal is never a pass */
        r->rounds_needed = needed;
    } else {
        r->verdict = "PASS";
        r->exit_code = 0;
        r->reason = NULL;
    }
}

int bench__paired_look(const struct bench__paired_params *params, size_t look,
                       const struct bench__paired_item *items, size_t n,
                       const struct bench__paired_out *prev, struct bench__paired_out *out,
                       struct bench__paired_result *result, size_t *bad_item)
{
    if (bad_item)
        *bad_item = SIZE_MAX;
    if (!params || !result || (n && (!items || !out)) || !params_valid(params) ||
        look >= bench__paired_looks(params))
        return BENCH_EINVAL;
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) {
        if (!item_valid(&items[i])) {
            if (bad_item)
                *bad_item = i;
            return BENCH_EINVAL;
        }
        if (items[i].rounds > cap)
            cap = items[i].rounds;
    }
    size_t slots = n ? n : 1;
    struct keyed *order = bench__xmalloc(slots * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = (struct keyed){&items[i], i};
    qsort(order, n, sizeof *order, by_channel);
    for (size_t t = 1; t < n; t++) { /* one name, one kind */
        const struct bench__paired_channel *a = order[t - 1].it->channel, *b = order[t].it->channel;
        if (strcmp(str(a->name), str(b->name)) == 0 && a->exact != b->exact) {
            if (bad_item)
                *bad_item = order[t].i;
            free(order);
            return BENCH_EINVAL;
        }
    }

    double share = bench__paired_look_share(params, look);
    struct look_ctx cx = {
        .params = params,
        .look = look,
        .look_rounds = bench__paired_look_rounds(params, look),
        .alpha = params->alpha * share,
        .q = params->q * share,
        .d = bench__xmalloc(cap * sizeof(double)),
        .e = bench__xmalloc(cap * sizeof(double)),
        .tmp = bench__xmalloc(2 * cap * sizeof(double)),
    };
    bool *fresh = bench__xcalloc(slots, sizeof *fresh);
    for (size_t i = 0; i < n; i++) {
        if (prev && prev[i].decided) {
            out[i] = prev[i];
            continue;
        }
        fresh[i] = true;
        const struct bench__paired_item *it = &items[i];
        out_blank(&out[i], &cx);
        if (it->channel->exact)
            eval_exact(&cx, it, &out[i]);
        else
            eval_timed(&cx, it, &out[i], it->rounds < cx.look_rounds ? it->rounds : cx.look_rounds);
    }

    /* Benjamini-Hochberg and the states, one channel at a time. */
    double *scratch = bench__xmalloc(4 * slots * sizeof *scratch);
    bool *rej = bench__xmalloc(2 * slots * sizeof *rej);
    struct bench__p_at *sorted = bench__xmalloc(slots * sizeof *sorted);
    *result = (struct bench__paired_result){
        .look = look,
        .looks = bench__paired_looks(params),
        .items = n,
    };
    result->last_look = look + 1 == result->looks;
    bool timed_family = false, short_family = false;
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n &&
               strcmp(str(order[s].it->channel->name), str(order[e].it->channel->name)) == 0)
            e++;
        judge_channel(&cx, order + s, e - s, fresh, out, scratch, rej, sorted);
        if (!order[s].it->channel->exact) {
            size_t need = bench__paired_claim_rounds(params, e - s);
            timed_family = true;
            short_family |= need == 0;
            if (need > result->claim_rounds)
                result->claim_rounds = need;
        }
        s = e;
    }
    if (!timed_family || short_family)
        result->claim_rounds = 0;
    result->bh_short = short_family;

    result->disagreeing_cells = mark_disagreement(items, n, out, order);
    for (size_t i = 0; i < n; i++)
        result->decided += out[i].decided;
    result->all_decided = result->decided == n;
    verdict(out, n, result);

    free(scratch);
    free(rej);
    free(sorted);
    free(fresh);
    free(order);
    free(cx.d);
    free(cx.e);
    free(cx.tmp);
    bench__sr_cache_free(&cx.cache);
    return 0;
}
