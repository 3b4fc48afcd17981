/* SPDX-License-Identifier: MIT */
/* tmpdir.h: the temporary directories a command of the `libbench` tool makes for its children's
 * files ($TMPDIR/<prefix>.<pid>.XXXXXX, the pid its owner's): a tool killed by SIGKILL cannot
 * remove its own, so the next start of the command removes those whose owner is gone. */
#ifndef LIBBENCH_TOOLS_COMMON_TMPDIR_H
#define LIBBENCH_TOOLS_COMMON_TMPDIR_H

/* The temporary directory: $TMPDIR, or /tmp when it is unset or empty. */
const char *tool_tmpdir_base(void);
/* Removes every $TMPDIR/<prefix>.<pid>.* directory of this user whose process <pid> no longer
 * exists, with the files in it (never following a symbolic link); one whose owner lives, or that
 * is not named so, is left alone. Best effort: what cannot be removed stays. */
void tool_tmpdir_sweep(const char *prefix);

#endif /* LIBBENCH_TOOLS_COMMON_TMPDIR_H */
