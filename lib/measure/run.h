/* SPDX-License-Identifier: MIT */
/* run.h: benchmark mode's entry point: measure the BENCHMARK and WORKLOAD tests of a suite. */
#ifndef BENCH_MEASURE_RUN_H
#define BENCH_MEASURE_RUN_H

#include "../suite/registry.h"

/* --bench (and --list-metrics): returns the exit status. */
BENCH__HIDDEN int bench__run_bench(const struct bench__config *cfg,
                                   const struct bench__suite *suite);

#endif /* BENCH_MEASURE_RUN_H */
