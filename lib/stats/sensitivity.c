/* SPDX-License-Identifier: MIT */
/* sensitivity.c: owns what a comparison could have seen: the runs that would likely bring a
 * cell's A/A floor under --detect, and the stopping rule of --runs=auto, which reads the baseline
 * and A/A arms and run counts only (docs/explanation/statistics.md). Pure arithmetic. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "compare.h"
#include "engine.h"

/* ---- runs_needed of a floor above detect -------------------------------------------------- */

/* 1.4826 · MAD turns the median absolute deviation into σ for normal data. */
#define MAD_TO_SIGMA 1.4826

/* |ln v − median(ln v)| of one arm's values, appended to dev. */
static void log_deviations(const struct bench__arm *a, double *scratch, double *dev)
{
    for (size_t i = 0; i < a->n; i++)
        scratch[i] = log(a->values[i]);
    memcpy(dev, scratch, a->n * sizeof *dev);
    bench__sort_doubles(dev, a->n);
    double mid = bench__median_sorted(dev, a->n);
    for (size_t i = 0; i < a->n; i++)
        dev[i] = fabs(scratch[i] - mid);
}

unsigned bench__floor_runs_needed(const struct bench__arm *base, const struct bench__arm *aa,
                                  double detect)
{
    if (!base || !aa || base->n == 0 || aa->n == 0 || !(detect > 0) || !base->values || !aa->values)
        return 0;
    size_t n = base->n + aa->n;
    double *dev = bench__xmalloc(n * sizeof *dev), *scratch = bench__xmalloc(n * sizeof *scratch);
    log_deviations(base, scratch, dev);
    log_deviations(aa, scratch, dev + base->n);
    bench__sort_doubles(dev, n);
    double spread = MAD_TO_SIGMA * bench__median_sorted(dev, n);
    free(dev);
    free(scratch);

    double more = (double)(base->n < aa->n ? base->n : aa->n) + 1.0;
    double want = ceil(pow(BENCH__FLOOR_SPREAD_FACTOR * spread / detect, 2.0));
    if (!(want >= more)) /* a spread of 0, an infinite detect */
        want = more;
    if (want > (double)BENCH__FLOOR_RUNS_MAX)
        want = (double)BENCH__FLOOR_RUNS_MAX;
    return (unsigned)want;
}

/* ---- runs_needed of a CI wider than detect ---------------------------------------------- */

unsigned bench__ci_runs_needed(size_t n, double rel_delta, double ci_lo, double ci_hi,
                               double detect)
{
    if (n == 0 || !isfinite(rel_delta) || !isfinite(ci_lo) || !isfinite(ci_hi) ||
        !isfinite(detect) || !(detect > fabs(rel_delta)))
        return 0;
    double half = (ci_hi - ci_lo) / 2.0;
    double want = ceil((double)n * pow(half / (detect - fabs(rel_delta)), 2.0));
    double more = (double)n + 1.0;
    if (!(want >= more))
        want = more;
    if (want > (double)BENCH__FLOOR_RUNS_MAX)
        want = (double)BENCH__FLOOR_RUNS_MAX;
    return (unsigned)want;
}

/* ---- what Benjamini-Hochberg could confirm at these run counts ------------------------- */

/* C(n, k) in double: exact while it fits in 53 bits, which is where it matters. */
static double choose(size_t n, size_t k)
{
    if (k > n - k)
        k = n - k;
    double c = 1.0;
    for (size_t i = 1; i <= k; i++)
        c = c * (double)(n - k + i) / (double)i;
    return c;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

size_t bench__bh_min_cells(const size_t *nb, const size_t *nc, size_t m, double q)
{
    if (m == 0 || !nb || !nc || !(q > 0))
        return 0;
    /* 1 / p_min = C(nb + nc, nc) / 2, largest first: the k cells likeliest to pass. */
    double *inv = bench__xmalloc(m * sizeof *inv);
    for (size_t i = 0; i < m; i++)
        inv[i] = nb[i] && nc[i] ? choose(nb[i] + nc[i], nc[i]) : 0.0;
    qsort(inv, m, sizeof *inv, cmp_desc);
    size_t k = 0;
    for (size_t j = 1; j <= m && k == 0; j++) /* p_min(j) ≤ j·q/m ⟺ 2·m ≤ j·q·C */
        if (2.0 * (double)m <= (double)j * q * inv[j - 1])
            k = j;
    free(inv);
    return k;
}

/* ---- the stopping rule of --runs=auto --------------------------------------------------- */

int bench__auto_more_runs(const struct bench__cmp_params *params,
                          const struct bench__aa_cell *cells, size_t n, size_t runs_done,
                          bool *more, size_t *pending, size_t *bad_cell)
{
    if (bad_cell)
        *bad_cell = SIZE_MAX;
    if (!params || !more || (n && !cells) || !(params->detect > 0) || params->resamples == 0 ||
        !(params->alpha > 0 && params->alpha < 1) || !(params->f_min >= 0))
        return BENCH_EINVAL;
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) {
        if (!bench__arm_valid(&cells[i].base) || !bench__arm_valid(&cells[i].aa) ||
            cells[i].base.n > UINT32_MAX || cells[i].aa.n > UINT32_MAX) {
            if (bad_cell)
                *bad_cell = i;
            return BENCH_EINVAL;
        }
        if (cells[i].base.n > cap)
            cap = cells[i].base.n;
        if (cells[i].aa.n > cap)
            cap = cells[i].aa.n;
    }
    size_t k = bench__ci_k(params->resamples, params->alpha);
    struct bench__boot_ws ws;
    bench__boot_ws_init(&ws, cap, k);
    size_t min_runs = params->min_runs ? params->min_runs : 1;
    size_t considered = 0, waiting = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bench__aa_cell *c = &cells[i];
        /* A cell missing from an arm in every run so far: more runs of the same builds are
         * not expected to bring it, and waiting for it would only spend the budget. */
        if (c->base.n == 0 || c->aa.n == 0 || c->n_candidate == 0)
            continue;
        considered++;
        if (c->base.n < min_runs || c->aa.n < min_runs || c->n_candidate < min_runs) {
            waiting++;
            continue;
        }
        double lo, hi;
        uint64_t seed;
        double floor = bench__aa_floor_core(params, c->scenario, c->operation, &c->base, &c->aa, k,
                                            &ws, &lo, &hi, &seed);
        waiting += floor > params->detect;
    }
    bench__boot_ws_free(&ws);
    /* Enough runs for Benjamini-Hochberg to confirm a change in a family of this size. */
    bool bh_short = considered > 0 && runs_done < bench__runs_needed(considered, params->q);
    *more = waiting > 0 || bh_short;
    if (pending)
        *pending = waiting;
    return 0;
}
