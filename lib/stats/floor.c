/* SPDX-License-Identifier: MIT */
/* floor.c: owns what both the engine (compare.c) and --runs=auto (sensitivity.c) read of a cell:
 * the check of an arm and the A/A interval with its floor. It calls only the bootstrap and the
 * streams below it, never the engine or the stopping rule. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>

#include "compare.h"
#include "engine.h"

bool bench__arm_valid(const struct bench__arm *a)
{
    if (a->n == 0)
        return true;
    if (!a->values || !a->runs)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (!isfinite(a->values[i]) || !(a->values[i] > 0))
            return false;
        if (i > 0 && a->runs[i] <= a->runs[i - 1])
            return false;
    }
    return true;
}

double bench__aa_floor_core(const struct bench__cmp_params *params, const char *scenario,
                            const char *operation, const struct bench__arm *base,
                            const struct bench__arm *aa, size_t k, struct bench__boot_ws *ws,
                            double *lo, double *hi, uint64_t *seed)
{
    const char *sb = params->subj_b ? params->subj_b : "";
    const char *sa = params->subj_a ? params->subj_a : "";
    *seed = bench__stream_seed(params->global_seed, sb, sa, scenario ? scenario : "",
                               operation ? operation : "");
    bool paired;
    bench__boot_core(base, aa, *seed, params->resamples, k, ws, lo, hi, &paired);
    return fmax(params->f_min, fmax(fabs(*lo), fabs(*hi)));
}
