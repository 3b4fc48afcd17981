/* SPDX-License-Identifier: MIT */
/* workload.h: the workload model's entry point: measure every WORKLOAD of a suite as windows. */
#ifndef BENCH_WORKLOAD_WORKLOAD_H
#define BENCH_WORKLOAD_WORKLOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "../catalog/catalog.h"
#include "../model/window.h"
#include "../suite/registry.h"

/* Who hears of each workload as it runs (every field may be zero). */
struct bench__workload_hooks {
    void *arg;
    /* the once-per-run disclosures (scope, run queue, PSI, window floors) were made by an earlier
     * process of this run: not repeated */
    bool disclosed;
    void (*begin)(void *arg, const struct bench__entry *e);
    /* out->windows[index] is finished (called between windows, never inside one) */
    void (*window)(void *arg, size_t index);
    /* the workload ended; `failures`: its failures outside any window */
    void (*end)(void *arg, const struct bench__entry *e, size_t failures);
};

/* Measure every WORKLOAD of the suite (`order`: suite indices, in full-name order) with the
 * catalog's open sources. Notes go to `err`. */
BENCH__HIDDEN void bench__workloads_run(const struct bench__config *cfg,
                                        const struct bench__suite *suite, const size_t *order,
                                        size_t n_order, struct bench__catalog *catalog,
                                        struct bench__workloads *out, FILE *err,
                                        const struct bench__workload_hooks *hooks);

#endif /* BENCH_WORKLOAD_WORKLOAD_H */
