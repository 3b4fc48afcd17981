/* SPDX-License-Identifier: MIT */
/* output.c: owns what a --bench run shows of its rows: one table of rows sorted by --sort-by,
 * the columns of the run (client and catalog), and the JSON document with its null cells and
 * facts about the host. It measures nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../model/grouping.h"
#include "../report/bench_table.h"
#include "../report/json.h"
#include "../util/alloc.h"
#include "meta.h"
#include "measure.h"

/* Does some row of this table have a value for a metric sort key? */
static bool table_has_key(const struct bench__row *const *rows, size_t n, const char *key)
{
    if (!strcmp(key, "name") || !strcmp(key, "median/iter"))
        return true;
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c < rows[r]->n_cells; c++)
            if (!strcmp(rows[r]->cells[c].column->name, key) ||
                !strcmp(rows[r]->cells[c].column->header, key))
                return true;
    return false;
}

const struct bench__column_desc **bench__run_columns(const struct bench__measure *m,
                                                     enum bench__column_set set, size_t *n)
{
    return bench__catalog_column_list(
        &m->catalog, (const struct bench__column_desc *const *)m->columns, m->n_columns, set, n);
}

void bench__rows_render(struct bench__measure *m, size_t *indices, size_t n, char *const *keys,
                        size_t n_keys, const char *title, struct bench__table_memory *memory)
{
    if (n == 0)
        return;
    const struct bench__row **rows = bench__xcalloc(n, sizeof *rows);
    for (size_t i = 0; i < n; i++)
        rows[i] = &m->rows[indices[i]];
    size_t n_all;
    const struct bench__column_desc **cols = bench__run_columns(m, BENCH__COLUMNS_DOCUMENT, &n_all);
    const char *key = m->cfg->sort_by;
    if (!key || !bench__sort_key_known(key, cols, n_all) || !table_has_key(rows, n, key))
        key = "median/iter"; /* the default order; an unknown key is warned about once */
    bench__sort_rows(rows, n, key);
    size_t n_cols =
        bench__catalog_columns(&m->catalog, (const struct bench__column_desc *const *)m->columns,
                               m->n_columns, BENCH__COLUMNS_TABLE, cols);
    bench__ticker_clear(&m->ticker);
    bench__bench_table_render(stdout, rows, n, cols, n_cols, keys, n_keys, title, memory);
    free(cols);
    fflush(stdout);
    free(rows);
}

/* A measured row gets a null cell for every document column it has no value for (a
 * requested source that is absent): the document says "not measured", never 0. */
static void fill_unmeasured(struct bench__measure *m, const struct bench__column_desc *const *cols,
                            size_t n_cols)
{
    for (size_t r = 0; r < m->n_rows; r++) {
        struct bench__row *row = &m->rows[r];
        if (row->state != BENCH__ROW_OK)
            continue;
        for (size_t c = 0; c < n_cols; c++) {
            if (!strcmp(cols[c]->source, "client"))
                continue;
            bool has = false;
            for (size_t k = 0; k < row->n_cells && !has; k++)
                has = row->cells[k].column == cols[c];
            if (has)
                continue;
            struct bench__cell *cells =
                bench__xrealloc(row->cells, (row->n_cells + 1) * sizeof *cells);
            row->cells = cells;
            row->cells[row->n_cells++] = (struct bench__cell){cols[c], NAN, false};
        }
    }
}

int bench__rows_write_json(struct bench__measure *m, const struct bench__suite *suite,
                           uint64_t min_time_ms)
{
    size_t n_cols;
    const struct bench__column_desc **cols =
        bench__run_columns(m, BENCH__COLUMNS_DOCUMENT, &n_cols);
    fill_unmeasured(m, cols, n_cols);
    struct bench__report report = {
        .columns = cols,
        .n_columns = n_cols,
        .rows = m->rows,
        .n_rows = m->n_rows,
        .windows = m->workloads.windows,
        .n_windows = m->workloads.n,
        .has_windows = m->workloads.ran,
    };
    bench__meta_collect(&report.meta, suite, min_time_ms);
    report.meta.clock_overhead_ns = m->clock_overhead_ns;
    report.meta.rounds = m->rounds;
    report.meta.provenance = m->provenance;
    report.meta.n_provenance = m->n_provenance;
    char err[BENCH__ERROR_MAX];
    int rc = bench__json_write(&report, m->cfg->bench_json, err, sizeof err);
    if (rc)
        fprintf(stderr, "--bench-json: %s\n", err);
    report.meta.provenance = NULL;
    report.meta.n_provenance = 0;
    bench__meta_free(&report.meta);
    free(cols);
    return rc;
}
