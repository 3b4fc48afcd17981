/* SPDX-License-Identifier: MIT */
/* hold_fsync.c: an LD_PRELOAD module for run_e2e.py. With E2E_HOLD_FSYNC=<path> in the
 * environment, fsync() creates <path> and then waits forever, so that the test can send a real
 * signal to a process in the middle of its --bench-json write (the temporary file exists and is
 * written, not yet renamed). Without the variable it is the system's fsync. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd)
{
    const char *marker = getenv("E2E_HOLD_FSYNC");
    if (marker && *marker) {
        int m = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        if (m >= 0)
            close(m);
        for (;;)
            pause();
    }
    int (*real)(int) = NULL;
    *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    return real ? real(fd) : 0;
}
