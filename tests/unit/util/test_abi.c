/* SPDX-License-Identifier: MIT */
/* test_abi.c: the size rule of size-prefixed structs (bench__abi_normalize) on synthetic
 * structs: a library that knows version 2 of a struct whose first release was version 1, called
 * with version 1 (old caller), version 2, and version 3 (newer caller) of it; the cap on sizes
 * (BENCH__ABI_MAX_SIZE); and array elements read through a stride (bench__abi_element). */
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

/* The cap: a size above BENCH__ABI_MAX_SIZE is refused before the tail is scanned (the caller's
 * struct here is 16 bytes: a scan would read far past it, which ASan and the page guard catch). */
static void test_huge_size_refused_unread(void **state)
{
    (void)state;
    const struct thing_v1 caller = {.size = 0, .a = 1, .b = 2};
    static const size_t sizes[] = {BENCH__ABI_MAX_SIZE + 1, 65536, UINT32_MAX, SIZE_MAX};
    for (size_t k = 0; k < N(sizes); k++) {
        struct dest d;
        dest_fill(&d, 0xaa);
        assert_int_equal(normalize(&caller, sizes[k], &d), BENCH__ABI_TOO_LARGE);
        assert_untouched(&d, 0xaa);
        assert_int_equal(bench__abi_check_size(sizes[k], THING_SIZE_V1), BENCH__ABI_TOO_LARGE);
    }
    assert_int_equal(bench__abi_check_size(THING_SIZE_V1 - 1, THING_SIZE_V1), BENCH__ABI_TOO_SMALL);
    assert_int_equal(bench__abi_check_size(THING_SIZE_V1, THING_SIZE_V1), BENCH__ABI_ACCEPTED);
    assert_int_equal(bench__abi_check_size(BENCH__ABI_MAX_SIZE, THING_SIZE_V1),
                     BENCH__ABI_ACCEPTED);
}

/* A size just at the cap is an ordinary newer caller's: accepted with a zero tail (its last byte
 * included), refused with a non-zero one; one byte more is refused whatever the tail holds. */
static void test_size_at_the_cap(void **state)
{
    (void)state;
    static unsigned char caller[BENCH__ABI_MAX_SIZE + 1];
    memset(caller, 0, sizeof caller);
    for (size_t i = 0; i < sizeof(struct thing_v2); i++)
        caller[i] = (unsigned char)(0x20 + i);
    struct dest d;
    dest_fill(&d, 0xaa);
    assert_int_equal(normalize(caller, BENCH__ABI_MAX_SIZE, &d), BENCH__ABI_ACCEPTED);
    assert_memory_equal(&d.thing, caller, sizeof d.thing);
    assert_guard(&d, 0xaa);

    caller[BENCH__ABI_MAX_SIZE - 1] = 1; /* the last byte a capped size covers */
    dest_fill(&d, 0xaa);
    assert_int_equal(normalize(caller, BENCH__ABI_MAX_SIZE, &d), BENCH__ABI_UNKNOWN_TAIL);
    assert_untouched(&d, 0xaa);

    caller[BENCH__ABI_MAX_SIZE - 1] = 0;
    assert_int_equal(normalize(caller, BENCH__ABI_MAX_SIZE + 1, &d), BENCH__ABI_TOO_LARGE);
    assert_untouched(&d, 0xaa);
}

/* ---- array elements through a stride ------------------------------------------------------- */

/* An array element type: its first release, and a later one the library knows. */
struct elem_v1 {
    uint64_t x;
    uint32_t y;
}; /* tail padding included in its stride */
struct elem_v2 {
    uint64_t x;
    uint32_t y;
    uint32_t reserved; /* the padding of v1: never read, a v1 caller's bytes are unspecified */
    uint64_t z;        /* 0 = as in v1 */
};
#define ELEM_SIZE_V1 sizeof(struct elem_v1)

static enum bench__abi_verdict element(const void *base, size_t stride, size_t i,
                                       struct elem_v2 *out)
{
    return bench__abi_element(base, stride, i, ELEM_SIZE_V1, sizeof *out, out);
}

/* Stride 0 is the first released layout, and so is an explicit first stride: z reads as zero. */
static void test_element_first_layout(void **state)
{
    (void)state;
    const struct elem_v1 array[3] = {{1, 10}, {2, 20}, {3, 30}};
    static const size_t strides[] = {0, ELEM_SIZE_V1};
    for (size_t k = 0; k < N(strides); k++)
        for (size_t i = 0; i < N(array); i++) {
            struct elem_v2 got;
            memset(&got, 0xaa, sizeof got);
            assert_int_equal(element(array, strides[k], i, &got), BENCH__ABI_ACCEPTED);
            assert_true(got.x == array[i].x && got.y == array[i].y && got.z == 0);
        }
}

/* A newer caller's elements (one field more than the library knows): accepted element by element
 * while the unknown field is zero, refused where it is not; the known fields come from the right
 * element, so the stride is honoured. */
static void test_element_newer_layout(void **state)
{
    (void)state;
    struct elem_v3 {
        struct elem_v2 known;
        uint64_t w;
    } array[3];
    memset(array, 0, sizeof array);
    for (size_t i = 0; i < N(array); i++)
        array[i].known = (struct elem_v2){.x = 100 + i, .y = (uint32_t)i, .z = 7 * i};
    array[2].w = 1;
    struct elem_v2 got;
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(element(array, sizeof array[0], i, &got), BENCH__ABI_ACCEPTED);
        assert_true(got.x == 100 + i && got.y == i && got.z == 7 * i);
    }
    memset(&got, 0xaa, sizeof got);
    assert_int_equal(element(array, sizeof array[0], 2, &got), BENCH__ABI_UNKNOWN_TAIL);
    assert_true(got.x == UINT64_C(0xaaaaaaaaaaaaaaaa)); /* not written */
}

/* A stride that is no multiple of the alignment is read byte by byte; strides out of range are
 * refused before anything is read. */
static void test_element_odd_and_bad_strides(void **state)
{
    (void)state;
    const size_t stride = ELEM_SIZE_V1 + 3;
    unsigned char bytes[3 * (ELEM_SIZE_V1 + 3)];
    memset(bytes, 0, sizeof bytes);
    for (size_t i = 0; i < 3; i++) {
        struct elem_v1 e = {.x = 0x1000 + i, .y = (uint32_t)(5 * i)};
        memcpy(bytes + i * stride, &e, sizeof e);
    }
    struct elem_v2 got;
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(element(bytes, stride, i, &got), BENCH__ABI_ACCEPTED);
        assert_true(got.x == 0x1000 + i && got.y == 5 * i && got.z == 0);
    }
    memset(&got, 0xaa, sizeof got);
    assert_int_equal(element(bytes, ELEM_SIZE_V1 - 1, 0, &got), BENCH__ABI_TOO_SMALL);
    assert_int_equal(element(bytes, BENCH__ABI_MAX_SIZE + 1, 0, &got), BENCH__ABI_TOO_LARGE);
    assert_int_equal(element(bytes, UINT32_MAX, 0, &got), BENCH__ABI_TOO_LARGE);
    assert_int_equal(element(bytes, ELEM_SIZE_V1, SIZE_MAX / ELEM_SIZE_V1 + 1, &got),
                     BENCH__ABI_TOO_LARGE); /* no such array fits in memory */
    assert_true(got.x == UINT64_C(0xaaaaaaaaaaaaaaaa));
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
        cmocka_unit_test(test_huge_size_refused_unread),
        cmocka_unit_test(test_size_at_the_cap),
        cmocka_unit_test(test_element_first_layout),
        cmocka_unit_test(test_element_newer_layout),
        cmocka_unit_test(test_element_odd_and_bad_strides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
