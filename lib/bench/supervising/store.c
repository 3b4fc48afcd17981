/* SPDX-License-Identifier: MIT */
/* store.c: owns what the collector keeps of the measuring side's events (see collector_parts.h):
 * owned copies of the columns, rows and windows, the index that keeps one row per cell of the
 * document across workers, the group keys and the run's facts (clock, rounds, provenance,
 * disclosures). It draws and writes nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/alloc.h"
#include "../measuring/identity.h"
#include "collector_parts.h"

void bench__strings_free(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

void bench__store_free_labels(struct bench__kv *labels, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(labels[i].key);
        free(labels[i].value);
    }
    free(labels);
}

struct bench__kv *bench__store_copy_labels(const struct bench__kv *labels, size_t n)
{
    struct bench__kv *copy = bench__xcalloc(n + 1, sizeof *copy);
    for (size_t i = 0; i < n; i++)
        copy[i] =
            (struct bench__kv){bench__xstrdup(labels[i].key), bench__xstrdup(labels[i].value)};
    return copy;
}

void bench__store_free(struct bench__collector *c)
{
    for (size_t i = 0; i < c->n_rows; i++)
        bench__row_release(&c->rows[i]);
    free(c->rows);
    free(c->slots);
    free(c->row_hash);
    free(c->cell_table);
    for (size_t i = 0; i < c->n_cols; i++) {
        free((char *)c->cols[i]->name);
        free((char *)c->cols[i]->header);
        free((char *)c->cols[i]->source);
        free(c->cols[i]);
    }
    free(c->cols);
    free(c->doc);
    free(c->table);
    free(c->wl);
    bench__strings_free(c->group_keys, c->n_group_keys);
    bench__workloads_free(&c->workloads);
    bench__strings_free(c->provenance, c->n_provenance);
    bench__strings_free(c->said, c->n_said);
}

/* ---- columns ----------------------------------------------------------------------------- */

static const struct bench__column_desc *column_named(const struct bench__collector *c,
                                                     const char *name)
{
    for (size_t i = 0; i < c->n_cols; i++)
        if (!strcmp(c->cols[i]->name, name))
            return c->cols[i];
    return NULL;
}

static const struct bench__column_desc **
column_set(const struct bench__collector *c, const char *const *names, size_t n, size_t *out_n)
{
    const struct bench__column_desc **set = bench__xcalloc(n + 1, sizeof *set);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bench__column_desc *d = column_named(c, names[i]);
        if (d)
            set[k++] = d;
    }
    *out_n = k;
    return set;
}

void bench__collect_columns(void *ctx, const struct bench__event_columns *e)
{
    struct bench__collector *c = ctx;
    for (size_t i = 0; i < e->n_cols; i++) {
        const struct bench__column_wire *col = &e->cols[i];
        if (column_named(c, col->name))
            continue; /* a column keeps its first description */
        struct bench__column_desc *d = bench__xcalloc(1, sizeof *d);
        *d = (struct bench__column_desc){.name = bench__xstrdup(col->name),
                                         .header = bench__xstrdup(col->header),
                                         .format = col->format,
                                         .cls = col->cls,
                                         .source = bench__xstrdup(col->source),
                                         .is_default = col->is_default};
        c->cols = bench__xrealloc(c->cols, (c->n_cols + 1) * sizeof *c->cols);
        c->cols[c->n_cols++] = d;
    }
    free(c->doc);
    free(c->table);
    free(c->wl);
    c->doc = column_set(c, e->doc, e->n_doc, &c->n_doc);
    c->table = column_set(c, e->table, e->n_table, &c->n_table);
    c->wl = column_set(c, e->wl, e->n_wl, &c->n_wl);
}

/* A copy of cells, each with the collector's column of its column's name (unknown names are
 * dropped). */
static struct bench__cell *copy_cells(const struct bench__collector *c,
                                      const struct bench__cell *cells, size_t n, size_t *out_n)
{
    struct bench__cell *copy = bench__xcalloc(n + 1, sizeof *copy);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const struct bench__column_desc *d = column_named(c, cells[i].column->name);
        if (d)
            copy[k++] =
                (struct bench__cell){d, cells[i].value, cells[i].estimate, cells[i].bracket};
    }
    *out_n = k;
    return copy;
}

/* ---- rows: one per cell of the document ----------------------------------------------------- */

/* The row holding the cell (name, labels), or SIZE_MAX. */
static size_t cell_holder(const struct bench__collector *c, const char *name,
                          const struct bench__kv *labels, size_t n, uint64_t hash)
{
    if (!c->cap_cells)
        return SIZE_MAX;
    for (size_t i = hash & (c->cap_cells - 1);; i = (i + 1) & (c->cap_cells - 1)) {
        size_t ref = c->cell_table[i];
        if (!ref)
            return SIZE_MAX;
        const struct bench__row *r = &c->rows[ref - 1];
        if (c->row_hash[ref - 1] == hash &&
            bench__same_cell(r->name, r->labels, r->n_labels, name, labels, n))
            return ref - 1;
    }
}

static void cell_insert(struct bench__collector *c, size_t row)
{
    if (2 * (c->n_rows + 1) > c->cap_cells) {
        size_t cap = c->cap_cells ? 2 * c->cap_cells : 256;
        size_t *table = bench__xcalloc(cap, sizeof *table);
        for (size_t i = 0; i < c->cap_cells; i++) {
            size_t ref = c->cell_table[i];
            if (!ref)
                continue;
            size_t k = c->row_hash[ref - 1] & (cap - 1);
            while (table[k])
                k = (k + 1) & (cap - 1);
            table[k] = ref;
        }
        free(c->cell_table);
        c->cell_table = table;
        c->cap_cells = cap;
    }
    size_t k = c->row_hash[row] & (c->cap_cells - 1);
    while (c->cell_table[k])
        k = (k + 1) & (c->cap_cells - 1);
    c->cell_table[k] = row + 1;
}

void bench__store_admit_row(struct bench__collector *c)
{
    size_t index = c->n_rows - 1;
    struct bench__row *r = &c->rows[index];
    c->row_hash = bench__xrealloc(c->row_hash, c->cap_rows * sizeof *c->row_hash);
    uint64_t hash = bench__cell_hash(r->name, r->labels, r->n_labels);
    size_t holder = cell_holder(c, r->name, r->labels, r->n_labels, hash);
    if (holder != SIZE_MAX) {
        char *taken = r->name;
        for (unsigned k = 2;; k++) {
            r->name = bench__xasprintf("%s (%u)", taken, k);
            hash = bench__cell_hash(r->name, r->labels, r->n_labels);
            if (cell_holder(c, r->name, r->labels, r->n_labels, hash) == SIZE_MAX)
                break;
            free(r->name);
        }
        if (r->state != BENCH__ROW_ERROR) { /* a crash's own error says more */
            free(r->error);
            r->error = bench__xasprintf("registration: '%s' with these labels is the cell of an "
                                        "earlier row of this run (%s)",
                                        taken, c->rows[holder].source);
        }
        free(taken);
        r->state = BENCH__ROW_ERROR;
        r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
        r->contention = NAN;
        r->iterations = 0;
        r->samples = 0;
        free(r->cells);
        r->cells = NULL;
        r->n_cells = 0;
    }
    c->row_hash[index] = hash;
    cell_insert(c, index);
}

struct bench__row *bench__store_new_row(struct bench__collector *c)
{
    c->rows = bench__grow(c->rows, &c->cap_rows, c->n_rows + 1, sizeof *c->rows);
    struct bench__row *r = &c->rows[c->n_rows++];
    memset(r, 0, sizeof *r);
    r->contention = NAN;
    return r;
}

void bench__collect_row(void *ctx, const struct bench__event_row *e)
{
    struct bench__collector *c = ctx;
    const struct bench__row *row = e->row;
    size_t slot = e->slot;
    struct bench__row *r;
    bool fresh = false;
    if (slot < c->n_slots && c->slots[slot] != SIZE_MAX) {
        r = &c->rows[c->slots[slot]];
        if (strcmp(r->name, row->name) != 0)
            return; /* admitting its first copy refused it: it stays the error row it became */
        bench__row_release(r);
    } else {
        c->slots = bench__grow(c->slots, &c->cap_slots, slot + 1, sizeof *c->slots);
        while (c->n_slots <= slot)
            c->slots[c->n_slots++] = SIZE_MAX;
        c->slots[slot] = c->n_rows;
        r = bench__store_new_row(c);
        fresh = true;
    }
    *r = *row;
    r->name = bench__xstrdup(row->name);
    r->source = bench__xstrdup(row->source);
    r->error = bench__xstrdup(row->error);
    r->labels = bench__store_copy_labels(row->labels, row->n_labels);
    r->cells = copy_cells(c, row->cells, row->n_cells, &r->n_cells);
    r->profile = row->profile ? bench__profile_copy(row->profile) : NULL;
    r->at_clock_resolution = bench__row_at_clock_resolution(r, c->clock_overhead_ns);
    if (fresh)
        bench__store_admit_row(c);
}

void bench__collect_group_keys(void *ctx, const struct bench__event_group_keys *e)
{
    struct bench__collector *c = ctx;
    bench__strings_free(c->group_keys, c->n_group_keys);
    c->group_keys = bench__xcalloc(e->n_keys + 1, sizeof *c->group_keys);
    for (size_t i = 0; i < e->n_keys; i++)
        c->group_keys[i] = bench__xstrdup(e->keys[i]);
    c->n_group_keys = e->n_keys;
}

/* ---- windows ------------------------------------------------------------------------------ */

struct bench__window *bench__store_new_window(struct bench__collector *c)
{
    struct bench__workloads *w = &c->workloads;
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 8;
        w->windows = bench__xrealloc(w->windows, w->cap * sizeof *w->windows);
    }
    struct bench__window *win = &w->windows[w->n++];
    memset(win, 0, sizeof *win);
    return win;
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The collector's own copy of a total's description (one allocation holding its text),
 * shared by every window that reports the same total. */
static const struct bench__total_desc *intern_total(struct bench__collector *c,
                                                    const struct bench__total_desc *d)
{
    struct bench__workloads *wl = &c->workloads;
    for (size_t i = 0; i < wl->n_descs; i++) {
        const struct bench__total_desc *k = wl->descs[i];
        if (same_text(k->object, d->object) && same_text(k->nest, d->nest) &&
            same_text(k->key, d->key) && same_text(k->header, d->header) &&
            same_text(k->metric, d->metric) && k->format == d->format &&
            k->is_default == d->is_default)
            return k;
    }
    const char *texts[5] = {d->object, d->nest, d->key, d->header, d->metric};
    size_t bytes = sizeof(struct bench__total_desc);
    for (int i = 0; i < 5; i++)
        bytes += texts[i] ? strlen(texts[i]) + 1 : 0;
    struct bench__total_desc *copy = bench__xmalloc(bytes);
    char *p = (char *)(copy + 1);
    const char *owned[5];
    for (int i = 0; i < 5; i++) {
        owned[i] = NULL;
        if (!texts[i])
            continue;
        size_t len = strlen(texts[i]) + 1;
        memcpy(p, texts[i], len);
        owned[i] = p;
        p += len;
    }
    *copy = (struct bench__total_desc){owned[0] ? owned[0] : "",
                                       owned[1],
                                       owned[2],
                                       owned[3] ? owned[3] : "",
                                       owned[4],
                                       d->format,
                                       d->is_default};
    wl->descs = bench__xrealloc(wl->descs, (wl->n_descs + 1) * sizeof *wl->descs);
    wl->descs[wl->n_descs++] = copy;
    return copy;
}

void bench__collect_window(void *ctx, const struct bench__event_window *e)
{
    struct bench__collector *c = ctx;
    const struct bench__window *w = e->window;
    struct bench__window *win = bench__store_new_window(c);
    *win = *w;
    win->name = bench__xstrdup(w->name);
    win->error = bench__xstrdup(w->error);
    win->note = bench__xstrdup(w->note);
    win->totals = bench__xcalloc(w->n_totals + 1, sizeof *win->totals);
    for (size_t i = 0; i < w->n_totals; i++) {
        win->totals[i] = w->totals[i];
        win->totals[i].desc = intern_total(c, w->totals[i].desc);
    }
    win->groups = bench__xcalloc(w->n_groups + 1, sizeof *win->groups);
    for (size_t i = 0; i < w->n_groups; i++) {
        win->groups[i] = w->groups[i];
        /* the object's name is one of its totals' (interned above) */
        win->groups[i].object = "";
        for (size_t k = 0; k < win->n_totals; k++)
            if (!strcmp(win->totals[k].desc->object, w->groups[i].object)) {
                win->groups[i].object = win->totals[k].desc->object;
                break;
            }
    }
    if (w->regime) {
        win->regime = bench__xmalloc(sizeof *win->regime);
        *win->regime = *w->regime;
    }
}

/* ---- facts -------------------------------------------------------------------------------- */

void bench__collect_clock(void *ctx, const struct bench__event_clock *e)
{
    struct bench__collector *c = ctx;
    c->clock_overhead_ns = e->ns;
}

void bench__collect_rounds(void *ctx, const struct bench__event_rounds *e)
{
    struct bench__collector *c = ctx;
    c->rounds = e->n;
}

void bench__collect_provenance(void *ctx, const struct bench__event_provenance *e)
{
    struct bench__collector *c = ctx;
    for (size_t i = 0; i < c->n_provenance; i++)
        if (!strcmp(c->provenance[i], e->fact))
            return;
    c->provenance = bench__xrealloc(c->provenance, (c->n_provenance + 1) * sizeof *c->provenance);
    c->provenance[c->n_provenance++] = bench__xstrdup(e->fact);
}

void bench__collect_said(void *ctx, const struct bench__event_said *e)
{
    struct bench__collector *c = ctx;
    c->said = bench__xrealloc(c->said, (c->n_said + 1) * sizeof *c->said);
    c->said[c->n_said++] = bench__xstrdup(e->key);
}
