/* SPDX-License-Identifier: MIT */
/* run.c: owns a --bench run: which bodies run in which order, the sampling rounds, the streamed
 * tables (or the grouped run), the workloads after the benchmarks, the closing warnings and the
 * exit status. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../catalog/snapshot.h"
#include "../model/grouping.h"
#include "../report/metric_listing.h"
#include "../report/workload_table.h"
#include "../util/alloc.h"
#include "../util/clock.h"
#include "../workload/workload.h"
#include "measure.h"
#include "run.h"

/* Without --group-by: one table per BENCHMARK, streamed as soon as it is measured. */
static void run_streamed(struct bench__measure *m, const struct bench__suite *suite,
                         const size_t *order, size_t n_order, struct bench__table_memory *memory)
{
    size_t *indices = NULL, cap = 0;
    for (size_t i = 0; i < n_order; i++) {
        size_t first_row = m->n_rows;
        size_t first_pending = m->n_pending;
        bench__body_run(m, &suite->entries[order[i]]);
        for (size_t p = first_pending; p < m->n_pending; p++)
            bench__case_measure(m, &m->pending[p]);
        size_t n = m->n_rows - first_row;
        indices = bench__grow(indices, &cap, n + 1, sizeof *indices);
        for (size_t k = 0; k < n; k++)
            indices[k] = first_row + k;
        bench__rows_render(m, indices, n, NULL, 0, NULL, memory);
    }
    free(indices);
}

static void warn_debug_build(const struct bench__suite *suite)
{
    for (size_t i = 0; i < suite->count; i++) {
        const struct bench_test *t = suite->entries[i].test;
        unsigned want = BENCH_BUILD_NDEBUG | BENCH_BUILD_OPTIMIZED;
        if (t->kind == BENCH_KIND_TEST || (t->build & want) == want)
            continue;
        fprintf(stderr,
                "warning: %s was compiled %s — benchmark numbers may be meaningless; build with "
                "optimization and -DNDEBUG (e.g. meson --buildtype=release)\n",
                t->file,
                !(t->build & BENCH_BUILD_OPTIMIZED) ? "without optimization"
                                                    : "without NDEBUG (asserts enabled)");
        return;
    }
}

static int compare_entries_by_name(const void *a, const void *b, void *arg)
{
    const struct bench__suite *suite = arg;
    return strcmp(suite->entries[*(const size_t *)a].full_name,
                  suite->entries[*(const size_t *)b].full_name);
}

static void free_measure(struct bench__measure *m)
{
    free(m->round_loops);
    for (size_t r = 0; r < m->n_rows; r++) {
        struct bench__row *row = &m->rows[r];
        free(row->name);
        free(row->source);
        free(row->error);
        free(row->cells);
        bench__labels_free(row->labels, row->n_labels);
    }
    free(m->rows);
    for (size_t p = 0; p < m->n_pending; p++)
        bench__pending_free(&m->pending[p]);
    free(m->pending);
    for (size_t c = 0; c < m->n_columns; c++) {
        free((char *)m->columns[c]->name);
        free((char *)m->columns[c]->header);
        free(m->columns[c]);
    }
    free(m->columns);
    for (size_t i = 0; i < m->n_provenance; i++)
        free(m->provenance[i]);
    free(m->provenance);
    free(m->samples);
    free(m->loop_rows);
    bench__cells_free(m);
}

/* --list-metrics: the public catalog made for this configuration, and its listing. */
static int list_metrics(const struct bench__config *cfg)
{
    bench_catalog_t *cat = NULL;
    int rc = bench__catalog_snapshot(cfg, &cat);
    if (rc != 0) {
        fprintf(stderr, "--list-metrics: %s\n", bench_strerror(rc));
        return 1;
    }
    bench__metric_listing(stdout, cat);
    bench_catalog_close(cat);
    return 0;
}

/* The workloads of the suite in full-name order, each window read at its edges, and their
 * table. */
static void run_workloads(struct bench__measure *m, const struct bench__suite *suite,
                          struct bench__table_memory *memory)
{
    size_t *order = bench__xcalloc(suite->count + 1, sizeof *order);
    size_t n = 0;
    for (size_t i = 0; i < suite->count; i++)
        if (suite->entries[i].test->kind == BENCH_KIND_WORKLOAD)
            order[n++] = i;
    qsort_r(order, n, sizeof *order, compare_entries_by_name, (void *)suite);
    bench__workloads_run(m->cfg, suite, order, n, &m->catalog, &m->workloads, stderr);
    free(order);
    size_t n_cols;
    const struct bench__column_desc **cols =
        bench__catalog_column_list(&m->catalog, NULL, 0, BENCH__COLUMNS_TABLE, &n_cols);
    bench__workloads_render(stdout, &m->workloads, cols, n_cols, memory);
    free(cols);
    fflush(stdout);
}

int bench__run_bench(const struct bench__config *cfg, const struct bench__suite *suite)
{
    if (cfg->list_metrics || cfg->metrics_help)
        return list_metrics(cfg);
    size_t *order = bench__xcalloc(suite->count + 1, sizeof *order);
    size_t n_order = 0, workloads = 0;
    for (size_t i = 0; i < suite->count; i++) {
        if (suite->entries[i].test->kind == BENCH_KIND_BENCHMARK)
            order[n_order++] = i;
        workloads += suite->entries[i].test->kind == BENCH_KIND_WORKLOAD;
    }
    /* the default streaming key is the test's full name, ascending */
    qsort_r(order, n_order, sizeof *order, compare_entries_by_name, (void *)suite);
    bool list_groups = bench__group_list_wanted(cfg);
    if (n_order + workloads == 0 && !list_groups) {
        free(order);
        printf("no BENCHMARK or WORKLOAD tests found\n");
        return 0;
    }
    uint64_t min_time_ms = cfg->min_time_ms ? cfg->min_time_ms : BENCH__DEFAULT_MIN_TIME_MS;
    struct bench__measure m = {
        .cfg = cfg,
        .suite = suite,
        .budget_ns = (int64_t)min_time_ms * 1000000,
        .ticker = {.term = bench__term_probe(STDERR_FILENO, cfg->no_colors),
                   .start_ns = bench__clock_ns()},
        .clock_overhead_ns = NAN,
    };
    struct bench__table_memory memory = {0};
    int status = 0;
    if (list_groups) {
        m.register_only = true;
        for (size_t i = 0; i < n_order; i++)
            bench__body_run(&m, &suite->entries[order[i]]);
        status = bench__group_list(&m);
        goto done;
    }
    warn_debug_build(suite);
    if (cfg->perf_iters > BENCH__MAX_COUNT_ITERATIONS)
        fprintf(stderr, "--perf-iters: capped at %u (%llu requested)\n",
                BENCH__MAX_COUNT_ITERATIONS, (unsigned long long)cfg->perf_iters);
    bench__catalog_open(&m.catalog, cfg, false);
    bench__catalog_announce(&m.catalog, stderr);
    /* the early sampling rounds: every body in turn, each loop taking its share of samples */
    m.rounds = cfg->rounds > BENCH__SAMPLE_COUNT ? BENCH__SAMPLE_COUNT
               : cfg->rounds > 1                 ? cfg->rounds
                                                 : 1;
    for (m.round = 0; bench__rounds_early(&m); m.round++)
        for (size_t i = 0; i < n_order; i++)
            bench__body_run(&m, &suite->entries[order[i]]);
    if (cfg->n_group_by)
        bench__run_grouped(&m, suite, order, n_order, &memory);
    else
        run_streamed(&m, suite, order, n_order, &memory);
    bench__ticker_clear(&m.ticker);
    run_workloads(&m, suite, &memory);
    size_t n_all;
    const struct bench__column_desc **all_cols =
        bench__run_columns(&m, BENCH__COLUMNS_DOCUMENT, &n_all);
    bool sort_key_unknown = cfg->sort_by && !bench__sort_key_known(cfg->sort_by, all_cols, n_all) &&
                            !bench__catalog_reserved(cfg->sort_by);
    free(all_cols);
    bench__catalog_warn_unmatched(&m.catalog, (const struct bench__column_desc *const *)m.columns,
                                  m.n_columns, stderr);
    if (sort_key_unknown)
        fprintf(stderr, "--sort-by: no metric column named '%s' — rows keep their default order\n",
                cfg->sort_by);
    size_t errors = m.workloads.failures;
    for (size_t r = 0; r < m.n_rows; r++)
        errors += m.rows[r].state == BENCH__ROW_ERROR;
    for (size_t i = 0; i < m.workloads.n; i++)
        errors += m.workloads.windows[i].state == BENCH__ROW_ERROR;
    if (cfg->bench_json && bench__rows_write_json(&m, suite, min_time_ms) != 0)
        errors++;
    status = errors ? 1 : 0;
done:
    bench__workloads_free(&m.workloads);
    bench__catalog_close(&m.catalog);
    free_measure(&m);
    bench__table_memory_free(&memory);
    free(order);
    return status;
}
