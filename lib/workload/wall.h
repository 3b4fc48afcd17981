/* SPDX-License-Identifier: MIT */
/* wall.h: the workload wall source (getrusage + schedstat edge readings) and the pure wall-clock
 * decomposition (docs/explanation/workload-time.md). Nothing here may fabricate a cause:
 * unattributable is NaN. */
#ifndef BENCH_WALL_H
#define BENCH_WALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "../platform/os.h"
#include "../sources/source.h"

#define BENCH__WALL_REASON_MAX 200
#define BENCH__WALL_NOTE_MAX 512

/* What open probed, once, through the os seam. */
struct bench__wall {
    bool thread_scope; /* getrusage(RUSAGE_THREAD) accepted: scope "thread", else "process" */
    char rusage_reason[BENCH__WALL_REASON_MAX]; /* why RUSAGE_THREAD was refused, "" if not */
    const char *sched_path;      /* the schedstat file read at edges; NULL when none parses */
    struct bench__os_file sched; /* open on sched_path (kept by the task that opened it) */
    char sched_reason[BENCH__WALL_REASON_MAX]; /* why schedstat is unreadable, "" if readable */
};

/* Probe RUSAGE_THREAD (refused → RUSAGE_SELF, scope "process") and the schedstat paths
 * (/proc/thread-self/schedstat, then /proc/self/schedstat), remembering the reasons. The
 * schedstat file stays open until bench__wall_close: the edges are read by the thread that
 * opened the source (another thread reads its own file, at the cost of a one-off read). */
BENCH__HIDDEN void bench__wall_open(struct bench__wall *w);
/* Close what open kept open. */
BENCH__HIDDEN void bench__wall_close(struct bench__wall *w);

/* The source's availability for a report header: "thread-scoped getrusage + schedstat",
 * "process-scoped getrusage (RUSAGE_THREAD refused: ...)", "...; runqueue unattributed (...)". */
BENCH__HIDDEN void bench__wall_status(const struct bench__wall *w, char *buf, size_t size);

/* When schedstat is unreadable: writes the once-per-run disclosure (no newline)
 * "workload: runqueue wait unattributable (<reason>) — its time lands in `other`" and
 * returns true; returns false (buf = "") when runqueue wait is attributable. */
BENCH__HIDDEN bool bench__wall_runqueue_disclosure(const struct bench__wall *w, char *buf,
                                                   size_t size);

/* One window edge. -1 = that reading failed. */
struct bench__wall_snapshot {
    int64_t user_us, sys_us; /* RUSAGE_THREAD, or RUSAGE_SELF under process scope */
    int64_t proc_cpu_us;     /* RUSAGE_SELF user + system (the cross-thread disclosure) */
    int64_t runqueue_ns;     /* schedstat field 2 (run-queue wait), or -1 */
};

/* Take one edge reading (getrusage, then schedstat, through the seam). The getrusage
 * (RUSAGE_SELF) reading is also left in `shared` (when not NULL) for the counting sources. */
BENCH__HIDDEN void bench__wall_read(struct bench__wall *w, struct bench__wall_snapshot *s,
                                    struct bench__edge_shared *shared);

/* Field 2 (run-queue wait ns) of a schedstat text "<on-cpu ns> <wait ns> <slices>\n" (len
 * bytes, need not be NUL-terminated). Three digit runs separated by single spaces, the last
 * ended by a newline (a run cut by the end of the buffer is torn), each below INT64_MAX.
 * Returns 0, or -1 with *runqueue_ns = -1. */
BENCH__HIDDEN int bench__schedstat_parse(const char *text, size_t len, int64_t *runqueue_ns);

/* Where one window's wall-clock time went. NaN = unattributable (its time is in `other` and
 * `note` says why), never a measured zero. */
struct bench__decomposition {
    double wall_ns;
    double on_cpu_user_ns;
    double on_cpu_kernel_ns;
    double offcpu_runqueue_ns;
    double offcpu_disk_ns;           /* always NaN: system-wide PSI cannot attribute */
    double offcpu_other_ns;          /* wall − the non-NaN parts, clamped at 0 */
    const char *scope;               /* "thread" or "process" */
    char note[BENCH__WALL_NOTE_MAX]; /* "" or "; "-joined disclosures */
};

/* Pure: decompose wall_ns from the two edges a (open) and b (close) under w's scope. The clamp
 * is noted only beyond 4 ms + 1 % of wall; under thread scope, process − thread CPU above
 * max(1 ms, 10 % of wall) is disclosed. */
BENCH__HIDDEN void bench__decompose(int64_t wall_ns, const struct bench__wall *w,
                                    const struct bench__wall_snapshot *a,
                                    const struct bench__wall_snapshot *b,
                                    struct bench__decomposition *d);

#endif /* BENCH_WALL_H */
