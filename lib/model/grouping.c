/* SPDX-License-Identifier: MIT */
/* grouping.c: owns the streaming keys of --group-by, table titles, and the order of rows
 * within a table (--sort-by). Pure functions over rows: no I/O, no measurement. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "grouping.h"

static const char *label_value(const struct bench__row *row, const char *key)
{
    for (size_t i = 0; i < row->n_labels; i++)
        if (!strcmp(row->labels[i].key, key))
            return row->labels[i].value;
    return NULL;
}

char *bench__group_key(const struct bench__row *row, char *const *keys, size_t n_keys)
{
    size_t len = 1;
    for (size_t k = 0; k < n_keys; k++) {
        const char *v = label_value(row, keys[k]);
        len += (v ? strlen(v) + 1 : 1) + 1;
    }
    char *key = bench__xmalloc(len);
    char *p = key;
    for (size_t k = 0; k < n_keys; k++) {
        const char *v = label_value(row, keys[k]);
        if (k)
            *p++ = '\x1f';
        p += v ? sprintf(p, "=%s", v) : sprintf(p, "!");
    }
    *p = '\0';
    return key;
}

char *bench__group_title(const char *key)
{
    char *buf = bench__xmalloc(strlen(key) + sizeof "(unlabeled)");
    size_t o = 0;
    bool any = false;
    buf[0] = '\0';
    for (const char *p = key; *p;) {
        const char *end = strchr(p, '\x1f');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *text = *p == '=' ? p + 1 : "?";
        size_t text_len = *p == '=' ? len - 1 : 1;
        any |= *p == '=';
        if (o)
            buf[o++] = '/';
        memcpy(buf + o, text, text_len);
        o += text_len;
        p += len + (end ? 1 : 0);
    }
    buf[o] = '\0';
    if (!any)
        strcpy(buf, "(unlabeled)");
    return buf;
}

static const struct bench__column_desc *
find_column(const char *key, const struct bench__column_desc *const *cols, size_t n_cols)
{
    for (size_t i = 0; i < n_cols; i++)
        if (!strcmp(cols[i]->name, key) || !strcmp(cols[i]->header, key))
            return cols[i];
    return NULL;
}

bool bench__sort_key_known(const char *key, const struct bench__column_desc *const *cols,
                           size_t n_cols)
{
    return !strcmp(key, "name") || !strcmp(key, "median/iter") || find_column(key, cols, n_cols);
}

/* The value a row sorts by, NaN when it has none. */
static double sort_value(const struct bench__row *row, const char *key)
{
    if (!strcmp(key, "median/iter"))
        return row->stats.median;
    for (size_t i = 0; i < row->n_cells; i++) {
        const struct bench__column_desc *c = row->cells[i].column;
        if (!strcmp(c->name, key) || !strcmp(c->header, key))
            return row->cells[i].value;
    }
    return NAN;
}

static int compare(const struct bench__row *a, const struct bench__row *b, const char *key)
{
    bool fa = a->state != BENCH__ROW_OK, fb = b->state != BENCH__ROW_OK;
    if (fa || fb) {
        if (fa != fb)
            return fa ? 1 : -1;
        return strcmp(a->name, b->name);
    }
    if (!strcmp(key, "name"))
        return strcmp(a->name, b->name);
    double va = sort_value(a, key), vb = sort_value(b, key);
    bool na = isnan(va), nb = isnan(vb);
    if (na || nb)
        return na == nb ? 0 : na ? 1 : -1;
    return (va > vb) - (va < vb);
}

void bench__sort_rows(const struct bench__row **rows, size_t n, const char *key)
{
    if (!key)
        key = "median/iter";
    /* insertion sort: stable, and tables are small */
    for (size_t i = 1; i < n; i++) {
        const struct bench__row *r = rows[i];
        size_t j = i;
        while (j > 0 && compare(rows[j - 1], r, key) > 0) {
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = r;
    }
}
