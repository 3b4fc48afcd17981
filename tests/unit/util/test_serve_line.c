/* SPDX-License-Identifier: MIT */
/* test_serve_line.c: the lines of the served measuring protocol (lib/util/serve_line.c): a field
 * escaped holds no tab, newline or control byte and reads back to itself; hostile escapes (a
 * lone '%', bad hex, an escaped NUL, a raw control byte, no room) are refused; a line splits at
 * its tabs with its newline removed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "util/serve_line.h"

static void test_escape_round_trip(void **state)
{
    (void)state;
    static const char *const fields[] = {
        "",     "plain", "size=64,mode=fast", "tab\there",         "new\nline\r",
        "100%", "%41",   "\x01\x1f\x7f",      "\xc3\xa9t\xc3\xa9", "a b  c",
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        char esc[64], back[64];
        assert_true(bench__serve_escape(fields[i], esc, sizeof esc));
        for (const char *p = esc; *p; p++)
            assert_false((unsigned char)*p < 0x20 || *p == 0x7f);
        assert_true(bench__serve_unescape(esc, strlen(esc), back, sizeof back));
        assert_string_equal(back, fields[i]);
    }
    char esc[32];
    assert_true(bench__serve_escape("a\tb%", esc, sizeof esc));
    assert_string_equal(esc, "a%09b%25");
}

static void test_escape_without_room(void **state)
{
    (void)state;
    char esc[4] = "xyz";
    assert_false(bench__serve_escape("\t\t", esc, sizeof esc)); /* 6 bytes needed */
    assert_string_equal(esc, "");
    assert_true(bench__serve_escape("abc", esc, sizeof esc));
    assert_false(bench__serve_escape("abcd", esc, sizeof esc));
    assert_false(bench__serve_escape("a", esc, 0));
}

static void test_unescape_refuses_hostile_input(void **state)
{
    (void)state;
    static const char *const bad[] = {"%", "%4", "a%G0", "%00", "x\ty", "\x7f", "%zz"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char out[16] = "junk";
        assert_false(bench__serve_unescape(bad[i], strlen(bad[i]), out, sizeof out));
        assert_string_equal(out, "");
    }
    char out[4];
    assert_false(bench__serve_unescape("abcd", 4, out, sizeof out)); /* no room */
    assert_true(bench__serve_unescape("%41%62c", 7, out, sizeof out));
    assert_string_equal(out, "Abc");
    /* only len bytes are read: the escape cut at the end is refused */
    assert_false(bench__serve_unescape("%41", 2, out, sizeof out));
}

static void test_split(void **state)
{
    (void)state;
    char line[] = "sample\t3\t1024\n";
    char *f[4];
    assert_int_equal(bench__serve_split(line, f, 4), 3);
    assert_string_equal(f[0], "sample");
    assert_string_equal(f[1], "3");
    assert_string_equal(f[2], "1024");
    char empty_op[] = "cell\tname\t\r\n";
    assert_int_equal(bench__serve_split(empty_op, f, 4), 3);
    assert_string_equal(f[2], "");
    char many[] = "a\tb\tc\td";
    assert_int_equal(bench__serve_split(many, f, 2), 2);
    assert_string_equal(f[0], "a");
    assert_string_equal(f[1], "b\tc\td"); /* the rest stays in the last field */
    char quit[] = "quit\n";
    assert_int_equal(bench__serve_split(quit, f, 4), 1);
    assert_string_equal(f[0], "quit");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_round_trip),
        cmocka_unit_test(test_escape_without_room),
        cmocka_unit_test(test_unescape_refuses_hostile_input),
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
