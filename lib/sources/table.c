/* SPDX-License-Identifier: MIT */
/* table.c: owns the table of counting sources made from list.h, and the pointer a test may aim
 * at its own table. It names no source itself. */
#include "source.h"

#define BENCH__SOURCE(id) &bench__source_##id,
const struct bench__source_ops *const bench__source_list[] = {
#include "list.h"
};
#undef BENCH__SOURCE

const size_t bench__source_list_count = sizeof bench__source_list / sizeof bench__source_list[0];

const struct bench__source_ops *const *bench__sources = bench__source_list;
size_t bench__n_sources = sizeof bench__source_list / sizeof bench__source_list[0];
