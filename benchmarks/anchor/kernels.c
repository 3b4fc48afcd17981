/* SPDX-License-Identifier: MIT */
/* kernels.c: owns the kernels both anchor drivers time and their input buffers. Built once
 * into a static library, so libbench and Google Benchmark call the same machine code. */
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* Makes the compiler treat `x` as read and rewritten here, so a chain of operations on it
 * cannot be folded into one (1000 adds of 7 into one add of 7000). Emits no instruction. */
#define ANCHOR_OPAQUE(x) __asm__("" : "+r"(x))
/* Makes the compiler assume all memory, and `p`, are read here: the stores before it stay. */
#define ANCHOR_USE(p) __asm__ __volatile__("" : : "r"(p) : "memory")

#define MEMCPY_BYTES 4096
#define FNV_BYTES 1024
#define SORT_COUNT 1000

/* All inputs in one page-aligned block, so both binaries see the same page offsets (memcpy
 * speed depends on the source and destination alignment). The memcpy destination is one
 * page above its source: no load follows a store to an address with the same low 12 bits. */
static struct {
    _Alignas(4096) unsigned char memcpy_src[MEMCPY_BYTES];
    unsigned char memcpy_dst[MEMCPY_BYTES];
    unsigned char fnv[FNV_BYTES];
    _Alignas(64) int pristine[SORT_COUNT];
    _Alignas(64) int work[SORT_COUNT];
    uint64_t add_seed, add_step;
    uint64_t div_start, div_dividend;
    size_t memcpy_bytes; /* 4096, read at run time: the copy is glibc's memcpy, not inlined */
    size_t probe;        /* index of the memcpy byte returned */
} in;

void anchor_kernels_init(void)
{
    for (size_t i = 0; i < MEMCPY_BYTES; i++)
        in.memcpy_src[i] = (unsigned char)(i * 31u + 7u);
    memset(in.memcpy_dst, 0, sizeof in.memcpy_dst);
    for (size_t i = 0; i < FNV_BYTES; i++)
        in.fnv[i] = (unsigned char)i;
    /* A fixed permutation of 0..999: Fisher-Yates driven by a 64-bit LCG with a fixed seed. */
    for (int i = 0; i < SORT_COUNT; i++)
        in.pristine[i] = i;
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (size_t i = SORT_COUNT - 1; i > 0; i--) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        size_t j = (size_t)((state >> 33) % (i + 1));
        int t = in.pristine[i];
        in.pristine[i] = in.pristine[j];
        in.pristine[j] = t;
    }
    memcpy(in.work, in.pristine, sizeof in.work);
    in.add_seed = 1;
    in.add_step = 7;
    /* UINT64_MAX / 3 = 0x5555555555555555 and UINT64_MAX / 0x5555555555555555 = 3: the chain
     * alternates between two values, so every call divides the same operands. */
    in.div_start = 3;
    in.div_dividend = UINT64_MAX;
    in.memcpy_bytes = MEMCPY_BYTES;
    in.probe = MEMCPY_BYTES - 1;
}

uint64_t anchor_add_chain_1000(void)
{
    uint64_t x = in.add_seed, k = in.add_step;
    for (int i = 0; i < 1000; i += 8) { /* 125 x 8: the loop counter stays off the chain */
        x += k;
        ANCHOR_OPAQUE(x);
        x += k;
        ANCHOR_OPAQUE(x);
        x += k;
        ANCHOR_OPAQUE(x);
        x += k;
        ANCHOR_OPAQUE(x);
        x += k;
        ANCHOR_OPAQUE(x);
        x += k;
        ANCHOR_OPAQUE(x);
        x += k;
        ANCHOR_OPAQUE(x);
        x += k;
        ANCHOR_OPAQUE(x);
    }
    return x;
}

uint64_t anchor_div_chain_64(void)
{
    uint64_t x = in.div_start, n = in.div_dividend;
    for (int i = 0; i < 64; i++) {
        x = n / x;
        ANCHOR_OPAQUE(x);
    }
    return x;
}

uint64_t anchor_memcpy_4k(void)
{
    memcpy(in.memcpy_dst, in.memcpy_src, in.memcpy_bytes);
    ANCHOR_USE(in.memcpy_dst);
    return in.memcpy_dst[in.probe];
}

uint64_t anchor_fnv1a_1k(void)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < FNV_BYTES; i++) {
        h ^= in.fnv[i];
        h *= 16777619u;
    }
    return h;
}

static int compare_ints(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

uint64_t anchor_qsort_1000(void)
{
    memcpy(in.work, in.pristine, sizeof in.work);
    qsort(in.work, SORT_COUNT, sizeof in.work[0], compare_ints);
    return (uint64_t)in.work[SORT_COUNT - 1];
}
