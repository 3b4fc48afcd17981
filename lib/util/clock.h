/* SPDX-License-Identifier: MIT */
/* clock.h: the one clock of libbench: CLOCK_MONOTONIC in integer ns, read through a pointer that
 * a test replaces (the fake-clock seam) to drive timing, windows and durations deterministically.
 * Every module reads time through bench__clock_ns; nothing else calls clock_gettime. */
#ifndef BENCH_UTIL_CLOCK_H
#define BENCH_UTIL_CLOCK_H

#include <stdint.h>

#include "hidden.h"

/* The clock in force; starts as bench__clock_monotonic_ns. */
BENCH__HIDDEN extern int64_t (*bench__clock_ns)(void);
/* The real clock behind the seam. */
BENCH__HIDDEN int64_t bench__clock_monotonic_ns(void);

#endif /* BENCH_UTIL_CLOCK_H */
