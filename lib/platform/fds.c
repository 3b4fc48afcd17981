/* SPDX-License-Identifier: MIT */
/* fds.c: owns the portable forms of pipe2, socketpair with SOCK_CLOEXEC, memfd_create and
 * pidfd_open (fds.h).
 * It knows no caller: what is piped, and why, is theirs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#if BENCH__LINUX
#include <sys/mman.h>
#include <sys/syscall.h>
#endif

#include "fds.h"

#if !BENCH__LINUX
static int set_flags(int fd, int flags)
{
    if ((flags & O_CLOEXEC) && fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
        return -1;
    if ((flags & O_NONBLOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
        return -1;
    return 0;
}

static int set_both(int fds[2], int flags)
{
    if (set_flags(fds[0], flags) == 0 && set_flags(fds[1], flags) == 0)
        return 0;
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    fds[0] = fds[1] = -1; /* closed: a caller that closes what it holds closes nothing twice */
    errno = err;
    return -1;
}
#endif

int bench__pipe2(int fds[2], int flags)
{
#if BENCH__LINUX
    return pipe2(fds, flags);
#else
    if (pipe(fds) != 0)
        return -1;
    return set_both(fds, flags);
#endif
}

int bench__socketpair_cloexec(int type, int sv[2])
{
#if BENCH__LINUX
    return socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv);
#else
    if (socketpair(AF_UNIX, type, 0, sv) != 0)
        return -1;
    return set_both(sv, O_CLOEXEC);
#endif
}

int bench__pidfd_open(pid_t pid)
{
#if BENCH__LINUX && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int bench__anon_file(void)
{
#if BENCH__LINUX
    return memfd_create("libbench-output", MFD_CLOEXEC);
#else
    const char *dir = getenv("TMPDIR");
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/libbench-XXXXXX", dir && *dir ? dir : "/tmp");
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    unlink(path);
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
#endif
}
