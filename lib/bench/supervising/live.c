/* SPDX-License-Identifier: MIT */
/* live.c: owns what a --bench run shows while it runs (see collector_parts.h): the live line
 * (the ticker), the table of the body in progress drawn in place on stdout, and the measuring
 * process's output and the library's notes passed on with the live line cleared first (the tail
 * of the output kept for a crash's note). It keeps no row and writes no document. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../report/bench_table.h"
#include "../../util/alloc.h"
#include "../../util/clock.h"
#include "../../util/format.h"
#include "../../util/text.h"
#include "collector_parts.h"

/* Take the frame drawn in place off stdout: cursor up to its first line, erase to the end. */
static void live_erase(struct bench__collector *c)
{
    if (!c->live_lines)
        return;
    fprintf(stdout, "\r\033[%zuA\033[J", c->live_lines);
    fflush(stdout);
    c->live_lines = 0;
}

void bench__live_quiet(struct bench__collector *c)
{
    bench__ticker_clear(&c->ticker);
    live_erase(c);
}

/* The benchmarks and workloads done: a streamed body when its table is drawn (its cases run
 * after it registered them), a grouped one when it ended, a workload when it ended. */
static size_t entries_done(const struct bench__collector *c)
{
    size_t done = 0;
    for (size_t i = 0; i < c->suite->count; i++) {
        bool workload = c->suite->entries[i].test->kind == BENCH_KIND_WORKLOAD;
        done += c->abandoned[i] || (c->cfg->n_group_by || workload ? c->ended[i] : c->drawn[i]);
    }
    return done;
}

/* The cells a line of a frame takes on the terminal: its SGR sequences take none. */
static size_t visible_width(const char *line, size_t len)
{
    size_t width = 0, from = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] != '\033')
            continue;
        width += bench__display_width(line + from, i - from);
        while (i < len && !(line[i] >= '@' && line[i] <= '~' && line[i] != '['))
            i++; /* ESC '[' parameters, up to the final byte */
        from = i + 1;
    }
    return width + (from < len ? bench__display_width(line + from, len - from) : 0);
}

/* The table of the body in progress drawn in place on stdout, the case about to be measured its
 * dim last row, and the done/total count under it: only when stdout animates, in streamed mode
 * (a grouped table gathers rows of many bodies), supervised (all output passes here), and when
 * the frame fits the terminal (a frame taller or wider than it could not be taken back); false:
 * not drawn, the stderr line says the case instead. */
static bool live_table(struct bench__collector *c)
{
    static const char *const frames[] = {
        "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
        "\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f"};
    if (!c->out.animate || c->cfg->n_group_by || c->listing || c->item_entry >= c->suite->count)
        return false;
    if (c->in_process)
        return false; /* a body prints past the collector: a frame's lines could not be counted */
    const char *source = c->suite->entries[c->item_entry].full_name;
    const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].source, source))
            rows[n++] = &c->rows[i];
    char *frame = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&frame, &size);
    if (!mem) {
        free(rows);
        return false;
    }
    struct bench__table_memory memory;
    bench__table_memory_copy(&memory, &c->memory);
    struct bench__table_paint paint = {.color = c->out.color,
                                       .live_name = c->item_name,
                                       .live_labels = c->item_labels,
                                       .live_n_labels = c->item_n_labels,
                                       .spinner = frames[c->live_frames % 10]};
    bench__bench_table_paint(mem, rows, n, c->table, c->n_table, NULL, 0, NULL, &memory, &paint);
    char elapsed[BENCH__NUMBER_MAX];
    bench__format_ns((double)(bench__clock_measure_ns() - c->ticker.start_ns), elapsed,
                     sizeof elapsed);
    fprintf(mem, "%zu/%zu (%s)\n", entries_done(c), c->total, elapsed);
    bench__table_memory_free(&memory);
    free(rows);
    if (fclose(mem) != 0) {
        free(frame);
        return false;
    }
    size_t lines = 0, widest = 0;
    for (const char *line = frame; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t w = visible_width(line, len);
        widest = w > widest ? w : widest;
        lines++;
        line += len + (end != NULL);
    }
    size_t height = c->out.height > 0 ? (size_t)c->out.height : 24;
    bool fits = widest < (size_t)c->out.width && lines < height;
    bench__ticker_clear(&c->ticker);
    fputs("\033[?2026h", stdout);
    live_erase(c);
    if (fits)
        fwrite(frame, 1, size, stdout);
    fputs("\033[?2026l", stdout);
    fflush(stdout);
    free(frame);
    if (!fits)
        return false;
    c->live_lines = lines;
    c->live_frames++;
    return true;
}

void bench__collector_output(struct bench__collector *c, bool to_stderr, const char *data,
                             size_t len)
{
    if (len == 0)
        return;
    bench__live_quiet(c);
    FILE *out = to_stderr ? stderr : stdout;
    fwrite(data, 1, len, out);
    fflush(out);
    struct bench__tail *t = &c->tail[to_stderr];
    if (len >= BENCH__TAIL_MAX) {
        memcpy(t->text, data + len - BENCH__TAIL_MAX, BENCH__TAIL_MAX);
        t->len = BENCH__TAIL_MAX;
    } else {
        size_t keep = t->len + len > BENCH__TAIL_MAX ? BENCH__TAIL_MAX - len : t->len;
        memmove(t->text, t->text + t->len - keep, keep);
        memcpy(t->text + keep, data, len);
        t->len = keep + len;
    }
}

void bench__collect_note(void *ctx, const struct bench__event_note *e)
{
    struct bench__collector *c = ctx;
    bench__live_quiet(c);
    fputs(e->text, stderr); /* the library's own line: no item's output */
    fflush(stderr);
}

void bench__live_begin(struct bench__collector *c, unsigned round, unsigned rounds)
{
    if (c->item == BENCH__ITEM_WORKLOAD) {
        live_erase(c); /* a workload has the spinner only, never a live table */
        bench__ticker_show(&c->ticker, c->item_name, entries_done(c), c->total, round, rounds);
        return;
    }
    if (c->item == BENCH__ITEM_REGISTER)
        return; /* nothing is measured: the live line's count stays */
    if (live_table(c))
        return;
    bench__ticker_show(&c->ticker, c->item_name, entries_done(c), c->total, round, rounds);
}
