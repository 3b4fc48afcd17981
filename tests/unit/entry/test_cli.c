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

#include <bench/errors.h>

#include "entry/cli.h"

#define MAX_ARGS 12
#define MAX_ITEMS 6

/* An argv row: "prog" followed by the given words; the rest of the array is NULL. */
#define ARGV(...)                                                                                  \
    {                                                                                              \
        "prog", __VA_ARGS__                                                                        \
    }

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
    {ARGV("-bnech"), "unknown option '-bnech'"}, /* not a long name: no suggestion */
    {ARGV("-x\n"), "unknown option '-x?'"},
    /* a long option spelled with one dash: the double-dash form is suggested */
    {ARGV("-bench"), "unknown option '-bench' (did you mean '--bench'?)"},
    {ARGV("-include=foo"), "unknown option '-include=foo' (did you mean '--include'?)"},
    {ARGV("-include", "foo"), "unknown option '-include' (did you mean '--include'?)"},
    {ARGV("-exclude=x"), "unknown option '-exclude=x' (did you mean '--exclude'?)"},
    {ARGV("-verbose"), "unknown option '-verbose' (did you mean '--verbose'?)"},
    {ARGV("-help"), "unknown option '-help' (did you mean '--help'?)"},
    {ARGV("-jobs=4"), "unknown option '-jobs=4' (did you mean '--jobs'?)"},
    {ARGV("-jobs", "4"), "unknown option '-jobs' (did you mean '--jobs'?)"},
    {ARGV("-list"), "unknown option '-list' (did you mean '--list'?)"},
    {ARGV("-version"), "unknown option '-version' (did you mean '--version'?)"},
    {ARGV("-no-colors"), "unknown option '-no-colors' (did you mean '--no-colors'?)"},
    {ARGV("-list-metrics"), "unknown option '-list-metrics' (did you mean '--list-metrics'?)"},
    {ARGV("-metrics=?"), "unknown option '-metrics=?' (did you mean '--metrics'?)"},
    {ARGV("-syscalls"), "unknown option '-syscalls' (did you mean '--syscalls'?)"},
    {ARGV("-bench-json=out.json"),
     "unknown option '-bench-json=out.json' (did you mean '--bench-json'?)"},
    {ARGV("-v", "-bench-min-time=5"),
     "unknown option '-bench-min-time=5' (did you mean '--bench-min-time'?)"},
    /* bundled short flags */
    {ARGV("-vl"), "unknown option '-vl' (short flags do not combine; write them separately)"},
    {ARGV("-hv"), "unknown option '-hv' (short flags do not combine; write them separately)"},
    {ARGV("-verbos"),
     "unknown option '-verbos' (short flags do not combine; write them separately)"},
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
    {ARGV("--bench", "--bench-rounds"), "option '--bench-rounds' needs a value (N)"},
    /* numbers */
    {ARGV("-j", "four"), "option '-j' needs a non-negative integer, got 'four'"},
    {ARGV("-j", "-1"), "option '-j' needs a non-negative integer, got '-1'"},
    {ARGV("-j-1"), "option '-j' needs a non-negative integer, got '-1'"},
    /* a short option's value is never attached with '=' */
    {ARGV("-j=4"), "option '-j' takes its value as '-j VALUE' or '-jVALUE', not '-j=4'"},
    {ARGV("-j="), "option '-j' takes its value as '-j VALUE' or '-jVALUE', not '-j='"},
    {ARGV("-i=foo"), "option '-i' takes its value as '-i VALUE' or '-iVALUE', not '-i=foo'"},
    {ARGV("-e=a=b"), "option '-e' takes its value as '-e VALUE' or '-eVALUE', not '-e=a=b'"},
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
    {ARGV("--bench-rounds=33"), "option '--bench-rounds': '33' is too large (at most 32)"},
    {ARGV("--bench-precision=0"), "option '--bench-precision' needs a percentage above 0 and at "
                                  "most 100 (like 1 or 0.5), got '0'"},
    {ARGV("--bench-precision=101"), "option '--bench-precision' needs a percentage above 0 and "
                                    "at most 100 (like 1 or 0.5), got '101'"},
    {ARGV("--bench-precision=1e2"), "option '--bench-precision' needs a percentage above 0 and "
                                    "at most 100 (like 1 or 0.5), got '1e2'"},
    {ARGV("--bench-precision=1.2.3"), "option '--bench-precision' needs a percentage above 0 and "
                                      "at most 100 (like 1 or 0.5), got '1.2.3'"},
    {ARGV("--bench-precision=-1"), "option '--bench-precision' needs a percentage above 0 and "
                                   "at most 100 (like 1 or 0.5), got '-1'"},
    {ARGV("--bench-rounds", "18446744073709551616"),
     "option '--bench-rounds': '18446744073709551616' is too large (at most 32)"},
    {ARGV("--bench-rounds=x"), "option '--bench-rounds' needs a non-negative integer, got 'x'"},
    {ARGV("--bench-rounds=-1"), "option '--bench-rounds' needs a non-negative integer, got '-1'"},
    {ARGV("--bench-rounds=4.5"), "option '--bench-rounds' needs a non-negative integer, got '4.5'"},
    {ARGV("--bench-rounds="), "option '--bench-rounds' needs a number, got an empty value"},
    {ARGV("--timeout=x"), "option '--timeout' needs a non-negative integer, got 'x'"},
    {ARGV("--timeout=-1"), "option '--timeout' needs a non-negative integer, got '-1'"},
    {ARGV("--timeout=1.5"), "option '--timeout' needs a non-negative integer, got '1.5'"},
    {ARGV("--timeout=86401"), "option '--timeout': '86401' is too large (at most 86400)"},
    {ARGV("--timeout="), "option '--timeout' needs a number, got an empty value"},
    {ARGV("--timeout"), "option '--timeout' needs a value (SECONDS)"},
    {ARGV("--timeout=1", "--timeout=2"), "option '--timeout' given more than once"},
    {ARGV("--timout=1"), "unknown option '--timout' (did you mean '--timeout'?)"},
    {ARGV("--isolate=process"), "option '--isolate': unknown mode 'process' (test or worker)"},
    {ARGV("--isolate=Worker"), "option '--isolate': unknown mode 'Worker' (test or worker)"},
    {ARGV("--isolate="), "option '--isolate' needs a non-empty value"},
    {ARGV("--isolate"), "option '--isolate' needs a value (MODE)"},
    {ARGV("--isolate=test", "--isolate=test"), "option '--isolate' given more than once"},
    {ARGV("--isolated=worker"), "unknown option '--isolated' (did you mean '--isolate'?)"},
    {ARGV("--bench-timeout=1s"), "option '--bench-timeout' needs a non-negative integer, got '1s'"},
    {ARGV("--bench-timeout", "86401"),
     "option '--bench-timeout': '86401' is too large (at most 86400)"},
    {ARGV("--bench-timeout=0", "--bench-timeout=0"),
     "option '--bench-timeout' given more than once"},
    {ARGV("--bench-timeot=5"), "unknown option '--bench-timeot' (did you mean '--bench-timeout'?)"},
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
    /* --bench-format: a known word, once, and only with --bench-json */
    {ARGV("--bench-json=a", "--bench-format=csv"),
     "option '--bench-format': unknown format 'csv' (libbench, gbench or bmf)"},
    {ARGV("--bench-json=a", "--bench-format", "GBENCH"),
     "option '--bench-format': unknown format 'GBENCH' (libbench, gbench or bmf)"},
    {ARGV("--bench-json=a", "--bench-format="), "option '--bench-format' needs a non-empty value"},
    {ARGV("--bench-json=a", "--bench-format=bmf", "--bench-format=bmf"),
     "option '--bench-format' given more than once"},
    {ARGV("--bench-format=gbench"), "option '--bench-format' needs --bench-json=FILE (it chooses "
                                    "the format of that document)"},
    {ARGV("--bench", "--bench-format=libbench"),
     "option '--bench-format' needs --bench-json=FILE (it chooses the format of that document)"},
    /* numbers are single-valued too (flags may repeat, lists accumulate) */
    {ARGV("-j", "1", "-j", "2"), "option '-j' given more than once"},
    {ARGV("-j1", "-j1"), "option '-j' given more than once"},
    {ARGV("--jobs=1", "-j", "2"), "option '-j' given more than once"},
    {ARGV("-j", "1", "--jobs=2"), "option '--jobs' given more than once"},
    {ARGV("-j", "1", "-j", "x"), "option '-j' given more than once"}, /* before the value */
    {ARGV("--perf-iters=1", "--perf-iters", "1"), "option '--perf-iters' given more than once"},
    {ARGV("--perf-batch=0", "--perf-batch=0"), "option '--perf-batch' given more than once"},
    {ARGV("--bench", "--bench-min-time=5", "--bench", "--bench-min-time=6"),
     "option '--bench-min-time' given more than once"},
    {ARGV("--bench-rounds=4", "--bench-rounds", "4"),
     "option '--bench-rounds' given more than once"},
    /* stray positionals */
    {ARGV("foo"), "unexpected positional argument 'foo' (this program takes options only)"},
    {ARGV("-"), "unexpected positional argument '-' (this program takes options only)"},
    {ARGV("-v", "tests/x"),
     "unexpected positional argument 'tests/x' (this program takes options only)"},
    {ARGV("a\nb"), "unexpected positional argument 'a?b' (this program takes options only)"},
    /* only a bare --syscalls right before it gets the '=' hint */
    {ARGV("--syscalls", "futex"), "unexpected positional argument 'futex' \xe2\x80\x94 "
                                  "--syscalls takes its list only with '=' (--syscalls=futex)"},
    {ARGV("-v", "--syscalls", "read"), "unexpected positional argument 'read' \xe2\x80\x94 "
                                       "--syscalls takes its list only with '=' (--syscalls=read)"},
    {ARGV("--syscalls=futex", "--syscalls", "write"),
     "unexpected positional argument 'write' \xe2\x80\x94 --syscalls takes its list only with "
     "'=' (--syscalls=write)"},
    {ARGV("--syscalls=futex", "read"),
     "unexpected positional argument 'read' (this program takes options only)"},
    {ARGV("--syscalls", "-v", "futex"),
     "unexpected positional argument 'futex' (this program takes options only)"},
    {ARGV("--", "foo"),
     "unexpected argument 'foo' after '--' (this program takes no positional arguments)"},
    {ARGV("--", "--bench"),
     "unexpected argument '--bench' after '--' (this program takes no positional arguments)"},
    {ARGV("-v", "--", ""),
     "unexpected argument '' after '--' (this program takes no positional arguments)"},
    {ARGV("--", "x\ny"),
     "unexpected argument 'x?y' after '--' (this program takes no positional arguments)"},
    /* syscall names */
    {ARGV("--syscalls=Futex"), "option '--syscalls': 'Futex' is not a syscall name ([a-z0-9_]+)"},
    {ARGV("--syscalls=futex,write-v"),
     "option '--syscalls': 'write-v' is not a syscall name ([a-z0-9_]+)"},
    {ARGV("--syscalls=a,,b"), "option '--syscalls': empty element in 'a,,b'"},
    {ARGV("--syscalls=futex", "--syscalls=read,"), "option '--syscalls': empty element in 'read,'"},
    {ARGV("--syscalls=fu tex"), "option '--syscalls': whitespace or control character in 'fu tex'"},
    {ARGV("--syscalls=fu\x01tex"),
     "option '--syscalls': whitespace or control character in 'fu?tex'"},
    /* list elements */
    {ARGV("--metrics=a,,b"), "option '--metrics': empty element in 'a,,b'"},
    {ARGV("--metrics", ",a"), "option '--metrics': empty element in ',a'"},
    {ARGV("--metrics=a,"), "option '--metrics': empty element in 'a,'"},
    {ARGV("--group-by=a,"), "option '--group-by': empty element in 'a,'"},
    {ARGV("--group-by", ","), "option '--group-by': empty element in ','"},
    {ARGV("--metrics=a, b"), "option '--metrics': whitespace or control character in 'a, b'"},
    {ARGV("--metrics", "cycles "),
     "option '--metrics': whitespace or control character in 'cycles '"},
    /* control characters echoed from a value become '?': every message is one line */
    {ARGV("--group-by=a\tb"), "option '--group-by': whitespace or control character in 'a?b'"},
    {ARGV("--metrics=a\nb"), "option '--metrics': whitespace or control character in 'a?b'"},
    {ARGV("--metrics", "\r\n"), "option '--metrics': whitespace or control character in '?\?'"},
    {ARGV("-j", "1\n"), "option '-j' needs a non-negative integer, got '1?'"},
    {ARGV("-j\x7f"), "option '-j' needs a non-negative integer, got '?'"},
    {ARGV("--frob\x1b[31m"), "unknown option '--frob?[31m'"},
    /* invalid regular expressions (glibc's regerror text) */
    {ARGV("-i", "("), "invalid --include regular expression '(': Unmatched ( or \\("},
    {ARGV("--exclude=[a"),
     "invalid --exclude regular expression '[a': Unmatched [, [^, [:, [., or [="},
    {ARGV("-i", "a{1"), "invalid --include regular expression 'a{1': Unmatched \\{"},
    {ARGV("-e", "*a"),
     "invalid --exclude regular expression '*a': Invalid preceding regular expression"},
    {ARGV("-i", "(\n"), "invalid --include regular expression '(?': Unmatched ( or \\("},
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
        assert_int_equal(cfg.n_source_flags, 0); /* with their values */
        assert_int_equal(cfg.n_metrics, 0);
    }
}

static void test_malformed_table_size(void **state)
{
    (void)state;
    assert_true(N_MALFORMED >= 45);
}

/* The first control character (a byte below 0x20, or 0x7f) in s, or NULL. */
static const char *find_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return s;
    return NULL;
}

/* Every message is one line without control characters: the caller wraps it as
 * "error: <msg> (see --help)\n". */
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
        if (find_control(err))
            print_row(malformed[k].argv);
        assert_null(find_control(err));
        assert_null(find_control(malformed[k].message));
    }
}

/* A control character in an echoed value is replaced by '?', one for one, wherever the
 * value appears, so the message stays on one line. Every byte from 0x01 to 0x1f and
 * 0x7f is tried in a value that is echoed twice (the --syscalls hint). */
static void test_control_characters_in_value_become_question_marks(void **state)
{
    (void)state;
    char *argv[] = {(char *)"prog", (char *)"--metrics=a\nb", NULL};
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, 2, argv, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "option '--metrics': whitespace or control character in 'a?b'");
    assert_null(strchr(err, '\n'));

    for (int c = 1; c < 0x80; c++) {
        if (c == 0x20)
            c = 0x7f;
        char value[] = {'f', (char)c, 'x', '\0'};
        char *av[] = {(char *)"prog", (char *)"--syscalls", value, NULL};
        const char *want = "unexpected positional argument 'f?x' \xe2\x80\x94 --syscalls "
                           "takes its list only with '=' (--syscalls=f?x)";
        assert_int_equal(bench__config_parse(&cfg, 3, av, err, sizeof err), BENCH_EINVAL);
        if (strcmp(err, want))
            print_message("byte 0x%02x\n", c);
        assert_string_equal(err, want);
        assert_null(find_control(err));
    }
    /* printable ASCII and UTF-8 pass through unchanged */
    char *av[] = {(char *)"prog", (char *)"--syscalls=caf\xc3\xa9~", NULL};
    assert_int_equal(bench__config_parse(&cfg, 2, av, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err,
                        "option '--syscalls': 'caf\xc3\xa9~' is not a syscall name ([a-z0-9_]+)");
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

/* A small error buffer cuts the message, marks the cut (U+2026) and never overflows. */
static void test_small_error_buffer(void **state)
{
    (void)state;
    char *argv[] = {(char *)"prog", (char *)"--frobnicate", NULL};
    struct bench__config cfg;
    char err[9];
    assert_int_equal(bench__config_parse(&cfg, 2, argv, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "unkno\xe2\x80\xa6");
    char one[1] = {'X'};
    assert_int_equal(bench__config_parse(&cfg, 2, argv, one, sizeof one), BENCH_EINVAL);
    assert_int_equal(one[0], '\0');
    /* truncation and the control-character rule together */
    char *nl[] = {(char *)"prog", (char *)"--", (char *)"\n\n\n\n", NULL};
    char small[27];
    assert_int_equal(bench__config_parse(&cfg, 3, nl, small, sizeof small), BENCH_EINVAL);
    assert_string_equal(small, "unexpected argument '??\xe2\x80\xa6");
}

/* Without an error buffer (size 0) the message is dropped: nothing is written or read
 * through the buffer, NULL included. */
static void test_no_error_buffer(void **state)
{
    (void)state;
    char *argv[] = {(char *)"prog", (char *)"--frobnicate", NULL};
    struct bench__config cfg;
    char guard[4] = {'X', 'X', 'X', 'X'}; /* no NUL: reading it would run off the end */
    assert_int_equal(bench__config_parse(&cfg, 2, argv, guard, 0), BENCH_EINVAL);
    assert_memory_equal(guard, "XXXX", 4);
    assert_int_equal(bench__config_parse(&cfg, 2, argv, NULL, 0), BENCH_EINVAL);
}

/* ---- valid inputs --------------------------------------------------------------- */

/* Unlisted fields are zero, NULL or false: the defaults. Lists hold the expected
 * elements; an empty expected list means the config's list is NULL. */
struct expect {
    bool help, version, list, verbose, no_colors;
    unsigned jobs;
    bool set_timeout, set_bench_timeout; /* false: the defaults (300 s, 600 s) */
    unsigned timeout, bench_timeout;
    enum bench__isolate isolate;
    const char *include, *exclude;
    bool bench, perf, perf_scaled, list_metrics, metrics_help;
    uint64_t perf_iters, perf_batch, min_time_ms;
    unsigned rounds;
    double bench_precision;
    bool syscalls;
    const char *syscall_names[MAX_ITEMS];
    const char *metrics[MAX_ITEMS];
    const char *sort_by;
    const char *group_by[MAX_ITEMS];
    const char *bench_json;
    enum bench__doc_format bench_format;
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
    {ARGV("--include=x"), {.include = "x"}},
    {ARGV("-ix"), {.include = "x"}},
    {ARGV("-i", "x"), {.include = "x"}},
    {ARGV("-i", "-v"), {.include = "-v"}}, /* a value is taken verbatim */
    {ARGV("-i", "-include=foo"), {.include = "-include=foo"}},
    {ARGV("-i", "=x"), {.include = "=x"}},
    {ARGV("-ia=b"), {.include = "a=b"}},
    /* an attached value that is not itself a long option name */
    {ARGV("-ihelp"), {.include = "help"}},
    {ARGV("-ejobs"), {.exclude = "jobs"}},
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
    {ARGV("--bench-rounds=0"), {.rounds = 0}},
    {ARGV("--bench-rounds=1"), {.rounds = 1}},
    {ARGV("--bench-rounds", "4"), {.rounds = 4}},
    {ARGV("--bench", "--bench-rounds=32"), {.bench = true, .rounds = 32}},
    {ARGV("--bench-rounds=004"), {.rounds = 4}},
    {ARGV("--bench", "--perf-iters=18446744073709551615", "--perf-batch", "1000"),
     {.bench = true, .perf_iters = UINT64_MAX, .perf_batch = 1000}},
    {ARGV("--sort-by", "name", "--bench-json=out.json"),
     {.sort_by = "name", .bench_json = "out.json"}},
    {ARGV("--bench-json", "-"), {.bench_json = "-"}},
    {ARGV("--bench-json=o", "--bench-format=gbench"),
     {.bench_json = "o", .bench_format = BENCH__DOC_GBENCH}},
    {ARGV("--bench-format", "bmf", "--bench-json", "o"),
     {.bench_json = "o", .bench_format = BENCH__DOC_BMF}},
    {ARGV("--bench-json=o", "--bench-format=libbench"),
     {.bench_json = "o", .bench_format = BENCH__DOC_LIBBENCH}},
    {ARGV("--list-metrics"), {.list_metrics = true}},
    {ARGV("--"), {0}},
    {ARGV("-v", "--"), {.verbose = true}},
    {ARGV("--help"), {.help = true}},
    {ARGV("-h"), {.help = true}},
    {ARGV("--version"), {.version = true}},
    {ARGV("-l", "-v", "--no-colors"), {.list = true, .verbose = true, .no_colors = true}},
    /* flags may repeat */
    {ARGV("--list", "--verbose", "--verbose"), {.list = true, .verbose = true}},
    {ARGV("-v", "-v", "--verbose", "-h", "--help"), {.verbose = true, .help = true}},
    {ARGV("--bench", "--bench", "--perf", "--perf-scaled", "--perf"),
     {.bench = true, .perf = true, .perf_scaled = true}},
    {ARGV("--list-metrics", "--list-metrics", "--no-colors", "--no-colors"),
     {.list_metrics = true, .no_colors = true}},
    {ARGV("--syscalls", "--syscalls"), {.syscalls = true}},
    /* timeouts: seconds, 0 = none, at most a day */
    {ARGV("--timeout=0"), {.set_timeout = true, .timeout = 0}},
    {ARGV("--isolate=test"), {.isolate = BENCH__ISOLATE_TEST}},
    {ARGV("--isolate", "worker"), {.isolate = BENCH__ISOLATE_WORKER}},
    {ARGV("--isolate=worker", "-j", "2"), {.isolate = BENCH__ISOLATE_WORKER, .jobs = 2}},
    {ARGV("--timeout", "5"), {.set_timeout = true, .timeout = 5}},
    {ARGV("--timeout=86400"), {.set_timeout = true, .timeout = 86400}},
    {ARGV("--bench-timeout=0"), {.set_bench_timeout = true, .bench_timeout = 0}},
    {ARGV("--bench", "--bench-timeout", "30", "--timeout=7"),
     {.bench = true,
      .set_timeout = true,
      .timeout = 7,
      .set_bench_timeout = true,
      .bench_timeout = 30}},
    /* a list keeps each element once, at its first place */
    {ARGV("--metrics=a,b,a", "--metrics=b,c,a,c"), {.metrics = {"a", "b", "c"}}},
    {ARGV("--metrics=x", "--metrics=x", "--metrics=x,x"), {.metrics = {"x"}}},
    {ARGV("--group-by=impl,impl", "--group-by=size"), {.group_by = {"impl", "size"}}},
    {ARGV("--syscalls=read,write,read", "--syscalls=write"),
     {.syscalls = true, .syscall_names = {"read", "write"}}},
    /* single-valued options once each, next to each other */
    {ARGV("-j", "2", "--perf-iters=3", "--perf-batch", "4", "--bench-min-time=5",
          "--bench-rounds=8"),
     {.jobs = 2, .perf_iters = 3, .perf_batch = 4, .min_time_ms = 5, .rounds = 8}},
    {ARGV("--bench-precision=0.5"), {.bench_precision = 0.005}},
    {ARGV("--bench-precision", "100"), {.bench_precision = 1.0}},
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

/* Was the flag a counting source declares given (every source flag is in the config)? */
static bool flag_given(const struct bench__config *cfg, const char *name)
{
    const struct bench__source_flag *flag = bench__config_flag(cfg, name);
    assert_non_null(flag);
    return flag->given;
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
        assert_int_equal(cfg.timeout, w->set_timeout ? w->timeout : BENCH__TIMEOUT_DEFAULT);
        assert_int_equal(cfg.isolate, w->isolate);
        assert_int_equal(cfg.bench_timeout,
                         w->set_bench_timeout ? w->bench_timeout : BENCH__BENCH_TIMEOUT_DEFAULT);
        check_string(cfg.include_src, w->include);
        check_string(cfg.exclude_src, w->exclude);
        assert_int_equal(cfg.bench, w->bench);
        assert_int_equal(flag_given(&cfg, "perf"), w->perf);
        assert_int_equal(cfg.perf_scaled, w->perf_scaled);
        assert_int_equal(cfg.list_metrics, w->list_metrics);
        assert_int_equal(cfg.metrics_help, w->metrics_help);
        assert_int_equal(cfg.perf_iters, w->perf_iters);
        assert_int_equal(cfg.perf_batch, w->perf_batch);
        assert_int_equal(cfg.min_time_ms, w->min_time_ms);
        assert_int_equal(cfg.rounds, w->rounds);
        assert_true(cfg.bench_precision == w->bench_precision);
        assert_int_equal(flag_given(&cfg, "syscalls"), w->syscalls);
        const struct bench__source_flag *sc = bench__config_flag(&cfg, "syscalls");
        assert_non_null(sc);
        check_list("syscall_names", k, sc->values, sc->n_values, w->syscall_names);
        check_list("metrics", k, cfg.metrics, cfg.n_metrics, w->metrics);
        check_string(cfg.sort_by, w->sort_by);
        check_list("group_by", k, cfg.group_by, cfg.n_group_by, w->group_by);
        check_string(cfg.bench_json, w->bench_json);
        assert_int_equal(cfg.bench_format, w->bench_format);
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
    char *argv[] = {(char *)"prog", (char *)"--include=^core\\.(a|b)$", (char *)"-e", (char *)"b",
                    NULL};
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
/* -i and -e patterns up to BENCH__PATTERN_MAX bytes are compiled; longer ones are refused
 * before regcomp sees them (a long alternation once took minutes and gigabytes). */
static void test_pattern_cap(void **state)
{
    (void)state;
    static char pattern[BENCH__PATTERN_MAX + 2];
    memset(pattern, 'a', BENCH__PATTERN_MAX);
    pattern[BENCH__PATTERN_MAX] = '\0';
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    char *argv[] = {(char *)"prog", (char *)"-i", pattern, (char *)"-e", pattern, NULL};
    assert_int_equal(bench__config_parse(&cfg, 5, argv, err, sizeof err), 0);
    assert_ptr_equal(cfg.include_src, pattern);
    bench__config_free(&cfg);
    pattern[BENCH__PATTERN_MAX] = 'a'; /* one byte over */
    pattern[BENCH__PATTERN_MAX + 1] = '\0';
    assert_int_equal(bench__config_parse(&cfg, 3, argv, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "option '--include': the pattern is 4097 bytes long (at most 4096)");
    char *ex[] = {(char *)"prog", (char *)"-i", (char *)"x", (char *)"--exclude", pattern, NULL};
    assert_int_equal(bench__config_parse(&cfg, 5, ex, err, sizeof err), BENCH_EINVAL);
    assert_string_equal(err, "option '--exclude': the pattern is 4097 bytes long (at most 4096)");
    assert_null(cfg.include_src); /* the compiled --include was released */
}

/* The same selector 2000 times (interleaved with others) is one selector: the run warns or
 * refuses once. */
static void test_repeated_selectors(void **state)
{
    (void)state;
    enum { N_ARGS = 2001 };
    static char *argv[N_ARGS + 1];
    argv[0] = (char *)"prog";
    for (int i = 1; i < N_ARGS; i++)
        argv[i] = (char *)(i % 3 == 0 ? "--metrics=b,nosuch" : "--metrics=nosuch");
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    assert_int_equal(bench__config_parse(&cfg, N_ARGS, argv, err, sizeof err), 0);
    assert_int_equal(cfg.n_metrics, 2);
    assert_string_equal(cfg.metrics[0], "nosuch");
    assert_string_equal(cfg.metrics[1], "b");
    assert_null(cfg.metrics[2]);
    bench__config_free(&cfg);
}

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
    /* the real parser decides: a list containing ? or help, anywhere */
    {ARGV("--metrics=cycles,help"), true},
    {ARGV("--metrics=ipc", "--metrics=?"), true},
    {ARGV("--metrics", "cycles,?", "-v"), true},
    {ARGV("--perf", "--list-metrics", "--no-colors"), true},
    /* --bench as the value of another option is not the flag */
    {ARGV("-i", "--bench"), false},
    {ARGV("-e", "--bench"), false},
    {ARGV("--bench-json", "--bench"), false},
    {ARGV("--sort-by", "--list-metrics"), false},
    {ARGV("--include", "--metrics=?"), false},
    {ARGV("--metrics=helpful"), false},
    {ARGV("--metrics=cycles,help-me"), false},
    /* malformed: bench mode only when a literal --bench appears before any -- */
    {ARGV("--bench", "--bogus"), true},
    {ARGV("--bogus", "--bench"), true},
    {ARGV("--bench", "-j", "x"), true},
    {ARGV("--bench", "--", "stray"), true},
    {ARGV("-i", "--bench", "--bogus"), true},
    {ARGV("--list-metrics", "--bogus"), false},
    {ARGV("--metrics=?", "stray"), false},
    {ARGV("--bogus", "--", "--bench"), false},
    {ARGV("--bench=1"), false},
    {ARGV("-bench"), false},
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
        cmocka_unit_test(test_control_characters_in_value_become_question_marks),
        cmocka_unit_test(test_null_argument),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_valid_table_size),
        cmocka_unit_test(test_valid_table),
        cmocka_unit_test(test_values_point_into_argv_and_regex_compiled),
        cmocka_unit_test(test_pattern_cap),
        cmocka_unit_test(test_repeated_selectors),
        cmocka_unit_test(test_argv0_default),
        cmocka_unit_test(test_parse_after_failure),
        cmocka_unit_test(test_argv_wants_bench),
        cmocka_unit_test(test_argv_wants_bench_empty),
        /* last: under ASan a failure here aborts the whole program */
        cmocka_unit_test(test_no_error_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
