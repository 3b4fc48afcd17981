/* SPDX-License-Identifier: MIT */
/* window_cost.c: times 1000 empty workload windows under --bench, with whatever sources the
 * command line opened, then — in the same process, right after — the bare system calls those
 * windows make (the floor), and prints both on stderr. A measuring program: no checks. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bench/shim.h>

#define WINDOWS 1000

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median, 10th and 90th percentile (nearest rank) of n per-window costs, in µs. */
static void quantiles(int64_t *ns, size_t n, double *p10, double *median, double *p90)
{
    qsort(ns, n, sizeof *ns, by_value);
    *p10 = (double)ns[n / 10] / 1e3;
    *median = n % 2 ? (double)ns[n / 2] / 1e3 : (double)(ns[n / 2 - 1] + ns[n / 2]) / 2e3;
    *p90 = (double)ns[n - 1 - n / 10] / 1e3;
}

/* ---- the floor: the system calls of one window's edges, issued bare -------------------- */

static struct {
    bool perf, syscalls, tier0;
} opened; /* which counting sources the command line asks for (see main) */

struct floor_files {
    int psi[3], schedstat, io;
    int sw_leader, tp_leader;
    size_t sw_n, tp_n;
};

static int perf_open(uint32_t type, uint64_t config, int group, bool inherit)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.disabled = group < 0;
    attr.inherit = inherit;
    attr.exclude_hv = 1;
    if (group < 0)
        attr.read_format =
            PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static long tracepoint_id(const char *event)
{
    static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
    for (size_t r = 0; r < 2; r++) {
        char path[160], text[32];
        snprintf(path, sizeof path, "%s/events/%s/id", roots[r], event);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, text, sizeof text - 1);
        close(fd);
        if (n > 0) {
            text[n] = '\0';
            return strtol(text, NULL, 10);
        }
    }
    return -1;
}

static void floor_open(struct floor_files *f)
{
    static const char *const psi[3] = {"/proc/pressure/io", "/proc/pressure/memory",
                                       "/proc/pressure/cpu"};
    for (int i = 0; i < 3; i++)
        f->psi[i] = open(psi[i], O_RDONLY | O_CLOEXEC);
    f->schedstat = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    f->io = opened.tier0 ? open("/proc/self/io", O_RDONLY | O_CLOEXEC) : -1;
    f->sw_leader = f->tp_leader = -1;
    f->sw_n = f->tp_n = 0;
    if (opened.perf) { /* perf-sw: what --perf opens on a machine without a hardware PMU */
        static const uint64_t sw[4] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
                                       PERF_COUNT_SW_CONTEXT_SWITCHES,
                                       PERF_COUNT_SW_CPU_MIGRATIONS};
        f->sw_leader = perf_open(PERF_TYPE_SOFTWARE, sw[0], -1, false);
        for (int i = 0; f->sw_leader >= 0 && i < 4; i++)
            f->sw_n += i == 0 || perf_open(PERF_TYPE_SOFTWARE, sw[i], f->sw_leader, false) >= 0;
    }
    long id = opened.syscalls ? tracepoint_id("raw_syscalls/sys_enter") : -1;
    if (id >= 0) {
        f->tp_leader = perf_open(PERF_TYPE_TRACEPOINT, (uint64_t)id, -1, true);
        f->tp_n = f->tp_leader >= 0;
    }
    /* left disabled: the library's own groups are still enabled while this runs (inside the
     * WORKLOAD), so the floor pays the same tracepoint cost per system call as the windows,
     * once, not twice */
}

/* One edge: the reads a window edge makes, in the same order, with nothing parsed. Returns
 * the number of system calls made. */
static int floor_edge(const struct floor_files *f)
{
    char buf[1024];
    uint64_t group[3 + 64];
    struct rusage ru;
    int calls = 0;
    for (int i = 0; i < 3; i++)
        if (f->psi[i] >= 0)
            calls += pread(f->psi[i], buf, sizeof buf, 0) >= 0;
    calls += getrusage(RUSAGE_SELF, &ru) == 0;
    calls += getrusage(RUSAGE_THREAD, &ru) == 0;
    if (f->schedstat >= 0)
        calls += pread(f->schedstat, buf, sizeof buf, 0) >= 0;
    if (f->tp_leader >= 0)
        calls += read(f->tp_leader, group, (3 + f->tp_n) * sizeof group[0]) > 0;
    if (f->io >= 0)
        calls += pread(f->io, buf, sizeof buf, 0) >= 0;
    if (f->sw_leader >= 0)
        calls += read(f->sw_leader, group, (3 + f->sw_n) * sizeof group[0]) > 0;
    return calls;
}

/* What the floor reads at each edge, for its line on stderr. */
static void floor_describe(const struct floor_files *f, char *buf, size_t size)
{
    int psi = (f->psi[0] >= 0) + (f->psi[1] >= 0) + (f->psi[2] >= 0);
    snprintf(buf, size, "%d PSI, getrusage ×2, schedstat%s%s%s%s", psi,
             f->schedstat >= 0 ? "" : " (unreadable)", f->io >= 0 ? ", /proc/self/io" : "",
             f->sw_leader >= 0 ? ", a software perf group" : "",
             f->tp_leader >= 0 ? ", a tracepoint group" : "");
}

static void floor_close(struct floor_files *f)
{
    int fds[] = {f->psi[0], f->psi[1], f->psi[2], f->schedstat, f->io, f->sw_leader, f->tp_leader};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]); /* group members close with the process */
}

/* ---- the benchmark ---------------------------------------------------------------------- */

static void empty(void *state)
{
    (void)state;
}

static int64_t window_ns[WINDOWS], floor_ns[WINDOWS];

/* Every window has the same name, as in a loop: "empty", "empty#2", ... "empty#1000". Each
 * window is timed on its own (two clock reads, ~20 ns, outside the window call), then the
 * floor: two bare edges per "window", timed the same way, right after in the same process.
 * Outside a --bench measurement (bench_smoke) the windows run inertly and the figures mean
 * nothing. */
WORKLOAD(empty_windows)
{
    int64_t start = monotonic_ns();
    for (int i = 0; i < WINDOWS; i++) {
        int64_t t0 = monotonic_ns();
        workload_window(b, "empty", empty, NULL);
        window_ns[i] = monotonic_ns() - t0;
    }
    double per = (double)(monotonic_ns() - start) / WINDOWS / 1e3;

    struct floor_files f;
    floor_open(&f);
    int calls = 0;
    for (int i = 0; i < WINDOWS; i++) {
        int64_t t0 = monotonic_ns();
        calls = floor_edge(&f);
        calls += floor_edge(&f);
        floor_ns[i] = monotonic_ns() - t0;
    }
    char what[160];
    floor_describe(&f, what, sizeof what);
    floor_close(&f);

    double w10, wmed, w90, f10, fmed, f90;
    quantiles(window_ns, WINDOWS, &w10, &wmed, &w90);
    quantiles(floor_ns, WINDOWS, &f10, &fmed, &f90);
    fprintf(stderr,
            "window_cost: %d empty windows: median %.2f µs per window (p10 %.2f, p90 %.2f; "
            "all %d together: %.2f µs each)\n"
            "window_cost: floor, the same %d system calls bare: median %.2f µs (p10 %.2f, p90 "
            "%.2f); window/floor %.3f\n"
            "window_cost: the floor reads, per edge: %s\n",
            WINDOWS, wmed, w10, w90, WINDOWS, per, calls, fmed, f10, f90, wmed / fmed, what);
}

/* The floor opens what the library was asked to open, as far as this program can tell from the
 * command line: --perf as the four software events of perf-sw (on a machine with a hardware
 * PMU the library opens its hardware group instead: the floor then reads a different group of
 * the same kind), --syscalls (with or without a list) as the raw_syscalls leader alone, and
 * tier-0 for any --metrics. It prints what it opened: compare that with the run's header. */
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        opened.perf |= !strcmp(argv[i], "--perf");
        opened.syscalls |= !strncmp(argv[i], "--syscalls", 10);
        opened.tier0 |= !strncmp(argv[i], "--metrics=", 10);
    }
    return bench_main(argc, argv);
}
