/* SPDX-License-Identifier: MIT */
/* kernels.h: the five work kernels of the anchor comparison and their untimed input setup.
 * Compiled once (kernels.c) and linked into both drivers, so both harnesses time one code. */
#ifndef ANCHOR_KERNELS_H
#define ANCHOR_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prepares every kernel's input (buffers, the pristine array to sort). Untimed; call it in
 * a benchmark's setup. Idempotent: a second call rewrites the same bytes. */
void anchor_kernels_init(void);

/* One unit of work per call. Each returns a value that depends on the work, for the
 * harness's optimizer barrier. */
uint64_t anchor_add_chain_1000(void); /* 1000 dependent 64-bit integer adds */
uint64_t anchor_div_chain_64(void);   /* 64 dependent 64-bit unsigned divisions */
uint64_t anchor_memcpy_4k(void);      /* memcpy of 4096 bytes between two fixed buffers */
uint64_t anchor_fnv1a_1k(void);       /* 32-bit FNV-1a over 1024 bytes */
uint64_t anchor_qsort_1000(void);     /* copy 1000 shuffled ints from a pristine array, qsort */

/* The values the kernels return once anchor_kernels_init has run (for self-checks). */
#define ANCHOR_ADD_CHAIN_1000_RESULT (1u + 1000u * 7u)
#define ANCHOR_DIV_CHAIN_64_RESULT 3u
#define ANCHOR_QSORT_1000_RESULT 999u

#ifdef __cplusplus
}
#endif

#endif /* ANCHOR_KERNELS_H */
