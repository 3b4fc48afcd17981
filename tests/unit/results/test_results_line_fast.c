/* SPDX-License-Identifier: MIT */
/* test_results_line_fast.c: the fast reader of raw lines (tools/results/results_line_fast.c)
 * against jansson's (results_line_parse_jansson): the lines the writer gives (both kinds of
 * document, failures, skips, sources, estimates, reals of every shape) are read fast, with the
 * same fields; and every line made from them by changing, deleting or doubling one byte is
 * either left to jansson's reader or read as it reads it (never accepted where it refuses). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_tool.h"
#include "common/json.h"

static void same_str(const char *a, const char *b, const char *what)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
        fail_msg("%s: fast %s, jansson %s", what, a ? a : "(null)", b ? b : "(null)");
}

static void same_real(double a, double b, const char *what)
{
    if (!(isnan(a) && isnan(b)) && memcmp(&a, &b, sizeof a) != 0)
        fail_msg("%s: fast %.17g, jansson %.17g", what, a, b);
}

/* 1 when the fast reader read the line (then as jansson's reader does), 0 when it left it. */
static int check_line(const char *text, size_t len)
{
    struct results_line f, j;
    char err[256];
    if (!results_line_parse_fast(text, len, &f))
        return 0;
    if (results_line_parse_jansson(text, len, &j, err, sizeof err) != 0)
        fail_msg("read fast, refused by jansson's reader (%s): %.*s", err, (int)len, text);
    same_str(f.m.bench_id, j.m.bench_id, "bench_id");
    same_str(f.m.subject, j.m.subject, "subject");
    same_str(f.m.profile, j.m.profile, "profile");
    same_str(f.m.scenario, j.m.scenario, "scenario");
    same_str(f.m.operation, j.m.operation, "operation");
    same_str(f.m.host_id, j.m.host_id, "host_id");
    assert_int_equal(f.m.run, j.m.run);
    assert_int_equal(f.m.returncode, j.m.returncode);
    same_real(f.m.value_ns, j.m.value_ns, "value_ns");
    assert_int_equal(f.m.whole_process, j.m.whole_process);
    assert_int_equal(f.m.row_samples, j.m.row_samples);
    same_real(f.m.row_mad_ns, j.m.row_mad_ns, "mad");
    assert_int_equal(f.m.contention_known, j.m.contention_known);
    same_real(f.m.contention, j.m.contention, "contention");
    same_str(f.timestamp_utc, j.timestamp_utc, "timestamp_utc");
    same_str(f.skip_reason, j.skip_reason, "skip_reason");
    same_str(f.failure, j.failure, "failure");
    same_str(f.host, j.host, "host");
    same_str(f.platform, j.platform, "platform");
    same_str(f.machine, j.machine, "machine");
    same_str(f.cpu_model, j.cpu_model, "cpu_model");
    same_str(f.compiler, j.compiler, "compiler");
    same_str(f.library_version, j.library_version, "library_version");
    same_str(f.source_revision, j.source_revision, "source_revision");
    same_str(f.metrics_json, j.metrics_json, "metrics");
    same_str(f.estimated_json, j.estimated_json, "estimated");
    same_str(f.sources_json, j.sources_json, "sources");
    results_line_free(&f);
    results_line_free(&j);
    return 1;
}

static const char BENCH_DOC[] =
    "{\"schema\":2,\"meta\":{\"hostname\":\"h\",\"os\":\"linux\",\"arch\":\"x86_64\","
    "\"cpu\":\"c\",\"compiler\":\"GCC\",\"provenance\":[\"allocator=libc\",\"source lib=abc\"]},"
    "\"rows\":["
    "{\"name\":\"a\",\"labels\":{\"size\":\"1\"},\"medianNs\":231.28571428571428,"
    "\"deviationNs\":1.25,\"samples\":32,\"contention\":0.01,\"estimatedMetrics\":[\"x\"],"
    "\"metrics\":{\"items/s\":10000001.0,\"depth\":1,\"n\":null,\"z\":-2.5e-300,\"b\":1e21,"
    "\"s\":\"t\",\"t\":true},\"error\":\"\"},"
    "{\"name\":\"b\",\"medianNs\":null,\"metrics\":{},\"error\":\"\"},"
    "{\"name\":\"c\",\"medianNs\":3,\"metrics\":{\"q\":0.1},\"error\":\"broke\"},"
    "{\"name\":\"d\",\"medianNs\":0.30000000000000004,\"deviationNs\":0,\"error\":\"\"}]}";

static const char RUN_DOC[] =
    "{\"tool\":\"libbench run\",\"schema\":1,\"version\":\"0.3.0\",\"meta\":{\"hostname\":\"h\","
    "\"runs\":3},\"rows\":["
    "{\"name\":\"x\",\"command\":\"./p --a\",\"runs\":[{\"run\":1,\"wallNs\":1000000.5,"
    "\"rusage\":{\"user-ns\":12000,\"max-rss-bytes\":4096,\"minflt\":3}},{\"run\":2,"
    "\"wallNs\":2e6}],\"failure\":{\"run\":3,\"exitStatus\":3},\"error\":\"status 3\"}]}";

/* The lines the writer gives for the two documents. */
static char *lines_of(const char *doc_text, size_t *n_lines)
{
    struct results_record_info info = {
        .profile = "p", .subject = "s", .recorder_version = "0.3.0", .source_revision = "r1"};
    assert_true(results_time_stamp(1793528430, &info));
    json_t *src = json_object();
    assert_true(results_source_add(src, "cli=def"));
    info.sources = src;
    json_t *doc = json_loads(doc_text, 0, NULL);
    assert_non_null(doc);
    struct bench__text out = {0};
    json_t *rejected = json_array();
    size_t run_base = 0;
    char err[256];
    long got = results_doc_lines(doc, 0, &info, &run_base, &out, rejected, err, sizeof err);
    assert_true(got > 0);
    assert_int_equal(json_array_size(rejected), 0);
    *n_lines = (size_t)got;
    json_decref(rejected);
    json_decref(doc);
    json_decref(src);
    return out.data;
}

static void writer_lines_read_fast(void **state)
{
    (void)state;
    const char *docs[] = {BENCH_DOC, RUN_DOC};
    for (size_t d = 0; d < 2; d++) {
        size_t n;
        char *text = lines_of(docs[d], &n);
        size_t read = 0;
        for (char *line = text; *line;) {
            char *nl = strchr(line, '\n');
            read += (size_t)check_line(line, (size_t)(nl - line));
            line = nl + 1;
        }
        assert_int_equal(read, n); /* every line the writer gives is read fast */
        free(text);
    }
}

static void changed_lines(void **state)
{
    (void)state;
    static const char subst[] = "\" ,:{}[]0-.e\\x\x01\x80n";
    const char *docs[] = {BENCH_DOC, RUN_DOC};
    size_t fast = 0, total = 0;
    for (size_t d = 0; d < 2; d++) {
        size_t n;
        char *text = lines_of(docs[d], &n);
        for (char *line = text; *line;) {
            char *nl = strchr(line, '\n');
            size_t len = (size_t)(nl - line);
            char *buf = malloc(len + 2);
            for (size_t i = 0; i < len; i++) {
                for (size_t k = 0; k < sizeof subst - 1; k++) { /* one byte changed */
                    memcpy(buf, line, len);
                    buf[i] = subst[k];
                    fast += (size_t)check_line(buf, len);
                    total++;
                }
                memcpy(buf, line, i); /* one byte deleted */
                memcpy(buf + i, line + i + 1, len - i - 1);
                fast += (size_t)check_line(buf, len - 1);
                memcpy(buf, line, i + 1); /* one byte doubled */
                memcpy(buf + i + 1, line + i, len - i);
                fast += (size_t)check_line(buf, len + 1);
                total += 2;
            }
            free(buf);
            line = nl + 1;
        }
        free(text);
    }
    assert_true(fast > 0 && fast < total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writer_lines_read_fast),
        cmocka_unit_test(changed_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
