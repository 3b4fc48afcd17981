/* SPDX-License-Identifier: MIT */
/* ticker.c: owns the live line of a --bench run and the stderr notes around it (see ticker.h).
 * It reads the clock only to show the elapsed time, between cases. */
#include <string.h>
#include <stdarg.h>
#include <stdio.h>

#include "../util/clock.h"
#include "../util/format.h"
#include "../util/text.h"
#include "table.h"
#include "ticker.h"

void bench__ticker_show(struct bench__ticker *t, const char *name, size_t done, size_t total,
                        unsigned round, unsigned rounds)
{
    if (!t->term.animate)
        return;
    static const char *const frames[] = {
        "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
        "\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f"};
    char elapsed[BENCH__NUMBER_MAX];
    bench__format_ns((double)(bench__clock_measure_ns() - t->start_ns), elapsed, sizeof elapsed);
    char count[64], round_text[48] = "", head[160], fitted[512];
    if (total)
        bench__fmt(count, sizeof count, "%zu/%zu", done, total);
    else
        bench__fmt(count, sizeof count, "%zu measured", t->ticks);
    if (rounds > 1)
        bench__fmt(round_text, sizeof round_text, " round %u/%u", round + 1, rounds);
    bench__fmt(head, sizeof head, "%s %s%s (%s) ", frames[t->ticks % 10], count, round_text,
               elapsed);
    /* one cell short of the width: a full last column would wrap on some terminals */
    size_t used = bench__display_width(head, strlen(head)) + 1;
    size_t room = (size_t)t->term.width > used + 8 ? (size_t)t->term.width - used : 8;
    if (total) {
        bench__term_cut_left(name, room, fitted, sizeof fitted);
    } else if (bench__display_width(name, strlen(name)) <= room) {
        bench__fmt(fitted, sizeof fitted, "%s", name);
    } else { /* a caller's own line (libbench run: "run 2/5: <name>") keeps its start */
        size_t end = 0, len = strlen(name);
        for (;;) {
            size_t next = end + 1;
            while (next < len && ((unsigned char)name[next] & 0xC0) == 0x80)
                next++;
            if (next > len || bench__display_width(name, next) > room - 1)
                break;
            end = next;
        }
        bench__fmt(fitted, sizeof fitted, "%.*s\xe2\x80\xa6", (int)end, name);
    }
    fprintf(stderr, "\033[?2026h\r\033[2K%s%s\033[?2026l", head, fitted);
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
