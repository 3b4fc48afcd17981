/* SPDX-License-Identifier: MIT */
/* alloc_interposer.h: the contract between the "alloc" source (lib/sources/alloc.c) and the
 * allocation interposer libbench-alloc.so (interpose/alloc.c): the one symbol the source looks up
 * and the table of controls it returns. Data only; both sides of one build include it, so it
 * sits in util/, below both. */
#ifndef BENCH_UTIL_ALLOC_INTERPOSER_H
#define BENCH_UTIL_ALLOC_INTERPOSER_H

#include <stdbool.h>
#include <stdint.h>

/* The symbol libbench-alloc.so exports: a function returning its table. */
#define BENCH__ALLOC_INTERPOSER_SYMBOL "bench_alloc_interposer_v1"
#define BENCH__ALLOC_INTERPOSER_VERSION 1u

/* Cumulative counts since the process started, of the calls made while counting was on: allocs
 * (malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc, memalign, valloc,
 * pvalloc: each successful call once), frees (free of a non-NULL pointer, realloc(p, 0)) and the
 * bytes the allocs asked for. */
struct bench__alloc_tally {
    uint64_t allocs;
    uint64_t frees;
    uint64_t bytes;
};

struct bench__alloc_interposer {
    uint32_t size;    /* sizeof(struct bench__alloc_interposer) of the interposer's build */
    uint32_t version; /* BENCH__ALLOC_INTERPOSER_VERSION */
    /* Count the calling thread's calls (on), or stop (off). Never allocates. */
    void (*thread_count)(bool on);
    /* Whether the calling thread counts now. */
    bool (*thread_counting)(void);
    /* The calling thread's tally. */
    void (*thread_read)(struct bench__alloc_tally *out);
    /* Count every thread's calls into one process-wide tally (on), or stop (off). */
    void (*all_count)(bool on);
    void (*all_read)(struct bench__alloc_tally *out);
    /* NULL, or why the interposer cannot forward (no next allocator was found). */
    const char *(*broken)(void);
};

typedef const struct bench__alloc_interposer *(*bench__alloc_interposer_fn)(void);

#endif /* BENCH_UTIL_ALLOC_INTERPOSER_H */
