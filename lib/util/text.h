/* SPDX-License-Identifier: MIT */
/* text.h: the text helpers every layer shares: checked formatting into a fixed buffer (a cut is
 * always marked), "; "-joined notes, the first line of a message, control-character
 * sanitising, UTF-8 repaired as the JSON document writes it, and the overflow-checked decimal
 * digit run. Pure functions. */
#ifndef BENCH_UTIL_TEXT_H
#define BENCH_UTIL_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bench/export.h>

#include "hidden.h"

/* U+2026, the mark of a text cut to fit. */
#define BENCH__ELLIPSIS "\xe2\x80\xa6"

/* printf into buf (size bytes). True when the whole text fit; otherwise the text is cut at a
 * UTF-8 character boundary and ends with U+2026, so a truncation is never silent. */
BENCH__HIDDEN BENCH_PRINTF(3, 4) bool bench__fmt(char *buf, size_t size, const char *fmt, ...);
BENCH__HIDDEN bool bench__vfmt(char *buf, size_t size, const char *fmt, va_list ap);

/* The longest prefix of s, at most max bytes, that ends on a UTF-8 character boundary. */
BENCH__HIDDEN size_t bench__utf8_cut(const char *s, size_t max);

/* Append text to a NUL-terminated note (capacity size), "; "-joined; a text that does not fit
 * is cut at a character boundary and marked with U+2026. The _once form does nothing when the
 * note already holds the text. */
BENCH__HIDDEN void bench__note_append(char *note, size_t size, const char *text);
BENCH__HIDDEN void bench__note_append_once(char *note, size_t size, const char *text);

/* The first line of message (malloc'd), with " …" when more lines followed; `fallback` when
 * message is NULL or empty. */
BENCH__HIDDEN char *bench__first_line(const char *message, const char *fallback);

/* Control characters (below 0x20, and 0x7F) become '?', so an echoed value stays on one line.
 * In place, or into buf (cut, and marked, to fit). */
BENCH__HIDDEN void bench__sanitize(char *s);
BENCH__HIDDEN void bench__sanitize_copy(const char *s, char *buf, size_t size);

/* The Levenshtein distance between a and b (insertions, deletions and substitutions of bytes),
 * or SIZE_MAX when either is longer than BENCH__EDIT_MAX bytes. */
#define BENCH__EDIT_MAX 64
BENCH__HIDDEN size_t bench__edit_distance(const char *a, const char *b);

/* "Did you mean": the candidate closest to `word`, among those offered one by one, within an edit
 * distance of BENCH__SUGGEST_MAX; the first one offered wins a tie. `best` stays NULL when no
 * candidate is close (or `word` is one of them: nothing to suggest). */
#define BENCH__SUGGEST_MAX 2
struct bench__suggestion {
    const char *word;
    const char *best;
    size_t distance;
};
BENCH__HIDDEN void bench__suggest_begin(struct bench__suggestion *s, const char *word);
BENCH__HIDDEN void bench__suggest_offer(struct bench__suggestion *s, const char *candidate);

/* UTF-8 as the --bench-json document writes it: every byte that does not start a well-formed
 * sequence (no overlong forms, no surrogates, nothing above U+10FFFF) becomes U+FFFD, because
 * jansson refuses text that is not UTF-8 and names, labels and messages come from client code.
 * _repair: that copy (malloc'd; out of memory aborts, alloc.h). _valid: s needs no repair. _same: a
 * and b are the same text once repaired. _after_same: the rest of s after a prefix that is
 * `prefix` once both are repaired, or NULL. None of them allocates but _repair. */
BENCH__HIDDEN char *bench__utf8_repair(const char *s);
BENCH__HIDDEN bool bench__utf8_valid(const char *s);
BENCH__HIDDEN bool bench__utf8_same(const char *a, const char *b);
BENCH__HIDDEN const char *bench__utf8_after_same(const char *s, const char *prefix);
/* FNV-1a of the repaired text, continuing from h (0xcbf29ce484222325 to start): texts that are
 * _same hash alike. */
BENCH__HIDDEN uint64_t bench__utf8_hash(const char *s, uint64_t h);

/* The decimal digit run at the start of [p, end): OK with its value in *value when the run is
 * not empty and its value at most max; *stop (when not NULL) is the first byte after the run. */
enum bench__digits { BENCH__DIGITS_OK, BENCH__DIGITS_NONE, BENCH__DIGITS_TOO_LARGE };
BENCH__HIDDEN enum bench__digits bench__parse_digits(const char *p, const char *end, uint64_t max,
                                                     uint64_t *value, const char **stop);

#endif /* BENCH_UTIL_TEXT_H */
