/* SPDX-License-Identifier: MIT */
/* run.c: owns the measuring side's order of work in a --bench run (the sampling rounds, the
 * bodies, their cases streamed per body or grouped, the workloads after the benchmarks, the
 * closing warnings), reported through the run's sink. A worker that continues a run (after a
 * crash or a timeout) skips what earlier workers did. What is checked before measuring, and who
 * takes the events, is supervising/run.c's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../model/grouping.h"
#include "../../util/alloc.h"
#include "../../workload/workload.h"
#include "group_keys.h"
#include "measure.h"
#include "run.h"

/* Without --group-by: one table per BENCHMARK, streamed as soon as it is measured. */
static void run_streamed(struct bench__measure *m, const size_t *order, size_t n_order)
{
    for (size_t i = 0; i < n_order; i++) {
        const struct bench__entry *e = &m->suite->entries[order[i]];
        size_t first_pending = m->n_pending;
        bench__body_run_reported(m, e);
        for (size_t p = first_pending; p < m->n_pending; p++) {
            if (m->pending[p].skip)
                continue;
            size_t first_row = m->n_rows;
            bench__case_measure(m, &m->pending[p]);
            bench__emit_rows(m, first_row);
        }
        bench__emit(m, body_table, bench__entry_index(m, e));
    }
}

static int compare_entries_by_name(const void *a, const void *b, void *arg)
{
    const struct bench__suite *suite = arg;
    return strcmp(suite->entries[*(const size_t *)a].full_name,
                  suite->entries[*(const size_t *)b].full_name);
}

/* The suite's tests of one kind in full-name order (the default streaming key), without those an
 * earlier worker finished or abandoned. */
static size_t *tests_of_kind(const struct bench__measure *m, enum bench_kind kind, size_t *n)
{
    const struct bench__suite *suite = m->suite;
    size_t *order = bench__xcalloc(suite->count + 1, sizeof *order);
    *n = 0;
    for (size_t i = 0; i < suite->count; i++)
        if (suite->entries[i].test->kind == kind &&
            !(bench__measure_resumed(m) && m->resume->skip_entry[i]))
            order[(*n)++] = i;
    qsort_r(order, *n, sizeof *order, compare_entries_by_name, (void *)suite);
    return order;
}

static void free_measure(struct bench__measure *m)
{
    free(m->round_loops);
    for (size_t r = 0; r < m->n_rows; r++)
        bench__row_release(&m->rows[r]);
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
    if (m->empty_bracket)
        for (size_t s = 0; s < m->catalog.n_sources; s++)
            free(m->empty_bracket[s]);
    free(m->empty_bracket);
    for (size_t i = 0; i < m->n_said; i++)
        free(m->said[i]);
    free(m->said);
    bench__cells_free(m);
    bench__workloads_free(&m->workloads);
    bench__catalog_close(&m->catalog);
    bench__profile_close(m);
}

/* ---- workloads ------------------------------------------------------------------------------ */

static void workload_begin(void *arg, const struct bench__entry *e)
{
    bench__emit_begin(arg, BENCH__ITEM_WORKLOAD, e, e->full_name, NULL, 0);
}

static void workload_window(void *arg, size_t index)
{
    bench__emit_window(arg, index);
}

static void workload_end(void *arg, const struct bench__entry *e, size_t failures)
{
    struct bench__measure *m = arg;
    bench__emit(m, workload_end, bench__entry_index(m, e), failures);
}

/* The workloads of the suite in full-name order, each window read at its edges and reported as
 * its workload ends; then their table. */
static void run_workloads(struct bench__measure *m)
{
    size_t n;
    size_t *order = tests_of_kind(m, BENCH_KIND_WORKLOAD, &n);
    struct bench__workload_hooks hooks = {.arg = m,
                                          .disclosed = !bench__say_once(m, "workloads"),
                                          .begin = workload_begin,
                                          .window = workload_window,
                                          .end = workload_end};
    bench__workloads_run(m->cfg, m->suite, order, n, &m->catalog, &m->workloads, stderr, &hooks);
    free(order);
    bench__emit0(m, workloads_done);
}

/* ---- the measuring side ------------------------------------------------------------------- */

/* Open the catalog again in a later worker: the lines the sources print on stderr while they
 * open (a syscall name not counted, a raw event not resolved) were said by the first worker, for
 * the same configuration; they go to /dev/null this time. */
static void open_quietly(struct bench__catalog *catalog, const struct bench__config *cfg)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    bool quiet = saved >= 0 && null >= 0 && dup2(null, STDERR_FILENO) >= 0;
    bench__catalog_open(catalog, cfg, false);
    if (quiet) {
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
    }
    if (null >= 0)
        close(null);
    if (saved >= 0)
        close(saved);
}

/* What earlier workers of this run made known: the clock's cost, the provenance said, the
 * client columns made (in their order). */
static void take_resume(struct bench__measure *m)
{
    if (!bench__measure_resumed(m))
        return;
    const struct bench__resume *r = m->resume;
    m->clock_overhead_ns = r->clock_overhead_ns;
    m->provenance = bench__xcalloc(r->n_provenance + 1, sizeof *m->provenance);
    for (size_t i = 0; i < r->n_provenance; i++)
        m->provenance[m->n_provenance++] = bench__xstrdup(r->provenance[i]);
    for (size_t i = 0; i < r->n_client_columns; i++)
        bench__client_column_resume(m, r->client_columns[i]);
}

/* The warnings of the run's end; returns the number of --metrics selectors that matched no
 * column (a usage error). */
static size_t closing_warnings(struct bench__measure *m)
{
    const struct bench__config *cfg = m->cfg;
    size_t n_all;
    const struct bench__column_desc **all_cols =
        bench__run_columns(m, BENCH__COLUMNS_DOCUMENT, &n_all);
    bool sort_key_unknown = cfg->sort_by && !bench__sort_key_known(cfg->sort_by, all_cols, n_all) &&
                            !bench__catalog_reserved(cfg->sort_by);
    free(all_cols);
    size_t unknown = bench__catalog_report_unmatched(
        &m->catalog, (const struct bench__column_desc *const *)m->columns, m->n_columns, stderr);
    if (sort_key_unknown)
        fprintf(stderr, "--sort-by: no metric column named '%s' — rows keep their default order\n",
                cfg->sort_by);
    return unknown;
}

void bench__measure_suite(const struct bench__config *cfg, const struct bench__suite *suite,
                          const struct bench__sink *sink, const struct bench__resume *resume)
{
    uint64_t min_time_ms = bench__min_time_ms(cfg);
    struct bench__measure m = {
        .cfg = cfg,
        .suite = suite,
        .sink = sink,
        .resume = resume,
        .budget_ns = (int64_t)min_time_ms * 1000000,
        .clock_overhead_ns = NAN,
        .rounds = 1,
    };
    take_resume(&m);
    size_t n_order;
    size_t *order = tests_of_kind(&m, BENCH_KIND_BENCHMARK, &n_order);
    int status = 0;
    if (bench__group_list_wanted(cfg)) {
        m.register_only = true;
        for (size_t i = 0; i < n_order; i++)
            bench__body_run(&m, &suite->entries[order[i]]);
        status = bench__group_list(&m);
        goto done;
    }
    if (bench__say_once(&m, "catalog")) {
        bench__catalog_open(&m.catalog, cfg, false);
        bench__catalog_announce(&m.catalog, stderr);
    } else {
        open_quietly(&m.catalog, cfg);
    }
    bench__profile_open(&m);
    /* the early sampling rounds: every body in turn, each loop taking its share of samples */
    m.rounds = cfg->rounds > BENCH__SAMPLE_COUNT ? BENCH__SAMPLE_COUNT
               : cfg->rounds > 1                 ? cfg->rounds
                                                 : 1;
    bench__sink_emit(m.sink, rounds, m.rounds);
    for (m.round = 0; bench__rounds_early(&m); m.round++)
        for (size_t i = 0; i < n_order; i++)
            if (!(bench__measure_resumed(&m) && m.resume->register_only[order[i]]))
                bench__body_run(&m, &suite->entries[order[i]]);
    if (cfg->n_group_by)
        bench__run_grouped(&m, order, n_order);
    else
        run_streamed(&m, order, n_order);
    run_workloads(&m);
    if (closing_warnings(&m) > 0)
        status = 2; /* an unknown --metrics name is a usage error */
done:
    bench__emit_done(&m, status);
    free_measure(&m);
    free(order);
}
