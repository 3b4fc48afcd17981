/* SPDX-License-Identifier: MIT */
/* ticker.h: the live line of a --bench run: one stderr line redrawn between cases, only on a
 * terminal, and the notes that must never share a line with it. */
#ifndef BENCH_REPORT_TICKER_H
#define BENCH_REPORT_TICKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bench/export.h>

#include "term.h"

struct bench__ticker {
    struct bench__term term; /* of stderr */
    bool shown;
    size_t ticks;
    int64_t start_ns;
};

/* Redraw the line with the name of what is measured next: `<spinner> <done>/<total> (<elapsed>)
 * <name>`, the name cut from the left to fit the terminal (total 0: no count is known,
 * `<spinner> <n> measured (<elapsed>) <text>`, a caller's text cut at its end); rounds > 1 adds
 * "round r/N". Called between cases only, never while a clock runs. */
BENCH__HIDDEN void bench__ticker_show(struct bench__ticker *t, const char *name, size_t done,
                                      size_t total, unsigned round, unsigned rounds);
BENCH__HIDDEN void bench__ticker_clear(struct bench__ticker *t);
/* One line on stderr, the live line cleared first. */
BENCH__HIDDEN BENCH_PRINTF(2, 3) void bench__ticker_note(struct bench__ticker *t, const char *fmt,
                                                         ...);

#endif /* BENCH_REPORT_TICKER_H */
