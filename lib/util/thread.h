/* SPDX-License-Identifier: MIT */
/* thread.h: the calling thread's id as a number, to tell "this thread" from another one. */
#ifndef BENCH_UTIL_THREAD_H
#define BENCH_UTIL_THREAD_H

#include <sys/types.h>

#include "hidden.h"

/* Never 0. On Linux the kernel's thread id (gettid: the pid for a process's first thread);
 * elsewhere a number this library hands each thread at its first call in each process (a
 * forked child's thread gets a new one, as a new thread would). */
BENCH__HIDDEN pid_t bench__thread_id(void);

#endif /* BENCH_UTIL_THREAD_H */
