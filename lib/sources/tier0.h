/* SPDX-License-Identifier: MIT */
/* tier0.h: the pure /proc/self/io parser of the tier-0 source, exposed so tests can feed it
 * literal fixtures (captured, torn and hostile text), and the calibrated self-cost. */
#ifndef BENCH_SOURCES_TIER0_H
#define BENCH_SOURCES_TIER0_H

#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"

/* Indices of bench__tier0_parse_io's output. */
enum bench__tier0_io {
    BENCH__TIER0_SYSCR,
    BENCH__TIER0_SYSCW,
    BENCH__TIER0_RCHAR,
    BENCH__TIER0_WCHAR,
    BENCH__TIER0_READ_BYTES,
    BENCH__TIER0_WRITE_BYTES,
    BENCH__TIER0_N_IO
};

/* Parse the text of /proc/self/io (len bytes; need not be NUL-terminated) into out[], in
 * the order of enum bench__tier0_io. A key counts only at the start of a line, as `key:`
 * then spaces/tabs then decimal digits then a newline; a key that is missing, glued to
 * other text, cut off by the end of the buffer or beyond INT64_MAX gives -1. */
BENCH__HIDDEN void bench__tier0_parse_io(const char *text, size_t len, int64_t out[6]);

/* The self-cost calibrated at open for family member `field` of an open tier-0 state: what one
 * snapshot pair adds to it (subtracted from syscr, syscw and wchar; 0 for the others). rchar
 * instead subtracts exactly the bytes our own begin-edge reads returned. For tests. */
BENCH__HIDDEN double bench__tier0_self_cost(const void *state, size_t field);

#endif /* BENCH_SOURCES_TIER0_H */
