/* SPDX-License-Identifier: MIT */
/* report_tool.h: the declarations the files of `libbench report` share: which runs are compared
 * (report_select.c, also used by the index's comparisons table), and the report document
 * (report_json.c). The rules are in docs/reference/results.md, "libbench report". */
#ifndef LIBBENCH_REPORT_TOOL_H
#define LIBBENCH_REPORT_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "results_index.h"
#include "stats/results.h"

struct report_options {
    const char *target_subject;    /* NULL: the latest run, every subject of it */
    const char *baseline_subject;  /* NULL: the target's own previous run */
    const char *guardrail_subject; /* NULL: no reference */
    bool cross_host;               /* compare runs of different hosts too */
    struct bench__result_thresholds thresholds;
    struct bench__result_priorities priorities;
};

struct report_selection {
    const char *mode; /* "latest_vs_previous" or "subjects" */
    const struct results_run *target, *baseline, *reference;           /* NULL: none */
    const char *target_subject, *baseline_subject, *reference_subject; /* NULL: the row's own */
};

/* Selects the runs and builds the judged, sorted rows. target_run is an index into runs->runs,
 * or (size_t)-1 for the mode's default. The rows point into aggs. 0, or -1 with the reason in
 * err (no run recorded, no run of a subject). */
int report_select(const struct results_list *runs, const struct results_list *aggs,
                  const struct report_options *opt, size_t target_run, struct report_selection *sel,
                  struct bench__result_row **rows, size_t *n_rows, char *err, size_t err_size);
/* The aggregate of (bench_id, subject) on the cell (profile, scenario, operation) of `cell`, or
 * NULL; aggs in the index's order (bench_id, subject, profile, scenario, operation). */
const struct bench__result_aggregate *report_find(const struct results_list *aggs,
                                                  const char *bench_id, const char *subject,
                                                  const struct bench__result_aggregate *cell);
/* The index of a run in runs->runs, or (size_t)-1. */
size_t report_run_index(const struct results_list *runs, const char *bench_id);

/* The report document (docs/reference/results.md, "The report document"). values: the target
 * run's measurements. */
json_t *report_json(const char *results_dir, const struct report_options *opt,
                    const struct report_selection *sel, const struct bench__result_row *rows,
                    size_t n_rows, const struct results_list *runs, const struct results_list *aggs,
                    const struct results_list *values);

#endif /* LIBBENCH_REPORT_TOOL_H */
