/* SPDX-License-Identifier: MIT */
/* emit.c: owns what the measuring side reports (see the emit section of measure.h): the fields of
 * events built from the run's state, sent through m->sink, with the output the bodies wrote
 * flushed before each event. It never knows where the sink sends them. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/alloc.h"
#include "measure.h"

const struct bench__column_desc **bench__run_columns(const struct bench__measure *m,
                                                     enum bench__column_set set, size_t *n)
{
    return bench__catalog_column_list(
        &m->catalog, (const struct bench__column_desc *const *)m->columns, m->n_columns, set, n);
}

void bench__flush_output(void)
{
    fflush(stdout);
    fflush(stderr);
}

void bench__emit_flush(struct bench__measure *m)
{
    bench__sink_emit0(m->sink, sync);
}

void bench__emit_columns(struct bench__measure *m)
{
    if (m->columns_sent && m->n_columns_sent == m->n_columns)
        return;
    size_t n_doc, n_table, n_wl;
    const struct bench__column_desc **doc = bench__run_columns(m, BENCH__COLUMNS_DOCUMENT, &n_doc);
    const struct bench__column_desc **table = bench__run_columns(m, BENCH__COLUMNS_TABLE, &n_table);
    /* the workloads table shows its default totals, and those of what --metrics selected */
    const struct bench__column_desc **wl =
        bench__catalog_column_list(&m->catalog, NULL, 0, BENCH__COLUMNS_TABLE, &n_wl);
    if (!m->cfg->metrics)
        n_wl = 0;
    struct bench__column_wire *cols = bench__xcalloc(n_doc + 1, sizeof *cols);
    const char **doc_names = bench__xcalloc(n_doc + 1, sizeof *doc_names);
    const char **table_names = bench__xcalloc(n_table + 1, sizeof *table_names);
    const char **wl_names = bench__xcalloc(n_wl + 1, sizeof *wl_names);
    for (size_t i = 0; i < n_doc; i++) {
        cols[i] = (struct bench__column_wire){doc[i]->name,   doc[i]->header, doc[i]->source,
                                              doc[i]->format, doc[i]->cls,    doc[i]->is_default};
        doc_names[i] = doc[i]->name;
    }
    for (size_t i = 0; i < n_table; i++)
        table_names[i] = table[i]->name;
    for (size_t i = 0; i < n_wl; i++)
        wl_names[i] = wl[i]->name;
    bench__sink_emit(m->sink, columns, cols, n_doc, doc_names, n_doc, table_names, n_table,
                     wl_names, n_wl);
    free(cols);
    free(doc_names);
    free(table_names);
    free(wl_names);
    free(doc);
    free(table);
    free(wl);
    m->columns_sent = true;
    m->n_columns_sent = m->n_columns;
}

void bench__emit_begin(struct bench__measure *m, enum bench__item item,
                       const struct bench__entry *e, const char *name,
                       const struct bench__kv *labels, size_t n_labels)
{
    bench__emit(m, begin, item, bench__entry_index(m, e), name, labels, n_labels, m->round,
                m->rounds);
    bench__emit_flush(m);
}

void bench__emit_rows(struct bench__measure *m, size_t first)
{
    bench__emit_columns(m);
    bench__flush_output();
    for (size_t r = first; r < m->n_rows; r++)
        bench__sink_emit(m->sink, row, r, &m->rows[r]);
}

void bench__emit_group_table(struct bench__measure *m, const char *group)
{
    bench__emit_columns(m);
    bench__emit(m, group_table, group);
}

void bench__emit_window(struct bench__measure *m, size_t index)
{
    bench__emit_columns(m);
    bench__emit(m, window, &m->workloads.windows[index]);
    bench__emit_flush(m); /* the body goes on: the window must not die with it */
}

bool bench__say_once(struct bench__measure *m, const char *key)
{
    if (m->resume && m->resume->active)
        for (size_t i = 0; i < m->resume->n_said; i++)
            if (!strcmp(m->resume->said[i], key))
                return false;
    for (size_t i = 0; i < m->n_said; i++)
        if (!strcmp(m->said[i], key))
            return false;
    m->said = bench__xrealloc(m->said, (m->n_said + 1) * sizeof *m->said);
    m->said[m->n_said++] = bench__xstrdup(key);
    bench__sink_emit(m->sink, said, key);
    return true;
}

void bench__emit_note(struct bench__measure *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = bench__xvasprintf(fmt, ap);
    va_end(ap);
    bench__emit(m, note, text); /* what the bodies printed comes first */
    bench__emit_flush(m);       /* and the library's own lines that follow, after it */
    free(text);
}

void bench__emit_done(struct bench__measure *m, int status)
{
    bench__emit(m, done, status);
    bench__emit_flush(m);
}
