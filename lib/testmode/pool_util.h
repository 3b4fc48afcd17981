/* SPDX-License-Identifier: MIT */
/* pool_util.h: the small steps both isolation modes' runner sides take the same way
 * (fork_server.c, test_worker.c): closing a descriptor once, reaping a child, keeping a test's
 * output up to the cap. Nothing here knows a protocol, a server or a worker. */
#ifndef BENCH_TESTMODE_POOL_UTIL_H
#define BENCH_TESTMODE_POOL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../util/hidden.h"

/* Close *fd if open, and mark it closed (-1). */
BENCH__HIDDEN void bench__close_fd(int *fd);

/* waitpid(pid, status, options), retried on EINTR: true when the child was reaped now, or is
 * gone already (ECHILD: the program ignores SIGCHLD, and the kernel reaped it; *status is then
 * left as it was). */
BENCH__HIDDEN bool bench__reaped(pid_t pid, int *status, int options);

/* Append n bytes of a test's output to *out (malloc'd, NUL-terminated, *len bytes), keeping at
 * most cap bytes in all: what is past the cap is dropped and *truncated set. */
BENCH__HIDDEN void bench__output_keep(char **out, size_t *len, bool *truncated, size_t cap,
                                      const char *data, size_t n);

#endif /* BENCH_TESTMODE_POOL_UTIL_H */
