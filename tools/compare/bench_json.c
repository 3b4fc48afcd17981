/* SPDX-License-Identifier: MIT */
/* bench_json.c: owns reading one --bench-json document (schema 2) for `libbench compare`:
 * the file, the JSON, the fields it uses and one-line errors; and file mode's documents of
 * either kind, by content, as runs. It runs and compares nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "compare.h"
#include "common/file.h"
#include "common/json.h"
#include "util/text.h"

#define SHOWN_MAX 96 /* characters of a name or key echoed in an error */

void compare_doc_free(struct compare_doc *doc)
{
    for (size_t i = 0; i < doc->n_rows; i++) {
        struct compare_row *r = &doc->rows[i];
        free(r->name);
        for (size_t k = 0; k < r->n_labels; k++) {
            free(r->labels[k].key);
            free(r->labels[k].value);
        }
        free(r->labels);
        free(r->operation);
        free(r->key);
        free(r->skip);
    }
    free(doc->rows);
    doc->rows = NULL;
    doc->n_rows = 0;
}

void compare_docs_free(struct compare_doc *docs, size_t n)
{
    for (size_t i = 0; docs && i < n; i++)
        compare_doc_free(&docs[i]);
    free(docs);
}

static int label_order(const void *a, const void *b)
{
    return strcmp(((const struct compare_label *)a)->key, ((const struct compare_label *)b)->key);
}

/* "k=v,k2=v2" and the length-prefixed identity "<len>:name<len>:k<len>:v...". */
int compare_row_keys(struct compare_row *r)
{
    size_t op_len = 1, key_len = strlen(r->name) + 24;
    for (size_t k = 0; k < r->n_labels; k++) {
        size_t kl = strlen(r->labels[k].key), vl = strlen(r->labels[k].value);
        op_len += kl + vl + 2;
        key_len += kl + vl + 48;
    }
    r->operation = malloc(op_len);
    r->key = malloc(key_len);
    if (!r->operation || !r->key)
        return -1;
    /* the sizes above are exact upper bounds; snprintf keeps every write inside them */
    size_t op_used = 0, key_used = 0;
    r->operation[0] = '\0';
    key_used += (size_t)snprintf(r->key, key_len, "%zu:%s", strlen(r->name), r->name);
    for (size_t k = 0; k < r->n_labels && op_used < op_len && key_used < key_len; k++) {
        const struct compare_label *l = &r->labels[k];
        op_used += (size_t)snprintf(r->operation + op_used, op_len - op_used, "%s%s=%s",
                                    k ? "," : "", l->key, l->value);
        key_used += (size_t)snprintf(r->key + key_used, key_len - key_used, "%zu:%s%zu:%s",
                                     strlen(l->key), l->key, strlen(l->value), l->value);
    }
    return 0;
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

    /* validated: now copy (the caller frees a partly filled row) */
    r->median_ns = NAN;
    r->name = strdup(json_string_value(name));
    if (!r->name)
        return tool_json_error(err, size, "out of memory");
    size_t n = json_object_size(labels);
    if (n > 0) {
        r->labels = calloc(n, sizeof *r->labels);
        if (!r->labels)
            return tool_json_error(err, size, "out of memory");
        json_object_foreach((json_t *)labels, lk, lv)
        {
            struct compare_label *l = &r->labels[r->n_labels];
            l->key = strdup(lk);
            l->value = strdup(json_string_value(lv));
            r->n_labels++;
            if (!l->key || !l->value)
                return tool_json_error(err, size, "out of memory");
        }
        qsort(r->labels, r->n_labels, sizeof *r->labels, label_order);
    }
    if (compare_row_keys(r) != 0)
        return tool_json_error(err, size, "out of memory");
    if (failed)
        r->skip = strdup(json_string_value(error));
    else if (json_is_null(median))
        r->skip = strdup("medianNs is null (not measured)");
    else
        r->median_ns = json_number_value(median);
    if (!r->skip && isnan(r->median_ns))
        return tool_json_error(err, size, "out of memory");
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
    struct key_ref *refs = malloc(doc->n_rows * sizeof *refs);
    if (!refs)
        return tool_json_error(err, size, "out of memory");
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

/* A parsed document (root stays the caller's) into *doc. */
static int doc_from_root(const json_t *root, struct compare_doc *doc, char *err, size_t err_size)
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
    if (n > 0) {
        doc->rows = calloc(n, sizeof *doc->rows);
        if (!doc->rows) {
            tool_json_error(err, err_size, "out of memory");
            goto done;
        }
    }
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
    int rc = doc_from_root(root, doc, err, err_size);
    json_decref(root);
    return rc;
}

int compare_doc_load(const char *path, struct compare_doc *doc, char *err, size_t err_size)
{
    doc->rows = NULL;
    doc->n_rows = 0;
    char *data;
    size_t len;
    if (tool_read_file(path, COMPARE_DOC_MAX_BYTES, &data, &len, err, err_size) != 0)
        return -1;
    int rc = compare_doc_parse(data, len, doc, err, err_size);
    free(data);
    return rc;
}

/* ---- file mode: documents of either kind, as runs ------------------------------------------ */

int compare_doc_parse_runs(const char *data, size_t len, struct compare_doc **docs, size_t *n_docs,
                           char *err, size_t err_size)
{
    *docs = NULL;
    *n_docs = 0;
    json_error_t jerr;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        root = compare_gbench_load_lenient(data, len);
    if (!root)
        return tool_json_error(err, err_size, "line %d column %d: invalid JSON: %s", jerr.line,
                               jerr.column, jerr.text);
    int rc;
    if (compare_gbench_is(root)) {
        rc = compare_gbench_runs(root, docs, n_docs, err, err_size);
    } else if (!(*docs = calloc(1, sizeof **docs))) {
        rc = tool_json_error(err, err_size, "out of memory");
    } else if ((rc = doc_from_root(root, *docs, err, err_size)) == 0) {
        *n_docs = 1;
    } else {
        free(*docs);
        *docs = NULL;
    }
    json_decref(root);
    return rc;
}

int compare_doc_load_runs(const char *path, struct compare_doc **docs, size_t *n_docs, char *err,
                          size_t err_size)
{
    *docs = NULL;
    *n_docs = 0;
    char *data;
    size_t len;
    if (tool_read_file(path, COMPARE_DOC_MAX_BYTES, &data, &len, err, err_size) != 0)
        return -1;
    int rc = compare_doc_parse_runs(data, len, docs, n_docs, err, err_size);
    free(data);
    return rc;
}

#define FILE_RUNS_MAX 1000u /* runs per subject in file mode, as --runs allows in binary mode */

/* One subject's files in order: every file's runs appended to *docs, its path to *files. */
static int load_subject(char *const *paths, size_t n_paths, struct compare_doc **docs_out,
                        char ***files_out, size_t *n_out, char *err, size_t err_size)
{
    struct compare_doc *docs = NULL;
    char **files = NULL;
    size_t n = 0;
    for (size_t f = 0; f < n_paths; f++) {
        struct compare_doc *got;
        size_t k;
        char derr[COMPARE_ERROR_MAX], file[256];
        bench__sanitize_copy(paths[f], file, sizeof file);
        if (compare_doc_load_runs(paths[f], &got, &k, derr, sizeof derr) != 0) {
            tool_json_error(err, err_size, "%s: %s", file, derr);
            goto fail;
        }
        if (k > FILE_RUNS_MAX - n) {
            compare_docs_free(got, k);
            tool_json_error(err, err_size,
                            "%s: more than %u runs in all for one subject (files and their "
                            "repetitions)",
                            file, FILE_RUNS_MAX);
            goto fail;
        }
        struct compare_doc *more = realloc(docs, (n + k + 1) * sizeof *more);
        docs = more ? more : docs;
        char **more_files = more ? realloc(files, (n + k + 1) * sizeof *more_files) : NULL;
        files = more_files ? more_files : files;
        if (!more || !more_files) {
            compare_docs_free(got, k);
            tool_json_error(err, err_size, "out of memory");
            goto fail;
        }
        for (size_t r = 0; r < k; r++) {
            docs[n + r] = got[r];
            files[n + r] = paths[f];
        }
        n += k;
        free(got); /* the array only: its documents moved */
    }
    *docs_out = docs;
    *files_out = files;
    *n_out = n;
    return 0;
fail:
    compare_docs_free(docs, n);
    free(files);
    return -1;
}

int compare_load_files(struct compare_state *st, char *err, size_t err_size)
{
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        struct compare_doc *docs;
        char **files;
        size_t n;
        if (load_subject(st->opts.files[s], st->opts.n_files[s], &docs, &files, &n, err,
                         err_size) != 0)
            return -1;
        char **run_fail = calloc(n + 1, sizeof *run_fail);
        if (!run_fail) {
            compare_docs_free(docs, n);
            free(files);
            return tool_json_error(err, err_size, "out of memory");
        }
        for (size_t r = 0; r < st->n_runs[s]; r++) {
            if (st->docs[s])
                compare_doc_free(&st->docs[s][r]);
            if (st->run_fail[s])
                free(st->run_fail[s][r]);
        }
        free(st->docs[s]);
        free(st->run_fail[s]);
        free(st->opts.files[s]);
        st->docs[s] = docs;
        st->run_fail[s] = run_fail;
        st->opts.files[s] = files;
        st->opts.n_files[s] = n;
        st->n_runs[s] = n;
    }
    return 0;
}
