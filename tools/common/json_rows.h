/* SPDX-License-Identifier: MIT */
/* json_rows.h: a JSON document read without holding its whole tree (`libbench record` and
 * `libbench export`): the members of its top-level object parsed one by one by jansson, except a
 * "rows" array, whose elements are handed out one at a time. What the readers hold is the text
 * and one row, not a tree ten times the text's size. Every byte is checked: a text jansson would
 * refuse as a whole is refused here too ("not JSON: ..."), at the latest when the row that holds
 * the fault is reached. */
#ifndef LIBBENCH_TOOLS_COMMON_JSON_ROWS_H
#define LIBBENCH_TOOLS_COMMON_JSON_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct tool_json_doc {
    const char *text; /* the caller's; it outlives the document */
    size_t len;
    size_t flags;    /* jansson's decoding flags for every value */
    json_type type;  /* the type of the top-level value */
    json_t *head;    /* an object: its members but an array "rows"; NULL for another type */
    bool rows_array; /* the object has "rows", an array, read by tool_json_rows_next */
    size_t rows_at;  /* the offset of its '[' */
    size_t n_rows;   /* its elements */
};

/* Reads the top level of text (len bytes, need not be NUL-terminated) with jansson's flags
 * (JSON_REJECT_DUPLICATES...; without JSON_DECODE_ANY the top level is an object or an array,
 * as json_loadb has it). 0; or -1 with "not JSON: <reason> (line L, column C)" in err.
 * Free with tool_json_doc_free either way. The rows' own bytes are checked as they are read. */
int tool_json_doc_open(const char *text, size_t len, size_t flags, struct tool_json_doc *doc,
                       char *err, size_t err_size);
void tool_json_doc_free(struct tool_json_doc *doc);

/* The rows, in order. */
struct tool_json_rows {
    const struct tool_json_doc *doc;
    size_t pos;   /* the next element's first byte */
    size_t index; /* the next element's index */
};
void tool_json_rows_begin(const struct tool_json_doc *doc, struct tool_json_rows *it);
/* 1 with the next row in *row (a new reference, any JSON type) and its index in *index; 0 after
 * the last; -1 with "not JSON: ..." in err when its text is not JSON. */
int tool_json_rows_next(struct tool_json_rows *it, json_t **row, size_t *index, char *err,
                        size_t err_size);

/* The rest of the rows read and dropped: 0 when every one is JSON, else -1 with "not JSON: ..."
 * in err. What a reader that refuses the document for another reason runs first, so that a
 * text that is not JSON is always refused as such. */
int tool_json_rows_check(struct tool_json_rows *it, char *err, size_t err_size);

#endif /* LIBBENCH_TOOLS_COMMON_JSON_ROWS_H */
