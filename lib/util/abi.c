/* SPDX-License-Identifier: MIT */
/* abi.c: owns the one size rule of the public size-prefixed structs (accept from the first
 * released size up, zero-fill what the caller lacks, refuse a non-zero unknown tail). It must
 * not know any struct: the callers give the sizes. */
#include <string.h>

#include "abi.h"

enum bench__abi_verdict bench__abi_normalize(const void *src, size_t size, size_t first,
                                             size_t known, void *dst)
{
    if (size < first)
        return BENCH__ABI_TOO_SMALL;
    const unsigned char *bytes = src;
    for (size_t i = known; i < size; i++)
        if (bytes[i])
            return BENCH__ABI_UNKNOWN_TAIL;
    size_t n = size < known ? size : known;
    memcpy(dst, src, n);
    memset((unsigned char *)dst + n, 0, known - n);
    return BENCH__ABI_ACCEPTED;
}
