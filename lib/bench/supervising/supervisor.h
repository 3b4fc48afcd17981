/* SPDX-License-Identifier: MIT */
/* supervisor.h: a --bench run measured by worker processes that this process supervises. */
#ifndef BENCH_BENCH_SUPERVISING_SUPERVISOR_H
#define BENCH_BENCH_SUPERVISING_SUPERVISOR_H

#include "../../suite/registry.h"
#include "collector.h"

/* Measure the suite in a worker process, one at a time, its events collected into `c`. A
 * worker that dies (a signal, exit) or works on one item past --bench-timeout has its process
 * group killed; the item becomes an error row and a new worker continues after it. Returns when
 * the run is complete. */
BENCH__HIDDEN void bench__supervise(const struct bench__config *cfg,
                                    const struct bench__suite *suite, struct bench__collector *c);

#endif /* BENCH_BENCH_SUPERVISING_SUPERVISOR_H */
