/* SPDX-License-Identifier: MIT */
/* run.h: benchmark mode's entry point: measure the BENCHMARK and WORKLOAD tests of a suite. */
#ifndef BENCH_BENCH_SUPERVISING_RUN_H
#define BENCH_BENCH_SUPERVISING_RUN_H

#include <stdbool.h>

#include "../../suite/registry.h"

/* --bench (and --list-metrics): returns the exit status. */
BENCH__HIDDEN int bench__run_bench(const struct bench__config *cfg,
                                   const struct bench__suite *suite);
/* The test seam of supervision: when true, a run measures in this process, unsupervised, so a
 * white-box test can look at the process's state afterwards (a crashing body takes it down). */
BENCH__HIDDEN extern bool bench__bench_in_process;

#endif /* BENCH_BENCH_SUPERVISING_RUN_H */
