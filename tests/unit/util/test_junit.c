/* SPDX-License-Identifier: MIT */
/* test_junit.c: lib/util/junit.c, the one JUnit writer: XML escaping on literal hostile input
 * (entities, attributes' whitespace, control characters, every kind of malformed UTF-8, the
 * characters XML forbids), and a whole document, its counts included, byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/junit.h"

#define FFFD "\xef\xbf\xbd"

static char *escaped(const char *s, size_t len, bool attr)
{
    struct bench__text t = {0};
    bench__xml_escape(&t, s, len, attr);
    bench__text_append("", 1, &t); /* the terminator of an empty text */
    return t.data;
}

static void test_escape_table(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t len;
        bool attr;
        const char *want;
    } cases[] = {
        {"plain", 5, false, "plain"},
        {"<a & b>", 7, false, "&lt;a &amp; b&gt;"},
        {"]]>", 3, false, "]]&gt;"},
        {"\"q\" 'a'", 7, false, "\"q\" 'a'"},
        {"\"q\" 'a'", 7, true, "&quot;q&quot; &apos;a&apos;"},
        {"t\tn\nr\r", 6, false, "t\tn\nr&#13;"},
        {"t\tn\nr\r", 6, true, "t&#9;n&#10;r&#13;"},
        {"\x01\x1b\x7f", 3, false, FFFD FFFD "\x7f"}, /* U+007F is an XML Char */
        {"a\0b", 3, false, "a" FFFD "b"},
        {"\xff\xfe", 2, false, FFFD FFFD},
        {"\xc3\x28", 2, false, FFFD "("},                    /* a lead without its tail */
        {"\xc0\xaf", 2, false, FFFD FFFD},                   /* overlong */
        {"\xed\xa0\x80", 3, false, FFFD FFFD FFFD},          /* a surrogate */
        {"\xf4\x90\x80\x80", 4, false, FFFD FFFD FFFD FFFD}, /* past U+10FFFF */
        {"\xef\xbf\xbe", 3, false, FFFD},                    /* U+FFFE: not an XML Char */
        {"\xe2\x82", 2, false, FFFD FFFD},                   /* cut short at the end */
        {"\xc3\xa9\xf0\x9f\x98\x80", 6, false, "\xc3\xa9\xf0\x9f\x98\x80"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *got = escaped(cases[i].in, cases[i].len, cases[i].attr);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: got '%s', want '%s'", i, got, cases[i].want);
        free(got);
    }
}

static void test_document(void **state)
{
    (void)state;
    struct bench__junit_property props[] = {{"median_ns", "2.5"}};
    struct bench__junit_case cases[] = {
        {.classname = "s", .name = "ok", .time_s = 0.25},
        {.classname = "s",
         .name = "bad<",
         .file = "f.c",
         .line = 7,
         .time_s = NAN,
         .result = BENCH__JUNIT_FAILURE,
         .type = "failure",
         .message = "x & y",
         .body = "f.c:7: x",
         .body_len = 8,
         .out = "o\x01",
         .out_len = 2},
        {.classname = "s",
         .name = "crash",
         .time_s = -1,
         .result = BENCH__JUNIT_ERROR,
         .type = "SIGSEGV",
         .message = "killed"},
        {.classname = "s",
         .name = "skip",
         .result = BENCH__JUNIT_SKIP,
         .message = "why",
         .props = props,
         .n_props = 1},
    };
    size_t len = 0;
    char *text = bench__junit_text("bin", cases, 4, NAN, &len);
    assert_int_equal(len, strlen(text));
    const char *want =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"bin\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\" "
        "time=\"0.250000\">\n"
        "  <testsuite name=\"bin\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\" "
        "time=\"0.250000\">\n"
        "    <testcase name=\"ok\" classname=\"s\" time=\"0.250000\"/>\n"
        "    <testcase name=\"bad&lt;\" classname=\"s\" time=\"0.000000\" file=\"f.c\" "
        "line=\"7\">\n"
        "      <failure type=\"failure\" message=\"x &amp; y\">f.c:7: x</failure>\n"
        "      <system-out>o" FFFD "</system-out>\n"
        "    </testcase>\n"
        "    <testcase name=\"crash\" classname=\"s\" time=\"0.000000\">\n"
        "      <error type=\"SIGSEGV\" message=\"killed\"></error>\n"
        "    </testcase>\n"
        "    <testcase name=\"skip\" classname=\"s\" time=\"0.000000\">\n"
        "      <properties>\n"
        "        <property name=\"median_ns\" value=\"2.5\"/>\n"
        "      </properties>\n"
        "      <skipped message=\"why\"/>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n";
    assert_string_equal(text, want);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_table),
        cmocka_unit_test(test_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
