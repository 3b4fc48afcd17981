/* SPDX-License-Identifier: MIT */
/* markdown.c: owns the Markdown table of `libbench export --format=markdown` (GitHub's
 * pipe tables, for a pull-request comment): the numbers as libbench's own tables show them, an em
 * dash where the document holds null, the reason of a row that measured nothing in "note", and
 * the tables' ‡ on the median and the rates of a row at the clock's resolution, with its line
 * under the table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "util/format.h"

#define DASH "\xe2\x80\x94"        /* U+2014: not measured */
#define RESOLUTION " \xe2\x80\xa1" /* U+2021: at the clock's resolution (bench_table.c) */

/* A cell's text: a '|' escaped, a control character (a newline) as a space. */
static void cell(FILE *out, const char *s)
{
    fputs("| ", out);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '|' || c == '\\')
            fputc('\\', out);
        fputc(c < 0x20 || c == 0x7f ? ' ' : c, out);
    }
    fputc(' ', out);
}

static void duration_marked(FILE *out, const char *prefix, double ns, const char *mark)
{
    char buf[BENCH__NUMBER_MAX + 16] = DASH;
    if (isfinite(ns)) {
        char n[BENCH__NUMBER_MAX];
        bench__format_ns(ns, n, sizeof n);
        snprintf(buf, sizeof buf, "%s%s%s", prefix, n, mark);
    }
    cell(out, buf);
}

static void duration(FILE *out, const char *prefix, double ns)
{
    duration_marked(out, prefix, ns, "");
}

/* A rate derived from the median (a client rate metric: its name ends in "/s"). */
static bool is_rate(const struct export_column *c)
{
    size_t len = strlen(c->name);
    return len > 2 && !strcmp(c->name + len - 2, "/s");
}

static void metric(FILE *out, const struct export_column *c, double v, bool estimate,
                   bool resolution)
{
    char buf[BENCH__NUMBER_MAX];
    if (c->unit == EXPORT_NS) {
        duration(out, "", v);
        return;
    }
    enum bench__format f = c->unit == EXPORT_RATIO     ? BENCH__FORMAT_RATIO
                           : c->unit == EXPORT_PERCENT ? BENCH__FORMAT_PERCENT
                                                       : BENCH__FORMAT_COUNT;
    bench__format_metric(v, f, estimate, buf, sizeof buf); /* NaN: the em dash */
    char text[BENCH__NUMBER_MAX + 16];
    snprintf(text, sizeof text, "%s%s%s", buf, c->unit == EXPORT_BYTES && isfinite(v) ? "B" : "",
             resolution && isfinite(v) && is_rate(c) ? RESOLUTION : "");
    cell(out, text);
}

void export_markdown(const struct export_doc *doc, FILE *out)
{
    /* a `libbench run` row is a command's whole-process wall time per run, never per iteration
     * (its own table says "median per run, from wait4") */
    bool runs = !strcmp(doc->kind, "libbench run --json");
    static const char *const in_process[] = {"n", "median/iter", "±", "min", "max"};
    static const char *const whole_process[] = {"runs", "median wall/run", "±", "min", "max"};
    const char *const *fixed = runs ? whole_process : in_process;
    enum { N_FIXED = sizeof in_process / sizeof *in_process };
    cell(out, runs ? "command" : "benchmark");
    for (size_t k = 0; k < doc->n_label_keys; k++)
        cell(out, doc->label_keys[k]);
    for (size_t k = 0; k < N_FIXED; k++)
        cell(out, fixed[k]);
    for (size_t c = 0; c < doc->n_columns; c++)
        cell(out, doc->columns[c].header);
    cell(out, "note");
    fputs("|\n", out);
    /* text left, numbers right */
    fputs("|:---", out);
    for (size_t k = 0; k < doc->n_label_keys; k++)
        fputs("|:---", out);
    for (size_t k = 0; k < N_FIXED + doc->n_columns; k++)
        fputs("|---:", out);
    fputs("|:---|\n", out);

    size_t marked = 0;
    for (size_t i = 0; i < doc->n_rows; i++) {
        const struct export_row *r = &doc->rows[i];
        cell(out, r->name);
        for (size_t k = 0; k < doc->n_label_keys; k++)
            cell(out, r->labels[k] ? r->labels[k] : "");
        char n[64] = DASH;
        if (isfinite(r->samples) && r->iterations == 1) /* one call per sample: as the table */
            snprintf(n, sizeof n, "%.0f", r->samples);
        else if (isfinite(r->samples) && isfinite(r->iterations))
            snprintf(n, sizeof n, "%.0f\xc3\x97%.0f", r->samples, r->iterations); /* × */
        cell(out, n);
        duration_marked(out, "", r->median_ns, r->at_clock_resolution ? RESOLUTION : "");
        duration(out, "\xc2\xb1", r->deviation_ns); /* ± */
        duration(out, "", r->min_ns);
        duration(out, "", r->max_ns);
        for (size_t c = 0; c < doc->n_columns; c++)
            metric(out, &doc->columns[c], r->metrics[c], r->estimate[c], r->at_clock_resolution);
        cell(out, r->error);
        fputs("|\n", out);
        marked += r->at_clock_resolution;
    }
    if (marked)
        fputs("\n\xe2\x80\xa1 median within 2\xc3\x97 of one clock read (meta.clockOverheadNs): "
              "the figure is mostly the clock, and so is every rate derived from it\n",
              out);
}
