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

/* More distinct label keys than this and the labels are one column, "labels" (key=value pairs in
 * key order, joined by ','): a column per key would make the table rows x keys cells. */
#define EXPORT_LABEL_COLUMNS_MAX 32

struct export_label; /* a label of a row as read (doc.c) */

/* One row. Every number is NaN when the document holds null (not measured) or nothing. */
struct export_row {
    const char *name;
    const char **labels; /* one per export_doc.label_keys, NULL where the row has no such label */
    double iterations, samples, median_ns, deviation_ns, min_ns, max_ns;
    double cpu_ns;     /* the thread's CPU time per iteration ("cpuNs"); NaN = not measured */
    double *metrics;   /* one per export_doc.columns */
    bool *metric_real; /* the document wrote that metric as a real (1.65175e8), not an integer */
    bool *estimate;    /* the document lists the metric in estimatedMetrics */
    const char *error; /* "" when measured */
    bool at_clock_resolution;         /* the document's "atClockResolution": true */
    struct export_label *read_labels; /* while the document is read */
    size_t n_read_labels;
};

/* The document is read a row at a time (common/json_rows.h) and each row kept as the table
 * needs it: memory in the rows and their strings, not in a tree of the whole document. */
struct export_doc {
    json_t *root;     /* the document's top level but its rows: owns the columns' names */
    const char *kind; /* "--bench-json" or "libbench run --json" */
    struct export_column *columns;
    size_t n_columns;
    const char **label_keys; /* every label key of the rows, first seen first (or "labels") */
    size_t n_label_keys, cap_label_keys;
    struct export_row *rows;
    size_t n_rows;
    /* what doc.c reads with: the rows' strings, label keys and column names by name */
    char **blocks;
    size_t n_blocks, cap_blocks, block_used;
    json_t *key_index, *column_index;
    size_t *same_name; /* the next column of the same name, or n_columns */
};

/* Read the document at path (a regular file of at most TOOL_FILE_MAX_BYTES, opened without
 * blocking): 0, or -1 with one line in err. On either, export_doc_free frees what doc holds. */
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
