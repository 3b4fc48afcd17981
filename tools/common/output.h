/* SPDX-License-Identifier: MIT */
/* output.h: how a command of the `libbench` tool ends its standard output: flushed, and a write
 * that failed (a full disk, /dev/full, a closed descriptor), now or earlier, said on one line so
 * that a result nobody received never exits 0 (docs/reference/cli.md). */
#ifndef LIBBENCH_TOOLS_COMMON_OUTPUT_H
#define LIBBENCH_TOOLS_COMMON_OUTPUT_H

/* fflush(stdout): 0; or -1 after "error: cannot write standard output: <reason>" on stderr. */
int tool_stdout_finish(void);

#endif /* LIBBENCH_TOOLS_COMMON_OUTPUT_H */
