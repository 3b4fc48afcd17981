/* SPDX-License-Identifier: MIT */
/* json_rows.c: owns reading a JSON document a row at a time (json_rows.h): a scanner that finds
 * where each value ends (strings, brackets; no recursion, whatever the depth) and checks the
 * punctuation between values, jansson for every value itself, and the position of a fault in the
 * whole text. It interprets no member: what a document means is its reader's. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_rows.h"

#define MAX_DEPTH 2048 /* jansson's JSON_PARSER_MAX_DEPTH: the same texts are refused */

/* The line (from 1) and column (from 0) of byte `at`. */
static void position(const char *t, size_t at, int *line, int *column)
{
    int l = 1;
    size_t start = 0;
    for (size_t i = 0; i < at; i++)
        if (t[i] == '\n') {
            l++;
            start = i + 1;
        }
    *line = l;
    *column = (int)(at - start);
}

/* A fault of the text at byte `at`, said as jansson says one. */
static int fault(const struct tool_json_doc *d, size_t at, const char *what, char *err, size_t size)
{
    int line, column;
    position(d->text, at, &line, &column);
    return tool_json_error(err, size, "not JSON: %s (line %d, column %d)", what, line, column + 1);
}

/* jansson's fault in the value at `at`, moved to its place in the whole text. */
static int value_fault(const struct tool_json_doc *d, size_t at, const json_error_t *je, char *err,
                       size_t size)
{
    int line, column;
    position(d->text, at, &line, &column);
    if (je->line > 1)
        line += je->line - 1, column = je->column - 1;
    else
        column += je->column > 0 ? je->column - 1 : 0;
    return tool_json_error(err, size, "not JSON: %s (line %d, column %d)", je->text, line,
                           column + 1);
}

static size_t skip_ws(const struct tool_json_doc *d, size_t i)
{
    while (i < d->len &&
           (d->text[i] == ' ' || d->text[i] == '\t' || d->text[i] == '\n' || d->text[i] == '\r'))
        i++;
    return i;
}

/* One past the closing quote of the string opening at i, or 0 when the text ends first. */
static size_t string_end(const struct tool_json_doc *d, size_t i)
{
    for (i++; i < d->len; i++) {
        if (d->text[i] == '\\')
            i++;
        else if (d->text[i] == '"')
            return i + 1;
    }
    return 0;
}

/* One past the value starting at i (its extent, checked by jansson later), or 0 when the text
 * ends inside it; *depth is its deepest nesting of brackets. */
static size_t value_end(const struct tool_json_doc *d, size_t i, size_t *depth)
{
    *depth = 0;
    const char *t = d->text;
    if (i >= d->len)
        return 0;
    if (t[i] == '"')
        return string_end(d, i);
    if (t[i] == '{' || t[i] == '[') {
        size_t level = 0;
        for (; i < d->len; i++) {
            char c = t[i];
            if (c == '"') {
                size_t e = string_end(d, i);
                if (!e)
                    return 0;
                i = e - 1;
            } else if (c == '{' || c == '[') {
                if (++level > *depth)
                    *depth = level;
            } else if (c == '}' || c == ']') {
                if (--level == 0)
                    return i + 1;
            }
        }
        return 0;
    }
    static const char stops[] = ",]}: \t\n\r\"[{";
    size_t start = i; /* a number, true, false, null, or a fault jansson names */
    while (i < d->len && !memchr(stops, t[i], sizeof stops - 1))
        i++;
    return i > start ? i : start + 1;
}

/* jansson's reading of the value [at, end), at nesting `outer` (the brackets around it). */
static json_t *parse_value(const struct tool_json_doc *d, size_t at, size_t end, size_t depth,
                           size_t outer, char *err, size_t size)
{
    if (depth + outer > MAX_DEPTH) {
        fault(d, at, "maximum parsing depth reached", err, size);
        return NULL;
    }
    json_error_t je;
    json_t *v = json_loadb(d->text + at, end - at, d->flags | JSON_DECODE_ANY, &je);
    if (!v)
        value_fault(d, at, &je, err, size);
    return v;
}

/* After a value of an array at i: the next element's start (*more), or past the ']'. */
static int next_element(const struct tool_json_doc *d, size_t i, size_t *next, bool *more,
                        char *err, size_t size)
{
    i = skip_ws(d, i);
    if (i < d->len && d->text[i] == ',') {
        *next = skip_ws(d, i + 1);
        *more = true;
        if (*next < d->len && d->text[*next] == ']')
            return fault(d, *next, "unexpected token near ']'", err, size);
        return 0;
    }
    if (i < d->len && d->text[i] == ']') {
        *next = i + 1;
        *more = false;
        return 0;
    }
    return fault(d, i, i < d->len ? "']' expected" : "']' expected near end of file", err, size);
}

/* Walks the array opening at `at` (nesting `outer` around it): counts its elements and, when
 * `parse`, checks each with jansson. *end is one past its ']'. */
static int walk_array(const struct tool_json_doc *d, size_t at, size_t outer, bool parse,
                      size_t *count, size_t *end, char *err, size_t size)
{
    size_t i = skip_ws(d, at + 1);
    *count = 0;
    if (i < d->len && d->text[i] == ']') {
        *end = i + 1;
        return 0;
    }
    for (bool more = true; more;) {
        size_t depth, e = value_end(d, i, &depth);
        if (!e)
            return fault(d, d->len, "premature end of input", err, size);
        if (depth + outer + 1 > MAX_DEPTH)
            return fault(d, i, "maximum parsing depth reached", err, size);
        if (parse) {
            json_t *v = parse_value(d, i, e, depth, outer + 1, err, size);
            if (!v)
                return -1;
            json_decref(v);
        }
        (*count)++;
        if (next_element(d, e, &i, &more, err, size) != 0)
            return -1;
    }
    *end = i;
    return 0;
}

/* The members of the object opening at `at`: every one into d->head, an array "rows" kept as
 * its offset. *end is one past its '}'. */
static int read_object(struct tool_json_doc *d, size_t at, size_t *end, char *err, size_t size)
{
    d->head = json_object();
    size_t i = skip_ws(d, at + 1);
    if (i < d->len && d->text[i] == '}') {
        *end = i + 1;
        return 0;
    }
    for (;;) {
        if (i >= d->len || d->text[i] != '"')
            return fault(d, i, i < d->len ? "string or '}' expected" : "premature end of input",
                         err, size);
        size_t key_end = string_end(d, i), depth = 0;
        if (!key_end)
            return fault(d, d->len, "premature end of input", err, size);
        json_t *key = parse_value(d, i, key_end, 0, 1, err, size);
        if (!key)
            return -1;
        size_t colon = skip_ws(d, key_end);
        size_t v = skip_ws(d, colon + 1);
        size_t v_end = colon < d->len && d->text[colon] == ':' ? value_end(d, v, &depth) : 0;
        const char *name = json_string_value(key);
        bool is_rows = !strcmp(name, "rows") && v < d->len && d->text[v] == '[';
        int rc = 0;
        if (colon >= d->len || d->text[colon] != ':')
            rc = fault(d, colon, "':' expected", err, size);
        else if (!v_end)
            rc = fault(d, d->len, "premature end of input", err, size);
        else if ((d->flags & JSON_REJECT_DUPLICATES) &&
                 (json_object_get(d->head, name) || (!strcmp(name, "rows") && d->rows_array)))
            rc = fault(d, i, "duplicate object key", err, size);
        else if (is_rows) {
            if (depth + 1 > MAX_DEPTH)
                rc = fault(d, v, "maximum parsing depth reached", err, size);
            else
                rc = walk_array(d, v, 1, false, &d->n_rows, &v_end, err, size);
            d->rows_array = true;
            d->rows_at = v;
            json_object_del(d->head, "rows"); /* without the flag, the last "rows" wins */
        } else {
            json_t *value = parse_value(d, v, v_end, depth, 1, err, size);
            rc = value ? 0 : -1;
            if (value) {
                json_object_set_new(d->head, name, value);
                if (!strcmp(name, "rows"))
                    d->rows_array = false;
            }
        }
        json_decref(key);
        if (rc != 0)
            return -1;
        i = skip_ws(d, v_end);
        if (i < d->len && d->text[i] == ',') {
            i = skip_ws(d, i + 1);
            continue;
        }
        if (i < d->len && d->text[i] == '}') {
            *end = i + 1;
            return 0;
        }
        return fault(d, i, i < d->len ? "',' or '}' expected" : "premature end of input", err,
                     size);
    }
}

int tool_json_doc_open(const char *text, size_t len, size_t flags, struct tool_json_doc *doc,
                       char *err, size_t err_size)
{
    memset(doc, 0, sizeof *doc);
    doc->text = text;
    doc->len = len;
    doc->flags = flags;
    size_t i = skip_ws(doc, 0), end = 0;
    if (i >= len)
        return fault(doc, i, "'[' or '{' expected near end of file", err, err_size);
    if (!(flags & JSON_DECODE_ANY) && text[i] != '{' && text[i] != '[')
        return fault(doc, i, "'[' or '{' expected", err, err_size);
    int rc;
    if (text[i] == '{') {
        doc->type = JSON_OBJECT;
        rc = read_object(doc, i, &end, err, err_size);
    } else if (text[i] == '[') {
        size_t n;
        doc->type = JSON_ARRAY;
        rc = walk_array(doc, i, 0, true, &n, &end, err, err_size);
    } else {
        size_t depth;
        end = value_end(doc, i, &depth);
        json_t *v = end ? parse_value(doc, i, end, depth, 0, err, err_size) : NULL;
        if (!end)
            fault(doc, len, "premature end of input", err, err_size);
        rc = v ? 0 : -1;
        doc->type = v ? json_typeof(v) : JSON_NULL;
        json_decref(v);
    }
    if (rc != 0)
        return -1;
    end = skip_ws(doc, end);
    if (end != len)
        return fault(doc, end, "end of file expected", err, err_size);
    return 0;
}

void tool_json_doc_free(struct tool_json_doc *doc)
{
    json_decref(doc->head);
    memset(doc, 0, sizeof *doc);
}

void tool_json_rows_begin(const struct tool_json_doc *doc, struct tool_json_rows *it)
{
    it->doc = doc;
    it->index = 0;
    it->pos = doc->rows_array && doc->n_rows ? skip_ws(doc, doc->rows_at + 1) : 0;
}

int tool_json_rows_next(struct tool_json_rows *it, json_t **row, size_t *index, char *err,
                        size_t err_size)
{
    const struct tool_json_doc *d = it->doc;
    *row = NULL;
    if (!d->rows_array || it->index >= d->n_rows)
        return 0;
    /* the punctuation and the extents were checked when the document was opened */
    size_t depth, end = value_end(d, it->pos, &depth);
    json_t *v = parse_value(d, it->pos, end, depth, 2, err, err_size);
    if (!v)
        return -1;
    bool more;
    next_element(d, end, &it->pos, &more, NULL, 0);
    *row = v;
    *index = it->index++;
    return 1;
}

int tool_json_rows_check(struct tool_json_rows *it, char *err, size_t err_size)
{
    json_t *row;
    size_t index;
    int got;
    while ((got = tool_json_rows_next(it, &row, &index, err, err_size)) > 0)
        json_decref(row);
    return got;
}
