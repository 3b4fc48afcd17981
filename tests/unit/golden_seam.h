/* SPDX-License-Identifier: MIT */
/* golden_seam.h: how test_golden.c reaches the library's seams (the clock, and getrusage in the
 * OS-call table; the files go through fake_host.h). */
#ifndef GOLDEN_SEAM_H
#define GOLDEN_SEAM_H

#include "platform/os.h"
#include "util/clock.h"

static inline void golden_seam_install(int64_t (*clock)(void),
                                       int (*getrusage_fn)(int, struct rusage *))
{
    bench__clock_measure_ns = clock;
    bench__clock_thread_cpu_ns = clock; /* on a CPU all the time: deterministic */
    bench__os.getrusage = getrusage_fn;
}

static inline void golden_seam_reset(void)
{
    bench__clock_reset();
    bench__os_reset();
}

#endif /* GOLDEN_SEAM_H */
