/* SPDX-License-Identifier: MIT */
/* doc.c: owns reading a document for `libbench export`: a --bench-json document (schema 2)
 * or a `libbench run --json` document (schema 1) into one table shape, null kept as NaN, read a
 * row at a time (common/json_rows.h) with each row's strings copied into blocks of the document,
 * label keys and columns found by name in a hash (the reading stays linear in the document).
 * It formats nothing and refuses any other document with the reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "common/file.h"
#include "common/json.h"
#include "common/json_rows.h"
#include "util/alloc.h"
#include "util/text.h"

#define BLOCK_BYTES ((size_t)1 << 20) /* the rows' strings are copied into blocks of 1 MiB */

struct export_label {
    size_t key; /* its index in label_keys */
    const char *value;
};

/* A copy of s (n bytes) in the document's blocks. */
static const char *keep(struct export_doc *doc, const char *s, size_t n)
{
    if (n == 0)
        return "";
    if (!doc->n_blocks || n + 1 > BLOCK_BYTES - doc->block_used) {
        size_t size = n + 1 > BLOCK_BYTES ? n + 1 : BLOCK_BYTES;
        doc->blocks =
            bench__grow(doc->blocks, &doc->cap_blocks, doc->n_blocks + 1, sizeof *doc->blocks);
        doc->blocks[doc->n_blocks++] = bench__xmalloc(size);
        doc->block_used = 0;
    }
    char *at = doc->blocks[doc->n_blocks - 1] + doc->block_used;
    memcpy(at, s, n);
    at[n] = '\0';
    doc->block_used += n + 1; /* a string larger than a block fills its own */
    return at;
}

static const char *keep_string(struct export_doc *doc, const json_t *s)
{
    return keep(doc, json_string_value(s), json_string_length(s));
}

/* A number of the document: NaN for null or a missing key; -1 for another type. */
static int number_at(const json_t *o, const char *key, double *out)
{
    const json_t *v = json_object_get(o, key);
    *out = NAN;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return -1;
    *out = json_number_value(v);
    return 0;
}

static enum export_unit unit_of(const json_t *col)
{
    const char *format = json_string_value(json_object_get(col, "format")); /* --bench-json */
    const char *unit = json_string_value(json_object_get(col, "unit"));     /* run --json */
    if (format && !strcmp(format, "ratio"))
        return EXPORT_RATIO;
    if (format && !strcmp(format, "percent"))
        return EXPORT_PERCENT;
    if (unit && !strcmp(unit, "ns"))
        return EXPORT_NS;
    if (unit && !strcmp(unit, "bytes"))
        return EXPORT_BYTES;
    return EXPORT_COUNT;
}

static int read_columns(struct export_doc *doc, const json_t *cols, char *err, size_t size)
{
    if (!json_is_array(cols))
        return tool_json_error(err, size, "columns: must be an array");
    size_t n = json_array_size(cols);
    doc->columns = bench__xcalloc(n + 1, sizeof *doc->columns);
    doc->same_name = bench__xcalloc(n + 1, sizeof *doc->same_name);
    size_t i;
    const json_t *c;
    json_array_foreach(cols, i, c)
    {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *header = json_string_value(json_object_get(c, "header"));
        if (!name)
            return tool_json_error(err, size, "columns[%zu].name: must be a string", i);
        doc->columns[doc->n_columns++] =
            (struct export_column){name, header ? header : name, unit_of(c)};
    }
    /* by name: the first column of each name, each column to the next of the same name */
    for (size_t k = n; k-- > 0;) {
        json_t *first = json_object_get(doc->column_index, doc->columns[k].name);
        doc->same_name[k] = first ? (size_t)json_integer_value(first) : n;
        json_object_set_new(doc->column_index, doc->columns[k].name, json_integer((json_int_t)k));
    }
    return 0;
}

/* The index of a label key, added (first seen first) when it is new. */
static size_t label_key(struct export_doc *doc, const char *key)
{
    const json_t *at = json_object_get(doc->key_index, key);
    if (at)
        return (size_t)json_integer_value(at);
    doc->label_keys = bench__grow(doc->label_keys, &doc->cap_label_keys, doc->n_label_keys + 1,
                                  sizeof *doc->label_keys);
    doc->label_keys[doc->n_label_keys] = keep(doc, key, strlen(key));
    json_object_set_new(doc->key_index, key, json_integer((json_int_t)doc->n_label_keys));
    return doc->n_label_keys++;
}

static int read_row(struct export_doc *doc, const json_t *o, size_t i, char *err, size_t size)
{
    struct export_row *row = &doc->rows[i];
    if (!json_is_object(o))
        return tool_json_error(err, size, "rows[%zu]: must be an object", i);
    const json_t *name = json_object_get(o, "name");
    if (!json_is_string(name))
        return tool_json_error(err, size, "rows[%zu].name: must be a string", i);
    row->name = keep_string(doc, name);
    const json_t *error = json_object_get(o, "error");
    row->error = json_is_string(error) ? keep_string(doc, error) : "";
    row->at_clock_resolution = json_is_true(json_object_get(o, "atClockResolution"));
    static const char *const keys[] = {"iterations", "samples", "medianNs", "deviationNs",
                                       "minNs",      "maxNs",   "cpuNs"};
    double *slots[] = {&row->iterations, &row->samples, &row->median_ns, &row->deviation_ns,
                       &row->min_ns,     &row->max_ns,  &row->cpu_ns};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        if (number_at(o, keys[k], slots[k]) != 0)
            return tool_json_error(err, size, "rows[%zu].%s: must be a number or null", i, keys[k]);
    row->metrics = bench__xcalloc(doc->n_columns + 1, sizeof *row->metrics);
    row->estimate = bench__xcalloc(doc->n_columns + 1, sizeof *row->estimate);
    row->metric_real = bench__xcalloc(doc->n_columns + 1, sizeof *row->metric_real);
    const json_t *metrics = json_object_get(o, "metrics");
    for (size_t c = 0; c < doc->n_columns; c++) {
        if (json_is_object(metrics) && number_at(metrics, doc->columns[c].name, &row->metrics[c]))
            return tool_json_error(err, size,
                                   "rows[%zu].metrics: a value that is not a number or null", i);
        row->metric_real[c] = json_is_real(
            json_is_object(metrics) ? json_object_get(metrics, doc->columns[c].name) : NULL);
    }
    size_t k;
    const json_t *e;
    json_array_foreach(json_object_get(o, "estimatedMetrics"), k, e)
    {
        const json_t *c =
            json_is_string(e) ? json_object_get(doc->column_index, json_string_value(e)) : NULL;
        for (size_t at = c ? (size_t)json_integer_value(c) : doc->n_columns; at < doc->n_columns;
             at = doc->same_name[at])
            row->estimate[at] = true;
    }
    const json_t *labels = json_object_get(o, "labels");
    row->read_labels = bench__xcalloc(json_object_size(labels) + 1, sizeof *row->read_labels);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)labels, key, v)
    {
        if (!json_is_string(v))
            return tool_json_error(err, size, "rows[%zu].labels.%s: must be a string", i, key);
        row->read_labels[row->n_read_labels++] =
            (struct export_label){label_key(doc, key), keep_string(doc, v)};
    }
    return 0;
}

static const char *const *sort_keys; /* label_by_key's table (qsort has no context) */

static int label_by_key(const void *a, const void *b)
{
    return strcmp(sort_keys[((const struct export_label *)a)->key],
                  sort_keys[((const struct export_label *)b)->key]);
}

/* Each row's labels in the order of doc->label_keys (known once every row is read), or, over
 * EXPORT_LABEL_COLUMNS_MAX keys, as one "labels" text. */
static void place_labels(struct export_doc *doc)
{
    bool one_column = doc->n_label_keys > EXPORT_LABEL_COLUMNS_MAX;
    size_t columns = one_column ? 1 : doc->n_label_keys;
    sort_keys = doc->label_keys;
    for (size_t i = 0; i < doc->n_rows; i++) {
        struct export_row *r = &doc->rows[i];
        r->labels = bench__xcalloc(columns + 1, sizeof *r->labels);
        if (!one_column) {
            for (size_t k = 0; k < r->n_read_labels; k++)
                r->labels[r->read_labels[k].key] = r->read_labels[k].value;
        } else if (r->n_read_labels) {
            qsort(r->read_labels, r->n_read_labels, sizeof *r->read_labels, label_by_key);
            struct bench__text t = {0};
            for (size_t k = 0; k < r->n_read_labels; k++) {
                const char *key = doc->label_keys[r->read_labels[k].key];
                const char *value = r->read_labels[k].value;
                if ((k && bench__text_append(",", 1, &t) != 0) ||
                    bench__text_append(key, strlen(key), &t) != 0 ||
                    bench__text_append("=", 1, &t) != 0 ||
                    bench__text_append(value, strlen(value), &t) != 0)
                    bench__out_of_memory();
            }
            r->labels[0] = keep(doc, t.data, t.len);
            free(t.data);
        }
        free(r->read_labels);
        r->read_labels = NULL;
    }
    if (one_column) {
        doc->label_keys[0] = "labels";
        doc->n_label_keys = 1;
    }
}

/* The document's text read into doc. */
static int from_text(struct export_doc *doc, const char *text, size_t len, char *err, size_t size)
{
    struct tool_json_doc d;
    doc->key_index = json_object();
    doc->column_index = json_object();
    if (tool_json_doc_open(text, len, JSON_REJECT_DUPLICATES, &d, err, size) != 0) {
        tool_json_doc_free(&d);
        return -1;
    }
    const json_t *root = doc->root = json_incref(d.head);
    const json_t *schema = json_object_get(root, "schema");
    const char *tool = json_string_value(json_object_get(root, "tool"));
    int rc = 0;
    if (!json_is_object(root) || !json_is_integer(schema))
        rc = tool_json_error(err, size,
                             "not a libbench document (no \"schema\": libbench export reads what "
                             "--bench-json and libbench run --json write)");
    else if (!tool && json_integer_value(schema) == 2)
        doc->kind = "--bench-json";
    else if (tool && !strcmp(tool, "libbench run") && json_integer_value(schema) == 1)
        doc->kind = "libbench run --json";
    else
        rc = tool_json_error(err, size,
                             "unknown document: schema %lld%s%s (this libbench reads the "
                             "--bench-json schema 2 and libbench run --json schema 1)",
                             (long long)json_integer_value(schema), tool ? " of " : "",
                             tool ? tool : "");
    if (rc == 0)
        rc = read_columns(doc, json_object_get(root, "columns"), err, size);
    if (rc == 0 && !d.rows_array)
        rc = tool_json_error(err, size, "rows: must be an array");
    struct tool_json_rows it;
    tool_json_rows_begin(&d, &it);
    if (rc != 0)
        tool_json_rows_check(&it, err, size); /* not JSON is the first reason */
    if (rc == 0) {
        doc->rows = bench__xcalloc(d.n_rows + 1, sizeof *doc->rows);
        json_t *row;
        size_t i;
        int got;
        while (rc == 0 && (got = tool_json_rows_next(&it, &row, &i, err, size)) != 0) {
            if (got < 0) {
                rc = -1;
                break;
            }
            doc->n_rows = i + 1; /* counted from here on, so what the row holds is freed */
            rc = read_row(doc, row, i, err, size);
            json_decref(row);
        }
        if (rc != 0)
            tool_json_rows_check(&it, err, size);
    }
    tool_json_doc_free(&d);
    if (rc == 0)
        place_labels(doc);
    return rc;
}

int export_doc_load(const char *path, struct export_doc *doc, char *err, size_t size)
{
    memset(doc, 0, sizeof *doc);
    char *text;
    size_t len;
    if (tool_read_file(path, TOOL_FILE_MAX_BYTES, &text, &len, err, size) != 0)
        return -1;
    int rc = from_text(doc, text, len, err, size);
    free(text);
    return rc;
}

int export_doc_parse(const char *data, size_t len, struct export_doc *doc, char *err, size_t size)
{
    memset(doc, 0, sizeof *doc);
    return from_text(doc, data, len, err, size);
}

void export_doc_free(struct export_doc *doc)
{
    for (size_t i = 0; i < doc->n_rows; i++) {
        free(doc->rows[i].labels);
        free(doc->rows[i].metrics);
        free(doc->rows[i].estimate);
        free(doc->rows[i].metric_real);
        free(doc->rows[i].read_labels);
    }
    for (size_t i = 0; i < doc->n_blocks; i++)
        free(doc->blocks[i]);
    free(doc->blocks);
    free(doc->rows);
    free(doc->columns);
    free(doc->same_name);
    free(doc->label_keys);
    json_decref(doc->key_index);
    json_decref(doc->column_index);
    json_decref(doc->root);
    memset(doc, 0, sizeof *doc);
}
