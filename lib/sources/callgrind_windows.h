/* SPDX-License-Identifier: MIT */
/* callgrind_windows.h: the workload windows of the "callgrind" source (callgrind_windows.c):
 * each edge of a workload test numbered, counted under Valgrind, and a window's counts found
 * again in the normal run. Every call takes NULL (a source that probes only, or a platform
 * without the runs) and does nothing. */
#ifndef BENCH_SOURCES_CALLGRIND_WINDOWS_H
#define BENCH_SOURCES_CALLGRIND_WINDOWS_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/hidden.h"
#include "callgrind_runs.h"

#define BENCH__CG_RUNS 2 /* the runs under Valgrind of one normal run */

struct bench__cg_windows;

/* The windows of one process: under Valgrind (`inside`, writing to dir's counts.<run>), or of
 * the normal run (filled by bench__cg_windows_read). dir is borrowed. */
BENCH__HIDDEN struct bench__cg_windows *bench__cg_windows_new(const char *dir, unsigned run,
                                                              bool inside);
BENCH__HIDDEN void bench__cg_windows_free(struct bench__cg_windows *w);
/* The workload test the next begin is for (its full name). */
BENCH__HIDDEN void bench__cg_windows_test(struct bench__cg_windows *w, const char *test);
/* A workload test begins (under Valgrind: collection on, from zero) and ends. */
BENCH__HIDDEN void bench__cg_windows_begin(struct bench__cg_windows *w);
BENCH__HIDDEN void bench__cg_windows_end(struct bench__cg_windows *w);
/* One edge of a window: its number in the test (under Valgrind, counted and written). */
BENCH__HIDDEN uint64_t bench__cg_windows_edge(struct bench__cg_windows *w);
/* One "W" line of run `run`'s counts file (what follows "W\t"). */
BENCH__HIDDEN void bench__cg_windows_read(struct bench__cg_windows *w, const char *line,
                                          unsigned run);
/* The normal run: the counts between edges `open` and `close` of the test under way, per run
 * (NaN where a run has none); false when the runs under Valgrind recorded no such window. */
BENCH__HIDDEN bool bench__cg_windows_delta(const struct bench__cg_windows *w, uint64_t open,
                                           uint64_t close, double out[BENCH__CG_RUNS][BENCH__CG_N]);

#endif /* BENCH_SOURCES_CALLGRIND_WINDOWS_H */
