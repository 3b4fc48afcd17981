/* SPDX-License-Identifier: MIT */
/* snapshot.h: the public catalog (bench_catalog_t) made for a run configuration, so that
 * --list-metrics shows the families its flags ask for through the same public accessors a
 * program uses. */
#ifndef BENCH_CATALOG_SNAPSHOT_H
#define BENCH_CATALOG_SNAPSHOT_H

#include <bench/catalog.h>

#include "../suite/config.h"

#include "../sources/source.h"

/* A capability block the counting sources do not report: a window-only source (wall, psi), probed
 * by the layer that owns it. `detail`: what its counting found, for a listing ("" when none). */
struct bench__catalog_block {
    const char *name; /* "wall", "psi" */
    struct bench__caps caps;
    char detail[BENCH__REASON_MAX + 80];
};

/* Probe every counting source with the requests of cfg (NULL: none) and keep what was found,
 * with the blocks of the window sources. Capability blocks, in order: each counting source's
 * own, the window blocks, the blocks a source reports apart (pfm), then `harness` (what no
 * source owns). Returns 0 or BENCH_ENOMEM. */
BENCH__HIDDEN int bench__catalog_snapshot(const struct bench__config *cfg,
                                          const struct bench__catalog_block *window,
                                          size_t n_window, bench_catalog_t **out);

/* The catalog's own records, in order, for a listing drawn from them (report/metric_listing.h,
 * which may not call the catalog): valid until bench_catalog_close. */
BENCH__HIDDEN void bench__catalog_infos(const bench_catalog_t *cat,
                                        const struct bench_metric_info **metrics, size_t *n_metrics,
                                        const struct bench_capability_info **caps, size_t *n_caps);

#endif /* BENCH_CATALOG_SNAPSHOT_H */
