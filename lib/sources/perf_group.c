/* SPDX-License-Identifier: MIT */
/* perf_group.c: owns the calling thread's perf_event group: privilege ladder, counting
 * bracket (ioctl or rdpmc), the whole-test run and cumulative snapshots of workload windows,
 * read & scale gates, calibration. Must not name metrics or bypass bench__os. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/text.h"
#include "../platform/os.h"
#include "../util/clock.h"
#include "perf_group.h"
#include "rdpmc.h"

#define UNRELIABLE_RUNNING_NS 1000000u /* multiplexed with less PMU time than this → NaN */
#define CALIBRATION_BRACKETS 3
#define CALIBRATION_SPIN_NS 2000000

const char *bench__perf_errno_name(int err)
{
    switch (err) {
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case EINVAL: return "EINVAL";
    case ENODEV: return "ENODEV";
    case ENOSYS: return "ENOSYS";
    case EBUSY: return "EBUSY";
    case ENOSPC: return "ENOSPC";
    case ENOMEM: return "ENOMEM";
    case E2BIG: return "E2BIG";
    case EFAULT: return "EFAULT";
    case EINTR: return "EINTR";
    default: return NULL;
    }
}

bool bench__perf_paranoid(long *level)
{
    char text[32];
    ssize_t n = bench__os_read_file("/proc/sys/kernel/perf_event_paranoid", text, sizeof text);
    char *end = text;
    long value = n > 0 ? strtol(text, &end, 10) : 0;
    if (n <= 0 || end == text)
        return false;
    *level = value;
    return true;
}

/* "perf_event_paranoid=N" as the kernel reports it, read through the seam. */
static void paranoid_setting(char *buf, size_t size)
{
    long level;
    if (bench__perf_paranoid(&level))
        bench__fmt(buf, size, "perf_event_paranoid=%ld", level);
    else
        bench__fmt(buf, size, "perf_event_paranoid unreadable");
}

void bench__perf_explain_failure(const char *event, int err, char *reason, size_t size)
{
    char name[32];
    const char *known = bench__perf_errno_name(err);
    if (known)
        bench__fmt(name, sizeof name, "%s", known);
    else
        bench__fmt(name, sizeof name, "errno %d", err);

    char meaning[128] = "";
    switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
        bench__fmt(meaning, sizeof meaning, " — no hardware PMU exposed (a virtual machine?)");
        break;
    case EACCES:
    case EPERM: {
        char paranoid[48];
        paranoid_setting(paranoid, sizeof paranoid);
        bench__fmt(meaning, sizeof meaning, " — %s — lower it or grant CAP_PERFMON", paranoid);
        break;
    }
    case EMFILE: bench__fmt(meaning, sizeof meaning, " — out of file descriptors"); break;
    default: break; /* the errno text says all we know */
    }
    bench__fmt(reason, size, "perf_event_open(%s) failed: %s (%s)%s", event, name, strerror(err),
               meaning);
}

static void unmap_pages(struct bench__perf_group *g)
{
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++) {
        bench__rdpmc_unmap(g->page[i]);
        g->page[i] = NULL;
    }
    g->rdpmc = false;
}

static void close_all(struct bench__perf_group *g)
{
    unmap_pages(g);
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++) {
        if (g->fd[i] >= 0)
            bench__os.close(g->fd[i]);
        g->fd[i] = -1;
        g->open_errno[i] = 0;
    }
    g->n_open = 0;
}

static int open_event(const struct bench__perf_group *g, size_t i, bool user_only, int group_fd)
{
    bool leader = i == 0;
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = g->events[i].type;
    attr.config = g->events[i].config;
    if (g->config12) {
        attr.config1 = g->config12[i][0];
        attr.config2 = g->config12[i][1];
    }
    attr.disabled = leader ? 1 : 0;
    attr.inherit = g->inherit ? 1 : 0;
    attr.exclude_hv = 1;
    attr.exclude_kernel = user_only || (g->exclude[i] & BENCH__PERF_EXCLUDE_KERNEL) ? 1 : 0;
    attr.exclude_user = (g->exclude[i] & BENCH__PERF_EXCLUDE_USER) ? 1 : 0;
    if (leader)
        attr.read_format =
            PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return bench__os.perf_event_open(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* One rung of the ladder: the leader, then the rest (their failures are not fatal).
 * Returns 0 or -errno of the leader. */
static int open_rung(struct bench__perf_group *g, uint64_t omit, bool user_only)
{
    g->fd[0] = open_event(g, 0, user_only, -1);
    if (g->fd[0] < 0) {
        int err = errno ? errno : EINVAL;
        g->fd[0] = -1;
        return -err;
    }
    g->n_open = 1;
    for (size_t i = 1; i < g->n; i++) {
        if ((omit & (UINT64_C(1) << i)) ||
            (user_only && (g->exclude[i] & BENCH__PERF_EXCLUDE_USER)))
            continue; /* would count nothing: NaN, not a fabricated 0 */
        int fd = open_event(g, i, user_only, g->fd[0]);
        g->fd[i] = fd >= 0 ? fd : -1;
        g->open_errno[i] = fd >= 0 ? 0 : errno ? errno : EINVAL;
        if (fd >= 0)
            g->n_open++;
    }
    return 0;
}

/* Events with a hardware counter to map (software and tracepoint events have none). */
static bool has_counter(uint32_t type)
{
    return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT &&
           type != PERF_TYPE_BREAKPOINT;
}

/* rdpmc mode when the leader's page has cap_user_rdpmc; members without a usable page are
 * read with read(2). An inheriting group counts other threads: only read(2) sums them. */
static void map_pages(struct bench__perf_group *g)
{
    g->rdpmc = false;
    if (g->inherit) {
        bench__fmt(g->rdpmc_reason, sizeof g->rdpmc_reason,
                   "an inheriting group is read with read(2) (rdpmc sees one thread)");
        return;
    }
    if (!has_counter(g->events[0].type)) {
        bench__fmt(g->rdpmc_reason, sizeof g->rdpmc_reason,
                   "no hardware counter to map (a software leader)");
        return;
    }
    g->page[0] = bench__rdpmc_map(g->fd[0], g->rdpmc_reason, sizeof g->rdpmc_reason);
    if (!g->page[0])
        return;
    for (size_t i = 1; i < g->n; i++) {
        char ignored[200];
        if (g->fd[i] >= 0 && has_counter(g->events[i].type))
            g->page[i] = bench__rdpmc_map(g->fd[i], ignored, sizeof ignored);
    }
    g->rdpmc = true;
    g->rdpmc_reason[0] = '\0';
}

bool bench__perf_group_self_monitoring(const struct bench__perf_group *g, char *reason,
                                       size_t reason_size)
{
    if (!g->rdpmc && reason && reason_size)
        bench__fmt(reason, reason_size, "%s",
                   g->rdpmc_reason[0] ? g->rdpmc_reason : "no hardware counter to map");
    return g->rdpmc;
}

int bench__perf_group_open_with(struct bench__perf_group *g, const struct bench__perf_event *events,
                                size_t n, uint64_t omit,
                                const struct bench__perf_group_options *options, char *reason,
                                size_t reason_size)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++)
        g->fd[i] = -1;
    if (n == 0 || n > BENCH__PERF_GROUP_MAX || (omit & 1u)) {
        bench__fmt(reason, reason_size, "internal error: bad perf event group");
        return -EINVAL;
    }
    g->events = events;
    g->n = n;
    if (options) {
        g->inherit = options->inherit;
        g->kernel_and_user_only = options->kernel_and_user_only;
        if (options->exclude)
            memcpy(g->exclude, options->exclude, n * sizeof g->exclude[0]);
        g->config12 = options->config12;
    }

    int rc = open_rung(g, omit, false);
    /* a leader that excludes user space has nothing to count on the user-space rung */
    bool ladder = !g->kernel_and_user_only && !(g->exclude[0] & BENCH__PERF_EXCLUDE_USER);
    if (rc < 0 && ladder) {
        close_all(g);
        g->user_only = true;
        rc = open_rung(g, omit, true);
    }
    if (rc < 0) {
        close_all(g);
        bench__perf_explain_failure(events[0].name, -rc, reason, reason_size);
        return rc;
    }
    map_pages(g);
    return 0;
}

int bench__perf_group_open(struct bench__perf_group *g, const struct bench__perf_event *events,
                           size_t n, uint64_t omit, char *reason, size_t reason_size)
{
    return bench__perf_group_open_with(g, events, n, omit, NULL, reason, reason_size);
}

void bench__perf_group_close(struct bench__perf_group *g)
{
    close_all(g);
}

/* One read of {nr, time_enabled, time_running, values[nr]}. False on a failed or short
 * read, or when nr is not the number of open events. */
static bool read_group(const struct bench__perf_group *g, uint64_t *enabled, uint64_t *running,
                       uint64_t values[BENCH__PERF_GROUP_MAX])
{
    uint64_t buf[3 + BENCH__PERF_GROUP_MAX];
    size_t want = (3 + g->n_open) * sizeof buf[0];
    if (g->fd[0] < 0)
        return false;
    ssize_t got = bench__os.read(g->fd[0], buf, want);
    if (got < 0 || (size_t)got < want || buf[0] != g->n_open)
        return false;
    *enabled = buf[1];
    *running = buf[2];
    size_t slot = 3;
    for (size_t i = 0; i < g->n; i++)
        values[i] = g->fd[i] >= 0 ? buf[slot++] : 0;
    return true;
}

static void group_ioctl(struct bench__perf_group *g, unsigned long request)
{
    if (g->fd[0] < 0 || bench__os.ioctl(g->fd[0], request, PERF_IOC_FLAG_GROUP) < 0)
        g->pass_failed = true;
}

void bench__perf_group_pass_begin(struct bench__perf_group *g)
{
    g->pass_failed = false;
    group_ioctl(g, PERF_EVENT_IOC_RESET);
    /* RESET zeroes the counts but not time_enabled/time_running: the pass is scaled by
     * its own time deltas against this baseline. */
    g->have_base = read_group(g, &g->base_enabled, &g->base_running, g->base_values);
    if (!g->have_base) {
        g->base_enabled = g->base_running = 0; /* cumulative */
        memset(g->base_values, 0, sizeof g->base_values);
    }
    g->in_pass = true;
    if (g->rdpmc) { /* the counters run for the whole pass; brackets read their edges */
        memset(g->sum, 0, sizeof g->sum);
        group_ioctl(g, PERF_EVENT_IOC_ENABLE);
    }
}

static uint64_t saturating_delta(uint64_t end, uint64_t base)
{
    return end > base ? end - base : 0;
}

/* The events read with read(2) at this edge (no page, or not on a counter now). */
static bool read_fallback(struct bench__perf_group *g, const bool *need, uint64_t *counts)
{
    uint64_t enabled, running, values[BENCH__PERF_GROUP_MAX];
    if (!read_group(g, &enabled, &running, values))
        return false;
    for (size_t i = 0; i < g->n; i++)
        if (need[i])
            counts[i] = values[i];
    return true;
}

/* The current counts of a bracket edge: rdpmc where possible, one read(2) for the rest.
 * At a start edge the syscall comes first, at an end edge last, so the hardware counters'
 * window holds as little of it as possible. */
static void read_edge(struct bench__perf_group *g, uint64_t *counts, bool start)
{
    bool need[BENCH__PERF_GROUP_MAX] = {false};
    bool any = false;
    for (size_t i = 0; i < g->n; i++)
        if (g->fd[i] >= 0 && !g->page[i])
            any = need[i] = true;
    if (start && any && !read_fallback(g, need, counts))
        g->pass_failed = true;
    bool late = false;
    bool retry[BENCH__PERF_GROUP_MAX] = {false};
    for (size_t i = 0; i < g->n; i++)
        if (g->page[i] && !bench__rdpmc_read(g->page[i], &counts[i]))
            late = retry[i] = true;
    if (!start && any && !read_fallback(g, need, counts))
        g->pass_failed = true;
    if (late && !read_fallback(g, retry, counts))
        g->pass_failed = true;
}

void bench__perf_group_enable(struct bench__perf_group *g)
{
    if (g->rdpmc && g->in_pass)
        read_edge(g, g->start, true);
    else
        group_ioctl(g, PERF_EVENT_IOC_ENABLE);
}

void bench__perf_group_disable(struct bench__perf_group *g)
{
    if (!(g->rdpmc && g->in_pass)) {
        group_ioctl(g, PERF_EVENT_IOC_DISABLE);
        return;
    }
    uint64_t end[BENCH__PERF_GROUP_MAX];
    read_edge(g, end, false);
    for (size_t i = 0; i < g->n; i++)
        if (g->fd[i] >= 0)
            g->sum[i] += saturating_delta(end[i], g->start[i]);
}

/* The gates and scaling shared by a pass and a window: enabled/running and counts[] are
 * already deltas. */
static void gate_and_scale(const struct bench__perf_group *g, uint64_t enabled, uint64_t running,
                           const uint64_t *counts, uint64_t iterations,
                           struct bench__perf_reading *out)
{
    if (enabled == 0) { /* never enabled: nothing was counted, which is not zero events */
        out->scale = 0;
        out->never_enabled = true;
        return;
    }
    if (running == 0) { /* enabled, never on the PMU */
        out->scale = 0;
        return;
    }
    double ratio = 1;
    if (running < enabled) {
        out->scale = round((double)running / (double)enabled * 1000.0) / 1000.0;
        if (running < UNRELIABLE_RUNNING_NS)
            return; /* unreliable: NaN, but the true ratio is reported */
        ratio = (double)enabled / (double)running;
    } else {
        out->scale = 1;
    }
    out->estimate = out->scale < 0.9995;
    if (iterations == 0)
        return;
    for (size_t i = 0; i < g->n; i++)
        if (g->fd[i] >= 0)
            out->values[i] = (double)counts[i] * ratio / (double)iterations;
}

static void reading_unmeasured(struct bench__perf_reading *out)
{
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++)
        out->values[i] = NAN;
    out->scale = NAN;
    out->estimate = false;
    out->never_enabled = false;
}

void bench__perf_group_pass_end(struct bench__perf_group *g, uint64_t iterations,
                                struct bench__perf_reading *out)
{
    reading_unmeasured(out);
    uint64_t enabled, running, values[BENCH__PERF_GROUP_MAX];
    if (g->rdpmc && g->in_pass)
        group_ioctl(g, PERF_EVENT_IOC_DISABLE);
    g->in_pass = false;
    if (g->pass_failed || !read_group(g, &enabled, &running, values))
        return;
    uint64_t counts[BENCH__PERF_GROUP_MAX];
    for (size_t i = 0; i < g->n; i++)
        counts[i] = g->rdpmc ? g->sum[i] : saturating_delta(values[i], g->base_values[i]);
    gate_and_scale(g, saturating_delta(enabled, g->base_enabled),
                   saturating_delta(running, g->base_running), counts, iterations, out);
}

void bench__perf_group_run_begin(struct bench__perf_group *g)
{
    g->pass_failed = false;
    group_ioctl(g, PERF_EVENT_IOC_RESET);
    group_ioctl(g, PERF_EVENT_IOC_ENABLE);
}

void bench__perf_group_snapshot(struct bench__perf_group *g, struct bench__perf_snapshot *s)
{
    s->ok = !g->pass_failed && read_group(g, &s->enabled, &s->running, s->values);
}

void bench__perf_group_window(const struct bench__perf_group *g,
                              const struct bench__perf_snapshot *open,
                              const struct bench__perf_snapshot *close,
                              struct bench__perf_reading *out)
{
    reading_unmeasured(out);
    if (!open->ok || !close->ok)
        return;
    uint64_t counts[BENCH__PERF_GROUP_MAX];
    for (size_t i = 0; i < g->n; i++)
        counts[i] = saturating_delta(close->values[i], open->values[i]);
    gate_and_scale(g, saturating_delta(close->enabled, open->enabled),
                   saturating_delta(close->running, open->running), counts, 1, out);
}

uint64_t bench__perf_group_read_size(const struct bench__perf_group *g)
{
    return (3 + (uint64_t)g->n_open) * sizeof(uint64_t);
}

void bench__perf_group_run_end(struct bench__perf_group *g)
{
    group_ioctl(g, PERF_EVENT_IOC_DISABLE);
}

double bench__perf_group_calibrate(struct bench__perf_group *g)
{
    volatile uint64_t sink = 0;
    bench__perf_group_pass_begin(g);
    for (int b = 0; b < CALIBRATION_BRACKETS; b++) {
        bench__perf_group_enable(g);
        int64_t start = bench__clock_measure_ns();
        while (bench__clock_measure_ns() - start < CALIBRATION_SPIN_NS)
            sink = sink + 1;
        bench__perf_group_disable(g);
    }
    struct bench__perf_reading r;
    bench__perf_group_pass_end(g, 1, &r);
    return r.scale;
}

const char *bench__perf_group_mode(const struct bench__perf_group *g)
{
    return g->user_only ? "user-space only" : "kernel+user";
}
