/* SPDX-License-Identifier: MIT */
/* test_worker.h: test mode's --isolate=worker: long-lived worker processes (one per job) that run
 * tests one after another, and hand each test's end to the runner, which renders it. */
#ifndef BENCH_TESTMODE_TEST_WORKER_H
#define BENCH_TESTMODE_TEST_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../suite/context.h"
#include "../suite/registry.h"

/* How a test ended in a worker. */
enum bench__test_end_kind {
    BENCH__END_REPORTED,  /* the test returned, or left by a check, bench_fail or bench_skip */
    BENCH__END_DIED,      /* its worker died while it ran: `status` is the wait status */
    BENCH__END_TIMED_OUT, /* it ran past --timeout: its worker's group was killed */
    BENCH__END_NO_WORKER, /* no worker could be started for it: `error` is -errno */
};

struct bench__test_end {
    size_t index; /* into bench__test_pool.tests */
    enum bench__test_end_kind kind;
    enum bench__outcome outcome; /* BENCH__END_REPORTED */
    const char *message;         /* BENCH__END_REPORTED: the check, fail or skip text */
    int status;                  /* BENCH__END_DIED */
    bool unanswered;     /* BENCH__END_TIMED_OUT: its fork server did not answer the time-out */
    int error;           /* BENCH__END_NO_WORKER */
    int64_t duration_ns; /* on the clock that stands still while the runner is stopped;
                            negative: not measured */
    char *output;        /* what it printed (malloc'd, may be NULL): the callee owns it */
    size_t output_len;
    bool output_truncated; /* more than output_cap bytes were printed */
};

struct bench__test_pool {
    const struct bench__suite *suite;
    const size_t *tests; /* suite indices of the tests to run, in suite order */
    size_t n_tests;
    size_t n_workers;  /* at most this many at once, in bench__workers slots 0..n_workers-1 */
    unsigned timeout;  /* --timeout: seconds, 0 = none */
    size_t output_cap; /* bytes of output kept per test */
    int idle_ms;       /* the longest wait before `tick` runs again */
    void *arg;
    /* every test ends at most once (exactly once unless the run returns an error), through
     * here, in the order they end */
    void (*end)(void *arg, struct bench__test_end *end);
    /* after every wake of the loop (a test ended, output came, idle_ms passed) */
    void (*tick)(void *arg);
};

/* Run every test of the pool; returns 0 when all have ended and every worker is reaped, or
 * -errno when the runner could not wait for them (poll failed): the tests not ended then never
 * end (the caller reports them as not run). Call it between bench__workers_begin(n_workers) and
 * bench__workers_end. */
BENCH__HIDDEN int bench__test_workers_run(const struct bench__test_pool *pool);

#endif /* BENCH_TESTMODE_TEST_WORKER_H */
