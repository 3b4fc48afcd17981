/* SPDX-License-Identifier: MIT */
/* table.c: owns console tables: box drawing, left/right/decimal alignment, the wrapped
 * notes column, and column widths carried across streamed tables. It formats no number
 * and knows nothing of benchmarks. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "table.h"

#define NOTES_WRAP 48

size_t bench__display_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* Byte offset after `cells` display cells of s. */
static size_t byte_offset(const char *s, size_t cells)
{
    size_t i = 0, w = 0;
    while (s[i]) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (w == cells)
                break;
            w++;
        }
        i++;
    }
    return i;
}

/* The display widths left of the last '.' of cell[0..len) and from it on. */
static void split_decimal(const char *cell, size_t len, size_t *left, size_t *right)
{
    const char *dot = NULL;
    for (size_t i = len; i-- > 0 && !dot;)
        if (cell[i] == '.')
            dot = cell + i;
    if (!dot) {
        *left = bench__display_width(cell, len);
        *right = 0;
        return;
    }
    *left = bench__display_width(cell, (size_t)(dot - cell));
    *right = bench__display_width(dot, len - (size_t)(dot - cell));
}

static void repeat(FILE *out, const char *s, size_t n)
{
    while (n--)
        fputs(s, out);
}

void bench__table_memory_free(struct bench__table_memory *memory)
{
    free(memory->signature);
    free(memory->left);
    free(memory->right);
    memset(memory, 0, sizeof *memory);
}

void bench__table_memory_copy(struct bench__table_memory *to,
                              const struct bench__table_memory *from)
{
    memset(to, 0, sizeof *to);
    if (!from->signature)
        return;
    to->signature = bench__xstrdup(from->signature);
    to->left = bench__xcalloc(from->n_columns + 1, sizeof *to->left);
    to->right = bench__xcalloc(from->n_columns + 1, sizeof *to->right);
    to->n_columns = from->n_columns;
    memcpy(to->left, from->left, from->n_columns * sizeof *to->left);
    memcpy(to->right, from->right, from->n_columns * sizeof *to->right);
}

static char *signature_of(const struct bench__table *t)
{
    size_t len = 1;
    for (size_t c = 0; c < t->n_columns; c++)
        len += strlen(t->columns[c].header) + 1;
    char *sig = bench__xmalloc(len);
    sig[0] = '\0';
    for (size_t c = 0; c < t->n_columns; c++) {
        strcat(sig, t->columns[c].header);
        strcat(sig, "\x1f");
    }
    return sig;
}

static void prepare_memory(struct bench__table_memory *m, const struct bench__table *t)
{
    char *sig = signature_of(t);
    if (m->signature && !strcmp(m->signature, sig)) {
        free(sig);
        return;
    }
    bench__table_memory_free(m);
    m->signature = sig;
    m->n_columns = t->n_columns;
    m->left = bench__xcalloc(t->n_columns, sizeof *m->left);
    m->right = bench__xcalloc(t->n_columns, sizeof *m->right);
}

/* Lines of a notes cell wrapped at NOTES_WRAP cells, breaking at spaces when possible. */
static size_t wrap_lines(const char *cell, const char **starts, size_t *lens, size_t max)
{
    size_t n = 0;
    const char *p = cell;
    do {
        size_t total = strlen(p);
        size_t take = total;
        if (bench__display_width(p, total) > NOTES_WRAP) {
            take = byte_offset(p, NOTES_WRAP);
            const char *space = NULL;
            for (const char *q = p; q <= p + take; q++) /* a space right after cell 48 fits */
                if (*q == ' ')
                    space = q;
            if (space && space > p)
                take = (size_t)(space - p);
        }
        if (n < max) {
            starts[n] = p;
            lens[n] = take;
            n++;
        }
        p += take;
        while (*p == ' ')
            p++;
    } while (*p && n < max);
    return n ? n : 1;
}

static void print_cell(FILE *out, const struct bench__column *col, const char *text, size_t len,
                       size_t width, size_t left_w, size_t right_w)
{
    size_t w = bench__display_width(text, len);
    fputc(' ', out);
    switch (col->align) {
    case BENCH__LEFT:
        fprintf(out, "%.*s", (int)len, text);
        repeat(out, " ", width - w);
        break;
    case BENCH__RIGHT:
        repeat(out, " ", width - w);
        fprintf(out, "%.*s", (int)len, text);
        break;
    case BENCH__DECIMAL: {
        size_t l, r;
        split_decimal(text, len, &l, &r);
        if (len == 0)
            l = r = 0;
        repeat(out, " ", width - (left_w + right_w) + (left_w - l));
        fprintf(out, "%.*s", (int)len, text);
        repeat(out, " ", right_w - r);
        break;
    }
    }
    fputc(' ', out);
}

static void border(FILE *out, const char *l, const char *fill, const char *mid, const char *r,
                   const size_t *width, size_t n, const char *title)
{
    /* Build the line as cells, then splice the title in after the corner. */
    size_t total = 0;
    for (size_t c = 0; c < n; c++)
        total += width[c] + 2 + (c + 1 < n);
    const char **cells = bench__xmalloc((total + 2) * sizeof *cells);
    size_t k = 0;
    cells[k++] = l;
    for (size_t c = 0; c < n; c++) {
        for (size_t i = 0; i < width[c] + 2; i++)
            cells[k++] = fill;
        if (c + 1 < n)
            cells[k++] = mid;
    }
    cells[k++] = r;
    size_t title_w = title ? bench__display_width(title, strlen(title)) : 0;
    if (title && title_w + 6 <= total) {
        fputs(l, out);
        fprintf(out, "%s%s\xe2\x95\xbc %s \xe2\x95\xbe", fill, fill, title);
        for (size_t i = 1 + title_w + 6; i < k; i++)
            fputs(cells[i], out);
    } else {
        for (size_t i = 0; i < k; i++)
            fputs(cells[i], out);
        if (title)
            fprintf(out, "\n%s", title);
    }
    fputc('\n', out);
    free(cells);
}

void bench__table_render(FILE *out, const struct bench__table *t, struct bench__table_memory *m)
{
    prepare_memory(m, t);
    size_t n = t->n_columns;
    size_t *width = bench__xcalloc(n, sizeof *width);
    for (size_t c = 0; c < n; c++) {
        for (size_t r = 0; r < t->n_rows; r++) {
            const char *cell = t->cells[r * n + c];
            size_t l, rt;
            if (t->columns[c].align == BENCH__DECIMAL) {
                split_decimal(cell, strlen(cell), &l, &rt);
            } else {
                l = bench__display_width(cell, strlen(cell));
                rt = 0;
                if (!strcmp(t->columns[c].header, "notes") && l > NOTES_WRAP)
                    l = NOTES_WRAP;
            }
            if (l > m->left[c])
                m->left[c] = l;
            if (rt > m->right[c])
                m->right[c] = rt;
        }
        size_t header_w = bench__display_width(t->columns[c].header, strlen(t->columns[c].header));
        if (header_w > m->left[c] + m->right[c])
            m->left[c] = header_w - m->right[c];
        width[c] = m->left[c] + m->right[c];
    }
    border(out, "\xe2\x95\xad", "\xe2\x94\x80", "\xe2\x94\xac", "\xe2\x95\xae", width, n, t->title);
    fputs("\xe2\x94\x82", out);
    for (size_t c = 0; c < n; c++) {
        struct bench__column header_col = t->columns[c];
        if (header_col.align == BENCH__DECIMAL)
            header_col.align = BENCH__RIGHT;
        print_cell(out, &header_col, header_col.header, strlen(header_col.header), width[c], 0, 0);
        fputs("\xe2\x94\x82", out);
    }
    fputc('\n', out);
    border(out, "\xe2\x94\x9d", "\xe2\x94\x81", "\xe2\x94\xbf", "\xe2\x94\xa5", width, n, NULL);
    for (size_t r = 0; r < t->n_rows; r++) {
        size_t lens[16];
        /* only the notes column wraps; other cells print on the first line */
        size_t notes_col = n;
        for (size_t c = 0; c < n; c++)
            if (!strcmp(t->columns[c].header, "notes"))
                notes_col = c;
        const char *note_lines[16];
        size_t lines = 1;
        if (notes_col < n)
            lines = wrap_lines(t->cells[r * n + notes_col], note_lines, lens, 16);
        const char *style = t->row_style ? t->row_style[r] : NULL;
        for (size_t line = 0; line < lines; line++) {
            if (style)
                fputs(style, out);
            fputs("\xe2\x94\x82", out);
            for (size_t c = 0; c < n; c++) {
                const char *text = line == 0 ? t->cells[r * n + c] : "";
                size_t len = strlen(text);
                if (c == notes_col) {
                    text = note_lines[line];
                    len = lens[line];
                }
                print_cell(out, &t->columns[c], text, len, width[c], m->left[c], m->right[c]);
                fputs("\xe2\x94\x82", out);
            }
            if (style)
                fputs("\033[0m", out);
            fputc('\n', out);
        }
    }
    border(out, "\xe2\x95\xb0", "\xe2\x94\x80", "\xe2\x94\xb4", "\xe2\x95\xaf", width, n, NULL);
    free(width);
}
