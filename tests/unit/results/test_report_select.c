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
#include <stdlib.h>
#include <string.h>

#include "results/report_tool.h"

static struct results_run RUNS[] = {
    {"20261101T000000Z", "2026-11-01T00:00:00Z", "hostA", "p"},
    {"20261102T000000Z", "2026-11-02T00:00:00Z", "hostB", "p"},
    {"20261103T000000Z", "2026-11-03T00:00:00Z", "hostA", "p"},
    {"20261104T000000Z", "2026-11-04T00:00:00Z", "hostA", "p"},
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
    struct report_options o = {0};
    bench__result_thresholds_default(&o.thresholds);
    return o;
}

static void latest_against_previous_on_its_host(void **state)
{
    (void)state;
    struct results_list runs, aggs;
    fill(&runs, &aggs, 3);
    struct report_options o = options();
    struct report_selection sel;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(report_select(&runs, &aggs, &o, (size_t)-1, &sel, &rows, &n, err, sizeof err),
                     0);
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
    free(rows);
    o.cross_host = true;
    assert_int_equal(report_select(&runs, &aggs, &o, (size_t)-1, &sel, &rows, &n, err, sizeof err),
                     0);
    assert_string_equal(sel.baseline->bench_id, "20261102T000000Z");
    free(rows);
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
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(report_select(&runs, &aggs, &o, (size_t)-1, &sel, &rows, &n, err, sizeof err),
                     0);
    assert_string_equal(sel.mode, "subjects");
    assert_string_equal(sel.target->bench_id, "20261103T000000Z");
    assert_string_equal(sel.baseline->bench_id, "20261103T000000Z");  /* main's latest on hostA */
    assert_string_equal(sel.reference->bench_id, "20261104T000000Z"); /* git's latest */
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].target->subject, "pr");
    assert_ptr_equal(rows[0].baseline, &AGGS[3]);
    assert_ptr_equal(rows[0].reference, &AGGS[5]);
    assert_int_equal(rows[0].state, BENCH__RESULT_GUARDRAIL); /* 70 -> 90 ns: +28.6%, 20 ns */
    free(rows);

    /* the default mode with a guardrail: git is the reference, not a row */
    o = options();
    o.guardrail_subject = "git";
    fill(&runs, &aggs, 3);
    assert_int_equal(report_select(&runs, &aggs, &o, (size_t)-1, &sel, &rows, &n, err, sizeof err),
                     0);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(rows[i].target->subject, "git");
    assert_string_equal(sel.reference->bench_id, "20261103T000000Z");
    free(rows);

    o = options();
    o.target_subject = "nobody";
    assert_int_equal(report_select(&runs, &aggs, &o, (size_t)-1, &sel, &rows, &n, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "nobody"));
}

static void empty_store(void **state)
{
    (void)state;
    struct results_list runs = {0}, aggs = {0};
    struct report_options o = options();
    struct report_selection sel;
    struct bench__result_row *rows;
    size_t n;
    char err[256];
    assert_int_equal(report_select(&runs, &aggs, &o, (size_t)-1, &sel, &rows, &n, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "no run recorded"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latest_against_previous_on_its_host),
        cmocka_unit_test(subjects_and_guardrail),
        cmocka_unit_test(empty_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
