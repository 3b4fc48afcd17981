/* SPDX-License-Identifier: MIT */
/* workload_table.c: owns how workload windows become the `workloads` console table (wall
 * decomposition, io-stall, counter totals under their own headers, notes). It measures
 * nothing and draws no box. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/format.h"
#include "../util/text.h"
#include "workload_table.h"

#define EM_DASH "\xe2\x80\x94"

static char *ns_cell(double ns)
{
    char buf[BENCH__NUMBER_MAX];
    bench__format_ns(ns, buf, sizeof buf);
    return bench__xstrdup(buf);
}

static bool same_total(const struct bench__total_desc *a, const struct bench__total_desc *b)
{
    return a == b || (!strcmp(a->object, b->object) && !strcmp(a->header, b->header) &&
                      !a->nest == !b->nest && (!a->nest || !strcmp(a->nest, b->nest)));
}

static bool shown(const struct bench__total_desc *d, const char *const *selected, size_t n)
{
    if (d->is_default)
        return true;
    for (size_t i = 0; d->metric && i < n; i++)
        if (!strcmp(selected[i], d->metric))
            return true;
    return false;
}

/* The total columns: every shown total of some window, in first-seen order. */
static const struct bench__total_desc **total_columns(const struct bench__workloads *w,
                                                      const char *const *selected,
                                                      size_t n_selected, size_t *n)
{
    size_t most = 0;
    for (size_t r = 0; r < w->n; r++)
        most += w->windows[r].n_totals;
    const struct bench__total_desc **cols = bench__xcalloc(most + 1, sizeof *cols);
    *n = 0;
    for (size_t r = 0; r < w->n; r++)
        for (size_t i = 0; i < w->windows[r].n_totals; i++) {
            const struct bench__total_desc *d = w->windows[r].totals[i].desc;
            bool known = false;
            for (size_t k = 0; k < *n && !known; k++)
                known = same_total(cols[k], d);
            if (!known && shown(d, selected, n_selected))
                cols[(*n)++] = d;
        }
    return cols;
}

void bench__workloads_render(FILE *out, const struct bench__workloads *w,
                             const char *const *selected, size_t n_selected,
                             struct bench__table_memory *memory)
{
    if (w->n == 0)
        return;
    size_t n_cols;
    const struct bench__total_desc **cols = total_columns(w, selected, n_selected, &n_cols);
    bool regime = false, io_stall = false, notes = false;
    for (size_t i = 0; i < w->n; i++) {
        regime |= w->windows[i].regime != NULL;
        io_stall |= w->windows[i].psi_present && !isnan(w->windows[i].psi[0]);
        notes |= w->windows[i].note[0] || w->windows[i].state != BENCH__ROW_OK ||
                 (w->windows[i].regime && w->windows[i].regime->note[0]);
    }
    size_t n_columns = 2 + (regime ? 1 : 0) + 5 + (io_stall ? 1 : 0) + n_cols + (notes ? 1 : 0);
    struct bench__column *columns = bench__xcalloc(n_columns, sizeof *columns);
    char **cells = bench__xcalloc(w->n * n_columns + 1, sizeof *cells);
    size_t c = 0;
    columns[c++] = (struct bench__column){"workload", BENCH__LEFT};
    columns[c++] = (struct bench__column){"reps", BENCH__RIGHT};
    if (regime)
        columns[c++] = (struct bench__column){"regime", BENCH__LEFT};
    static const char *const wall_headers[] = {"wall", "cpu usr", "cpu krn", "runq", "other"};
    for (int i = 0; i < 5; i++)
        columns[c++] = (struct bench__column){wall_headers[i], BENCH__DECIMAL};
    if (io_stall)
        columns[c++] = (struct bench__column){"io-stall", BENCH__DECIMAL};
    for (size_t i = 0; i < n_cols; i++)
        columns[c++] = (struct bench__column){cols[i]->header, BENCH__DECIMAL};
    if (notes)
        columns[c++] = (struct bench__column){"notes", BENCH__LEFT};
    for (size_t r = 0; r < w->n; r++) {
        const struct bench__window *win = &w->windows[r];
        char **cell = cells + r * n_columns;
        size_t k = 0;
        bool ok = win->state == BENCH__ROW_OK;
        cell[k++] = bench__xstrdup(win->name);
        char buf[96];
        bench__fmt(buf, sizeof buf, "%u", win->reps);
        cell[k++] = bench__xstrdup(buf);
        if (regime) {
            if (!win->regime)
                bench__fmt(buf, sizeof buf, EM_DASH);
            else if (win->regime->requested == win->regime->effective)
                bench__fmt(buf, sizeof buf, "%s", bench__regime_word(win->regime->effective));
            else
                bench__fmt(buf, sizeof buf, "%s\xe2\x86\x92%s",
                           bench__regime_word(win->regime->requested),
                           bench__regime_word(win->regime->effective));
            cell[k++] = bench__xstrdup(buf);
        }
        const double parts[5] = {win->wall.wall_ns, win->wall.on_cpu_user_ns,
                                 win->wall.on_cpu_kernel_ns, win->wall.offcpu_runqueue_ns,
                                 win->wall.offcpu_other_ns};
        for (int i = 0; i < 5; i++)
            cell[k++] = ns_cell(ok ? parts[i] : NAN);
        if (io_stall)
            cell[k++] = ns_cell(ok && win->psi_present ? win->psi[0] : NAN);
        for (size_t i = 0; i < n_cols; i++) {
            const struct bench__total *m = NULL;
            for (size_t j = 0; ok && j < win->n_totals && !m; j++)
                if (same_total(win->totals[j].desc, cols[i]))
                    m = &win->totals[j];
            if (m)
                bench__format_metric(m->value, cols[i]->format, m->estimate, buf, sizeof buf);
            else
                bench__fmt(buf, sizeof buf, EM_DASH);
            cell[k++] = bench__xstrdup(buf);
        }
        if (notes) {
            char note[1200] = "";
            if (!ok)
                bench__fmt(note, sizeof note, "%s", win->error);
            if (win->regime && win->regime->note[0])
                bench__note_append_once(note, sizeof note, win->regime->note);
            if (win->note[0])
                bench__note_append_once(note, sizeof note, win->note);
            cell[k++] = bench__xstrdup(note);
        }
    }
    struct bench__table table = {.title = "workloads",
                                 .columns = columns,
                                 .n_columns = n_columns,
                                 .cells = cells,
                                 .n_rows = w->n};
    bench__table_render(out, &table, memory);
    for (size_t i = 0; i < w->n * n_columns; i++)
        free(cells[i]);
    free(cells);
    free(columns);
    free(cols);
}
