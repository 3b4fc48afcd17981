/* SPDX-License-Identifier: MIT */
/* file.h: how the commands of the `libbench` tool read a whole file into memory: one reader and
 * one size limit for every file the tool reads (documents, raw objects of the results store,
 * Chart.js), documented in docs/reference/cli.md ("Files the tool reads"). A file is opened
 * without blocking and must be a regular file: a FIFO, a socket or a device is refused, never
 * waited on. Every refusal (a missing file, a directory, a file over the limit, a read error) is
 * a message for the caller to report; running out of memory under the limit is util/alloc.h's
 * one abort. */
#ifndef LIBBENCH_TOOLS_COMMON_FILE_H
#define LIBBENCH_TOOLS_COMMON_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* The most any file the tool reads may hold: 256 MiB (a raw object of the results store holds
 * about 350 000 measurements at that size). */
#define TOOL_FILE_MAX_BYTES ((size_t)256 << 20)

/* The whole regular file at path, at most max_bytes (every document and raw object:
 * TOOL_FILE_MAX_BYTES; never more, a larger value is taken as it), into *data (malloc'd,
 * NUL-terminated; *len does not count the NUL). 0; or -1 with "cannot read: <reason>" in err
 * (*data NULL). */
int tool_read_file(const char *path, size_t max_bytes, char **data, size_t *len, char *err,
                   size_t err_size);
/* The same for path relative to the directory dirfd; with `nofollow`, a symbolic link as its
 * last part is refused ("cannot read: a symbolic link, not followed"). */
int tool_read_file_at(int dirfd, const char *path, bool nofollow, size_t max_bytes, char **data,
                      size_t *len, char *err, size_t err_size);
/* The reader itself on an open file (fd stays the caller's). */
int tool_read_fd(int fd, size_t max_bytes, char **data, size_t *len, char *err, size_t err_size);
/* What a file that is not a regular one is, for a message: "a directory", "a FIFO", "a
 * socket", "a device", "a symbolic link"; NULL for a regular file. */
const char *tool_file_kind(unsigned mode);

#endif /* LIBBENCH_TOOLS_COMMON_FILE_H */
