/* SPDX-License-Identifier: MIT */
/* perf_group.c: owns the calling thread's perf_event group: privilege ladder, counting
 * bracket, read & scale gates, calibration. Must not name metrics or bypass bench__os. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../platform/os.h"
#include "perf_group.h"

#define UNRELIABLE_RUNNING_NS 1000000u /* multiplexed with less PMU time than this → NaN */
#define CALIBRATION_BRACKETS 3
#define CALIBRATION_SPIN_NS 2000000

static const char *errno_name(int err)
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

/* "perf_event_paranoid=N" as the kernel reports it, read through the seam. */
static void paranoid_setting(char *buf, size_t size)
{
    char text[32];
    ssize_t n = bench__os_read_file("/proc/sys/kernel/perf_event_paranoid", text, sizeof text);
    char *end = text;
    long level = n > 0 ? strtol(text, &end, 10) : 0;
    if (n > 0 && end != text)
        snprintf(buf, size, "perf_event_paranoid=%ld", level);
    else
        snprintf(buf, size, "perf_event_paranoid unreadable");
}

static void explain_failure(const char *event, int err, char *reason, size_t size)
{
    char name[32];
    const char *known = errno_name(err);
    if (known)
        snprintf(name, sizeof name, "%s", known);
    else
        snprintf(name, sizeof name, "errno %d", err);

    char meaning[128] = "";
    switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
        snprintf(meaning, sizeof meaning, " — no hardware PMU exposed (a virtual machine?)");
        break;
    case EACCES:
    case EPERM: {
        char paranoid[48];
        paranoid_setting(paranoid, sizeof paranoid);
        snprintf(meaning, sizeof meaning, " — %s — lower it or grant CAP_PERFMON", paranoid);
        break;
    }
    case EMFILE: snprintf(meaning, sizeof meaning, " — out of file descriptors"); break;
    default: break; /* the errno text says all we know */
    }
    snprintf(reason, size, "perf_event_open(%s) failed: %s (%s)%s", event, name, strerror(err),
             meaning);
}

static void close_all(struct bench__perf_group *g)
{
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++) {
        if (g->fd[i] >= 0)
            bench__os.close(g->fd[i]);
        g->fd[i] = -1;
    }
    g->n_open = 0;
}

static int open_event(const struct bench__perf_event *ev, bool leader, bool user_only, int group_fd)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = ev->type;
    attr.config = ev->config;
    attr.disabled = leader ? 1 : 0;
    attr.exclude_hv = 1;
    attr.exclude_kernel = user_only ? 1 : 0;
    if (leader)
        attr.read_format =
            PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return bench__os.perf_event_open(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* One rung of the ladder: the leader, then the rest (their failures are not fatal).
 * Returns 0 or -errno of the leader. */
static int open_rung(struct bench__perf_group *g, uint32_t omit, bool user_only)
{
    g->fd[0] = open_event(&g->events[0], true, user_only, -1);
    if (g->fd[0] < 0) {
        int err = errno ? errno : EINVAL;
        g->fd[0] = -1;
        return -err;
    }
    g->n_open = 1;
    for (size_t i = 1; i < g->n; i++) {
        if (omit & (1u << i))
            continue;
        int fd = open_event(&g->events[i], false, user_only, g->fd[0]);
        g->fd[i] = fd >= 0 ? fd : -1;
        if (fd >= 0)
            g->n_open++;
    }
    return 0;
}

int bench__perf_group_open(struct bench__perf_group *g, const struct bench__perf_event *events,
                           size_t n, uint32_t omit, char *reason, size_t reason_size)
{
    memset(g, 0, sizeof *g);
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++)
        g->fd[i] = -1;
    if (n == 0 || n > BENCH__PERF_GROUP_MAX || (omit & 1u)) {
        snprintf(reason, reason_size, "internal error: bad perf event group");
        return -EINVAL;
    }
    g->events = events;
    g->n = n;

    int rc = open_rung(g, omit, false);
    if (rc < 0) {
        close_all(g);
        g->user_only = true;
        rc = open_rung(g, omit, true);
    }
    if (rc < 0) {
        close_all(g);
        explain_failure(events[0].name, -rc, reason, reason_size);
        return rc;
    }
    return 0;
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
}

void bench__perf_group_enable(struct bench__perf_group *g)
{
    group_ioctl(g, PERF_EVENT_IOC_ENABLE);
}

void bench__perf_group_disable(struct bench__perf_group *g)
{
    group_ioctl(g, PERF_EVENT_IOC_DISABLE);
}

static uint64_t saturating_delta(uint64_t end, uint64_t base)
{
    return end > base ? end - base : 0;
}

void bench__perf_group_pass_end(struct bench__perf_group *g, uint64_t iterations,
                                struct bench__perf_reading *out)
{
    for (size_t i = 0; i < BENCH__PERF_GROUP_MAX; i++)
        out->values[i] = NAN;
    out->scale = NAN;
    out->estimate = false;

    uint64_t enabled, running, values[BENCH__PERF_GROUP_MAX];
    if (g->pass_failed || !read_group(g, &enabled, &running, values))
        return;
    enabled = saturating_delta(enabled, g->base_enabled);
    running = saturating_delta(running, g->base_running);

    if (enabled > 0 && running == 0) { /* never ran */
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
            out->values[i] =
                (double)saturating_delta(values[i], g->base_values[i]) * ratio / (double)iterations;
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double bench__perf_group_calibrate(struct bench__perf_group *g)
{
    volatile uint64_t sink = 0;
    bench__perf_group_pass_begin(g);
    for (int b = 0; b < CALIBRATION_BRACKETS; b++) {
        bench__perf_group_enable(g);
        int64_t start = monotonic_ns();
        while (monotonic_ns() - start < CALIBRATION_SPIN_NS)
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
