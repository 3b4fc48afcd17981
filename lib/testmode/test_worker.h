/* SPDX-License-Identifier: MIT */
/* test_worker.h: test mode's --isolate=worker: long-lived worker processes (one per job) that run
 * tests one after another, and hand each test's end to the runner, which renders it. */
#ifndef BENCH_TESTMODE_TEST_WORKER_H
#define BENCH_TESTMODE_TEST_WORKER_H

#include "batch_queue.h"

/* Run every test of the pool; returns 0 when all have ended and every worker is reaped, or
 * -errno when the runner could not wait for them (poll failed): the tests not ended then never
 * end (the caller reports them as not run). Call it between bench__workers_begin(n_workers) and
 * bench__workers_end. */
BENCH__HIDDEN int bench__test_workers_run(const struct bench__test_pool *pool);

#endif /* BENCH_TESTMODE_TEST_WORKER_H */
