/* SPDX-License-Identifier: MIT */
/* file.h: how the commands of the `libbench` tool read a whole file into memory: one reader,
 * with a size limit (a whole number of MiB), whose every failure (a missing file, a directory, a
 * file over the limit, no memory for it) is a message for the caller to report, never an abort. */
#ifndef LIBBENCH_TOOL_FILE_H
#define LIBBENCH_TOOL_FILE_H

#include <stddef.h>

/* The whole file at path, at most max_bytes, into *data (malloc'd, NUL-terminated; *len does not
 * count the NUL). 0; or -1 with "cannot read: <reason>" in err (*data NULL). */
int tool_read_file(const char *path, size_t max_bytes, char **data, size_t *len, char *err,
                   size_t err_size);

#endif /* LIBBENCH_TOOL_FILE_H */
