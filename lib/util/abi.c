/* SPDX-License-Identifier: MIT */
/* abi.c: owns the one size rule of the public size-prefixed structs and array elements (accept
 * from the first released size up to the cap, zero-fill what the caller lacks, refuse a non-zero
 * unknown tail). It must not know any struct: the callers give the sizes. */
#include <stdint.h>
#include <string.h>

#include "abi.h"

enum bench__abi_verdict bench__abi_check_size(size_t size, size_t first)
{
    if (size < first)
        return BENCH__ABI_TOO_SMALL;
    if (size > BENCH__ABI_MAX_SIZE)
        return BENCH__ABI_TOO_LARGE;
    return BENCH__ABI_ACCEPTED;
}

enum bench__abi_verdict bench__abi_normalize(const void *src, size_t size, size_t first,
                                             size_t known, void *dst)
{
    enum bench__abi_verdict verdict = bench__abi_check_size(size, first);
    if (verdict != BENCH__ABI_ACCEPTED)
        return verdict;
    const unsigned char *bytes = src;
    for (size_t i = known; i < size; i++)
        if (bytes[i])
            return BENCH__ABI_UNKNOWN_TAIL;
    size_t n = size < known ? size : known;
    memcpy(dst, src, n);
    memset((unsigned char *)dst + n, 0, known - n);
    return BENCH__ABI_ACCEPTED;
}

enum bench__abi_verdict bench__abi_element(const void *base, size_t stride, size_t i, size_t first,
                                           size_t known, void *dst)
{
    if (stride == 0)
        stride = first;
    enum bench__abi_verdict verdict = bench__abi_check_size(stride, first);
    if (verdict != BENCH__ABI_ACCEPTED)
        return verdict;
    if (i > SIZE_MAX / stride) /* no array of that many elements fits in memory */
        return BENCH__ABI_TOO_LARGE;
    return bench__abi_normalize((const unsigned char *)base + i * stride, stride, first, known,
                                dst);
}
