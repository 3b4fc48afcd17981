/* SPDX-License-Identifier: MIT */
/* clock.c: owns the clocks and their seams (see clock.h): the only clock_gettime of the
 * library and the tools. A read must stay one clock_gettime: its cost is part of every per-call
 * sample. */
#define _GNU_SOURCE
#include <time.h>

#include "clock.h"

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t (*bench__clock_measure_ns)(void) = monotonic_ns;
int64_t (*bench__clock_deadline_ns)(void) = monotonic_ns;
int64_t (*bench__clock_thread_cpu_ns)(void) = thread_cpu_ns;

void bench__clock_reset(void)
{
    bench__clock_measure_ns = monotonic_ns;
    bench__clock_deadline_ns = monotonic_ns;
    bench__clock_thread_cpu_ns = thread_cpu_ns;
}
