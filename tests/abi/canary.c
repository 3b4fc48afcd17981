/* SPDX-License-Identifier: MIT */
/* canary.c: a shared module that calls two Linux-only functions (pipe2, gettid), so that
 * check_portable_symbols.py proves it reports them. Built only to be checked, never loaded. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

int canary_linux_only(int fds[2]);

int canary_linux_only(int fds[2])
{
    return pipe2(fds, O_CLOEXEC) + (int)gettid();
}
