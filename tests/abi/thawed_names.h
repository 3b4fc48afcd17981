/* SPDX-License-Identifier: MIT */
/* thawed_names.h: undoes frozen_names.h, and forgets the frozen headers' guards and macros, so
 * that the next release's headers (frozen or today's) can be included after them. */
#undef bench_kind
#undef bench_cache_regime
#undef bench_metric_mode
#undef bench_benchmark_opts
#undef bench_workload_opts
#undef bench_test
#undef bench_label
#undef bench_metric
#undef bench_case_def
#undef bench_metric_info
#undef bench_capability_info
#undef bench_register
#undef bench_case
#undef bench_catalog_metric
#undef bench_catalog_capability
#undef BENCH_KIND_TEST
#undef BENCH_KIND_BENCHMARK
#undef BENCH_KIND_WORKLOAD
#undef BENCH_CACHE_STEADY
#undef BENCH_CACHE_WARM
#undef BENCH_CACHE_COLD
#undef BENCH_RATE
#undef BENCH_LEVEL
#undef BENCH_CORE_H
#undef BENCH_CATALOG_H
#undef BENCH_CASE_DEF
#undef BENCH_BENCHMARK_OPTS_SIZE_V1
#undef BENCH_WORKLOAD_OPTS_SIZE_V1
#undef BENCH_TEST_SIZE_V1
#undef BENCH_CASE_DEF_SIZE_V1
#undef BENCH_METRIC_INFO_SIZE_V1
#undef BENCH_CAPABILITY_INFO_SIZE_V1
#undef BENCH_METRIC_INFO_INIT
#undef BENCH_CAPABILITY_INFO_INIT
