/* SPDX-License-Identifier: MIT */
/* decode.h: the supervisor's half of the wire: one line a worker's encoder wrote (encode.h) back
 * into the matching call on a sink, with the same fields (numbers to the bit, texts byte for
 * byte). */
#ifndef BENCH_BENCH_WIRE_DECODE_H
#define BENCH_BENCH_WIRE_DECODE_H

#include <stddef.h>

#include "../events.h"

/* Hand one line (len bytes, no newline) to `sink`. Returns the event's number
 * (BENCH__EVENT_<name>; BENCH__EVENT_sync: the worker waits for an answer), or -1 when the line
 * is not an event of this protocol (the sink is not called). A member missing from a known
 * event reads as 0, "" or an empty list; a malformed profile entry or window total is dropped,
 * never guessed. */
BENCH__HIDDEN int bench__wire_decode(const struct bench__sink *sink, const char *line, size_t len);

#endif /* BENCH_BENCH_WIRE_DECODE_H */
