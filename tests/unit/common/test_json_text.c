/* SPDX-License-Identifier: MIT */
/* test_json_text.c: the compact text written directly (tools/common/json.c, tool_json_put_*)
 * against jansson's dump of the same value (tool_json_dump_line): the same bytes for escapes,
 * UTF-8, integers and reals of every shape (and with the keys sorted, as tool_json_dump_sorted_line
 * sorts them); and the shortest real against the bisection it
 * replaced, on literal and pseudo-random doubles. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "util/atomic_file.h"

/* The smallest "%.Ng" that reads back, found by bisection (what tool_real_shortest did). */
static void bisection(double v, char *buf, size_t size)
{
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(buf, size, "%.*g", mid, v);
        if (strtod(buf, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(buf, size, "%.*g", lo, v);
}

static void same_shortest(double v)
{
    char mine[64], theirs[64];
    tool_real_shortest(v, mine, sizeof mine);
    bisection(v, theirs, sizeof theirs);
    if (strcmp(mine, theirs) != 0)
        fail_msg("%a: %s, bisection %s", v, mine, theirs);
}

static void test_shortest_real(void **state)
{
    (void)state;
    static const double literal[] = {0.0,
                                     -0.0,
                                     1.0,
                                     10.0,
                                     1e7,
                                     1e15,
                                     1e16,
                                     1e17,
                                     1e21,
                                     1e22,
                                     1e-5,
                                     1e-4,
                                     0.1,
                                     0.2,
                                     0.3,
                                     0.1 + 0.2,
                                     1.25,
                                     98.5,
                                     412.0,
                                     0.01,
                                     1.0 / 3,
                                     2.0 / 3,
                                     123456789012345.0,
                                     1234567890123456.0,
                                     12345678901234567.0,
                                     5e-324,
                                     2.2250738585072014e-308,
                                     1.7976931348623157e308,
                                     9007199254740993.0,
                                     231.28571428571428,
                                     10000001.0,
                                     -7.5e-7,
                                     4.35e-5,
                                     100.0 + 7.0 / 7.0};
    for (size_t i = 0; i < sizeof literal / sizeof *literal; i++)
        same_shortest(literal[i]);
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        uint64_t bits = x;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            same_shortest(v);
        same_shortest((double)(x % 100000000) / (double)(1 + x % 1000)); /* short decimals */
        same_shortest((double)(x >> (x % 60)));                          /* integers */
        same_shortest((double)(x % 1000000) * pow(10, (double)(x % 40) - 20));
    }
}

/* v written by tool_json_put_value and by jansson's dump: the same line; the same with the keys
 * sorted (tool_json_put_value_sorted and tool_json_dump_sorted_line). */
static void same_text(json_t *v)
{
    struct bench__text mine = {0}, theirs = {0}, mine_sorted = {0}, theirs_sorted = {0};
    tool_json_put_value(&mine, v);
    tool_json_put(&mine, "\n", 1);
    tool_json_dump_line(v, &theirs);
    assert_non_null(mine.data);
    assert_string_equal(mine.data, theirs.data);
    tool_json_put_value_sorted(&mine_sorted, v);
    tool_json_put(&mine_sorted, "\n", 1);
    tool_json_dump_sorted_line(v, &theirs_sorted);
    assert_string_equal(mine_sorted.data, theirs_sorted.data);
    free(mine.data);
    free(theirs.data);
    free(mine_sorted.data);
    free(theirs_sorted.data);
    json_decref(v);
}

static void test_same_text(void **state)
{
    (void)state;
    same_text(json_pack("{s:s, s:i, s:f, s:b, s:n, s:[s, f, i], s:{}}", "a", "plain", "n", 42, "r",
                        10000001.0, "t", 1, "z", "list", "x\"y\\z", 0.1 + 0.2, -3, "empty"));
    char ctl[40];
    for (int c = 1; c < 32; c++)
        ctl[c - 1] = (char)c;
    strcpy(ctl + 31, "\x7f/\xc3\xa9\xe2\x80\xa8");
    json_t *o = json_object();
    json_object_set_new(o, ctl, json_string(ctl));
    json_object_set_new(o, "big", json_integer(-9223372036854775807LL - 1));
    json_object_set_new(
        o, "reals",
        json_pack("[f, f, f, f, f, f]", -0.0, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 123.456));
    json_object_set_new(o, "nested", json_pack("{s:{s:[[], {}, n, b]}}", "b", "c", 0));
    same_text(o);
    same_text(json_array());
    same_text(json_pack("[f]", 2.5));
    /* keys out of order at every depth, more than 32 of them in one object */
    json_t *many = json_object();
    for (int i = 40; i > 0; i--) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i * 7 % 41);
        json_object_set_new(
            many, k,
            json_pack("{s:f, s:[{s:i, s:s}], s:n}", "z", 0.1 * i, "b", "y", i, "a", "x", "A"));
    }
    json_object_set_new(many, "", json_string("empty key"));
    json_object_set_new(many, "K", json_true());
    same_text(many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shortest_real),
        cmocka_unit_test(test_same_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
