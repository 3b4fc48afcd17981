/* SPDX-License-Identifier: MIT */
/* rows.c: owns the rows of a --bench run: a new row, an error or skip row, loop row names, the
 * client columns bench_case metrics make (named once per run), and a row's contention read at
 * the edges of its timing (host/contention.c reads the machine). It times nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/alloc.h"
#include "../../util/text.h"
#include "measure.h"

struct bench__row *bench__row_new(struct bench__measure *m, const char *name)
{
    m->rows = bench__grow(m->rows, &m->cap_rows, m->n_rows + 1, sizeof *m->rows);
    struct bench__row *r = &m->rows[m->n_rows++];
    memset(r, 0, sizeof *r);
    r->name = bench__xstrdup(name);
    r->source = bench__xstrdup(m->entry->full_name);
    r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
    r->error = bench__xstrdup("");
    r->contention = NAN;
    r->cpu_ns = NAN;
    return r;
}

void bench__row_fail(struct bench__row *r, enum bench__outcome outcome, const char *message)
{
    r->state = outcome == BENCH__SKIPPED ? BENCH__ROW_SKIPPED : BENCH__ROW_ERROR;
    free(r->error);
    r->error = bench__first_line(message, outcome == BENCH__SKIPPED ? "skipped" : "failed");
    r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
    r->iterations = 0;
    r->samples = 0;
    r->contention = NAN;
    r->cpu_ns = NAN;
    free(r->cells);
    r->cells = NULL;
    r->n_cells = 0;
}

char *bench__loop_name(const struct bench__entry *e, unsigned ordinal)
{
    if (ordinal <= 1)
        return bench__xstrdup(e->full_name);
    return bench__xasprintf("%s#%u", e->full_name, ordinal);
}

/* ---- client metrics: the catalog's "client" family -------------------------------------- */

/* Names a client metric may not take: the built-in catalog (every source's family and the
 * names sources make columns from) and the table's own columns. */
static bool reserved_name(const char *name)
{
    static const char *const table_words[] = {"name", "median/iter", "n",         "min",
                                              "max",  "notes",       "benchmark", "implementation"};
    for (size_t i = 0; i < sizeof table_words / sizeof table_words[0]; i++)
        if (!strcmp(name, table_words[i]))
            return true;
    return bench__catalog_reserved(name);
}

/* Called while registering a case, so it reports a lack of memory instead of aborting. Takes
 * `name` (malloc'd) in every case. */
static const struct bench__column_desc *column_named(struct bench__measure *m, char *name)
{
    for (size_t i = 0; i < m->n_columns; i++)
        if (!strcmp(m->columns[i]->name, name)) {
            free(name);
            return m->columns[i];
        }
    struct bench__column_desc **grown =
        bench__try_realloc(m->columns, (m->n_columns + 1) * sizeof *m->columns);
    struct bench__column_desc *c = bench__try_calloc(1, sizeof *c);
    char *header = bench__try_strdup(name);
    if (grown)
        m->columns = grown;
    if (!grown || !c || !header) {
        free(name);
        free(c);
        free(header);
        return NULL;
    }
    *c = (struct bench__column_desc){.name = name,
                                     .header = header,
                                     .format = BENCH__FORMAT_COUNT,
                                     .cls = BENCH__QUANTITATIVE,
                                     .source = "client",
                                     .is_default = true};
    m->columns[m->n_columns++] = c;
    return c;
}

const struct bench__column_desc *bench__client_column(struct bench__measure *m, const char *unit,
                                                      enum bench_metric_mode mode)
{
    char *name = bench__try_asprintf("%s%s", unit, mode == BENCH_RATE ? "/s" : "");
    if (!name)
        return NULL;
    if (reserved_name(name)) {
        char *prefixed = bench__try_asprintf("user.%s", name);
        free(name);
        if (!prefixed)
            return NULL;
        name = prefixed;
    }
    return column_named(m, name);
}

void bench__client_column_resume(struct bench__measure *m, const char *name)
{
    if (!column_named(m, bench__xstrdup(name)))
        bench__out_of_memory();
}

/* ---- contention: the edges of a row's timing --------------------------------------------- */

void bench__row_contention_begin(struct bench__measure *m)
{
    bench__contention_edge_read(&m->contention_edge);
}

void bench__row_contention_end(struct bench__measure *m)
{
    struct bench__contention_edge end;
    bench__contention_edge_read(&end);
    bench__contention_add(&m->contention, &m->contention_edge, &end);
    int err = m->contention_edge.err ? m->contention_edge.err : end.err;
    if (err && bench__say_once(m, "contention"))
        bench__emit_note(m,
                         "contention: /proc/stat or this process's CPU time could not be read "
                         "(%s): rows have no contention (null)\n",
                         strerror(-err));
}

double bench__row_contention(const struct bench__measure *m)
{
    return bench__contention_value(&m->contention, bench__ticks_per_s());
}

int bench__row_contention_gap(const struct bench__measure *m)
{
    return bench__contention_gap(&m->contention, bench__ticks_per_s());
}
