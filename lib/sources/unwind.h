/* SPDX-License-Identifier: MIT */
/* unwind.h: the DWARF unwinding of a sampled user stack (registers and a copy of the stack's top
 * bytes, as perf_event records them) into return addresses, with libdw (loaded at run time,
 * never linked). x86_64 only; elsewhere the sampler keeps the kernel's frame-pointer chains. */
#ifndef BENCH_SOURCES_UNWIND_H
#define BENCH_SOURCES_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"

#define BENCH__UNWIND_STACK_BYTES 16384u /* the stack copied per sample */
#define BENCH__UNWIND_NREGS 17u          /* user registers recorded per sample */

/* One sample's user state: the registers in perf's order (x86_64: ax bx cx dx si di bp sp ip
 * r8..r15) and the copy of the stack from the stack pointer up. */
struct bench__user_stack {
    uint64_t regs[BENCH__UNWIND_NREGS];
    const unsigned char *bytes;
    size_t size;
};

/* The PERF_SAMPLE_REGS_USER mask of those registers; false with the reason on an architecture
 * whose unwinding is not implemented. */
BENCH__HIDDEN bool bench__unwind_regs_mask(uint64_t *mask, char *reason, size_t reason_size);

struct bench__unwinder;

/* A libdw session on this process's mappings; NULL with the reason (libdw absent, mappings
 * unreadable, no unwinding backend). */
BENCH__HIDDEN struct bench__unwinder *bench__unwinder_new(char *reason, size_t reason_size);
BENCH__HIDDEN void bench__unwinder_free(struct bench__unwinder *u);

/* Unwind one sample into `out` (at most `max` addresses): the sampled address first, then the
 * return addresses of its callers. Where the unwinding stops (the copy of the stack ends before
 * the outermost frame), the kernel's frame-pointer chain `fp` (`n_fp` addresses, sampled one
 * first) continues from the last address both hold. 0 with the reason when libdw found not even
 * the sampled function's caller. */
BENCH__HIDDEN size_t bench__unwind(struct bench__unwinder *u, const struct bench__user_stack *st,
                                   const uint64_t *fp, size_t n_fp, uint64_t *out, size_t max,
                                   char *reason, size_t reason_size);

#endif /* BENCH_SOURCES_UNWIND_H */
