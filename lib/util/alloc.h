/* SPDX-License-Identifier: MIT */
/* alloc.h: libbench's one out-of-memory policy. Where the public API documents BENCH_ENOMEM
 * (bench_case, bench_catalog_open, the registry snapshot) the library checks its own allocations
 * and returns that code. Everywhere else (the bookkeeping of a run that is already measuring:
 * rows, cells, windows, tables) it allocates through these helpers, which print one line
 * "libbench: out of memory" on stderr and abort: a half-recorded run must not write a document
 * that looks complete. docs/explanation/design.md says the same. */
#ifndef BENCH_UTIL_ALLOC_H
#define BENCH_UTIL_ALLOC_H

#include <stddef.h>

#include <bench/export.h>

#include "hidden.h"

BENCH__HIDDEN void *bench__xmalloc(size_t size);
BENCH__HIDDEN void *bench__xcalloc(size_t n, size_t size);
BENCH__HIDDEN void *bench__xrealloc(void *p, size_t size);
/* A copy of s; NULL copies as "". */
BENCH__HIDDEN char *bench__xstrdup(const char *s);
BENCH__HIDDEN BENCH_PRINTF(1, 2) char *bench__xasprintf(const char *fmt, ...);
/* Grow an array to hold at least `need` elements of `elem` bytes (capacity doubles from 16). */
BENCH__HIDDEN void *bench__grow(void *array, size_t *cap, size_t need, size_t elem);
/* The abort itself, for code that found an allocation failure another way (jansson). */
BENCH__HIDDEN BENCH_NORETURN void bench__out_of_memory(void);

#endif /* BENCH_UTIL_ALLOC_H */
