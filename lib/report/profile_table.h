/* SPDX-License-Identifier: MIT */
/* profile_table.h: a row's profile (--profile) as console text under its benchmark's table. */
#ifndef BENCH_REPORT_PROFILE_TABLE_H
#define BENCH_REPORT_PROFILE_TABLE_H

#include <stdio.h>

#include "../model/row.h"

/* The profile of `row` (nothing when it has none): a header line with the samples and the rate
 * reached, the top functions by self and by inclusive samples, the hottest function's lines,
 * the unsymbolised samples by reason. */
BENCH__HIDDEN void bench__profile_table_render(FILE *out, const struct bench__row *row);

#endif /* BENCH_REPORT_PROFILE_TABLE_H */
