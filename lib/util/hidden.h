/* SPDX-License-Identifier: MIT */
/* hidden.h: the mark of a symbol shared between libbench's own files (bench__ prefix). Such a
 * symbol is never exported: the library is built with hidden visibility and a version script. */
#ifndef BENCH_UTIL_HIDDEN_H
#define BENCH_UTIL_HIDDEN_H

#include <bench/export.h>

#define BENCH__HIDDEN __attribute__((visibility("hidden")))

#endif /* BENCH_UTIL_HIDDEN_H */
