/* SPDX-License-Identifier: MIT */
/* workload.h: the workload model's entry point: measure every WORKLOAD of a suite as windows. */
#ifndef BENCH_WORKLOAD_WORKLOAD_H
#define BENCH_WORKLOAD_WORKLOAD_H

#include <stdio.h>

#include "../catalog/catalog.h"
#include "../model/window.h"
#include "../suite/registry.h"

/* Measure every WORKLOAD of the suite (`order`: suite indices, in full-name order) with the
 * catalog's open sources. Notes go to `err`. */
BENCH__HIDDEN void bench__workloads_run(const struct bench__config *cfg,
                                        const struct bench__suite *suite, const size_t *order,
                                        size_t n_order, struct bench__catalog *catalog,
                                        struct bench__workloads *out, FILE *err);

#endif /* BENCH_WORKLOAD_WORKLOAD_H */
