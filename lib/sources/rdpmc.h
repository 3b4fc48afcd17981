/* SPDX-License-Identifier: MIT */
/* rdpmc.h: self-monitoring reads of a perf counter from user space: the counter's mmap'ed
 * page (through bench__os) and the seqlock read with the rdpmc instruction. */
#ifndef BENCH_SOURCES_RDPMC_H
#define BENCH_SOURCES_RDPMC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"

struct perf_event_mmap_page;

/* The rdpmc instruction (ecx = counter): NULL where this build has none (not x86-64).
 * Tests replace it, e.g. to change the page's lock in the middle of a read. */
BENCH__HIDDEN extern uint64_t (*bench__rdpmc_insn)(uint32_t counter);

/* Why this build reads no counter from user space (bench__rdpmc_insn is NULL): the reason,
 * with the kernel's perf_user_access setting on aarch64. */
BENCH__HIDDEN void bench__rdpmc_absence(char *reason, size_t reason_size);

/* One seqlock read of a counter's current count (offset + the sign-extended hardware
 * counter): true, or false when it cannot be read from user space now (cap_user_rdpmc 0,
 * index 0: the event is not on a counter at this moment, no instruction) — read(2) then. */
BENCH__HIDDEN bool bench__rdpmc_read(const struct perf_event_mmap_page *page, uint64_t *count);

/* Map the page of an open event fd (one page, read-only). Returns it, or NULL with the
 * reason. A page whose cap_user_rdpmc is 0 is unmapped and reported as the reason. */
BENCH__HIDDEN struct perf_event_mmap_page *bench__rdpmc_map(int fd, char *reason,
                                                            size_t reason_size);
BENCH__HIDDEN void bench__rdpmc_unmap(struct perf_event_mmap_page *page);

#endif /* BENCH_SOURCES_RDPMC_H */
