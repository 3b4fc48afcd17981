/* SPDX-License-Identifier: MIT */
/* cells.c: owns the cells of a comparison: every row of every subject's documents
 * grouped by its key (name and labels) into one cell with a value (or the reason there is none)
 * per subject and run; a row missing from a document is a skip, never an input error. No
 * statistics. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/compare.h"
#include "compare.h"
#include "util/alloc.h"
#include "util/text.h"

const char *const compare_subject_names[N_SUBJECTS] = {"baseline", "candidate", "aa"};

static size_t find_cell(const struct compare_state *st, const char *key, size_t *slot)
{
    size_t mask = st->n_slots - 1;
    size_t h = (size_t)bench__fnv1a64(key, strlen(key)) & mask;
    while (st->slots[h] != 0) {
        if (strcmp(st->cells[st->slots[h] - 1].row->key, key) == 0)
            break;
        h = (h + 1) & mask;
    }
    *slot = h;
    return st->slots[h];
}

static void grow_slots(struct compare_state *st)
{
    size_t n = st->n_slots ? st->n_slots * 2 : 64;
    size_t *slots = bench__xcalloc(n, sizeof *slots);
    free(st->slots);
    st->slots = slots;
    st->n_slots = n;
    for (size_t i = 0; i < st->n_cells; i++) {
        size_t slot;
        find_cell(st, st->cells[i].row->key, &slot);
        st->slots[slot] = i + 1;
    }
}

static struct compare_cell *add_cell(struct compare_state *st, const struct compare_row *row,
                                     size_t s, size_t r)
{
    if ((st->n_cells + 1) * 2 > st->n_slots)
        grow_slots(st);
    size_t slot;
    size_t found = find_cell(st, row->key, &slot);
    if (found)
        return &st->cells[found - 1];
    st->cells = bench__grow(st->cells, &st->cap_cells, st->n_cells + 1, sizeof *st->cells);
    struct compare_cell *c = &st->cells[st->n_cells];
    memset(c, 0, sizeof *c);
    c->row = row;
    c->first_subject = s;
    c->first_run = r;
    for (size_t k = 0; k < N_SUBJECTS; k++) {
        size_t n = st->n_runs[k] ? st->n_runs[k] : 1;
        c->values[k] = bench__xmalloc(n * sizeof *c->values[k]);
        c->skips[k] = bench__xcalloc(n, sizeof *c->skips[k]);
        for (size_t j = 0; j < n; j++)
            c->values[k][j] = NAN;
    }
    st->slots[slot] = ++st->n_cells;
    return c;
}

void compare_cells_free(struct compare_state *st)
{
    for (size_t i = 0; i < st->n_cells; i++)
        for (size_t s = 0; s < N_SUBJECTS; s++) {
            for (size_t r = 0; r < st->n_runs[s]; r++)
                free(st->cells[i].skips[s][r]);
            free(st->cells[i].skips[s]);
            free(st->cells[i].values[s]);
        }
    free(st->cells);
    free(st->slots);
    st->cells = NULL;
    st->slots = NULL;
    st->n_cells = st->cap_cells = st->n_slots = 0;
}

void compare_subject_free(struct compare_state *st, size_t s, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        if (st->docs[s])
            compare_doc_free(&st->docs[s][r]);
        if (st->run_fail[s])
            free(st->run_fail[s][r]);
    }
    free(st->docs[s]);
    free(st->run_fail[s]);
    free(st->opts.files[s]);
    free(st->ru[s]); /* and the subject's provenance (provenance.c) */
    st->ru[s] = NULL;
    struct compare_subject_facts *f = &st->facts[s];
    free(f->sha256_why);
    free(f->version);
    free(f->version_why);
    free(f->rusage_why);
    memset(f, 0, sizeof *f);
    st->docs[s] = NULL;
    st->run_fail[s] = NULL;
    st->opts.files[s] = NULL;
}

/* Every document into the cell table, then the gaps: a failed run, a missing row. A cell that a
 * document lacks (a lost run, a benchmark added or removed) gets a skip for that run, and the
 * engine judges it with the runs it has (docs/how-to/compare-two-builds.md, "Lost runs"). */
bool compare_metric_is_exact(const char *name)
{
    static const char *const exact[] = {"allocs", "frees", "alloc-bytes", "instructions"};
    for (size_t i = 0; name && i < sizeof exact / sizeof *exact; i++)
        if (strcmp(name, exact[i]) == 0)
            return true;
    return false;
}

void compare_select_channel(struct compare_options *o, size_t k)
{
    const char *name = o->channels[k];
    o->metric = strcmp(name, "time") == 0 ? NULL : name;
    o->metric_exact = compare_metric_is_exact(o->metric);
}

/* The value of a row for this comparison: its medianNs, or with --metric its metric. A metric
 * that the row lacks or that is null is a skip with its reason, never 0. *why is malloc'd. */
static double row_value(const struct compare_options *o, const struct compare_row *row, char **why)
{
    *why = row->skip ? bench__xstrdup(row->skip) : NULL;
    if (!o->metric || row->skip)
        return row->median_ns;
    for (size_t k = 0; k < row->n_metrics; k++) {
        const struct compare_metric *m = &row->metrics[k];
        if (strcmp(m->name, o->metric) != 0)
            continue;
        if (isnan(m->value)) {
            *why = bench__xasprintf("metric '%s' is null in the row (not measured)", o->metric);
            return NAN;
        }
        if (!isfinite(m->value) || m->value < 0 || (!o->metric_exact && m->value == 0)) {
            *why = bench__xasprintf("metric '%s' is %g: %s", o->metric, m->value,
                                    m->value == 0 ? "a relative change from 0 is undefined"
                                                  : "not a value that can be compared");
            return NAN;
        }
        return m->value;
    }
    *why = bench__xasprintf("metric '%s' is not in the row (its source was not open in the run, "
                            "or the document carries no metrics)",
                            o->metric);
    return NAN;
}

void compare_assemble(struct compare_state *st)
{
    for (size_t s = 0; s < N_SUBJECTS; s++)
        for (size_t r = 0; r < st->n_runs[s]; r++) {
            const struct compare_doc *d = &st->docs[s][r];
            for (size_t i = 0; i < d->n_rows; i++) {
                const struct compare_row *row = &d->rows[i];
                struct compare_cell *c = add_cell(st, row, s, r);
                char *why;
                c->values[s][r] = row_value(&st->opts, row, &why);
                c->present[s] = true;
                c->skips[s][r] = why;
            }
        }
    for (size_t i = 0; i < st->n_cells; i++) {
        struct compare_cell *c = &st->cells[i];
        for (size_t s = 0; s < N_SUBJECTS; s++)
            for (size_t r = 0; r < st->n_runs[s]; r++) {
                if (!isnan(c->values[s][r]) || c->skips[s][r])
                    continue;
                const char *why = st->run_fail[s][r];
                c->skips[s][r] =
                    bench__xstrdup(why ? why : "no row for this cell in the run's document");
            }
    }
}
