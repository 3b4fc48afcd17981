/* SPDX-License-Identifier: MIT */
/* test_grouping.c: streaming group keys and table titles of --group-by, the --sort-by key
 * check, and the order of rows within one table (inventory 1.4, 4.2, trap 15). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "model/grouping.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define SEP "\x1f"

/* ---- rows built by hand ------------------------------------------------------------------ */

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
static const struct bench__column_desc col_instr = {.name = "instr",
                                                    .header = "instr/iter",
                                                    .format = BENCH__FORMAT_COUNT,
                                                    .cls = BENCH__DIAGNOSTIC,
                                                    .source = "perf"};
static const struct bench__column_desc col_futex = {.name = "syscalls:futex",
                                                    .header = "sc:futex",
                                                    .format = BENCH__FORMAT_COUNT,
                                                    .cls = BENCH__QUANTITATIVE,
                                                    .source = "syscall"};

static struct bench__row labelled_row(struct bench__kv *labels, size_t n_labels)
{
    struct bench__row row = {0};
    row.name = "case";
    row.source = "suite.test";
    row.labels = labels;
    row.n_labels = n_labels;
    row.error = "";
    return row;
}

/* ---- bench__group_key -------------------------------------------------------------------- */

static void check_key(const struct bench__row *row, char *const *keys, size_t n_keys,
                      const char *want)
{
    char *got = bench__group_key(row, keys, n_keys);
    assert_non_null(got);
    bool same = strcmp(got, want) == 0;
    if (!same)
        print_error("group key: got \"%s\", want \"%s\"\n", got, want);
    free(got);
    assert_true(same);
}

static void test_group_key_values_and_missing(void **state)
{
    (void)state;
    struct bench__kv labels[] = {{"impl", "asdf"}, {"input", "canada"}, {"op", "parse"}};
    struct bench__row row = labelled_row(labels, N_OF(labels));

    char *one[] = {"input"};
    check_key(&row, one, 1, "=canada");

    char *two[] = {"input", "op"};
    check_key(&row, two, 2, "=canada" SEP "=parse");

    /* keys keep the order they were given in, not the labels' order */
    char *reversed[] = {"op", "input"};
    check_key(&row, reversed, 2, "=parse" SEP "=canada");

    /* a missing value is "!" */
    char *with_missing[] = {"input", "threads"};
    check_key(&row, with_missing, 2, "=canada" SEP "!");
    char *missing_first[] = {"threads", "impl"};
    check_key(&row, missing_first, 2, "!" SEP "=asdf");

    char *none[] = {"threads", "cpu"};
    check_key(&row, none, 2, "!" SEP "!");

    /* a row without labels */
    struct bench__row bare = labelled_row(NULL, 0);
    char *three[] = {"impl", "input", "op"};
    check_key(&bare, three, 3, "!" SEP "!" SEP "!");
    check_key(&bare, one, 1, "!");

    /* no keys at all: the empty key */
    check_key(&row, NULL, 0, "");
}

/* ---- bench__group_title ------------------------------------------------------------------ */

static void check_title(const char *key, const char *want)
{
    char *buf = bench__group_title(key);
    if (strcmp(buf, want) != 0)
        print_error("title of key \"%s\": got \"%s\", want \"%s\"\n", key, buf, want);
    assert_string_equal(buf, want);
    free(buf);
}

static void test_group_title(void **state)
{
    (void)state;
    check_title("=canada" SEP "=parse", "canada/parse");
    check_title("=canada", "canada");
    check_title("=canada" SEP "!", "canada/?");
    check_title("!" SEP "=parse", "?/parse");
    check_title("=a" SEP "!" SEP "=c", "a/?/c");
    check_title("!" SEP "!", "(unlabeled)");
    check_title("!", "(unlabeled)");
    check_title("!" SEP "!" SEP "!", "(unlabeled)");
    /* values may hold '/', '=', '!' themselves; only the leading marker is structure */
    check_title("=x=1" SEP "=!y", "x=1/!y");
}

/* group_key then group_title: the title the table is printed under */
static void test_group_title_of_a_row(void **state)
{
    (void)state;
    struct bench__kv labels[] = {{"impl", "asdf"}, {"input", "canada"}, {"op", "parse"}};
    struct bench__row row = labelled_row(labels, N_OF(labels));
    struct {
        char *keys[3];
        size_t n;
        const char *want;
    } cases[] = {
        {{"input", "op"}, 2, "canada/parse"},
        {{"op", "input"}, 2, "parse/canada"},
        {{"input", "threads"}, 2, "canada/?"},
        {{"threads", "cpu"}, 2, "(unlabeled)"},
        {{"impl"}, 1, "asdf"},
    };
    for (size_t i = 0; i < N_OF(cases); i++) {
        char *key = bench__group_key(&row, cases[i].keys, cases[i].n);
        assert_non_null(key);
        char *buf = bench__group_title(key);
        free(key);
        assert_string_equal(buf, cases[i].want);
        free(buf);
    }
}

/* Streaming order: keys ascend, a missing value before any value, tuple-wise. */
static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_group_keys_ascend_missing_first(void **state)
{
    (void)state;
    /* rows given out of order; the expected tuple order is in `rank` */
    struct bench__kv l0[] = {{"input", "canada"}, {"op", "parse"}};
    struct bench__kv l1[] = {{"op", "parse"}};                 /* input missing */
    struct bench__kv l2[] = {{"input", "canada"}};             /* op missing */
    struct bench__kv l3[] = {{"input", "can"}, {"op", "zzz"}}; /* prefix of canada */
    struct bench__kv l4[] = {{"input", "!bang"}, {"op", "a"}}; /* value starting with ! */
    struct bench__kv l5[] = {{"input", "canada"}, {"op", "dump"}};
    struct bench__row rows[] = {
        labelled_row(l0, N_OF(l0)), labelled_row(l1, N_OF(l1)), labelled_row(l2, N_OF(l2)),
        labelled_row(l3, N_OF(l3)), labelled_row(l4, N_OF(l4)), labelled_row(l5, N_OF(l5)),
        labelled_row(NULL, 0),
    };
    char *keys[] = {"input", "op"};
    char *got[N_OF(rows)];
    for (size_t i = 0; i < N_OF(rows); i++) {
        got[i] = bench__group_key(&rows[i], keys, 2);
        assert_non_null(got[i]);
    }
    char *sorted[N_OF(rows)];
    memcpy(sorted, got, sizeof got);
    qsort(sorted, N_OF(rows), sizeof sorted[0], compare_keys);
    /* (?,?) (?,parse) (!bang,a) (can,zzz) (canada,?) (canada,dump) (canada,parse) */
    const size_t want[] = {6, 1, 4, 3, 2, 5, 0};
    bool same = true;
    for (size_t i = 0; i < N_OF(rows); i++)
        same &= sorted[i] == got[want[i]];
    for (size_t i = 0; i < N_OF(rows); i++)
        free(got[i]);
    assert_true(same);
}

/* ---- bench__sort_key_known --------------------------------------------------------------- */

static void test_sort_key_known(void **state)
{
    (void)state;
    const struct bench__column_desc *const cols[] = {&col_instr, &col_bps, &col_ipc, &col_futex};
    size_t n = N_OF(cols);
    assert_true(bench__sort_key_known("name", cols, n));
    assert_true(bench__sort_key_known("median/iter", cols, n));
    /* metric ids */
    assert_true(bench__sort_key_known("ipc", cols, n));
    assert_true(bench__sort_key_known("instr", cols, n));
    assert_true(bench__sort_key_known("syscalls:futex", cols, n));
    assert_true(bench__sort_key_known("B/s", cols, n));
    /* displayed headers (this project: a header is a known key, no warning) */
    assert_true(bench__sort_key_known("IPC", cols, n));
    assert_true(bench__sort_key_known("instr/iter", cols, n));
    assert_true(bench__sort_key_known("sc:futex", cols, n));
    /* unknown */
    assert_false(bench__sort_key_known("bogus", cols, n));
    assert_false(bench__sort_key_known("", cols, n));
    assert_false(bench__sort_key_known("median", cols, n));
    assert_false(bench__sort_key_known("cycles", cols, n));
    /* name and median/iter need no column; metrics do */
    assert_true(bench__sort_key_known("name", NULL, 0));
    assert_true(bench__sort_key_known("median/iter", NULL, 0));
    assert_false(bench__sort_key_known("ipc", NULL, 0));
    assert_false(bench__sort_key_known("IPC", cols, 1)); /* only instr present */
}

/* ---- bench__sort_rows -------------------------------------------------------------------- */

#define NONE (-INFINITY) /* marker: the row has no cell for that column */
#define OK BENCH__ROW_OK
#define ERR BENCH__ROW_ERROR
#define SKIP BENCH__ROW_SKIPPED
#define MAX_ROWS 8

struct row_spec {
    const char *name;
    enum bench__row_state state;
    double median;
    double bps; /* NONE: no B/s cell; NAN: a cell holding NaN */
    double ipc;
};

struct sort_case {
    const char *what;
    const char *key;
    struct row_spec rows[MAX_ROWS]; /* ends at a NULL name */
    const char *want[MAX_ROWS];     /* names in the expected order */
};

static const struct sort_case sort_cases[] = {
    {"default (NULL) = median/iter ascending",
     NULL,
     {{"c", OK, 30, NONE, NONE}, {"a", OK, 10, NONE, NONE}, {"b", OK, 20, NONE, NONE}},
     {"a", "b", "c"}},
    {"median/iter ascending",
     "median/iter",
     {{"c", OK, 30, NONE, NONE}, {"a", OK, 10, NONE, NONE}, {"b", OK, 20, NONE, NONE}},
     {"a", "b", "c"}},
    {"median/iter: a row without a median after rows with one",
     "median/iter",
     {{"n", OK, NAN, NONE, NONE}, {"f", OK, 2, NONE, NONE}, {"e", OK, 1, NONE, NONE}},
     {"e", "f", "n"}},
    {"name ascending",
     "name",
     {{"parse.mir", OK, 1, NONE, NONE},
      {"parse.asdf", OK, 3, NONE, NONE},
      {"parse.json", OK, 2, NONE, NONE}},
     {"parse.asdf", "parse.json", "parse.mir"}},
    {"metric id",
     "B/s",
     {{"x", OK, 1, 300, NONE},
      {"y", OK, 2, 100, NONE},
      {"z", OK, 3, 200, NONE},
      {"w", OK, 4, -5, NONE}},
     {"w", "y", "z", "x"}},
    {"metric id (ipc)",
     "ipc",
     {{"x", OK, 1, NONE, 2.0}, {"y", OK, 2, NONE, 0.5}, {"z", OK, 3, NONE, 1.0}},
     {"y", "z", "x"}},
    {"metric header (IPC for id ipc)",
     "IPC",
     {{"x", OK, 1, NONE, 2.0}, {"y", OK, 2, NONE, 0.5}, {"z", OK, 3, NONE, 1.0}},
     {"y", "z", "x"}},
    {"rows lacking the metric (no cell, NaN cell) after rows having it, in input order",
     "B/s",
     {{"p", OK, 1, NONE, 1},
      {"q", OK, 2, NAN, NONE},
      {"r", OK, 3, 50, NONE},
      {"t", OK, 4, NONE, NONE},
      {"s", OK, 5, 10, NONE}},
     {"s", "r", "p", "q", "t"}},
    {"error and skipped rows last, by name (default key)",
     NULL,
     {{"zeta", ERR, NAN, NONE, NONE},
      {"alpha", SKIP, NAN, NONE, NONE},
      {"m", OK, 20, NONE, NONE},
      {"beta", ERR, NAN, NONE, NONE},
      {"k", OK, 10, NONE, NONE}},
     {"k", "m", "alpha", "beta", "zeta"}},
    {"error and skipped rows last, by name (name key)",
     "name",
     {{"zeta", ERR, NAN, NONE, NONE},
      {"b", OK, 1, NONE, NONE},
      {"alpha", SKIP, NAN, NONE, NONE},
      {"a", OK, 2, NONE, NONE},
      {"c", SKIP, NAN, NONE, NONE}},
     {"a", "b", "alpha", "c", "zeta"}},
    {"error and skipped rows last, by name (metric key), even holding a small value",
     "B/s",
     {{"e1", ERR, 0.5, 0, NONE},
      {"ok2", OK, 1, NONE, NONE},
      {"d0", SKIP, NAN, NONE, NONE},
      {"ok1", OK, 2, 5, NONE}},
     {"ok1", "ok2", "d0", "e1"}},
    {"error rows last even when their median would sort first",
     "median/iter",
     {{"b", OK, 20, NONE, NONE}, {"a", ERR, 1, NONE, NONE}, {"c", OK, 10, NONE, NONE}},
     {"c", "b", "a"}},
    {"ties keep input order (median)",
     NULL,
     {{"c", OK, 10, NONE, NONE},
      {"a", OK, 10, NONE, NONE},
      {"b", OK, 5, NONE, NONE},
      {"d", OK, 10, NONE, NONE}},
     {"b", "c", "a", "d"}},
    {"ties keep input order (metric)",
     "B/s",
     {{"z", OK, 3, 7, NONE}, {"y", OK, 2, 7, NONE}, {"x", OK, 1, 7, NONE}, {"w", OK, 0, 1, NONE}},
     {"w", "z", "y", "x"}},
    {"unknown key passed directly: input order kept, failures still last",
     "bogus",
     {{"c", OK, 30, 1, 1}, {"a", OK, 10, 3, 3}, {"err", ERR, NAN, NONE, NONE}, {"b", OK, 20, 2, 2}},
     {"c", "a", "b", "err"}},
    {"a single row", NULL, {{"only", OK, 1, NONE, NONE}}, {"only"}},
};

static size_t build_rows(const struct row_spec *spec, struct bench__row *rows,
                         struct bench__cell (*cells)[2])
{
    size_t n = 0;
    for (; n < MAX_ROWS && spec[n].name; n++) {
        const struct row_spec *s = &spec[n];
        struct bench__row *r = &rows[n];
        memset(r, 0, sizeof *r);
        r->name = (char *)s->name;
        r->source = "suite.test";
        r->state = s->state;
        r->iterations = 1;
        r->samples = s->state == OK ? 32 : 0;
        if (s->state == OK)
            r->stats = (struct bench__summary){s->median, 0.5, s->median, s->median};
        else
            r->stats = (struct bench__summary){s->median, NAN, NAN, NAN};
        r->error = s->state == ERR ? "failed" : s->state == SKIP ? "skipped" : "";
        r->cells = cells[n];
        if (s->bps != NONE)
            cells[n][r->n_cells++] = (struct bench__cell){&col_bps, s->bps, false, 0};
        if (s->ipc != NONE)
            cells[n][r->n_cells++] = (struct bench__cell){&col_ipc, s->ipc, false, 0};
    }
    return n;
}

static void test_sort_rows_table(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t c = 0; c < N_OF(sort_cases); c++) {
        const struct sort_case *tc = &sort_cases[c];
        struct bench__row rows[MAX_ROWS];
        struct bench__cell cells[MAX_ROWS][2];
        size_t n = build_rows(tc->rows, rows, cells);
        const struct bench__row *order[MAX_ROWS];
        for (size_t i = 0; i < n; i++)
            order[i] = &rows[i];
        bench__sort_rows(order, n, tc->key);
        bool same = true;
        for (size_t i = 0; i < n; i++)
            same &= tc->want[i] && !strcmp(order[i]->name, tc->want[i]);
        if (!same) {
            failures++;
            char got[256] = "", want[256] = "";
            for (size_t i = 0; i < n; i++) {
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "",
                         order[i]->name);
                snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? " " : "",
                         tc->want[i] ? tc->want[i] : "(null)");
            }
            print_error("sort case '%s' (key %s): got [%s], want [%s]\n", tc->what,
                        tc->key ? tc->key : "NULL", got, want);
        }
    }
    assert_int_equal(failures, 0);
}

/* The sort is in place over the pointers: it neither touches the rows nor loses one. */
static void test_sort_rows_is_a_permutation(void **state)
{
    (void)state;
    bench__sort_rows(NULL, 0, NULL); /* empty: nothing to do */
    bench__sort_rows(NULL, 0, "name");

    static const struct row_spec spec[] = {
        {"f", OK, 6, 1, NONE},        {"e", ERR, NAN, NONE, NONE}, {"d", OK, 4, NONE, NONE},
        {"c", SKIP, NAN, NONE, NONE}, {"b", OK, 2, 3, NONE},       {"a", OK, 1, NAN, NONE},
        {NULL, OK, 0, 0, 0},
    };
    const char *const keys[] = {NULL, "name", "median/iter", "B/s", "IPC", "bogus"};
    for (size_t k = 0; k < N_OF(keys); k++) {
        struct bench__row rows[MAX_ROWS];
        struct bench__cell cells[MAX_ROWS][2];
        size_t n = build_rows(spec, rows, cells);
        const struct bench__row *order[MAX_ROWS];
        for (size_t i = 0; i < n; i++)
            order[i] = &rows[i];
        bench__sort_rows(order, n, keys[k]);
        unsigned seen = 0;
        for (size_t i = 0; i < n; i++) {
            size_t idx = (size_t)(order[i] - rows);
            assert_true(idx < n);
            seen |= 1u << idx;
        }
        assert_int_equal(seen, (1u << n) - 1);
        /* the failing rows are the last two, by name */
        assert_string_equal(order[n - 2]->name, "c");
        assert_string_equal(order[n - 1]->name, "e");
        for (size_t i = 0; i < n; i++)
            assert_string_equal(rows[i].name, spec[i].name); /* rows untouched */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_key_values_and_missing),
        cmocka_unit_test(test_group_title),
        cmocka_unit_test(test_group_title_of_a_row),
        cmocka_unit_test(test_group_keys_ascend_missing_first),
        cmocka_unit_test(test_sort_key_known),
        cmocka_unit_test(test_sort_rows_table),
        cmocka_unit_test(test_sort_rows_is_a_permutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
