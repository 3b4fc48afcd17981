/* SPDX-License-Identifier: MIT */
/* window_cost.c: times 1000 empty workload windows under --bench, with whatever sources the
 * command line opened, and prints the cost of one on stderr. A measuring program: no checks. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <bench/shim.h>

#define WINDOWS 1000
#define BLOCK 100

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void empty(void *state)
{
    (void)state;
}

/* Every window has the same name, as in a loop: "empty", "empty#2", ... "empty#1000". The
 * loop is timed in blocks of 100 so that a cost growing with the window count shows. Outside
 * a --bench measurement (bench_smoke) the windows run inertly and the figures mean nothing. */
WORKLOAD(empty_windows)
{
    int64_t block_ns[WINDOWS / BLOCK];
    int64_t start = monotonic_ns(), t = start;
    for (int k = 0; k < WINDOWS / BLOCK; k++) {
        for (int i = 0; i < BLOCK; i++)
            workload_window(b, "empty", empty, NULL);
        int64_t now = monotonic_ns();
        block_ns[k] = now - t;
        t = now;
    }
    double per = (double)(t - start) / WINDOWS / 1e3;
    fprintf(stderr,
            "window_cost: %d empty windows: %.2f µs per window (first 100: %.2f µs, last 100: "
            "%.2f µs)\n",
            WINDOWS, per, (double)block_ns[0] / BLOCK / 1e3,
            (double)block_ns[WINDOWS / BLOCK - 1] / BLOCK / 1e3);
}

BENCH_MAIN()
