/* SPDX-License-Identifier: MIT */
/* serve_line.h: the text of one line of the served measuring protocol (--bench-serve, driven by
 * `libbench compare`'s paired mode): a field escaped so that it holds no tab, newline or other
 * control byte ('%' and those bytes as %XX), and read back; a line split into its tab-separated
 * fields. Pure functions, shared by the measured binary and the tool (docs/reference/cli.md,
 * "The served measuring mode"). */
#ifndef BENCH_UTIL_SERVE_LINE_H
#define BENCH_UTIL_SERVE_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include "hidden.h"

/* The protocol's first line, with its version: "libbench-serve 1". */
#define BENCH__SERVE_HELLO "libbench-serve 1"

/* Escape `in` into out (size bytes, NUL-terminated): every byte below 0x20, 0x7f and '%' as
 * "%XX" (upper-case hex), the rest as it is. False when it did not fit (out then holds "" ). */
BENCH__HIDDEN bool bench__serve_escape(const char *in, char *out, size_t size);
/* Undo bench__serve_escape on in[0..len): false on a '%' not followed by two hex digits, an
 * escaped NUL, a raw control byte or a result that does not fit (out then holds ""). */
BENCH__HIDDEN bool bench__serve_unescape(const char *in, size_t len, char *out, size_t size);
/* Split `line` (modified: tabs become NUL) into at most max fields at its tabs, the last one
 * keeping the rest of the line; the count. A trailing newline (and CR) is removed first. */
BENCH__HIDDEN size_t bench__serve_split(char *line, char **fields, size_t max);

#endif /* BENCH_UTIL_SERVE_LINE_H */
