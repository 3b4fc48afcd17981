/* SPDX-License-Identifier: MIT */
/* clock.h: the clocks of libbench: two CLOCK_MONOTONIC and the thread CPU clock, each in integer
 * ns read through a pointer that a test may replace (the fake-clock seams). Nothing else reads a
 * clock: clock_gettime appears in clock.c only (docs/explanation/design.md, "One of each"). */
#ifndef BENCH_UTIL_CLOCK_H
#define BENCH_UTIL_CLOCK_H

#include <stdint.h>

#include "hidden.h"

/* The measuring clock: every sample, window edge, and duration a bench-mode report or `libbench
 * run` shows. Its cost is part of every per-call sample: one call, one clock_gettime. */
BENCH__HIDDEN extern int64_t (*bench__clock_measure_ns)(void);
/* The deadline clock: timeouts, flush and paint intervals, poll deadlines and test durations of
 * every process of a run (the test runner, its fork servers and workers, the bench supervisor,
 * the tool's children). One clock for all of them, so that a test that replaces it moves every
 * deadline of the run together. */
BENCH__HIDDEN extern int64_t (*bench__clock_deadline_ns)(void);
/* The thread CPU clock: CLOCK_THREAD_CPUTIME_ID of the calling thread in integer ns, -1 when it
 * cannot be read. Read between the samples of a batched row (never inside one, a system call),
 * for its CPU time per iteration (Google Benchmark's cpu_time). */
BENCH__HIDDEN extern int64_t (*bench__clock_thread_cpu_ns)(void);
/* Every clock back to its default (after a test replaced one). */
BENCH__HIDDEN void bench__clock_reset(void);

#endif /* BENCH_UTIL_CLOCK_H */
