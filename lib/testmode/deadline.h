/* SPDX-License-Identifier: MIT */
/* deadline.h: --timeout's scan of the running tests, shared by both isolation modes: which test
 * is past its deadline, and how long until the nearest other one (the poll timeout). */
#ifndef BENCH_TESTMODE_DEADLINE_H
#define BENCH_TESTMODE_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/hidden.h"

struct bench__deadlines {
    int64_t limit_ns; /* --timeout in ns; 0: none */
    int64_t now_ns;   /* bench__workers_clock_ns() when the scan began */
    int64_t nearest;  /* ns until the nearest deadline not yet passed; -1: none */
};

/* Begin a scan for --timeout `timeout_s` (0 = none) on the clock that stands still while the
 * runner is stopped. */
BENCH__HIDDEN void bench__deadlines_begin(struct bench__deadlines *d, unsigned timeout_s);
/* True when a test that started at start_ns (bench__workers_clock_ns) is past its deadline;
 * otherwise its deadline counts toward the nearest. */
BENCH__HIDDEN bool bench__deadline_passed(struct bench__deadlines *d, int64_t start_ns);
/* True when due_ns (bench__workers_clock_ns, a scan with a --timeout) has come; otherwise it
 * counts toward the nearest. */
BENCH__HIDDEN bool bench__deadline_due(struct bench__deadlines *d, int64_t due_ns);
/* The ms until the nearest deadline of the scan (rounded up), or -1 when there is none. */
BENCH__HIDDEN int bench__deadlines_ms(const struct bench__deadlines *d);

#endif /* BENCH_TESTMODE_DEADLINE_H */
