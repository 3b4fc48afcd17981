/* SPDX-License-Identifier: MIT */
/* bench_table.c: owns how benchmark rows become a console table: label columns, the
 * name or `implementation` column, n, median ±MAD (marked when the row's contention reached
 * BENCH__CONTENTION_MARK, and when the row is at the clock's resolution, which marks its rates
 * too; a one-line note under the table for each), min, max, metric columns (a count that
 * includes an empty counting bracket marked, with its note) and notes. It neither
 * orders rows (grouping.c) nor draws boxes (table.c). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/format.h"
#include "../util/text.h"
#include "bench_table.h"

#define EM_DASH "\xe2\x80\x94"
#define CONTENTION_SIGN "\xe2\x80\xa0" /* U+2020 DAGGER, one cell wide */
#define RESOLUTION_SIGN "\xe2\x80\xa1" /* U+2021 DOUBLE DAGGER, one cell wide */
#define UNMEASURED_SIGN "\xc2\xa7"     /* U+00A7 SECTION SIGN: contention not measured */
#define BRACKET_SIGN "\xe2\x81\xba"    /* U+207A SUPERSCRIPT PLUS SIGN, one cell wide */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_group_key(const char *key, char *const *group_keys, size_t n_group_keys)
{
    for (size_t i = 0; i < n_group_keys; i++)
        if (!strcmp(group_keys[i], key))
            return true;
    return false;
}

/* Sorted union of the label keys of the rows, less the grouped ones. */
static size_t label_columns(const struct bench__row *const *rows, size_t n, char *const *group_keys,
                            size_t n_group_keys, const char ***out)
{
    size_t total = 0, count = 0;
    for (size_t r = 0; r < n; r++)
        total += rows[r]->n_labels;
    const char **keys = bench__xcalloc(total + 1, sizeof *keys);
    for (size_t r = 0; r < n; r++)
        for (size_t l = 0; l < rows[r]->n_labels; l++) {
            const char *k = rows[r]->labels[l].key;
            bool seen = is_group_key(k, group_keys, n_group_keys);
            for (size_t i = 0; i < count && !seen; i++)
                seen = !strcmp(keys[i], k);
            if (!seen)
                keys[count++] = k;
        }
    qsort(keys, count, sizeof *keys, compare_strings);
    *out = keys;
    return count;
}

static const char *label_of(const struct bench__row *row, const char *key)
{
    for (size_t i = 0; i < row->n_labels; i++)
        if (!strcmp(row->labels[i].key, key))
            return row->labels[i].value;
    return "";
}

static const struct bench__cell *cell_of(const struct bench__row *row,
                                         const struct bench__column_desc *col)
{
    for (size_t i = 0; i < row->n_cells; i++)
        if (row->cells[i].column == col)
            return &row->cells[i];
    return NULL;
}

/* The cell of a measured row that includes an empty counting bracket (one call per bracket). */
static const struct bench__cell *bracketed(const struct bench__row *row,
                                           const struct bench__column_desc *col)
{
    const struct bench__cell *m = row->state == BENCH__ROW_OK ? cell_of(row, col) : NULL;
    return m && !isnan(m->value) && m->bracket > 0 ? m : NULL;
}

/* The line under a table whose count cells include an empty bracket: what one read, per
 * column (the first marked row's; every row of a run reads the same one). */
static void bracket_note(FILE *out, const struct bench__row *const *rows, size_t n,
                         const struct bench__column_desc *const *metrics, size_t n_metrics)
{
    char text[400] = "";
    size_t len = 0;
    for (size_t i = 0; i < n_metrics; i++)
        for (size_t r = 0; r < n; r++) {
            const struct bench__cell *m = bracketed(rows[r], metrics[i]);
            if (!m)
                continue;
            char v[BENCH__NUMBER_MAX];
            bench__format_metric(m->bracket, metrics[i]->format, false, v, sizeof v);
            bench__fmt(text + len, sizeof text - len, "%s%s %s", len ? ", " : "",
                       metrics[i]->header, v);
            len = strlen(text);
            break;
        }
    if (len)
        fprintf(out,
                BRACKET_SIGN " counted one call per bracket: includes one empty bracket per call "
                             "(%s), not subtracted (JSON: bracketIncluded)\n",
                text);
}

static char *dup_or_dash(const char *s)
{
    return bench__xstrdup(s && *s ? s : EM_DASH);
}

static bool contended(const struct bench__row *row)
{
    return row->state == BENCH__ROW_OK && row->contention >= BENCH__CONTENTION_MARK;
}

/* The line under a table with marked rows: how many, and the range of their contention. */
static void contention_note(FILE *out, const struct bench__row *const *rows, size_t n)
{
    size_t marked = 0;
    double lo = 1, hi = 0;
    for (size_t r = 0; r < n; r++) {
        if (!contended(rows[r]))
            continue;
        marked++;
        lo = rows[r]->contention < lo ? rows[r]->contention : lo;
        hi = rows[r]->contention > hi ? rows[r]->contention : hi;
    }
    if (marked == 0)
        return;
    char share[32];
    if (marked == 1 || (int)(lo * 100 + 0.5) == (int)(hi * 100 + 0.5))
        bench__fmt(share, sizeof share, "%.0f%%", hi * 100);
    else
        bench__fmt(share, sizeof share, "%.0f\xe2\x80\x93%.0f%%", lo * 100, hi * 100);
    char rows_word[48];
    if (marked == 1)
        bench__fmt(rows_word, sizeof rows_word, "the marked row was");
    else
        bench__fmt(rows_word, sizeof rows_word, "the %zu marked rows were", marked);
    fprintf(out,
            CONTENTION_SIGN " other processes used %s of the machine's CPU time while %s timed "
                            "(marked from %.0f%%; docs/explanation/contention.md)\n",
            share, rows_word, BENCH__CONTENTION_MARK * 100);
}

/* A measured row whose contention could not be measured: without a mark, a row without † would
 * not be known to be clean. */
static bool contention_unknown(const struct bench__row *row)
{
    return row->state == BENCH__ROW_OK && isnan(row->contention) && row->contention_gap != 0;
}

/* The line under a table with rows whose contention was not measured, with the reasons. */
static void unmeasured_note(FILE *out, const struct bench__row *const *rows, size_t n)
{
    size_t shorter = 0, unreadable = 0;
    for (size_t r = 0; r < n; r++)
        if (contention_unknown(rows[r])) {
            shorter += rows[r]->contention_gap == BENCH__CONTENTION_SHORT;
            unreadable += rows[r]->contention_gap != BENCH__CONTENTION_SHORT;
        }
    if (shorter + unreadable == 0)
        return;
    fprintf(out,
            UNMEASURED_SIGN " contention not measured (docs/explanation/contention.md): %s%s%s\n",
            shorter ? "the row's timing spanned under 20 clock ticks of the machine's CPU time, "
                      "too few to read"
                    : "",
            shorter && unreadable ? "; " : "",
            unreadable ? "/proc/stat or this process's CPU time could not be read" : "");
}

static bool at_resolution(const struct bench__row *row)
{
    return row->state == BENCH__ROW_OK && row->at_clock_resolution;
}

/* The line under a table with rows at the clock's resolution. */
static void resolution_note(FILE *out, const struct bench__row *const *rows, size_t n)
{
    size_t marked = 0;
    for (size_t r = 0; r < n; r++)
        marked += at_resolution(rows[r]);
    if (marked == 0)
        return;
    fprintf(out,
            RESOLUTION_SIGN " %s within %.0f\xc3\x97 of one clock read (meta.clockOverheadNs): "
                            "the figure is mostly the clock, and so is every rate derived from it "
                            "(marked too); time such a call in a BENCH_ITER loop "
                            "(docs/explanation/design.md)\n",
            marked == 1 ? "the marked row's median is" : "the marked rows' medians are",
            BENCH__CLOCK_RESOLUTION_FACTOR);
}

void bench__bench_table_render(FILE *out, const struct bench__row *const *rows, size_t n,
                               const struct bench__column_desc *const *cols, size_t n_cols,
                               char *const *group_keys, size_t n_group_keys, const char *title,
                               struct bench__table_memory *memory)
{
    bench__bench_table_paint(out, rows, n, cols, n_cols, group_keys, n_group_keys, title, memory,
                             NULL);
}

#define SGR_RED "\033[31m"
#define SGR_YELLOW "\033[33m"
#define SGR_DIM "\033[2m"

void bench__bench_table_paint(FILE *out, const struct bench__row *const *measured, size_t n,
                              const struct bench__column_desc *const *cols, size_t n_cols,
                              char *const *group_keys, size_t n_group_keys, const char *title,
                              struct bench__table_memory *memory,
                              const struct bench__table_paint *paint)
{
    /* the in-flight row, when there is one, is the last: a row of its own kind */
    struct bench__row live = {0};
    const struct bench__row *const *rows = measured;
    const struct bench__row **all = NULL;
    const char *spinner = paint && paint->spinner ? paint->spinner : "";
    if (paint && paint->live_name) {
        all = bench__xcalloc(n + 2, sizeof *all);
        memcpy(all, measured, n * sizeof *all);
        live.name = (char *)paint->live_name;
        live.labels = (struct bench__kv *)paint->live_labels;
        live.n_labels = paint->live_n_labels;
        live.contention = NAN;
        all[n++] = &live;
        rows = all;
    }
    const char **styles = paint && paint->color ? bench__xcalloc(n + 1, sizeof *styles) : NULL;
    const char **labels = NULL;
    size_t n_labels = label_columns(rows, n, group_keys, n_group_keys, &labels);
    const struct bench__column_desc **metrics = bench__xcalloc(n_cols + 1, sizeof *metrics);
    size_t n_metrics = 0;
    bool notes = false;
    for (size_t c = 0; c < n_cols; c++) {
        /* source columns always show (em dashes where nothing was measured); a client
         * column only in tables whose rows have it */
        bool used = strcmp(cols[c]->source, "client") != 0;
        for (size_t r = 0; r < n && !used; r++)
            used = cell_of(rows[r], cols[c]) != NULL;
        if (used)
            metrics[n_metrics++] = cols[c];
    }
    bool *column_bracketed = bench__xcalloc(n_metrics + 1, sizeof *column_bracketed);
    for (size_t i = 0; i < n_metrics; i++)
        for (size_t r = 0; r < n && !column_bracketed[i]; r++)
            column_bracketed[i] = bracketed(rows[r], metrics[i]) != NULL;
    bool any_marked = false, any_resolution = false;
    for (size_t r = 0; r < n; r++) {
        notes |= rows[r]->state != BENCH__ROW_OK;
        any_marked |= contended(rows[r]) || contention_unknown(rows[r]);
        any_resolution |= at_resolution(rows[r]);
        if (styles)
            styles[r] = rows[r] == &live                       ? SGR_DIM
                        : rows[r]->state == BENCH__ROW_ERROR   ? SGR_RED
                        : rows[r]->state == BENCH__ROW_SKIPPED ? SGR_YELLOW
                                                               : NULL;
    }

    size_t n_columns = n_labels + 5 + n_metrics + (notes ? 1 : 0);
    struct bench__column *columns = bench__xcalloc(n_columns, sizeof *columns);
    char **cells = bench__xcalloc(n * n_columns + 1, sizeof *cells);
    size_t c = 0;
    bool grouped = title != NULL;
    if (grouped)
        columns[c++] = (struct bench__column){"implementation", BENCH__LEFT};
    for (size_t i = 0; i < n_labels; i++)
        columns[c++] = (struct bench__column){labels[i], BENCH__LEFT};
    if (!grouped)
        columns[c++] = (struct bench__column){"benchmark", BENCH__LEFT};
    columns[c++] = (struct bench__column){"n", BENCH__RIGHT};
    columns[c++] = (struct bench__column){"median/iter", BENCH__RIGHT};
    columns[c++] = (struct bench__column){"min", BENCH__DECIMAL};
    columns[c++] = (struct bench__column){"max", BENCH__DECIMAL};
    for (size_t i = 0; i < n_metrics; i++)
        columns[c++] = (struct bench__column){metrics[i]->header, BENCH__DECIMAL};
    if (notes)
        columns[c++] = (struct bench__column){"notes", BENCH__LEFT};

    for (size_t r = 0; r < n; r++) {
        const struct bench__row *row = rows[r];
        char **cell = cells + r * n_columns;
        size_t k = 0;
        bool ok = row->state == BENCH__ROW_OK;
        char *name = row != &live ? bench__xstrdup(row->name)
                                  : bench__xasprintf("%s %s", spinner, row->name);
        if (grouped)
            cell[k++] = name;
        for (size_t i = 0; i < n_labels; i++)
            cell[k++] = bench__xstrdup(label_of(row, labels[i]));
        if (!grouped)
            cell[k++] = name;
        if (row == &live) { /* measuring: nothing of it is known yet */
            cell[k++] = bench__xstrdup("measuring\xe2\x80\xa6");
            for (; k < n_columns; k++)
                cell[k] = bench__xstrdup(notes && k == n_columns - 1 ? "" : "\xe2\x80\xa6");
            continue;
        }
        char buf[64], med[32], mad[32];
        if (ok && row->iterations > 1)
            bench__fmt(buf, sizeof buf, "%zu\xc3\x97%llu", row->samples,
                       (unsigned long long)row->iterations);
        else if (ok && row->samples)
            bench__fmt(buf, sizeof buf, "%zu", row->samples);
        else
            bench__fmt(buf, sizeof buf, EM_DASH);
        cell[k++] = bench__xstrdup(buf);
        if (ok) {
            bench__format_ns(row->stats.median, med, sizeof med);
            bench__format_ns(row->stats.mad, mad, sizeof mad);
            /* a marked row's median carries the sign; the others keep its place blank */
            const char *sign = !any_marked               ? ""
                               : contended(row)          ? " " CONTENTION_SIGN
                               : contention_unknown(row) ? " " UNMEASURED_SIGN
                                                         : "  ";
            const char *res = !any_resolution      ? ""
                              : at_resolution(row) ? " " RESOLUTION_SIGN
                                                   : "  ";
            cell[k++] = bench__xasprintf("%s \xc2\xb1%s%s%s", med, mad, sign, res);
            bench__format_ns(row->stats.min, buf, sizeof buf);
            cell[k++] = bench__xstrdup(buf);
            bench__format_ns(row->stats.max, buf, sizeof buf);
            cell[k++] = bench__xstrdup(buf);
        } else {
            for (int i = 0; i < 3; i++)
                cell[k++] = bench__xstrdup(EM_DASH);
        }
        for (size_t i = 0; i < n_metrics; i++) {
            const struct bench__cell *m = ok ? cell_of(row, metrics[i]) : NULL;
            if (m)
                bench__format_metric(m->value, metrics[i]->format, m->estimate, buf, sizeof buf);
            /* a rate derived from a median at the clock's resolution carries its mark */
            bool value = m && !isnan(m->value);
            const char *res = !any_resolution || !bench__column_is_rate(metrics[i]) || !value ? ""
                              : at_resolution(row) ? " " RESOLUTION_SIGN
                                                   : "  ";
            /* a count that includes an empty bracket carries its mark */
            const char *brk = !column_bracketed[i]         ? ""
                              : bracketed(row, metrics[i]) ? " " BRACKET_SIGN
                                                           : "  ";
            cell[k++] = bench__xasprintf("%s%s%s", m ? buf : EM_DASH, res, brk);
        }
        if (notes)
            cell[k++] = ok ? bench__xstrdup("") : dup_or_dash(row->error);
    }
    char heading[600];
    if (grouped)
        bench__fmt(heading, sizeof heading, "benchmark: %s", title);
    struct bench__table table = {.title = grouped ? heading : NULL,
                                 .columns = columns,
                                 .n_columns = n_columns,
                                 .cells = cells,
                                 .n_rows = n,
                                 .row_style = styles};
    bench__table_render(out, &table, memory);
    contention_note(out, rows, n);
    unmeasured_note(out, rows, n);
    resolution_note(out, rows, n);
    bracket_note(out, rows, n, metrics, n_metrics);
    free(column_bracketed);
    for (size_t i = 0; i < n * n_columns; i++)
        free(cells[i]);
    free(cells);
    free(columns);
    free(metrics);
    free(labels);
    free(styles);
    free(all);
}
