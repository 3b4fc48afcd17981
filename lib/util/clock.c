/* SPDX-License-Identifier: MIT */
/* clock.c: owns the monotonic clock and its seam (see clock.h). It must stay one read of
 * CLOCK_MONOTONIC: the cost of this call is part of every per-call sample. */
#define _GNU_SOURCE
#include <time.h>

#include "clock.h"

int64_t bench__clock_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t (*bench__clock_ns)(void) = bench__clock_monotonic_ns;
