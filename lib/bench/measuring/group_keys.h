/* SPDX-License-Identifier: MIT */
/* group_keys.h: what a --group-by configuration asks, which the measuring side (grouped.c) and
 * the collector (supervising/) both need, in one place below both. A row's key under the keys
 * in force is model/grouping.h's bench__group_key. */
#ifndef BENCH_BENCH_MEASURING_GROUP_KEYS_H
#define BENCH_BENCH_MEASURING_GROUP_KEYS_H

#include <stdbool.h>

#include "../../suite/config.h"

/* --group-by=list (or help, ?): the run registers cases and prints their label keys only. */
BENCH__HIDDEN bool bench__group_list_wanted(const struct bench__config *cfg);
/* --group-by=all: the keys in force are every label key of the registered cases. */
BENCH__HIDDEN bool bench__group_all_wanted(const struct bench__config *cfg);

#endif /* BENCH_BENCH_MEASURING_GROUP_KEYS_H */
