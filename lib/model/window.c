/* SPDX-License-Identifier: MIT */
/* window.c: owns the lifetime of window records and the regime words (see window.h). It
 * measures nothing. */
#include <stdlib.h>
#include <string.h>

#include "window.h"

void bench__workloads_free(struct bench__workloads *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->windows[i].name);
        free(w->windows[i].error);
        free(w->windows[i].totals);
        free(w->windows[i].groups);
        free(w->windows[i].note);
        free(w->windows[i].regime);
    }
    free(w->windows);
    for (size_t i = 0; i < w->n_descs; i++)
        free(w->descs[i]);
    free(w->descs);
    memset(w, 0, sizeof *w);
}

const char *bench__regime_word(enum bench_cache_regime regime)
{
    switch (regime) {
    case BENCH_CACHE_STEADY: return "steady";
    case BENCH_CACHE_WARM: return "warm";
    case BENCH_CACHE_COLD: return "cold";
    }
    return "?";
}

const char *bench__regime_json_word(enum bench_cache_regime regime)
{
    switch (regime) {
    case BENCH_CACHE_STEADY: return "steadyState";
    case BENCH_CACHE_WARM: return "warm";
    case BENCH_CACHE_COLD: return "cold";
    }
    return "?";
}
