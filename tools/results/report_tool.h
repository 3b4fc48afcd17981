/* SPDX-License-Identifier: MIT */
/* report_tool.h: the declarations the files of `libbench report` share: the series of the
 * history (report_series.c, also the index's change points), which runs are compared and how
 * each row is judged (report_select.c, also the index's comparisons table), the terminal tables
 * (report_table.c) and the report document (report_json.c). The rules are in
 * docs/reference/results.md, "libbench report". */
#ifndef LIBBENCH_REPORT_TOOL_H
#define LIBBENCH_REPORT_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "results_index.h"
#include "stats/changepoint.h"
#include "stats/results.h"
#include "util/atomic_file.h"

/* ---- the series (report_series.c) ---- */

/* Every aggregate of the index sorted by its cell (profile, scenario, operation, subject, and
 * host unless cross_host), then its run's order: a series is a slice of `order`. */
struct report_series {
    const struct results_list *runs, *aggs;
    bool cross_host;
    size_t *order;  /* indexes into aggs->aggs */
    size_t n;       /* aggregates of a known run */
    size_t *run_of; /* per aggregate: its run's index in runs->runs, or SIZE_MAX */
};
void report_series_init(struct report_series *s, const struct results_list *runs,
                        const struct results_list *aggs, bool cross_host);
void report_series_free(struct report_series *s);
/* The series of `cell` (its host's unless cross_host) among the runs [first_run, last_run] (by
 * index in runs->runs), oldest first, as indexes into aggs->aggs (*out points into s->order). */
size_t report_series_of(const struct report_series *s, const struct bench__result_aggregate *cell,
                        size_t first_run, size_t last_run, const size_t **out);
/* The engine's runs of a series: each run's p50 (NaN without a successful value, or at 0: the
 * engine reads logarithms), its mad_n and MAD. */
void report_series_cp_runs(const struct report_series *s, const size_t *series, size_t n,
                           struct bench__cp_run *out);
/* The run of an aggregate of the series. */
const struct results_run *report_series_run(const struct report_series *s, size_t agg);
/* A change point of a series as the index keeps it (strings borrowed from the lists). */
void report_change_of(const struct report_series *s, const size_t *series, size_t n,
                      const struct bench__cp_run *runs, const struct bench__changepoint *cp,
                      struct results_change *out);
/* The change points of every series of the index (one host each), with the engine's defaults:
 * the store's step after the aggregates. *out is malloc'd, its strings borrowed. */
int report_series_changes(const struct results_list *runs, const struct results_list *aggs,
                          struct results_change **out, size_t *n_out, char *err, size_t err_size);

/* ---- which runs, and the rows (report_select.c) ---- */

enum report_mode {
    REPORT_MODE_SEGMENTS,           /* the default: the latest run against its history */
    REPORT_MODE_LATEST_VS_PREVIOUS, /* --mode=latest-vs-previous: the rule before issue 28 */
};

struct report_options {
    const char *target_subject;    /* NULL: the latest run, every subject of it */
    const char *baseline_subject;  /* NULL: the target's own history */
    const char *guardrail_subject; /* NULL: no reference */
    const char *baseline_run;      /* --baseline-run: a bench_id, or NULL */
    const char *since;             /* --since: the first record time of the history, or NULL */
    enum report_mode mode;
    bool cross_host;      /* compare runs of different hosts too */
    bool without_history; /* the index's comparisons table: no series, no verdict, no charts */
    struct bench__result_thresholds thresholds;
    struct bench__result_priorities priorities;
    struct bench__hist_params hist; /* its threshold is set per row from `thresholds` */
};
/* Fills the defaults (thresholds, the engine's parameters, mode segments). */
void report_options_default(struct report_options *o);

struct report_selection {
    /* "segments", "baseline_run", "latest_vs_previous" or "subjects" */
    const char *mode;
    const struct results_run *target, *baseline, *reference;           /* NULL: none */
    const char *target_subject, *baseline_subject, *reference_subject; /* NULL: the row's own */
    size_t first_run; /* the first run of the history (--since): an index into runs->runs */
};

/* What the history says of one row: its series (oldest first, up to the target run), the
 * engine's runs, verdict and change points. Every row has one, whatever the mode; the verdict
 * decides the state in modes segments and baseline_run. */
struct report_history {
    const size_t *series; /* indexes into aggs->aggs */
    size_t n;
    struct bench__cp_run *runs;
    struct bench__hist_verdict verdict;
    struct bench__changepoint *cps;
    size_t n_cps;
    bool judged; /* the verdict decided the state */
};

/* The rows of one report: judged, sorted, each row's ctx its report_history. */
struct report_rows {
    struct bench__result_row *rows;
    size_t n;
    struct report_history *hist; /* n of them, in the rows' order before the sort */
    struct report_series series;
    size_t min_n_p90, min_n_p99; /* the thresholds' (a tail judged with its samples) */
};
void report_rows_free(struct report_rows *r);

/* Selects the runs and builds the judged, sorted rows. target_run is an index into runs->runs,
 * or (size_t)-1 for the mode's default. The rows point into aggs. 0, or -1 with the reason in
 * err (no run recorded, no run of a subject, a --baseline-run not recorded). */
int report_select(const struct results_list *runs, const struct results_list *aggs,
                  const struct report_options *opt, size_t target_run, struct report_selection *sel,
                  struct report_rows *out, char *err, size_t err_size);
/* The aggregate of (bench_id, subject) on the cell (profile, scenario, operation) of `cell`, or
 * NULL; aggs in the index's order (bench_id, subject, profile, scenario, operation). */
const struct bench__result_aggregate *report_find(const struct results_list *aggs,
                                                  const char *bench_id, const char *subject,
                                                  const struct bench__result_aggregate *cell);
/* The index of a run in runs->runs, or (size_t)-1. */
size_t report_run_index(const struct results_list *runs, const char *bench_id);

/* ---- the terminal (report_table.c) ---- */

/* The runs compared, the rows' table, with `changes` the table of the change points of the
 * rows' series, with `metrics` the target run's metrics (values: its measurements). Returns 0,
 * or -1 when stdout could not be written. */
int report_print(const struct report_options *opt, const struct report_selection *sel,
                 const struct report_rows *rows, const struct results_list *values, bool changes,
                 bool metrics);

/* ---- the document (report_json.c) ---- */

/* The report document (docs/reference/results.md, "The report document"), schema
 * "libbench-report/2": everything but "rows", which report_json_row gives one at a time so that
 * neither the document nor the page is ever held as one tree. */
json_t *report_json_head(const char *results_dir, const struct report_options *opt,
                         const struct report_selection *sel, const struct report_rows *rows);
/* The row i of the sorted rows; values: the target run's measurements, in the index's order. */
json_t *report_json_row(const struct report_rows *rows, size_t i,
                        const struct results_list *values);
/* The metrics of a row's measurements in values: {name: {"median", "n", "estimated"}}. */
json_t *report_json_metrics(const struct results_list *values,
                            const struct bench__result_aggregate *a);
/* The document's text: head's members and the rows, keys sorted, the head indented by 2, each
 * row one compact line; row(i) is called once per row, in order, and its result decref'd after
 * `each` saw it (each may be NULL). The text is appended to out; with drain, out is handed to
 * drain (and emptied) each time it holds a mebibyte and at the end, so that a document of any
 * size is written as it is made. Returns 0, or drain's first error (later text is dropped; every
 * row is still made and seen by each). */
int report_json_text(const json_t *head, size_t n_rows, json_t *(*row)(void *ctx, size_t i),
                     void (*each)(void *ctx, json_t *row), void *ctx, struct bench__text *out,
                     int (*drain)(void *ctx, const char *data, size_t len), void *drain_ctx);

/* ---- for CI (report_ci.c) ---- */

/* --junit: a test case per row (fail and regression, the rows --fail-on-regression counts, are
 * failures with the p50's change and why; unmeasured a skip with why; the rest pass), written
 * atomically. --summary: the verdict (REGRESSION when a row is fail or regression, else PASS:
 * either option gates as --fail-on-regression does), the states' counts and the rows worst
 * first, as Markdown appended to path. 0, or -1 with one line in err. */
int report_junit_write(const struct report_rows *rows, const char *path, char *err,
                       size_t err_size);
int report_summary_append(const struct report_rows *rows, const char *path, char *err,
                          size_t err_size);

#endif /* LIBBENCH_REPORT_TOOL_H */
