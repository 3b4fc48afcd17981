/* SPDX-License-Identifier: MIT */
/* fork_server.h: test mode's --isolate=test: a process per test, forked by one fork server per
 * job, each test's end handed to the runner (through the pool of batch_queue.h), which renders
 * it. */
#ifndef BENCH_TESTMODE_FORK_SERVER_H
#define BENCH_TESTMODE_FORK_SERVER_H

#include "batch_queue.h"

/* Run every test of the pool, each in a process of its own; returns 0 when all have ended and
 * every server is reaped, or -errno when the runner could not wait for them (poll failed): the
 * tests not ended then never end (the caller reports them as not run). Call it between
 * bench__workers_begin(n_workers) and bench__workers_end. */
BENCH__HIDDEN int bench__fork_servers_run(const struct bench__test_pool *pool);

/* A seam for tests, NULL in a real run: called in a fork server before it starts a test, and
 * when the test has ended with its end not sent yet (tests/unit/testmode/test_fork_server.c holds
 * the server there around --timeout). */
BENCH__HIDDEN extern void (*bench__fork_server_seam)(size_t index, bool ended);

#endif /* BENCH_TESTMODE_FORK_SERVER_H */
