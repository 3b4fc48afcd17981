/* SPDX-License-Identifier: MIT */
/* text.c: owns the shared text helpers (see text.h). No I/O and no global state; nothing here
 * truncates without leaving the mark U+2026. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ---- UTF-8 as the --bench-json document writes it ---------------------------------------- */

/* Length of the well-formed UTF-8 sequence at s (what jansson accepts: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one. */
static size_t utf8_length(const unsigned char *s)
{
    size_t n;
    uint32_t cp, min;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        n = 2, cp = s[0] & 0x1Fu, min = 0x80;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        n = 3, cp = s[0] & 0x0Fu, min = 0x800;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        n = 4, cp = s[0] & 0x07u, min = 0x10000;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

char *bench__utf8_repair(const char *s)
{
    size_t len = strlen(s);
    char *out = bench__xmalloc(len * 3 + 1);
    const unsigned char *p = (const unsigned char *)s;
    char *q = out;
    while (*p) {
        size_t n = utf8_length(p);
        if (n) {
            memcpy(q, p, n);
            q += n, p += n;
        } else {
            memcpy(q, REPLACEMENT, 3);
            q += 3, p++;
        }
    }
    *q = '\0';
    return out;
}

bool bench__utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_length(p);
        if (!n)
            return false;
        p += n;
    }
    return true;
}

const char *bench__utf8_after_same(const char *s, const char *prefix)
{
    const unsigned char *a = (const unsigned char *)s, *b = (const unsigned char *)prefix;
    while (*b) {
        if (!*a)
            return NULL;
        size_t na = utf8_length(a), nb = utf8_length(b);
        /* a byte that starts no sequence reads as U+FFFD, as the document writes it */
        const unsigned char *ua = na ? a : (const unsigned char *)REPLACEMENT;
        const unsigned char *ub = nb ? b : (const unsigned char *)REPLACEMENT;
        size_t la = na ? na : 3, lb = nb ? nb : 3;
        if (la != lb || memcmp(ua, ub, la) != 0)
            return NULL;
        a += na ? na : 1;
        b += nb ? nb : 1;
    }
    return (const char *)a;
}

bool bench__utf8_same(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    const char *rest = bench__utf8_after_same(a, b);
    return rest && *rest == '\0';
}

uint64_t bench__utf8_hash(const char *s, uint64_t h)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_length(p);
        const unsigned char *unit = n ? p : (const unsigned char *)REPLACEMENT;
        for (size_t i = 0; i < (n ? n : 3); i++) {
            h ^= unit[i]; /* FNV-1a */
            h *= 0x100000001b3ull;
        }
        p += n ? n : 1;
    }
    return h;
}
