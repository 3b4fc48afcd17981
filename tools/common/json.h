/* SPDX-License-Identifier: MIT */
/* json.h: how the commands of the `libbench` tool print a JSON document (jansson's text,
 * indented by 2, keys in insertion order, every real in its shortest form that reads back as the
 * same double, and a final newline), and what their readers say of a document they refuse. */
#ifndef LIBBENCH_TOOLS_COMMON_JSON_H
#define LIBBENCH_TOOLS_COMMON_JSON_H

#include <stdbool.h>

#include <jansson.h>

#include "util/atomic_file.h"

/* Append the document's text to out (out of memory: util/alloc.h's one abort). */
void tool_json_dump(const json_t *doc, struct bench__text *out);
/* The same with every object's keys sorted (a document whose bytes must not depend on the order
 * it was built in). */
void tool_json_dump_sorted(const json_t *doc, struct bench__text *out);
/* One line: compact (no space, no indentation), keys in insertion order, then a newline. */
void tool_json_dump_line(const json_t *doc, struct bench__text *out);
/* One line, compact, every object's keys sorted, then a newline. */
void tool_json_dump_sorted_line(const json_t *doc, struct bench__text *out);

/* Compact text written piece by piece, the same bytes tool_json_dump_line writes for the same
 * value: what writes many lines of one shape without building them (the results store's raw
 * lines). Raw bytes; a JSON string of s[0..n) (UTF-8); a real in its shortest form; an integer;
 * any value (objects' keys in their order). */
void tool_json_put(struct bench__text *out, const char *s, size_t n);
void tool_json_put_string(struct bench__text *out, const char *s, size_t n);
void tool_json_put_real(struct bench__text *out, double v);
void tool_json_put_integer(struct bench__text *out, long long v);
void tool_json_put_value(struct bench__text *out, const json_t *v);
/* The same with every object's keys sorted: the bytes of tool_json_dump_sorted_line without its
 * newline, without jansson's "%.17g" text rewritten (what a document of many rows writes). */
void tool_json_put_value_sorted(struct bench__text *out, const json_t *v);

/* The document's text (tool_json_dump) written atomically at path (util/atomic_file.h); 0, or -1
 * with "cannot write 'PATH': reason" in err. doc stays the caller's. */
int tool_json_write(const json_t *doc, const char *path, char *err, size_t err_size);

/* v as the shortest "%.Ng" (N from 1 to 17) that strtod reads back as v. */
void tool_real_shortest(double v, char *buf, size_t size);

/* A reader's error: the message in err (when err is not NULL), on one line; always -1. */
__attribute__((format(printf, 3, 4))) int tool_json_error(char *err, size_t size, const char *fmt,
                                                          ...);
/* Text as a JSON string that is never NULL: s itself when it is UTF-8, else a copy with each
 * byte that is not part of a valid UTF-8 sequence replaced by U+FFFD (a path or file name the
 * file system holds as bytes). */
json_t *tool_json_text(const char *s);
/* Whether s is UTF-8 (what json_string accepts). */
bool tool_json_utf8(const char *s);
/* A value's JSON type for an error message: "an object", "a string", "null", ...; "missing" for
 * NULL (json_object_get of a key the object does not have). */
const char *tool_json_type_name(const json_t *v);
/* The same for a type. */
const char *tool_json_type_name_of(json_type type);

#endif /* LIBBENCH_TOOLS_COMMON_JSON_H */
