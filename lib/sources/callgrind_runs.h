/* SPDX-License-Identifier: MIT */
/* callgrind_runs.h: the normal run's side of the "callgrind" source (callgrind.c): starting the
 * test binary again under valgrind --tool=callgrind with a pinned counting schedule, and the
 * private directory the two sides share. Linux only (it reads /proc/self). */
#ifndef BENCH_SOURCES_CALLGRIND_RUNS_H
#define BENCH_SOURCES_CALLGRIND_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/hidden.h"

#define BENCH__CALLGRIND_ENV_DIR "BENCH__CALLGRIND_DIR" /* the private dir, for the runs */
#define BENCH__CALLGRIND_ENV_RUN "BENCH__CALLGRIND_RUN" /* which run it is (1 or 2) */
/* A counting pass under Valgrind: 10 iterations in one bracket (or 10 calls of a bench_case
 * row), whatever the timing, unless the user pinned --perf-iters or --perf-batch. */
#define BENCH__CALLGRIND_ITERS "10"

/* Runs the binary (its /proc/self/exe and arguments, minus those that write files, plus the
 * pinned schedule) under valgrind once, as run `run`, its output in dir, with Callgrind's cache
 * simulation when `cache`; waits for it. 0 when it wrote dir/counts.<run>, else -1 with the
 * reason (what Valgrind said last) in why. */
BENCH__HIDDEN int bench__callgrind_run(const char *valgrind, const char *dir, unsigned run,
                                       bool cache, char *why, size_t why_size);
/* What a dump holds: instructions, and with the cache simulation L1 and LL misses. */
enum { BENCH__CG_IR, BENCH__CG_L1, BENCH__CG_LL, BENCH__CG_N };

/* The counts of the dump of dir whose trigger is `tag` (callgrind_dump.c), its file removed once
 * read: out[BENCH__CG_IR] is -1 when there is none, the misses NaN without the cache
 * simulation. */
BENCH__HIDDEN void bench__callgrind_dump_counts(const char *dir, const char *tag,
                                                double out[BENCH__CG_N]);
/* Removes dir and the files in it. */
BENCH__HIDDEN void bench__callgrind_remove_dir(const char *dir);

#endif /* BENCH_SOURCES_CALLGRIND_RUNS_H */
