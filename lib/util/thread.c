/* SPDX-License-Identifier: MIT */
/* thread.c: owns bench__thread_id (thread.h): gettid on Linux, a per-thread number elsewhere
 * (docs/reference/platforms.md). It must not keep anything but that number. */
#define _GNU_SOURCE
#include <unistd.h>

#include "thread.h"

#if BENCH__LINUX

pid_t bench__thread_id(void)
{
    return gettid();
}

#else

#include <stdatomic.h>

static atomic_int next_id = 1;
static _Thread_local pid_t my_id, my_pid;

/* A forked child's thread gets a number of its own, as on Linux: one the process it was forked
 * from never handed out before the fork, so a test's forked child is never taken for the thread
 * that forked it. */
pid_t bench__thread_id(void)
{
    pid_t pid = getpid();
    if (my_id == 0 || my_pid != pid) {
        my_id = (pid_t)atomic_fetch_add(&next_id, 1);
        my_pid = pid;
    }
    return my_id;
}

#endif
