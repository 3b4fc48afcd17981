/* SPDX-License-Identifier: MIT */
/* workers.h: the process groups of worker processes (test mode's, and the supervised --bench
 * run's) and the signals of the process that started them, which they follow. */
#ifndef BENCH_PLATFORM_WORKERS_H
#define BENCH_PLATFORM_WORKERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/hidden.h"

/* Up to n workers at once, in slots 0..n-1. From here to bench__workers_end, SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT (those left at their default action) reach every worker's group before they
 * end the runner, and SIGTSTP stops the groups with the runner (SIGCONT resumes them). */
BENCH__HIDDEN void bench__workers_begin(size_t n);
BENCH__HIDDEN void bench__workers_end(void);
/* fork() a worker for a slot: in the child (0), a process group of its own and the signal
 * dispositions the program had; in the parent, the pid, known to the signal handlers before any
 * signal can reach the runner; -1 with errno on failure. */
BENCH__HIDDEN pid_t bench__workers_fork(size_t slot);
/* The slot's worker was reaped: nothing to pass signals on to any more. */
BENCH__HIDDEN void bench__workers_forget(size_t slot);
/* SIGKILL to the slot's worker and everything in its process group. */
BENCH__HIDDEN void bench__workers_kill(size_t slot);
/* The time the runner has spent stopped (SIGTSTP) since bench__workers_begin, in ns: not part
 * of any test's running time. */
BENCH__HIDDEN int64_t bench__workers_stopped_ns(void);
/* bench__clock_deadline_ns less bench__workers_stopped_ns, read as one: a clock that stands still
 * while the runner is stopped. A worker's running time is the difference of a reading taken before
 * its bench__workers_fork and a later one; a stop between the two readings (one that comes while
 * the fork blocks signals included) is never counted, a stop before the first never subtracted. */
BENCH__HIDDEN int64_t bench__workers_clock_ns(void);

#endif /* BENCH_PLATFORM_WORKERS_H */
