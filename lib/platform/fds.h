/* SPDX-License-Identifier: MIT */
/* fds.h: the fd calls Linux has in one step, in a form every POSIX system has: a pipe or a
 * socket pair made close-on-exec (and non-blocking) at once, an anonymous file, and a pidfd
 * where the kernel has them (docs/reference/platforms.md). */
#ifndef BENCH_PLATFORM_FDS_H
#define BENCH_PLATFORM_FDS_H

#include <sys/types.h>

#include "../util/hidden.h"

/* pipe2(fds, flags) for flags of O_CLOEXEC and O_NONBLOCK: 0, or -1 with errno set. Off Linux,
 * pipe() then fcntl() (a fork between the two in another thread may inherit the fds). */
BENCH__HIDDEN int bench__pipe2(int fds[2], int flags);
/* socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv), the same way. */
BENCH__HIDDEN int bench__socketpair_cloexec(int type, int sv[2]);
/* A pidfd of a child that is not reaped yet (readable once it exited), or -1 with errno set:
 * ENOSYS where the kernel or the platform has none, and the caller polls the exit instead. */
BENCH__HIDDEN int bench__pidfd_open(pid_t pid);
/* An anonymous read-write file, close-on-exec: a memfd on Linux, elsewhere a temporary file
 * removed at once; -1 with errno set. */
BENCH__HIDDEN int bench__anon_file(void);

#endif /* BENCH_PLATFORM_FDS_H */
