/* SPDX-License-Identifier: MIT */
/* test_report.h: test mode's results as the runner keeps them, and what CI reads of them: the
 * TAP 14 stream (--tap) and the JUnit XML file (--junit), both from test_report.c. */
#ifndef BENCH_TESTMODE_TEST_REPORT_H
#define BENCH_TESTMODE_TEST_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../suite/context.h"
#include "../suite/registry.h"

/* How a test's end came (the runner's view of bench__test_end's kind). */
enum bench__test_how {
    BENCH__HOW_REPORTED, /* the test's own outcome */
    BENCH__HOW_DIED,     /* its process died: `signal` (0: it exited) */
    BENCH__HOW_TIMED_OUT,
    BENCH__HOW_NOT_RUN, /* no process, or its end never came back */
};

struct bench__test_output {
    char *data;
    size_t len;
    bool truncated;
};

struct bench__test_result {
    bool done;
    enum bench__outcome outcome;
    enum bench__test_how how;
    int signal;         /* BENCH__HOW_DIED by a signal: its number; 0 otherwise */
    char *detail;       /* check message, bench_fail text, skip reason or death; NULL: none */
    bool detail_inline; /* show detail in parentheses on the result line */
    struct bench__test_output output;
    int64_t duration_ns; /* negative: not measured */
};

/* TAP: the version line (13 or 14) and the plan, before any result. The stream uses only what
 * TAP 13 has (a plan, test points, # SKIP, YAML diagnostics), so a TAP 13 harness (Debian 12's
 * prove) reads it whole under --tap=13. */
BENCH__HIDDEN void bench__tap_begin(FILE *out, unsigned version, size_t n_tests);
/* One test point (number index + 1) for the test of suite entry e, with YAML diagnostics when
 * it failed (message, file:line, its signal, its output). */
BENCH__HIDDEN void bench__tap_result(FILE *out, size_t index, const struct bench__entry *e,
                                     const struct bench__test_result *res);

/* The JUnit document of a run: one <testsuite> named `suite_name` holding a <testcase> per test
 * (tests[i] the suite index of results[i]), written atomically to path. 0, or an errno
 * (bench__write_file_strerror says it). */
BENCH__HIDDEN int bench__junit_tests_write(const char *path, const char *suite_name,
                                           const struct bench__suite *suite, const size_t *tests,
                                           const struct bench__test_result *results, size_t n,
                                           double elapsed_s);

#endif /* BENCH_TESTMODE_TEST_REPORT_H */
