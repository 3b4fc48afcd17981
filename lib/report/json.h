/* SPDX-License-Identifier: MIT */
/* json.h: the --bench-json document (schema 2) of a run. */
#ifndef BENCH_REPORT_JSON_H
#define BENCH_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/report.h"

/* The document as text (malloc'd, ends with a newline); NULL when out of memory. */
BENCH__HIDDEN char *bench__json_render(const struct bench__report *report);
/* Write it atomically: a temporary file in the target's directory, fsync, rename; a target that
 * exists and is not a regular file (a device, a FIFO) is written directly. On failure the
 * target is untouched, no temporary file remains, and err holds the reason. */
BENCH__HIDDEN int bench__json_write(const struct bench__report *report, const char *path, char *err,
                                    size_t err_size);

/* The document's value rules for the other formats (report/formats.c), on jansson values
 * (json_t is jansson's struct json_t): a number by the rules of docs/reference/bench-json.md
 * ("Numbers", not finite -> null); text repaired to UTF-8; put `value` under a key repaired to
 * UTF-8, consuming value (false when it is NULL or out of memory); the tree as text (malloc'd,
 * indented like the document, ends with a newline; NULL when out of memory). */
struct json_t;
BENCH__HIDDEN struct json_t *bench__json_number(double v);
BENCH__HIDDEN struct json_t *bench__json_string(const char *s);
BENCH__HIDDEN bool bench__json_put(struct json_t *obj, const char *key, struct json_t *value);
BENCH__HIDDEN char *bench__json_dump(struct json_t *doc);

#endif /* BENCH_REPORT_JSON_H */
