/* SPDX-License-Identifier: MIT */
/* fake.h: what the fake counting source (fake.c) counts and what it saw, for
 * tests/unit/sources/test_one_source.c: two event counters the test's bodies advance, the reason
 * the fake refuses to open (when a test sets one), and a tally of every operation the library
 * called. Test-only; never part of libbench. */
#ifndef BENCH_TESTS_FAKE_SOURCE_H
#define BENCH_TESTS_FAKE_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "sources/source.h"

/* The events the fake counts: a body advances them, the fake reads them at its edges (as a real
 * source reads a hardware counter). --fake counts ticks; --fake=tick,tock names what it counts. */
BENCH__HIDDEN extern uint64_t bench__fake_ticks;
BENCH__HIDDEN extern uint64_t bench__fake_tocks;

/* When not NULL, open() refuses with this reason (the source is then absent, never zero). */
BENCH__HIDDEN extern const char *bench__fake_refusal;

/* Every call the library made into the fake, since the test last cleared it. */
struct bench__fake_tally {
    unsigned opens, closes; /* open() calls that returned a state, close() calls */
    unsigned refusals;      /* open() calls that refused */
    unsigned passes;        /* pass_end() calls */
    uint64_t brackets;      /* bracket_end() calls */
    uint64_t iterations;    /* the iterations pass_end() was given, summed */
    unsigned runs_begun, runs_ended, edges_read;
    bool in_bracket;    /* between bracket_begin and bracket_end right now */
    unsigned last_mask; /* the events the last opened state counts (1 tick, 2 tock) */
};
BENCH__HIDDEN extern struct bench__fake_tally bench__fake_tally;

#endif /* BENCH_TESTS_FAKE_SOURCE_H */
