/* SPDX-License-Identifier: MIT */
/* test_registry.c: tests of the suite snapshot (bench__suite_load on explicit descriptor
 * lists: names, order, validation), bench__suite_filter, bench__filter_match and
 * bench__file_stem. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "entry/cli.h"
#include "suite/registry.h"

static void body(bench_t *b)
{
    (void)b;
}

static const struct bench_benchmark_opts benchmark_opts = {.size =
                                                               sizeof(struct bench_benchmark_opts)};
static const struct bench_workload_opts workload_opts = {.size = sizeof(struct bench_workload_opts),
                                                         .regime = BENCH_CACHE_WARM};

static struct bench_test make_test(const char *file, uint32_t line, const char *name)
{
    struct bench_test t = {
        .size = sizeof(struct bench_test),
        .kind = BENCH_KIND_TEST,
        .name = name,
        .file = file,
        .line = line,
        .fn = body,
    };
    return t;
}

/* Link tests[0..n) through .next, in array order; returns the head. */
static struct bench_test *link_tests(struct bench_test *tests, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tests[i].next = i + 1 < n ? &tests[i + 1] : NULL;
    return n ? &tests[0] : NULL;
}

/* Load `n` linked descriptors; expect the given code. */
static int load(struct bench__suite *suite, struct bench_test *tests, size_t n, char *err,
                size_t err_size)
{
    err[0] = '\0';
    int rc = bench__suite_load(suite, link_tests(tests, n), err, err_size);
    if (rc == 0)
        assert_string_equal(err, "");
    else {
        assert_null(suite->entries);
        assert_int_equal(suite->count, 0);
    }
    return rc;
}

static void assert_names(const struct bench__suite *suite, const char *const *want, size_t n)
{
    if (suite->count != n) {
        for (size_t i = 0; i < suite->count; i++)
            print_message("  entry %zu: %s\n", i, suite->entries[i].full_name);
    }
    assert_int_equal(suite->count, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(suite->entries[i].full_name, want[i]);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* An entry's descriptor is the library's normalized copy of the caller's: the same fields, its
 * own storage, this library's size, no registry link. */
static void assert_copy_of(const struct bench_test *copy, const struct bench_test *orig)
{
    assert_ptr_not_equal(copy, orig);
    assert_int_equal(copy->size, sizeof(struct bench_test));
    assert_int_equal(copy->kind, orig->kind);
    assert_ptr_equal(copy->name, orig->name);
    assert_ptr_equal(copy->file, orig->file);
    assert_int_equal(copy->line, orig->line);
    assert_int_equal(copy->build, orig->build);
    assert_ptr_equal(copy->compiler, orig->compiler);
    assert_ptr_equal(copy->fn, orig->fn);
    assert_true(!copy->benchmark == !orig->benchmark);
    assert_true(!copy->workload == !orig->workload);
    assert_null(copy->next);
}

/* ---- full names and order ------------------------------------------------------ */

static void test_full_names(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("src/foo.c", 1, "alpha"),
        make_test("a/b/c.test.c", 1, "x"),
        make_test("noext", 1, "y"),
    };
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {"c.test.x", "foo.alpha", "noext.y"};
    assert_names(&suite, want, N(want));
    /* entries hold the library's copies of the caller's descriptors, which stay as they were
     * apart from the registry link */
    assert_copy_of(suite.entries[0].test, &t[1]);
    assert_copy_of(suite.entries[1].test, &t[0]);
    assert_copy_of(suite.entries[2].test, &t[2]);
    assert_ptr_equal(t[0].next, &t[1]);
    assert_int_equal(t[0].size, sizeof(struct bench_test));
    bench__suite_free(&suite);
    assert_null(suite.entries);
    assert_int_equal(suite.count, 0);
}

static void test_single_entry(void **state)
{
    (void)state;
    struct bench_test t[] = {make_test("/abs/path/only.c", 42, "one")};
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {"only.one"};
    assert_names(&suite, want, N(want));
    bench__suite_free(&suite);
}

/* Files by stem, then by path, then definition line (not by name, not by list order). */
static void test_order(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("z/gamma.c", 5, "g"),
        make_test("b/alpha.c", 1, "from_b"),
        make_test("a/alpha.c", 30, "aaa_second"),
        make_test("a/alpha.c", 10, "zzz_first"),
        make_test("z/beta.c", 7, "later"),
        make_test("z/beta.c", 3, "earlier"),
        make_test("a/zeta.c", 1, "z"), /* path "a/..." sorts first, stem "zeta" last */
    };
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {
        "alpha.zzz_first", "alpha.aaa_second", "alpha.from_b", "beta.earlier",
        "beta.later",      "gamma.g",          "zeta.z",
    };
    assert_names(&suite, want, N(want));
    bench__suite_free(&suite);
}

/* A stem that is a prefix of another sorts first; the order follows stems, so it is not
 * plain full-name order ("a-b.y" < "a.x" as strings, but stem "a" < stem "a-b"). */
static void test_order_stem_prefix(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("ab.c", 1, "p"), make_test("a-b.c", 1, "y"), make_test("a.c", 9, "x"),
        make_test("a.b.c", 1, "q"), /* stem "a.b" */
    };
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {"a.x", "a-b.y", "a.b.q", "ab.p"};
    assert_names(&suite, want, N(want));
    bench__suite_free(&suite);
}

/* Same stem, different extension: ordered by path. */
static void test_order_same_stem_by_path(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("m.h", 1, "in_header"),
        make_test("m.c", 50, "in_source"),
    };
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {"m.in_source", "m.in_header"};
    assert_names(&suite, want, N(want));
    bench__suite_free(&suite);
}

/* ---- duplicates ----------------------------------------------------------------- */

static void test_duplicate_across_directories(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("y/foo.c", 9, "t"),
        make_test("other.c", 1, "fine"),
        make_test("x/foo.c", 3, "t"),
    };
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_EDUP);
    assert_string_equal(err, "test name 'foo.t' is registered twice (x/foo.c:3 and y/foo.c:9)");
}

static void test_duplicate_in_one_file(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("dup.c", 20, "same"),
        make_test("dup.c", 10, "same"),
    };
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_EDUP);
    assert_string_equal(err, "test name 'dup.same' is registered twice (dup.c:10 and dup.c:20)");
}

/* Different extensions give the same stem, hence the same full name. */
static void test_duplicate_same_stem(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("m.h", 4, "t"),
        make_test("m.c", 8, "t"),
    };
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_EDUP);
    assert_string_equal(err, "test name 'm.t' is registered twice (m.c:8 and m.h:4)");
}

/* The two locations come in suite order (stem, path, line), whatever the order of the
 * registration list: every permutation of three same-named tests gives one message. */
static void test_duplicate_reported_in_suite_order(void **state)
{
    (void)state;
    static const size_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                       {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const struct bench_test proto[3] = {
        make_test("b/d.c", 5, "t"),  /* suite order: last (path b/ after a/) */
        make_test("a/d.c", 50, "t"), /* second (same path, later line) */
        make_test("a/d.c", 7, "t"),  /* first */
    };
    for (size_t p = 0; p < N(perms); p++) {
        struct bench_test t[3];
        for (size_t i = 0; i < 3; i++)
            t[i] = proto[perms[p][i]];
        struct bench__suite suite;
        char err[BENCH__ERROR_MAX];
        assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_EDUP);
        if (strcmp(err, "test name 'd.t' is registered twice (a/d.c:7 and a/d.c:50)"))
            print_message("permutation %zu\n", p);
        assert_string_equal(err, "test name 'd.t' is registered twice (a/d.c:7 and a/d.c:50)");
    }

    /* path order wins over line order */
    struct bench_test u[] = {make_test("z/m.c", 1, "t"), make_test("a/m.c", 99, "t")};
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, u, N(u), err, sizeof err), BENCH_EDUP);
    assert_string_equal(err, "test name 'm.t' is registered twice (a/m.c:99 and z/m.c:1)");
}

/* ---- descriptor validation ------------------------------------------------------ */

static void test_size_too_small(void **state)
{
    (void)state;
    struct bench_test t[] = {make_test("ok.c", 1, "fine"), make_test("s.c", 4, "small")};
    t[1].size = (uint32_t)sizeof(struct bench_test) - 1;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX], want[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_ESTRUCT);
    snprintf(want, sizeof want,
             "test 'small' (s.c:4) was compiled against an incompatible <bench/shim.h> "
             "(descriptor size %zu, this libbench needs at least %u)",
             sizeof(struct bench_test) - 1, (unsigned)BENCH_TEST_SIZE_V1);
    assert_string_equal(err, want);

    t[1].size = 0;
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_ESTRUCT);
    snprintf(want, sizeof want,
             "test 'small' (s.c:4) was compiled against an incompatible <bench/shim.h> "
             "(descriptor size 0, this libbench needs at least %u)",
             (unsigned)BENCH_TEST_SIZE_V1);
    assert_string_equal(err, want);

    /* the first released size is accepted */
    t[1].size = BENCH_TEST_SIZE_V1;
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    bench__suite_free(&suite);
}

/* A newer, larger descriptor: copied into a bigger zeroed buffer. */
static struct bench_test *make_larger(const char *file, uint32_t line, const char *name,
                                      size_t extra)
{
    size_t total = sizeof(struct bench_test) + extra;
    unsigned char *buf = calloc(1, total);
    assert_non_null(buf);
    struct bench_test t = make_test(file, line, name);
    t.size = (uint32_t)total;
    memcpy(buf, &t, sizeof t);
    return (struct bench_test *)(void *)buf;
}

static void test_size_larger_zero_tail_accepted(void **state)
{
    (void)state;
    struct bench_test *big = make_larger("new.c", 2, "big", 24);
    struct bench_test plain = make_test("old.c", 1, "plain");
    big->next = &plain;
    plain.next = NULL;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX] = "";
    assert_int_equal(bench__suite_load(&suite, big, err, sizeof err), 0);
    static const char *const want[] = {"new.big", "old.plain"};
    assert_names(&suite, want, N(want));
    assert_copy_of(suite.entries[0].test, big);
    assert_copy_of(suite.entries[1].test, &plain);
    bench__suite_free(&suite);
    free(big);
}

static void test_size_larger_nonzero_tail_rejected(void **state)
{
    (void)state;
    const size_t extra = 24;
    for (size_t at = 0; at < extra; at += extra - 1) { /* first and last tail byte */
        struct bench_test *big = make_larger("new.c", 2, "big", extra);
        ((unsigned char *)big)[sizeof(struct bench_test) + at] = 1;
        big->next = NULL;
        struct bench__suite suite;
        char err[BENCH__ERROR_MAX] = "", want[BENCH__ERROR_MAX];
        assert_int_equal(bench__suite_load(&suite, big, err, sizeof err), BENCH_ESTRUCT);
        snprintf(want, sizeof want,
                 "test 'big' (new.c:2) was compiled against an incompatible <bench/shim.h> "
                 "(descriptor size %zu, this libbench knows %zu)",
                 sizeof(struct bench_test) + extra, sizeof(struct bench_test));
        assert_string_equal(err, want);
        assert_null(suite.entries);
        free(big);
    }
}

static void test_missing_name_file_or_body(void **state)
{
    (void)state;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];

    struct bench_test t[] = {make_test("n.c", 5, NULL)};
    assert_int_equal(load(&suite, t, 1, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "a test registered at n.c:5 has no name, file or body");

    t[0] = make_test("n.c", 6, "");
    assert_int_equal(load(&suite, t, 1, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "a test registered at n.c:6 has no name, file or body");

    t[0] = make_test(NULL, 7, "nofile");
    assert_int_equal(load(&suite, t, 1, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "a test registered at ?:7 has no name, file or body");

    t[0] = make_test("n.c", 8, "nobody");
    t[0].fn = NULL;
    assert_int_equal(load(&suite, t, 1, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "a test registered at n.c:8 has no name, file or body");
}

static void test_valid_kinds(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("k.c", 1, "plain"),
        make_test("k.c", 2, "bm"),
        make_test("k.c", 3, "wl"),
    };
    t[1].kind = BENCH_KIND_BENCHMARK;
    t[1].benchmark = &benchmark_opts;
    t[2].kind = BENCH_KIND_WORKLOAD;
    t[2].workload = &workload_opts;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {"k.plain", "k.bm", "k.wl"};
    assert_names(&suite, want, N(want));
    bench__suite_free(&suite);
}

/* Each kind problem has its own message; the first that applies is reported, in the
 * order of the table's groups. */
struct kind_case {
    uint32_t kind;
    bool benchmark, workload; /* which option structs the descriptor carries */
    const char *problem;
};

static const struct kind_case kind_cases[] = {
    /* both option sets, whatever the kind */
    {BENCH_KIND_BENCHMARK, true, true, "has both benchmark and workload options"},
    {BENCH_KIND_WORKLOAD, true, true, "has both benchmark and workload options"},
    {BENCH_KIND_TEST, true, true, "has both benchmark and workload options"},
    {0, true, true, "has both benchmark and workload options"},
    /* a plain test carrying options */
    {BENCH_KIND_TEST, true, false, "is a plain test with benchmark or workload options"},
    {BENCH_KIND_TEST, false, true, "is a plain test with benchmark or workload options"},
    /* a benchmark or workload without its own options (none, or the other kind's) */
    {BENCH_KIND_BENCHMARK, false, false, "is a benchmark without benchmark options"},
    {BENCH_KIND_BENCHMARK, false, true, "is a benchmark without benchmark options"},
    {BENCH_KIND_WORKLOAD, false, false, "is a workload without workload options"},
    {BENCH_KIND_WORKLOAD, true, false, "is a workload without workload options"},
    /* a kind outside enum bench_kind */
    {0, false, false, "has an unknown kind"},
    {4, false, false, "has an unknown kind"},
    {0, true, false, "has an unknown kind"},
    {9, false, true, "has an unknown kind"},
    {UINT32_MAX, false, false, "has an unknown kind"},
};

static void test_kind_mismatch(void **state)
{
    (void)state;
    for (size_t k = 0; k < N(kind_cases); k++) {
        const struct kind_case *kc = &kind_cases[k];
        struct bench_test t = make_test("k.c", (uint32_t)(k + 1), "odd");
        t.kind = kc->kind;
        t.benchmark = kc->benchmark ? &benchmark_opts : NULL;
        t.workload = kc->workload ? &workload_opts : NULL;
        struct bench__suite suite;
        char err[BENCH__ERROR_MAX], want[BENCH__ERROR_MAX];
        int rc = load(&suite, &t, 1, err, sizeof err);
        snprintf(want, sizeof want, "test 'odd' (k.c:%zu) %s", k + 1, kc->problem);
        if (rc != BENCH_EINVAL || strcmp(err, want))
            print_message("row %zu: kind %u: rc %d: %s\n", k, (unsigned)kc->kind, rc, err);
        assert_int_equal(rc, BENCH_EINVAL);
        assert_string_equal(err, want);
    }
}

static void test_options_too_small(void **state)
{
    (void)state;
    static const struct bench_benchmark_opts small_bm = {.size = 0};
    static const struct bench_workload_opts small_wl = {.size = sizeof(uint32_t)};
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    struct bench_test t = make_test("o.c", 11, "bm");
    t.kind = BENCH_KIND_BENCHMARK;
    t.benchmark = &small_bm;
    assert_int_equal(load(&suite, &t, 1, err, sizeof err), BENCH_ESTRUCT);
    assert_string_equal(err, "test 'bm' (o.c:11) has options from an incompatible <bench/shim.h>");

    t = make_test("o.c", 12, "wl");
    t.kind = BENCH_KIND_WORKLOAD;
    t.workload = &small_wl;
    assert_int_equal(load(&suite, &t, 1, err, sizeof err), BENCH_ESTRUCT);
    assert_string_equal(err, "test 'wl' (o.c:12) has options from an incompatible <bench/shim.h>");

    /* one byte short */
    static const struct bench_benchmark_opts short_bm = {.size = sizeof short_bm - 1};
    t = make_test("o.c", 13, "bm1");
    t.kind = BENCH_KIND_BENCHMARK;
    t.benchmark = &short_bm;
    assert_int_equal(load(&suite, &t, 1, err, sizeof err), BENCH_ESTRUCT);
    assert_string_equal(err, "test 'bm1' (o.c:13) has options from an incompatible <bench/shim.h>");
}

/* Option structs follow the descriptor's size rule: a larger struct is accepted while its
 * unknown tail is zero. Copied into a bigger zeroed buffer, like make_larger. */
static void *larger_opts(const void *opts, size_t known, size_t extra)
{
    unsigned char *buf = calloc(1, known + extra);
    assert_non_null(buf);
    memcpy(buf, opts, known);
    uint32_t size = (uint32_t)(known + extra);
    memcpy(buf, &size, sizeof size); /* .size is the first member of both structs */
    return buf;
}

static void test_options_larger_zero_tail_accepted(void **state)
{
    (void)state;
    const size_t extra = 16;
    const struct bench_benchmark_opts bm = {.size = sizeof bm, .iterations = 10};
    const struct bench_workload_opts wl = {.size = sizeof wl, .regime = BENCH_CACHE_COLD};
    struct bench_benchmark_opts *big_bm = larger_opts(&bm, sizeof bm, extra);
    struct bench_workload_opts *big_wl = larger_opts(&wl, sizeof wl, extra);
    struct bench_test t[] = {make_test("o.c", 1, "bm"), make_test("o.c", 2, "wl")};
    t[0].kind = BENCH_KIND_BENCHMARK;
    t[0].benchmark = big_bm;
    t[1].kind = BENCH_KIND_WORKLOAD;
    t[1].workload = big_wl;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {"o.bm", "o.wl"};
    assert_names(&suite, want, N(want));
    /* the options are copied too, with this library's size */
    assert_ptr_not_equal(suite.entries[0].test->benchmark, big_bm);
    assert_int_equal(suite.entries[0].test->benchmark->size, sizeof(struct bench_benchmark_opts));
    assert_int_equal(suite.entries[0].test->benchmark->iterations, 10);
    assert_null(suite.entries[0].test->workload);
    assert_ptr_not_equal(suite.entries[1].test->workload, big_wl);
    assert_int_equal(suite.entries[1].test->workload->size, sizeof(struct bench_workload_opts));
    assert_int_equal(suite.entries[1].test->workload->regime, BENCH_CACHE_COLD);
    assert_null(suite.entries[1].test->benchmark);
    bench__suite_free(&suite);

    /* the known fields are still checked */
    big_wl->regime = (enum bench_cache_regime)7;
    assert_int_equal(load(&suite, &t[1], 1, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "workload 'wl' (o.c:2) has an unknown cache regime 7");
    free(big_bm);
    free(big_wl);
}

static void test_options_larger_nonzero_tail_rejected(void **state)
{
    (void)state;
    const size_t extra = 16;
    const struct bench_benchmark_opts bm = {.size = sizeof bm};
    const struct bench_workload_opts wl = {.size = sizeof wl};
    for (size_t at = 0; at < extra; at += extra - 1) { /* first and last tail byte */
        unsigned char *big_bm = larger_opts(&bm, sizeof bm, extra);
        unsigned char *big_wl = larger_opts(&wl, sizeof wl, extra);
        big_bm[sizeof bm + at] = 0x80;
        big_wl[sizeof wl + at] = 1;
        struct bench__suite suite;
        char err[BENCH__ERROR_MAX];

        struct bench_test t = make_test("o.c", 21, "bm");
        t.kind = BENCH_KIND_BENCHMARK;
        t.benchmark = (const struct bench_benchmark_opts *)(void *)big_bm;
        assert_int_equal(load(&suite, &t, 1, err, sizeof err), BENCH_ESTRUCT);
        assert_string_equal(err,
                            "test 'bm' (o.c:21) has options from an incompatible <bench/shim.h>");

        t = make_test("o.c", 22, "wl");
        t.kind = BENCH_KIND_WORKLOAD;
        t.workload = (const struct bench_workload_opts *)(void *)big_wl;
        assert_int_equal(load(&suite, &t, 1, err, sizeof err), BENCH_ESTRUCT);
        assert_string_equal(err,
                            "test 'wl' (o.c:22) has options from an incompatible <bench/shim.h>");
        free(big_bm);
        free(big_wl);
    }
}

/* A file path without a stem cannot name its tests ("dir/.x" would be ambiguous). */
static void test_empty_file_stem_rejected(void **state)
{
    (void)state;
    static const char *const paths[] = {"dir/", "", "/", "a/b/"};
    for (size_t k = 0; k < N(paths); k++) {
        struct bench_test t[] = {make_test("ok.c", 1, "fine"), make_test(paths[k], 3, "t")};
        struct bench__suite suite;
        char err[BENCH__ERROR_MAX], want[BENCH__ERROR_MAX];
        assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_EINVAL);
        snprintf(want, sizeof want, "test 't' (%s:3) has no file stem to name it by", paths[k]);
        assert_string_equal(err, want);
    }
    /* a stem that is all extension-looking is still a stem */
    struct bench_test t[] = {make_test("dir/.c", 1, "a"), make_test("trailing.", 2, "b")};
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    static const char *const want[] = {".c.a", "trailing.b"};
    assert_names(&suite, want, N(want));
    bench__suite_free(&suite);
}

static void test_workload_regime(void **state)
{
    (void)state;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    struct bench_workload_opts opts = {.size = sizeof opts};
    struct bench_test t = make_test("w.c", 7, "w");
    t.kind = BENCH_KIND_WORKLOAD;
    t.workload = &opts;

    const enum bench_cache_regime ok[] = {BENCH_CACHE_STEADY, BENCH_CACHE_WARM, BENCH_CACHE_COLD};
    for (size_t i = 0; i < N(ok); i++) {
        opts.regime = ok[i];
        assert_int_equal(load(&suite, &t, 1, err, sizeof err), 0);
        bench__suite_free(&suite);
    }

    opts.regime = (enum bench_cache_regime)3;
    assert_int_equal(load(&suite, &t, 1, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "workload 'w' (w.c:7) has an unknown cache regime 3");

    opts.regime = (enum bench_cache_regime) - 1;
    assert_int_equal(load(&suite, &t, 1, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "workload 'w' (w.c:7) has an unknown cache regime -1");
}

/* A bad descriptor after good ones: the partial suite is released (checked by ASan). */
static void test_bad_descriptor_after_good_ones(void **state)
{
    (void)state;
    struct bench_test t[] = {
        make_test("a.c", 1, "one"),
        make_test("b.c", 2, "two"),
        make_test("c.c", 3, "three"),
    };
    t[2].kind = 9;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "test 'three' (c.c:3) has an unknown kind");
}

/* ---- the global registry (bench_register) -------------------------------------- */

/* bench_register links a descriptor in O(1); one too small to hold `next` is never
 * written to and makes loading the global registry fail. The rejection cannot be undone,
 * so this runs last. */
static void test_register_global(void **state)
{
    (void)state;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX], want[BENCH__ERROR_MAX];
    assert_null(bench__registry_head());
    assert_int_equal(bench__suite_load(&suite, NULL, err, sizeof err), 0);
    assert_int_equal(suite.count, 0);
    bench__suite_free(&suite);

    static struct bench_test two, one;
    two = make_test("r.c", 2, "two");
    one = make_test("r.c", 1, "one");
    bench_register(&two);
    bench_register(&one);
    assert_ptr_equal(bench__registry_head(), &one);
    assert_ptr_equal(one.next, &two);
    assert_null(two.next);
    err[0] = '\0';
    assert_int_equal(bench__suite_load(&suite, NULL, err, sizeof err), 0);
    static const char *const names[] = {"r.one", "r.two"};
    assert_names(&suite, names, N(names));
    bench__suite_free(&suite);

    /* too small: left untouched, not linked, reported when the registry is loaded */
    static struct bench_test small, sentinel;
    small = make_test("s.c", 4, "small");
    small.size = (uint32_t)offsetof(struct bench_test, next);
    small.next = &sentinel;
    struct bench_test before = small;
    bench_register(&small);
    assert_memory_equal(&small, &before, sizeof small);
    assert_ptr_equal(bench__registry_head(), &one);
    assert_int_equal(bench__suite_load(&suite, NULL, err, sizeof err), BENCH_ESTRUCT);
    snprintf(want, sizeof want,
             "1 test(s) were compiled against an incompatible <bench/shim.h>, the first at "
             "s.c:4 (descriptor size %zu, this libbench needs at least %u)",
             offsetof(struct bench_test, next), (unsigned)BENCH_TEST_SIZE_V1);
    assert_string_equal(err, want);
    assert_null(suite.entries);
    assert_int_equal(suite.count, 0);

    /* an explicit list is not affected */
    struct bench_test t[] = {make_test("e.c", 1, "explicit")};
    assert_int_equal(load(&suite, t, N(t), err, sizeof err), 0);
    bench__suite_free(&suite);

    /* every rejection is counted, beyond those remembered; the first stays first */
    static struct bench_test more[12];
    for (size_t i = 0; i < N(more); i++) {
        more[i] = make_test("m.c", (uint32_t)i, "m");
        more[i].size = 0;
        bench_register(&more[i]);
        assert_null(more[i].next);
    }
    assert_int_equal(bench__suite_load(&suite, NULL, err, sizeof err), BENCH_ESTRUCT);
    snprintf(want, sizeof want,
             "13 test(s) were compiled against an incompatible <bench/shim.h>, the first at "
             "s.c:4 (descriptor size %zu, this libbench needs at least %u)",
             offsetof(struct bench_test, next), (unsigned)BENCH_TEST_SIZE_V1);
    assert_string_equal(err, want);
    assert_ptr_equal(bench__registry_head(), &one);
}

/* ---- filtering ------------------------------------------------------------------ */

static void parse_filters(struct bench__config *cfg, const char *include, const char *exclude)
{
    char *argv[6] = {(char *)"prog"};
    int argc = 1;
    if (include) {
        argv[argc++] = (char *)"-i";
        argv[argc++] = (char *)include;
    }
    if (exclude) {
        argv[argc++] = (char *)"-e";
        argv[argc++] = (char *)exclude;
    }
    char err[BENCH__ERROR_MAX];
    int rc = bench__config_parse(cfg, argc, argv, err, sizeof err);
    if (rc)
        print_message("parse: %s\n", err);
    assert_int_equal(rc, 0);
}

static struct bench_test filter_tests[] = {
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_TEST,
     .name = "parse",
     .file = "cli.c",
     .line = 1,
     .fn = body},
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_TEST,
     .name = "parse_long",
     .file = "cli.c",
     .line = 2,
     .fn = body},
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_TEST,
     .name = "load",
     .file = "registry.c",
     .line = 1,
     .fn = body},
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_TEST,
     .name = "cli",
     .file = "xcli.c",
     .line = 1,
     .fn = body},
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_TEST,
     .name = "free",
     .file = "registry.c",
     .line = 2,
     .fn = body},
};

struct filter_case {
    const char *include, *exclude;
    const char *kept[6];
};

static const struct filter_case filter_cases[] = {
    {NULL, NULL, {"cli.parse", "cli.parse_long", "registry.load", "registry.free", "xcli.cli"}},
    /* include only (unanchored: a match anywhere) */
    {"cli", NULL, {"cli.parse", "cli.parse_long", "xcli.cli"}},
    {"parse", NULL, {"cli.parse", "cli.parse_long"}},
    /* exclude only */
    {NULL, "registry", {"cli.parse", "cli.parse_long", "xcli.cli"}},
    {NULL, "long|free", {"cli.parse", "registry.load", "xcli.cli"}},
    /* both: include AND NOT exclude */
    {"cli", "long", {"cli.parse", "xcli.cli"}},
    {"cli|registry", "^x|load", {"cli.parse", "cli.parse_long", "registry.free"}},
    /* anchored patterns */
    {"^cli\\.", NULL, {"cli.parse", "cli.parse_long"}},
    {"^cli\\.parse$", NULL, {"cli.parse"}},
    {"\\.cli$", NULL, {"xcli.cli"}},
    {NULL, "^cli\\.", {"registry.load", "registry.free", "xcli.cli"}},
    /* the '.' of an unescaped pattern is any character */
    {"^cli.parse$", NULL, {"cli.parse"}},
    /* nothing matches / everything excluded */
    {"nomatch", NULL, {NULL}},
    {"cli", ".", {NULL}},
};

static void test_filter(void **state)
{
    (void)state;
    for (size_t k = 0; k < N(filter_cases); k++) {
        const struct filter_case *fc = &filter_cases[k];
        const char *exclude = fc->exclude;
        struct bench__config cfg;
        parse_filters(&cfg, fc->include, exclude);

        struct bench__suite suite;
        char err[BENCH__ERROR_MAX];
        assert_int_equal(load(&suite, filter_tests, N(filter_tests), err, sizeof err), 0);

        size_t n_kept = 0;
        while (n_kept < N(fc->kept) && fc->kept[n_kept])
            n_kept++;
        /* bench__filter_match agrees with the expected set for every entry */
        for (size_t i = 0; i < suite.count; i++) {
            bool want = false;
            for (size_t j = 0; j < n_kept; j++)
                want |= !strcmp(fc->kept[j], suite.entries[i].full_name);
            if (bench__filter_match(&cfg, suite.entries[i].full_name) != want)
                print_message("row %zu: %s\n", k, suite.entries[i].full_name);
            assert_int_equal(bench__filter_match(&cfg, suite.entries[i].full_name), want);
        }
        bench__suite_filter(&suite, &cfg);
        if (suite.count != n_kept)
            print_message("row %zu: include %s exclude %s\n", k, fc->include ? fc->include : "-",
                          exclude ? exclude : "-");
        assert_names(&suite, fc->kept, n_kept);
        bench__suite_free(&suite);
        bench__config_free(&cfg);
    }
}

/* ---- a filter that selects nothing ----------------------------------------------------- */

static struct bench_test mixed_tests[] = {
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_TEST,
     .name = "parse",
     .file = "cli.c",
     .line = 1,
     .fn = body},
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_TEST,
     .name = "load",
     .file = "registry.c",
     .line = 1,
     .fn = body},
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_BENCHMARK,
     .name = "sum",
     .file = "loops.c",
     .line = 1,
     .fn = body,
     .benchmark = &benchmark_opts},
    {.size = sizeof(struct bench_test),
     .kind = BENCH_KIND_WORKLOAD,
     .name = "ingest",
     .file = "loops.c",
     .line = 2,
     .fn = body,
     .workload = &workload_opts},
};

struct selection_case {
    const char *include, *exclude;
    enum bench__filter_mode mode;
    size_t first, n;     /* the entries of mixed_tests loaded: 0, 1 tests; 2, 3 the others */
    const char *message; /* NULL: the run may go on */
};

static const struct selection_case selection_cases[] = {
    /* no filter: never an error, even with nothing to run */
    {NULL, NULL, BENCH__FILTER_TEST, 0, 4, NULL},
    {NULL, NULL, BENCH__FILTER_BENCH, 0, 2, NULL},
    {NULL, NULL, BENCH__FILTER_TEST, 2, 2, NULL},
    /* something of the mode selected */
    {"parse", NULL, BENCH__FILTER_TEST, 0, 4, NULL},
    {"sum", NULL, BENCH__FILTER_BENCH, 0, 4, NULL},
    {"ingest", NULL, BENCH__FILTER_BENCH, 0, 4, NULL},
    {"sum", NULL, BENCH__FILTER_LIST, 0, 4, NULL},
    {NULL, "parse", BENCH__FILTER_TEST, 0, 4, NULL},
    /* nothing selected at all */
    {"nomatch", NULL, BENCH__FILTER_TEST, 0, 4,
     "--include 'nomatch' selects no test (of 2; --list shows every name)"},
    {"nomatch", NULL, BENCH__FILTER_BENCH, 0, 4,
     "--include 'nomatch' selects no benchmark or workload (of 2; --list shows every name)"},
    {"nomatch", NULL, BENCH__FILTER_LIST, 0, 4,
     "--include 'nomatch' selects no test, benchmark or workload (of 4)"},
    {NULL, ".", BENCH__FILTER_TEST, 0, 4,
     "--exclude '.' selects no test (of 2; --list shows every name)"},
    {"cli", "parse", BENCH__FILTER_TEST, 0, 4,
     "--include 'cli' with --exclude 'parse' selects no test (of 2; --list shows every name)"},
    /* only entries of the other mode */
    {"loops", NULL, BENCH__FILTER_TEST, 0, 4,
     "--include 'loops' selects no test (of 2), only benchmarks or workloads (run them with "
     "--bench)"},
    {"cli|registry", NULL, BENCH__FILTER_BENCH, 0, 4,
     "--include 'cli|registry' selects no benchmark or workload (of 2), only tests (run them "
     "without --bench)"},
    /* the program has nothing of the mode */
    {"parse", NULL, BENCH__FILTER_BENCH, 0, 2,
     "--include 'parse' selects no benchmark or workload: the program has none"},
    {NULL, "x", BENCH__FILTER_TEST, 2, 2, "--exclude 'x' selects no test: the program has none"},
    /* control characters in a pattern are shown as '?' */
    {"a\nb\x1b", NULL, BENCH__FILTER_LIST, 0, 4,
     "--include 'a?b?' selects no test, benchmark or workload (of 4)"},
};

static void test_filter_check(void **state)
{
    (void)state;
    for (size_t k = 0; k < N(selection_cases); k++) {
        const struct selection_case *c = &selection_cases[k];
        struct bench__config cfg;
        parse_filters(&cfg, c->include, c->exclude);
        struct bench__suite suite;
        char err[BENCH__ERROR_MAX];
        assert_int_equal(load(&suite, mixed_tests + c->first, c->n, err, sizeof err), 0);
        int rc = bench__filter_check(&suite, &cfg, c->mode, err, sizeof err);
        if (c->message ? rc == 0 || strcmp(err, c->message) : rc != 0)
            print_message("row %zu: rc %d: %s\n", k, rc, rc ? err : "");
        if (c->message) {
            assert_int_equal(rc, BENCH_ENOENT);
            assert_string_equal(err, c->message);
        } else {
            assert_int_equal(rc, 0);
        }
        assert_int_equal(suite.count, c->n); /* the check filters nothing */
        bench__suite_free(&suite);
        bench__config_free(&cfg);
    }
}

/* Filtering twice narrows further and keeps the order; entries keep their descriptor's copy. */
static void test_filter_twice(void **state)
{
    (void)state;
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(load(&suite, filter_tests, N(filter_tests), err, sizeof err), 0);
    struct bench__config cfg;
    parse_filters(&cfg, "cli", NULL);
    bench__suite_filter(&suite, &cfg);
    bench__config_free(&cfg);
    parse_filters(&cfg, NULL, "^x");
    bench__suite_filter(&suite, &cfg);
    bench__config_free(&cfg);
    static const char *const want[] = {"cli.parse", "cli.parse_long"};
    assert_names(&suite, want, N(want));
    assert_copy_of(suite.entries[0].test, &filter_tests[0]);
    assert_copy_of(suite.entries[1].test, &filter_tests[1]);
    bench__suite_free(&suite);
}

static void test_filter_match_direct(void **state)
{
    (void)state;
    struct bench__config cfg;
    parse_filters(&cfg, NULL, NULL);
    assert_true(bench__filter_match(&cfg, "anything.at_all"));
    assert_true(bench__filter_match(&cfg, ""));
    bench__config_free(&cfg);

    parse_filters(&cfg, "^core\\.(alpha|beta)$", "beta");
    assert_true(bench__filter_match(&cfg, "core.alpha"));
    assert_false(bench__filter_match(&cfg, "core.beta"));     /* excluded */
    assert_false(bench__filter_match(&cfg, "core.alphabet")); /* anchored at the end */
    assert_false(bench__filter_match(&cfg, "xcore.alpha"));   /* anchored at the start */
    assert_false(bench__filter_match(&cfg, "core_alpha"));    /* escaped dot */
    bench__config_free(&cfg);
}

/* ---- bench__file_stem ----------------------------------------------------------- */

struct stem_case {
    const char *path;
    size_t offset; /* where the stem starts in path */
    const char *stem;
};

static const struct stem_case stem_cases[] = {
    {"a/b/c.test.c", 4, "c.test"},
    {"x.c", 0, "x"},
    {"noext", 0, "noext"},
    {".hidden", 0, ".hidden"},
    {"dir/", 4, ""},
    {"/abs/path/file.c", 10, "file"},
    {"dir.d/file", 6, "file"}, /* a dot in a directory is not an extension */
    {"dir/.hidden.c", 4, ".hidden"},
    {"trailing.", 0, "trailing"},
    {"", 0, ""},
};

static void test_file_stem(void **state)
{
    (void)state;
    for (size_t k = 0; k < N(stem_cases); k++) {
        const char *stem = NULL;
        size_t len = bench__file_stem(stem_cases[k].path, &stem);
        if (stem != stem_cases[k].path + stem_cases[k].offset || len != strlen(stem_cases[k].stem))
            print_message("path '%s': stem at %td, length %zu\n", stem_cases[k].path,
                          stem ? stem - stem_cases[k].path : -1, len);
        assert_ptr_equal(stem, stem_cases[k].path + stem_cases[k].offset);
        assert_int_equal(len, strlen(stem_cases[k].stem));
        assert_memory_equal(stem, stem_cases[k].stem, len);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_names),
        cmocka_unit_test(test_single_entry),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_order_stem_prefix),
        cmocka_unit_test(test_order_same_stem_by_path),
        cmocka_unit_test(test_duplicate_across_directories),
        cmocka_unit_test(test_duplicate_in_one_file),
        cmocka_unit_test(test_duplicate_same_stem),
        cmocka_unit_test(test_duplicate_reported_in_suite_order),
        cmocka_unit_test(test_size_too_small),
        cmocka_unit_test(test_size_larger_zero_tail_accepted),
        cmocka_unit_test(test_size_larger_nonzero_tail_rejected),
        cmocka_unit_test(test_missing_name_file_or_body),
        cmocka_unit_test(test_valid_kinds),
        cmocka_unit_test(test_kind_mismatch),
        cmocka_unit_test(test_options_too_small),
        cmocka_unit_test(test_options_larger_zero_tail_accepted),
        cmocka_unit_test(test_options_larger_nonzero_tail_rejected),
        cmocka_unit_test(test_empty_file_stem_rejected),
        cmocka_unit_test(test_workload_regime),
        cmocka_unit_test(test_bad_descriptor_after_good_ones),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_filter_check),
        cmocka_unit_test(test_filter_twice),
        cmocka_unit_test(test_filter_match_direct),
        cmocka_unit_test(test_file_stem),
        cmocka_unit_test(test_register_global), /* last: leaves the registry rejecting */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
