/* SPDX-License-Identifier: MIT */
/* layout.c: today's public structs against the frozen headers of every release (tests/abi/v0.*),
 * at compile time, in one translation unit: each frozen field at the same offset with the same
 * size, each struct that was not grown of the same size, each grown one grown only at its end,
 * the first released sizes and strides, the enum constants and the statuses unchanged, every
 * struct far below the size cap. check_layout.py compiles it for other targets too (x86-64,
 * aarch64, i686, arm): what holds there holds for a program built there. */
#include <stddef.h>
#include <stdint.h>

#include <bench/export.h>

#include "util/abi.h"

/* ---- 0.1.0 ------------------------------------------------------------------------------- */
#define FROZEN_PREFIX v01_
#include "frozen_names.h"
#include "v0.1/include/bench/core.h"
#include "thawed_names.h"
#undef FROZEN_PREFIX

/* ---- 0.2.0 (its first released sizes kept as they computed them) -------------------------- */
#define FROZEN_PREFIX v02_
#include "frozen_names.h"
#include "v0.2/include/bench/core.h"
#include "v0.2/include/bench/catalog.h"
enum {
    V02_BENCHMARK_OPTS_SIZE_V1 = BENCH_BENCHMARK_OPTS_SIZE_V1,
    V02_WORKLOAD_OPTS_SIZE_V1 = BENCH_WORKLOAD_OPTS_SIZE_V1,
    V02_TEST_SIZE_V1 = BENCH_TEST_SIZE_V1,
    V02_CASE_DEF_SIZE_V1 = BENCH_CASE_DEF_SIZE_V1,
    V02_METRIC_INFO_SIZE_V1 = BENCH_METRIC_INFO_SIZE_V1,
    V02_CAPABILITY_INFO_SIZE_V1 = BENCH_CAPABILITY_INFO_SIZE_V1
};
#include "thawed_names.h"
#undef FROZEN_PREFIX

/* ---- today ------------------------------------------------------------------------------- */
#include <bench/catalog.h>
#include <bench/core.h>
#include <bench/errors.h>

#define FIELD_SIZE(type, field) sizeof(((type *)0)->field)
/* A field of a frozen release's struct is where it was, and as large. */
#define SAME_FIELD(release, name, field)                                                           \
    _Static_assert(offsetof(struct release##name, field) == offsetof(struct name, field) &&        \
                       FIELD_SIZE(struct release##name, field) == FIELD_SIZE(struct name, field),  \
                   #release #name "." #field " moved or changed size")
#define SAME_SIZE(release, name)                                                                   \
    _Static_assert(sizeof(struct release##name) == sizeof(struct name),                            \
                   #release #name " changed size")

#define OPTS_AND_ELEMENTS(r)                                                                       \
    SAME_FIELD(r, bench_benchmark_opts, size);                                                     \
    SAME_FIELD(r, bench_benchmark_opts, iterations);                                               \
    SAME_SIZE(r, bench_benchmark_opts);                                                            \
    SAME_FIELD(r, bench_workload_opts, size);                                                      \
    SAME_FIELD(r, bench_workload_opts, reps);                                                      \
    SAME_FIELD(r, bench_workload_opts, regime); /* an enum then, a uint32_t now */                 \
    SAME_SIZE(r, bench_workload_opts);                                                             \
    SAME_FIELD(r, bench_label, key);                                                               \
    SAME_FIELD(r, bench_label, value);                                                             \
    SAME_SIZE(r, bench_label); /* the stride of a labels array */                                  \
    SAME_FIELD(r, bench_metric, unit);                                                             \
    SAME_FIELD(r, bench_metric, amount);                                                           \
    SAME_FIELD(r, bench_metric, mode); /* an enum then, a uint32_t now */                          \
    SAME_SIZE(r, bench_metric);        /* the stride of a metrics array */                         \
    _Static_assert(sizeof(enum r##bench_cache_regime) == sizeof(uint32_t) &&                       \
                       sizeof(enum r##bench_metric_mode) == sizeof(uint32_t),                      \
                   #r ": its enum fields were 32 bits wide on this target")

#define DESCRIPTOR(r)                                                                              \
    SAME_FIELD(r, bench_test, size);                                                               \
    SAME_FIELD(r, bench_test, kind);                                                               \
    SAME_FIELD(r, bench_test, name);                                                               \
    SAME_FIELD(r, bench_test, file);                                                               \
    SAME_FIELD(r, bench_test, line);                                                               \
    SAME_FIELD(r, bench_test, build);                                                              \
    SAME_FIELD(r, bench_test, compiler);                                                           \
    SAME_FIELD(r, bench_test, fn);                                                                 \
    SAME_FIELD(r, bench_test, benchmark);                                                          \
    SAME_FIELD(r, bench_test, workload);                                                           \
    SAME_FIELD(r, bench_test, next);                                                               \
    SAME_SIZE(r, bench_test)

/* bench_case_def grew in 0.3.0: the frozen part unchanged, the new fields after it. */
#define CASE_DEF(r)                                                                                \
    SAME_FIELD(r, bench_case_def, size);                                                           \
    SAME_FIELD(r, bench_case_def, name);                                                           \
    SAME_FIELD(r, bench_case_def, labels);                                                         \
    SAME_FIELD(r, bench_case_def, n_labels);                                                       \
    SAME_FIELD(r, bench_case_def, state);                                                          \
    SAME_FIELD(r, bench_case_def, state_size);                                                     \
    SAME_FIELD(r, bench_case_def, setup);                                                          \
    SAME_FIELD(r, bench_case_def, timed);                                                          \
    SAME_FIELD(r, bench_case_def, after);                                                          \
    SAME_FIELD(r, bench_case_def, teardown);                                                       \
    SAME_FIELD(r, bench_case_def, metrics);                                                        \
    SAME_FIELD(r, bench_case_def, n_metrics);                                                      \
    SAME_FIELD(r, bench_case_def, iterations);                                                     \
    _Static_assert(sizeof(struct r##bench_case_def) == BENCH_CASE_DEF_SIZE_V1 &&                   \
                       offsetof(struct bench_case_def, label_size) >=                              \
                           sizeof(struct r##bench_case_def),                                       \
                   #r "bench_case_def: grown only at its end")

/* An enum constant of a frozen release has today's value (compared as int: two enum types). */
#define SAME_VALUE(r, constant) ((int)r##constant == (int)constant)
#define CONSTANTS(r)                                                                               \
    _Static_assert(SAME_VALUE(r, BENCH_KIND_TEST) && SAME_VALUE(r, BENCH_KIND_BENCHMARK) &&        \
                       SAME_VALUE(r, BENCH_KIND_WORKLOAD) && SAME_VALUE(r, BENCH_CACHE_STEADY) &&  \
                       SAME_VALUE(r, BENCH_CACHE_WARM) && SAME_VALUE(r, BENCH_CACHE_COLD) &&       \
                       SAME_VALUE(r, BENCH_RATE) && SAME_VALUE(r, BENCH_LEVEL),                    \
                   #r ": an enum constant was renumbered")

OPTS_AND_ELEMENTS(v01_);
DESCRIPTOR(v01_);
CASE_DEF(v01_);
CONSTANTS(v01_);

OPTS_AND_ELEMENTS(v02_);
DESCRIPTOR(v02_);
CASE_DEF(v02_);
CONSTANTS(v02_);
SAME_FIELD(v02_, bench_metric_info, size);
SAME_FIELD(v02_, bench_metric_info, name);
SAME_FIELD(v02_, bench_metric_info, column);
SAME_FIELD(v02_, bench_metric_info, format);
SAME_FIELD(v02_, bench_metric_info, klass);
SAME_FIELD(v02_, bench_metric_info, source);
SAME_FIELD(v02_, bench_metric_info, available);
SAME_FIELD(v02_, bench_metric_info, is_default);
SAME_FIELD(v02_, bench_metric_info, reason);
SAME_SIZE(v02_, bench_metric_info);
SAME_FIELD(v02_, bench_capability_info, size);
SAME_FIELD(v02_, bench_capability_info, source);
SAME_FIELD(v02_, bench_capability_info, name);
SAME_FIELD(v02_, bench_capability_info, present);
SAME_FIELD(v02_, bench_capability_info, reason);
SAME_FIELD(v02_, bench_capability_info, detail);
SAME_SIZE(v02_, bench_capability_info);

/* The first released sizes and strides: what 0.2.0 computed, and what 0.1.0's structs were. */
_Static_assert(BENCH_BENCHMARK_OPTS_SIZE_V1 == V02_BENCHMARK_OPTS_SIZE_V1 &&
                   BENCH_WORKLOAD_OPTS_SIZE_V1 == V02_WORKLOAD_OPTS_SIZE_V1 &&
                   BENCH_TEST_SIZE_V1 == V02_TEST_SIZE_V1 &&
                   BENCH_CASE_DEF_SIZE_V1 == V02_CASE_DEF_SIZE_V1 &&
                   BENCH_METRIC_INFO_SIZE_V1 == V02_METRIC_INFO_SIZE_V1 &&
                   BENCH_CAPABILITY_INFO_SIZE_V1 == V02_CAPABILITY_INFO_SIZE_V1,
               "a first released size changed");
_Static_assert(BENCH_WORKLOAD_OPTS_SIZE_V1 == sizeof(struct v01_bench_workload_opts) &&
                   BENCH_TEST_SIZE_V1 == sizeof(struct v01_bench_test) &&
                   BENCH_BENCHMARK_OPTS_SIZE_V1 == sizeof(struct v01_bench_benchmark_opts),
               "a first released size is not the 0.1.0 sizeof");
_Static_assert(BENCH_LABEL_SIZE_V1 == sizeof(struct v01_bench_label) &&
                   BENCH_METRIC_SIZE_V1 == sizeof(struct v01_bench_metric),
               "a first released stride is not the 0.1.0 sizeof");

/* The statuses have the values 0.1.0 and 0.2.0 returned; the sentinel is no error code. */
_Static_assert(BENCH_STATUS_PASSED == 0 && BENCH_STATUS_FAILED == 1 && BENCH_STATUS_SKIPPED == 2,
               "bench_smoke / bench_workload_window statuses");
_Static_assert(BENCH_EXIT_OK == 0 && BENCH_EXIT_FAILED == 1 && BENCH_EXIT_USAGE == 2,
               "bench_main exit statuses");
_Static_assert(BENCH_NOT_DISPATCHED == -1 && BENCH_NOT_DISPATCHED != BENCH_ENOENT &&
                   BENCH_NOT_DISPATCHED != BENCH_ENOMEM && BENCH_NOT_DISPATCHED != BENCH_EINVAL &&
                   BENCH_NOT_DISPATCHED != BENCH_ENAME && BENCH_NOT_DISPATCHED != BENCH_ESTRUCT &&
                   BENCH_NOT_DISPATCHED != BENCH_ESTATE && BENCH_NOT_DISPATCHED != BENCH_EDUP,
               "bench_dispatch's sentinel");
_Static_assert(BENCH_CACHE_FROM_OPTS == -1, "bench_workload_files' -1");

/* Room to grow below the cap: every public struct and element at most 1/16 of it. */
#define ROOM(type) _Static_assert(16 * sizeof(type) <= BENCH__ABI_MAX_SIZE, #type " near the cap")
ROOM(struct bench_test);
ROOM(struct bench_benchmark_opts);
ROOM(struct bench_workload_opts);
ROOM(struct bench_case_def);
ROOM(struct bench_label);
ROOM(struct bench_metric);
ROOM(struct bench_metric_info);
ROOM(struct bench_capability_info);

/* On x86-64, aarch64 and every other LP64 target the sizes are these (docs/reference/headers.md
 * gives them). */
#if defined(__LP64__)
_Static_assert(sizeof(struct bench_test) == 72 && sizeof(struct bench_benchmark_opts) == 16 &&
                   sizeof(struct bench_workload_opts) == 12 &&
                   sizeof(struct bench_case_def) == 112 && BENCH_CASE_DEF_SIZE_V1 == 104 &&
                   sizeof(struct bench_label) == 16 && sizeof(struct bench_metric) == 24 &&
                   sizeof(struct bench_metric_info) == 64 &&
                   sizeof(struct bench_capability_info) == 48,
               "the LP64 layout");
#endif

int main(void)
{
    return 0; /* the checks above are the test: this file compiled */
}
