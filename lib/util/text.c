/* SPDX-License-Identifier: MIT */
/* text.c: owns the shared text helpers (see text.h). No I/O and no global state; nothing here
 * truncates without leaving the mark U+2026. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "text.h"

size_t bench__utf8_cut(const char *s, size_t max)
{
    size_t take = strlen(s);
    if (take <= max)
        return take;
    take = max;
    while (take > 0 && ((unsigned char)s[take] & 0xC0u) == 0x80u)
        take--; /* s[take] would be cut mid-character: back up to a character start */
    return take;
}

/* buf holds a text cut at size - 1 bytes: end it with the mark on a character boundary. */
static void mark_cut(char *buf, size_t size)
{
    size_t mark = sizeof BENCH__ELLIPSIS - 1;
    if (size <= mark) {
        buf[bench__utf8_cut(buf, size - 1)] = '\0';
        return;
    }
    size_t keep = bench__utf8_cut(buf, size - 1 - mark);
    memcpy(buf + keep, BENCH__ELLIPSIS, mark + 1);
}

bool bench__vfmt(char *buf, size_t size, const char *fmt, va_list ap)
{
    if (size == 0)
        return false;
    int n = vsnprintf(buf, size, fmt, ap);
    if (n < 0) {
        buf[0] = '\0';
        return false;
    }
    if ((size_t)n < size)
        return true;
    mark_cut(buf, size);
    return false;
}

bool bench__fmt(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool fit = bench__vfmt(buf, size, fmt, ap);
    va_end(ap);
    return fit;
}

void bench__note_append(char *note, size_t size, const char *text)
{
    if (size == 0)
        return;
    size_t len = strlen(note);
    if (len > 0 && len + 2 < size) {
        memcpy(note + len, "; ", 2);
        len += 2;
    }
    size_t room = len + 1 < size ? size - 1 - len : 0;
    size_t n = strlen(text);
    if (n <= room) {
        memcpy(note + len, text, n + 1);
        return;
    }
    size_t mark = sizeof BENCH__ELLIPSIS - 1;
    size_t keep = room > mark ? bench__utf8_cut(text, room - mark) : 0;
    memcpy(note + len, text, keep);
    if (room >= mark) {
        memcpy(note + len + keep, BENCH__ELLIPSIS, mark);
        keep += mark;
    }
    note[len + keep] = '\0';
}

void bench__note_append_once(char *note, size_t size, const char *text)
{
    if (!strstr(note, text))
        bench__note_append(note, size, text);
}

char *bench__first_line(const char *message, const char *fallback)
{
    if (!message || !*message)
        return bench__xstrdup(fallback);
    size_t len = strcspn(message, "\n");
    return bench__xasprintf("%.*s%s", (int)len, message, message[len] ? " " BENCH__ELLIPSIS : "");
}

void bench__sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

void bench__sanitize_copy(const char *s, char *buf, size_t size)
{
    if (size == 0)
        return;
    bench__fmt(buf, size, "%s", s ? s : "");
    bench__sanitize(buf);
}

size_t bench__edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > BENCH__EDIT_MAX || lb > BENCH__EDIT_MAX)
        return SIZE_MAX;
    size_t row[BENCH__EDIT_MAX + 1]; /* row[j]: the distance of a[0..i) to b[0..j) */
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

void bench__suggest_begin(struct bench__suggestion *s, const char *word)
{
    *s = (struct bench__suggestion){.word = word, .best = NULL, .distance = SIZE_MAX};
}

void bench__suggest_offer(struct bench__suggestion *s, const char *candidate)
{
    if (!candidate)
        return;
    size_t d = bench__edit_distance(s->word, candidate);
    if (d == 0) {
        s->best = NULL; /* the word itself is a candidate: nothing to suggest */
        s->distance = 0;
        return;
    }
    if (s->distance == 0 || d > BENCH__SUGGEST_MAX || d >= s->distance)
        return;
    s->best = candidate;
    s->distance = d;
}

/* The exact value of a digit run longer than 19 digits (rare: an overflow or leading zeros). */
static bool long_run(const char *p, const char *q, uint64_t max, uint64_t *value)
{
    const uint64_t limit = max / 10, last = max % 10; /* v * 10 + digit <= max */
    uint64_t v = 0;
    for (; p < q; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (v > limit || (v == limit && digit > last))
            return false;
        v = v * 10 + digit;
    }
    *value = v;
    return true;
}

enum bench__digits bench__parse_digits(const char *p, const char *end, uint64_t max,
                                       uint64_t *value, const char **stop)
{
    /* 19 digits never overflow 64 bits: the common run is summed without a check per digit */
    const char *q = p;
    uint64_t v = 0;
    for (; q < end && (unsigned)(*q - '0') < 10; q++)
        if (q - p < 19)
            v = v * 10 + (unsigned)(*q - '0');
    if (stop)
        *stop = q;
    if (q == p)
        return BENCH__DIGITS_NONE;
    if (q - p > 19 && !long_run(p, q, max, &v))
        return BENCH__DIGITS_TOO_LARGE;
    if (v > max)
        return BENCH__DIGITS_TOO_LARGE;
    *value = v;
    return BENCH__DIGITS_OK;
}
