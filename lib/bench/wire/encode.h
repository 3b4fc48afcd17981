/* SPDX-License-Identifier: MIT */
/* encode.h: the measuring worker's half of the wire: a sink (events.h) whose handlers write each
 * event as one compact JSON object on a line, {"t": "<event>", <field>: <value>, ...}, into a
 * buffer sent down a pipe to the supervising process at each sync event. Numbers survive the trip
 * exactly (NaN and infinities included) and texts byte for byte, so what the supervisor draws and
 * writes is what the worker measured (decode.h reads the lines back). */
#ifndef BENCH_BENCH_WIRE_ENCODE_H
#define BENCH_BENCH_WIRE_ENCODE_H

#include <stdio.h>

#include "../events.h"

/* A worker's events: written into memory (`f`), sent to the pipe `fd` at a flush. The writes to
 * the pipe are the only I/O, and they go on through signals (EINTR) and partial writes. A test
 * may fill one in by hand with its own stream and fd = ack_fd = -1: the lines stay in `f`. */
struct bench__wire_out {
    FILE *f;
    char *buf;
    size_t len;
    int fd; /* -1: nothing is sent (the lines stay in f) */
    /* the supervisor's answer to a sync event: one byte once everything written before it was
     * taken, so that what the item prints is the item's (-1: no answer awaited) */
    int ack_fd;
};
/* An encoder over the pipe `fd` (closed by bench__wire_close) and the answer pipe `ack_fd`. */
BENCH__HIDDEN struct bench__wire_out *bench__wire_open(int fd, int ack_fd);
BENCH__HIDDEN void bench__wire_close(struct bench__wire_out *o);
/* The sink that writes o's lines: every event one line; the sync event also flushes the bodies'
 * stdout and stderr first, sends what is buffered and waits for the supervisor's answer. */
BENCH__HIDDEN struct bench__sink bench__wire_sink(struct bench__wire_out *o);
/* Send what is buffered. A worker whose supervisor is gone ends here. */
BENCH__HIDDEN void bench__wire_flush(struct bench__wire_out *o);
/* The worker cannot reach its supervisor: the supervisor is gone (nobody would see what it
 * measures), or a body closed a pipe's descriptor (errno EBADF: said on stderr, which the
 * supervisor shows as the item's last output). The worker ends, status 127. */
BENCH__HIDDEN _Noreturn void bench__wire_lost(void);

#endif /* BENCH_BENCH_WIRE_ENCODE_H */
