/* SPDX-License-Identifier: MIT */
/* core.h: the registry of tests, benchmarks and workloads, the program entry points
 * (bench_main, bench_dispatch) and the calls a running test makes (checks, fail, skip).
 * Registration descriptors are filled by the shim's macros; see <bench/shim.h>. */
#ifndef BENCH_CORE_H
#define BENCH_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <bench/export.h>

BENCH_BEGIN_DECLS

/* The handle a test, benchmark or workload body receives (opaque). */
typedef struct bench_ctx bench_t;

enum bench_kind {
    BENCH_KIND_TEST = 1,      /* ordinary unit test, run by the parallel pool */
    BENCH_KIND_BENCHMARK = 2, /* measured by --bench: per-iteration statistics */
    BENCH_KIND_WORKLOAD = 3   /* measured by --bench: window deltas */
};

enum bench_cache_regime {
    BENCH_CACHE_STEADY = 0, /* leave the page cache alone (default) */
    BENCH_CACHE_WARM = 1,   /* read the named files through before the window */
    BENCH_CACHE_COLD = 2    /* evict the named files before the window */
};

/* How the translation unit that registered a test was compiled (the shim fills these
 * from the preprocessor), so --bench can warn about numbers from a debug build. */
#define BENCH_BUILD_NDEBUG 0x1u    /* NDEBUG was defined */
#define BENCH_BUILD_OPTIMIZED 0x2u /* __OPTIMIZE__ was defined */

/* Size-prefixed structs (bench_benchmark_opts, bench_workload_opts, bench_test,
 * bench_case_def): `size` is sizeof the struct as the caller compiled it. Fields are only
 * appended. The library accepts any size from the struct's first released size up (the
 * BENCH_*_SIZE_V1 constants), reads a field beyond the caller's size as zero, and accepts a size
 * larger than its own only when the unknown tail is zero (BENCH_ESTRUCT otherwise). */

/* Options of BENCHMARK(name, ...). Size-prefixed: the shim fills `size`. */
struct bench_benchmark_opts {
    uint32_t size;
    uint64_t iterations; /* pinned iterations per sample; 0 = auto-scale */
};

/* Options of WORKLOAD(name, ...). Size-prefixed: the shim fills `size`. */
struct bench_workload_opts {
    uint32_t size;
    uint32_t reps;                  /* body repetitions per window; 0 = 1 */
    enum bench_cache_regime regime; /* page-cache regime of workload_files() */
};

/* One registered test. The shim defines one per BENCH_TEST / BENCHMARK / WORKLOAD in
 * static storage and hands it to bench_register() from a constructor. The library links
 * descriptors through `next` (inside the first released size) and works on its own copy of
 * each descriptor and its options, taken when the program starts; it never frees them. */
struct bench_test {
    uint32_t size;          /* sizeof(struct bench_test) as the caller compiled it */
    uint32_t kind;          /* enum bench_kind */
    const char *name;       /* the C identifier given to the macro */
    const char *file;       /* __FILE__ of the definition */
    uint32_t line;          /* __LINE__ of the definition */
    uint32_t build;         /* BENCH_BUILD_* flags of the defining translation unit */
    const char *compiler;   /* compiler of the defining translation unit, e.g. "GCC 12.2.0" */
    void (*fn)(bench_t *b); /* the body */
    const struct bench_benchmark_opts *benchmark; /* BENCHMARK options, else NULL */
    const struct bench_workload_opts *workload;   /* WORKLOAD options, else NULL */
    struct bench_test *next;                      /* owned by the library: the registry link */
};

/* The first released sizes (libbench 0.1.0): the library accepts any size from these up. */
#define BENCH_BENCHMARK_OPTS_SIZE_V1                                                               \
    ((uint32_t)(offsetof(struct bench_benchmark_opts, iterations) + sizeof(uint64_t)))
#define BENCH_WORKLOAD_OPTS_SIZE_V1                                                                \
    ((uint32_t)(offsetof(struct bench_workload_opts, regime) + sizeof(enum bench_cache_regime)))
#define BENCH_TEST_SIZE_V1                                                                         \
    ((uint32_t)(offsetof(struct bench_test, next) + sizeof(struct bench_test *)))

/* Add a descriptor to the registry: O(1), never allocates, never fails. A descriptor smaller
 * than BENCH_TEST_SIZE_V1 is not written to. Problems with a descriptor (duplicate name, bad
 * size) are reported when bench_main starts. */
BENCH_API void bench_register(struct bench_test *test);

/* Run the program: parse the command line once, then list, run the tests, or measure.
 * Returns the process exit status (0 success, 1 a test failed, 2 a usage error). */
BENCH_API int bench_main(int argc, char **argv);

/* For binaries whose main belongs to another framework (cmocka): returns -1 at once
 * when argv holds no bench-mode flag (--bench, --list-metrics, --metrics=?|help);
 * otherwise runs bench_main and returns its exit status. */
BENCH_API int bench_dispatch(int argc, char **argv);

/* Record a failed check (file, line, expression) and stop the running test.
 * Used by BENCH_CHECK; outside a running test it prints the failure and aborts. */
BENCH_API BENCH_NORETURN void bench_check_failed(const char *file, int line, const char *expr);

/* Fail the running test with a printf-style message, or skip it (a skip is never a
 * failure). Neither returns. */
BENCH_API BENCH_NORETURN BENCH_PRINTF(2, 3) void bench_fail(bench_t *b, const char *fmt, ...);
BENCH_API BENCH_NORETURN BENCH_PRINTF(2, 3) void bench_skip(bench_t *b, const char *fmt, ...);

/* One label of a bench_case row: a key and a value (neither may contain 0x1F). */
struct bench_label {
    const char *key;
    const char *value;
};

enum bench_metric_mode {
    BENCH_RATE = 0, /* amount per call, reported per second: amount * 1e9 / median ns */
    BENCH_LEVEL = 1 /* reported as is */
};

/* A client metric of a bench_case row: `unit` names the column (`<unit>/s` for a rate). */
struct bench_metric {
    const char *unit;
    double amount;
    enum bench_metric_mode mode;
};

/* One row of a matrix benchmark. Size-prefixed (from BENCH_CASE_DEF_SIZE_V1 up): build it
 * with BENCH_CASE_DEF. */
struct bench_case_def {
    uint32_t size;
    const char *name;
    const struct bench_label *labels;
    size_t n_labels;
    const void *state; /* copied (state_size bytes) into storage the case owns */
    size_t state_size;
    void (*setup)(void *state);                      /* untimed, once before measuring */
    void (*timed)(void *state);                      /* the measured call */
    int (*after)(void *state, const char **message); /* untimed; non-zero = error row */
    void (*teardown)(void *state);                   /* untimed, once after measuring */
    const struct bench_metric *metrics;
    size_t n_metrics;
    uint64_t iterations; /* pinned number of timed calls; 0 = auto */
};

/* The first released size of struct bench_case_def (libbench 0.1.0). */
#define BENCH_CASE_DEF_SIZE_V1                                                                     \
    ((uint32_t)(offsetof(struct bench_case_def, iterations) + sizeof(uint64_t)))

/* bench_case(b, BENCH_CASE_DEF(.name = "decode", .timed = run, .state = &s,
 *                               .state_size = sizeof s)); (C only: a compound literal) */
#define BENCH_CASE_DEF(...)                                                                        \
    (&(const struct bench_case_def){.size = sizeof(struct bench_case_def), __VA_ARGS__})

/* Register one row of a matrix benchmark. Under --bench it is measured after the body
 * returns, one timed call per sample; outside --bench it runs setup, timed once, after and
 * teardown at once, and a failing after fails the test. Returns 0, BENCH_ENAME (a name or
 * label with 0x1F, or an empty name), BENCH_EINVAL (no timed function, a NULL array with a
 * count), BENCH_EDUP (a label key given twice; under --bench also a case name and labels the
 * run has already, or a name a BENCHMARK's own rows take), BENCH_ESTRUCT or BENCH_ENOMEM;
 * under --bench a refused case is also an error row. */
BENCH_API int bench_case(bench_t *b, const struct bench_case_def *def);

/* Measure fn(state) alone, batched like BENCH_ITER (an out-of-line call per iteration);
 * the rest of the calling body is setup. Outside --bench fn runs once. */
BENCH_API void bench_iter(bench_t *b, void (*fn)(void *state), void *state);

/* Record a fact about this suite ("allocator=jemalloc"): printed once on stderr as
 * `provenance: <fact>` and written to the JSON meta. Deduplicated; inert outside --bench. */
BENCH_API void bench_provenance(bench_t *b, const char *fact);

/* Run one registered BENCHMARK or WORKLOAD body once, in this process, as an ordinary
 * test (BENCH_ITER bodies run once, bench_case rows run inert): for smoke-testing benchmark
 * code from another framework's test, e.g. `assert_int_equal(bench_smoke("fnv1a_1k"), 0)`.
 * `name` is the test's name or its "<file-stem>.<name>". Returns 0 passed, 1 failed (the
 * message goes to stderr), 2 skipped, BENCH_ENOENT when no such test, BENCH_EINVAL when the
 * name is ambiguous, or the code of a broken registry (BENCH_EDUP, BENCH_ESTRUCT, ...; the
 * reason goes to stderr). */
BENCH_API int bench_smoke(const char *name);

/* ---- workloads ------------------------------------------------------------------------ */

/* One workload window: fn(state) runs `reps` times (the WORKLOAD's .reps) between two edge
 * snapshots of every source; the window is named "<test>/<name>" (repeats get "#2", "#3").
 * Nested calls, and calls outside a --bench workload measurement, run fn once, inertly.
 * Returns 0, or 2 when fn skipped (a skipped window; the body goes on). When fn fails, the
 * window is recorded as an error window, the test fails and the body ends there: the call
 * does not return. The shim also offers it as workload_window(b, name, fn, state). */
BENCH_API int bench_workload_window(bench_t *b, const char *name, void (*fn)(void *state),
                                    void *state);

/* The inline window behind WORKLOAD_WINDOW(b, "name") { ... }: bench_window_begin opens the
 * window and returns 1; bench_window_next returns 1 while repetitions remain and closes the
 * window (returning 0) after the last. Outside a measurement the block runs once. */
BENCH_API int bench_window_begin(bench_t *b, const char *name);
BENCH_API int bench_window_next(bench_t *b);

/* Prepare files for the next window under a page-cache regime (BENCH_CACHE_*, or -1 for the
 * WORKLOAD's .regime): cold evicts them (fdatasync, then POSIX_FADV_DONTNEED), warm reads
 * them through, steady leaves them; residency is verified with mincore and the result is
 * stamped on the next window. `paths` is NULL-terminated. Outside a workload measurement
 * it does nothing at all. Returns 0 or BENCH_EINVAL (an unknown regime). */
BENCH_API int bench_workload_files(bench_t *b, int regime, const char *const *paths);

/* The timed loop behind BENCH_ITER (see <bench/shim.h>). bench_iter_begin returns the
 * iteration count of the first sample and starts its clock; bench_iter_next stops the
 * clock, records the sample and returns the next count, or 0 when the row is measured.
 * Outside --bench the loop runs the body exactly once. */
BENCH_API uint64_t bench_iter_begin(bench_t *b);
BENCH_API uint64_t bench_iter_next(bench_t *b);

BENCH_END_DECLS

#endif /* BENCH_CORE_H */
