/* SPDX-License-Identifier: MIT */
/* compare.c: owns the comparison engine (compare.h): per cell the medians, the bootstrap CI and
 * its A/A floor, the p values, then Benjamini-Hochberg across the family, the cell states (a
 * floor or a CI beyond --detect, too few runs for BH included) and the verdict
 * (docs/explanation/statistics.md). Results never depend on the order or the threads in which cells
 * are computed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/alloc.h"
#include "compare.h"
#include "engine.h"

/* ---- the engine ------------------------------------------------------------------------ */

void bench__cmp_defaults(struct bench__cmp_params *p)
{
    *p = (struct bench__cmp_params){
        .min_runs = 3,
        .q = 0.05,
        .f_min = 0.03,
        .min_delta = 0,
        .resamples = 10000,
        .alpha = 0.05,
        .detect = 0.10,
        .global_seed = 0,
        .subj_b = NULL,
        .subj_c = NULL,
        .subj_a = NULL,
        .global_floor = 0,
    };
}

const char *bench__cmp_state_name(enum bench__cmp_state state)
{
    switch (state) {
    case BENCH__CMP_CLAIMED: return "CLAIMED";
    case BENCH__CMP_UNCONFIRMED: return "UNCONFIRMED";
    case BENCH__CMP_NO_CLAIM: return "NO_CLAIM";
    case BENCH__CMP_UNMEASURED: return "UNMEASURED";
    case BENCH__CMP_NO_CHANGE: return "NO_CHANGE";
    }
    return "?";
}

static bool params_valid(const struct bench__cmp_params *p)
{
    return p->q > 0 && p->q <= 1 && p->alpha > 0 && p->alpha < 1 && p->f_min >= 0 &&
           isfinite(p->f_min) && p->min_delta >= 0 && isfinite(p->min_delta) && p->resamples > 0 &&
           p->detect > 0 && /* detect may be INFINITY, never NaN */
           (p->global_floor == BENCH__CMP_GLOBAL_FLOOR_WORST ||
            (p->global_floor >= 0 && isfinite(p->global_floor)));
}

static void cell_unmeasured(struct bench__cmp_cell_out *o, const struct bench__cmp_cell_in *in,
                            const char *reason)
{
    *o = (struct bench__cmp_cell_out){
        .n_baseline = in->base.n,
        .n_candidate = in->cand.n,
        .n_aa = in->aa.n,
        .median_baseline = NAN,
        .median_candidate = NAN,
        .median_aa = NAN,
        .rel_delta = NAN,
        .abs_delta = NAN,
        .ci_lo = NAN,
        .ci_hi = NAN,
        .aa_ci_lo = NAN,
        .aa_ci_hi = NAN,
        .floor = NAN,
        .p = NAN,
        .q_adjusted = NAN,
        .state = BENCH__CMP_UNMEASURED,
        .reason = reason,
        .aa_p = NAN,
        .aa_q_adjusted = NAN,
    };
}

/* p of B vs X: exact when C(N, n_small) ≤ 2^63, else the normal approximation. */
static int cell_p(const struct bench__arm *base, const struct bench__arm *x, double *p,
                  const char **method, uint64_t *num, uint64_t *den)
{
    int rc = bench__mw_exact_core(base->values, base->n, x->values, x->n, num, den);
    if (rc == 0) {
        *p = (double)*num / (double)*den;
        *method = "exact";
        return 0;
    }
    if (rc != 1)
        return rc;
    *num = *den = 0;
    *method = "normal";
    *p = bench__mw_normal(base->values, base->n, x->values, x->n);
    return 0;
}

/* The bootstrap CI must lie wholly beyond `floor` on one side. */
static bool ci_beyond(double lo, double hi, double floor)
{
    return lo > floor || hi < -floor;
}

/* One cell alone: medians, the CI and its A/A floor, the p values: everything that does not
 * depend on the other cells. */
static int cell_measure(const struct bench__cmp_params *params, const struct bench__cmp_cell_in *in,
                        struct bench__cmp_cell_out *o, size_t k, struct bench__boot_ws *ws)
{
    size_t min_runs = params->min_runs ? params->min_runs : 1; /* an empty arm never counts */
    if (in->base.n < min_runs || in->cand.n < min_runs) {
        cell_unmeasured(o, in, "insufficient_runs");
        return 0;
    }
    if (in->aa.n < min_runs) {
        cell_unmeasured(o, in, "no_aa_floor");
        return 0;
    }
    const char *sb = params->subj_b ? params->subj_b : "";
    const char *sc = params->subj_c ? params->subj_c : "";
    const char *scen = in->scenario ? in->scenario : "";
    const char *op = in->operation ? in->operation : "";
    *o = (struct bench__cmp_cell_out){
        .n_baseline = in->base.n,
        .n_candidate = in->cand.n,
        .n_aa = in->aa.n,
        .state = BENCH__CMP_NO_CLAIM,
        .tested = true,
    };
    o->median_baseline = bench__median_of(in->base.values, in->base.n);
    o->median_candidate = bench__median_of(in->cand.values, in->cand.n);
    o->median_aa = bench__median_of(in->aa.values, in->aa.n);
    o->rel_delta = (o->median_candidate - o->median_baseline) / o->median_baseline;
    o->abs_delta = o->median_candidate - o->median_baseline;

    o->seed = bench__stream_seed(params->global_seed, sb, sc, scen, op);
    bench__boot_core(&in->base, &in->cand, o->seed, params->resamples, k, ws, &o->ci_lo, &o->ci_hi,
                     &o->paired);
    o->floor = bench__aa_floor_core(params, scen, op, &in->base, &in->aa, k, ws, &o->aa_ci_lo,
                                    &o->aa_ci_hi, &o->aa_seed);

    int rc = cell_p(&in->base, &in->cand, &o->p, &o->p_method, &o->p_numerator, &o->p_denominator);
    if (rc != 0)
        return rc;
    const char *aa_method;
    uint64_t aa_num, aa_den;
    return cell_p(&in->base, &in->aa, &o->aa_p, &aa_method, &aa_num, &aa_den);
}

/* Cells are independent (each bootstrap has its own stream), so they are spread over up to
 * MEASURE_THREADS_MAX threads, cell i to worker i mod T: the results are the same for any T. */
#define MEASURE_THREADS_MAX 8
#define MEASURE_THREADED_RESAMPLES 200000 /* below this much work, one thread is faster */

struct measure_job {
    const struct bench__cmp_params *params;
    const struct bench__cmp_cell_in *cells;
    struct bench__cmp_cell_out *out;
    size_t n, first, step, cap, k;
    int rc;
};

static void *measure_worker(void *arg)
{
    struct measure_job *job = arg;
    struct bench__boot_ws ws;
    bench__boot_ws_init(&ws, job->cap, job->k);
    for (size_t i = job->first; i < job->n && job->rc == 0; i += job->step)
        job->rc = cell_measure(job->params, &job->cells[i], &job->out[i], job->k, &ws);
    bench__boot_ws_free(&ws);
    return NULL;
}

static int measure_cells(const struct bench__cmp_params *params,
                         const struct bench__cmp_cell_in *cells, size_t n,
                         struct bench__cmp_cell_out *out, size_t cap, size_t k)
{
    size_t threads = 1;
    if ((uint64_t)n * params->resamples >= MEASURE_THREADED_RESAMPLES) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 1 ? (size_t)cpus : 1;
        if (threads > MEASURE_THREADS_MAX)
            threads = MEASURE_THREADS_MAX;
        if (threads > n)
            threads = n;
    }
    struct measure_job jobs[MEASURE_THREADS_MAX] = {{0}};
    pthread_t tid[MEASURE_THREADS_MAX];
    bool started[MEASURE_THREADS_MAX] = {false};
    for (size_t t = 0; t < threads; t++)
        jobs[t] = (struct measure_job){params, cells, out, n, t, threads, cap, k, 0};
    for (size_t t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, measure_worker, &jobs[t]) == 0;
    measure_worker(&jobs[0]);
    int rc = jobs[0].rc;
    for (size_t t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            measure_worker(&jobs[t]); /* no thread: do its share here */
        if (rc == 0)
            rc = jobs[t].rc;
    }
    return rc;
}

int bench__compare(const struct bench__cmp_params *params, const struct bench__cmp_cell_in *cells,
                   size_t n, struct bench__cmp_cell_out *out, struct bench__cmp_result *result,
                   size_t *bad_cell)
{
    if (!params || (n && (!cells || !out)) || !result || !params_valid(params)) {
        if (bad_cell)
            *bad_cell = SIZE_MAX; /* the parameters, not a cell */
        return BENCH_EINVAL;
    }
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) {
        const struct bench__arm *arms[3] = {&cells[i].base, &cells[i].cand, &cells[i].aa};
        for (size_t a = 0; a < 3; a++) {
            if (!bench__arm_valid(arms[a]) || arms[a]->n > UINT32_MAX) {
                if (bad_cell)
                    *bad_cell = i;
                return BENCH_EINVAL;
            }
            if (arms[a]->n > cap)
                cap = arms[a]->n;
        }
    }

    /* Each cell alone. */
    size_t k = bench__ci_k(params->resamples, params->alpha);
    int rc = measure_cells(params, cells, n, out, cap, k);
    if (rc != 0)
        return rc;

    size_t slots = n ? n : 1;
    size_t *tested = bench__xmalloc(slots * sizeof *tested);
    double *p = bench__xcalloc(slots * 4, sizeof *p); /* p, q_adj, aa_p, aa_q_adj */
    bool *rej = bench__xcalloc(slots * 2, sizeof *rej);
    struct bench__p_at *order = bench__xmalloc(slots * sizeof *order);
    double *q_adj = p + n, *aa_p = p + 2 * n, *aa_q_adj = p + 3 * n;
    bool *aa_rej = rej + n;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (out[i].state == BENCH__CMP_UNMEASURED)
            continue;
        tested[m] = i;
        p[m] = out[i].p;
        aa_p[m] = out[i].aa_p;
        m++;
    }

    /* Benjamini-Hochberg over the family, and over the A/A family. */
    bench__bh_core(p, m, params->q, rej, q_adj, order);
    bench__bh_core(aa_p, m, params->q, aa_rej, aa_q_adj, order);
    unsigned runs_needed = bench__runs_needed(m, params->q);

    /* --global-noise-floor: every tested cell takes at least the given floor, or the largest
     * A/A floor of the family (seed 000): a claim must clear the noisiest cell's noise. */
    double global = NAN;
    if (params->global_floor == BENCH__CMP_GLOBAL_FLOOR_WORST) {
        global = 0;
        for (size_t t = 0; t < m; t++)
            if (out[tested[t]].floor > global)
                global = out[tested[t]].floor;
    } else if (params->global_floor > 0) {
        global = params->global_floor;
    }
    if (!isnan(global))
        for (size_t t = 0; t < m; t++)
            if (out[tested[t]].floor < global)
                out[tested[t]].floor = global;

    /* What Benjamini-Hochberg could confirm at all with these run counts: when nothing, no cell
     * claims anything either way, NO_CHANGE included (the rule of statistics.md, "A PASS is an
     * equivalence claim"). */
    size_t *nb = bench__xmalloc(slots * 2 * sizeof *nb), *nc = nb + slots;
    size_t fewest = 0;
    for (size_t t = 0; t < m; t++) {
        nb[t] = out[tested[t]].n_baseline;
        nc[t] = out[tested[t]].n_candidate;
        size_t least = nb[t] < nc[t] ? nb[t] : nc[t];
        if (t == 0 || least < fewest)
            fewest = least;
    }
    size_t bh_min_cells = bench__bh_min_cells(nb, nc, m, params->q);
    free(nb);
    bool bh_none = m > 0 && bh_min_cells == 0;

    /* The state of each tested cell. A claim (CLAIMED, UNCONFIRMED) stands whatever the floor:
     * the change was seen all the same. A cell that claims nothing is an equivalence claim,
     * NO_CHANGE, only when its floor is at most params->detect and its CI lies inside
     * ±params->detect; else it is UNMEASURED (floor_above_detect, ci_wider_than_detect). With an
     * infinite detect (none asked) it is NO_CLAIM. */
    bool aa_changed = false, claimed_regression = false, unconfirmed_regression = false;
    bool above_detect = false, ci_wide = false;
    unsigned floor_runs = 0, ci_runs = 0;
    bool equivalence = isfinite(params->detect);
    for (size_t t = 0; t < m; t++) {
        struct bench__cmp_cell_out *o = &out[tested[t]];
        o->bh_rejected = rej[t];
        o->q_adjusted = q_adj[t];
        o->aa_bh_rejected = aa_rej[t];
        o->aa_q_adjusted = aa_q_adj[t];

        bool excl0 = o->ci_lo > 0 || o->ci_hi < 0;
        bool beyond = ci_beyond(o->ci_lo, o->ci_hi, o->floor);
        bool absok = fabs(o->abs_delta) >= params->min_delta;
        bool inside = o->ci_lo >= -params->detect && o->ci_hi <= params->detect;
        const char *direction = o->rel_delta > 0 ? "regression" : "improvement";
        if (excl0 && beyond && absok) {
            o->direction = direction;
            if (o->bh_rejected) {
                o->state = BENCH__CMP_CLAIMED;
                claimed_regression |= o->rel_delta > 0;
            } else {
                o->state = BENCH__CMP_UNCONFIRMED;
                o->runs_needed = runs_needed;
                unconfirmed_regression |= o->rel_delta > 0;
            }
        } else {
            o->state = BENCH__CMP_NO_CLAIM;
            o->reason = !excl0    ? "ci_includes_zero"
                        : !beyond ? "ci_within_floor"
                                  : "below_min_delta";
            const struct bench__cmp_cell_in *in = &cells[tested[t]];
            if (o->floor > params->detect) {
                o->state = BENCH__CMP_UNMEASURED;
                o->reason = "floor_above_detect";
                o->runs_needed = bench__floor_runs_needed(&in->base, &in->aa, params->detect);
                above_detect = true;
                if (o->runs_needed > floor_runs)
                    floor_runs = o->runs_needed;
            } else if (equivalence && !inside && !(excl0 && beyond)) {
                /* The CI straddles a bound of ±detect: a change of detect is not ruled out. (A
                 * CI wholly beyond the floor is a change, NO_CLAIM only for --min-delta-ns.) */
                o->state = BENCH__CMP_UNMEASURED;
                o->reason = "ci_wider_than_detect";
                size_t least = o->n_baseline < o->n_candidate ? o->n_baseline : o->n_candidate;
                o->runs_needed =
                    bench__ci_runs_needed(least, o->rel_delta, o->ci_lo, o->ci_hi, params->detect);
                ci_wide = true;
                if (o->runs_needed > ci_runs)
                    ci_runs = o->runs_needed;
            } else if (equivalence && bh_none) {
                o->state = BENCH__CMP_UNMEASURED;
                o->reason = "too_few_runs_for_bh";
                o->runs_needed = runs_needed;
            } else if (equivalence && inside) {
                o->state = BENCH__CMP_NO_CHANGE;
            }
        }

        double aa_abs_delta = o->median_aa - o->median_baseline;
        o->aa_confirmed_change = o->aa_bh_rejected && (o->aa_ci_lo > 0 || o->aa_ci_hi < 0) &&
                                 ci_beyond(o->aa_ci_lo, o->aa_ci_hi, params->f_min) &&
                                 fabs(aa_abs_delta) >= params->min_delta;
        aa_changed |= o->aa_confirmed_change;
    }

    /* The verdict: the first matching row of the table in docs/explanation/statistics.md wins. */
    *result = (struct bench__cmp_result){.family_size = m,
                                         .bh_min_cells = bh_min_cells,
                                         .bh_fewest_runs = fewest,
                                         .global_floor = global};
    for (size_t t = 0; t < m; t++)
        result->detectable_cells += out[tested[t]].floor <= params->detect;
    unsigned most = floor_runs > ci_runs ? floor_runs : ci_runs;
    if (aa_changed) {
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "aa_control_changed";
    } else if (claimed_regression) {
        result->verdict = "REGRESSION";
        result->exit_code = 1;
        result->reason = "claimed_regression";
    } else if (unconfirmed_regression) {
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "unconfirmed_regression";
        result->runs_needed = runs_needed;
    } else if (bh_none && equivalence) {
        /* No change could be confirmed: no claim at all, neither a regression nor a PASS. */
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "too_few_runs_for_bh";
        result->runs_needed = runs_needed;
    } else if (m < n || n == 0) {
        /* A missing cell is never a pass, and neither is a comparison of nothing. */
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "unmeasured_cells";
    } else if (above_detect || ci_wide) {
        /* PASS needs every cell's CI inside ±params->detect and its floor under it */
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = above_detect ? "floor_above_detect" : "ci_wider_than_detect";
        result->runs_needed = most > runs_needed ? most : runs_needed;
    } else {
        result->verdict = "PASS";
        result->exit_code = 0;
        result->reason = NULL;
    }
    free(tested);
    free(p);
    free(rej);
    free(order);
    return 0;
}
