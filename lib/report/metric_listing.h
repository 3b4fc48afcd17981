/* SPDX-License-Identifier: MIT */
/* metric_listing.h: --list-metrics: the catalog as a table and the capability block, drawn from
 * the public catalog API. */
#ifndef BENCH_REPORT_METRIC_LISTING_H
#define BENCH_REPORT_METRIC_LISTING_H

#include <stdio.h>

#include <bench/catalog.h>

#include "../util/hidden.h"

BENCH__HIDDEN void bench__metric_listing(FILE *out, const bench_catalog_t *cat);

#endif /* BENCH_REPORT_METRIC_LISTING_H */
