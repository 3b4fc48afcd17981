/* SPDX-License-Identifier: MIT */
/* results_html_int.h: what the files of the HTML dashboard share (results_html.c: the page and
 * its top; results_html_table.c: the table; results_html_chart.c: the charts, the style and the
 * script): text put into the page, escaped, and numbers read from the report document. */
#ifndef LIBBENCH_TOOLS_RESULTS_HTML_INT_H
#define LIBBENCH_TOOLS_RESULTS_HTML_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/atomic_file.h"
#include "util/format.h"

#define EM_DASH "\xe2\x80\x94"
#define MINUS "\xe2\x88\x92" /* U+2212 */

void html_put_n(struct bench__text *t, const char *s, size_t n);
void html_put(struct bench__text *t, const char *s);
/* Text from the document, escaped for HTML text and attribute values. */
void html_put_esc(struct bench__text *t, const char *s);
__attribute__((format(printf, 2, 3))) void html_putf(struct bench__text *t, const char *fmt, ...);
/* A member's string, or "" when it is missing or not a string. */
const char *html_str(const json_t *obj, const char *key);
/* A member's number; NaN (shown as an em dash) when it is null, missing or not a number. */
double html_num(const json_t *obj, const char *key);
void html_put_ns(struct bench__text *t, double ns);
/* "profile / scenario / operation", an empty part left out, escaped. */
void html_put_identity(struct bench__text *t, const json_t *obj);
/* "+15.2%" of a relative size (0.152), U+2212 for a minus; an em dash for NaN. */
void html_put_rel(struct bench__text *t, double rel);
/* A run as "2026-11-05 06:00 UTC" from its timestamp_utc (the text as it is when it is not one). */
void html_put_when(struct bench__text *t, const char *timestamp_utc);

/* The table (results_html_table.c): its head, one row (chart: the index of the row's charts,
 * -1 without), its end. */
void html_table_head(struct bench__text *t);
void html_table_row(struct bench__text *t, const json_t *row, long chart);
void html_table_end(struct bench__text *t, size_t shown, size_t total);

/* The charts (results_html_chart.c): one row's section, and its entry in data (the array the
 * page's script reads). */
void html_chart_section(struct bench__text *t, json_t *data, const json_t *row, size_t index);
extern const char html_style[];
extern const char *const html_script[]; /* in pieces (C99 caps a literal), NULL-ended */

#endif /* LIBBENCH_TOOLS_RESULTS_HTML_INT_H */
