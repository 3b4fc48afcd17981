/* SPDX-License-Identifier: MIT */
/* pool_util.c: the small steps both isolation modes' runner sides share (pool_util.h): closing a
 * descriptor once, reaping a child, keeping a test's output up to the cap. It knows no protocol,
 * server or worker (fork_server.c and test_worker.c do). */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/alloc.h"
#include "pool_util.h"

void bench__close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

bool bench__reaped(pid_t pid, int *status, int options)
{
    pid_t got;
    do
        got = waitpid(pid, status, options);
    while (got < 0 && errno == EINTR);
    return got == pid || (got < 0 && errno == ECHILD);
}

void bench__output_keep(char **out, size_t *len, bool *truncated, size_t cap, const char *data,
                        size_t n)
{
    if (*len + n > cap) {
        *truncated = true;
        n = cap > *len ? cap - *len : 0;
    }
    if (n == 0)
        return;
    *out = bench__xrealloc(*out, *len + n + 1);
    memcpy(*out + *len, data, n);
    *len += n;
    (*out)[*len] = '\0';
}
