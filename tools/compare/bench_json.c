/* SPDX-License-Identifier: MIT */
/* bench_json.c: owns reading one --bench-json document (schema 2) for `libbench compare`: the
 * file, the JSON, the fields it uses and one-line errors. It reads no Google Benchmark document
 * (gbench.c), and runs and compares nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare.h"
#include "common/file.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

#define SHOWN_MAX 96 /* characters of a name or key echoed in an error */

static int label_order(const void *a, const void *b)
{
    return strcmp(((const struct compare_label *)a)->key, ((const struct compare_label *)b)->key);
}

/* One row object into *r; on failure err names the field. */
static int parse_row(const json_t *o, size_t i, struct compare_row *r, char *err, size_t size)
{
    char buf[SHOWN_MAX];
    if (!json_is_object(o))
        return tool_json_error(err, size, "rows[%zu]: must be an object, not %s", i,
                               tool_json_type_name(o));

    const json_t *name = json_object_get(o, "name");
    if (!name)
        return tool_json_error(err, size, "rows[%zu].name: missing", i);
    if (!json_is_string(name))
        return tool_json_error(err, size, "rows[%zu].name: must be a string, not %s", i,
                               tool_json_type_name(name));
    if (json_string_length(name) == 0)
        return tool_json_error(err, size, "rows[%zu].name: must not be empty", i);

    const json_t *labels = json_object_get(o, "labels");
    if (!labels)
        return tool_json_error(err, size, "rows[%zu].labels: missing", i);
    if (!json_is_object(labels))
        return tool_json_error(err, size, "rows[%zu].labels: must be an object, not %s", i,
                               tool_json_type_name(labels));
    const char *lk;
    const json_t *lv;
    json_object_foreach((json_t *)labels, lk, lv)
    {
        if (!json_is_string(lv)) {
            bench__sanitize_copy(lk, buf, sizeof buf);
            return tool_json_error(err, size, "rows[%zu].labels.%s: must be a string, not %s", i,
                                   buf, tool_json_type_name(lv));
        }
    }

    const json_t *error = json_object_get(o, "error");
    if (!error)
        return tool_json_error(err, size, "rows[%zu].error: missing", i);
    if (!json_is_string(error))
        return tool_json_error(err, size, "rows[%zu].error: must be a string, not %s", i,
                               tool_json_type_name(error));

    const json_t *median = json_object_get(o, "medianNs");
    if (!median)
        return tool_json_error(err, size, "rows[%zu].medianNs: missing", i);
    bool failed = json_string_length(error) > 0;
    if (!failed && !json_is_null(median)) {
        if (!json_is_number(median))
            return tool_json_error(err, size,
                                   "rows[%zu].medianNs: must be a number or null, not %s", i,
                                   tool_json_type_name(median));
        double v = json_number_value(median);
        if (!isfinite(v) || !(v > 0))
            return tool_json_error(err, size,
                                   "rows[%zu].medianNs: must be finite and > 0, not %.17g", i, v);
    }

    /* "metrics" is read for --metric: an object of numbers or nulls (absent: none) */
    const json_t *metrics = json_object_get(o, "metrics");
    if (metrics && !json_is_object(metrics))
        return tool_json_error(err, size, "rows[%zu].metrics: must be an object, not %s", i,
                               tool_json_type_name(metrics));
    const char *mk;
    const json_t *mv;
    if (metrics)
        json_object_foreach((json_t *)metrics, mk, mv)
        {
            if (!json_is_number(mv) && !json_is_null(mv)) {
                bench__sanitize_copy(mk, buf, sizeof buf);
                return tool_json_error(err, size,
                                       "rows[%zu].metrics.%s: must be a number or null, not %s", i,
                                       buf, tool_json_type_name(mv));
            }
        }

    /* validated: now copy */
    r->median_ns = NAN;
    if (metrics && json_object_size(metrics) > 0) {
        r->metrics = bench__xcalloc(json_object_size(metrics), sizeof *r->metrics);
        json_object_foreach((json_t *)metrics, mk, mv)
        {
            struct compare_metric *m = &r->metrics[r->n_metrics++];
            m->name = bench__xstrdup(mk);
            m->value = json_is_number(mv) ? json_number_value(mv) : NAN;
        }
    }
    r->name = bench__xstrdup(json_string_value(name));
    size_t n = json_object_size(labels);
    if (n > 0) {
        r->labels = bench__xcalloc(n, sizeof *r->labels);
        json_object_foreach((json_t *)labels, lk, lv)
        {
            struct compare_label *l = &r->labels[r->n_labels++];
            l->key = bench__xstrdup(lk);
            l->value = bench__xstrdup(json_string_value(lv));
        }
        qsort(r->labels, r->n_labels, sizeof *r->labels, label_order);
    }
    compare_row_keys(r);
    if (failed)
        r->skip = bench__xstrdup(json_string_value(error));
    else if (json_is_null(median))
        r->skip = bench__xstrdup("medianNs is null (not measured)");
    else
        r->median_ns = json_number_value(median);
    return 0;
}

struct key_ref {
    const char *key;
    size_t index;
};

static int key_ref_order(const void *a, const void *b)
{
    const struct key_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Two rows with the same name and labels: name the later one and the first. */
static int check_duplicates(const struct compare_doc *doc, char *err, size_t size)
{
    if (doc->n_rows < 2)
        return 0;
    struct key_ref *refs = bench__xmalloc(doc->n_rows * sizeof *refs);
    for (size_t i = 0; i < doc->n_rows; i++)
        refs[i] = (struct key_ref){doc->rows[i].key, i};
    qsort(refs, doc->n_rows, sizeof *refs, key_ref_order);
    size_t first = 0, later = SIZE_MAX;
    for (size_t i = 1; i < doc->n_rows; i++) {
        if (strcmp(refs[i].key, refs[i - 1].key) != 0)
            continue;
        size_t j = i; /* refs[i] repeats the key; the run starts at the earliest index */
        while (j > 0 && strcmp(refs[j - 1].key, refs[i].key) == 0)
            j--;
        if (refs[i].index < later) {
            later = refs[i].index;
            first = refs[j].index;
        }
    }
    free(refs);
    if (later == SIZE_MAX)
        return 0;
    const struct compare_row *r = &doc->rows[later];
    char name[SHOWN_MAX], op[SHOWN_MAX];
    bench__sanitize_copy(r->name, name, sizeof name);
    bench__sanitize_copy(r->operation, op, sizeof op);
    return tool_json_error(err, size, "rows[%zu]: the same cell as rows[%zu] ('%s' {%s})", later,
                           first, name, op);
}

int compare_doc_from_root(const json_t *root, struct compare_doc *doc, char *err, size_t err_size)
{
    doc->rows = NULL;
    doc->n_rows = 0;
    int rc = -1;
    if (!json_is_object(root)) {
        tool_json_error(err, err_size,
                        "top level: must be an object (a --bench-json document), not %s",
                        tool_json_type_name(root));
        goto done;
    }
    const json_t *schema = json_object_get(root, "schema");
    if (!schema) {
        tool_json_error(err, err_size, "schema: missing (not a --bench-json document)");
        goto done;
    }
    if (!json_is_integer(schema)) {
        tool_json_error(err, err_size, "schema: must be the integer 2, not %s",
                        tool_json_type_name(schema));
        goto done;
    }
    if (json_integer_value(schema) != 2) {
        tool_json_error(err, err_size,
                        "schema: unsupported version %lld (this libbench reads schema 2)",
                        (long long)json_integer_value(schema));
        goto done;
    }
    const json_t *rows = json_object_get(root, "rows");
    if (!rows) {
        tool_json_error(err, err_size, "rows: missing");
        goto done;
    }
    if (!json_is_array(rows)) {
        tool_json_error(err, err_size, "rows: must be an array, not %s", tool_json_type_name(rows));
        goto done;
    }
    size_t n = json_array_size(rows);
    if (n > 0)
        doc->rows = bench__xcalloc(n, sizeof *doc->rows);
    for (size_t i = 0; i < n; i++) {
        doc->n_rows++; /* counted first so a partly filled row is freed */
        if (parse_row(json_array_get(rows, i), i, &doc->rows[i], err, err_size) != 0)
            goto done;
    }
    rc = check_duplicates(doc, err, err_size);
done:
    if (rc != 0)
        compare_doc_free(doc);
    return rc;
}

int compare_doc_parse(const char *data, size_t len, struct compare_doc *doc, char *err,
                      size_t err_size)
{
    doc->rows = NULL;
    doc->n_rows = 0;
    json_error_t jerr;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return tool_json_error(err, err_size, "line %d column %d: invalid JSON: %s", jerr.line,
                               jerr.column, jerr.text);
    int rc = compare_doc_from_root(root, doc, err, err_size);
    json_decref(root);
    return rc;
}

int compare_doc_load(const char *path, struct compare_doc *doc, char *err, size_t err_size)
{
    doc->rows = NULL;
    doc->n_rows = 0;
    char *data;
    size_t len;
    if (tool_read_file(path, TOOL_FILE_MAX_BYTES, &data, &len, err, err_size) != 0)
        return -1;
    int rc = compare_doc_parse(data, len, doc, err, err_size);
    free(data);
    return rc;
}
