/* SPDX-License-Identifier: MIT */
/* affinity.c: owns the CPU affinity calls (affinity.h): the CPUs this process may use, and
 * pinning the calling thread to one. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>

#include "affinity.h"

int bench__affinity_cpus(int *cpus, size_t max)
{
#if BENCH__LINUX
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -errno;
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set)) {
            if ((size_t)n < max)
                cpus[n] = cpu;
            n++;
        }
    return n;
#else
    (void)cpus;
    (void)max;
    return -ENOSYS;
#endif
}

int bench__affinity_pin(int cpu)
{
#if BENCH__LINUX
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return -EINVAL;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -errno;
#else
    (void)cpu;
    return -ENOSYS;
#endif
}
