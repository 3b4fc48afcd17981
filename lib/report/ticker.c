/* SPDX-License-Identifier: MIT */
/* ticker.c: owns the live line of a --bench run and the stderr notes around it (see ticker.h).
 * It reads the clock only to show the elapsed time, between cases. */
#include <stdarg.h>
#include <stdio.h>

#include "../util/clock.h"
#include "../util/format.h"
#include "ticker.h"

void bench__ticker_show(struct bench__ticker *t, const char *name, unsigned round, unsigned rounds)
{
    if (!t->term.animate)
        return;
    static const char *const frames[] = {
        "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
        "\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f"};
    char elapsed[BENCH__NUMBER_MAX];
    bench__format_ns((double)(bench__clock_ns() - t->start_ns), elapsed, sizeof elapsed);
    int room = t->term.width - 30;
    if (rounds > 1)
        fprintf(stderr, "\033[?2026h\r\033[2K%s round %u/%u (%s) %.*s\033[?2026l",
                frames[t->ticks % 10], round + 1, rounds, elapsed, room > 8 ? room : 8, name);
    else
        fprintf(stderr, "\033[?2026h\r\033[2K%s %zu measured (%s) %.*s\033[?2026l",
                frames[t->ticks % 10], t->ticks, elapsed, room > 8 ? room : 8, name);
    fflush(stderr);
    t->ticks++;
    t->shown = true;
}

void bench__ticker_clear(struct bench__ticker *t)
{
    if (t->shown) {
        fputs("\r\033[2K", stderr);
        fflush(stderr);
        t->shown = false;
    }
}

void bench__ticker_note(struct bench__ticker *t, const char *fmt, ...)
{
    bench__ticker_clear(t);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}
