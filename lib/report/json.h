/* SPDX-License-Identifier: MIT */
/* json.h: the --bench-json document (schema 2) of a run. */
#ifndef BENCH_REPORT_JSON_H
#define BENCH_REPORT_JSON_H

#include <stddef.h>

#include "../model/report.h"

/* The document as text (malloc'd, ends with a newline); NULL when out of memory. */
BENCH__HIDDEN char *bench__json_render(const struct bench__report *report);
/* Write it atomically: a temporary file in the target's directory, fsync, rename; a target that
 * exists and is not a regular file (a device, a FIFO) is written directly. On failure the
 * target is untouched, no temporary file remains, and err holds the reason. */
BENCH__HIDDEN int bench__json_write(const struct bench__report *report, const char *path, char *err,
                                    size_t err_size);

#endif /* BENCH_REPORT_JSON_H */
