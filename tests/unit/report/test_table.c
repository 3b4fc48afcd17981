/* SPDX-License-Identifier: MIT */
/* test_table.c: exact-string goldens for bench__table_render (inventory 4.2: box drawing,
 * left/right/decimal alignment, title splice, notes wrap, carried widths), display width. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/table.h"
#include "report/term.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Goldens are derived from the layout rules: a cell is " <field> " between "│"; left
 * columns pad on the right, right columns on the left, headers of decimal columns are
 * right-aligned. In a decimal column every dotted cell puts its last '.' in the same
 * cell; a dotless cell ("—") ends just left of that dot column. The notes column is at
 * most 48 cells wide and wraps greedily at spaces (hard break inside a longer word);
 * continuation lines leave the other cells blank. Widths carried by a
 * bench__table_memory only widen and reset when the header row differs. */

#define LEFT BENCH__LEFT
#define RIGHT BENCH__RIGHT
#define DECIMAL BENCH__DECIMAL
#define EM "\xe2\x80\x94"

/* Render into a string (caller frees). `cells` is row-major, n_rows * n_columns. */
static char *render(const char *title, const struct bench__column *columns, size_t n_columns,
                    const char *const *cells, size_t n_rows, struct bench__table_memory *memory)
{
    size_t n = n_rows * n_columns;
    char **owned = calloc(n ? n : 1, sizeof *owned);
    assert_non_null(owned);
    for (size_t i = 0; i < n; i++) {
        owned[i] = strdup(cells[i]);
        assert_non_null(owned[i]);
    }
    struct bench__table table = {
        .title = title,
        .columns = columns,
        .n_columns = n_columns,
        .cells = owned,
        .n_rows = n_rows,
    };
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    bench__table_render(out, &table, memory);
    assert_int_equal(fclose(out), 0);
    for (size_t i = 0; i < n; i++)
        free(owned[i]);
    free(owned);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    return text;
}

static void check_render(const char *title, const struct bench__column *columns, size_t n_columns,
                         const char *const *cells, size_t n_rows, const char *want)
{
    struct bench__table_memory memory = {0};
    char *got = render(title, columns, n_columns, cells, n_rows, &memory);
    bool same = strcmp(got, want) == 0;
    if (!same)
        print_error("got:\n%s\nwant:\n%s\n", got, want);
    /* free before asserting: a failed assertion longjmps out of the test */
    free(got);
    bench__table_memory_free(&memory);
    assert_true(same);
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct bench__column timing_columns[] = {
    {"benchmark", LEFT}, {"n", RIGHT}, {"median/iter", RIGHT}, {"min", DECIMAL}, {"max", DECIMAL},
};

/* ---- flat tables ------------------------------------------------------------------------ */

static void test_flat_left_right_decimal(void **state)
{
    (void)state;
    static const char *const cells[] = {
        "a.short",
        "32×4096",
        "1.3µs ±5.00ns",
        "1.3µs",
        "1.4µs",
        "b.longer.name",
        "32",
        "11.48ns ±0.02ns",
        "11.21ns",
        "120.50ns",
        "c.err",
        EM,
        EM,
        EM,
        EM,
    };
    static const char want[] =
        "╭───────────────┬─────────┬─────────────────┬─────────┬──────────╮\n"
        "│ benchmark     │       n │     median/iter │     min │      max │\n"
        "┝━━━━━━━━━━━━━━━┿━━━━━━━━━┿━━━━━━━━━━━━━━━━━┿━━━━━━━━━┿━━━━━━━━━━┥\n"
        "│ a.short       │ 32×4096 │   1.3µs ±5.00ns │  1.3µs  │   1.4µs  │\n"
        "│ b.longer.name │      32 │ 11.48ns ±0.02ns │ 11.21ns │ 120.50ns │\n"
        "│ c.err         │       — │               — │  —      │   —      │\n"
        "╰───────────────┴─────────┴─────────────────┴─────────┴──────────╯\n";
    check_render(NULL, timing_columns, N_OF(timing_columns), cells, 3, want);
}

/* The inventory's first quoted table, rebuilt from its cells. */
static void test_flat_inventory_example(void **state)
{
    (void)state;
    static const char *const cells[] = {
        "medianOf.bench", "32×16777216", "11.48ns ±0.02ns", "11.41ns", "11.54ns",
    };
    static const char want[] =
        "╭────────────────┬─────────────┬─────────────────┬─────────┬─────────╮\n"
        "│ benchmark      │           n │     median/iter │     min │     max │\n"
        "┝━━━━━━━━━━━━━━━━┿━━━━━━━━━━━━━┿━━━━━━━━━━━━━━━━━┿━━━━━━━━━┿━━━━━━━━━┥\n"
        "│ medianOf.bench │ 32×16777216 │ 11.48ns ±0.02ns │ 11.41ns │ 11.54ns │\n"
        "╰────────────────┴─────────────┴─────────────────┴─────────┴─────────╯\n";
    check_render(NULL, timing_columns, N_OF(timing_columns), cells, 1, want);
}

static void test_header_wider_than_cells(void **state)
{
    (void)state;
    static const struct bench__column columns[] = {
        {"implementation", LEFT},
        {"n", RIGHT},
        {"a-much-wider-header", DECIMAL},
    };
    static const char *const cells[] = {
        "asdf", "1234", "1.5ms", "mir", "7", "12.25s",
    };
    static const char want[] = "╭────────────────┬──────┬─────────────────────╮\n"
                               "│ implementation │    n │ a-much-wider-header │\n"
                               "┝━━━━━━━━━━━━━━━━┿━━━━━━┿━━━━━━━━━━━━━━━━━━━━━┥\n"
                               "│ asdf           │ 1234 │               1.5ms │\n"
                               "│ mir            │    7 │              12.25s │\n"
                               "╰────────────────┴──────┴─────────────────────╯\n";
    check_render(NULL, columns, N_OF(columns), cells, 2, want);
}

/* The inventory's second quoted table: the title spliced into the top border. */
static void test_title_spliced_into_top_border(void **state)
{
    (void)state;
    static const struct bench__column columns[] = {
        {"implementation", LEFT}, {"n", RIGHT},     {"median/iter", RIGHT},
        {"min", DECIMAL},         {"max", DECIMAL}, {"B/s", DECIMAL},
    };
    static const char *const cells[] = {
        "asdf",    "42", "1.8ms ±236.8µs",  "1.5ms",  "11.0ms", "1.25G",
        "mir-ion", "32", "13.5ms ±451.2µs", "12.8ms", "45.3ms", "166.96M",
    };
    static const char want[] =
        "╭──╼ benchmark: canada/parse ╾──────────┬────────┬────────┬─────────╮\n"
        "│ implementation │  n │     median/iter │    min │    max │     B/s │\n"
        "┝━━━━━━━━━━━━━━━━┿━━━━┿━━━━━━━━━━━━━━━━━┿━━━━━━━━┿━━━━━━━━┿━━━━━━━━━┥\n"
        "│ asdf           │ 42 │  1.8ms ±236.8µs │  1.5ms │ 11.0ms │   1.25G │\n"
        "│ mir-ion        │ 32 │ 13.5ms ±451.2µs │ 12.8ms │ 45.3ms │ 166.96M │\n"
        "╰────────────────┴────┴─────────────────┴────────┴────────┴─────────╯\n";
    check_render("benchmark: canada/parse", columns, N_OF(columns), cells, 2, want);
}

/* ---- the notes column ------------------------------------------------------------------- */

static const struct bench__column notes_columns[] = {
    {"benchmark", LEFT},
    {"n", RIGHT},
    {"min", DECIMAL},
    {"notes", LEFT},
};

static void test_notes_wrap_at_a_space(void **state)
{
    (void)state;
    static const char *const cells[] = {
        "ok.bench",
        "32",
        "1.5µs",
        "",
        "bad.bench",
        EM,
        EM,
        "check failed: parse(input) == 0 at tests/bench_parse.c:42 after reading the fixtures",
    };
    static const char want[] =
        "╭───────────┬────┬───────┬──────────────────────────────────────────────────╮\n"
        "│ benchmark │  n │   min │ notes                                            │\n"
        "┝━━━━━━━━━━━┿━━━━┿━━━━━━━┿━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┥\n"
        "│ ok.bench  │ 32 │ 1.5µs │                                                  │\n"
        "│ bad.bench │  — │ —     │ check failed: parse(input) == 0 at               │\n"
        "│           │    │       │ tests/bench_parse.c:42 after reading the         │\n"
        "│           │    │       │ fixtures                                         │\n"
        "╰───────────┴────┴───────┴──────────────────────────────────────────────────╯\n";
    check_render(NULL, notes_columns, N_OF(notes_columns), cells, 2, want);
}

/* A word that ends exactly at cell 48 still fits on the line (a line may be 48 cells). */
static void test_notes_wrap_exact_fit_at_48(void **state)
{
    (void)state;
    static const char *const cells[] = {
        "ok.bench",  "32", "1.5µs", "",
        "bad.bench", EM,   EM,      "0123456789 0123456789 0123456789 0123456789 0123 tail",
    };
    static const char want[] =
        "╭───────────┬────┬───────┬──────────────────────────────────────────────────╮\n"
        "│ benchmark │  n │   min │ notes                                            │\n"
        "┝━━━━━━━━━━━┿━━━━┿━━━━━━━┿━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┥\n"
        "│ ok.bench  │ 32 │ 1.5µs │                                                  │\n"
        "│ bad.bench │  — │ —     │ 0123456789 0123456789 0123456789 0123456789 0123 │\n"
        "│           │    │       │ tail                                             │\n"
        "╰───────────┴────┴───────┴──────────────────────────────────────────────────╯\n";
    check_render(NULL, notes_columns, N_OF(notes_columns), cells, 2, want);
}

/* A word longer than 48 cells with no space is broken at 48. */
static void test_notes_hard_break_long_word(void **state)
{
    (void)state;
    static const char *const cells[] = {
        "ok.bench",  "32", "1.5µs", "",
        "bad.bench", EM,   EM,      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    };
    static const char want[] =
        "╭───────────┬────┬───────┬──────────────────────────────────────────────────╮\n"
        "│ benchmark │  n │   min │ notes                                            │\n"
        "┝━━━━━━━━━━━┿━━━━┿━━━━━━━┿━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┥\n"
        "│ ok.bench  │ 32 │ 1.5µs │                                                  │\n"
        "│ bad.bench │  — │ —     │ xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx │\n"
        "│           │    │       │ xxxxxxxxxxxx                                     │\n"
        "╰───────────┴────┴───────┴──────────────────────────────────────────────────╯\n";
    check_render(NULL, notes_columns, N_OF(notes_columns), cells, 2, want);
}

/* ---- widths carried across streamed tables ---------------------------------------------- */

static bool check_with_memory(const char *const *cells, const struct bench__column *columns,
                              struct bench__table_memory *memory, const char *want)
{
    char *got = render(NULL, columns, 3, cells, 1, memory);
    bool same = strcmp(got, want) == 0;
    if (!same)
        print_error("got:\n%s\nwant:\n%s\n", got, want);
    free(got);
    return same;
}

static void test_widths_carried_and_reset(void **state)
{
    (void)state;
    static const struct bench__column columns[] = {
        {"benchmark", LEFT},
        {"n", RIGHT},
        {"min", DECIMAL},
    };
    static const struct bench__column other_columns[] = {
        {"implementation", LEFT},
        {"n", RIGHT},
        {"min", DECIMAL},
    };
    static const char *const a[] = {"long.benchmark.name", "32×1048576", "11.21ns"};
    static const char *const b[] = {"b", "32×1073741824", "1.21ns"};
    static const char *const c[] = {"c", "32", "1.25ns"};
    static const char *const d[] = {"d", "1", "2.50ns"};
    static const char want_a[] = "╭─────────────────────┬────────────┬─────────╮\n"
                                 "│ benchmark           │          n │     min │\n"
                                 "┝━━━━━━━━━━━━━━━━━━━━━┿━━━━━━━━━━━━┿━━━━━━━━━┥\n"
                                 "│ long.benchmark.name │ 32×1048576 │ 11.21ns │\n"
                                 "╰─────────────────────┴────────────┴─────────╯\n";
    /* narrower name and min keep table A's widths; the wider n widens */
    static const char want_b[] = "╭─────────────────────┬───────────────┬─────────╮\n"
                                 "│ benchmark           │             n │     min │\n"
                                 "┝━━━━━━━━━━━━━━━━━━━━━┿━━━━━━━━━━━━━━━┿━━━━━━━━━┥\n"
                                 "│ b                   │ 32×1073741824 │  1.21ns │\n"
                                 "╰─────────────────────┴───────────────┴─────────╯\n";
    /* both earlier tables' widths hold */
    static const char want_d[] = "╭─────────────────────┬───────────────┬─────────╮\n"
                                 "│ benchmark           │             n │     min │\n"
                                 "┝━━━━━━━━━━━━━━━━━━━━━┿━━━━━━━━━━━━━━━┿━━━━━━━━━┥\n"
                                 "│ d                   │             1 │  2.50ns │\n"
                                 "╰─────────────────────┴───────────────┴─────────╯\n";
    /* a different header row starts afresh */
    static const char want_c[] = "╭────────────────┬────┬────────╮\n"
                                 "│ implementation │  n │    min │\n"
                                 "┝━━━━━━━━━━━━━━━━┿━━━━┿━━━━━━━━┥\n"
                                 "│ c              │ 32 │ 1.25ns │\n"
                                 "╰────────────────┴────┴────────╯\n";
    /* and switching back does not resurrect the old widths */
    static const char want_d_fresh[] = "╭───────────┬───┬────────╮\n"
                                       "│ benchmark │ n │    min │\n"
                                       "┝━━━━━━━━━━━┿━━━┿━━━━━━━━┥\n"
                                       "│ d         │ 1 │ 2.50ns │\n"
                                       "╰───────────┴───┴────────╯\n";
    struct bench__table_memory memory = {0};
    bool ok_a = check_with_memory(a, columns, &memory, want_a);
    bool ok_b = check_with_memory(b, columns, &memory, want_b);
    bool ok_d = check_with_memory(d, columns, &memory, want_d);
    bool ok_c = check_with_memory(c, other_columns, &memory, want_c);
    bool ok_d_fresh = check_with_memory(d, columns, &memory, want_d_fresh);
    bench__table_memory_free(&memory);
    assert_true(ok_a);
    assert_true(ok_b);
    assert_true(ok_d);
    assert_true(ok_c);
    assert_true(ok_d_fresh);
    assert_null(memory.signature);
    assert_null(memory.left);
    assert_null(memory.right);
    /* freeing twice (an already-empty memory) is harmless */
    bench__table_memory_free(&memory);
}

/* ---- display width ---------------------------------------------------------------------- */

static void test_display_width(void **state)
{
    (void)state;
    assert_int_equal(bench__display_width("", 0), 0);
    assert_int_equal(bench__display_width("abc", 3), 3);
    assert_int_equal(bench__display_width("abc", 2), 2);
    assert_int_equal(bench__display_width("\xc2\xb5", 2), 1);     /* µ U+00B5 */
    assert_int_equal(bench__display_width("\xe2\x94\x81", 3), 1); /* ━ U+2501 */
    assert_int_equal(bench__display_width("\xe2\x80\x94", 3), 1); /* — U+2014 */
    assert_int_equal(bench__display_width("\xc3\x97", 2), 1);     /* × U+00D7 */
    assert_int_equal(bench__display_width("1.3\xc2\xb5s", 6), 5);
    static const char cell[] = "1.3µs ±5.00ns";
    assert_int_equal(bench__display_width(cell, sizeof cell - 1), 13);
    static const char rule[] = "\xe2\x94\x9d\xe2\x94\x81\xe2\x94\x81\xe2\x94\xbf\xe2\x94\xa5";
    assert_int_equal(bench__display_width(rule, sizeof rule - 1), 5);
}

/* A name that does not fit is cut from the left behind U+2026, at a '.' when the tail keeps
 * one; one that fits is left alone. */
static void test_cut_left(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(bench__term_cut_left("pkg.mod.case", 12, out, sizeof out), "pkg.mod.case");
    assert_string_equal(bench__term_cut_left("pkg.mod.case", 11, out, sizeof out),
                        "\xe2\x80\xa6mod.case");
    assert_string_equal(bench__term_cut_left("pkg.mod.case", 9, out, sizeof out),
                        "\xe2\x80\xa6mod.case");
    assert_string_equal(bench__term_cut_left("pkg.mod.case", 8, out, sizeof out), "\xe2\x80\xa6"
                                                                                  "case");
    assert_string_equal(bench__term_cut_left("abcdefghij", 5, out, sizeof out), "\xe2\x80\xa6"
                                                                                "ghij");
    assert_string_equal(bench__term_cut_left("a.b.verylongname", 8, out, sizeof out), "\xe2\x80\xa6"
                                                                                      "ongname");
    /* a multi-byte character is never split */
    assert_string_equal(bench__term_cut_left("x\xc3\xa9\xc3\xa9\xc3\xa9", 3, out, sizeof out),
                        "\xe2\x80\xa6\xc3\xa9\xc3\xa9");
}

/* A row style wraps the whole row's lines (continuation lines too) and is reset before the
 * newline; rows without one and the borders are untouched. */
static void test_row_style(void **state)
{
    (void)state;
    const struct bench__column cols[] = {{"name", LEFT}, {"notes", LEFT}};
    const char *cells[] = {"a", "", "b", "x"};
    const char *styles[] = {NULL, "\033[31m"};
    char *owned[4];
    for (int i = 0; i < 4; i++)
        owned[i] = strdup(cells[i]);
    struct bench__table table = {
        .columns = cols, .n_columns = 2, .cells = owned, .n_rows = 2, .row_style = styles};
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    struct bench__table_memory memory = {0};
    bench__table_render(out, &table, &memory);
    fclose(out);
    assert_non_null(strstr(text, "\n\xe2\x94\x82 a    \xe2\x94\x82       \xe2\x94\x82\n"));
    assert_non_null(
        strstr(text, "\n\033[31m\xe2\x94\x82 b    \xe2\x94\x82 x     \xe2\x94\x82\033[0m\n"));
    bench__table_memory_free(&memory);
    free(text);
    for (int i = 0; i < 4; i++)
        free(owned[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_left_right_decimal),
        cmocka_unit_test(test_flat_inventory_example),
        cmocka_unit_test(test_header_wider_than_cells),
        cmocka_unit_test(test_title_spliced_into_top_border),
        cmocka_unit_test(test_notes_wrap_at_a_space),
        cmocka_unit_test(test_notes_wrap_exact_fit_at_48),
        cmocka_unit_test(test_notes_hard_break_long_word),
        cmocka_unit_test(test_widths_carried_and_reset),
        cmocka_unit_test(test_display_width),
        cmocka_unit_test(test_cut_left),
        cmocka_unit_test(test_row_style),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
