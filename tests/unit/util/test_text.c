/* SPDX-License-Identifier: MIT */
/* test_text.c: the shared text helpers of lib/util/text.c: a cut is always marked, notes join
 * once, the first line of a message, control characters made printable, UTF-8 as the JSON
 * document writes it (repaired, and compared once repaired), the one decimal digit run with
 * its overflow edge, and the edit distance behind every "did you mean". */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/text.h"

#define ELLIPSIS "\xe2\x80\xa6"

static void test_fmt_fits_or_marks_the_cut(void **state)
{
    (void)state;
    char buf[16];
    assert_true(bench__fmt(buf, sizeof buf, "%s=%d", "abc", 42));
    assert_string_equal(buf, "abc=42");
    /* 15 bytes of room: 12 kept, then the 3-byte mark */
    assert_false(bench__fmt(buf, sizeof buf, "%s", "0123456789abcdefghij"));
    assert_string_equal(buf, "0123456789ab" ELLIPSIS);
    /* never cut inside a character: "é" is 2 bytes */
    assert_false(bench__fmt(buf, sizeof buf, "%s", "0123456789a\xc3\xa9\xc3\xa9xyz"));
    assert_string_equal(buf, "0123456789a" ELLIPSIS);
    /* too small for the mark: cut on a boundary, unmarked, still terminated */
    char tiny[3];
    assert_false(bench__fmt(tiny, sizeof tiny, "%s", "\xc3\xa9\xc3\xa9"));
    assert_string_equal(tiny, "\xc3\xa9");
    char none[1] = {'X'};
    assert_false(bench__fmt(none, 0, "%s", "x"));
    assert_int_equal(none[0], 'X'); /* size 0: nothing written */
}

static void test_note_append(void **state)
{
    (void)state;
    char note[32] = "";
    bench__note_append(note, sizeof note, "one");
    bench__note_append(note, sizeof note, "two");
    assert_string_equal(note, "one; two");
    bench__note_append_once(note, sizeof note, "two");
    assert_string_equal(note, "one; two");
    bench__note_append_once(note, sizeof note, "three");
    assert_string_equal(note, "one; two; three");
    /* what does not fit is cut and marked */
    bench__note_append(note, sizeof note, "a long fourth note");
    assert_int_equal(strlen(note), sizeof note - 1);
    assert_string_equal(note + strlen(note) - 3, ELLIPSIS);
    assert_memory_equal(note, "one; two; three; a long", 23);
}

static void test_first_line(void **state)
{
    (void)state;
    char *s = bench__first_line("first\nsecond", "x");
    assert_string_equal(s, "first " ELLIPSIS);
    free(s);
    s = bench__first_line("only", "x");
    assert_string_equal(s, "only");
    free(s);
    s = bench__first_line("", "fallback");
    assert_string_equal(s, "fallback");
    free(s);
    s = bench__first_line(NULL, "fallback");
    assert_string_equal(s, "fallback");
    free(s);
}

static void test_sanitize(void **state)
{
    (void)state;
    char s[] = "a\tb\nc\x7f\x01z";
    bench__sanitize(s);
    assert_string_equal(s, "a?b?c??z");
    char buf[8];
    bench__sanitize_copy("x\ny", buf, sizeof buf);
    assert_string_equal(buf, "x?y");
    bench__sanitize_copy("0123456789\n", buf, sizeof buf);
    assert_string_equal(buf, "0123" ELLIPSIS);
}

/* Parse all of text; the digit verdict, and the value when OK. */
static enum bench__digits digits(const char *text, uint64_t max, uint64_t *value, size_t *consumed)
{
    const char *stop = NULL;
    *value = 12345; /* untouched unless OK */
    enum bench__digits got = bench__parse_digits(text, text + strlen(text), max, value, &stop);
    *consumed = (size_t)(stop - text);
    return got;
}

static void test_parse_digits(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t max;
        enum bench__digits want;
        uint64_t value;
        size_t consumed;
    } cases[] = {
        {"0", UINT64_MAX, BENCH__DIGITS_OK, 0, 1},
        {"42\n", UINT64_MAX, BENCH__DIGITS_OK, 42, 2},
        {"", UINT64_MAX, BENCH__DIGITS_NONE, 12345, 0},
        {"x1", UINT64_MAX, BENCH__DIGITS_NONE, 12345, 0},
        {"-1", UINT64_MAX, BENCH__DIGITS_NONE, 12345, 0},
        {"1x", UINT64_MAX, BENCH__DIGITS_OK, 1, 1},
        /* the edges of the 64-bit range, 20 digits */
        {"18446744073709551615", UINT64_MAX, BENCH__DIGITS_OK, UINT64_MAX, 20},
        {"18446744073709551616", UINT64_MAX, BENCH__DIGITS_TOO_LARGE, 12345, 20},
        {"99999999999999999999", UINT64_MAX, BENCH__DIGITS_TOO_LARGE, 12345, 20},
        {"999999999999999999999999", UINT64_MAX, BENCH__DIGITS_TOO_LARGE, 12345, 24},
        /* leading zeros make a long run with a small value */
        {"0000000000000000000000001", UINT64_MAX, BENCH__DIGITS_OK, 1, 25},
        /* 19 digits, the fast path, against a smaller max */
        {"9223372036854775807", INT64_MAX, BENCH__DIGITS_OK, INT64_MAX, 19},
        {"9223372036854775808", INT64_MAX, BENCH__DIGITS_TOO_LARGE, 12345, 19},
        {"1000", 999, BENCH__DIGITS_TOO_LARGE, 12345, 4},
        {"999", 999, BENCH__DIGITS_OK, 999, 3},
        {"7", 5, BENCH__DIGITS_TOO_LARGE, 12345, 1},
        {"0", 0, BENCH__DIGITS_OK, 0, 1},
        {"1", 0, BENCH__DIGITS_TOO_LARGE, 12345, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t value;
        size_t consumed;
        enum bench__digits got = digits(cases[i].text, cases[i].max, &value, &consumed);
        if (got != cases[i].want || value != cases[i].value || consumed != cases[i].consumed)
            print_error("\"%s\" (max %llu): got %d value %llu consumed %zu\n", cases[i].text,
                        (unsigned long long)cases[i].max, (int)got, (unsigned long long)value,
                        consumed);
        assert_int_equal(got, cases[i].want);
        assert_true(value == cases[i].value);
        assert_int_equal(consumed, cases[i].consumed);
    }
}

static void test_edit_distance(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        size_t d;
    } cases[] = {
        {"", "", 0},
        {"bench", "bench", 0},
        {"bnech", "bench", 2},
        {"verbos", "verbose", 1},
        {"", "abc", 3},
        {"abc", "", 3},
        {"kitten", "sitting", 3},
        {"instrs", "instr", 1},
        {"IPc", "IPC", 1},
        {"IPc", "ipc", 2},
        {"item/s", "items/s", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(bench__edit_distance(cases[i].a, cases[i].b), cases[i].d);
        assert_int_equal(bench__edit_distance(cases[i].b, cases[i].a), cases[i].d);
    }
    char long_word[BENCH__EDIT_MAX + 2];
    memset(long_word, 'a', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    assert_int_equal(bench__edit_distance(long_word, "a"), SIZE_MAX);
    long_word[BENCH__EDIT_MAX] = '\0'; /* exactly the longest measured */
    assert_int_equal(bench__edit_distance(long_word, "a"), BENCH__EDIT_MAX - 1);
}

static void test_suggestion(void **state)
{
    (void)state;
    struct bench__suggestion s;
    bench__suggest_begin(&s, "IPc");
    bench__suggest_offer(&s, "instr");
    bench__suggest_offer(&s, "ipc");
    bench__suggest_offer(&s, NULL);
    assert_string_equal(s.best, "ipc");
    bench__suggest_offer(&s, "IPC"); /* closer */
    bench__suggest_offer(&s, "IPX"); /* as close: the first offered stays */
    assert_string_equal(s.best, "IPC");
    assert_int_equal(s.distance, 1);
    /* nothing within BENCH__SUGGEST_MAX */
    bench__suggest_begin(&s, "frobnicate");
    bench__suggest_offer(&s, "bench");
    assert_null(s.best);
    /* the word itself among the candidates: nothing to suggest, whatever comes after */
    bench__suggest_begin(&s, "instr");
    bench__suggest_offer(&s, "instrs");
    bench__suggest_offer(&s, "instr");
    bench__suggest_offer(&s, "inst");
    assert_null(s.best);
}

/* Table-driven: every byte that starts no well-formed sequence reads as U+FFFD. */
static void test_utf8_repaired(void **state)
{
    (void)state;
    static const struct {
        const char *in, *repaired;
    } repair[] = {
        {"", ""},
        {"plain", "plain"},
        {"caf\xc3\xa9", "caf\xc3\xa9"},                           /* é: well formed */
        {"caf\xe9", "caf\xef\xbf\xbd"},                           /* Latin-1 é */
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                 /* overlong '/' */
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a surrogate */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* > U+10FFFF */
        {"a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd"}, /* a sequence cut by the end */
    };
    for (size_t i = 0; i < sizeof repair / sizeof repair[0]; i++) {
        char *got = bench__utf8_repair(repair[i].in);
        assert_non_null(got);
        assert_string_equal(got, repair[i].repaired);
        assert_int_equal(bench__utf8_valid(repair[i].in), !strcmp(repair[i].in, got));
        assert_true(bench__utf8_valid(got));
        assert_true(bench__utf8_same(repair[i].in, repair[i].repaired));
        assert_true(bench__utf8_same(repair[i].repaired, repair[i].in));
        free(got);
    }
    static const struct {
        const char *a, *b;
        bool same;
    } same[] = {
        {"x", "x", true},
        {"x", "y", false},
        {"x", "xy", false},
        {"xy", "x", false},
        {"\xff", "\xfe", true},              /* both U+FFFD */
        {"\xff", "\xef\xbf\xbd", true},      /* an invalid byte and a real U+FFFD */
        {"\xff\xff", "\xef\xbf\xbd", false}, /* two replacements are not one */
        {"\xc3\xa9", "\xff", false},
        {"\xc3", "\xff", true}, /* a lead byte cut by the end */
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        if (bench__utf8_same(same[i].a, same[i].b) != same[i].same)
            print_error("case %zu: same = %d\n", i, !same[i].same);
        assert_int_equal(bench__utf8_same(same[i].a, same[i].b), same[i].same);
    }
    const char *s = "name\xff#2";
    assert_string_equal(bench__utf8_after_same(s, "name\xfe"), "#2");
    assert_string_equal(bench__utf8_after_same(s, ""), s);
    assert_null(bench__utf8_after_same(s, "namex"));
    assert_null(bench__utf8_after_same("na", "name"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_fits_or_marks_the_cut),
        cmocka_unit_test(test_note_append),
        cmocka_unit_test(test_first_line),
        cmocka_unit_test(test_sanitize),
        cmocka_unit_test(test_parse_digits),
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_suggestion),
        cmocka_unit_test(test_utf8_repaired),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
