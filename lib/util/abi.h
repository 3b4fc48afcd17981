/* SPDX-License-Identifier: MIT */
/* abi.h: the size rule of the public size-prefixed structs (docs/explanation/abi-policy.md):
 * a caller's struct is accepted from its first released size up, and a tail beyond what this
 * library knows must be zero. Knows no struct of its own; the callers name the sizes. */
#ifndef BENCH_UTIL_ABI_H
#define BENCH_UTIL_ABI_H

#include <stddef.h>

#include "hidden.h"

enum bench__abi_verdict {
    BENCH__ABI_ACCEPTED = 0,
    BENCH__ABI_TOO_SMALL = 1,   /* size below the first released size */
    BENCH__ABI_UNKNOWN_TAIL = 2 /* larger than this library knows, a non-zero byte past it */
};

/* Normalize the caller's struct `src` of `size` bytes (its own size field) into `dst`, which
 * holds `known` bytes (this library's sizeof; `first` <= `known`, `first` the first released
 * size). Refused when size < first or a byte of src at [known, size) is non-zero; then dst is
 * not written. Accepted: dst gets min(size, known) bytes of src and zeros after them, so a
 * field beyond the caller's size reads as zero. The size field is copied as the caller wrote
 * it. src and dst must not overlap. */
BENCH__HIDDEN enum bench__abi_verdict bench__abi_normalize(const void *src, size_t size,
                                                           size_t first, size_t known, void *dst);

#endif /* BENCH_UTIL_ABI_H */
