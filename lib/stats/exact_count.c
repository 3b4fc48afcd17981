/* SPDX-License-Identifier: MIT */
/* exact_count.c: owns the run-level comparison of an exact count (compare --metric=allocs): per
 * cell, counts that repeat exactly in every run of an arm, a floor of 0, and the verdict. It
 * never bootstraps or tests: an exact count that differs is a change, one that is equal is none. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <string.h>

#include "compare.h"
#include "engine.h"

/* The arm's count when every run gave the same one; false when they differ. */
static bool arm_constant(const struct bench__arm *a, double *value)
{
    for (size_t i = 1; i < a->n; i++)
        if (a->values[i] != a->values[0])
            return false;
    *value = a->values[0];
    return true;
}

static void exact_unmeasured(struct bench__cmp_cell_out *o, const struct bench__cmp_cell_in *in,
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

static bool arm_ok(const struct bench__arm *a)
{
    if (a->n && (!a->values || !a->runs))
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (!isfinite(a->values[i]) || a->values[i] < 0 || (i && a->runs[i] <= a->runs[i - 1]))
            return false;
    return true;
}

int bench__cmp_exact_counts(const struct bench__cmp_params *params,
                            const struct bench__cmp_cell_in *cells, size_t n,
                            struct bench__cmp_cell_out *out, struct bench__cmp_result *result,
                            size_t *bad_cell)
{
    if (bad_cell)
        *bad_cell = SIZE_MAX;
    if (!params || (n && (!cells || !out)) || !result)
        return BENCH_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!arm_ok(&cells[i].base) || !arm_ok(&cells[i].cand) || !arm_ok(&cells[i].aa)) {
            if (bad_cell)
                *bad_cell = i;
            return BENCH_EINVAL;
        }
    size_t min_runs = params->min_runs ? params->min_runs : 1;
    size_t judged = 0, fewest = 0;
    bool aa_changed = false, regression = false;
    for (size_t i = 0; i < n; i++) {
        const struct bench__cmp_cell_in *in = &cells[i];
        struct bench__cmp_cell_out *o = &out[i];
        double b, c, a;
        if (in->base.n < min_runs || in->cand.n < min_runs) {
            exact_unmeasured(o, in, "insufficient_runs");
            continue;
        }
        if (in->aa.n < min_runs) {
            exact_unmeasured(o, in, "no_aa_floor");
            continue;
        }
        if (!arm_constant(&in->base, &b) || !arm_constant(&in->cand, &c) ||
            !arm_constant(&in->aa, &a)) {
            /* runs of one build disagree: not an exact count here */
            exact_unmeasured(o, in, "count_not_exact");
            continue;
        }
        size_t least = in->base.n < in->cand.n ? in->base.n : in->cand.n;
        if (judged++ == 0 || least < fewest)
            fewest = least;
        double rel = b > 0 ? (c - b) / b : (c == b ? 0.0 : NAN);
        double aa_rel = b > 0 ? (a - b) / b : (a == b ? 0.0 : NAN);
        *o = (struct bench__cmp_cell_out){
            .n_baseline = in->base.n,
            .n_candidate = in->cand.n,
            .n_aa = in->aa.n,
            .median_baseline = b,
            .median_candidate = c,
            .median_aa = a,
            .rel_delta = rel,
            .abs_delta = c - b,
            .ci_lo = rel,
            .ci_hi = rel, /* every run gave the same count: the interval is the point */
            .aa_ci_lo = aa_rel,
            .aa_ci_hi = aa_rel,
            .floor = 0.0,
            .p = NAN,
            .q_adjusted = NAN,
            .tested = true,
            .reason = "exact_count",
            .aa_p = NAN,
            .aa_q_adjusted = NAN,
            .p_method = "count",
        };
        o->aa_confirmed_change = a != b; /* the same build counted differently */
        aa_changed |= o->aa_confirmed_change;
        if (c == b) {
            o->state = BENCH__CMP_NO_CHANGE;
        } else {
            o->state = BENCH__CMP_CLAIMED;
            o->bh_rejected = true;
            o->direction = c > b ? "regression" : "improvement";
            regression |= c > b;
        }
    }
    *result = (struct bench__cmp_result){
        .family_size = judged,
        .detectable_cells = judged, /* a floor of 0 sees any change */
        .bh_min_cells = judged ? 1 : 0,
        .bh_fewest_runs = fewest,
        .global_floor = NAN, /* an exact count's floor is 0: --global-noise-floor does not apply */
    };
    if (aa_changed) {
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "aa_control_changed";
    } else if (regression) {
        result->verdict = "REGRESSION";
        result->exit_code = 1;
        result->reason = "claimed_regression";
    } else if (judged < n || n == 0) {
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "unmeasured_cells";
    } else {
        result->verdict = "PASS";
        result->exit_code = 0;
        result->reason = NULL;
    }
    return 0;
}
