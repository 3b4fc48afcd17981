/* SPDX-License-Identifier: MIT */
/* test_collector.c: the supervised run's collector and its wire: events sent through the line
 * format give the same document byte for byte as the same events handed over directly (numbers
 * exact, NaN and infinities included); a row sent again from its slot replaces the first copy;
 * an abandoned case, body or workload becomes an error row or window with the item's last line
 * of output, and the next worker's resume state skips it; a worker lost between items draws what
 * it has and fails the run; a cell made by two workers is written once; a line that is no event is
 * refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bench/shim.h>

#include "entry/cli.h"
#include "bench/supervising/collector.h"
#include "bench/wire/decode.h"
#include "bench/wire/encode.h"
#include "suite/registry.h"

BENCHMARK(body_a)
{
}

BENCHMARK(body_b)
{
}

WORKLOAD(load_c)
{
}

/* ---- a run's fixtures -------------------------------------------------------------------------
 */

struct run {
    struct bench__config cfg;
    struct bench__suite suite;
    struct bench__collector *c;
    struct bench__sink sink; /* the collector's */
    char json[64];
    char json_arg[96]; /* the configuration points into it */
    bool wire;         /* events go through the line format */
};

static void run_open(struct run *r, bool wire, const char *extra)
{
    memset(r, 0, sizeof *r);
    r->wire = wire;
    snprintf(r->json, sizeof r->json, "/tmp/test_collector.XXXXXX");
    int fd = mkstemp(r->json);
    assert_true(fd >= 0);
    close(fd);
    snprintf(r->json_arg, sizeof r->json_arg, "--bench-json=%s", r->json);
    char *argv[] = {(char *)"prog", (char *)"--bench", r->json_arg, (char *)extra, NULL};
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&r->cfg, extra ? 4 : 3, argv, err, sizeof err), 0);
    assert_int_equal(bench__suite_load(&r->suite, NULL, err, sizeof err), 0);
    r->c = bench__collector_new(&r->cfg, &r->suite, 5, false);
    r->sink = bench__collector_sink(r->c);
}

static void run_close(struct run *r)
{
    bench__collector_free(r->c);
    bench__suite_free(&r->suite);
    bench__config_free(&r->cfg);
    unlink(r->json);
}

static size_t entry_named(const struct run *r, const char *name)
{
    for (size_t i = 0; i < r->suite.count; i++)
        if (!strcmp(r->suite.entries[i].test->name, name))
            return i;
    fail_msg("no entry %s", name);
    return 0;
}

/* A document's text (malloc'd). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, got, out);
    fclose(out);
    fclose(f);
    return text;
}

/* Where one event goes: the collector's sink, or (r->wire) an encoder writing into memory,
 * whose lines are then decoded into the collector's sink. */
struct out {
    char *buf;
    size_t len;
    struct bench__wire_out wire;
    struct bench__sink sink;
};

static const struct bench__sink *out_open(struct run *r, struct out *o)
{
    if (!r->wire)
        return &r->sink;
    memset(o, 0, sizeof *o);
    o->wire =
        (struct bench__wire_out){.f = open_memstream(&o->buf, &o->len), .fd = -1, .ack_fd = -1};
    assert_non_null(o->wire.f);
    o->sink = bench__wire_sink(&o->wire);
    return &o->sink;
}

/* Hand every line the encoder wrote to the collector. */
static void out_close(struct run *r, struct out *o)
{
    if (!r->wire)
        return;
    fclose(o->wire.f);
    for (char *line = o->buf, *end; line && *line; line = end + 1) {
        end = strchr(line, '\n');
        assert_non_null(end);
        assert_true(bench__wire_decode(&r->sink, line, (size_t)(end - line)) >= 0);
    }
    free(o->buf);
}

/* One event to the run, directly or through the line format (bench__sink_emit's arguments). */
#define SEND(r, ...)                                                                               \
    do {                                                                                           \
        struct out o_;                                                                             \
        const struct bench__sink *s_ = out_open(r, &o_);                                           \
        bench__sink_emit(s_, __VA_ARGS__);                                                         \
        out_close(r, &o_);                                                                         \
    } while (0)
#define SEND0(r, name)                                                                             \
    do {                                                                                           \
        struct out o_;                                                                             \
        const struct bench__sink *s_ = out_open(r, &o_);                                           \
        bench__sink_emit0(s_, name);                                                               \
        out_close(r, &o_);                                                                         \
    } while (0)

/* ---- the events of a small run, either way ----------------------------------------------------
 */

static const struct bench__column_desc col_instr = {
    "instructions", "instr", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "perf", true};
static const struct bench__column_desc col_items = {
    "items/s", "items/s", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "client", true};

static void send_columns(struct run *r)
{
    const struct bench__column_wire cols[] = {
        {"items/s", "items/s", "client", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, true},
        {"instructions", "instr", "perf", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, true},
    };
    const char *doc[] = {"items/s", "instructions"};
    const char *table[] = {"items/s", "instructions"};
    const char *wl[] = {"instructions"};
    SEND(r, columns, cols, 2, doc, 2, table, 2, wl, 1);
}

static void send_begin(struct run *r, enum bench__item item, size_t entry, const char *name,
                       const struct bench__kv *labels, size_t n_labels)
{
    SEND(r, begin, item, entry, name, labels, n_labels, 0, 1);
}

static void send_row(struct run *r, const struct bench__row *row, size_t slot)
{
    SEND(r, row, slot, row);
}

static void send_window(struct run *r, const struct bench__window *w)
{
    SEND(r, window, w);
}

static void send_entry(struct run *r, const char *type, size_t entry, size_t count)
{
    if (!strcmp(type, "body_end"))
        SEND(r, body_end, entry);
    else if (!strcmp(type, "body_table"))
        SEND(r, body_table, entry);
    else
        SEND(r, workload_end, entry, count);
}

static void send_facts(struct run *r)
{
    SEND(r, clock, 21.5);
    SEND(r, provenance, "allocator=\"libc\" ✓");
    SEND(r, rounds, 1);
}

static void send_done(struct run *r, int status)
{
    SEND0(r, workloads_done);
    SEND(r, done, status);
}

/* Numbers that a printf with too few digits, or a JSON writer without NaN, would change. */
static void small_run(struct run *r)
{
    size_t a = entry_named(r, "body_a"), c = entry_named(r, "load_c");
    send_columns(r);
    send_facts(r);
    send_begin(r, BENCH__ITEM_BODY, a, r->suite.entries[a].full_name, NULL, 0);
    struct bench__cell cells[] = {{&col_items, 0.1, false, 0}, {&col_instr, NAN, false, 2.25}};
    struct bench__row row = {
        .name = (char *)r->suite.entries[a].full_name,
        .source = (char *)r->suite.entries[a].full_name,
        .labels = NULL,
        .n_labels = 0,
        .state = BENCH__ROW_OK,
        .iterations = 1u << 20,
        .samples = 32,
        .stats = {1.0 / 3.0, 4.9406564584124654e-324, 1e-300, 1.7976931348623157e308},
        .cells = cells,
        .n_cells = 2,
        .count_iterations = 0,
        .error = (char *)"",
    };
    send_row(r, &row, 0); /* the timing, mid-body */
    cells[1].value = 123456789.125;
    cells[1].estimate = true;
    row.count_iterations = 1000;
    send_row(r, &row, 0); /* again, with its counters */
    struct bench__kv labels[] = {{(char *)"impl", (char *)"fast \"quoted\""},
                                 {(char *)"size", (char *)"ünïcode"},
                                 {(char *)"town", (char *)"M\xfcnchen"}}; /* Latin-1 */
    row.name = (char *)"r\xe9sum\xe9"; /* not UTF-8: the bytes cross as they are */
    row.labels = labels;
    row.n_labels = 3;
    row.stats = (struct bench__summary){22, 1, 20, INFINITY};
    send_row(r, &row, 1);
    send_entry(r, "body_end", a, 0);
    send_entry(r, "body_table", a, 0);
    send_begin(r, BENCH__ITEM_WORKLOAD, c, r->suite.entries[c].full_name, NULL, 0);
    struct bench__regime_stamp stamp = {true, BENCH_CACHE_COLD,   BENCH_CACHE_WARM, 0.0,
                                        NAN,  "tmpfs: never cold"};
    static const struct bench__total_desc instructions = {
        "perf", NULL, "instructions", "instr", "instr", BENCH__FORMAT_COUNT, true};
    static const struct bench__total_desc read_calls = {
        "syscalls", "named", "read", "sc:read", "syscalls:read", BENCH__FORMAT_COUNT, true};
    struct bench__total wtotals[] = {{&instructions, 42, false}, {&read_calls, 1.5, true}};
    struct bench__window_group wgroups[] = {{"perf", true, 0.5, 1}, {"syscalls", true, NAN, -1}};
    struct bench__window w = {
        .name = (char *)"test_collector.load_c/parse",
        .reps = 3,
        .state = BENCH__ROW_OK,
        .error = (char *)"",
        .wall = {1000.5, 600, 100, NAN, NAN, 300.5, "thread"},
        .psi_present = true,
        .psi = {0, 0, 1, 0, -0.0},
        .regime = &stamp,
        .totals = wtotals,
        .n_totals = 2,
        .groups = wgroups,
        .n_groups = 2,
        .note = (char *)"a note",
    };
    send_window(r, &w);
    send_entry(r, "workload_end", c, 1);
    send_done(r, 0);
}

/* The same events, handed over directly or through the line format: the same document. */
static void test_wire_is_exact(void **state)
{
    (void)state;
    struct run direct, wire;
    run_open(&direct, false, NULL);
    run_open(&wire, true, NULL);
    small_run(&direct);
    small_run(&wire);
    assert_int_equal(bench__collector_finish(direct.c), 1); /* a failure outside windows */
    assert_int_equal(bench__collector_finish(wire.c), 1);
    char *a = slurp(direct.json), *b = slurp(wire.json);
    assert_string_equal(a, b);
    /* the row sent twice is there once, with its counters */
    const char *rows = strstr(a, "\"rows\"");
    assert_non_null(rows);
    assert_null(strstr(rows, "\"instructions\": null"));
    assert_non_null(strstr(rows, "\"countIterations\": 1000"));
    /* repaired to U+FFFD by the document's writer only */
    assert_non_null(strstr(rows, "\"r\xef\xbf\xbdsum\xef\xbf\xbd\""));
    assert_non_null(strstr(rows, "\"M\xef\xbf\xbdnchen\""));
    assert_null(strstr(strstr(rows, "\"countIterations\": 1000") + 1, "test_collector.body_a"));
    /* a window's totals keep their own names, nesting, scale and userOnly across the wire */
    const char *windows = strstr(a, "\"windows\"");
    assert_non_null(windows);
    assert_non_null(strstr(windows, "\"perf\": {\n        \"instructions\": 42,\n"
                                    "        \"scale\": 0.5,\n        \"userOnly\": true\n"));
    assert_non_null(strstr(windows, "\"syscalls\": {\n        \"named\": {\n"
                                    "          \"read\": 1.5\n        },\n"
                                    "        \"scale\": null\n      }"));
    free(a);
    free(b);
    run_close(&direct);
    run_close(&wire);
}

/* The line format keeps every double to the bit (17 significant digits, NaN and infinities). */
static void test_wire_numbers(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    struct bench__wire_out wire = {.f = open_memstream(&buf, &len), .fd = -1, .ack_fd = -1};
    struct bench__sink sink = bench__wire_sink(&wire);
    struct bench__cell cells[] = {{&col_items, 123456789.125, true, 0.5},
                                  {&col_instr, NAN, false, 2.25}};
    struct bench__row row = {.name = (char *)"r",
                             .source = (char *)"s",
                             .stats = {1.0 / 3.0, 4.9406564584124654e-324, -INFINITY, INFINITY},
                             .cells = cells,
                             .n_cells = 2,
                             .contention = 0.1,
                             .error = (char *)""};
    bench__sink_emit(&sink, row, 7, &row);
    row.contention = NAN;
    bench__sink_emit(&sink, row, 8, &row);
    fclose(wire.f);
    assert_non_null(strstr(buf, "\"contention\":0.10000000000000001"));
    assert_non_null(strstr(buf, "\"contention\":null")); /* not measured travels as such */
    assert_non_null(strstr(buf, "0.33333333333333331"));
    assert_non_null(strstr(buf, "4.9406564584124654e-324"));
    assert_non_null(strstr(buf, "\"-inf\",\"inf\""));
    assert_non_null(strstr(buf, "[\"items/s\",123456789.125,true,0.5]"));
    assert_non_null(strstr(buf, "[\"instructions\",null,false,2.25]"));
    assert_non_null(strstr(buf, "\"slot\":7"));
    free(buf);
}

/* A case that crashed: its row names it, with its labels and its last line of output; the next
 * worker skips it; a body abandoned later gets its own row; the document is complete. */
static void test_abandoned_items(void **state)
{
    (void)state;
    struct run r;
    run_open(&r, true, NULL);
    size_t a = entry_named(&r, "body_a"), b = entry_named(&r, "body_b");
    size_t c = entry_named(&r, "load_c");
    send_columns(&r);
    send_begin(&r, BENCH__ITEM_BODY, a, r.suite.entries[a].full_name, NULL, 0);
    send_entry(&r, "body_end", a, 0);
    struct bench__kv labels[] = {{(char *)"impl", (char *)"slow"}};
    send_begin(&r, BENCH__ITEM_CASE, a, "decode", labels, 1);
    const char *out = "partial\nlast words\x01 here\n";
    bench__collector_output(r.c, true, out, strlen(out));
    assert_true(bench__collector_item_since(r.c) >= 0);
    assert_true(bench__collector_abandon(r.c, "killed by SIGSEGV"));
    assert_int_equal(bench__collector_item_since(r.c), -1);
    const struct bench__resume *res = bench__collector_resume(r.c);
    assert_true(res->active);
    assert_int_equal(res->n_skip_case, 1);
    char want_case[128];
    snprintf(want_case, sizeof want_case,
             "%s\x1e"
             "decode\x1fimpl=slow",
             r.suite.entries[a].full_name); /* the case of that body only */
    assert_string_equal(res->skip_case[0], want_case);
    assert_true(res->register_only[a]); /* its other cases are measured by the next worker */
    assert_false(res->skip_entry[a]);
    /* the next worker: body_b dies in its body, the workload hangs */
    send_begin(&r, BENCH__ITEM_BODY, b, r.suite.entries[b].full_name, NULL, 0);
    assert_true(
        bench__collector_abandon(r.c, "exited with status 0 before the benchmark finished"));
    res = bench__collector_resume(r.c);
    assert_true(res->skip_entry[b]);
    send_begin(&r, BENCH__ITEM_WORKLOAD, c, r.suite.entries[c].full_name, NULL, 0);
    assert_true(bench__collector_abandon(r.c, "timed out after 1 s"));
    res = bench__collector_resume(r.c);
    assert_true(res->skip_entry[c]);
    /* nothing in progress: nothing to charge */
    assert_false(bench__collector_abandon(r.c, "killed by SIGKILL"));
    send_done(&r, 0);
    assert_int_equal(bench__collector_finish(r.c), 1);
    char *doc = slurp(r.json);
    assert_non_null(strstr(doc, "\"error\": \"killed by SIGSEGV; last output: last words? here\""));
    assert_non_null(strstr(doc, "\"impl\": \"slow\""));
    assert_non_null(strstr(doc, "exited with status 0 before the benchmark finished\""));
    assert_non_null(strstr(doc, "\"error\": \"timed out after 1 s\""));
    free(doc);
    run_close(&r);
}

/* A body whose loop finished before it died: the loop's row stays, the error row is
 * "<name> (body)"; a worker lost between items: what came is drawn and written, the run fails. */
static void test_loop_row_kept_and_lost_worker(void **state)
{
    (void)state;
    struct run r;
    run_open(&r, true, NULL);
    size_t a = entry_named(&r, "body_a");
    send_columns(&r);
    send_begin(&r, BENCH__ITEM_BODY, a, r.suite.entries[a].full_name, NULL, 0);
    struct bench__row row = {
        .name = (char *)r.suite.entries[a].full_name,
        .source = (char *)r.suite.entries[a].full_name,
        .state = BENCH__ROW_OK,
        .iterations = 8,
        .samples = 32,
        .stats = {5, 0.5, 4, 9},
        .error = (char *)"",
    };
    send_row(&r, &row, 0);
    assert_true(bench__collector_abandon(r.c, "killed by SIGABRT"));
    bench__collector_resume(r.c);
    bench__collector_lost(r.c, "the measuring process exited with status 3 outside any benchmark "
                               "or workload");
    assert_false(bench__collector_finished(r.c));
    assert_int_equal(bench__collector_finish(r.c), 1);
    char *doc = slurp(r.json);
    char want[256];
    snprintf(want, sizeof want, "\"name\": \"%s (body)\"", r.suite.entries[a].full_name);
    assert_non_null(strstr(doc, want));
    assert_non_null(strstr(doc, "\"medianNs\": 5"));
    assert_non_null(strstr(doc, "\"incomplete\": \"the measuring process exited with status 3 "
                                "outside any benchmark or workload; the run stopped there\""));
    free(doc);
    run_close(&r);
}

/* Two workers that each made the same cell (neither knew the other's rows): the later row is an
 * error row under a free name, and stays one when its worker sends it again. */
static void test_one_cell_once(void **state)
{
    (void)state;
    struct run r;
    run_open(&r, true, NULL);
    size_t a = entry_named(&r, "body_a");
    send_columns(&r);
    struct bench__kv labels[] = {{(char *)"impl", (char *)"x"}};
    struct bench__row row = {
        .name = (char *)"shared",
        .source = (char *)r.suite.entries[a].full_name,
        .labels = labels,
        .n_labels = 1,
        .state = BENCH__ROW_OK,
        .iterations = 1,
        .samples = 32,
        .stats = {5, 0.5, 4, 9},
        .error = (char *)"",
    };
    send_begin(&r, BENCH__ITEM_CASE, a, "shared", labels, 1);
    send_row(&r, &row, 3);
    bench__collector_resume(r.c); /* a new worker: its slots start again */
    send_row(&r, &row, 3);
    send_row(&r, &row, 3); /* sent again by that worker */
    row.name = (char *)"shared (2)";
    send_row(&r, &row, 4); /* a case that really is named so */
    send_done(&r, 0);
    assert_int_equal(bench__collector_finish(r.c), 1);
    char *doc = slurp(r.json);
    const char *first = strstr(doc, "\"name\": \"shared\"");
    assert_non_null(first);
    assert_null(strstr(first + 1, "\"name\": \"shared\""));
    const char *second = strstr(doc, "\"name\": \"shared (2)\"");
    assert_non_null(second);
    assert_non_null(strstr(second, "is the cell of an earlier row of this run"));
    assert_null(strstr(second + 1, "\"name\": \"shared (2)\""));
    assert_non_null(strstr(doc, "\"name\": \"shared (2) (2)\""));
    free(doc);
    run_close(&r);
}

static void test_not_an_event(void **state)
{
    (void)state;
    struct run r;
    run_open(&r, true, NULL);
    assert_int_equal(bench__wire_decode(&r.sink, "hello", 5), -1);
    assert_int_equal(bench__wire_decode(&r.sink, "{\"t\":\"nonsense\"}", 16), -1);
    assert_int_equal(bench__wire_decode(&r.sink, "{\"t\":\"sync\"}", 12), BENCH__EVENT_sync);
    assert_int_equal(bench__wire_decode(&r.sink, "{\"t\":\"clock\",\"ns\":null}", 23),
                     BENCH__EVENT_clock);
    send_done(&r, 0);
    assert_int_equal(bench__collector_finish(r.c), 0);
    run_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wire_is_exact),
        cmocka_unit_test(test_wire_numbers),
        cmocka_unit_test(test_abandoned_items),
        cmocka_unit_test(test_loop_row_kept_and_lost_worker),
        cmocka_unit_test(test_one_cell_once),
        cmocka_unit_test(test_not_an_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
