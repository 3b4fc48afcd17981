/* SPDX-License-Identifier: MIT */
/* perf_group.h: the perf_event group machinery shared by the perf-backed sources (open with
 * the privilege ladder, the counting bracket, read & scale gates). It knows no metric names. */
#ifndef BENCH_SOURCES_PERF_GROUP_H
#define BENCH_SOURCES_PERF_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"

/* Events per group: a leader, up to 62 named siblings (the syscall tier), and headroom. */
#define BENCH__PERF_GROUP_MAX 64

/* One event of a group: perf's own name (for reasons), PERF_TYPE_* and config. */
struct bench__perf_event {
    const char *name;
    uint32_t type;
    uint64_t config;
};

/* Per-event exclusions forced on whatever the privilege ladder chooses (event modifiers
 * such as pfm's :u and :k). */
#define BENCH__PERF_EXCLUDE_USER 1u
#define BENCH__PERF_EXCLUDE_KERNEL 2u

/* How a group opens; NULL (or all zero) is the default: no inherit, the full ladder. */
struct bench__perf_group_options {
    /* attr.inherit on every event: also count threads the calling thread creates after
     * the open (the syscall tier). */
    bool inherit;
    /* No user-space-only retry: the leader opens kernel+user or the group is absent (a
     * tracepoint fired from kernel context would silently count 0 with exclude_kernel). */
    bool kernel_and_user_only;
    /* NULL, or one BENCH__PERF_EXCLUDE_* mask per event of the table. On the user-space-
     * only rung an event that excludes user space is not opened (NaN, never a fake 0). */
    const uint8_t *exclude;
    /* NULL, or {config1, config2} per event of the table: the extra words some encoded
     * events carry (libpfm4's offcore masks, ...). Must outlive the group. */
    const uint64_t (*config12)[2];
};

struct perf_event_mmap_page;

/* An open group. Event i of the table is read from fd[i]; -1 = not open (omitted by the
 * caller, or a non-leader that failed): its value reads NaN.
 * Self-monitoring (rdpmc): when the leader's mmap'ed page has cap_user_rdpmc (and the group
 * does not inherit), a pass keeps the counters enabled from pass_begin to pass_end and each
 * bracket edge reads the counters from user space; an event with no usable page (a software
 * event) or not on a counter at that moment is read with read(2) instead. */
struct bench__perf_group {
    const struct bench__perf_event *events;
    size_t n;
    bool inherit;
    bool kernel_and_user_only;
    uint8_t exclude[BENCH__PERF_GROUP_MAX];
    const uint64_t (*config12)[2];
    int fd[BENCH__PERF_GROUP_MAX];
    int open_errno[BENCH__PERF_GROUP_MAX]; /* why a non-leader's fd is -1 (0: omitted) */
    size_t n_open;                         /* open fds, the `nr` a group read returns */
    bool user_only;                        /* the kernel+user leader failed; exclude_kernel = 1 */
    bool pass_failed;                      /* an ioctl of this pass failed: the pass reads NaN */
    bool have_base;                        /* the pass's baseline read succeeded */
    uint64_t base_enabled, base_running;
    uint64_t base_values[BENCH__PERF_GROUP_MAX];
    /* self-monitoring */
    bool rdpmc;                                               /* brackets read with rdpmc */
    bool in_pass;                                             /* between pass_begin and pass_end */
    struct perf_event_mmap_page *page[BENCH__PERF_GROUP_MAX]; /* NULL: read(2) */
    uint64_t start[BENCH__PERF_GROUP_MAX]; /* counts at the open bracket's start */
    uint64_t sum[BENCH__PERF_GROUP_MAX];   /* the pass's bracket deltas */
    char rdpmc_reason[200];                /* why not rdpmc ("" when it is) */
};

/* What one pass read, per iteration. */
struct bench__perf_reading {
    double values[BENCH__PERF_GROUP_MAX]; /* event order; NaN = not measured, never 0 */
    /* running/enabled of the pass, rounded to 3 decimals: 1 when not multiplexed, 0 when
     * the group never ran or was never enabled, the true ratio when "unreliable"; NaN when
     * the read failed. */
    double scale;
    /* The group's enabled time did not advance (scale 0): every value is NaN, never 0. */
    bool never_enabled;
    bool estimate; /* scale < 0.9995: every non-NaN value is a multiplex-scaled estimate */
};

/* Open events[0..n) (events[0] is the leader, n <= BENCH__PERF_GROUP_MAX) for the calling
 * thread, skipping those whose bit (1 << i) is set in `omit`; `events` must outlive the
 * group. Privilege ladder: kernel+user, then user-space only if the leader fails. Returns
 * 0, or -errno of the leader with a reason naming the event, the errno and what it likely
 * means (the group is then closed). */
BENCH__HIDDEN int bench__perf_group_open(struct bench__perf_group *g,
                                         const struct bench__perf_event *events, size_t n,
                                         uint64_t omit, char *reason, size_t reason_size);
/* The same with options (NULL = defaults). */
BENCH__HIDDEN int bench__perf_group_open_with(struct bench__perf_group *g,
                                              const struct bench__perf_event *events, size_t n,
                                              uint64_t omit,
                                              const struct bench__perf_group_options *options,
                                              char *reason, size_t reason_size);
BENCH__HIDDEN void bench__perf_group_close(struct bench__perf_group *g);

/* The counting bracket: pass_begin (group RESET + time baseline), then enable/disable
 * around each batch, then pass_end (one read, gates, per-iteration values). In rdpmc mode
 * pass_begin also enables the group, enable/disable read the bracket's edges, pass_end
 * disables; outside a pass enable/disable are always the ioctls. */
BENCH__HIDDEN void bench__perf_group_pass_begin(struct bench__perf_group *g);
BENCH__HIDDEN void bench__perf_group_enable(struct bench__perf_group *g);
BENCH__HIDDEN void bench__perf_group_disable(struct bench__perf_group *g);
BENCH__HIDDEN void bench__perf_group_pass_end(struct bench__perf_group *g, uint64_t iterations,
                                              struct bench__perf_reading *out);

/* Workload windows: the group counts for a whole workload test and is read cumulatively at
 * each window edge (one read(2) per edge, no ioctl). run_begin resets and enables the group,
 * run_end disables it; a snapshot that failed (or a failed run_begin) makes the window NaN. */
struct bench__perf_snapshot {
    bool ok;
    uint64_t enabled, running;
    uint64_t values[BENCH__PERF_GROUP_MAX];
};
BENCH__HIDDEN void bench__perf_group_run_begin(struct bench__perf_group *g);
BENCH__HIDDEN void bench__perf_group_snapshot(struct bench__perf_group *g,
                                              struct bench__perf_snapshot *s);
/* The window between two snapshots, with the same gates as a pass (iterations = 1). */
BENCH__HIDDEN void bench__perf_group_window(const struct bench__perf_group *g,
                                            const struct bench__perf_snapshot *open,
                                            const struct bench__perf_snapshot *close,
                                            struct bench__perf_reading *out);
BENCH__HIDDEN void bench__perf_group_run_end(struct bench__perf_group *g);
/* The bytes one snapshot reads: {nr, time_enabled, time_running, values[nr]}. */
BENCH__HIDDEN uint64_t bench__perf_group_read_size(const struct bench__perf_group *g);

/* The calibration pass of an open group: 3 brackets each spinning ~2 ms. Returns the
 * pass's scale (0 = never scheduled), NaN when the group could not be read. */
BENCH__HIDDEN double bench__perf_group_calibrate(struct bench__perf_group *g);

/* Are brackets read with rdpmc? False with the reason (cap_user_rdpmc 0, a software
 * leader, an inheriting group, mmap failed, not x86-64). */
BENCH__HIDDEN bool bench__perf_group_self_monitoring(const struct bench__perf_group *g,
                                                     char *reason, size_t reason_size);

/* "kernel+user" or "user-space only". */
BENCH__HIDDEN const char *bench__perf_group_mode(const struct bench__perf_group *g);

/* For the reasons of sources built on groups: "EACCES", ... or NULL for an errno without
 * a short name; and /proc/sys/kernel/perf_event_paranoid read through the seam (false
 * when unreadable or not a number). */
BENCH__HIDDEN const char *bench__perf_errno_name(int err);
/* "perf_event_open(<event>) failed: EACCES (Permission denied) — <what it likely means>". */
BENCH__HIDDEN void bench__perf_explain_failure(const char *event, int err, char *reason,
                                               size_t size);
BENCH__HIDDEN bool bench__perf_paranoid(long *level);

#endif /* BENCH_SOURCES_PERF_GROUP_H */
