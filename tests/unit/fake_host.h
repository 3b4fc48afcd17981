/* SPDX-License-Identifier: MIT */
/* fake_host.h: what the tests that run whole bench_main() calls share: a fake set of small files
 * behind the fault-injection seam (bench__os.open/read/close), counters and soft dependencies
 * refused, and a run with its stdout and stderr captured in files. */
#ifndef FAKE_HOST_H
#define FAKE_HOST_H

#include <stdbool.h>
#include <stddef.h>

/* The text of the file at `path` when a test opens it, written into buf (size bytes); NULL
 * when the file does not exist (open fails with ENOENT). Called at every open. */
typedef const char *(*fake_host_content)(const char *path, char *buf, size_t size);

/* Serve every open/read/close of the library through `content`. */
void fake_host_files(fake_host_content content);
/* perf_event_open fails with EACCES; dlopen fails and dlerror says `dlerror_text`. */
void fake_host_refuse(const char *dlerror_text);

/* Call fn(arg) with stdout and stderr redirected to the files out_path and err_path (created
 * or truncated); returns what fn returned. */
int fake_host_captured(int (*fn)(void *arg), void *arg, const char *out_path, const char *err_path);
/* A file's whole content, NUL-terminated (malloc'd); NULL when it cannot be read. */
char *fake_host_slurp(const char *path, size_t *len);

#endif /* FAKE_HOST_H */
