/* SPDX-License-Identifier: MIT */
/* test_results_raw.c: the raw line of the results history (tools/results/results_raw.c): the record
 * time, the object key both ways, SHA-256, the lines a --bench-json and a `libbench run --json`
 * document give (null stays null, an error row is a failure, the runs after a failure are skips,
 * a bad row is refused and the others kept), and a line read back or refused with its reason. */
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

static void time_stamp_and_parse(void **state)
{
    (void)state;
    int64_t t;
    assert_true(results_time_parse("2026-11-01T10:20:30Z", &t));
    assert_int_equal(t, 1793528430);
    assert_true(results_time_parse("2026-11-01T10:20:30+00:00", &t));
    assert_false(results_time_parse("2026-02-30T10:20:30Z", &t));
    assert_false(results_time_parse("2026-11-01 10:20:30Z", &t));
    assert_false(results_time_parse("2026-11-01T10:20:30+01:00", &t));
    assert_false(results_time_parse("2026-11-01T10:20:30", &t));
    struct results_record_info info = {0};
    assert_true(results_time_stamp(1793528430, &info));
    assert_string_equal(info.bench_id, "20261101T102030Z");
    assert_string_equal(info.timestamp_utc, "2026-11-01T10:20:30Z");
    assert_string_equal(info.date, "2026-11-01");
    assert_false(results_time_stamp(-1, &info));
}

static void profile_names(void **state)
{
    (void)state;
    assert_true(results_profile_ok("smoke"));
    assert_true(results_profile_ok("large-2.v_1"));
    assert_false(results_profile_ok(""));
    assert_false(results_profile_ok(".hidden"));
    assert_false(results_profile_ok("a/b"));
    assert_false(results_profile_ok("a b"));
}

static void sha256_and_keys(void **state)
{
    (void)state;
    char hex[65];
    tool_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    char *key = results_object_key("smoke", "2026-11-01", "20261101T102030Z", hex);
    assert_string_equal(key, "raw/v1/profile=smoke/date=2026-11-01/bench_id=20261101T102030Z/"
                             "sha256=ba7816bf8f01/results.jsonl");
    char p[65], d[11], b[17], s[13];
    assert_true(results_object_key_parse(key, p, d, b, s));
    assert_string_equal(p, "smoke");
    assert_string_equal(d, "2026-11-01");
    assert_string_equal(b, "20261101T102030Z");
    assert_string_equal(s, "ba7816bf8f01");
    free(key);
    assert_false(results_object_key_parse("raw/v1/profile=smoke/results.jsonl", p, d, b, s));
    assert_false(results_object_key_parse("raw/v1/profile=../date=2026-11-01/bench_id="
                                          "20261101T102030Z/sha256=ba7816bf8f01/results.jsonl",
                                          p, d, b, s));
}

static struct results_record_info info_of(void)
{
    struct results_record_info info = {.profile = "smoke",
                                       .subject = "main",
                                       .source_revision = NULL,
                                       .recorder_version = "0.2.0"};
    results_time_stamp(1793528430, &info);
    return info;
}

/* The lines of out, each read back by jansson's reader (its tree in .root); returns how many. */
static size_t read_lines(const char *text, struct results_line *lines, size_t max)
{
    size_t n = 0;
    for (const char *p = text; *p && n < max;) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        char err[256];
        int rc = results_line_parse_jansson(p, (size_t)(nl - p), &lines[n], err, sizeof err);
        if (rc != 0)
            fail_msg("line %zu refused: %s", n, err);
        n++;
        p = nl + 1;
    }
    return n;
}

static const char BENCH_DOC[] =
    "{\"schema\": 2, \"meta\": {\"hostname\": \"h\", \"os\": \"linux\", \"arch\": \"x86_64\","
    " \"cpu\": \"c\", \"compiler\": \"GCC 12\", \"provenance\": [\"input: 64 B\"]},"
    " \"columns\": [], \"rows\": ["
    "{\"name\": \"parse\", \"labels\": {\"size\": \"64\", \"impl\": \"a\"}, \"medianNs\": 12.5,"
    " \"metrics\": {\"instr\": 200, \"br-miss\": null}, \"error\": \"\"},"
    "{\"name\": \"broken\", \"labels\": {}, \"medianNs\": null, \"metrics\": {}, \"error\":"
    " \"x.c:3: assertion failed\"},"
    "{\"name\": \"unmeasured\", \"labels\": {}, \"medianNs\": null, \"metrics\": {}, \"error\":"
    " \"\"},"
    "{\"name\": 7, \"labels\": {}, \"medianNs\": 1, \"error\": \"\"}]}";

static void bench_document(void **state)
{
    (void)state;
    struct results_record_info info = info_of();
    json_t *doc = json_loads(BENCH_DOC, 0, NULL);
    assert_non_null(doc);
    json_t *rejected = json_array();
    struct bench__text out = {0};
    size_t base = 3;
    char err[256];
    long n = results_doc_lines(doc, 1, &info, &base, &out, rejected, err, sizeof err);
    assert_int_equal(n, 3);
    assert_int_equal(base, 4);
    assert_int_equal(json_array_size(rejected), 1); /* the row named 7, alone */
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rejected, 0), "row")), 3);
    struct results_line l[4];
    assert_int_equal(read_lines(out.data, l, 4), 3);
    assert_string_equal(l[0].m.scenario, "parse");
    assert_string_equal(l[0].m.operation, "impl=a,size=64"); /* labels in key order */
    assert_string_equal(l[0].m.subject, "main");
    assert_string_equal(l[0].m.profile, "smoke");
    assert_int_equal(l[0].m.run, 3);
    assert_int_equal(l[0].m.returncode, 0);
    assert_true(l[0].m.value_ns == 12.5);
    assert_false(l[0].m.whole_process);
    assert_string_equal(l[0].compiler, "GCC 12");
    assert_null(l[0].library_version);
    assert_null(l[0].source_revision);
    /* a metric that was not measured stays null */
    assert_string_equal(l[0].metrics_json, "{\"br-miss\":null,\"instr\":200}");
    assert_int_equal(l[1].m.returncode, 1);
    assert_true(isnan(l[1].m.value_ns));
    assert_string_equal(l[1].failure, "x.c:3: assertion failed");
    /* no error, no value: a skip "not_measured" with a null value, never 0 nor a failure */
    assert_int_equal(l[2].m.returncode, BENCH__RESULT_SKIP);
    assert_string_equal(l[2].skip_reason, "not_measured");
    assert_null(l[2].failure);
    assert_true(isnan(l[2].m.value_ns));
    assert_true(strstr(out.data, "\"value_ns\":null") != NULL);
    assert_true(strstr(out.data, "\"provenance\":[\"input: 64 B\"]") != NULL);
    assert_string_equal(l[0].m.host_id, l[1].m.host_id);
    assert_int_equal(strlen(l[0].m.host_id), 12);
    for (int i = 0; i < 3; i++)
        results_line_free(&l[i]);
    free(out.data);
    json_decref(rejected);
    json_decref(doc);
}

static const char RUN_DOC[] =
    "{\"tool\": \"libbench run\", \"schema\": 1, \"version\": \"0.2.0\", \"meta\": {\"hostname\":"
    " \"h\", \"os\": \"linux\", \"arch\": \"x86_64\", \"cpu\": \"c\", \"runs\": 3}, \"rows\": ["
    "{\"name\": \"cat\", \"command\": \"cat f\", \"error\": \"\", \"failure\": null, \"runs\": ["
    "{\"run\": 1, \"wallNs\": 100, \"rusage\": {\"user-ns\": 0, \"minflt\": null}},"
    "{\"run\": 2, \"wallNs\": 200, \"rusage\": {}}, {\"run\": 3, \"wallNs\": null}]},"
    "{\"name\": \"bad\", \"command\": \"false\", \"error\": \"run 2 exited with status 3\","
    " \"failure\": {\"run\": 2, \"exitStatus\": 3}, \"runs\": [{\"run\": 1, \"wallNs\": 50}]}]}";

static void run_document(void **state)
{
    (void)state;
    struct results_record_info info = info_of();
    json_t *doc = json_loads(RUN_DOC, 0, NULL);
    json_t *rejected = json_array();
    struct bench__text out = {0};
    size_t base = 0;
    char err[256];
    long n = results_doc_lines(doc, 0, &info, &base, &out, rejected, err, sizeof err);
    assert_int_equal(n, 6);
    assert_int_equal(base, 3);
    assert_int_equal(json_array_size(rejected), 0);
    struct results_line l[6];
    assert_int_equal(read_lines(out.data, l, 6), 6);
    for (int i = 0; i < 3; i++) {
        assert_true(l[i].m.whole_process);
        assert_int_equal(l[i].m.run, i);
        assert_string_equal(l[i].m.operation, "cat f");
    }
    assert_true(l[0].m.value_ns == 100.0 && l[1].m.value_ns == 200.0);
    assert_int_equal(l[1].m.returncode, 0);
    /* a run without a wall time: not measured, a skip with its reason, never a failure */
    assert_int_equal(l[2].m.returncode, 77);
    assert_string_equal(l[2].skip_reason, "not_measured");
    assert_true(isnan(l[2].m.value_ns));
    /* the rusage has its own fields (the seed's names), no longer in metrics */
    assert_string_equal(l[0].metrics_json, "{}");
    const json_t *r0 = l[0].root;
    assert_int_equal(json_integer_value(json_object_get(r0, "cpu_user_us")), 0);
    assert_null(json_object_get(r0, "minor_page_faults")); /* not known: left out */
    assert_string_equal(json_string_value(json_object_get(r0, "rusage_source")),
                        "os_wait4_child_rusage");
    assert_string_equal(json_string_value(json_object_get(r0, "timing_contract_version")),
                        "libbench-process-wall/1");
    assert_null(json_object_get(r0, "cache_mode_requested"));
    assert_string_equal(l[0].library_version, "0.2.0");
    assert_int_equal(l[3].m.returncode, 0); /* bad's first run was measured */
    assert_int_equal(l[4].m.returncode, 3); /* its failure, with its exit status */
    assert_int_equal(l[4].m.run, 1);
    assert_string_equal(l[4].failure, "run 2 exited with status 3");
    assert_int_equal(l[5].m.returncode, 77); /* run 3 never ran: a skip, not a lost sample */
    assert_int_equal(l[5].m.run, 2);
    assert_string_equal(l[5].skip_reason, "aborted_after_failed_run:2");
    for (int i = 0; i < 6; i++)
        results_line_free(&l[i]);
    free(out.data);
    json_decref(rejected);
    json_decref(doc);
}

/* Issue 28 and the seed's raw line: the row's samples, MAD and contention, the estimate marks,
 * the sources (a document's "source NAME=HASH" facts, then --source), the role, the binary,
 * the timing contract; and a line written before these fields still reads. */
static const char FACTS_DOC[] =
    "{\"schema\": 2, \"meta\": {\"hostname\": \"h\", \"provenance\": [\"source lz4=abc\","
    " \"source zstd=old\", \"source bad\"]}, \"rows\": [{\"name\": \"x\", \"labels\": {},"
    " \"samples\": 32, \"medianNs\": 10, \"deviationNs\": 0.5, \"contention\": 0.25,"
    " \"metrics\": {\"cycles\": 30, \"instr\": 90}, \"estimatedMetrics\": [\"cycles\"],"
    " \"error\": \"\"}]}";

static void line_facts(void **state)
{
    (void)state;
    struct results_record_info info = info_of();
    json_t *given = json_object();
    assert_true(results_source_add(given, "zstd=new"));
    assert_false(results_source_add(given, "no hash"));
    assert_false(results_source_add(given, "a=b c"));
    assert_false(results_source_add(given, "=x"));
    info.sources = given;
    info.subject_role = "candidate";
    info.binary_sha256 = "ab12";
    assert_true(results_subject_role_ok("aa_control"));
    assert_false(results_subject_role_ok("target"));
    json_t *doc = json_loads(FACTS_DOC, 0, NULL);
    json_t *rejected = json_array();
    struct bench__text out = {0};
    size_t base = 0;
    char err[256];
    assert_int_equal(results_doc_lines(doc, 0, &info, &base, &out, rejected, err, sizeof err), 1);
    struct results_line l;
    assert_int_equal(read_lines(out.data, &l, 1), 1);
    assert_int_equal(l.m.row_samples, 32);
    assert_true(l.m.row_mad_ns == 0.5);
    assert_true(l.m.contention_known && l.m.contention == 0.25);
    assert_string_equal(l.estimated_json, "[\"cycles\"]");
    assert_string_equal(l.sources_json, "{\"lz4\":\"abc\",\"zstd\":\"new\"}");
    assert_string_equal(json_string_value(json_object_get(l.root, "subject_role")), "candidate");
    assert_string_equal(json_string_value(json_object_get(l.root, "binary_sha256")), "ab12");
    assert_string_equal(json_string_value(json_object_get(l.root, "timing_contract_version")),
                        "libbench-median-per-iteration/1");
    assert_null(json_object_get(l.root, "rusage_source"));
    results_line_free(&l);
    free(out.data);

    /* a line of a store written before these fields: every one of them not known */
    static const char OLD[] =
        "{\"schema_version\":1,\"bench_id\":\"20261101T102030Z\",\"timestamp_utc\":"
        "\"2026-11-01T10:20:30Z\",\"profile\":\"p\",\"scenario\":\"s\",\"operation\":\"\","
        "\"run\":0,\"subject\":\"main\",\"value_ns\":5.0,\"whole_process\":false,"
        "\"returncode\":0,\"skip_reason\":null,\"failure\":null,\"metrics\":{},\"host_id\":"
        "\"abc\"}";
    assert_int_equal(results_line_parse(OLD, strlen(OLD), &l, err, sizeof err), 0);
    assert_int_equal(l.m.row_samples, 0);
    assert_true(isnan(l.m.row_mad_ns));
    assert_false(l.m.contention_known);
    assert_string_equal(l.estimated_json, "[]");
    assert_null(l.sources_json);
    results_line_free(&l);
    /* a new field of the wrong type refuses the line, with its name */
    char bad[sizeof OLD + 64];
    snprintf(bad, sizeof bad, "%.*s,\"estimated_metrics\":[1]}", (int)strlen(OLD) - 1, OLD);
    assert_int_equal(results_line_parse(bad, strlen(bad), &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "estimated_metrics"));
    snprintf(bad, sizeof bad, "%.*s,\"contention\":\"high\"}", (int)strlen(OLD) - 1, OLD);
    assert_int_equal(results_line_parse(bad, strlen(bad), &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "contention"));
    json_decref(rejected);
    json_decref(doc);
    json_decref(given);
}

static void refused_documents(void **state)
{
    (void)state;
    struct results_record_info info = info_of();
    static const char *const docs[] = {
        "[1, 2]",
        "{\"schema\": 3, \"meta\": {}, \"rows\": []}",
        "{\"schema\": 2, \"meta\": {}, \"rows\": {}}",
        "{\"tool\": \"libbench run\", \"schema\": 2, \"meta\": {}, \"rows\": []}",
        "{\"tool\": \"libbench run\", \"schema\": 1, \"meta\": {\"runs\": 0}, \"rows\": []}",
        /* one run over the bound: refused whole, before any row allocates or writes a line */
        "{\"tool\": \"libbench run\", \"schema\": 1, \"meta\": {\"runs\": 1000001}, \"rows\": []}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        json_t *doc = json_loads(docs[i], 0, NULL);
        json_t *rejected = json_array();
        struct bench__text out = {0};
        size_t base = 0;
        char err[256] = "";
        assert_int_equal(results_doc_lines(doc, 0, &info, &base, &out, rejected, err, sizeof err),
                         -1);
        assert_true(err[0] != '\0');
        assert_null(out.data);
        json_decref(rejected);
        json_decref(doc);
    }
    /* at the bound: accepted */
    json_t *doc = json_loads("{\"tool\": \"libbench run\", \"schema\": 1, \"meta\": {\"runs\": "
                             "1000000}, \"rows\": []}",
                             0, NULL);
    json_t *rejected = json_array();
    struct bench__text out = {0};
    size_t base = 0;
    char err[256] = "";
    assert_int_equal(results_doc_lines(doc, 0, &info, &base, &out, rejected, err, sizeof err), 0);
    assert_int_equal(base, 1000000);
    free(out.data);
    json_decref(rejected);
    json_decref(doc);
}

static void refused_lines(void **state)
{
    (void)state;
    static const char good[] =
        "{\"schema_version\":1,\"bench_id\":\"20261101T102030Z\",\"timestamp_utc\":"
        "\"2026-11-01T10:20:30Z\",\"profile\":\"smoke\",\"scenario\":\"s\",\"operation\":\"\","
        "\"run\":0,\"subject\":\"main\",\"value_ns\":5,\"whole_process\":false,\"returncode\":0,"
        "\"metrics\":{},\"host_id\":\"abc\"}";
    struct results_line l;
    char err[256];
    assert_int_equal(results_line_parse(good, strlen(good), &l, err, sizeof err), 0);
    assert_true(l.m.value_ns == 5.0);
    assert_null(l.failure);
    results_line_free(&l);
    struct {
        const char *from, *to, *reason;
    } bad[] = {
        {"\"run\":0", "\"run\":-1", "\"run\""},
        {"\"value_ns\":5", "\"value_ns\":\"5\"", "\"value_ns\""},
        {"\"schema_version\":1", "\"schema_version\":2", "\"schema_version\""},
        {"\"timestamp_utc\":\"2026-11-01T10:20:30Z\"", "\"timestamp_utc\":\"yesterday\"",
         "\"timestamp_utc\""},
        {"\"metrics\":{}", "\"metrics\":[]", "\"metrics\""},
        {"{\"schema", "{{\"schema", "not JSON"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[1024];
        const char *at = strstr(good, bad[i].from);
        assert_non_null(at);
        snprintf(line, sizeof line, "%.*s%s%s", (int)(at - good), good, bad[i].to,
                 at + strlen(bad[i].from));
        assert_int_equal(results_line_parse(line, strlen(line), &l, err, sizeof err), -1);
        if (!strstr(err, bad[i].reason))
            fail_msg("case %zu: '%s' does not name %s", i, err, bad[i].reason);
    }
    /* a failure's value is not a measurement, whatever the line says */
    char failed[1024];
    const char *at = strstr(good, "\"returncode\":0");
    snprintf(failed, sizeof failed, "%.*s\"returncode\":2%s", (int)(at - good), good,
             at + strlen("\"returncode\":0"));
    assert_int_equal(results_line_parse(failed, strlen(failed), &l, err, sizeof err), 0);
    assert_true(isnan(l.m.value_ns));
    results_line_free(&l);
}

/* Text for an ingest error's document or object key: kept whole, never dropped as invalid
 * UTF-8 (jansson refuses such a string, and a NULL value would lose the key). */
static void text_never_dropped(void **state)
{
    (void)state;
    json_t *v = tool_json_text("docs/caf\xc3\xa9.json");
    assert_string_equal(json_string_value(v), "docs/caf\xc3\xa9.json");
    json_decref(v);
    /* a Latin-1 byte, a lone continuation byte, an overlong '/', a cut sequence */
    v = tool_json_text("a\xe9"
                       "b\x80"
                       "c\xc0\xaf"
                       "d\xe2\x82");
    assert_non_null(v);
    assert_string_equal(json_string_value(v), "a\xef\xbf\xbd"
                                              "b\xef\xbf\xbd"
                                              "c\xef\xbf\xbd\xef\xbf\xbd"
                                              "d\xef\xbf\xbd\xef\xbf\xbd");
    json_t *o = json_object();
    assert_int_equal(json_object_set_new(o, "document", v), 0);
    assert_non_null(json_object_get(o, "document"));
    json_decref(o);
}

/* Reads text with both readers (the tree's and record's, a few rows at a time): the same lines,
 * the same refused rows and the same count, which is returned. */
static long both_readers(const char *text, size_t *base, struct bench__text *out, json_t *rejected,
                         char *err, size_t err_size)
{
    struct results_record_info info = info_of();
    size_t base_tree = *base;
    struct bench__text tree_out = {0};
    json_t *tree_rejected = json_array();
    char tree_err[256] = "";
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
    size_t start = out->len, first = json_array_size(rejected);
    long n =
        results_doc_text_lines(text, strlen(text), 0, &info, base, out, rejected, err, err_size);
    if (doc) {
        long tree = results_doc_lines(doc, 0, &info, &base_tree, &tree_out, tree_rejected, tree_err,
                                      sizeof tree_err);
        assert_int_equal(tree, n);
        assert_int_equal(base_tree, *base);
        assert_int_equal(tree_out.len, out->len - start);
        assert_true(tree_out.len == 0 ||
                    memcmp(tree_out.data, out->data + start, tree_out.len) == 0);
        assert_int_equal(json_array_size(tree_rejected), json_array_size(rejected) - first);
        for (size_t k = 0; k < json_array_size(tree_rejected); k++)
            assert_true(
                json_equal(json_array_get(tree_rejected, k), json_array_get(rejected, first + k)));
        if (n < 0)
            assert_string_equal(tree_err, err);
    }
    json_decref(doc);
    json_decref(tree_rejected);
    free(tree_out.data);
    return n;
}

/* A document or a row without a field the reader needs: one reason each, never a crash (the
 * missing value once reached the JSON type-name helper as NULL). */
static void missing_fields(void **state)
{
    (void)state;
    static const struct {
        const char *doc, *reason;
        long rows_refused;
    } cases[] = {
        {"{\"schema\":2}", "\"meta\" is missing, not an object", -1},
        {"{\"schema\":2,\"meta\":{}}", "\"rows\" is missing, not an array", -1},
        {"{\"schema\":2,\"rows\":[]}", "\"meta\" is missing, not an object", -1},
        {"{\"schema\":2,\"meta\":{},\"rows\":[{\"error\":\"\"}]}", "\"name\" is missing", 1},
        {"{\"schema\":2,\"meta\":{},\"rows\":[{\"name\":\"a\"}]}", "\"error\" is missing", 1},
        {"{\"tool\":\"libbench run\",\"schema\":1,\"meta\":{\"runs\":1},\"rows\":[{\"command\":"
         "\"c\",\"runs\":[]}]}",
         "\"name\" is missing", 1},
        {"{\"tool\":\"libbench run\",\"schema\":1,\"meta\":{\"runs\":1},\"rows\":[{\"name\":"
         "\"c\",\"runs\":[]}]}",
         "\"command\" is missing", 1},
        {"{\"tool\":\"libbench run\",\"schema\":1,\"meta\":{\"runs\":1},\"rows\":[{\"name\":"
         "\"c\",\"command\":\"c\"}]}",
         "\"runs\" is missing", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *rejected = json_array();
        struct bench__text out = {0};
        size_t base = 0;
        char err[256] = "";
        long n = both_readers(cases[i].doc, &base, &out, rejected, err, sizeof err);
        const char *said = err;
        if (cases[i].rows_refused < 0) {
            assert_int_equal(n, -1);
        } else {
            assert_int_equal(n, 0);
            assert_int_equal(json_array_size(rejected), (size_t)cases[i].rows_refused);
            said = json_string_value(json_object_get(json_array_get(rejected, 0), "reason"));
            assert_non_null(json_object_get(json_array_get(rejected, 0), "value"));
        }
        if (!strstr(said, cases[i].reason))
            fail_msg("case %zu: <%s>, want <%s>", i, said, cases[i].reason);
        free(out.data);
        json_decref(rejected);
    }
}

/* A writer never writes what its reader refuses: lines that would take the object over the limit
 * refuse the document before they are written; a run over meta.runs is refused, not numbered into
 * an overflow. */
static void limits(void **state)
{
    (void)state;
    json_t *rejected = json_array();
    struct bench__text out = {0};
    size_t base = 0;
    char err[256] = "";
    /* two failed commands of meta.runs 1000000: 2 million skip lines, over 256 MiB */
    static const char big[] =
        "{\"tool\":\"libbench run\",\"schema\":1,\"meta\":{\"runs\":1000000},\"rows\":["
        "{\"name\":\"a\",\"command\":\"a\",\"runs\":[],\"failure\":{\"run\":1}},"
        "{\"name\":\"b\",\"command\":\"b\",\"runs\":[],\"failure\":{\"run\":1}}]}";
    bench__text_append("x\n", 2, &out); /* an earlier document's line: kept */
    assert_int_equal(both_readers(big, &base, &out, rejected, err, sizeof err), -1);
    assert_non_null(strstr(err, "larger than 256 MiB"));
    assert_int_equal(out.len, 2);
    assert_int_equal(base, 0);
    /* run numbers: from 1 to meta.runs; a failure past them (a warm-up's) after them */
    static const char runs[] =
        "{\"tool\":\"libbench run\",\"schema\":1,\"meta\":{\"runs\":2},\"rows\":["
        "{\"name\":\"a\",\"command\":\"a\",\"runs\":[{\"run\":9223372036854775807,"
        "\"wallNs\":1},{\"run\":3,\"wallNs\":1},{\"run\":2,\"wallNs\":1}]},"
        "{\"name\":\"w\",\"command\":\"w\",\"runs\":[],\"failure\":{\"run\":"
        "9223372036854775807,\"warmup\":true}}]}";
    out.len = 0;
    base = 5;
    long n = both_readers(runs, &base, &out, rejected, err, sizeof err);
    assert_int_equal(n, 4); /* a's run 2; w's failure, then a skip for each of its 2 runs */
    assert_int_equal(json_array_size(rejected), 2);
    assert_non_null(
        strstr(json_string_value(json_object_get(json_array_get(rejected, 0), "reason")),
               "from 1 to meta.runs (2)"));
    struct results_line l[4];
    assert_int_equal(read_lines(out.data, l, 4), 4);
    assert_int_equal(l[0].m.run, 6); /* base 5 + run 2 - 1 */
    assert_int_equal(l[1].m.run, 7); /* the failure after the 2 runs */
    assert_int_equal(l[1].m.returncode, 1);
    assert_int_equal(l[2].m.run, 5); /* its runs that never ran: skips */
    for (int i = 0; i < 4; i++)
        results_line_free(&l[i]);
    assert_int_equal(base, 7);
    free(out.data);
    json_decref(rejected);
}

/* Record's reader refuses a text that is not JSON whole, wherever the fault is, and reads the
 * members in any order (rows before meta). */
static void text_reader(void **state)
{
    (void)state;
    static const char *const not_json[] = {
        "{\"schema\":2,\"meta\":{},\"rows\":[{\"name\":\"a\",\"error\":\"\"},{\"name\":}]}",
        "{\"schema\":2,\"meta\":{},\"rows\":[],\"rows\":[]}",
        "{\"rows\":[{\"name\":\"a\\u0000\"}]}", /* refused as not JSON, not for a missing meta */
        "{\"schema\":2,\"meta\":{},\"rows\":[1 2]}",
        "{\"schema\":2,\"meta\":{},\"rows\":[]} x",
        "\"a string\"",
    };
    struct results_record_info info = info_of();
    for (size_t i = 0; i < sizeof not_json / sizeof *not_json; i++) {
        json_t *rejected = json_array();
        struct bench__text out = {0};
        size_t base = 0;
        char err[256] = "";
        assert_int_equal(results_doc_text_lines(not_json[i], strlen(not_json[i]), 0, &info, &base,
                                                &out, rejected, err, sizeof err),
                         -1);
        if (strncmp(err, "not JSON: ", 10) != 0)
            fail_msg("case %zu: <%s>", i, err);
        assert_int_equal(out.len, 0);
        assert_int_equal(json_array_size(rejected), 0);
        free(out.data);
        json_decref(rejected);
    }
    json_t *rejected = json_array();
    struct bench__text out = {0};
    size_t base = 0;
    char err[256] = "";
    static const char late_meta[] = "{\"rows\":[{\"name\":\"a\",\"medianNs\":1,\"error\":\"\"}],"
                                    "\"meta\":{\"hostname\":\"h\"},\"schema\":2}";
    assert_int_equal(both_readers(late_meta, &base, &out, rejected, err, sizeof err), 1);
    assert_non_null(strstr(out.data, "\"host\":\"h\""));
    free(out.data);
    json_decref(rejected);
    out = (struct bench__text){0};
    rejected = json_array();
    assert_int_equal(both_readers(BENCH_DOC, &base, &out, rejected, err, sizeof err), 3);
    assert_int_equal(both_readers(RUN_DOC, &base, &out, rejected, err, sizeof err), 6);
    free(out.data);
    json_decref(rejected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(time_stamp_and_parse),
        cmocka_unit_test(profile_names),
        cmocka_unit_test(sha256_and_keys),
        cmocka_unit_test(bench_document),
        cmocka_unit_test(run_document),
        cmocka_unit_test(line_facts),
        cmocka_unit_test(refused_documents),
        cmocka_unit_test(refused_lines),
        cmocka_unit_test(text_never_dropped),
        cmocka_unit_test(missing_fields),
        cmocka_unit_test(limits),
        cmocka_unit_test(text_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
