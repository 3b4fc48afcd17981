/* SPDX-License-Identifier: MIT */
/* golden_seam.h: how test_golden.c reaches the library's seams (the clock and the OS-call
 * table). The only part of the golden test that knows the library's internal layout. */
#ifndef GOLDEN_SEAM_H
#define GOLDEN_SEAM_H

#include "platform/os.h"
#include "util/clock.h"

static inline void
golden_seam_install(int64_t (*clock)(void), int (*getrusage_fn)(int, struct rusage *),
                    int (*open_fn)(const char *, int), ssize_t (*read_fn)(int, void *, size_t),
                    int (*close_fn)(int),
                    int (*perf_open)(struct perf_event_attr *, pid_t, int, int, unsigned long),
                    void *(*dlopen_fn)(const char *, int), char *(*dlerror_fn)(void))
{
    bench__clock_ns = clock;
    bench__os.getrusage = getrusage_fn;
    bench__os.open = open_fn;
    bench__os.read = read_fn;
    bench__os.close = close_fn;
    bench__os.perf_event_open = perf_open;
    bench__os.dlopen = dlopen_fn;
    bench__os.dlerror = dlerror_fn;
}

static inline void golden_seam_reset(void)
{
    bench__clock_ns = bench__clock_monotonic_ns;
    bench__os_reset();
}

#endif /* GOLDEN_SEAM_H */
