/* SPDX-License-Identifier: MIT */
/* run.c: owns a --bench run: what is checked and said before anything is measured, and the
 * measuring side's order of work (the sampling rounds, the bodies, their cases streamed per body
 * or grouped, the workloads after the benchmarks, the closing warnings), reported as events. A
 * worker that continues a run (after a crash or a timeout) skips what earlier workers did. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../catalog/snapshot.h"
#include "../model/grouping.h"
#include "../report/metric_listing.h"
#include "../workload/capabilities.h"
#include "../util/alloc.h"
#include "../workload/workload.h"
#include "environment.h"
#include "measure.h"
#include "run.h"
#include "supervisor.h"

static bool resumed(const struct bench__measure *m)
{
    return m->resume && m->resume->active;
}

static size_t entry_index(const struct bench__measure *m, const struct bench__entry *e)
{
    return (size_t)(e - m->suite->entries);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Was this case begun (measured, refused, or crashed on) by an earlier worker of this run? */
static bool case_done_before(const struct bench__measure *m, const struct bench__pending *p)
{
    if (!resumed(m))
        return false;
    char *identity = bench__case_identity(p->entry->full_name, p->name, p->labels, p->n_labels);
    bool found = bsearch(&identity, m->resume->skip_case, m->resume->n_skip_case,
                         sizeof *m->resume->skip_case, compare_strings) != NULL;
    free(identity);
    return found;
}

void bench__body_run_reported(struct bench__measure *m, const struct bench__entry *e)
{
    size_t first_row = m->n_rows, first_pending = m->n_pending;
    /* an earlier worker ran this body: run it again only to register its cases */
    bool again = resumed(m) && m->resume->register_only[entry_index(m, e)];
    bool register_only = m->register_only;
    m->register_only |= again;
    bench__body_run(m, e);
    m->register_only = register_only;
    if (!again) /* a re-run's rows (its failure) were sent by the earlier worker: kept unsent */
        bench__emit_rows(m, first_row);
    for (size_t p = first_pending; p < m->n_pending; p++)
        m->pending[p].skip = case_done_before(m, &m->pending[p]);
    bench__emit_body_end(m, e);
}

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
        bench__emit_body_table(m, e);
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
        if (suite->entries[i].test->kind == kind && !(resumed(m) && m->resume->skip_entry[i]))
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
    bench__emit_workload_end(arg, e, failures);
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
    bench__emit_workloads_done(m);
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
    if (!resumed(m))
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
                          struct bench__emitter out, const struct bench__resume *resume)
{
    uint64_t min_time_ms = cfg->min_time_ms ? cfg->min_time_ms : BENCH__DEFAULT_MIN_TIME_MS;
    struct bench__measure m = {
        .cfg = cfg,
        .suite = suite,
        .out = out,
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
    bench__emit_rounds(&m);
    for (m.round = 0; bench__rounds_early(&m); m.round++)
        for (size_t i = 0; i < n_order; i++)
            if (!(resumed(&m) && m.resume->register_only[order[i]]))
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

/* ---- the run ----------------------------------------------------------------------------------
 */

/* --list-metrics: the public catalog made for this configuration, and its listing. */
static int list_metrics(const struct bench__config *cfg)
{
    bench_catalog_t *cat = NULL;
    int rc = bench__catalog_open_all(cfg, &cat);
    if (rc != 0) {
        fprintf(stderr, "--list-metrics: %s\n", bench_strerror(rc));
        return 1;
    }
    const struct bench_metric_info *metrics;
    const struct bench_capability_info *caps;
    size_t n_metrics, n_caps;
    bench__catalog_infos(cat, &metrics, &n_metrics, &caps, &n_caps);
    bench__metric_listing(stdout, metrics, n_metrics, caps, n_caps);
    bench_catalog_close(cat);
    return 0;
}

/* Everything before measuring; returns -1 to go on, else the exit status. The environment is
 * checked (env->build set) only when benchmarks or workloads are measured. */
static int before_measuring(const struct bench__config *cfg, const struct bench__suite *suite,
                            struct bench__environment *env)
{
    if (cfg->list_metrics || cfg->metrics_help)
        return list_metrics(cfg);
    size_t measured = 0;
    for (size_t i = 0; i < suite->count; i++)
        measured += suite->entries[i].test->kind != BENCH_KIND_TEST;
    bool list_groups = bench__group_list_wanted(cfg);
    if (measured == 0 && !list_groups) {
        printf("no BENCHMARK or WORKLOAD tests found\n");
        return 0;
    }
    if (!list_groups) {
        bench__environment_check(env, suite, stderr);
        if (cfg->perf_iters > BENCH__MAX_COUNT_ITERATIONS)
            fprintf(stderr, "--perf-iters: capped at %u (%llu requested)\n",
                    BENCH__MAX_COUNT_ITERATIONS, (unsigned long long)cfg->perf_iters);
    }
    fflush(stdout);
    fflush(stderr);
    return -1;
}

bool bench__bench_in_process = false;

int bench__run_bench(const struct bench__config *cfg, const struct bench__suite *suite)
{
    struct bench__environment env = {0};
    int status = before_measuring(cfg, suite, &env);
    if (status >= 0) {
        bench__environment_free(&env);
        return status;
    }
    uint64_t min_time_ms = cfg->min_time_ms ? cfg->min_time_ms : BENCH__DEFAULT_MIN_TIME_MS;
    struct bench__collector *c = bench__collector_new(cfg, suite, min_time_ms);
    if (env.build) /* checked: the document records it */
        bench__collector_environment(c, &env);
    if (bench__bench_in_process || cfg->bench_in_process)
        bench__measure_suite(cfg, suite, (struct bench__emitter){.direct = c}, NULL);
    else
        bench__supervise(cfg, suite, c);
    status = bench__collector_finish(c);
    bench__collector_free(c);
    bench__environment_free(&env);
    return status;
}
