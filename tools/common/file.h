/* SPDX-License-Identifier: MIT */
/* file.h: how the commands of the `libbench` tool read a whole file into memory: one reader,
 * with a size limit (a whole number of MiB), whose every refusal (a missing file, a directory, a
 * file over the limit, a read error) is a message for the caller to report; running out of memory
 * under the limit is util/alloc.h's one abort. */
#ifndef LIBBENCH_TOOLS_COMMON_FILE_H
#define LIBBENCH_TOOLS_COMMON_FILE_H

#include <stddef.h>

/* The whole file at path, at most max_bytes, into *data (malloc'd, NUL-terminated; *len does not
 * count the NUL). 0; or -1 with "cannot read: <reason>" in err (*data NULL). */
int tool_read_file(const char *path, size_t max_bytes, char **data, size_t *len, char *err,
                   size_t err_size);

#endif /* LIBBENCH_TOOLS_COMMON_FILE_H */
