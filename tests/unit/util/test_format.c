/* SPDX-License-Identifier: MIT */
/* test_format.c: bench__format_ns against the timing-cell rules of inventory 4.1, and
 * bench__shell_quote / bench__regex_escape (POSIX quoting, ERE self-matching). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/format.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bench__format_ns ------------------------------------------------------------------ */

struct ns_case {
    double ns;
    const char *want;
    const char *why;
};

/* Expected values follow the rules, not the code: < 1000 ns is "%.2fns"; >= 1000 ns is
 * rounded to whole ns first, then one decimal (half-up) in the unit chosen from that
 * rounded value (µs < 1 ms, ms < 1 s, s < 60 s, then m, h, d), never promoted after the
 * one-decimal rounding. Not measured (NaN, negative) is an em dash. */
static const struct ns_case ns_cases[] = {
    {0.0, "0.00ns", "zero"},
    {0.004, "0.00ns", "rounds down under %.2f"},
    {11.48, "11.48ns", "inventory example"},
    {999.994, "999.99ns", "below 1000 stays ns"},
    /* 999.995 is 999.99500000000000454... as a double: still < 1000, so "%.2fns", and
     * %.2f of that double rounds up to 1000.00 (no promotion to µs) */
    {999.995, "1000.00ns", "%.2f of the nearest double"},
    {999.999, "1000.00ns", "%.2f rule below 1000 ns, no promotion"},
    {1000.0, "1.0\xc2\xb5s", "first microsecond"},
    {1049.0, "1.0\xc2\xb5s", "1.049 rounds down"},
    {1050.0, "1.1\xc2\xb5s", "half-up"},
    {1049.4, "1.0\xc2\xb5s", "whole ns 1049"},
    {1049.6, "1.1\xc2\xb5s", "rounded to 1050 ns first, then half-up"},
    {1150.0, "1.2\xc2\xb5s", "half-up (1.15 is inexact in binary)"},
    {999949.0, "999.9\xc2\xb5s", "just under the tie"},
    {999950.0, "1000.0\xc2\xb5s", "no unit promotion after rounding"},
    {999949.5, "1000.0\xc2\xb5s", "whole ns 999950, no promotion"},
    {999999.0, "1000.0\xc2\xb5s", "still µs"},
    {1e6, "1.0ms", "first millisecond"},
    {1.5e6, "1.5ms", "ms"},
    {1.05e6, "1.1ms", "ms half-up"},
    {999.95e6, "1000.0ms", "no promotion to s"},
    {1e9, "1.0s", "first second"},
    {2.25e9, "2.3s", "s half-up"},
    {59.99e9, "60.0s", "59.99 s rounds to 60.0 in s, no promotion"},
    {60e9, "1.0m", "first minute"},
    {90e9, "1.5m", "minutes"},
    {3599.97e9, "60.0m", "no promotion to h"},
    {3600e9, "1.0h", "first hour"},
    {5400e9, "1.5h", "hours"},
    {86399.99e9, "24.0h", "no promotion to d"},
    {86400e9, "1.0d", "first day"},
    {129600e9, "1.5d", "days"},
    {864000e9, "10.0d", "days do not promote further"},
    {NAN, "\xe2\x80\x94", "NaN is an em dash"},
    {-1.0, "\xe2\x80\x94", "negative is an em dash"},
    {-1e9, "\xe2\x80\x94", "large negative is an em dash"},
};

static void test_format_ns_table(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof ns_cases / sizeof ns_cases[0]; i++) {
        char buf[64];
        memset(buf, 'X', sizeof buf);
        bench__format_ns(ns_cases[i].ns, buf, sizeof buf);
        if (strcmp(buf, ns_cases[i].want) != 0) {
            print_error("format_ns(%.17g) = \"%s\", want \"%s\" (%s)\n", ns_cases[i].ns, buf,
                        ns_cases[i].want, ns_cases[i].why);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Two medians side by side (compare's table): one unit, and digits enough that a change shows
 * (issue 26: "1.3µs │ 1.3µs │ +4.72%" hid it). */
static const struct {
    double a, b;
    const char *want_a, *want_b, *why;
} pair_cases[] = {
    {1300.0, 1361.4, "1.300\xc2\xb5s", "1.361\xc2\xb5s", "+4.72% at 1.3 us: three decimals"},
    {1300.0, 1300.0, "1.3\xc2\xb5s", "1.3\xc2\xb5s", "equal: the usual decimal"},
    {4800.0, 6000.0, "4.8\xc2\xb5s", "6.0\xc2\xb5s", "a big change needs nothing more"},
    {98.62, 98.97, "98.62ns", "98.97ns", "ns keep two decimals when they show it"},
    {100.0, 100.01, "100.000ns", "100.010ns", "a 0.01% change in ns"},
    {999.5, 1000.5, "0.9995\xc2\xb5s", "1.0005\xc2\xb5s", "one unit, from the larger"},
    {2.5e9, 2.6e9, "2.50s", "2.60s", "seconds"},
    {1e6, 1e6 + 1e-9, "1.000000ms", "1.000000ms", "at most six decimals"},
    {NAN, 100.0, "\xe2\x80\x94", "100.00ns", "unmeasured is an em dash"},
};

/* A paired comparison's delta (0.3% of 3.9µs) that two equal-looking medians would hide gets
 * its digits; no step (or 0) is the plain pair. */
static void test_format_ns_pair_step(void **state)
{
    (void)state;
    char a[32], b[32];
    bench__format_ns_pair_step(3900.0, 3904.0, 0.003 * 3900.0, a, b, sizeof a);
    assert_string_equal(a, "3.900\xc2\xb5s");
    assert_string_equal(b, "3.904\xc2\xb5s");
    bench__format_ns_pair_step(3900.0, 3900.0, 0.003 * 3900.0, a, b, sizeof a);
    assert_string_equal(a, "3.900\xc2\xb5s"); /* equal medians, a delta of 0.3%: its digits */
    assert_string_equal(b, "3.900\xc2\xb5s");
    bench__format_ns_pair_step(3900.0, 3900.0, 0.0, a, b, sizeof a);
    assert_string_equal(a, "3.9\xc2\xb5s");
    bench__format_ns_pair_step(1300.0, 1361.0, NAN, a, b, sizeof a);
    assert_string_equal(a, "1.300\xc2\xb5s");
    assert_string_equal(b, "1.361\xc2\xb5s");
}

static void test_format_ns_pair(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof pair_cases / sizeof pair_cases[0]; i++) {
        char a[BENCH__NUMBER_MAX], b[BENCH__NUMBER_MAX];
        bench__format_ns_pair(pair_cases[i].a, pair_cases[i].b, a, b, sizeof a);
        if (strcmp(a, pair_cases[i].want_a) != 0 || strcmp(b, pair_cases[i].want_b) != 0) {
            print_error("format_ns_pair(%.17g, %.17g) = \"%s\" \"%s\", want \"%s\" \"%s\" (%s)\n",
                        pair_cases[i].a, pair_cases[i].b, a, b, pair_cases[i].want_a,
                        pair_cases[i].want_b, pair_cases[i].why);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* The <1000 ns branch is literally "%.2fns": check it against snprintf for a sweep. */
static void test_format_ns_below_1000_is_percent_2f(void **state)
{
    (void)state;
    for (int i = 0; i < 100000; i++) {
        double ns = i / 100.0 + 0.005 * (i % 3);
        if (ns >= 1000.0)
            break;
        char got[64], want[64];
        bench__format_ns(ns, got, sizeof got);
        snprintf(want, sizeof want, "%.2fns", ns);
        assert_string_equal(got, want);
    }
}

/* Every exact tie x.x5 µs rounds up (half-up on the whole-ns value). */
static void test_format_ns_microsecond_ties_round_up(void **state)
{
    (void)state;
    for (long whole = 1050; whole < 1000000; whole += 100) {
        char got[64], want[64];
        long tenths = (whole + 50) / 100; /* exact integer half-up */
        snprintf(want, sizeof want, "%ld.%ld\xc2\xb5s", tenths / 10, tenths % 10);
        bench__format_ns((double)whole, got, sizeof got);
        assert_string_equal(got, want);
    }
}

/* ---- bench__shell_quote ---------------------------------------------------------------- */

struct quote_case {
    const char *word;
    const char *want;
};

static const struct quote_case quote_cases[] = {
    {"abc", "abc"},
    {"file.c", "file.c"},
    {"a-b_c/d.e", "a-b_c/d.e"},
    {"--min-time=5", "--min-time=5"},
    {"sum.bench", "sum.bench"},
    {"", "''"},
    {"a b", "'a b'"},
    {"it's", "'it'\\''s'"},
    {"'", "''\\'''"},
    {"$HOME", "'$HOME'"},
    {"^foo", "'^foo'"},
    {"a*b", "'a*b'"},
    {"x;y", "'x;y'"},
    {"\"q\"", "'\"q\"'"},
    {"back\\slash", "'back\\slash'"},
    {"tab\there", "'tab\there'"},
    {"~user", "'~user'"},
};

static void test_shell_quote_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof quote_cases / sizeof quote_cases[0]; i++) {
        char *buf = bench__shell_quote(quote_cases[i].word);
        assert_string_equal(buf, quote_cases[i].want);
        free(buf);
    }
}

/* The quoted word, given to /bin/sh, comes back as the original bytes. */
static void test_shell_quote_round_trips_through_sh(void **state)
{
    (void)state;
    static const char *const words[] = {
        "plain",      "",          "a b",
        "it's",       "''",        "$HOME",
        "${x}",       "^x",        "`id`",
        "$(id)",      "a\"b",      "back\\slash",
        "semi;colon", "amp&",      "pipe|",
        "<in>",       "*",         "?",
        "[ab]",       "~",         "#hash",
        "!bang",      "new\nline", "tab\tch",
        "{a,b}",      "x=y z",     "'quoted' \"both\"",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char cmd[300], out[256];
        char *quoted = bench__shell_quote(words[i]);
        snprintf(cmd, sizeof cmd, "printf '%%s|' %s", quoted);
        free(quoted);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = '\0';
        assert_int_equal(pclose(p), 0);
        /* exactly one argument, byte-identical */
        char want[256];
        snprintf(want, sizeof want, "%s|", words[i]);
        assert_string_equal(out, want);
    }
}

/* ---- bench__regex_escape --------------------------------------------------------------- */

static void test_regex_escape_each_metacharacter(void **state)
{
    (void)state;
    static const char meta[] = ".[]{}()\\*+?|^$";
    for (const char *m = meta; *m; m++) {
        char text[2] = {*m, '\0'}, want[3] = {'\\', *m, '\0'};
        char *buf = bench__regex_escape(text);
        assert_string_equal(buf, want);
        free(buf);
    }
}

static void test_regex_escape_plain_text_unchanged(void **state)
{
    (void)state;
    char *buf = bench__regex_escape("abc_DEF-012/x:y,z @%=");
    assert_string_equal(buf, "abc_DEF-012/x:y,z @%=");
    free(buf);
    buf = bench__regex_escape("");
    assert_string_equal(buf, "");
    free(buf);
}

/* Compile ^<escaped>$ as an ERE and match it against `subject`. */
static bool anchored_match(const char *text, const char *subject)
{
    char pattern[520];
    char *esc = bench__regex_escape(text);
    snprintf(pattern, sizeof pattern, "^%s$", esc);
    free(esc);
    regex_t re;
    int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        print_error("regcomp(\"%s\") failed: %d\n", pattern, rc);
        fail();
    }
    bool matched = regexec(&re, subject, 0, NULL, 0) == 0;
    regfree(&re);
    return matched;
}

static void test_regex_escape_matches_itself_exactly(void **state)
{
    (void)state;
    static const char *const texts[] = {
        ".",
        "a.b",
        "sum.bench",
        "x*",
        "a+b?c|d",
        "(group)",
        "[class]",
        "{1,2}",
        "^start$",
        "back\\slash",
        "all.[]{}()\\*+?|^$in one",
        "f(x) = a[i] * {b} + c? | d^e$",
        "\xc2\xb5s and \xe2\x80\x94",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        assert_true(anchored_match(texts[i], texts[i]));
        /* anchored: no extra text on either side */
        char longer[256];
        snprintf(longer, sizeof longer, "%sZ", texts[i]);
        assert_false(anchored_match(texts[i], longer));
        snprintf(longer, sizeof longer, "Z%s", texts[i]);
        assert_false(anchored_match(texts[i], longer));
    }
    /* the metacharacters are literal: "." does not match any character, "x*" not "" */
    assert_false(anchored_match("a.b", "axb"));
    assert_false(anchored_match("x*", ""));
    assert_false(anchored_match("x*", "xx"));
    assert_false(anchored_match("a+", "aa"));
    assert_false(anchored_match("a|b", "a"));
    assert_false(anchored_match("[ab]", "a"));
    assert_false(anchored_match("(a)", "a"));
    assert_false(anchored_match("a{2}", "aa"));
    assert_false(anchored_match("a?", "a"));
    assert_false(anchored_match("a\\b", "ab"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_ns_table),
        cmocka_unit_test(test_format_ns_pair),
        cmocka_unit_test(test_format_ns_pair_step),
        cmocka_unit_test(test_format_ns_below_1000_is_percent_2f),
        cmocka_unit_test(test_format_ns_microsecond_ties_round_up),
        cmocka_unit_test(test_shell_quote_table),
        cmocka_unit_test(test_shell_quote_round_trips_through_sh),
        cmocka_unit_test(test_regex_escape_each_metacharacter),
        cmocka_unit_test(test_regex_escape_plain_text_unchanged),
        cmocka_unit_test(test_regex_escape_matches_itself_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
