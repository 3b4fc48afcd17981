/* SPDX-License-Identifier: MIT */
/* bench.h: the umbrella header of libbench's C ABI. Programs that only register tests
 * include <bench/shim.h>, which includes this. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <bench/export.h>
#include <bench/version.h>
#include <bench/errors.h>
#include <bench/core.h>
#include <bench/catalog.h>

#endif /* BENCH_BENCH_H */
