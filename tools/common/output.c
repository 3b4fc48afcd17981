/* SPDX-License-Identifier: MIT */
/* output.c: owns the end of a command's standard output (output.h): the flush and the check of
 * the stream's error flag, which keeps an earlier failed write. It writes nothing else. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

int tool_stdout_finish(void)
{
    errno = 0;
    int flushed = fflush(stdout);
    int e = errno;
    if (flushed == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "error: cannot write standard output: %s\n",
            e ? strerror(e) : "an earlier write failed");
    return -1;
}
