/* SPDX-License-Identifier: MIT */
/* perf_group.h: the perf_event group machinery shared by the perf-backed sources (open with
 * the privilege ladder, the counting bracket, read & scale gates). It knows no metric names. */
#ifndef BENCH_SOURCES_PERF_GROUP_H
#define BENCH_SOURCES_PERF_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../internal.h"

#define BENCH__PERF_GROUP_MAX 16

/* One event of a group: perf's own name (for reasons), PERF_TYPE_* and config. */
struct bench__perf_event {
    const char *name;
    uint32_t type;
    uint64_t config;
};

/* An open group. Event i of the table is read from fd[i]; -1 = not open (omitted by the
 * caller, or a non-leader that failed): its value reads NaN. */
struct bench__perf_group {
    const struct bench__perf_event *events;
    size_t n;
    int fd[BENCH__PERF_GROUP_MAX];
    size_t n_open;    /* open fds, the `nr` a group read returns */
    bool user_only;   /* the kernel+user leader failed; exclude_kernel = 1 */
    bool pass_failed; /* an ioctl of this pass failed: the pass reads NaN */
    bool have_base;   /* the pass's baseline read succeeded */
    uint64_t base_enabled, base_running;
    uint64_t base_values[BENCH__PERF_GROUP_MAX];
};

/* What one pass read, per iteration. */
struct bench__perf_reading {
    double values[BENCH__PERF_GROUP_MAX]; /* event order; NaN = not measured, never 0 */
    /* running/enabled of the pass, rounded to 3 decimals: 1 when not multiplexed (or
     * enabled == 0), 0 when the group never ran, the true ratio when "unreliable"; NaN
     * when the read failed. */
    double scale;
    bool estimate; /* scale < 0.9995: every non-NaN value is a multiplex-scaled estimate */
};

/* Open events[0..n) (events[0] is the leader) for the calling thread, skipping those whose
 * bit is set in `omit`. Privilege ladder: kernel+user, then user-space only if the leader
 * fails. Returns 0, or -errno of the leader with a reason naming the event, the errno and
 * what it likely means (the group is then closed). */
BENCH__HIDDEN int bench__perf_group_open(struct bench__perf_group *g,
                                         const struct bench__perf_event *events, size_t n,
                                         uint32_t omit, char *reason, size_t reason_size);
BENCH__HIDDEN void bench__perf_group_close(struct bench__perf_group *g);

/* The counting bracket: pass_begin (group RESET + time baseline), then enable/disable
 * around each batch, then pass_end (one read, gates, per-iteration values). */
BENCH__HIDDEN void bench__perf_group_pass_begin(struct bench__perf_group *g);
BENCH__HIDDEN void bench__perf_group_enable(struct bench__perf_group *g);
BENCH__HIDDEN void bench__perf_group_disable(struct bench__perf_group *g);
BENCH__HIDDEN void bench__perf_group_pass_end(struct bench__perf_group *g, uint64_t iterations,
                                              struct bench__perf_reading *out);

/* The calibration pass of an open group: 3 brackets each spinning ~2 ms. Returns the
 * pass's scale (0 = never scheduled), NaN when the group could not be read. */
BENCH__HIDDEN double bench__perf_group_calibrate(struct bench__perf_group *g);

/* "kernel+user" or "user-space only". */
BENCH__HIDDEN const char *bench__perf_group_mode(const struct bench__perf_group *g);

#endif /* BENCH_SOURCES_PERF_GROUP_H */
