/* SPDX-License-Identifier: MIT */
/* metric_listing.h: --list-metrics: the catalog's records (the public info structs, in the
 * catalog's order) as a table and the capability block. The caller takes them from the catalog
 * (catalog/snapshot.h: bench__catalog_infos): a renderer never calls the catalog. */
#ifndef BENCH_REPORT_METRIC_LISTING_H
#define BENCH_REPORT_METRIC_LISTING_H

#include <stdio.h>

#include <bench/catalog.h>

#include "../util/hidden.h"

BENCH__HIDDEN void bench__metric_listing(FILE *out, const struct bench_metric_info *metrics,
                                         size_t n_metrics, const struct bench_capability_info *caps,
                                         size_t n_caps);

#endif /* BENCH_REPORT_METRIC_LISTING_H */
