/* SPDX-License-Identifier: MIT */
/* test_context.c: the result-pipe serialisation of a test outcome, bench__outcome_encode
 * and bench__outcome_decode: round trips, truncation, and rejected input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "suite/context.h"

#include <string.h>

#define MESSAGE_SIZE (sizeof(((struct bench_ctx *)0)->message))

static const enum bench__outcome outcomes[] = {BENCH__PASSED, BENCH__FAILED, BENCH__SKIPPED};

/* A deterministic printable message of `len` characters. */
static void fill_message(char *dst, size_t len)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789 :./()=";
    for (size_t i = 0; i < len; i++)
        dst[i] = alphabet[(i * 7 + i / 13) % (sizeof alphabet - 1)];
    dst[len] = '\0';
}

/* Encode into `size` bytes, decode into `message_size` bytes; the decoded outcome is the
 * same and the message is the original's prefix that fit. Returns the decoded length. */
static size_t round_trip(enum bench__outcome outcome, const char *message, size_t size,
                         size_t message_size, char *decoded)
{
    char buf[4096];
    assert_true(size < sizeof buf);
    memset(buf, 0x5a, sizeof buf);
    size_t n = bench__outcome_encode(outcome, message, buf, size);
    assert_true(n >= 1);               /* at least the tag */
    assert_true(n < size);             /* never the whole buffer: snprintf-like, room for the NUL */
    assert_int_equal(buf[size], 0x5a); /* nothing written past the buffer */

    enum bench__outcome got = (enum bench__outcome) - 1;
    memset(decoded, 0x5a, message_size);
    assert_int_equal(bench__outcome_decode(buf, n, &got, decoded, message_size), 0);
    assert_int_equal(got, outcome);
    size_t len = strlen(decoded);
    assert_true(len < message_size);
    assert_true(len <= strlen(message));
    assert_memory_equal(decoded, message, len);
    return len;
}

static void test_round_trip_empty_message(void **state)
{
    (void)state;
    for (size_t i = 0; i < 3; i++) {
        char decoded[MESSAGE_SIZE];
        char buf[8];
        assert_int_equal(bench__outcome_encode(outcomes[i], "", buf, sizeof buf), 1);
        assert_int_equal(round_trip(outcomes[i], "", MESSAGE_SIZE + 1, MESSAGE_SIZE, decoded), 0);
        assert_string_equal(decoded, "");
    }
}

static void test_round_trip_short_message(void **state)
{
    (void)state;
    static const char msg[] = "tests/x.c:12: check failed: a == b\nsecond line";
    for (size_t i = 0; i < 3; i++) {
        char decoded[MESSAGE_SIZE];
        assert_int_equal(round_trip(outcomes[i], msg, MESSAGE_SIZE + 1, MESSAGE_SIZE, decoded),
                         strlen(msg));
        assert_string_equal(decoded, msg);
    }
}

/* A full-size bench_ctx message (1023 characters) survives the trip unchanged when the
 * encode buffer is sizeof message + 1, as bench__finish uses. */
static void test_round_trip_longest_message(void **state)
{
    (void)state;
    char msg[MESSAGE_SIZE];
    fill_message(msg, MESSAGE_SIZE - 1);
    for (size_t i = 0; i < 3; i++) {
        char decoded[MESSAGE_SIZE];
        assert_int_equal(round_trip(outcomes[i], msg, MESSAGE_SIZE + 1, MESSAGE_SIZE, decoded),
                         MESSAGE_SIZE - 1);
        assert_string_equal(decoded, msg);
    }
}

/* A message longer than the encode buffer is truncated to what fits (tag + size-2
 * characters + NUL), and the outcome still decodes. */
static void test_long_message_truncated_to_encode_buffer(void **state)
{
    (void)state;
    char msg[3000];
    fill_message(msg, sizeof msg - 1);
    for (size_t i = 0; i < 3; i++) {
        char decoded[MESSAGE_SIZE];
        /* 64-byte buffer: tag + 62 characters */
        assert_int_equal(round_trip(outcomes[i], msg, 64, MESSAGE_SIZE, decoded), 62);
        /* the production buffer: tag + 1023 characters */
        assert_int_equal(round_trip(outcomes[i], msg, MESSAGE_SIZE + 1, MESSAGE_SIZE, decoded),
                         MESSAGE_SIZE - 1);
        /* exactly fitting vs one short */
        char exact[40];
        fill_message(exact, 30);
        assert_int_equal(round_trip(outcomes[i], exact, 32, MESSAGE_SIZE, decoded), 30);
        assert_int_equal(round_trip(outcomes[i], exact, 31, MESSAGE_SIZE, decoded), 29);
    }
}

/* The decode side truncates to its own buffer and always NUL-terminates. */
static void test_decode_truncates_to_message_buffer(void **state)
{
    (void)state;
    char msg[200];
    fill_message(msg, 150);
    for (size_t i = 0; i < 3; i++) {
        char decoded[8];
        assert_int_equal(round_trip(outcomes[i], msg, 1024, sizeof decoded, decoded), 7);
        char one[1];
        assert_int_equal(round_trip(outcomes[i], msg, 1024, sizeof one, one), 0);
    }
}

/* The pipe delivers bytes, not C strings: decode honours `len` and needs no NUL. */
static void test_decode_uses_length_not_nul(void **state)
{
    (void)state;
    static const char bytes[] = {'F', 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
    enum bench__outcome got = BENCH__PASSED;
    char message[64];
    assert_int_equal(bench__outcome_decode(bytes, 6, &got, message, sizeof message), 0);
    assert_int_equal(got, BENCH__FAILED);
    assert_string_equal(message, "hello");
    assert_int_equal(bench__outcome_decode(bytes, 1, &got, message, sizeof message), 0);
    assert_int_equal(got, BENCH__FAILED);
    assert_string_equal(message, "");
}

static void test_decode_rejects_empty_and_unknown_tag(void **state)
{
    (void)state;
    enum bench__outcome got = BENCH__PASSED;
    char message[64] = "untouched";
    assert_int_equal(bench__outcome_decode("", 0, &got, message, sizeof message), BENCH_EINVAL);
    assert_int_equal(bench__outcome_decode("Pfine", 0, &got, message, sizeof message),
                     BENCH_EINVAL);
    assert_int_equal(bench__outcome_decode("Xboom", 5, &got, message, sizeof message),
                     BENCH_EINVAL);
    assert_int_equal(bench__outcome_decode("p", 1, &got, message, sizeof message), BENCH_EINVAL);
    static const char nul_tag[] = {'\0', 'a'};
    assert_int_equal(bench__outcome_decode(nul_tag, 2, &got, message, sizeof message),
                     BENCH_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_empty_message),
        cmocka_unit_test(test_round_trip_short_message),
        cmocka_unit_test(test_round_trip_longest_message),
        cmocka_unit_test(test_long_message_truncated_to_encode_buffer),
        cmocka_unit_test(test_decode_truncates_to_message_buffer),
        cmocka_unit_test(test_decode_uses_length_not_nul),
        cmocka_unit_test(test_decode_rejects_empty_and_unknown_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
