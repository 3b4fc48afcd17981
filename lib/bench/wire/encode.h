/* SPDX-License-Identifier: MIT */
/* wire.h: the events of a measuring worker, one JSON object per line on a pipe to the process
 * that supervises it: written by the worker (emit.c), read and handed to the collector by the
 * supervisor. Numbers survive the trip exactly (NaN and infinities included), so what the
 * supervisor draws and writes is what the worker measured. */
#ifndef BENCH_MEASURE_WIRE_H
#define BENCH_MEASURE_WIRE_H

#include <stdio.h>

#include "collector.h"

/* ---- the worker's side: each call writes one line into the stream's buffer ----------------- */

/* A worker's events: written into memory (`f`), sent to the pipe `fd` at a flush. The writes to
 * the pipe are the only I/O, and they go on through signals (EINTR) and partial writes. */
struct bench__wire_out {
    FILE *f;
    char *buf;
    size_t len;
    int fd;
};
BENCH__HIDDEN struct bench__wire_out *bench__wire_open(int fd);
BENCH__HIDDEN void bench__wire_close(struct bench__wire_out *o);
/* Send what is buffered: before anything a crash could stop (the bodies' code), so that every
 * event before it reaches the supervisor. A worker whose supervisor is gone ends here. */
BENCH__HIDDEN void bench__wire_flush(struct bench__wire_out *o);
/* The worker cannot reach its supervisor: the supervisor is gone (nobody would see what it
 * measures), or a body closed a pipe's descriptor (errno EBADF: said on stderr, which the
 * supervisor shows as the item's last output). The worker ends, status 127. */
BENCH__HIDDEN _Noreturn void bench__wire_lost(void);
/* A sync event, and the flush: the supervisor answers it on the worker's answer pipe once it has
 * taken every event before it. */
BENCH__HIDDEN void bench__wire_sync(struct bench__wire_out *o);

BENCH__HIDDEN void bench__wire_columns(FILE *f, const struct bench__column_wire *cols, size_t n,
                                       const char *const *doc, size_t n_doc,
                                       const char *const *table, size_t n_table,
                                       const char *const *workload_table, size_t n_wl);
BENCH__HIDDEN void bench__wire_begin(FILE *f, enum bench__item item, size_t entry, const char *name,
                                     const struct bench__kv *labels, size_t n_labels,
                                     unsigned round, unsigned rounds);
BENCH__HIDDEN void bench__wire_row(FILE *f, const struct bench__row *row, size_t slot);
BENCH__HIDDEN void bench__wire_window(FILE *f, const struct bench__window *w);
/* An event about one suite entry: "body_end", "body_table"; with `count` for "workload_end"
 * (its failures outside windows). */
BENCH__HIDDEN void bench__wire_entry(FILE *f, const char *type, size_t entry, size_t count);
BENCH__HIDDEN void bench__wire_group_keys(FILE *f, char *const *keys, size_t n);
BENCH__HIDDEN void bench__wire_group_table(FILE *f, const char *group);
BENCH__HIDDEN void bench__wire_clock(FILE *f, double overhead_ns);
BENCH__HIDDEN void bench__wire_rounds(FILE *f, unsigned rounds);
BENCH__HIDDEN void bench__wire_provenance(FILE *f, const char *fact);
BENCH__HIDDEN void bench__wire_said(FILE *f, const char *key);
BENCH__HIDDEN void bench__wire_note(FILE *f, const char *text);
BENCH__HIDDEN void bench__wire_workloads_done(FILE *f);
BENCH__HIDDEN void bench__wire_done(FILE *f, int status);

/* ---- the supervisor's side ---------------------------------------------------------------- */

/* Hand one line (len bytes, no newline) to the collector. Returns 1 for a sync event (the worker
 * waits for its answer), 0 for another event, or -1 when the line is not an event of this
 * protocol (the collector is left as it was). */
BENCH__HIDDEN int bench__wire_dispatch(struct bench__collector *c, const char *line, size_t len);

#endif /* BENCH_MEASURE_WIRE_H */
