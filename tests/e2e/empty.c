/* SPDX-License-Identifier: MIT */
/* empty.c: a test binary that registers nothing; an empty run must succeed. */
#include <bench/shim.h>

BENCH_MAIN()
