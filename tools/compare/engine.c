/* SPDX-License-Identifier: MIT */
/* engine.c: owns what `libbench compare` hands the comparison engine (lib/stats/compare.h): its
 * parameters from the options, each cell's arms (the runs with a value, numbered from 1), the
 * stopping rule of --runs=auto and the comparison itself, and a refused cell named. It runs,
 * reads and prints nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "stats/compare.h"
#include "util/alloc.h"
#include "util/text.h"

void compare_engine_params(const struct compare_options *o, struct bench__cmp_params *params)
{
    bench__cmp_defaults(params);
    params->q = o->q;
    params->min_delta = o->min_delta_ns;
    params->detect = o->detect;
    params->global_seed = o->seed;
    params->global_floor = o->global_floor;
    params->subj_b = compare_subject_names[SUBJ_BASELINE];
    params->subj_c = compare_subject_names[SUBJ_CANDIDATE];
    params->subj_a = compare_subject_names[SUBJ_AA];
}

/* One arm of a cell for the engine: the runs with a value, ascending run numbers (from 1). */
static void arm_of(const struct compare_cell *c, size_t s, size_t runs, double *values,
                   uint64_t *run_ids, struct bench__arm *arm)
{
    arm->values = values;
    arm->runs = run_ids;
    arm->n = 0;
    for (size_t r = 0; r < runs; r++) {
        if (isnan(c->values[s][r]))
            continue;
        values[arm->n] = c->values[s][r];
        run_ids[arm->n] = r + 1;
        arm->n++;
    }
}

/* A cell the engine refused, named in err; always -1. */
static int refused(const char *scenario, const char *operation, int code, char *err,
                   size_t err_size)
{
    char name[128], op[128];
    bench__sanitize_copy(scenario, name, sizeof name);
    bench__sanitize_copy(operation, op, sizeof op);
    bench__fmt(err, err_size, "the engine refused cell '%s' {%s} (error %d)", name, op, code);
    return -1;
}

int compare_auto_more(struct compare_state *st, size_t runs, bool *more, size_t *pending,
                      size_t *usable, char *err, size_t err_size)
{
    for (size_t s = 0; s < N_SUBJECTS; s++)
        st->n_runs[s] = runs;
    if (st->opts.metric_exact) {
        /* an exact count has no noise to wait out: the first runs decide */
        *more = false;
        if (pending)
            *pending = 0;
        *usable = 0;
        return 0;
    }
    compare_assemble(st);
    size_t n = st->n_cells ? st->n_cells : 1;
    struct bench__aa_cell *cells = bench__xcalloc(n, sizeof *cells);
    double *values = bench__xmalloc(n * 2 * runs * sizeof *values);
    uint64_t *run_ids = bench__xmalloc(n * 2 * runs * sizeof *run_ids);
    /* The candidate's values are not handed over: only how many runs gave one. */
    for (size_t i = 0; i < st->n_cells; i++) {
        const struct compare_cell *c = &st->cells[i];
        cells[i].scenario = c->row->name;
        cells[i].operation = c->row->operation;
        arm_of(c, SUBJ_BASELINE, runs, values + 2 * i * runs, run_ids + 2 * i * runs,
               &cells[i].base);
        arm_of(c, SUBJ_AA, runs, values + (2 * i + 1) * runs, run_ids + (2 * i + 1) * runs,
               &cells[i].aa);
        for (size_t r = 0; r < runs; r++)
            cells[i].n_candidate += !isnan(c->values[SUBJ_CANDIDATE][r]);
    }
    *usable = 0;
    for (size_t i = 0; i < st->n_cells; i++)
        *usable += cells[i].base.n > 0 && cells[i].aa.n > 0 && cells[i].n_candidate > 0;
    struct bench__cmp_params params;
    compare_engine_params(&st->opts, &params);
    size_t bad = 0;
    int rc = bench__auto_more_runs(&params, cells, st->n_cells, runs, more, pending, &bad);
    if (rc != 0)
        rc = refused(bad < st->n_cells ? cells[bad].scenario : "?",
                     bad < st->n_cells ? cells[bad].operation : "", rc, err, err_size);
    free(cells);
    free(values);
    free(run_ids);
    compare_cells_free(st);
    return rc;
}

/* The engine's input arms of every cell: present runs only, ascending run numbers. */
int compare_analyse(struct compare_state *st, const struct bench__cmp_params *params,
                    struct bench__cmp_cell_out *out, struct bench__cmp_result *result, char *err,
                    size_t err_size)
{
    size_t n = st->n_cells;
    struct bench__cmp_cell_in *in = bench__xcalloc(n ? n : 1, sizeof *in);
    size_t total = 0;
    for (size_t s = 0; s < N_SUBJECTS; s++)
        total += st->n_runs[s];
    double *values = bench__xmalloc((n ? n : 1) * (total ? total : 1) * sizeof *values);
    uint64_t *runs = bench__xmalloc((n ? n : 1) * (total ? total : 1) * sizeof *runs);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const struct compare_cell *c = &st->cells[i];
        in[i].scenario = c->row->name;
        in[i].operation = c->row->operation;
        struct bench__arm *arms[N_SUBJECTS] = {&in[i].base, &in[i].cand, &in[i].aa};
        for (size_t s = 0; s < N_SUBJECTS; s++) {
            arm_of(c, s, st->n_runs[s], values + used, runs + used, arms[s]);
            used += arms[s]->n;
        }
    }
    size_t bad = 0;
    int rc = st->opts.metric_exact ? bench__cmp_exact_counts(params, in, n, out, result, &bad)
                                   : bench__compare(params, in, n, out, result, &bad);
    if (rc != 0)
        rc = refused(bad < n ? in[bad].scenario : "?", bad < n ? in[bad].operation : "", rc, err,
                     err_size);
    free(in);
    free(values);
    free(runs);
    return rc;
}
