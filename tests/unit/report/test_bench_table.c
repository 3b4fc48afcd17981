/* SPDX-License-Identifier: MIT */
/* test_bench_table.c: benchmark rows rendered as console tables (inventory 4.1-4.2), the
 * metric cell formats (inventory 3) and the per-call stop rule (inventory 2.1). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bench/measuring/sampler.h"
#include "model/grouping.h"
#include "report/bench_table.h"
#include "report/profile_table.h"
#include "util/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define EM "\xe2\x80\x94"     /* — U+2014 */
#define APPROX "\xe2\x89\x88" /* ≈ U+2248 */

/* Goldens follow the layout rules of inventory 4.2 (see test_table.c for the box
 * conventions): label/name columns left, n and median/iter right, min, max and metric
 * columns aligned on their last '.', a dotless cell ending just left of that dot; notes
 * left. Cell text follows 4.1 (timings) and 3 (metrics). Rows are rendered in the order
 * given: the renderer does not sort. */

/* ---- columns and rows built by hand -------------------------------------------------------- */

static const struct bench__column_desc col_bps = {.name = "B/s",
                                                  .header = "B/s",
                                                  .format = BENCH__FORMAT_COUNT,
                                                  .cls = BENCH__QUANTITATIVE,
                                                  .source = "client"};
static const struct bench__column_desc col_ipc = {.name = "ipc",
                                                  .header = "IPC",
                                                  .format = BENCH__FORMAT_RATIO,
                                                  .cls = BENCH__DIAGNOSTIC,
                                                  .source = "perf"};
static const struct bench__column_desc col_cycles = {.name = "cycles",
                                                     .header = "cycles/iter",
                                                     .format = BENCH__FORMAT_COUNT,
                                                     .cls = BENCH__DIAGNOSTIC,
                                                     .source = "perf"};

static struct bench__row ok_row(char *name, struct bench__kv *labels, size_t n_labels,
                                uint64_t iterations, size_t samples, double median, double mad,
                                double min, double max)
{
    struct bench__row r = {0};
    r.name = name;
    r.source = "suite.test";
    r.labels = labels;
    r.n_labels = n_labels;
    r.state = BENCH__ROW_OK;
    r.iterations = iterations;
    r.samples = samples;
    r.stats = (struct bench__summary){median, mad, min, max};
    r.error = "";
    return r;
}

static struct bench__row failed_row(char *name, struct bench__kv *labels, size_t n_labels,
                                    enum bench__row_state state, char *message)
{
    struct bench__row r = {0};
    r.name = name;
    r.source = "suite.test";
    r.labels = labels;
    r.n_labels = n_labels;
    r.state = state;
    r.iterations = 1;
    r.stats = (struct bench__summary){NAN, NAN, NAN, NAN};
    r.error = message;
    return r;
}

/* Render into a string (caller frees). */
static char *render(const struct bench__row *const *rows, size_t n,
                    const struct bench__column_desc *const *cols, size_t n_cols,
                    char *const *group_keys, size_t n_group_keys, const char *title)
{
    struct bench__table_memory memory = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    bench__bench_table_render(out, rows, n, cols, n_cols, group_keys, n_group_keys, title, &memory);
    assert_int_equal(fclose(out), 0);
    bench__table_memory_free(&memory);
    assert_non_null(text);
    return text;
}

static void check(const struct bench__row *const *rows, size_t n,
                  const struct bench__column_desc *const *cols, size_t n_cols,
                  char *const *group_keys, size_t n_group_keys, const char *title, const char *want)
{
    char *got = render(rows, n, cols, n_cols, group_keys, n_group_keys, title);
    bool same = strcmp(got, want) == 0;
    if (!same)
        print_error("got:\n%s\nwant:\n%s\n", got, want);
    free(got); /* before asserting: a failed assertion longjmps out of the test */
    assert_true(same);
}

/* ---- flat table ------------------------------------------------------------------------------ */

/* Label columns are the sorted union of the rows' keys (first seen: input, mode, impl); a
 * row without a key shows an empty cell. n is samples×iterations for a batched row and the
 * plain sample count for a per-call row; error and skip rows carry their message in notes
 * and an em dash in every numeric cell, even the n of an error row that took samples and a
 * stray metric cell. */
static void test_flat_table(void **state)
{
    (void)state;
    struct bench__kv l_asdf[] = {{"input", "canada"}, {"mode", "fast"}};
    struct bench__kv l_mir[] = {{"impl", "mir"}, {"input", "canada"}};
    struct bench__kv l_bad[] = {{"impl", "bad"}, {"input", "canada"}};
    struct bench__kv l_skip[] = {{"impl", "zz"}, {"input", "canada"}};
    struct bench__cell c_asdf[] = {{&col_bps, 1.25e9, false, 0}};
    struct bench__cell c_mir[] = {{&col_bps, 118400.0, false, 0}};
    struct bench__cell c_bad[] = {{&col_bps, 7.0, false, 0}};

    struct bench__row asdf = ok_row("parse.asdf", l_asdf, 2, 4096, 32, 1234.0, 5.0, 1200.0, 1300.0);
    asdf.cells = c_asdf;
    asdf.n_cells = 1;
    struct bench__row mir = ok_row("parse.mir", l_mir, 2, 1, 42, 11.48, 0.02, 11.41, 120.5);
    mir.cells = c_mir;
    mir.n_cells = 1;
    struct bench__row bad =
        failed_row("parse.bad", l_bad, 2, BENCH__ROW_ERROR, "check failed: x == 1");
    bad.samples = 5;
    bad.cells = c_bad;
    bad.n_cells = 1;
    struct bench__row skip =
        failed_row("parse.skip", l_skip, 2, BENCH__ROW_SKIPPED, "no perf counters");
    const struct bench__row *rows[] = {&asdf, &mir, &bad, &skip};
    const struct bench__column_desc *const cols[] = {&col_bps};

    static const char want[] = "╭──────┬────────┬──────┬────────────┬─────────┬─────────────────┬──"
                               "───────┬──────────┬─────────┬──────────────────────╮\n"
                               "│ impl │ input  │ mode │ benchmark  │       n │     median/iter │  "
                               "   min │      max │     B/s │ notes                │\n"
                               "┝━━━━━━┿━━━━━━━━┿━━━━━━┿━━━━━━━━━━━━┿━━━━━━━━━┿━━━━━━━━━━━━━━━━━┿━━"
                               "━━━━━━━┿━━━━━━━━━━┿━━━━━━━━━┿━━━━━━━━━━━━━━━━━━━━━━┥\n"
                               "│      │ canada │ fast │ parse.asdf │ 32×4096 │   1.2µs ±5.00ns │  "
                               "1.2µs  │   1.3µs  │   1.25G │                      │\n"
                               "│ mir  │ canada │      │ parse.mir  │      42 │ 11.48ns ±0.02ns │ "
                               "11.41ns │ 120.50ns │ 118.40k │                      │\n"
                               "│ bad  │ canada │      │ parse.bad  │       — │               — │  "
                               "—      │   —      │   —     │ check failed: x == 1 │\n"
                               "│ zz   │ canada │      │ parse.skip │       — │               — │  "
                               "—      │   —      │   —     │ no perf counters     │\n"
                               "╰──────┴────────┴──────┴────────────┴─────────┴─────────────────┴──"
                               "───────┴──────────┴─────────┴──────────────────────╯\n";
    check(rows, N_OF(rows), cols, N_OF(cols), NULL, 0, NULL, want);
}

/* Rendering neither frees nor changes the rows: render twice, same text. */
static void test_render_leaves_rows_alone(void **state)
{
    (void)state;
    struct bench__kv labels[] = {{"impl", "asdf"}};
    struct bench__cell cells[] = {{&col_bps, 233.0, false, 0}};
    struct bench__row row = ok_row("a", labels, 1, 8, 32, 110.0, 5.0, 100.0, 130.25);
    row.cells = cells;
    row.n_cells = 1;
    struct bench__row err = failed_row("e", NULL, 0, BENCH__ROW_ERROR, "boom");
    const struct bench__row *rows[] = {&row, &err};
    const struct bench__column_desc *const cols[] = {&col_bps};
    char *first = render(rows, 2, cols, 1, NULL, 0, NULL);
    char *second = render(rows, 2, cols, 1, NULL, 0, NULL);
    bool same = strcmp(first, second) == 0;
    free(first);
    free(second);
    assert_true(same);
    assert_string_equal(row.name, "a");
    assert_string_equal(row.labels[0].value, "asdf");
    assert_string_equal(err.error, "boom");
    assert_true(row.cells == cells);
}

/* ---- rows at the clock's resolution ------------------------------------------------------- */

/* The rule: one call per sample, a measured median at most 2 clock reads, a known clock cost. */
static void test_at_clock_resolution_rule(void **state)
{
    (void)state;
    struct bench__row r = ok_row("r", NULL, 0, 1, 1000, 60.0, 1.0, 20.0, 900.0);
    assert_true(bench__row_at_clock_resolution(&r, 30.0)); /* exactly 2x */
    assert_false(bench__row_at_clock_resolution(&r, 29.0));
    assert_false(bench__row_at_clock_resolution(&r, NAN)); /* no per-call cost measured */
    assert_false(bench__row_at_clock_resolution(&r, 0.0));
    r.iterations = 2; /* batched: one clock read per many calls */
    assert_false(bench__row_at_clock_resolution(&r, 30.0));
    struct bench__row e = failed_row("e", NULL, 0, BENCH__ROW_ERROR, "boom");
    assert_false(bench__row_at_clock_resolution(&e, 30.0));
    assert_true(bench__column_is_rate(&col_bps));
    assert_false(bench__column_is_rate(&col_cycles));
}

/* A marked row carries the double dagger on its median and on every rate derived from it (a
 * client column ending in /s), never on another metric; an unmarked row keeps the place blank;
 * one line under the table gives the reason. */
static void test_clock_resolution_marks(void **state)
{
    (void)state;
    struct bench__cell c_fast[] = {{&col_bps, 333.33e6, false, 0}, {&col_cycles, 4.0, false, 0}};
    struct bench__cell c_slow[] = {{&col_bps, 1.0e6, false, 0}, {&col_cycles, 40.0, false, 0}};
    struct bench__row fast = ok_row("fast", NULL, 0, 1, 1000, 30.0, 1.0, 20.0, 900.0);
    fast.cells = c_fast;
    fast.n_cells = 2;
    fast.at_clock_resolution = true;
    struct bench__row slow = ok_row("slow", NULL, 0, 1, 1000, 1000.0, 1.0, 990.0, 2000.0);
    slow.cells = c_slow;
    slow.n_cells = 2;
    const struct bench__row *rows[] = {&fast, &slow};
    const struct bench__column_desc *const cols[] = {&col_bps, &col_cycles};
    char *got = render(rows, 2, cols, 2, NULL, 0, NULL);
    char *fast_line = strstr(got, "\xe2\x94\x82 fast ");
    char *slow_line = strstr(got, "\xe2\x94\x82 slow ");
    char *note = strstr(got, "\xe2\x80\xa1 the marked row's median is within 2\xc3\x97 of one "
                             "clock read (meta.clockOverheadNs)");
    bool ok = fast_line && slow_line && note;
    if (ok) {
        *strchr(fast_line, '\n') = '\0';
        *strchr(slow_line, '\n') = '\0';
        ok = strstr(fast_line, "30.00ns \xc2\xb1"
                               "1.00ns \xe2\x80\xa1 ") &&
             strstr(fast_line, "333.33M \xe2\x80\xa1 ") && !strstr(fast_line, "4 \xe2\x80\xa1") &&
             !strstr(slow_line, "\xe2\x80\xa1") && strstr(slow_line, "1.00M   ");
    }
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);

    /* no marked row: no sign, no padding, no note */
    const struct bench__row *plain[] = {&slow};
    got = render(plain, 1, cols, 2, NULL, 0, NULL);
    ok = !strstr(got, "\xe2\x80\xa1") && strstr(got, "1.0\xc2\xb5s \xc2\xb1"
                                                     "1.00ns \xe2\x94\x82");
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);
}

/* ---- contention not measured --------------------------------------------------------------- */

/* A measured row whose contention could not be measured carries § where † would be, and one line
 * under the table gives the reason; a measured row and an error row carry none (issue 32, 6). */
static void test_contention_unmeasured_mark(void **state)
{
    (void)state;
    struct bench__row shortrow = ok_row("short", NULL, 0, 1, 1000, 70.0, 1.0, 60.0, 900.0);
    shortrow.contention = NAN;
    shortrow.contention_gap = BENCH__CONTENTION_SHORT;
    struct bench__row clean = ok_row("clean", NULL, 0, 64, 32, 500.0, 1.0, 490.0, 600.0);
    clean.contention = 0.01;
    struct bench__row failed = failed_row("failed", NULL, 0, BENCH__ROW_ERROR, "boom");
    failed.contention_gap = BENCH__CONTENTION_SHORT; /* stale: an error row is never marked */
    const struct bench__row *rows[] = {&shortrow, &clean, &failed};
    const struct bench__column_desc *const cols[] = {&col_bps};
    char *got = render(rows, 3, cols, 1, NULL, 0, NULL);
    char *short_line = strstr(got, "\xe2\x94\x82 short ");
    char *clean_line = strstr(got, "\xe2\x94\x82 clean ");
    char *failed_line = strstr(got, "\xe2\x94\x82 failed ");
    bool ok = short_line && clean_line && failed_line &&
              strstr(got, "\n\xc2\xa7 contention not measured (docs/explanation/contention.md): "
                          "the row's timing spanned under 20 clock ticks of the machine's CPU "
                          "time, too few to read\n");
    if (ok) {
        *strchr(short_line, '\n') = '\0';
        *strchr(clean_line, '\n') = '\0';
        *strchr(failed_line, '\n') = '\0';
        ok = strstr(short_line, "1.00ns \xc2\xa7 ") && !strstr(clean_line, "\xc2\xa7") &&
             !strstr(failed_line, "\xc2\xa7");
    }
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);

    /* unreadable: the other reason */
    shortrow.contention_gap = BENCH__CONTENTION_UNREADABLE;
    const struct bench__row *one[] = {&shortrow};
    got = render(one, 1, cols, 1, NULL, 0, NULL);
    ok = strstr(got, "\xc2\xa7 contention not measured (docs/explanation/contention.md): "
                     "/proc/stat or this process's CPU time could not be read\n") != NULL;
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);
}

/* ---- a profile's header --------------------------------------------------------------------- */

/* The text bench__profile_table_render writes for a row (the caller frees it). */
static char *profile_rendered(const struct bench__row *row)
{
    char *got = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&got, &len);
    assert_non_null(out);
    bench__profile_table_render(out, row);
    fclose(out);
    return got;
}

/* Every profile says whose it is by the row's full identity, its labels too: three inputs of one
 * case are three profiles, not one name three times (issue 32, point 11). */
static void test_profile_header_has_the_labels(void **state)
{
    (void)state;
    struct bench__kv labels[] = {{"input", "canada"}, {"size", "4k"}};
    struct bench__profile profile;
    memset(&profile, 0, sizeof profile);
    profile.unavailable = "no sampling here";
    struct bench__row row = ok_row("decompress", labels, 2, 1, 1000, 70.0, 1.0, 60.0, 900.0);
    row.profile = &profile;
    char *got = profile_rendered(&row);
    assert_string_equal(got, "profile of decompress {input=canada,size=4k}: not taken (no "
                             "sampling here)\n\n");
    free(got);
    row.n_labels = 0;
    got = profile_rendered(&row);
    assert_string_equal(got, "profile of decompress: not taken (no sampling here)\n\n");
    free(got);
}

/* The rate reached beside the rate asked, and the harness's share on a line of its own: its
 * samples of every sample of the pass, an em dash with the reason where it was not measured, and
 * where the pass took no sample (issue 32, point 13). */
static char *profile_text(const struct bench__profile *p)
{
    struct bench__row row = ok_row("tiny", NULL, 0, 1, 1000, 70.0, 1.0, 60.0, 900.0);
    row.profile = (struct bench__profile *)p;
    return profile_rendered(&row);
}

static void test_profile_harness_line(void **state)
{
    (void)state;
    struct bench__profile profile;
    memset(&profile, 0, sizeof profile);
    profile.event = "cpu-clock";
    profile.hz = 1000;
    profile.hz_reached = 987.4;
    profile.running_ns = 0.5e9;
    profile.iterations = 100;
    profile.samples = 300;
    profile.harness_samples = 100;
    char *got = profile_text(&profile);
    bool ok = strstr(got, "profile of tiny: 300 samples of cpu-clock, 987 Hz reached of the 1000 "
                          "Hz asked, over 0.500 s on CPU, 100 iterations\n") != NULL &&
              strstr(got, "\n  harness (libbench's own code): 100 of 400 samples, 25.0% of the "
                          "pass, not in the tables below\n") != NULL;
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);

    profile.hz_reached = NAN; /* the event's running time unread: the rate is not made up */
    profile.harness_unmeasured = "libbench is linked into the benchmark's own file";
    got = profile_text(&profile);
    ok =
        strstr(got, "300 samples of cpu-clock, \u2014 Hz reached of the 1000 Hz asked, ") != NULL &&
        strstr(got, "\n  harness (libbench's own code): \u2014 (libbench is linked into the "
                    "benchmark's own file)\n") != NULL;
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);

    profile.harness_unmeasured = NULL;
    profile.samples = profile.harness_samples = 0;
    got = profile_text(&profile);
    ok = strstr(got, "\n  harness (libbench's own code): \u2014 (no sample in the pass)\n") != NULL;
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);
}

/* ---- counts that include an empty bracket -------------------------------------------------- */

/* A count cell of a row counted one call per bracket carries U+207A, the other rows' cells of
 * that column keep its place blank, another column has no sign; one line under the table gives
 * what one empty bracket read (issue 32, point 3). */
static void test_bracket_marks(void **state)
{
    (void)state;
    struct bench__cell c_case[] = {{&col_bps, 1.0e6, false, 0},
                                   {&col_cycles, 4030.0, false, 2220.0}};
    struct bench__cell c_loop[] = {{&col_bps, 2.0e6, false, 0}, {&col_cycles, 40.0, false, 0}};
    struct bench__row per_call = ok_row("per_call", NULL, 0, 1, 1000, 1300.0, 1.0, 1200.0, 900e3);
    per_call.cells = c_case;
    per_call.n_cells = 2;
    struct bench__row loop = ok_row("loop", NULL, 0, 64, 32, 500.0, 1.0, 490.0, 600.0);
    loop.cells = c_loop;
    loop.n_cells = 2;
    const struct bench__row *rows[] = {&per_call, &loop};
    const struct bench__column_desc *const cols[] = {&col_bps, &col_cycles};
    char *got = render(rows, 2, cols, 2, NULL, 0, NULL);
    char *case_line = strstr(got, "\xe2\x94\x82 per_call ");
    char *loop_line = strstr(got, "\xe2\x94\x82 loop ");
    char *note = strstr(got, "\xe2\x81\xba counted one call per bracket: includes one empty "
                             "bracket per call (cycles/iter 2.22k), not subtracted");
    bool ok = case_line && loop_line && note;
    if (ok) {
        *strchr(case_line, '\n') = '\0';
        *strchr(loop_line, '\n') = '\0';
        ok = strstr(case_line, "4.03k \xe2\x81\xba ") && !strstr(loop_line, "\xe2\x81\xba") &&
             strstr(loop_line, "40   ") && !strstr(case_line, "1.00M \xe2\x81\xba");
    }
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);

    /* no cell includes a bracket: no sign, no note */
    const struct bench__row *plain[] = {&loop};
    got = render(plain, 1, cols, 2, NULL, 0, NULL);
    ok = !strstr(got, "\xe2\x81\xba");
    if (!ok)
        print_error("got:\n%s\n", got);
    free(got);
    assert_true(ok);
}

/* ---- grouped table ----------------------------------------------------------------------- */

/* The inventory's quoted grouped table, plus a non-grouped label key (threads) as a column;
 * the grouped keys (input, op) are not columns; the title comes from the group key. */
static void test_grouped_table(void **state)
{
    (void)state;
    struct bench__kv l_asdf[] = {{"input", "canada"}, {"op", "parse"}, {"threads", "1"}};
    struct bench__kv l_mir[] = {{"input", "canada"}, {"op", "parse"}, {"threads", "4"}};
    struct bench__cell c_asdf[] = {{&col_bps, 1.25e9, false, 0}};
    struct bench__cell c_mir[] = {{&col_bps, 166.96e6, false, 0}};
    struct bench__row asdf = ok_row("asdf", l_asdf, 3, 1, 42, 1.8e6, 236.8e3, 1.5e6, 11.0e6);
    asdf.cells = c_asdf;
    asdf.n_cells = 1;
    struct bench__row mir = ok_row("mir-ion", l_mir, 3, 16, 32, 13.5e6, 451.2e3, 12.8e6, 45.3e6);
    mir.cells = c_mir;
    mir.n_cells = 1;
    const struct bench__row *rows[] = {&asdf, &mir};
    const struct bench__column_desc *const cols[] = {&col_bps};
    char *keys[] = {"input", "op"};

    char *key = bench__group_key(&asdf, keys, 2);
    assert_non_null(key);
    char *title = bench__group_title(key);
    free(key);
    assert_string_equal(title, "canada/parse");

    static const char want[] =
        "╭──╼ benchmark: canada/parse ╾─────┬─────────────────┬────────┬────────┬─────────╮\n"
        "│ implementation │ threads │     n │     median/iter │    min │    max │     B/s │\n"
        "┝━━━━━━━━━━━━━━━━┿━━━━━━━━━┿━━━━━━━┿━━━━━━━━━━━━━━━━━┿━━━━━━━━┿━━━━━━━━┿━━━━━━━━━┥\n"
        "│ asdf           │ 1       │    42 │  1.8ms ±236.8µs │  1.5ms │ 11.0ms │   1.25G │\n"
        "│ mir-ion        │ 4       │ 32×16 │ 13.5ms ±451.2µs │ 12.8ms │ 45.3ms │ 166.96M │\n"
        "╰────────────────┴─────────┴───────┴─────────────────┴────────┴────────┴─────────╯\n";
    check(rows, N_OF(rows), cols, N_OF(cols), keys, 2, title, want);
    free(title);
}

/* The inventory's second quoted table exactly: every label key grouped, no notes column. */
static void test_grouped_inventory_example(void **state)
{
    (void)state;
    struct bench__kv labels[] = {{"input", "canada"}, {"op", "parse"}};
    struct bench__cell c_asdf[] = {{&col_bps, 1.25e9, false, 0}};
    struct bench__cell c_mir[] = {{&col_bps, 166.96e6, false, 0}};
    struct bench__row asdf = ok_row("asdf", labels, 2, 1, 42, 1.8e6, 236.8e3, 1.5e6, 11.0e6);
    asdf.cells = c_asdf;
    asdf.n_cells = 1;
    struct bench__row mir = ok_row("mir-ion", labels, 2, 1, 32, 13.5e6, 451.2e3, 12.8e6, 45.3e6);
    mir.cells = c_mir;
    mir.n_cells = 1;
    const struct bench__row *rows[] = {&asdf, &mir};
    const struct bench__column_desc *const cols[] = {&col_bps};
    char *keys[] = {"input", "op"};
    static const char want[] =
        "╭──╼ benchmark: canada/parse ╾──────────┬────────┬────────┬─────────╮\n"
        "│ implementation │  n │     median/iter │    min │    max │     B/s │\n"
        "┝━━━━━━━━━━━━━━━━┿━━━━┿━━━━━━━━━━━━━━━━━┿━━━━━━━━┿━━━━━━━━┿━━━━━━━━━┥\n"
        "│ asdf           │ 42 │  1.8ms ±236.8µs │  1.5ms │ 11.0ms │   1.25G │\n"
        "│ mir-ion        │ 32 │ 13.5ms ±451.2µs │ 12.8ms │ 45.3ms │ 166.96M │\n"
        "╰────────────────┴────┴─────────────────┴────────┴────────┴─────────╯\n";
    check(rows, N_OF(rows), cols, N_OF(cols), keys, 2, "canada/parse", want);
}

/* ---- which columns appear ------------------------------------------------------------------ */

/* No failing row: no notes column. IPC is offered but no row has an IPC cell: no IPC
 * column. B/s is held by one row: the other shows an em dash (dotless, plain right here
 * since no B/s cell has a dot). */
static void test_columns_only_when_used(void **state)
{
    (void)state;
    /* a source column always shows (em dashes where nothing was measured); a client column
     * only in tables whose rows have it */
    struct bench__cell c_a[] = {{&col_bps, 233.0, false, 0}};
    struct bench__row a = ok_row("a", NULL, 0, 1, 32, 110.0, 5.0, 100.0, 130.25);
    a.cells = c_a;
    a.n_cells = 1;
    struct bench__row b = ok_row("b", NULL, 0, 1, 32, 2000.0, 10.0, 1900.0, 2500.0);
    const struct bench__row *rows[] = {&a, &b};
    const struct bench__column_desc *const cols[] = {&col_bps, &col_ipc};
    static const char want[] =
        "╭───────────┬────┬──────────────────┬──────────┬──────────┬─────┬─────╮\n"
        "│ benchmark │  n │      median/iter │      min │      max │ B/s │ IPC │\n"
        "┝━━━━━━━━━━━┿━━━━┿━━━━━━━━━━━━━━━━━━┿━━━━━━━━━━┿━━━━━━━━━━┿━━━━━┿━━━━━┥\n"
        "│ a         │ 32 │ 110.00ns ±5.00ns │ 100.00ns │ 130.25ns │ 233 │   — │\n"
        "│ b         │ 32 │   2.0µs ±10.00ns │   1.9µs  │   2.5µs  │   — │   — │\n"
        "╰───────────┴────┴──────────────────┴──────────┴──────────┴─────┴─────╯\n";
    check(rows, N_OF(rows), cols, N_OF(cols), NULL, 0, NULL, want);

    /* no client cell anywhere: no client column, but the source column stays */
    struct bench__row c = ok_row("c", NULL, 0, 1, 32, 110.0, 5.0, 100.0, 130.25);
    const struct bench__row *plain[] = {&c};
    static const char want_plain[] =
        "╭───────────┬────┬──────────────────┬──────────┬──────────┬─────╮\n"
        "│ benchmark │  n │      median/iter │      min │      max │ IPC │\n"
        "┝━━━━━━━━━━━┿━━━━┿━━━━━━━━━━━━━━━━━━┿━━━━━━━━━━┿━━━━━━━━━━┿━━━━━┥\n"
        "│ c         │ 32 │ 110.00ns ±5.00ns │ 100.00ns │ 130.25ns │   — │\n"
        "╰───────────┴────┴──────────────────┴──────────┴──────────┴─────╯\n";
    check(plain, 1, cols, N_OF(cols), NULL, 0, NULL, want_plain);
}

/* Estimate cells carry a leading ≈ (ratio and count formats); metric columns come in the
 * order of `cols`. */
static void test_estimate_cells(void **state)
{
    (void)state;
    struct bench__cell c_a[] = {{&col_cycles, 1.25e9, true, 0}, {&col_ipc, 4.012, true, 0}};
    struct bench__cell c_b[] = {{&col_ipc, 0.5, false, 0}, {&col_cycles, 3.37, false, 0}};
    struct bench__row a = ok_row("a", NULL, 0, 1, 32, 110.0, 5.0, 100.0, 130.25);
    a.cells = c_a;
    a.n_cells = 2;
    struct bench__row b = ok_row("b", NULL, 0, 2, 32, 2000.0, 10.0, 1900.0, 2500.0);
    b.cells = c_b;
    b.n_cells = 2;
    const struct bench__row *rows[] = {&a, &b};
    const struct bench__column_desc *const cols[] = {&col_ipc, &col_cycles};
    static const char want[] =
        "╭───────────┬──────┬──────────────────┬──────────┬──────────┬───────┬─────────────╮\n"
        "│ benchmark │    n │      median/iter │      min │      max │   IPC │ cycles/iter │\n"
        "┝━━━━━━━━━━━┿━━━━━━┿━━━━━━━━━━━━━━━━━━┿━━━━━━━━━━┿━━━━━━━━━━┿━━━━━━━┿━━━━━━━━━━━━━┥\n"
        "│ a         │   32 │ 110.00ns ±5.00ns │ 100.00ns │ 130.25ns │ ≈4.01 │      ≈1.25G │\n"
        "│ b         │ 32×2 │   2.0µs ±10.00ns │   1.9µs  │   2.5µs  │  0.50 │       3.37  │\n"
        "╰───────────┴──────┴──────────────────┴──────────┴──────────┴───────┴─────────────╯\n";
    check(rows, N_OF(rows), cols, N_OF(cols), NULL, 0, NULL, want);
}

/* ---- bench__format_metric ---------------------------------------------------------------- */

struct metric_case {
    double value;
    enum bench__format format;
    bool estimate;
    const char *want;
};

#define COUNT BENCH__FORMAT_COUNT
#define RATIO BENCH__FORMAT_RATIO
#define PERCENT BENCH__FORMAT_PERCENT

static void test_format_metric(void **state)
{
    (void)state;
    const struct metric_case cases[] = {
        /* count: %.3g below 1000 */
        {0.0, COUNT, false, "0"},
        {233.0, COUNT, false, "233"},
        {3.37, COUNT, false, "3.37"},
        {0.0001, COUNT, false, "0.0001"},
        {1e-05, COUNT, false, "1e-05"},
        {999.4, COUNT, false, "999"},
        {-0.0001, COUNT, false, "-0.0001"},
        /* count: SI-scaled %.2f from 1000 up, on |v| */
        {1000.0, COUNT, false, "1.00k"},
        {118400.0, COUNT, false, "118.40k"},
        {999999.0, COUNT, false, "1000.00k"}, /* scale chosen on the value, not the rounding */
        {1e6, COUNT, false, "1.00M"},
        {166.96e6, COUNT, false, "166.96M"},
        {1.25e9, COUNT, false, "1.25G"},
        {1e12, COUNT, false, "1.00T"},
        {2.5e15, COUNT, false, "2500.00T"},
        {-1500.0, COUNT, false, "-1.50k"},
        /* NaN: an em dash, whatever the format, estimate or not */
        {NAN, COUNT, false, EM},
        {NAN, RATIO, false, EM},
        {NAN, PERCENT, false, EM},
        {NAN, COUNT, true, EM},
        /* estimates: a leading ≈ */
        {1.25e9, COUNT, true, APPROX "1.25G"},
        {233.0, COUNT, true, APPROX "233"},
        {4.012, RATIO, true, APPROX "4.01"},
        {12.0, PERCENT, true, APPROX "12.00%"},
        /* ratio %.2f, percent %.2f% (12.345 is 12.34500000000000064 as a double) */
        {4.012, RATIO, false, "4.01"},
        {0.5, RATIO, false, "0.50"},
        {1234.5678, RATIO, false, "1234.57"}, /* ratios are never SI-scaled */
        {12.345, PERCENT, false, "12.35%"},
        {0.0, PERCENT, false, "0.00%"},
        {100.0, PERCENT, false, "100.00%"},
    };
    size_t failures = 0;
    for (size_t i = 0; i < N_OF(cases); i++) {
        char buf[64];
        memset(buf, 'X', sizeof buf);
        bench__format_metric(cases[i].value, cases[i].format, cases[i].estimate, buf, sizeof buf);
        if (strcmp(buf, cases[i].want) != 0) {
            failures++;
            print_error("format_metric(%.17g, format %d, estimate %d): got \"%s\", want \"%s\"\n",
                        cases[i].value, (int)cases[i].format, (int)cases[i].estimate, buf,
                        cases[i].want);
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- bench__per_call_continue ------------------------------------------------------------ */

/* A fake clock: the ns the i-th timed call measures. */
enum clock_kind { FIXED, STALLED, SLOW_FIRST, TICK_EVERY_16, ZERO_THEN_FIXED, SLOW_TENTH };

struct call_case {
    const char *what;
    enum clock_kind clock;
    int64_t ns; /* per call (FIXED, ZERO_THEN_FIXED), the slow call, the tick */
    int64_t budget_ns;
    uint64_t pin;
    size_t want; /* number of timed calls taken */
};

static int64_t fake_clock(const struct call_case *c, size_t i)
{
    switch (c->clock) {
    case FIXED: return c->ns;
    case STALLED: return 0;
    case SLOW_FIRST: return i == 0 ? c->ns : 10;
    case TICK_EVERY_16: return i % 16 == 15 ? c->ns : 0;
    case ZERO_THEN_FIXED: return i < 40 ? 0 : c->ns;
    case SLOW_TENTH: return i == 10 ? 4 * 1000000 : c->ns; /* one call preempted for 4 ms */
    }
    return 0;
}

#define MAX_CALLS 1000000u

static size_t run_calls(const struct call_case *c)
{
    size_t n = 0;
    int64_t total = 0;
    while (n < MAX_CALLS && bench__per_call_continue(n, total, c->budget_ns, c->pin)) {
        total += fake_clock(c, n);
        n++;
    }
    return n;
}

#define MS 1000000
static const struct call_case call_cases[] = {
    /* pinned: exactly N, whatever the clock says */
    {"pinned 7, slow calls", FIXED, 1000 * MS, 5 * MS, 7, 7},
    {"pinned 1", FIXED, 100, 5 * MS, 1, 1},
    {"pinned 100, fast calls below the budget", FIXED, 100, 5 * MS, 100, 100},
    {"pinned 50, stalled clock", STALLED, 0, 5 * MS, 50, 50},
    {"pinned 10, stalled clock (fewer than 32)", STALLED, 0, 5 * MS, 10, 10},
    /* unpinned: at least 1000 calls and at least the budget */
    {"100 us calls: budget reached after 50, still 1000", FIXED, 100000, 5 * MS, 0, 1000},
    {"1 ms calls: budget reached at 5, still 1000", FIXED, MS, 5 * MS, 0, 1000},
    {"fast calls below the budget continue", FIXED, 100, 5 * MS, 0, 50000},
    {"4.7 us calls: the budget's 1064", FIXED, 4700, 5 * MS, 0, 1064},
    {"4.7 us calls, one preempted for 4 ms: still 1000", SLOW_TENTH, 4700, 5 * MS, 0, 1000},
    {"slow first call over budget still continues to 1000", SLOW_FIRST, 1000 * MS, 5 * MS, 0, 1000},
    {"stalled clock stops at 32", STALLED, 0, 5 * MS, 0, 32},
    {"zero for the first 40 calls: total still 0 at 32", ZERO_THEN_FIXED, MS, 5 * MS, 0, 32},
    {"coarse clock ticking every 16th call is not a stall", TICK_EVERY_16, MS, 5 * MS, 0, 1000},
    {"zero budget: 1000 calls", FIXED, 100, 0, 0, 1000},
};

static void test_per_call_stop_rule(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t i = 0; i < N_OF(call_cases); i++) {
        size_t got = run_calls(&call_cases[i]);
        if (got != call_cases[i].want) {
            failures++;
            print_error("per-call case '%s': %zu calls, want %zu\n", call_cases[i].what, got,
                        call_cases[i].want);
        }
    }
    assert_int_equal(failures, 0);
}

/* The rule at its edges, point by point. */
static void test_per_call_edges(void **state)
{
    (void)state;
    const int64_t budget = 5 * MS;
    assert_true(bench__per_call_continue(0, 0, budget, 0));
    assert_true(bench__per_call_continue(31, 0, budget, 0));           /* < 32 calls */
    assert_true(bench__per_call_continue(31, 10 * budget, budget, 0)); /* < 32 calls */
    assert_false(bench__per_call_continue(32, 0, budget, 0));          /* stalled */
    assert_false(bench__per_call_continue(1000, 0, budget, 0));        /* stalled */
    assert_true(bench__per_call_continue(32, 1, budget, 0));           /* moving, below budget */
    assert_true(bench__per_call_continue(32, budget - 1, budget, 0));
    assert_true(bench__per_call_continue(32, budget, budget, 0)); /* the budget, < 1000 calls */
    assert_true(bench__per_call_continue(999, 10 * budget, budget, 0));
    assert_true(bench__per_call_continue(1000, budget - 1, budget, 0));
    assert_false(bench__per_call_continue(1000, budget, budget, 0)); /* both reached */
    assert_false(bench__per_call_continue(1001, budget + 1, budget, 0));
    /* pinned */
    assert_true(bench__per_call_continue(0, 0, budget, 3));
    assert_true(bench__per_call_continue(2, 10 * budget, budget, 3));
    assert_false(bench__per_call_continue(3, 0, budget, 3));
    assert_true(bench__per_call_continue(40, 0, budget, 64)); /* no stall escape when pinned */
    assert_false(bench__per_call_continue(64, 0, budget, 64));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_table),
        cmocka_unit_test(test_render_leaves_rows_alone),
        cmocka_unit_test(test_at_clock_resolution_rule),
        cmocka_unit_test(test_clock_resolution_marks),
        cmocka_unit_test(test_bracket_marks),
        cmocka_unit_test(test_profile_header_has_the_labels),
        cmocka_unit_test(test_profile_harness_line),
        cmocka_unit_test(test_contention_unmeasured_mark),
        cmocka_unit_test(test_grouped_table),
        cmocka_unit_test(test_grouped_inventory_example),
        cmocka_unit_test(test_columns_only_when_used),
        cmocka_unit_test(test_estimate_cells),
        cmocka_unit_test(test_format_metric),
        cmocka_unit_test(test_per_call_stop_rule),
        cmocka_unit_test(test_per_call_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
