/* SPDX-License-Identifier: MIT */
/* atomic_file.h: a growable text buffer and the atomic file write, shared by the --bench-json
 * writer and the tools (which is why it lives in util/, not report/). */
#ifndef BENCH_UTIL_ATOMIC_FILE_H
#define BENCH_UTIL_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "hidden.h"

/* A NUL-terminated text that grows; free(data) when done. */
struct bench__text {
    char *data;
    size_t len, cap;
};
/* Append bytes (0, or -1 when out of memory); usable as jansson's json_dump_callback. */
BENCH__HIDDEN int bench__text_append(const char *bytes, size_t size, void *text);

/* Put data at path: a device or a FIFO is written in place; a link to a regular file keeps
 * the link and replaces the file it names; otherwise a temporary file next to the target is
 * written, fsynced and renamed over it (mode 0644 less the umask). Returns 0 or an errno;
 * on failure the target is untouched and no temporary file remains. */
BENCH__HIDDEN int bench__write_file(const char *path, const char *data, size_t len);

#endif /* BENCH_UTIL_ATOMIC_FILE_H */
