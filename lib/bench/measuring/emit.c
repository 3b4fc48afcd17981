/* SPDX-License-Identifier: MIT */
/* emit.c: owns how the measuring side reports (see the emit section of measure.h): every event
 * goes straight to a collector in this process, or down the pipe to the supervising process.
 * Output the bodies wrote is flushed before each event, so it reaches the supervisor first. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "measure.h"
#include "wire.h"

static size_t entry_index(const struct bench__measure *m, const struct bench__entry *e)
{
    return (size_t)(e - m->suite->entries);
}

const struct bench__column_desc **bench__run_columns(const struct bench__measure *m,
                                                     enum bench__column_set set, size_t *n)
{
    return bench__catalog_column_list(
        &m->catalog, (const struct bench__column_desc *const *)m->columns, m->n_columns, set, n);
}

/* Whatever the bodies printed goes before the event that follows it. */
static void flush_output(void)
{
    fflush(stdout);
    fflush(stderr);
}

void bench__emit_flush(struct bench__measure *m)
{
    if (m->out.direct)
        return;
    flush_output();
    if (m->out.ack_fd < 0) {
        bench__wire_flush(m->out.wire);
        return;
    }
    bench__wire_sync(m->out.wire);
    char ack;
    ssize_t got;
    do {
        errno = 0; /* an end of file leaves it so: the supervisor is gone */
        got = read(m->out.ack_fd, &ack, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1)
        bench__wire_lost();
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
    if (m->out.direct)
        bench__collect_columns(m->out.direct, cols, n_doc, doc_names, n_doc, table_names, n_table,
                               wl_names, n_wl);
    else
        bench__wire_columns(m->out.wire->f, cols, n_doc, doc_names, n_doc, table_names, n_table,
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
    flush_output();
    if (m->out.direct)
        bench__collect_begin(m->out.direct, item, entry_index(m, e), name, labels, n_labels,
                             m->round, m->rounds);
    else
        bench__wire_begin(m->out.wire->f, item, entry_index(m, e), name, labels, n_labels, m->round,
                          m->rounds);
    bench__emit_flush(m);
}

void bench__emit_rows(struct bench__measure *m, size_t first)
{
    bench__emit_columns(m);
    flush_output();
    for (size_t r = first; r < m->n_rows; r++) {
        const struct bench__row *row = &m->rows[r];
        if (m->out.direct) {
            const char **names = bench__xcalloc(row->n_cells + 1, sizeof *names);
            for (size_t k = 0; k < row->n_cells; k++)
                names[k] = row->cells[k].column->name;
            bench__collect_row(m->out.direct, row, names, r);
            free(names);
        } else {
            bench__wire_row(m->out.wire->f, row, r);
        }
    }
}

/* One event about a suite entry. */
static void entry_event(struct bench__measure *m, const char *type, const struct bench__entry *e,
                        size_t count)
{
    flush_output();
    size_t i = entry_index(m, e);
    if (!m->out.direct)
        bench__wire_entry(m->out.wire->f, type, i, count);
    else if (!strcmp(type, "body_end"))
        bench__collect_body_end(m->out.direct, i);
    else if (!strcmp(type, "body_table"))
        bench__collect_body_table(m->out.direct, i);
    else
        bench__collect_workload_end(m->out.direct, i, count);
}

void bench__emit_body_end(struct bench__measure *m, const struct bench__entry *e)
{
    entry_event(m, "body_end", e, 0);
}

void bench__emit_body_table(struct bench__measure *m, const struct bench__entry *e)
{
    entry_event(m, "body_table", e, 0);
}

void bench__emit_group_keys(struct bench__measure *m, char *const *keys, size_t n)
{
    flush_output();
    if (m->out.direct)
        bench__collect_group_keys(m->out.direct, (const char *const *)keys, n);
    else
        bench__wire_group_keys(m->out.wire->f, keys, n);
}

void bench__emit_group_table(struct bench__measure *m, const char *group)
{
    bench__emit_columns(m);
    flush_output();
    if (m->out.direct)
        bench__collect_group_table(m->out.direct, group);
    else
        bench__wire_group_table(m->out.wire->f, group);
}

void bench__emit_window(struct bench__measure *m, size_t index)
{
    bench__emit_columns(m);
    flush_output();
    const struct bench__window *w = &m->workloads.windows[index];
    if (m->out.direct) {
        bench__collect_window(m->out.direct, w);
    } else {
        bench__wire_window(m->out.wire->f, w);
    }
    bench__emit_flush(m); /* the body goes on: the window must not die with it */
}

void bench__emit_workload_end(struct bench__measure *m, const struct bench__entry *e,
                              size_t failures)
{
    entry_event(m, "workload_end", e, failures);
}

void bench__emit_workloads_done(struct bench__measure *m)
{
    flush_output();
    if (m->out.direct)
        bench__collect_workloads_done(m->out.direct);
    else
        bench__wire_workloads_done(m->out.wire->f);
}

void bench__emit_clock(struct bench__measure *m)
{
    if (m->out.direct)
        bench__collect_clock(m->out.direct, m->clock_overhead_ns);
    else
        bench__wire_clock(m->out.wire->f, m->clock_overhead_ns);
}

void bench__emit_rounds(struct bench__measure *m)
{
    if (m->out.direct)
        bench__collect_rounds(m->out.direct, m->rounds);
    else
        bench__wire_rounds(m->out.wire->f, m->rounds);
}

void bench__emit_provenance(struct bench__measure *m, const char *fact)
{
    if (m->out.direct)
        bench__collect_provenance(m->out.direct, fact);
    else
        bench__wire_provenance(m->out.wire->f, fact);
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
    if (m->out.direct)
        bench__collect_said(m->out.direct, key);
    else
        bench__wire_said(m->out.wire->f, key);
    return true;
}

void bench__emit_note(struct bench__measure *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        bench__out_of_memory();
    flush_output(); /* what the bodies printed comes first */
    if (m->out.direct) {
        bench__collect_note(m->out.direct, text);
    } else {
        bench__wire_note(m->out.wire->f, text);
        bench__emit_flush(m); /* and the library's own lines that follow, after it */
    }
    free(text);
}

void bench__emit_done(struct bench__measure *m, int status)
{
    flush_output();
    if (m->out.direct)
        bench__collect_done(m->out.direct, status);
    else
        bench__wire_done(m->out.wire->f, status);
    bench__emit_flush(m);
}
