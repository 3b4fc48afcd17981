/* SPDX-License-Identifier: MIT */
/* results_html.h: the HTML dashboard of `libbench report --html`: one self-contained static
 * page made from the report document (docs/reference/results.md). It reads no store. */
#ifndef LIBBENCH_TOOLS_RESULTS_HTML_H
#define LIBBENCH_TOOLS_RESULTS_HTML_H

/* Renders the report document (the text `libbench report --json` writes, schema
 * "libbench-report/1") into one HTML file at path, written atomically: the dashboard table in the
 * rows' order, readable without JavaScript, then a history chart and a distribution chart per
 * benchmark drawn by Chart.js, inlined from the file the build found (Debian's libjs-chart.js).
 * The same document gives the same bytes. The page loads nothing from the network.
 * Returns 0, or -1 with a malloc'd one-line reason in *error (the caller frees it). */
int results_html_write(const char *report_json_text, const char *path, char **error);

struct bench__text;
/* The same page into *page (its data malloc'd, the caller frees it) instead of a file. */
int results_html_render(const char *report_json_text, struct bench__text *page, char **error);

/* The Chart.js file inlined into the page (the UMD build): the path the build found; a test may
 * point it elsewhere. */
extern const char *results_html_chartjs_path;

#endif /* LIBBENCH_TOOLS_RESULTS_HTML_H */
