/* SPDX-License-Identifier: MIT */
/* capabilities.h: the capability blocks of the window sources (wall, psi) and the whole public
 * catalog: the counting sources' blocks with these. Probes only; nothing stays open. */
#ifndef BENCH_WORKLOAD_CAPABILITIES_H
#define BENCH_WORKLOAD_CAPABILITIES_H

#include "../catalog/snapshot.h"

enum { BENCH__WINDOW_BLOCKS = 2 };

/* Probe the wall source (getrusage, schedstat) and PSI: their blocks, in the order wall, psi.
 * The wall block's counting detail is the run-queue line ("workload: runqueue wait ..."). */
BENCH__HIDDEN void bench__window_blocks(struct bench__catalog_block out[BENCH__WINDOW_BLOCKS]);

/* The public catalog for a configuration (NULL: none): every source, counting and window. */
BENCH__HIDDEN int bench__catalog_open_all(const struct bench__config *cfg, bench_catalog_t **out);

#endif /* BENCH_WORKLOAD_CAPABILITIES_H */
