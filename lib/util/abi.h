/* SPDX-License-Identifier: MIT */
/* abi.h: the size rule of the public size-prefixed structs and of the public array element types
 * (docs/explanation/abi-policy.md): a caller's struct is accepted from its first released size up
 * to BENCH__ABI_MAX_SIZE, and a tail beyond what this library knows must be zero. Knows no struct
 * of its own; the callers name the sizes. */
#ifndef BENCH_UTIL_ABI_H
#define BENCH_UTIL_ABI_H

#include <stddef.h>

#include "hidden.h"

/* The largest `size` (or array stride) any public struct may have: a value above it is refused
 * before a byte of the caller's struct is read past its first released size, so a garbage size
 * (an uninitialised field) never makes the library scan memory that is not the caller's. Every
 * public struct stays far below it (tests/abi/layout.c checks 16 times each sizeof). Raising
 * it later is compatible; lowering it is not. */
#define BENCH__ABI_MAX_SIZE 4096u

enum bench__abi_verdict {
    BENCH__ABI_ACCEPTED = 0,
    BENCH__ABI_TOO_SMALL = 1,    /* size below the first released size */
    BENCH__ABI_UNKNOWN_TAIL = 2, /* larger than this library knows, a non-zero byte past it */
    BENCH__ABI_TOO_LARGE = 3     /* size above BENCH__ABI_MAX_SIZE */
};

/* The size alone: TOO_SMALL below `first`, TOO_LARGE above BENCH__ABI_MAX_SIZE, else ACCEPTED.
 * For the structs the library only writes (the catalog's info structs). */
BENCH__HIDDEN enum bench__abi_verdict bench__abi_check_size(size_t size, size_t first);

/* Normalize the caller's struct `src` of `size` bytes (its own size field) into `dst`, which
 * holds `known` bytes (this library's sizeof; `first` <= `known`, `first` the first released
 * size). Refused when size < first or size > BENCH__ABI_MAX_SIZE (both before any byte of src is
 * read) or a byte of src at [known, size) is non-zero; then dst is not written. Accepted: dst
 * gets min(size, known) bytes of src and zeros after them, so a field beyond the caller's size
 * reads as zero. The size field is copied as the caller wrote it. src and dst must not
 * overlap. */
BENCH__HIDDEN enum bench__abi_verdict bench__abi_normalize(const void *src, size_t size,
                                                           size_t first, size_t known, void *dst);

/* Element i of a caller's array whose elements lie `stride` bytes apart (0: `first`, the first
 * released layout), normalized into `dst` (`known` bytes) by the same rule as a struct whose size
 * is the stride. The element is copied byte by byte, so a stride that is not a multiple of the
 * element's alignment is read safely. */
BENCH__HIDDEN enum bench__abi_verdict bench__abi_element(const void *base, size_t stride, size_t i,
                                                         size_t first, size_t known, void *dst);

#endif /* BENCH_UTIL_ABI_H */
