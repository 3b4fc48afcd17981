/* SPDX-License-Identifier: MIT */
/* results_lines.h: a raw object's lines read a batch at a time by a thread of its own
 * (results_lines.c), for the index to add one batch while the next is read. */
#ifndef LIBBENCH_RESULTS_LINES_H
#define LIBBENCH_RESULTS_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "results_tool.h"

#define RESULTS_LINES_PER_BATCH 1024 /* lines parsed and held at once (two batches) */

/* One batch: its accepted lines (results_line_parse, the object's bench_id and profile), the
 * refusals met while it was read ({"line": 1-based, "reason", "text"}, in order), and whether
 * the object ends with it. */
struct results_line_batch {
    struct results_line lines[RESULTS_LINES_PER_BATCH];
    size_t n;
    json_t *bad;
    bool last;
};
struct results_lines;
/* Starts reading text (len bytes), which stays the caller's until results_lines_stop. */
struct results_lines *results_lines_start(const char *text, size_t len, const char *bench_id,
                                          const char *profile);
/* The next batch, in order (waits for it); call only until one with `last` was given. */
struct results_line_batch *results_lines_next(struct results_lines *r);
/* Gives the batch back: its lines and refusals are freed (take what is kept first). */
void results_lines_done(struct results_lines *r, struct results_line_batch *b);
/* Stops the reading (wherever it is) and frees everything. */
void results_lines_stop(struct results_lines *r);

#endif /* LIBBENCH_RESULTS_LINES_H */
