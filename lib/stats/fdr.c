/* SPDX-License-Identifier: MIT */
/* fdr.c: owns Benjamini-Hochberg over a family of p values: which cells it rejects and
 * their adjusted q. Pure arithmetic. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "compare.h"
#include "engine.h"

/* ---- Benjamini–Hochberg ---------------------------------------------------------------- */

int bench__p_at_compare(const void *pa, const void *pb)
{
    const struct bench__p_at *a = pa, *b = pb;
    if (a->p != b->p)
        return (a->p > b->p) - (a->p < b->p);
    return (a->i > b->i) - (a->i < b->i);
}

size_t bench__bh_core(const double *p, size_t m, double q, bool *rejected, double *q_adjusted,
                      struct bench__p_at *sorted)
{
    for (size_t i = 0; i < m; i++)
        sorted[i] = (struct bench__p_at){p[i], i};
    qsort(sorted, m, sizeof *sorted, bench__p_at_compare);
    size_t k_star = 0;
    for (size_t k = m; k >= 1; k--) {
        if (sorted[k - 1].p <= (double)k * q / (double)m) {
            k_star = k;
            break;
        }
    }
    double cut = k_star ? sorted[k_star - 1].p : -INFINITY;
    double run = 1.0;
    for (size_t j = m; j >= 1; j--) {
        double v = (double)m * sorted[j - 1].p / (double)j;
        if (v < run)
            run = v;
        q_adjusted[sorted[j - 1].i] = run;
    }
    for (size_t i = 0; i < m; i++)
        rejected[i] = k_star > 0 && p[i] <= cut;
    return k_star;
}

size_t bench__bh(const double *p, size_t m, double q, bool *rejected, double *q_adjusted)
{
    if (m == 0)
        return 0;
    struct bench__p_at *sorted = bench__xmalloc(m * sizeof *sorted);
    size_t k = bench__bh_core(p, m, q, rejected, q_adjusted, sorted);
    free(sorted);
    return k;
}
