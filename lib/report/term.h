/* SPDX-License-Identifier: MIT */
/* term.h: what an output stream is and how libbench may paint it (colour, a live line). */
#ifndef BENCH_REPORT_TERM_H
#define BENCH_REPORT_TERM_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/hidden.h"

struct bench__term {
    bool color;   /* SGR colour allowed */
    bool animate; /* live progress line allowed */
    int width;    /* columns; 80 when unknown */
    int height;   /* lines; 0 when unknown */
};

/* The one policy: colour and animation only on a TTY, never with --no-colors (no_colors), a
 * non-empty NO_COLOR or TERM=dumb. */
BENCH__HIDDEN struct bench__term bench__term_probe(int fd, bool no_colors);

/* `text` fitted into `room` display cells: as it is when it fits, else its tail after a U+2026
 * (the start is cut, at a '.' when one leaves the tail fitting, so a name keeps its last parts).
 * Written to out (cap bytes, always terminated); returns out. */
BENCH__HIDDEN char *bench__term_cut_left(const char *text, size_t room, char *out, size_t cap);

#endif /* BENCH_REPORT_TERM_H */
