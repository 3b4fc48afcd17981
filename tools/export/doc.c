/* SPDX-License-Identifier: MIT */
/* doc.c: owns reading a document for `libbench export`: a --bench-json document (schema 2)
 * or a `libbench run --json` document (schema 1) into one table shape, null kept as NaN. It
 * formats nothing and refuses any other document with the reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

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
    doc->columns = bench__xcalloc(json_array_size(cols) + 1, sizeof *doc->columns);
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
    return 0;
}

static void add_label_key(struct export_doc *doc, const char *key)
{
    for (size_t i = 0; i < doc->n_label_keys; i++)
        if (!strcmp(doc->label_keys[i], key))
            return;
    doc->label_keys =
        bench__xrealloc(doc->label_keys, (doc->n_label_keys + 1) * sizeof *doc->label_keys);
    doc->label_keys[doc->n_label_keys++] = key;
}

static int read_row(struct export_doc *doc, const json_t *o, size_t i, char *err, size_t size)
{
    struct export_row *row = &doc->rows[i];
    if (!json_is_object(o))
        return tool_json_error(err, size, "rows[%zu]: must be an object", i);
    row->name = json_string_value(json_object_get(o, "name"));
    if (!row->name)
        return tool_json_error(err, size, "rows[%zu].name: must be a string", i);
    const json_t *error = json_object_get(o, "error");
    row->error = json_is_string(error) ? json_string_value(error) : "";
    static const char *const keys[] = {"iterations",  "samples", "medianNs",
                                       "deviationNs", "minNs",   "maxNs"};
    double *slots[] = {&row->iterations,   &row->samples, &row->median_ns,
                       &row->deviation_ns, &row->min_ns,  &row->max_ns};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        if (number_at(o, keys[k], slots[k]) != 0)
            return tool_json_error(err, size, "rows[%zu].%s: must be a number or null", i, keys[k]);
    row->metrics = bench__xcalloc(doc->n_columns + 1, sizeof *row->metrics);
    row->estimate = bench__xcalloc(doc->n_columns + 1, sizeof *row->estimate);
    const json_t *metrics = json_object_get(o, "metrics");
    const json_t *estimated = json_object_get(o, "estimatedMetrics");
    for (size_t c = 0; c < doc->n_columns; c++) {
        if (json_is_object(metrics) && number_at(metrics, doc->columns[c].name, &row->metrics[c]))
            return tool_json_error(err, size,
                                   "rows[%zu].metrics: a value that is not a number or null", i);
        size_t k;
        const json_t *e;
        json_array_foreach(estimated, k, e) row->estimate[c] |=
            json_is_string(e) && !strcmp(json_string_value(e), doc->columns[c].name);
    }
    const json_t *labels = json_object_get(o, "labels");
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)labels, key, v)
    {
        if (!json_is_string(v))
            return tool_json_error(err, size, "rows[%zu].labels.%s: must be a string", i, key);
        add_label_key(doc, key);
    }
    return 0;
}

/* Each row's label values, in the order of doc->label_keys (known once every row is read). */
static void place_labels(struct export_doc *doc, const json_t *rows)
{
    for (size_t i = 0; i < doc->n_rows; i++) {
        doc->rows[i].labels = bench__xcalloc(doc->n_label_keys + 1, sizeof *doc->rows[i].labels);
        const json_t *labels = json_object_get(json_array_get(rows, i), "labels");
        for (size_t k = 0; k < doc->n_label_keys; k++)
            doc->rows[i].labels[k] = json_string_value(json_object_get(labels, doc->label_keys[k]));
    }
}

/* The document doc->root (held) read into doc. */
static int from_root(struct export_doc *doc, char *err, size_t size)
{
    const json_t *root = doc->root;
    const json_t *schema = json_object_get(root, "schema");
    const char *tool = json_string_value(json_object_get(root, "tool"));
    if (!json_is_object(root) || !json_is_integer(schema))
        return tool_json_error(err, size,
                               "not a libbench document (no \"schema\": libbench export reads what "
                               "--bench-json and libbench run --json write)");
    if (!tool && json_integer_value(schema) == 2)
        doc->kind = "--bench-json";
    else if (tool && !strcmp(tool, "libbench run") && json_integer_value(schema) == 1)
        doc->kind = "libbench run --json";
    else
        return tool_json_error(err, size,
                               "unknown document: schema %lld%s%s (this libbench reads the "
                               "--bench-json schema 2 and libbench run --json schema 1)",
                               (long long)json_integer_value(schema), tool ? " of " : "",
                               tool ? tool : "");
    if (read_columns(doc, json_object_get(root, "columns"), err, size) != 0)
        return -1;
    const json_t *rows = json_object_get(root, "rows");
    if (!json_is_array(rows))
        return tool_json_error(err, size, "rows: must be an array");
    doc->rows = bench__xcalloc(json_array_size(rows) + 1, sizeof *doc->rows);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        doc->n_rows = i + 1; /* counted from here on, so what the row holds is freed */
        if (read_row(doc, json_array_get(rows, i), i, err, size) != 0)
            return -1;
    }
    place_labels(doc, rows);
    return 0;
}

static int not_json(const json_error_t *je, char *err, size_t size)
{
    return tool_json_error(err, size, "not JSON: %s (line %d, column %d)", je->text, je->line,
                           je->column);
}

int export_doc_load(const char *path, struct export_doc *doc, char *err, size_t size)
{
    memset(doc, 0, sizeof *doc);
    json_error_t je;
    doc->root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc->root) {
        if (je.line < 0 || strstr(je.text, "unable to open"))
            return tool_json_error(err, size, "cannot read: %s", je.text);
        return not_json(&je, err, size);
    }
    return from_root(doc, err, size);
}

int export_doc_parse(const char *data, size_t len, struct export_doc *doc, char *err, size_t size)
{
    memset(doc, 0, sizeof *doc);
    json_error_t je;
    doc->root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc->root)
        return not_json(&je, err, size);
    return from_root(doc, err, size);
}

void export_doc_free(struct export_doc *doc)
{
    for (size_t i = 0; i < doc->n_rows; i++) {
        free(doc->rows[i].labels);
        free(doc->rows[i].metrics);
        free(doc->rows[i].estimate);
    }
    free(doc->rows);
    free(doc->columns);
    free(doc->label_keys);
    json_decref(doc->root);
    memset(doc, 0, sizeof *doc);
}
