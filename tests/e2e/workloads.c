/* SPDX-License-Identifier: MIT */
/* workloads.c: WORKLOAD tests for the end-to-end checks of the workload model: a spin and a
 * sleep (the decomposition), named, repeated and nested windows, a skipped and a failing
 * window, and files under a cache regime (paths from the environment). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include <bench/shim.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void spin_ms(int ms)
{
    int64_t end = now_ns() + (int64_t)ms * 1000000;
    while (now_ns() < end)
        bench_clobber_memory();
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

WORKLOAD(spin)
{
    spin_ms(50);
}

WORKLOAD(sleep)
{
    sleep_ms(50);
}

static void small_spin(void *state)
{
    (void)state;
    spin_ms(2);
}

static void skipping(void *state)
{
    (void)state;
    bench_skip(NULL, "no input here");
}

static void nothing(void *state)
{
    (void)state;
}

/* One window whose code makes no system call at all: its counters show the measuring floor. */
WORKLOAD(floor)
{
    workload_window(b, "empty", nothing, NULL);
}

WORKLOAD(phases, .reps = 2)
{
    WORKLOAD_WINDOW(b, "parse")
    {
        spin_ms(1);
    }
    workload_window(b, "sum", small_spin, NULL);
    WORKLOAD_WINDOW(b, "parse")
    {
        spin_ms(1);
    }
    /* nested: the inner window runs inertly inside the outer one */
    WORKLOAD_WINDOW(b, "outer")
    {
        workload_window(b, "inner", small_spin, NULL);
    }
    BENCH_CHECK(workload_window(b, "skips", skipping, NULL) == BENCH_STATUS_SKIPPED); /* goes on */
    /* an inline block inside an inline block runs inertly; the next window is measured */
    WORKLOAD_WINDOW(b, "outer2")
    {
        WORKLOAD_WINDOW(b, "inner2")
        {
            spin_ms(1);
        }
    }
    WORKLOAD_WINDOW(b, "after")
    {
        spin_ms(1);
    }
}

WORKLOAD(leaves_early)
{
    WORKLOAD_WINDOW(b, "x")
    {
        break; /* leaves the window open: reported as an error window */
    }
}

WORKLOAD(fails)
{
    WORKLOAD_WINDOW(b, "bad")
    {
        BENCH_CHECK(now_ns() < 0);
    }
}

static void read_all(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK); /* a FIFO must not block the test */
    if (fd < 0)
        return;
    static char buf[1 << 16];
    while (read(fd, buf, sizeof buf) > 0)
        bench_clobber_memory();
    close(fd);
}

WORKLOAD(cold_read, .regime = BENCH_CACHE_COLD)
{
    const char *path = getenv("E2E_DATA_FILE");
    if (!path)
        bench_skip(b, "E2E_DATA_FILE not set");
    workload_files(b, path);
    WORKLOAD_WINDOW(b, "read")
    {
        read_all(path);
    }
}

WORKLOAD(warm_read, .regime = BENCH_CACHE_WARM)
{
    const char *path = getenv("E2E_DATA_FILE");
    if (!path)
        bench_skip(b, "E2E_DATA_FILE not set");
    workload_files(b, path);
    WORKLOAD_WINDOW(b, "read")
    {
        read_all(path);
    }
}

BENCH_MAIN()
