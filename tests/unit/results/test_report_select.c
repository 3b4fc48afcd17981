/* SPDX-License-Identifier: MIT */
/* test_report_select.c: which recorded runs `libbench report` compares
 * (tools/results/report_select.c): the latest run against the one before it on its host (another
 * host only with --cross-host), the latest runs of two subjects, the guardrail subject as the
 * reference and never a row, and an empty store refused with its reason. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report_tool.h"

static struct results_run RUNS[] = {
    {"20261101T000000Z", "2026-11-01T00:00:00Z", "hostA", "p", NULL, NULL},
    {"20261102T000000Z", "2026-11-02T00:00:00Z", "hostB", "p", NULL, NULL},
    {"20261103T000000Z", "2026-11-03T00:00:00Z", "hostA", "p", NULL, NULL},
    {"20261104T000000Z", "2026-11-04T00:00:00Z", "hostA", "p", NULL, NULL},
};

static struct bench__result_aggregate agg(const char *bench_id, const char *subject,
                                          const char *host, double p50)
{
    struct bench__result_aggregate a = {.bench_id = bench_id,
                                        .subject = subject,
                                        .profile = "p",
                                        .scenario = "s",
                                        .operation = "",
                                        .host_id = host,
                                        .total_count = 1,
                                        .sample_count = 1,
                                        .failure_rate = 0,
                                        .p50 = p50,
                                        .p90 = p50,
                                        .p99 = p50,
                                        .min = p50,
                                        .max = p50};
    return a;
}

/* report_select into rr, its rows and their count into *rows, *n. */
static int select_rows(const struct results_list *runs, const struct results_list *aggs,
                       const struct report_options *o, struct report_selection *sel,
                       struct report_rows *rr, struct bench__result_row **rows, size_t *n,
                       char err[256])
{
    int rc = report_select(runs, aggs, o, (size_t)-1, sel, rr, err, 256);
    *rows = rr->rows;
    *n = rr->n;
    return rc;
}

/* In the index's order: bench_id, subject, ... */
static struct bench__result_aggregate AGGS[6];

static void fill(struct results_list *runs, struct results_list *aggs, size_t n_runs)
{
    AGGS[0] = agg("20261101T000000Z", "main", "hostA", 100);
    AGGS[1] = agg("20261102T000000Z", "main", "hostB", 50);
    AGGS[2] = agg("20261103T000000Z", "git", "hostA", 80);
    AGGS[3] = agg("20261103T000000Z", "main", "hostA", 120);
    AGGS[4] = agg("20261103T000000Z", "pr", "hostA", 90);
    AGGS[5] = agg("20261104T000000Z", "git", "hostA", 70);
    memset(runs, 0, sizeof *runs);
    memset(aggs, 0, sizeof *aggs);
    runs->runs = RUNS;
    runs->n_runs = n_runs;
    aggs->aggs = AGGS;
    aggs->n_aggs = n_runs == 4 ? 6 : 5;
}

static struct report_options options(void)
{
    struct report_options o;
    report_options_default(&o);
    o.mode = REPORT_MODE_LATEST_VS_PREVIOUS; /* the cases of the point comparisons */
    return o;
}

static void latest_against_previous_on_its_host(void **state)
{
    (void)state;
    struct results_list runs, aggs;
    fill(&runs, &aggs, 3);
    struct report_options o = options();
    struct report_selection sel;
    struct report_rows rr;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_string_equal(sel.mode, "latest_vs_previous");
    assert_string_equal(sel.target->bench_id, "20261103T000000Z");
    assert_string_equal(sel.baseline->bench_id, "20261101T000000Z"); /* not hostB's run */
    assert_int_equal(n, 3); /* git, main, pr of the target run */
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(rows[i].target->subject, "main")) {
            assert_ptr_equal(rows[i].baseline, &AGGS[0]);
            assert_int_equal(rows[i].state, BENCH__RESULT_REGRESSION); /* 100 -> 120 ns */
        } else {
            assert_null(rows[i].baseline); /* no earlier run of git or pr */
            assert_int_equal(rows[i].state, BENCH__RESULT_UNMEASURED);
        }
    }
    assert_int_equal(rows[0].state, BENCH__RESULT_UNMEASURED); /* sorted: unmeasured first */
    report_rows_free(&rr);
    o.cross_host = true;
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_string_equal(sel.baseline->bench_id, "20261102T000000Z");
    report_rows_free(&rr);
}

static void subjects_and_guardrail(void **state)
{
    (void)state;
    struct results_list runs, aggs;
    fill(&runs, &aggs, 4);
    struct report_options o = options();
    o.target_subject = "pr";
    o.baseline_subject = "main";
    o.guardrail_subject = "git";
    struct report_selection sel;
    struct report_rows rr;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_string_equal(sel.mode, "subjects");
    assert_string_equal(sel.target->bench_id, "20261103T000000Z");
    assert_string_equal(sel.baseline->bench_id, "20261103T000000Z");  /* main's latest on hostA */
    assert_string_equal(sel.reference->bench_id, "20261104T000000Z"); /* git's latest */
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].target->subject, "pr");
    assert_ptr_equal(rows[0].baseline, &AGGS[3]);
    assert_ptr_equal(rows[0].reference, &AGGS[5]);
    assert_int_equal(rows[0].state, BENCH__RESULT_GUARDRAIL); /* 70 -> 90 ns: +28.6%, 20 ns */
    report_rows_free(&rr);

    /* the default mode with a guardrail: git is the reference, not a row */
    o = options();
    o.guardrail_subject = "git";
    fill(&runs, &aggs, 3);
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(rows[i].target->subject, "git");
    assert_string_equal(sel.reference->bench_id, "20261103T000000Z");
    report_rows_free(&rr);

    o = options();
    o.target_subject = "nobody";
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), -1);
    assert_non_null(strstr(err, "nobody"));
}

static void empty_store(void **state)
{
    (void)state;
    struct results_list runs = {0}, aggs = {0};
    struct report_options o = options();
    struct report_selection sel;
    struct report_rows rr;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), -1);
    assert_non_null(strstr(err, "no run recorded"));
}

/* ---- the history: a series of N runs on one host, a step at run `step` ---- */

#define SERIES 10
static char IDS[SERIES][17], TIMES[SERIES][21], REVS[SERIES][8];
static struct results_run SRUNS[SERIES];
static struct bench__result_aggregate SAGGS[2 * SERIES];

/* Two cells per run, in the index's order (bench_id, subject, ...): "flat" at 1000 ns and
 * "step" at 1000 ns, then `factor` times that from run `step` on, each with a small spread so
 * that the history knows its noise (0.3% between runs, a MAD of 1 ns over 3 samples). */
static void series(struct results_list *runs, struct results_list *aggs, size_t n, size_t step,
                   double factor)
{
    static const double wobble[SERIES] = {1.000, 1.003, 0.998, 1.002, 0.999,
                                          1.001, 0.997, 1.002, 1.000, 0.998};
    for (size_t i = 0; i < n; i++) {
        snprintf(IDS[i], sizeof IDS[i], "202611%02zuT000000Z", i + 1);
        snprintf(TIMES[i], sizeof TIMES[i], "2026-11-%02zuT00:00:00Z", i + 1);
        snprintf(REVS[i], sizeof REVS[i], "rev%zu", i + 1);
        SRUNS[i] = (struct results_run){IDS[i], TIMES[i], "hostA", "p", REVS[i], NULL};
        for (size_t c = 0; c < 2; c++) {
            double v = 1000 * wobble[i] * (c == 1 && i >= step ? factor : 1);
            struct bench__result_aggregate a = agg(IDS[i], "main", "hostA", v);
            a.scenario = c == 0 ? "flat" : "step";
            a.sample_count = a.total_count = 3;
            a.mad = 1;
            a.mad_n = 3;
            SAGGS[2 * i + c] = a;
        }
    }
    memset(runs, 0, sizeof *runs);
    memset(aggs, 0, sizeof *aggs);
    runs->runs = SRUNS;
    runs->n_runs = n;
    aggs->aggs = SAGGS;
    aggs->n_aggs = 2 * n;
}

static const struct bench__result_row *row_of(const struct bench__result_row *rows, size_t n,
                                              const char *scenario)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rows[i].target->scenario, scenario))
            return &rows[i];
    fail_msg("no row %s", scenario);
    return NULL;
}

static void regressed_since_the_step(void **state)
{
    (void)state;
    struct results_list runs, aggs;
    series(&runs, &aggs, SERIES, 5, 1.5);
    struct report_options o;
    report_options_default(&o);
    struct report_selection sel;
    struct report_rows rr;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_string_equal(sel.mode, "segments");
    assert_int_equal(n, 2);
    const struct bench__result_row *step = row_of(rows, n, "step");
    const struct report_history *h = step->ctx;
    assert_int_equal(step->state, BENCH__RESULT_REGRESSION);
    assert_string_equal(step->why, "regressed_since_change");
    assert_string_equal(step->decided_by, "history");
    assert_int_equal(h->n, SERIES);
    assert_int_equal(h->n_cps, 1);
    assert_int_equal(h->cps[0].index, 5);
    assert_int_equal(h->verdict.since, 5);
    /* the point of comparison is the last run before the step; the p50 is judged against the
     * level of the runs before it */
    assert_ptr_equal(step->baseline, &SAGGS[2 * 4 + 1]);
    assert_true(fabs(step->history_ref_p50 - 1000) < 3);
    assert_true(step->slower_p50_pct > 45 && step->slower_p50_pct < 55);
    const struct bench__result_row *flat = row_of(rows, n, "flat");
    assert_int_equal(flat->state, BENCH__RESULT_OK);
    /* a steady segment holds the target too: its point of comparison is the run before */
    assert_ptr_equal(flat->baseline, &SAGGS[2 * (SERIES - 2)]);
    assert_int_equal(((const struct report_history *)flat->ctx)->n_cps, 0);
    /* the change point as the index keeps it */
    struct results_change c;
    report_change_of(&rr.series, h->series, h->n, h->runs, &h->cps[0], &c);
    assert_string_equal(c.bench_id, IDS[5]);
    assert_string_equal(c.previous_bench_id, IDS[4]);
    assert_string_equal(c.source_revision, "rev6");
    assert_int_equal(c.runs_before, 5);
    assert_int_equal(c.runs_after, 5);
    assert_true(c.size_rel > 0.45 && c.size_rel < 0.55 && c.ci_low_rel > 0.4 && c.p < 0.001);
    report_rows_free(&rr);

    /* the same from the store's step: one change point, on the step's series only */
    struct results_change *all;
    size_t k;
    assert_int_equal(report_series_changes(&runs, &aggs, &all, &k, err, sizeof err), 0);
    assert_int_equal(k, 1);
    assert_string_equal(all[0].scenario, "step");
    assert_string_equal(all[0].bench_id, IDS[5]);
    free(all);

    /* the previous-run rule forgets it once the run before is slow too */
    o.mode = REPORT_MODE_LATEST_VS_PREVIOUS;
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_string_equal(sel.mode, "latest_vs_previous");
    assert_int_not_equal(row_of(rows, n, "step")->state, BENCH__RESULT_REGRESSION);
    report_rows_free(&rr);
}

static void baseline_run_and_since(void **state)
{
    (void)state;
    struct results_list runs, aggs;
    series(&runs, &aggs, SERIES, 5, 1.5);
    struct report_options o;
    report_options_default(&o);
    struct report_selection sel;
    struct report_rows rr;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    /* against the segment of a run after the step: the latest run is level with it */
    o.baseline_run = IDS[7];
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_string_equal(sel.mode, "baseline_run");
    assert_int_not_equal(row_of(rows, n, "step")->state, BENCH__RESULT_REGRESSION);
    report_rows_free(&rr);
    /* against a run before it: regressed */
    o.baseline_run = IDS[1];
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_int_equal(row_of(rows, n, "step")->state, BENCH__RESULT_REGRESSION);
    report_rows_free(&rr);
    o.baseline_run = "20991231T000000Z";
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), -1);
    assert_non_null(strstr(err, "--baseline-run"));
    o.baseline_run = NULL;

    /* --since after the step: the history is the new level alone, nothing to regress from */
    o.since = "2026-11-06";
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    assert_int_equal(sel.first_run, 5);
    const struct bench__result_row *step = row_of(rows, n, "step");
    assert_int_equal(((const struct report_history *)step->ctx)->n, SERIES - 5);
    assert_int_not_equal(step->state, BENCH__RESULT_REGRESSION);
    report_rows_free(&rr);
    o.since = "2027-01-01";
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), -1);
    assert_non_null(strstr(err, "since"));
}

/* A run out of line on the latest run alone, with its samples as spread as its move: a watch,
 * not a regression, until the next runs confirm it. */
static void one_run_out_of_line(void **state)
{
    (void)state;
    struct results_list runs, aggs;
    series(&runs, &aggs, SERIES, SERIES - 1, 1.3);
    SAGGS[2 * (SERIES - 1) + 1].mad = 400; /* its three samples disagree */
    struct report_options o;
    report_options_default(&o);
    struct report_selection sel;
    struct report_rows rr;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(select_rows(&runs, &aggs, &o, &sel, &rr, &rows, &n, err), 0);
    const struct bench__result_row *step = row_of(rows, n, "step");
    assert_int_equal(step->state, BENCH__RESULT_WATCH);
    assert_string_equal(step->why, "out_of_line_unconfirmed");
    report_rows_free(&rr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latest_against_previous_on_its_host),
        cmocka_unit_test(subjects_and_guardrail),
        cmocka_unit_test(empty_store),
        cmocka_unit_test(regressed_since_the_step),
        cmocka_unit_test(baseline_run_and_since),
        cmocka_unit_test(one_run_out_of_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
