/* SPDX-License-Identifier: MIT */
/* snapshot.h: the public catalog (bench_catalog_t) made for a run configuration, so that
 * --list-metrics shows the families its flags ask for through the same public accessors a
 * program uses. */
#ifndef BENCH_CATALOG_SNAPSHOT_H
#define BENCH_CATALOG_SNAPSHOT_H

#include <bench/catalog.h>

#include "../suite/config.h"

/* Probe every source with the requests of cfg (NULL: none) and keep what was found. Returns 0
 * or BENCH_ENOMEM. */
BENCH__HIDDEN int bench__catalog_snapshot(const struct bench__config *cfg, bench_catalog_t **out);

#endif /* BENCH_CATALOG_SNAPSHOT_H */
