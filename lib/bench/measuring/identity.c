/* SPDX-License-Identifier: MIT */
/* identity.c: owns the identity of a row in a run's document, its name and labels as the JSON
 * writes them (invalid UTF-8 read as U+FFFD), so one identity is one row: the check bench_case
 * runs at registration (a cell another case or row has, or a name a BENCHMARK's own rows take),
 * a free name for a row that cannot keep its own, the last check on every finished row, and the
 * hash index that keeps these checks O(1) per row. It measures nothing. The rule is in
 * docs/reference/headers.md (bench_case). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../suite/case_def.h"
#include "../../suite/registry.h"
#include "../../util/alloc.h"
#include "../../util/text.h"
#include "measure.h"

/* Label sets as the document writes them: the same keys with the same values, in any order.
 * Within one set no two keys are the same text (bench_case refuses it), so this is equality. */
static bool same_labels(const struct bench__kv *a, size_t na, const struct bench__kv *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++) {
        size_t j = 0;
        while (j < nb && !bench__utf8_same(a[i].key, b[j].key))
            j++;
        if (j == nb || !bench__utf8_same(a[i].value, b[j].value))
            return false;
    }
    return true;
}

bool bench__same_cell(const char *name_a, const struct bench__kv *labels_a, size_t n_a,
                      const char *name_b, const struct bench__kv *labels_b, size_t n_b)
{
    return bench__utf8_same(name_a, name_b) && same_labels(labels_a, n_a, labels_b, n_b);
}

/* ---- the index: cells by hash -------------------------------------------------------------- */

#define FNV_OFFSET 0xcbf29ce484222325ull

static uint64_t mix(uint64_t x) /* the splitmix64 finalizer */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Cells that are the same (bench__same_cell) hash alike: the text as repaired, the labels in
 * any order (a sum). */
uint64_t bench__cell_hash(const char *name, const struct bench__kv *labels, size_t n)
{
    uint64_t sum = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = bench__utf8_hash(labels[i].key, FNV_OFFSET);
        sum += mix(bench__utf8_hash(labels[i].value, mix(h)));
    }
    return mix(bench__utf8_hash(name, FNV_OFFSET) ^ mix(sum));
}

/* A slot's reference: 0 empty, 2i + 1 row i, 2i + 2 the case m->pending[i]. */
#define ROW_REF(i) (2 * (i) + 1)
#define PENDING_REF(i) (2 * (i) + 2)

/* Insert; false when out of memory (the index is unchanged). Open addressing, linear probing,
 * at most half full. */
static bool index_insert(struct bench__cell_index *x, uint64_t hash, size_t ref)
{
    if (2 * (x->used + 1) > x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 256;
        struct bench__cell_slot *slots = bench__try_calloc(cap, sizeof *slots);
        if (!slots)
            return false;
        for (size_t i = 0; i < x->cap; i++) {
            if (!x->slots[i].ref)
                continue;
            size_t k = x->slots[i].hash & (cap - 1);
            while (slots[k].ref)
                k = (k + 1) & (cap - 1);
            slots[k] = x->slots[i];
        }
        free(x->slots);
        x->slots = slots;
        x->cap = cap;
    }
    size_t k = hash & (x->cap - 1);
    while (x->slots[k].ref)
        k = (k + 1) & (x->cap - 1);
    x->slots[k] = (struct bench__cell_slot){hash, ref};
    x->used++;
    return true;
}

/* Index the rows made since the last look (every row is seen, also one whose path did not
 * settle it). false when out of memory. */
static bool index_rows(struct bench__measure *m)
{
    struct bench__cell_index *x = &m->cells;
    for (; x->rows_indexed < m->n_rows; x->rows_indexed++) {
        const struct bench__row *r = &m->rows[x->rows_indexed];
        if (!index_insert(x, bench__cell_hash(r->name, r->labels, r->n_labels),
                          ROW_REF(x->rows_indexed)))
            return false;
    }
    return true;
}

/* Who has this cell: a row before `before`, or a case registered and not measured yet (other
 * than `self`). The body's full name, or NULL when the cell is free. The rows must be indexed. */
static const char *cell_holder(const struct bench__measure *m, const char *name,
                               const struct bench__kv *labels, size_t n, size_t before,
                               const struct bench__pending *self)
{
    const struct bench__cell_index *x = &m->cells;
    if (!x->cap)
        return NULL;
    uint64_t hash = bench__cell_hash(name, labels, n);
    for (size_t k = hash & (x->cap - 1); x->slots[k].ref; k = (k + 1) & (x->cap - 1)) {
        if (x->slots[k].hash != hash)
            continue;
        size_t ref = x->slots[k].ref, i = (ref - 1) / 2;
        if (ref % 2) {
            const struct bench__row *row = &m->rows[i];
            if (i < before &&
                bench__same_cell(name, labels, n, row->name, row->labels, row->n_labels))
                return row->source;
        } else {
            const struct bench__pending *p = &m->pending[i];
            /* a measured case is a row now, and its labels moved there */
            if (p != self && !p->measured &&
                bench__same_cell(name, labels, n, p->name, p->labels, p->n_labels))
                return p->entry->full_name;
        }
    }
    return NULL;
}

void bench__cells_free(struct bench__measure *m)
{
    free(m->cells.slots);
    memset(&m->cells, 0, sizeof m->cells);
}

/* ---- the names a BENCHMARK's own rows take ------------------------------------------------- */

/* Does `rest` (what follows a BENCHMARK's full name) make one of the names its rows take:
 * nothing (its first loop, its whole body, or its failure), "#k" with k >= 2 (its k-th
 * BENCH_ITER loop, as bench__loop_name writes it) or " (body)" (a failure after its loops)? */
static bool body_row_suffix(const char *rest)
{
    if (!*rest || !strcmp(rest, " (body)"))
        return true;
    if (rest[0] != '#' || rest[1] < '1' || rest[1] > '9')
        return false;
    uint64_t k;
    const char *stop;
    const char *end = rest + strlen(rest);
    return bench__parse_digits(rest + 1, end, UINT_MAX, &k, &stop) == BENCH__DIGITS_OK &&
           stop == end && k >= 2;
}

const struct bench__entry *bench__body_row_owner(const struct bench__measure *m, const char *name)
{
    if (!m->suite)
        return NULL;
    for (size_t i = 0; i < m->suite->count; i++) {
        const struct bench__entry *e = &m->suite->entries[i];
        if (e->test->kind != BENCH_KIND_BENCHMARK)
            continue;
        const char *rest = bench__utf8_after_same(name, e->full_name);
        if (rest && body_row_suffix(rest))
            return e;
    }
    return NULL;
}

/* ---- registration -------------------------------------------------------------------------- */

/* `name` and `labels` as a message shows them: 'decode' {impl=fast,size=64}. NULL when out of
 * memory. */
static char *cell_text(const char *name, const struct bench__kv *labels, size_t n)
{
    size_t len = strlen(name) + 8;
    for (size_t i = 0; i < n; i++)
        len += strlen(labels[i].key) + strlen(labels[i].value) + 2;
    char *s = bench__try_malloc(len);
    if (!s)
        return NULL;
    int used = snprintf(s, len, "'%s'", name);
    for (size_t i = 0; i < n && used > 0 && (size_t)used < len; i++)
        used += snprintf(s + used, len - (size_t)used, "%s%s=%s", i ? "," : " {", labels[i].key,
                         labels[i].value);
    if (n > 0 && used > 0 && (size_t)used + 1 < len)
        strcpy(s + used, "}");
    return s;
}

char *bench__case_row_name(const struct bench__entry *e, const char *case_name)
{
    const char *stem;
    size_t stem_len = bench__file_stem(e->test->file, &stem); /* never 0: checked at start */
    return bench__try_asprintf("%.*s.%s", (int)stem_len, stem, case_name);
}

int bench__case_clash(struct bench__measure *m, const char *name, const struct bench_case_def *def,
                      char **why)
{
    size_t n = def->n_labels;
    *why = NULL;
    const struct bench__entry *owner = n == 0 ? bench__body_row_owner(m, name) : NULL;
    /* a body that registers a case has no whole-body row: its one case may be its row
     * (BENCHMARK(compress) registering "compress"); an earlier loop row is seen below */
    if (owner == m->entry && bench__utf8_same(name, owner->full_name))
        owner = NULL;
    if (owner) {
        *why = bench__try_asprintf("the case name '%s' without labels is the name of a row of "
                                   "BENCHMARK %s: give the case a label or another name",
                                   name, owner->full_name);
        return *why ? 0 : BENCH_ENOMEM;
    }
    if (!index_rows(m))
        return BENCH_ENOMEM;
    /* the labels as the stored ones are, key then value (each readable: check_case saw it) */
    struct bench__kv *kv = bench__try_calloc(n + 1, sizeof *kv);
    if (!kv)
        return BENCH_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct bench_label label = {NULL, NULL};
        bench__case_label(def, i, &label);
        kv[i] = (struct bench__kv){(char *)label.key, (char *)label.value};
    }
    const char *holder = cell_holder(m, name, kv, n, m->n_rows, NULL);
    int rc = 0;
    if (holder) {
        char *cell = cell_text(name, kv, n);
        const char *here = m->entry->full_name;
        if (!cell)
            *why = NULL;
        else if (strcmp(holder, here) == 0)
            *why = bench__try_asprintf("the case %s is registered twice by %s: a run has one row "
                                       "per case name and labels",
                                       cell, here);
        else
            *why = bench__try_asprintf("the case %s is registered by %s and again by %s: a run "
                                       "has one row per case name and labels",
                                       cell, holder, here);
        free(cell);
        rc = *why ? 0 : BENCH_ENOMEM;
    }
    free(kv);
    return rc;
}

/* Is the cell taken in this run: by a row before `before`, by a case not measured yet (other
 * than `self`), or, without labels, by the names a BENCHMARK's own rows take? */
static bool cell_taken(const struct bench__measure *m, const char *name,
                       const struct bench__kv *labels, size_t n, size_t before,
                       const struct bench__pending *self)
{
    return cell_holder(m, name, labels, n, before, self) ||
           (n == 0 && bench__body_row_owner(m, name));
}

/* The first of "name (2)", "name (3)", ... whose cell is free (malloc'd; NULL when out of
 * memory). There are finitely many rows, cases and BENCHMARKs, so one is. */
static char *free_name(const struct bench__measure *m, const char *name,
                       const struct bench__kv *labels, size_t n, size_t before,
                       const struct bench__pending *self)
{
    for (unsigned k = 2;; k++) {
        char *candidate = bench__try_asprintf("%s (%u)", name, k);
        if (!candidate)
            return NULL;
        if (!cell_taken(m, candidate, labels, n, before, self))
            return candidate;
        free(candidate);
    }
}

int bench__case_claim(struct bench__measure *m, struct bench__pending *p)
{
    if (!index_rows(m))
        return BENCH_ENOMEM;
    if (p->refused && cell_taken(m, p->name, p->labels, p->n_labels, m->n_rows, p)) {
        char *name = free_name(m, p->name, p->labels, p->n_labels, m->n_rows, p);
        if (!name)
            return BENCH_ENOMEM;
        free(p->name);
        p->name = name;
    }
    size_t i = (size_t)(p - m->pending);
    if (!index_insert(&m->cells, bench__cell_hash(p->name, p->labels, p->n_labels), PENDING_REF(i)))
        return BENCH_ENOMEM;
    return 0;
}

/* ---- finished rows ------------------------------------------------------------------------- */

void bench__row_settle(struct bench__measure *m, size_t index)
{
    if (!index_rows(m))
        bench__out_of_memory();
    struct bench__row *r = &m->rows[index];
    const char *holder = cell_holder(m, r->name, r->labels, r->n_labels, index, NULL);
    if (!holder)
        return;
    /* the row cannot keep its cell: it becomes an error row under a free name, so the
     * document never holds two rows with one identity */
    char *old = cell_text(r->name, r->labels, r->n_labels);
    char *name = free_name(m, r->name, r->labels, r->n_labels, index, NULL);
    if (!old || !name)
        bench__out_of_memory();
    char *why = r->state == BENCH__ROW_OK
                    ? bench__xasprintf("%s is already a row of %s", old, holder)
                    : bench__xasprintf("%s is already a row of %s; %s", old, holder, r->error);
    free(r->name);
    r->name = name;
    bench__row_fail(r, BENCH__FAILED, why);
    free(why);
    free(old);
    /* it was indexed under its old name (index_rows sees every row): index the new one */
    if (!index_insert(&m->cells, bench__cell_hash(r->name, r->labels, r->n_labels), ROW_REF(index)))
        bench__out_of_memory();
}
