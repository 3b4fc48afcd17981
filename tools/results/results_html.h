/* SPDX-License-Identifier: MIT */
/* results_html.h: the HTML dashboard of `libbench report --html`: one self-contained static
 * page made from the report document (docs/reference/results.md, "The HTML page"). It reads no
 * store. */
#ifndef LIBBENCH_TOOLS_RESULTS_HTML_H
#define LIBBENCH_TOOLS_RESULTS_HTML_H

#include <jansson.h>

struct bench__text;

/* Renders the report document (the text `libbench report --json` writes, schema
 * "libbench-report/2") into one HTML page: the open regressions, then the rows to watch, the
 * table in the rows' order (readable without JavaScript, its details folding out), then a
 * history chart (dates on the x-axis, the change points marked) and, from 10 samples, a
 * distribution chart per row, drawn by Chart.js inlined from the file the build found (Debian's
 * libjs-chart.js). The same document gives the same bytes. The page loads nothing from the
 * network. Returns 0, or -1 with a malloc'd one-line reason in *error (the caller frees it). */
int results_html_render(const char *report_json_text, struct bench__text *page, char **error);
/* The same page written atomically at path. */
int results_html_write(const char *report_json_text, const char *path, char **error);

/* The page made a row at a time (what `libbench report` does, so that no report is ever one
 * tree in memory): begin with the document without its rows, each row in order, then end. The
 * same rows give the same bytes as results_html_render of their document. */
struct results_html;
struct results_html *results_html_begin(const json_t *head);
void results_html_row(struct results_html *h, const json_t *row);
/* The page into *page (its data malloc'd); frees h. 0, or -1 with *error as above. */
int results_html_end(struct results_html *h, struct bench__text *page, char **error);
/* A page written atomically at path; 0, or -1 with *error as above. */
int results_html_save(const struct bench__text *page, const char *path, char **error);

/* At most this many rows in the table, and this many with charts: a page of a quarter of a
 * million rows opens in no browser; the rest are counted and named in the page, and are all in
 * the report document and the terminal. */
#define RESULTS_HTML_TABLE_MAX 5000
#define RESULTS_HTML_CHARTS_MAX 200
/* A distribution chart needs this many samples; under it the values are listed. */
#define RESULTS_HTML_HISTOGRAM_MIN 10

/* The Chart.js file inlined into the page (the UMD build): the path the build found; a test may
 * point it elsewhere. */
extern const char *results_html_chartjs_path;

#endif /* LIBBENCH_TOOLS_RESULTS_HTML_H */
