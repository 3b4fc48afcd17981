/* SPDX-License-Identifier: MIT */
/* interpose/alloc.c: owns libbench-alloc.so, the allocation interposer of the "alloc" source: the
 * allocator entry points, each forwarding to the next definition and counting only while asked.
 * It must never allocate itself, and a disabled entry point costs one predictable branch.
 *
 * Why a library of its own and not libbench.so: libbench.so exporting malloc would put a wrapper
 * in front of every allocation of every program that links libbench (the tools too), change the
 * library's ABI (its exported symbols are its map's, tests/abi) and break its static archive (a
 * libbench.a defining malloc clashes with libc's in a static link). A separate object is linked
 * only by the test binaries that want the counts (or preloaded), and its absence is a capability
 * absence with its reason (lib/sources/alloc.c). The next allocator is found with
 * dlsym(RTLD_NEXT) when the library is loaded; the calls made before that (or by dlsym itself
 * while it resolves) are served from a small static buffer that is never freed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc_interposer.h"

#define EXPORT __attribute__((visibility("default")))
#define LIKELY_OFF(x) __builtin_expect((x) != 0, 0)
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- counting --------------------------------------------------------------------------- */

/* How many reasons there are to look at a call: threads counting plus the all-threads tally. */
static atomic_uint armed;
static atomic_bool all_on;
static _Atomic uint64_t all_allocs, all_frees, all_bytes;
static TLS bool thread_on;
static TLS struct bench__alloc_tally thread_tally;

static void note(uint64_t allocs, uint64_t frees, uint64_t bytes)
{
    if (thread_on) {
        thread_tally.allocs += allocs;
        thread_tally.frees += frees;
        thread_tally.bytes += bytes;
    }
    if (atomic_load_explicit(&all_on, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&all_allocs, allocs, memory_order_relaxed);
        atomic_fetch_add_explicit(&all_frees, frees, memory_order_relaxed);
        atomic_fetch_add_explicit(&all_bytes, bytes, memory_order_relaxed);
    }
}

/* The one branch a disabled entry point pays. */
#define NOTE(a, f, n)                                                                              \
    do {                                                                                           \
        if (LIKELY_OFF(atomic_load_explicit(&armed, memory_order_relaxed)))                        \
            note((a), (f), (n));                                                                   \
    } while (0)

static void ctl_thread_count(bool on)
{
    if (on && !thread_on)
        atomic_fetch_add_explicit(&armed, 1, memory_order_relaxed);
    else if (!on && thread_on)
        atomic_fetch_sub_explicit(&armed, 1, memory_order_relaxed);
    thread_on = on;
}

static bool ctl_thread_counting(void)
{
    return thread_on;
}

static void ctl_thread_read(struct bench__alloc_tally *out)
{
    *out = thread_tally;
}

static void ctl_all_count(bool on)
{
    bool was = atomic_exchange(&all_on, on);
    if (on && !was)
        atomic_fetch_add(&armed, 1);
    else if (!on && was)
        atomic_fetch_sub(&armed, 1);
}

static void ctl_all_read(struct bench__alloc_tally *out)
{
    out->allocs = atomic_load(&all_allocs);
    out->frees = atomic_load(&all_frees);
    out->bytes = atomic_load(&all_bytes);
}

/* ---- the bootstrap buffer ------------------------------------------------------------------ */

#define BOOT_SIZE 65536
#define BOOT_ALIGN 16
static _Alignas(BOOT_ALIGN) unsigned char boot[BOOT_SIZE];
static atomic_size_t boot_used;

/* A block of the buffer, its size in the BOOT_ALIGN bytes before it; NULL when it is full. */
static void *boot_alloc(size_t n)
{
    if (n > BOOT_SIZE)
        return NULL;
    size_t need = ((n + BOOT_ALIGN - 1) & ~(size_t)(BOOT_ALIGN - 1)) + BOOT_ALIGN;
    size_t at = atomic_fetch_add(&boot_used, need);
    if (at + need > BOOT_SIZE)
        return NULL;
    memcpy(boot + at, &n, sizeof n);
    return boot + at + BOOT_ALIGN;
}

static bool is_boot(const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)boot;
    return a >= lo && a < lo + BOOT_SIZE;
}

static size_t boot_size(const void *p)
{
    size_t n;
    memcpy(&n, (const unsigned char *)p - BOOT_ALIGN, sizeof n);
    return n;
}

/* ---- the next allocator ---------------------------------------------------------------------- */

static void *first_malloc(size_t n);
static void *first_calloc(size_t count, size_t n);
static void *first_realloc(void *p, size_t n);
static void first_free(void *p);

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void *(*reallocarray)(void *, size_t, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
} next = {first_malloc, first_calloc, first_realloc, NULL, first_free,
          NULL,         NULL,         NULL,          NULL, NULL};

static TLS bool resolving;
static const char *why_broken;

/* The next definition of `name` into the function pointer at `fn` (NULL when there is none). */
static void find(void *fn, const char *name)
{
    void *sym = dlsym(RTLD_NEXT, name);
    memcpy(fn, &sym, sizeof sym);
}

/* Find the next definition of each entry point (dlsym may itself allocate: those calls are
 * served from the bootstrap buffer). */
static void resolve(void)
{
    resolving = true;
    void *(*m)(size_t), *(*c)(size_t, size_t), *(*r)(void *, size_t), (*f)(void *);
    find(&m, "malloc");
    find(&c, "calloc");
    find(&r, "realloc");
    find(&f, "free");
    find(&next.reallocarray, "reallocarray");
    find(&next.posix_memalign, "posix_memalign");
    find(&next.aligned_alloc, "aligned_alloc");
    find(&next.memalign, "memalign");
    find(&next.valloc, "valloc");
    find(&next.pvalloc, "pvalloc");
    resolving = false;
    if (!m || !c || !r || !f) {
        why_broken = "dlsym(RTLD_NEXT) found no next malloc, calloc, realloc or free";
        return;
    }
    next.malloc = m;
    next.calloc = c;
    next.realloc = r;
    next.free = f;
}

static void *first_malloc(size_t n)
{
    if (resolving || (resolve(), next.malloc == first_malloc))
        return boot_alloc(n);
    return next.malloc(n);
}

static void *first_calloc(size_t count, size_t n)
{
    size_t total;
    if (__builtin_mul_overflow(count, n, &total))
        return NULL;
    if (resolving || (resolve(), next.calloc == first_calloc))
        return boot_alloc(total); /* never used before: zero */
    return next.calloc(count, n);
}

static void *first_realloc(void *p, size_t n)
{
    if (resolving || (resolve(), next.realloc == first_realloc)) {
        void *q = boot_alloc(n);
        if (q && p)
            memcpy(q, p, is_boot(p) && boot_size(p) < n ? boot_size(p) : n);
        return q;
    }
    return next.realloc(p, n);
}

static void first_free(void *p)
{
    (void)p; /* only a bootstrap block can exist before the next free is known */
}

__attribute__((constructor)) static void load(void)
{
    if (next.malloc == first_malloc)
        resolve();
}

static const char *ctl_broken(void)
{
    return why_broken;
}

/* ---- the entry points ---------------------------------------------------------------------- */

EXPORT void *malloc(size_t n)
{
    void *p = next.malloc(n);
    if (p)
        NOTE(1, 0, n);
    return p;
}

EXPORT void *calloc(size_t count, size_t n)
{
    void *p = next.calloc(count, n);
    if (p)
        NOTE(1, 0, count * n);
    return p;
}

/* From a bootstrap block: a new block of the next allocator, the old one left in the buffer. */
static void *realloc_boot(void *p, size_t n)
{
    void *q = next.malloc(n);
    if (q) {
        size_t old = boot_size(p);
        memcpy(q, p, old < n ? old : n);
    }
    return q;
}

EXPORT void *realloc(void *p, size_t n)
{
    void *q = p && is_boot(p) ? realloc_boot(p, n) : next.realloc(p, n);
    if (q)
        NOTE(1, 0, n); /* a realloc counts once, as an alloc of its new size */
    else if (p && n == 0)
        NOTE(0, 1, 0); /* realloc(p, 0) freed p */
    return q;
}

EXPORT void *reallocarray(void *p, size_t count, size_t n)
{
    size_t total;
    if (__builtin_mul_overflow(count, n, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    if (!next.reallocarray || (p && is_boot(p)))
        return realloc(p, total);
    void *q = next.reallocarray(p, count, n);
    if (q)
        NOTE(1, 0, total);
    else if (p && total == 0)
        NOTE(0, 1, 0);
    return q;
}

EXPORT void free(void *p)
{
    if (!p || is_boot(p))
        return; /* free(NULL) frees nothing; a bootstrap block stays in the buffer */
    NOTE(0, 1, 0);
    next.free(p);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (!next.posix_memalign)
        return ENOMEM;
    int rc = next.posix_memalign(out, align, n);
    if (rc == 0)
        NOTE(1, 0, n);
    return rc;
}

/* The aligned allocators that return their block. */
#define ALIGNED(name, params, args, bytes)                                                         \
    EXPORT void *name params                                                                       \
    {                                                                                              \
        if (!next.name) {                                                                          \
            errno = ENOMEM;                                                                        \
            return NULL;                                                                           \
        }                                                                                          \
        void *p = next.name args;                                                                  \
        if (p)                                                                                     \
            NOTE(1, 0, bytes);                                                                     \
        return p;                                                                                  \
    }
ALIGNED(aligned_alloc, (size_t align, size_t n), (align, n), n)
ALIGNED(memalign, (size_t align, size_t n), (align, n), n)
ALIGNED(valloc, (size_t n), (n), n)
ALIGNED(pvalloc, (size_t n), (n), n)

/* ---- the table the source finds ------------------------------------------------------------ */

static const struct bench__alloc_interposer table = {
    .size = sizeof(struct bench__alloc_interposer),
    .version = BENCH__ALLOC_INTERPOSER_VERSION,
    .thread_count = ctl_thread_count,
    .thread_counting = ctl_thread_counting,
    .thread_read = ctl_thread_read,
    .all_count = ctl_all_count,
    .all_read = ctl_all_read,
    .broken = ctl_broken,
};

EXPORT const struct bench__alloc_interposer *bench_alloc_interposer_v1(void);
const struct bench__alloc_interposer *bench_alloc_interposer_v1(void)
{
    return &table;
}
