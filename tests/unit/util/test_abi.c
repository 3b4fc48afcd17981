/* SPDX-License-Identifier: MIT */
/* test_abi.c: the size rule of size-prefixed structs (bench__abi_normalize) on synthetic
 * structs: a library that knows version 2 of a struct whose first release was version 1, called
 * with version 1 (old caller), version 2, and version 3 (newer caller) of it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "util/abi.h"

/* The first release. */
struct thing_v1 {
    uint32_t size;
    uint32_t a;
    uint64_t b;
};

/* What the library knows: one field appended. */
struct thing_v2 {
    uint32_t size;
    uint32_t a;
    uint64_t b;
    uint64_t c; /* 0 = as in version 1 */
};

/* A later caller's: one more field the library does not know. */
struct thing_v3 {
    uint32_t size;
    uint32_t a;
    uint64_t b;
    uint64_t c;
    uint64_t d;
};

/* Named like the public BENCH_*_SIZE_V1: the end of the last version-1 field. */
#define THING_SIZE_V1 (offsetof(struct thing_v2, b) + sizeof(uint64_t))

_Static_assert(THING_SIZE_V1 == sizeof(struct thing_v1), "v1 is the first release");
_Static_assert(THING_SIZE_V1 < sizeof(struct thing_v2), "v2 appends");

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The destination, with guard bytes after it that the helper must never write. */
struct dest {
    struct thing_v2 thing;
    unsigned char guard[16];
};

static void dest_fill(struct dest *d, unsigned char pattern)
{
    memset(d, pattern, sizeof *d);
}

static void assert_guard(const struct dest *d, unsigned char pattern)
{
    for (size_t i = 0; i < sizeof d->guard; i++)
        assert_int_equal(d->guard[i], pattern);
}

static void assert_untouched(const struct dest *d, unsigned char pattern)
{
    const unsigned char *p = (const unsigned char *)d;
    for (size_t i = 0; i < sizeof *d; i++)
        assert_int_equal(p[i], pattern);
}

static enum bench__abi_verdict normalize(const void *src, size_t size, struct dest *d)
{
    return bench__abi_normalize(src, size, THING_SIZE_V1, sizeof d->thing, &d->thing);
}

/* An old caller's struct: accepted, the appended field reads as zero, and nothing past the
 * caller's size is read (the bytes after it in memory are not zero). */
static void test_old_caller_accepted(void **state)
{
    (void)state;
    union {
        struct thing_v1 v1;
        unsigned char bytes[sizeof(struct thing_v3)];
    } caller;
    memset(&caller, 0xff, sizeof caller); /* what lies beyond the old struct */
    caller.v1 = (struct thing_v1){.size = sizeof(struct thing_v1), .a = 7, .b = 0x1122334455667788};
    struct dest d;
    dest_fill(&d, 0xaa);
    assert_int_equal(normalize(&caller, caller.v1.size, &d), BENCH__ABI_ACCEPTED);
    assert_int_equal(d.thing.size, sizeof(struct thing_v1)); /* as the caller wrote it */
    assert_int_equal(d.thing.a, 7);
    assert_true(d.thing.b == 0x1122334455667788);
    assert_true(d.thing.c == 0);
    assert_guard(&d, 0xaa);
}

static void test_same_version_accepted(void **state)
{
    (void)state;
    const struct thing_v2 caller = {.size = sizeof caller, .a = 1, .b = 2, .c = 3};
    struct dest d;
    dest_fill(&d, 0x55);
    assert_int_equal(normalize(&caller, caller.size, &d), BENCH__ABI_ACCEPTED);
    assert_memory_equal(&d.thing, &caller, sizeof caller);
    assert_guard(&d, 0x55);
}

/* Below the first released size: refused, and the destination is not written. */
static void test_too_small_refused(void **state)
{
    (void)state;
    const struct thing_v2 caller = {.size = 0, .a = 1, .b = 2, .c = 3};
    static const size_t sizes[] = {0, 1, sizeof(uint32_t), THING_SIZE_V1 - 1};
    for (size_t k = 0; k < N(sizes); k++) {
        struct dest d;
        dest_fill(&d, 0xaa);
        assert_int_equal(normalize(&caller, sizes[k], &d), BENCH__ABI_TOO_SMALL);
        assert_untouched(&d, 0xaa);
    }
}

/* A newer caller whose unknown field is zero: accepted, the known part copied. */
static void test_bigger_zero_tail_accepted(void **state)
{
    (void)state;
    const struct thing_v3 caller = {.size = sizeof caller, .a = 4, .b = 5, .c = 6, .d = 0};
    struct dest d;
    dest_fill(&d, 0xaa);
    assert_int_equal(normalize(&caller, caller.size, &d), BENCH__ABI_ACCEPTED);
    assert_int_equal(d.thing.size, sizeof caller);
    assert_int_equal(d.thing.a, 4);
    assert_true(d.thing.b == 5 && d.thing.c == 6);
    assert_guard(&d, 0xaa); /* nothing of the tail copied past the library's struct */
}

/* A newer caller that sets a field this library does not know: refused, whichever byte of the
 * tail it is, and the destination is not written. */
static void test_bigger_nonzero_tail_refused(void **state)
{
    (void)state;
    const size_t known = sizeof(struct thing_v2), size = sizeof(struct thing_v3);
    for (size_t at = known; at < size; at++) {
        union {
            struct thing_v3 v3;
            unsigned char bytes[sizeof(struct thing_v3)];
        } caller;
        memset(&caller, 0, sizeof caller);
        caller.v3.size = (uint32_t)size;
        caller.v3.a = 1;
        caller.bytes[at] = 0x01;
        struct dest d;
        dest_fill(&d, 0xaa);
        assert_int_equal(normalize(&caller, size, &d), BENCH__ABI_UNKNOWN_TAIL);
        assert_untouched(&d, 0xaa);
    }
}

/* Every size from 0 to past the newer caller's: the verdict, and the copy byte by byte (the
 * caller's bytes up to min(size, known), zero after). */
static void test_every_size(void **state)
{
    (void)state;
    const size_t known = sizeof(struct thing_v2);
    unsigned char src[sizeof(struct thing_v3) + 8];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i < known ? 0x10 + i : 0); /* a zero tail past known */
    for (size_t size = 0; size <= sizeof src; size++) {
        struct dest d;
        dest_fill(&d, 0xaa);
        enum bench__abi_verdict v = normalize(src, size, &d);
        if (size < THING_SIZE_V1) {
            assert_int_equal(v, BENCH__ABI_TOO_SMALL);
            assert_untouched(&d, 0xaa);
            continue;
        }
        assert_int_equal(v, BENCH__ABI_ACCEPTED);
        const unsigned char *got = (const unsigned char *)&d.thing;
        for (size_t i = 0; i < known; i++) {
            if (got[i] != (i < size ? src[i] : 0))
                print_message("size %zu: byte %zu is %#x\n", size, i, got[i]);
            assert_int_equal(got[i], i < size ? src[i] : 0);
        }
        assert_guard(&d, 0xaa);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_old_caller_accepted),
        cmocka_unit_test(test_same_version_accepted),
        cmocka_unit_test(test_too_small_refused),
        cmocka_unit_test(test_bigger_zero_tail_accepted),
        cmocka_unit_test(test_bigger_nonzero_tail_refused),
        cmocka_unit_test(test_every_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
