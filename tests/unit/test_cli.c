/* SPDX-License-Identifier: MIT */
/* test_cli.c: table-driven tests of the command-line parser (bench__config_parse): the
 * exact error message of every malformed input, the config of valid ones, and
 * bench__argv_wants_bench. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "internal.h"

#define MAX_ARGS 12
#define MAX_ITEMS 6

/* An argv row: "prog" followed by the given words; the rest of the array is NULL. */
#define ARGV(...) {"prog", __VA_ARGS__}

/* Copy a NULL-terminated row into a mutable argv (the parser keeps pointers into it, so
 * the literals themselves are used, never copies). Returns argc. */
static int make_argv(const char *const row[MAX_ARGS], char *argv[MAX_ARGS + 1])
{
    int argc = 0;
    while (argc < MAX_ARGS && row[argc]) {
        argv[argc] = (char *)row[argc];
        argc++;
    }
    argv[argc] = NULL;
    return argc;
}

static void print_row(const char *const row[MAX_ARGS])
{
    print_message("argv:");
    for (int i = 0; i < MAX_ARGS && row[i]; i++)
        print_message(" [%s]", row[i]);
    print_message("\n");
}

/* ---- malformed inputs ----------------------------------------------------------- */

struct malformed_case {
    const char *argv[MAX_ARGS];
    const char *message;
};

static const struct malformed_case malformed[] = {
    /* unknown long options, with and without a suggestion */
    {ARGV("--bnech"), "unknown option '--bnech' (did you mean '--bench'?)"},
    {ARGV("--Bench"), "unknown option '--Bench' (did you mean '--bench'?)"},
    {ARGV("--verbos"), "unknown option '--verbos' (did you mean '--verbose'?)"},
    {ARGV("--jbos=4"), "unknown option '--jbos' (did you mean '--jobs'?)"},
    {ARGV("--metric=cycles"), "unknown option '--metric' (did you mean '--metrics'?)"},
    {ARGV("--perf-iter", "5"), "unknown option '--perf-iter' (did you mean '--perf-iters'?)"},
    {ARGV("--frobnicate"), "unknown option '--frobnicate'"},
    {ARGV("--colors"), "unknown option '--colors'"},
    {ARGV("--include-regex=x"), "unknown option '--include-regex'"},
    {ARGV("--=x"), "unknown option '--'"},
    /* unknown short options */
    {ARGV("-x"), "unknown option '-x'"},
    {ARGV("-J4"), "unknown option '-J4'"},
    {ARGV("-bench"), "unknown option '-bench'"},
    /* bundled short flags */
    {ARGV("-vl"), "unknown option '-vl' (short flags do not combine; write them separately)"},
    {ARGV("-hv"), "unknown option '-hv' (short flags do not combine; write them separately)"},
    {ARGV("-verbose"),
     "unknown option '-verbose' (short flags do not combine; write them separately)"},
    /* a flag given a value */
    {ARGV("--verbose=1"), "option '--verbose' takes no value"},
    {ARGV("--bench=yes"), "option '--bench' takes no value"},
    {ARGV("--help="), "option '--help' takes no value"},
    {ARGV("--list-metrics=all"), "option '--list-metrics' takes no value"},
    /* a missing value at the end of argv */
    {ARGV("-j"), "option '-j' needs a value (N)"},
    {ARGV("--include"), "option '--include' needs a value (REGEX)"},
    {ARGV("-v", "-e"), "option '-e' needs a value (REGEX)"},
    {ARGV("--metrics"), "option '--metrics' needs a value (LIST)"},
    {ARGV("--bench", "--bench-min-time"), "option '--bench-min-time' needs a value (MS)"},
    {ARGV("--bench-json"), "option '--bench-json' needs a value (FILE)"},
    /* numbers */
    {ARGV("-j", "four"), "option '-j' needs a non-negative integer, got 'four'"},
    {ARGV("-j", "-1"), "option '-j' needs a non-negative integer, got '-1'"},
    {ARGV("-j-1"), "option '-j' needs a non-negative integer, got '-1'"},
    {ARGV("-j=4"), "option '-j' needs a non-negative integer, got '=4'"},
    {ARGV("--jobs="), "option '--jobs' needs a number, got an empty value"},
    {ARGV("-j", ""), "option '-j' needs a number, got an empty value"},
    {ARGV("--jobs=4x"), "option '--jobs' needs a non-negative integer, got '4x'"},
    {ARGV("--jobs= 4"), "option '--jobs' needs a non-negative integer, got ' 4'"},
    {ARGV("--jobs=+4"), "option '--jobs' needs a non-negative integer, got '+4'"},
    {ARGV("--jobs=1025"), "option '--jobs': '1025' is too large (at most 1024)"},
    {ARGV("-j", "99999999999999999999999"),
     "option '-j': '99999999999999999999999' is too large (at most 1024)"},
    {ARGV("--perf-iters=18446744073709551616"),
     "option '--perf-iters': '18446744073709551616' is too large (at most 18446744073709551615)"},
    {ARGV("--perf-iters", "1e6"), "option '--perf-iters' needs a non-negative integer, got '1e6'"},
    {ARGV("--perf-batch=-5"), "option '--perf-batch' needs a non-negative integer, got '-5'"},
    {ARGV("--perf-batch", ""), "option '--perf-batch' needs a number, got an empty value"},
    {ARGV("--bench-min-time=86400001"),
     "option '--bench-min-time': '86400001' is too large (at most 86400000)"},
    {ARGV("--bench-min-time=1.5"),
     "option '--bench-min-time' needs a non-negative integer, got '1.5'"},
    {ARGV("--bench-min-time=5ms"),
     "option '--bench-min-time' needs a non-negative integer, got '5ms'"},
    /* empty values */
    {ARGV("--include="), "option '--include' needs a non-empty value"},
    {ARGV("-e", ""), "option '-e' needs a non-empty value"},
    {ARGV("--sort-by="), "option '--sort-by' needs a non-empty value"},
    {ARGV("--bench-json="), "option '--bench-json' needs a non-empty value"},
    {ARGV("--metrics="), "option '--metrics' needs a non-empty value"},
    {ARGV("--group-by", ""), "option '--group-by' needs a non-empty value"},
    {ARGV("--syscalls="), "option '--syscalls' needs a non-empty value"},
    /* repeated single-valued options */
    {ARGV("-i", "a", "-i", "b"), "option '-i' given more than once"},
    {ARGV("--include=a", "-i", "b"), "option '-i' given more than once"},
    {ARGV("-e", "a", "--exclude=b"), "option '--exclude' given more than once"},
    {ARGV("-i", "a", "-i", ""), "option '-i' given more than once"},
    {ARGV("--sort-by=name", "--sort-by", "median/iter"), "option '--sort-by' given more than once"},
    {ARGV("--bench-json=a", "--bench-json=b"), "option '--bench-json' given more than once"},
    /* stray positionals */
    {ARGV("foo"), "unexpected positional argument 'foo' \xe2\x80\x94 attach option values with "
                  "'=' (e.g. --syscalls=futex)"},
    {ARGV("-"), "unexpected positional argument '-' \xe2\x80\x94 attach option values with "
                "'=' (e.g. --syscalls=futex)"},
    {ARGV("-v", "tests/x"), "unexpected positional argument 'tests/x' \xe2\x80\x94 attach option "
                            "values with '=' (e.g. --syscalls=futex)"},
    {ARGV("--syscalls", "futex"), "unexpected positional argument 'futex' \xe2\x80\x94 attach "
                                  "option values with '=' (e.g. --syscalls=futex)"},
    {ARGV("--", "foo"),
     "unexpected argument 'foo' after '--' (this program takes no positional arguments)"},
    {ARGV("--", "--bench"),
     "unexpected argument '--bench' after '--' (this program takes no positional arguments)"},
    {ARGV("-v", "--", ""),
     "unexpected argument '' after '--' (this program takes no positional arguments)"},
    /* syscall names */
    {ARGV("--syscalls=Futex"), "option '--syscalls': 'Futex' is not a syscall name ([a-z0-9_]+)"},
    {ARGV("--syscalls=futex,write-v"),
     "option '--syscalls': 'write-v' is not a syscall name ([a-z0-9_]+)"},
    {ARGV("--syscalls=a,,b"), "option '--syscalls': empty element in 'a,,b'"},
    {ARGV("--syscalls=futex", "--syscalls=read,"), "option '--syscalls': empty element in 'read,'"},
    {ARGV("--syscalls=fu tex"),
     "option '--syscalls': whitespace or control character in 'fu tex'"},
    /* list elements */
    {ARGV("--metrics=a,,b"), "option '--metrics': empty element in 'a,,b'"},
    {ARGV("--metrics", ",a"), "option '--metrics': empty element in ',a'"},
    {ARGV("--metrics=a,"), "option '--metrics': empty element in 'a,'"},
    {ARGV("--group-by=a,"), "option '--group-by': empty element in 'a,'"},
    {ARGV("--group-by", ","), "option '--group-by': empty element in ','"},
    {ARGV("--metrics=a, b"), "option '--metrics': whitespace or control character in 'a, b'"},
    {ARGV("--metrics", "cycles "),
     "option '--metrics': whitespace or control character in 'cycles '"},
    {ARGV("--group-by=a\tb"), "option '--group-by': whitespace or control character in 'a\tb'"},
    /* invalid regular expressions (glibc's regerror text) */
    {ARGV("-i", "("), "invalid --include regular expression '(': Unmatched ( or \\("},
    {ARGV("--exclude=[a"),
     "invalid --exclude regular expression '[a': Unmatched [, [^, [:, [., or [="},
    {ARGV("-i", "a{1"), "invalid --include regular expression 'a{1': Unmatched \\{"},
    {ARGV("-e", "*a"),
     "invalid --exclude regular expression '*a': Invalid preceding regular expression"},
    {ARGV("-i", "a{2,1}"),
     "invalid --include regular expression 'a{2,1}': Invalid content of \\{\\}"},
    {ARGV("--include=[[:foo:]]"),
     "invalid --include regular expression '[[:foo:]]': Invalid character class name"},
    /* --include compiles, --exclude does not: the compiled one must be freed */
    {ARGV("-i", "ok", "-e", "\\"), "invalid --exclude regular expression '\\': Trailing backslash"},
    /* an argument error wins over a bad regex given earlier */
    {ARGV("-i", "(", "--frobnicate"), "unknown option '--frobnicate'"},
    /* an error after lists were accumulated: everything is released */
    {ARGV("--metrics=a,b", "--group-by=x", "--syscalls=futex", "-j", "x"),
     "option '-j' needs a non-negative integer, got 'x'"},
};
#define N_MALFORMED (sizeof malformed / sizeof malformed[0])

static void test_malformed_table(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_MALFORMED; k++) {
        char *argv[MAX_ARGS + 1];
        int argc = make_argv(malformed[k].argv, argv);
        struct bench__config cfg;
        char err[BENCH__ERROR_MAX];
        memset(err, 'X', sizeof err);
        int rc = bench__config_parse(&cfg, argc, argv, err, sizeof err);
        if (rc != BENCH_EINVAL || strcmp(err, malformed[k].message) != 0) {
            print_row(malformed[k].argv);
            print_message("row %zu: rc %d\n  got:      %s\n  expected: %s\n", k, rc, err,
                          malformed[k].message);
        }
        assert_int_equal(rc, BENCH_EINVAL);
        assert_string_equal(err, malformed[k].message);
        /* on failure the config is left released and zeroed */
        assert_null(cfg.include_src);
        assert_null(cfg.exclude_src);
        assert_null(cfg.metrics);
        assert_null(cfg.group_by);
        assert_null(cfg.syscall_names);
        assert_int_equal(cfg.n_metrics, 0);
    }
}

static void test_malformed_table_size(void **state)
{
    (void)state;
    assert_true(N_MALFORMED >= 45);
}

/* Every message is one line: the caller wraps it as "error: <msg> (see --help)\n". */
static void test_malformed_messages_are_one_line(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_MALFORMED; k++) {
        char *argv[MAX_ARGS + 1];
        int argc = make_argv(malformed[k].argv, argv);
        struct bench__config cfg;
        char err[BENCH__ERROR_MAX];
        assert_int_equal(bench__config_parse(&cfg, argc, argv, err, sizeof err), BENCH_EINVAL);
        assert_true(err[0] != '\0');
        if (strchr(err, '\n'))
            print_row(malformed[k].argv);
        assert_null(strchr(err, '\n'));
        assert_null(strchr(malformed[k].message, '\n'));
    }
}

/* The parser echoes a value verbatim, so a newline in the value reaches the message.
 * Current behaviour, asserted as is (see the report: the message spans two lines). */
static void test_newline_in_value_is_echoed(void **state)
{
    (void)state;
    char *argv[] = {(char *)"prog", (char *)"--metrics=a\nb", NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, 2, argv, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "option '--metrics': whitespace or control character in 'a\nb'");
}

static void test_null_argument(void **state)
{
    (void)state;
    char *argv[] = {(char *)"prog", (char *)"-v", NULL, NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, 3, argv, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "argument 2 is NULL");
}

/* A small error buffer truncates the message and never overflows. */
static void test_small_error_buffer(void **state)
{
    (void)state;
    char *argv[] = {(char *)"prog", (char *)"--frobnicate", NULL};
    struct bench__config cfg;
    char err[9];
    assert_int_equal(bench__config_parse(&cfg, 2, argv, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "unknown ");
    assert_int_equal(bench__config_parse(&cfg, 2, argv, NULL, 0), BENCH_EINVAL);
}

/* ---- valid inputs --------------------------------------------------------------- */

/* Unlisted fields are zero, NULL or false: the defaults. Lists hold the expected
 * elements; an empty expected list means the config's list is NULL. */
struct expect {
    bool help, version, list, verbose, no_colors;
    unsigned jobs;
    const char *include, *exclude;
    bool bench, perf, perf_scaled, list_metrics, metrics_help;
    uint64_t perf_iters, perf_batch, min_time_ms;
    bool syscalls;
    const char *syscall_names[MAX_ITEMS];
    const char *metrics[MAX_ITEMS];
    const char *sort_by;
    const char *group_by[MAX_ITEMS];
    const char *bench_json;
};

struct valid_case {
    const char *argv[MAX_ARGS];
    struct expect want;
};

static const struct valid_case valid[] = {
    {{"prog"}, {0}},
    {ARGV("-j4"), {.jobs = 4}},
    {ARGV("-j", "4"), {.jobs = 4}},
    {ARGV("--jobs=4"), {.jobs = 4}},
    {ARGV("--jobs", "4"), {.jobs = 4}},
    {ARGV("--jobs=1024"), {.jobs = 1024}},
    {ARGV("-j0"), {.jobs = 0}},
    {ARGV("--jobs=007"), {.jobs = 7}},
    {ARGV("-j", "1", "-j", "2"), {.jobs = 2}}, /* numbers may repeat: the last wins */
    {ARGV("--include=x"), {.include = "x"}},
    {ARGV("-ix"), {.include = "x"}},
    {ARGV("-i", "x"), {.include = "x"}},
    {ARGV("-i", "-v"), {.include = "-v"}}, /* a value is taken verbatim */
    {ARGV("-i", "^a\\.", "--exclude", "b|c"), {.include = "^a\\.", .exclude = "b|c"}},
    {ARGV("-ey"), {.exclude = "y"}},
    {ARGV("--metrics", "a,b", "--metrics", "c"), {.metrics = {"a", "b", "c"}}},
    {ARGV("--metrics=?"), {.metrics = {"?"}, .metrics_help = true}},
    {ARGV("--metrics", "help"), {.metrics = {"help"}, .metrics_help = true}},
    {ARGV("--metrics=cycles,help"), {.metrics = {"cycles", "help"}, .metrics_help = true}},
    {ARGV("--metrics=ipc", "--metrics=?"), {.metrics = {"ipc", "?"}, .metrics_help = true}},
    {ARGV("--metrics=helpful"), {.metrics = {"helpful"}}},
    {ARGV("--perf"), {.perf = true}},
    {ARGV("--perf-scaled"), {.perf = true, .perf_scaled = true}},
    {ARGV("--syscalls"), {.syscalls = true}},
    {ARGV("--syscalls=futex,write"), {.syscalls = true, .syscall_names = {"futex", "write"}}},
    {ARGV("--syscalls=futex", "--syscalls", "--syscalls=read,clock_gettime"),
     {.syscalls = true, .syscall_names = {"futex", "read", "clock_gettime"}}},
    {ARGV("--group-by=a,b"), {.group_by = {"a", "b"}}},
    {ARGV("--group-by", "a", "--group-by=b,c"), {.group_by = {"a", "b", "c"}}},
    {ARGV("--bench-min-time=0"), {.min_time_ms = 0}},
    {ARGV("--bench-min-time", "86400000"), {.min_time_ms = 86400000}},
    {ARGV("--bench", "--perf-iters=18446744073709551615", "--perf-batch", "1000"),
     {.bench = true, .perf_iters = UINT64_MAX, .perf_batch = 1000}},
    {ARGV("--sort-by", "name", "--bench-json=out.json"),
     {.sort_by = "name", .bench_json = "out.json"}},
    {ARGV("--bench-json", "-"), {.bench_json = "-"}},
    {ARGV("--list-metrics"), {.list_metrics = true}},
    {ARGV("--"), {0}},
    {ARGV("-v", "--"), {.verbose = true}},
    {ARGV("--help"), {.help = true}},
    {ARGV("-h"), {.help = true}},
    {ARGV("--version"), {.version = true}},
    {ARGV("-l", "-v", "--no-colors"), {.list = true, .verbose = true, .no_colors = true}},
    {ARGV("--list", "--verbose", "--verbose"), {.list = true, .verbose = true}},
};
#define N_VALID (sizeof valid / sizeof valid[0])

static void check_list(const char *what, size_t row, char **got, size_t n_got,
                       const char *const want[MAX_ITEMS])
{
    size_t n_want = 0;
    while (n_want < MAX_ITEMS && want[n_want])
        n_want++;
    if (n_got != n_want)
        print_message("row %zu: %s has %zu elements, expected %zu\n", row, what, n_got, n_want);
    assert_int_equal(n_got, n_want);
    if (n_want == 0) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    for (size_t i = 0; i < n_want; i++)
        assert_string_equal(got[i], want[i]);
    assert_null(got[n_want]);
}

static void check_string(const char *got, const char *want)
{
    if (want)
        assert_string_equal(got, want);
    else
        assert_null(got);
}

static void test_valid_table(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_VALID; k++) {
        char *argv[MAX_ARGS + 1];
        int argc = make_argv(valid[k].argv, argv);
        const struct expect *w = &valid[k].want;
        struct bench__config cfg;
        char err[BENCH__ERROR_MAX];
        int rc = bench__config_parse(&cfg, argc, argv, err, sizeof err);
        if (rc != 0) {
            print_row(valid[k].argv);
            print_message("row %zu: rc %d: %s\n", k, rc, err);
        }
        assert_int_equal(rc, 0);
        assert_string_equal(err, "");
        assert_ptr_equal(cfg.argv0, argv[0]);
        assert_int_equal(cfg.help, w->help);
        assert_int_equal(cfg.version, w->version);
        assert_int_equal(cfg.list, w->list);
        assert_int_equal(cfg.verbose, w->verbose);
        assert_int_equal(cfg.no_colors, w->no_colors);
        assert_int_equal(cfg.jobs, w->jobs);
        check_string(cfg.include_src, w->include);
        check_string(cfg.exclude_src, w->exclude);
        assert_int_equal(cfg.bench, w->bench);
        assert_int_equal(cfg.perf, w->perf);
        assert_int_equal(cfg.perf_scaled, w->perf_scaled);
        assert_int_equal(cfg.list_metrics, w->list_metrics);
        assert_int_equal(cfg.metrics_help, w->metrics_help);
        assert_int_equal(cfg.perf_iters, w->perf_iters);
        assert_int_equal(cfg.perf_batch, w->perf_batch);
        assert_int_equal(cfg.min_time_ms, w->min_time_ms);
        assert_int_equal(cfg.syscalls, w->syscalls);
        check_list("syscall_names", k, cfg.syscall_names, cfg.n_syscall_names, w->syscall_names);
        check_list("metrics", k, cfg.metrics, cfg.n_metrics, w->metrics);
        check_string(cfg.sort_by, w->sort_by);
        check_list("group_by", k, cfg.group_by, cfg.n_group_by, w->group_by);
        check_string(cfg.bench_json, w->bench_json);
        bench__config_free(&cfg);
        assert_null(cfg.metrics);
        assert_null(cfg.include_src);
    }
}

static void test_valid_table_size(void **state)
{
    (void)state;
    assert_true(N_VALID >= 15);
}

/* Values point into argv (no copies); the regexes are compiled as POSIX EREs. */
static void test_values_point_into_argv_and_regex_compiled(void **state)
{
    (void)state;
    char *argv[] = {(char *)"prog", (char *)"--include=^core\\.(a|b)$", (char *)"-e",
                    (char *)"b", NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, 4, argv, err, sizeof err), 0);
    assert_ptr_equal(cfg.include_src, argv[1] + strlen("--include="));
    assert_ptr_equal(cfg.exclude_src, argv[3]);
    assert_int_equal(regexec(&cfg.include_re, "core.a", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&cfg.include_re, "core.c", 0, NULL, 0), 0);
    assert_int_not_equal(regexec(&cfg.include_re, "xcore.a", 0, NULL, 0), 0);
    assert_int_equal(regexec(&cfg.exclude_re, "core.b", 0, NULL, 0), 0);
    bench__config_free(&cfg);
}

/* Without argv[0] the program calls itself "bench". */
static void test_argv0_default(void **state)
{
    (void)state;
    char *argv[] = {NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, 0, argv, err, sizeof err), 0);
    assert_string_equal(cfg.argv0, "bench");
    bench__config_free(&cfg);
}

/* A config can be parsed again after a failure and after a free. */
static void test_parse_after_failure(void **state)
{
    (void)state;
    char *bad[] = {(char *)"prog", (char *)"--metrics=a", (char *)"--bogus", NULL};
    char *good[] = {(char *)"prog", (char *)"--metrics=b", NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, 3, bad, err, sizeof err), BENCH_EINVAL);
    assert_int_equal(bench__config_parse(&cfg, 2, good, err, sizeof err), 0);
    assert_int_equal(cfg.n_metrics, 1);
    assert_string_equal(cfg.metrics[0], "b");
    bench__config_free(&cfg);
    bench__config_free(&cfg); /* freeing a zeroed config is harmless */
}

/* ---- bench__argv_wants_bench ------------------------------------------------------ */

struct wants_case {
    const char *argv[MAX_ARGS];
    bool want;
};

static const struct wants_case wants[] = {
    {ARGV("--bench"), true},
    {ARGV("-v", "--bench", "--perf"), true},
    {ARGV("--list-metrics"), true},
    {ARGV("--metrics=?"), true},
    {ARGV("--metrics", "?"), true},
    {ARGV("--metrics", "help"), true},
    {ARGV("--metrics=help"), true},
    {{"prog"}, false},
    {ARGV("--bench-json=x"), false},
    {ARGV("--perf"), false},
    {ARGV("--", "--bench"), false},
    {ARGV("--metrics"), false},
    {ARGV("--metrics=cycles"), false},
    {ARGV("--metrics", "cycles"), false},
    {ARGV("-l", "-v"), false},
};

static void test_argv_wants_bench(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof wants / sizeof wants[0]; k++) {
        char *argv[MAX_ARGS + 1];
        int argc = make_argv(wants[k].argv, argv);
        bool got = bench__argv_wants_bench(argc, argv);
        if (got != wants[k].want) {
            print_row(wants[k].argv);
            print_message("row %zu: got %d\n", k, got);
        }
        assert_int_equal(got, wants[k].want);
    }
}

/* No arguments at all (argc 0) is not bench mode. */
static void test_argv_wants_bench_empty(void **state)
{
    (void)state;
    char *argv[] = {NULL};
    assert_false(bench__argv_wants_bench(0, argv));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed_table_size),
        cmocka_unit_test(test_malformed_table),
        cmocka_unit_test(test_malformed_messages_are_one_line),
        cmocka_unit_test(test_newline_in_value_is_echoed),
        cmocka_unit_test(test_null_argument),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_valid_table_size),
        cmocka_unit_test(test_valid_table),
        cmocka_unit_test(test_values_point_into_argv_and_regex_compiled),
        cmocka_unit_test(test_argv0_default),
        cmocka_unit_test(test_parse_after_failure),
        cmocka_unit_test(test_argv_wants_bench),
        cmocka_unit_test(test_argv_wants_bench_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
