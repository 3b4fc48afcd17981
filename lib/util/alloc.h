/* SPDX-License-Identifier: MIT */
/* alloc.h: the one out-of-memory policy of libbench and of the libbench tool. Where the public API
 * documents BENCH_ENOMEM (bench_case, bench_catalog_open, the registry snapshot) the library
 * allocates through bench__try_* and returns that code. Everywhere else, in the library (the
 * bookkeeping of a run that is already measuring: rows, cells, windows, tables) and in the tool
 * (documents, cells, the store), it allocates through bench__x*, which print one line
 * "libbench: out of memory" on stderr and abort: a half-recorded run or a half-written result must
 * never look complete. malloc, calloc, realloc, strdup, strndup and vasprintf are called in
 * alloc.c only (a check of the layering test). docs/explanation/design.md says the same. */
#ifndef BENCH_UTIL_ALLOC_H
#define BENCH_UTIL_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

#include <bench/export.h>

#include "hidden.h"

BENCH__HIDDEN void *bench__xmalloc(size_t size);
BENCH__HIDDEN void *bench__xcalloc(size_t n, size_t size);
BENCH__HIDDEN void *bench__xrealloc(void *p, size_t size);
/* A copy of s; NULL copies as "". */
BENCH__HIDDEN char *bench__xstrdup(const char *s);
/* A copy of the first n bytes of s (fewer at its NUL), NUL-terminated. */
BENCH__HIDDEN char *bench__xstrndup(const char *s, size_t n);
BENCH__HIDDEN BENCH_PRINTF(1, 2) char *bench__xasprintf(const char *fmt, ...);
BENCH__HIDDEN BENCH_PRINTF(1, 0) char *bench__xvasprintf(const char *fmt, va_list ap);
/* The same allocations for the public calls that document BENCH_ENOMEM: NULL when memory runs
 * out, never an abort. */
BENCH__HIDDEN void *bench__try_malloc(size_t size);
BENCH__HIDDEN void *bench__try_calloc(size_t n, size_t size);
BENCH__HIDDEN void *bench__try_realloc(void *p, size_t size);
BENCH__HIDDEN char *bench__try_strdup(const char *s);
BENCH__HIDDEN BENCH_PRINTF(1, 2) char *bench__try_asprintf(const char *fmt, ...);
/* Grow an array to hold at least `need` elements of `elem` bytes (capacity doubles from 16). */
BENCH__HIDDEN void *bench__grow(void *array, size_t *cap, size_t need, size_t elem);
/* The abort itself, for code that found an allocation failure another way (jansson). */
BENCH__HIDDEN BENCH_NORETURN void bench__out_of_memory(void);

#endif /* BENCH_UTIL_ALLOC_H */
