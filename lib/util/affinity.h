/* SPDX-License-Identifier: MIT */
/* affinity.h: which CPUs this process may run on, and pinning the calling thread to one of
 * them (compare's --duet, docs/reference/cli.md). sched_getaffinity/sched_setaffinity on
 * Linux; elsewhere "not available", said with its reason. */
#ifndef BENCH_UTIL_AFFINITY_H
#define BENCH_UTIL_AFFINITY_H

#include <stddef.h>

#include "hidden.h"

/* The CPUs in the calling thread's affinity mask, lowest first, at most `max` of them: how many
 * there are (which may exceed max), or -errno (-ENOSYS off Linux). */
BENCH__HIDDEN int bench__affinity_cpus(int *cpus, size_t max);
/* Pin the calling thread to `cpu`: 0, or -errno (-ENOSYS off Linux). */
BENCH__HIDDEN int bench__affinity_pin(int cpu);

#endif /* BENCH_UTIL_AFFINITY_H */
