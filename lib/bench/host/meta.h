/* SPDX-License-Identifier: MIT */
/* meta.h: facts about the host and the build that the JSON meta records (the run's own facts,
 * such as the sample count and the clock's cost, are the collector's to add). */
#ifndef BENCH_BENCH_HOST_META_H
#define BENCH_BENCH_HOST_META_H

#include "../../model/report.h"
#include "../../suite/registry.h"

BENCH__HIDDEN void bench__meta_collect(struct bench__meta *meta, const struct bench__suite *suite,
                                       uint64_t min_time_ms);
BENCH__HIDDEN void bench__meta_free(struct bench__meta *meta);

#endif /* BENCH_BENCH_HOST_META_H */
