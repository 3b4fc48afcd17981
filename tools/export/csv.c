/* SPDX-License-Identifier: MIT */
/* csv.c: owns the CSV of `libbench export --format=csv` (RFC 4180: a header line, one line
 * per row, quoted fields where needed, CRLF-free): every number as the document holds it, with
 * the digits it holds (never more), in ns and the metrics' own units, the thread's CPU time per
 * iteration (cpu_ns), an empty field where the document holds null or nothing, and the names of
 * the metrics that are estimates (the tables' ≈), then `true` for a row at the clock's
 * resolution (the tables' ‡; its median and the rates derived from it are mostly the clock
 * read), in the last two columns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "common/json.h"
#include "util/alloc.h"

static void field(FILE *out, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* The shortest text that reads back as the same double; nothing for NaN (not measured). A value
 * the document wrote as a real keeps the digits it has: 1.65175e8 is 1.65175e+08, never
 * 165175000, which would claim three digits nobody measured. */
static void number_as(FILE *out, double v, bool real)
{
    if (!isfinite(v))
        return;
    if (v == trunc(v) && fabs(v) <= 9007199254740992.0 && !real) {
        fprintf(out, "%.0f", v == 0 ? 0.0 : v);
        return;
    }
    char text[40];
    tool_real_shortest(v, text, sizeof text);
    fputs(text, out);
}

static void number(FILE *out, double v)
{
    number_as(out, v, false);
}

/* The names of the row's metrics that are estimates scaled for counter multiplexing (the `≈` of
 * the tables), separated by spaces; empty when none. */
static void estimated(FILE *out, const struct export_doc *doc, const struct export_row *r)
{
    size_t len = 0;
    for (size_t c = 0; c < doc->n_columns; c++)
        if (r->estimate[c])
            len += strlen(doc->columns[c].name) + 1;
    if (len == 0)
        return;
    char *names = bench__xcalloc(len + 1, 1);
    for (size_t c = 0; c < doc->n_columns; c++)
        if (r->estimate[c]) {
            if (names[0])
                strcat(names, " ");
            strcat(names, doc->columns[c].name);
        }
    field(out, names);
    free(names);
}

void export_csv(const struct export_doc *doc, FILE *out)
{
    static const char *const fixed[] = {"iterations", "samples", "median_ns", "deviation_ns",
                                        "min_ns",     "max_ns",  "cpu_ns"};
    fputs("name", out);
    for (size_t k = 0; k < doc->n_label_keys; k++) {
        fputc(',', out);
        field(out, doc->label_keys[k]);
    }
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
        fprintf(out, ",%s", fixed[k]);
    for (size_t c = 0; c < doc->n_columns; c++) {
        fputc(',', out);
        field(out, doc->columns[c].name);
    }
    fputs(",error,estimated,at_clock_resolution\n", out);
    for (size_t i = 0; i < doc->n_rows; i++) {
        const struct export_row *r = &doc->rows[i];
        field(out, r->name);
        for (size_t k = 0; k < doc->n_label_keys; k++) {
            fputc(',', out);
            field(out, r->labels[k]);
        }
        const double values[] = {r->iterations, r->samples, r->median_ns, r->deviation_ns,
                                 r->min_ns,     r->max_ns,  r->cpu_ns};
        for (size_t k = 0; k < sizeof values / sizeof *values; k++) {
            fputc(',', out);
            number(out, values[k]);
        }
        for (size_t c = 0; c < doc->n_columns; c++) {
            fputc(',', out);
            number_as(out, r->metrics[c], r->metric_real[c]);
        }
        fputc(',', out);
        field(out, r->error);
        fputc(',', out);
        estimated(out, doc, r);
        fputs(r->at_clock_resolution ? ",true\n" : ",\n", out);
    }
}
