/* SPDX-License-Identifier: MIT */
/* fake_host.h: what the tests that run whole bench_main() calls share: a fake set of small files
 * behind the fault-injection seam (bench__os.open/read/close), counters and soft dependencies
 * refused, and a run with its stdout and stderr captured in files. */
#ifndef FAKE_HOST_H
#define FAKE_HOST_H

#include <stdbool.h>
#include <stddef.h>

/* The text of the file at `path` when a test opens it, written into buf (size bytes) or a
 * constant; NULL when the file does not exist (open fails with ENOENT). Called at every open. */
typedef const char *(*fake_host_content)(const char *path, char *buf, size_t size);

/* Serve every open/read/close of the library through `content`. */
void fake_host_files(fake_host_content content);
/* perf_event_open fails with EACCES; dlopen fails and dlerror says `dlerror_text`. */
void fake_host_refuse(const char *dlerror_text);

/* The files of one bench_main run, in a temporary folder of its own. */
struct fake_host_run {
    int status;
    char dir[64], out[96], err[96], json[96];
    bool has_json; /* an argument asked for the document */
};
/* Run bench_main with argv {prog, args..., NULL} (args NULL-terminated; an argument "JSON"
 * stands for --bench-json=<run->json>), its stdout and stderr going to run->out and run->err. */
void fake_host_main(const char *prog, const char *const *args, struct fake_host_run *run);
/* Remove the run's files and folder. */
void fake_host_run_remove(const struct fake_host_run *run);

/* A file's whole content, NUL-terminated (malloc'd); NULL when it cannot be read. */
char *fake_host_slurp(const char *path, size_t *len);

#endif /* FAKE_HOST_H */
