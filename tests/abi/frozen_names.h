/* SPDX-License-Identifier: MIT */
/* frozen_names.h: included before a frozen release's core.h and catalog.h (tests/abi/v0.*), it
 * renames every type, enum constant and function those headers declare differently from today's
 * headers to FROZEN_PREFIX##name, so that layout.c can see a frozen layout and today's in one
 * translation unit. No include guard: thawed_names.h undoes it, and it is included once per
 * frozen release. */
#define FROZEN_CAT_(a, b) a##b
#define FROZEN_CAT(a, b) FROZEN_CAT_(a, b)

#define bench_kind FROZEN_CAT(FROZEN_PREFIX, bench_kind)
#define bench_cache_regime FROZEN_CAT(FROZEN_PREFIX, bench_cache_regime)
#define bench_metric_mode FROZEN_CAT(FROZEN_PREFIX, bench_metric_mode)
#define bench_benchmark_opts FROZEN_CAT(FROZEN_PREFIX, bench_benchmark_opts)
#define bench_workload_opts FROZEN_CAT(FROZEN_PREFIX, bench_workload_opts)
#define bench_test FROZEN_CAT(FROZEN_PREFIX, bench_test)
#define bench_label FROZEN_CAT(FROZEN_PREFIX, bench_label)
#define bench_metric FROZEN_CAT(FROZEN_PREFIX, bench_metric)
#define bench_case_def FROZEN_CAT(FROZEN_PREFIX, bench_case_def)
#define bench_metric_info FROZEN_CAT(FROZEN_PREFIX, bench_metric_info)
#define bench_capability_info FROZEN_CAT(FROZEN_PREFIX, bench_capability_info)
#define bench_register FROZEN_CAT(FROZEN_PREFIX, bench_register)
#define bench_case FROZEN_CAT(FROZEN_PREFIX, bench_case)
#define bench_catalog_metric FROZEN_CAT(FROZEN_PREFIX, bench_catalog_metric)
#define bench_catalog_capability FROZEN_CAT(FROZEN_PREFIX, bench_catalog_capability)
#define BENCH_KIND_TEST FROZEN_CAT(FROZEN_PREFIX, BENCH_KIND_TEST)
#define BENCH_KIND_BENCHMARK FROZEN_CAT(FROZEN_PREFIX, BENCH_KIND_BENCHMARK)
#define BENCH_KIND_WORKLOAD FROZEN_CAT(FROZEN_PREFIX, BENCH_KIND_WORKLOAD)
#define BENCH_CACHE_STEADY FROZEN_CAT(FROZEN_PREFIX, BENCH_CACHE_STEADY)
#define BENCH_CACHE_WARM FROZEN_CAT(FROZEN_PREFIX, BENCH_CACHE_WARM)
#define BENCH_CACHE_COLD FROZEN_CAT(FROZEN_PREFIX, BENCH_CACHE_COLD)
#define BENCH_RATE FROZEN_CAT(FROZEN_PREFIX, BENCH_RATE)
#define BENCH_LEVEL FROZEN_CAT(FROZEN_PREFIX, BENCH_LEVEL)
