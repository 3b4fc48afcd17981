/* SPDX-License-Identifier: MIT */
/* export.h: `libbench export`: a libbench document (--bench-json, or `libbench run --json`)
 * read into one table shape, and that table written as CSV or Markdown. The rules are in
 * docs/reference/formats.md. */
#ifndef LIBBENCH_TOOLS_EXPORT_H
#define LIBBENCH_TOOLS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* How a metric column's values look in Markdown. */
enum export_unit { EXPORT_COUNT, EXPORT_RATIO, EXPORT_PERCENT, EXPORT_NS, EXPORT_BYTES };

struct export_column {
    const char *name;   /* the document's id: the CSV header */
    const char *header; /* the table header: the Markdown header */
    enum export_unit unit;
};

/* One row. Every number is NaN when the document holds null (not measured) or nothing. */
struct export_row {
    const char *name;
    const char **labels; /* one per export_doc.label_keys, NULL where the row has no such label */
    double iterations, samples, median_ns, deviation_ns, min_ns, max_ns;
    double *metrics;   /* one per export_doc.columns */
    bool *estimate;    /* the document lists the metric in estimatedMetrics */
    const char *error; /* "" when measured */
};

struct export_doc {
    json_t *root;     /* owns every string above */
    const char *kind; /* "--bench-json" or "libbench run --json" */
    struct export_column *columns;
    size_t n_columns;
    const char **label_keys; /* every label key of the rows, first seen first */
    size_t n_label_keys;
    struct export_row *rows;
    size_t n_rows;
};

/* Read the document at path: 0, or -1 with one line in err. On either, export_doc_free frees
 * what doc holds. */
int export_doc_load(const char *path, struct export_doc *doc, char *err, size_t err_size);
/* The same from len bytes in memory (need not be NUL-terminated). */
int export_doc_parse(const char *data, size_t len, struct export_doc *doc, char *err,
                     size_t err_size);
void export_doc_free(struct export_doc *doc);

/* Write the table; the caller checks the stream for write errors. */
void export_csv(const struct export_doc *doc, FILE *out);
void export_markdown(const struct export_doc *doc, FILE *out);

void export_usage(FILE *out);
int export_main(int argc, char **argv);

#endif /* LIBBENCH_TOOLS_EXPORT_H */
