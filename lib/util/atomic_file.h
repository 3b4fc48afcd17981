/* SPDX-License-Identifier: MIT */
/* atomic_file.h: a growable text buffer, the check of a destination and the atomic file write,
 * shared by the --bench-json writer and the tools (which is why it lives in util/, not report/). */
#ifndef BENCH_UTIL_ATOMIC_FILE_H
#define BENCH_UTIL_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hidden.h"

/* A NUL-terminated text that grows; free(data) when done. */
struct bench__text {
    char *data;
    size_t len, cap;
};
/* Append bytes; returns 0 (out of memory aborts, alloc.h): the int is jansson's
 * json_dump_callback's, which this is usable as. */
BENCH__HIDDEN int bench__text_append(const char *bytes, size_t size, void *text);

/* Put data at path (docs/reference/bench-json.md, "Writing the file"):
 * - a device or a FIFO is written in place;
 * - a symbolic link to a regular file keeps the link and replaces the file it names; a dangling
 *   link (BENCH__WRITE_DANGLING) or one that loops (ELOOP) is refused, a directory too (EISDIR);
 * - otherwise the temporary file ".<name>.<pid>.XXXXXX" next to the target (for a name too long
 *   for that, a prefix of it with "~" and a hash) is written, fsynced and renamed over it (mode
 *   0644 less the umask). Its name always fits the directory. If SIGHUP, SIGINT, SIGQUIT,
 *   SIGTERM or SIGXFSZ (left at their default action) arrives meanwhile, the temporary is removed
 *   and the signal's default action goes on; one left by a process killed otherwise (SIGKILL) is
 *   removed by the next write to the same target once its process is gone.
 * Returns 0 or an errno (or BENCH__WRITE_DANGLING): on failure the target is untouched and no
 * temporary file remains. */
#define BENCH__WRITE_DANGLING 0x10000
BENCH__HIDDEN int bench__write_file(const char *path, const char *data, size_t len);
/* The same, the data made while it is written (a document too large to hold whole): produce
 * calls put(sink, data, len) for each piece in order and returns the first error put returned
 * (an errno), or one of its own (nonzero: the target is left untouched), or 0. */
typedef int (*bench__write_producer)(void *ctx,
                                     int (*put)(void *sink, const char *data, size_t len),
                                     void *sink);
BENCH__HIDDEN int bench__write_file_from(const char *path, bench__write_producer produce,
                                         void *ctx);
/* The text for a bench__write_file error. */
BENCH__HIDDEN const char *bench__write_file_strerror(int e);

/* Before anything runs: would bench__write_file(path) get as far as writing? The target is not a
 * directory, a dangling or a looping link; its name fits; its directory exists and a file can be
 * created in it (a temporary is created and removed at once); a device or FIFO is writable.
 * Returns 0, or -1 with the reason in why (one line, without the path). */
BENCH__HIDDEN int bench__write_file_check(const char *path, char *why, size_t size);

/* The write(2) the atomic write calls: a test replaces it to fail or interrupt a write. */
BENCH__HIDDEN extern ssize_t (*bench__atomic_file_write)(int fd, const void *data, size_t len);

#endif /* BENCH_UTIL_ATOMIC_FILE_H */
