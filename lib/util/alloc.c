/* SPDX-License-Identifier: MIT */
/* alloc.c: owns every call of the C allocator in libbench and its tool, and the one place where
 * either aborts for lack of memory (the policy is in alloc.h). Nothing else calls abort() for an
 * allocation, or malloc and its kin at all. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

void bench__out_of_memory(void)
{
    fputs("libbench: out of memory\n", stderr);
    abort();
}

void *bench__try_malloc(size_t size)
{
    return malloc(size ? size : 1);
}

void *bench__try_calloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

void *bench__try_realloc(void *p, size_t size)
{
    return realloc(p, size ? size : 1);
}

char *bench__try_strdup(const char *s)
{
    return strdup(s ? s : "");
}

void *bench__xmalloc(size_t size)
{
    void *p = bench__try_malloc(size);
    if (!p)
        bench__out_of_memory();
    return p;
}

void *bench__xcalloc(size_t n, size_t size)
{
    void *p = bench__try_calloc(n, size);
    if (!p)
        bench__out_of_memory();
    return p;
}

void *bench__xrealloc(void *p, size_t size)
{
    void *q = bench__try_realloc(p, size);
    if (!q)
        bench__out_of_memory();
    return q;
}

char *bench__xstrdup(const char *s)
{
    char *d = bench__try_strdup(s);
    if (!d)
        bench__out_of_memory();
    return d;
}

char *bench__xstrndup(const char *s, size_t n)
{
    char *d = strndup(s, n);
    if (!d)
        bench__out_of_memory();
    return d;
}

char *bench__try_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

char *bench__xvasprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        bench__out_of_memory();
    return s;
}

char *bench__xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = bench__xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void *bench__grow(void *array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return array;
    size_t cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    if (elem && cap2 > (size_t)-1 / elem)
        bench__out_of_memory();
    void *p = bench__xrealloc(array, cap2 * elem);
    *cap = cap2;
    return p;
}
