/* SPDX-License-Identifier: MIT */
/* shim.h: the header-only part of libbench that every test binary includes. It owns the
 * registration macros (constructor functions, O(1), no allocation), the checks, the inline
 * timed loop, the optimizer barriers and the main/dispatch helpers. Link with libbench. */
#ifndef BENCH_SHIM_H
#define BENCH_SHIM_H

#include <bench/bench.h>

#if !defined(__GNUC__) && !defined(__clang__)
#error "<bench/shim.h> needs GCC or Clang (constructor functions and inline asm)"
#endif

/* BENCH_NO_CONSTRUCTORS (defined before this header): no registration constructor is emitted;
 * the program lists its tests with BENCH_REGISTRATIONS and registers them from main with
 * BENCH_MAIN_LISTS (docs/how-to/register-tests-without-constructors.md). */
#ifdef BENCH_NO_CONSTRUCTORS
#define BENCH__CONSTRUCTOR(name)
#else
#define BENCH__CONSTRUCTOR(name)                                                                   \
    __attribute__((constructor)) static void bench__register_##name(void)                          \
    {                                                                                              \
        bench_register(&bench__test_##name);                                                       \
    }
#endif

#define BENCH__UNUSED __attribute__((unused))

/* How this translation unit is compiled, recorded in each descriptor. */
#if defined(NDEBUG)
#define BENCH__BUILD_NDEBUG BENCH_BUILD_NDEBUG
#else
#define BENCH__BUILD_NDEBUG 0u
#endif
#if defined(__clang__)
#define BENCH__COMPILER "Clang " __clang_version__
#elif defined(__GNUC__)
#define BENCH__COMPILER "GCC " __VERSION__
#else
#define BENCH__COMPILER "unknown"
#endif
#if defined(__OPTIMIZE__)
#define BENCH__BUILD_OPTIMIZED BENCH_BUILD_OPTIMIZED
#else
#define BENCH__BUILD_OPTIMIZED 0u
#endif

/* The descriptor, its constructor and the body's prototype for one registered test.
 * `bench_opts` / `workload_opts` are pointers to option structs or NULL. Every size-prefixed
 * struct the shim fills gets this header's sizeof; a later libbench accepts it, since it takes
 * any size from the first released one up (BENCH_TEST_SIZE_V1, BENCH_BENCHMARK_OPTS_SIZE_V1,
 * BENCH_WORKLOAD_OPTS_SIZE_V1; BENCH_CASE_DEF_SIZE_V1 for BENCH_CASE_DEF) and reads a field
 * this header does not have as zero. */
#define BENCH__REGISTER(name, kind, bench_opts, workload_opts)                                     \
    static void bench__fn_##name(bench_t *b BENCH__UNUSED);                                        \
    static struct bench_test bench__test_##name BENCH__UNUSED = {sizeof(struct bench_test),        \
                                                                 (kind),                           \
                                                                 #name,                            \
                                                                 __FILE__,                         \
                                                                 (uint32_t)__LINE__,               \
                                                                 BENCH__BUILD_NDEBUG |             \
                                                                     BENCH__BUILD_OPTIMIZED,       \
                                                                 BENCH__COMPILER,                  \
                                                                 bench__fn_##name,                 \
                                                                 (bench_opts),                     \
                                                                 (workload_opts),                  \
                                                                 NULL};                            \
    BENCH__CONSTRUCTOR(name)                                                                       \
    static void bench__fn_##name(bench_t *b BENCH__UNUSED)

/* BENCH_TEST(name) { body }: an ordinary unit test, run by the parallel pool. */
#define BENCH_TEST(name) BENCH__REGISTER(name, BENCH_KIND_TEST, NULL, NULL)

/* C++ warns about option members a designated initializer leaves out; C does not. The
 * omitted members are zero by definition, so the warning is silenced around the options. */
#ifdef __cplusplus
#define BENCH__OPTS_BEGIN                                                                          \
    _Pragma("GCC diagnostic push")                                                                 \
        _Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")
#define BENCH__OPTS_END _Pragma("GCC diagnostic pop")
#else
#define BENCH__OPTS_BEGIN
#define BENCH__OPTS_END
#endif

/* BENCHMARK(name[, .iterations = N]) { body }: skipped by test runs, measured by --bench.
 * The trailing empty argument keeps `BENCHMARK(name)` valid ISO C (no empty `...`). */
#define BENCHMARK(...) BENCH__BENCHMARK(__VA_ARGS__, )
#define BENCH__BENCHMARK(name, ...)                                                                \
    BENCH__OPTS_BEGIN                                                                              \
    static const struct bench_benchmark_opts bench__bopts_##name = {                               \
        .size = sizeof(struct bench_benchmark_opts), __VA_ARGS__};                                 \
    BENCH__OPTS_END                                                                                \
    BENCH__REGISTER(name, BENCH_KIND_BENCHMARK, &bench__bopts_##name, NULL)

/* WORKLOAD(name[, .reps = N][, .regime = BENCH_CACHE_COLD]) { body }: measured by --bench
 * as windows. The same name as a BENCHMARK is a compile-time error (one body per name). */
#define WORKLOAD(...) BENCH__WORKLOAD(__VA_ARGS__, )
#define BENCH__WORKLOAD(name, ...)                                                                 \
    BENCH__OPTS_BEGIN                                                                              \
    static const struct bench_workload_opts bench__wopts_##name = {                                \
        .size = sizeof(struct bench_workload_opts), __VA_ARGS__};                                  \
    BENCH__OPTS_END                                                                                \
    BENCH__REGISTER(name, BENCH_KIND_WORKLOAD, NULL, &bench__wopts_##name)

/* BENCH_CHECK(cond): on false, records file, line and the expression text and stops the
 * test as failed. */
#define BENCH_CHECK(cond)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            bench_check_failed(__FILE__, __LINE__, #cond);                                         \
    } while (0)

/* BENCH_ITER(b) { body }: the timed region of a benchmark. One local countdown and one
 * predictable branch per iteration; the clock is read by the library once per sample;
 * nothing inside the loop touches library memory. Outside --bench the body runs once. */
#define BENCH_ITER(b)                                                                              \
    for (uint64_t bench__count = bench_iter_begin(b); bench__count != 0;                           \
         bench__count = bench_iter_next(b))                                                        \
        for (uint64_t bench__left = bench__count; bench__left != 0; --bench__left)

/* Workload windows (see <bench/core.h>): a function window, an inline block window, and the
 * files whose page-cache state the next window should start from. */
#define workload_window(b, name, fn, state) bench_workload_window((b), (name), (fn), (state))
#define BENCH__CAT_(a, b) a##b
#define BENCH__CAT(a, b) BENCH__CAT_(a, b)
/* The loop variable is named after the line, so nested blocks do not shadow each other. */
#define WORKLOAD_WINDOW(b, name)                                                                   \
    for (int BENCH__CAT(bench__window_, __LINE__) = bench_window_begin((b), (name));               \
         BENCH__CAT(bench__window_, __LINE__) != 0;                                                \
         BENCH__CAT(bench__window_, __LINE__) = bench_window_next(b))
/* workload_files(b, "a.bin", "b.bin") and workload_files_regime(b, BENCH_CACHE_WARM, ...):
 * C only (a compound literal). */
#define workload_files(b, ...)                                                                     \
    bench_workload_files((b), -1, (const char *const[]){__VA_ARGS__, NULL})
#define workload_files_regime(b, regime, ...)                                                      \
    bench_workload_files((b), (int)(regime), (const char *const[]){__VA_ARGS__, NULL})

/* Optimizer barriers. bench_do_not_optimize(expr) makes the compiler compute `expr` and
 * treat its value as used (in a register or in memory; constants and structs work too);
 * bench_clobber_memory() makes it assume all memory was read and written. Neither emits an
 * instruction of its own. */
#define bench_do_not_optimize(expr)                                                                \
    __extension__({                                                                                \
        __typeof__(expr) bench__value = (expr);                                                    \
        __asm__ __volatile__("" : : "r,m"(bench__value) : "memory");                               \
    })
static inline void bench_clobber_memory(void)
{
    __asm__ __volatile__("" : : : "memory");
}

/* BENCH_MAIN(): define main() as bench_main(). */
#define BENCH_MAIN()                                                                               \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        return bench_main(argc, argv);                                                             \
    }

/* The explicit registration list (for builds that define BENCH_NO_CONSTRUCTORS, what a compiler
 * without constructor functions needs): in each file, after its tests,
 *     BENCH_REGISTRATIONS(hash_tests, BENCH_ENTRY(fnv1a), BENCH_ENTRY(fnv1a_1k));
 * defines the NULL-terminated array `hash_tests` of that file's descriptors (they are static, so
 * the list lives next to them); the file with main declares the lists of the others
 * (`extern struct bench_test *const hash_tests[];`) and uses BENCH_MAIN_LISTS(hash_tests, ...),
 * which registers every list, in order, and runs bench_main. */
#define BENCH_ENTRY(name) (&bench__test_##name)
#define BENCH_REGISTRATIONS(list, ...) struct bench_test *const list[] = {__VA_ARGS__, NULL}
static inline void bench_register_list(struct bench_test *const *list)
{
    for (; *list; list++)
        bench_register(*list);
}
#define BENCH_MAIN_LISTS(...)                                                                      \
    int main(int argc, char **argv)                                                                \
    {                                                                                              \
        struct bench_test *const *const bench__lists[] = {__VA_ARGS__};                            \
        for (size_t bench__i = 0; bench__i < sizeof bench__lists / sizeof *bench__lists;           \
             bench__i++)                                                                           \
            bench_register_list(bench__lists[bench__i]);                                           \
        return bench_main(argc, argv);                                                             \
    }

/* BENCH_DISPATCH(argc, argv): first line of a cmocka binary's main. Returns from main
 * with libbench's exit status when a bench-mode flag is present; otherwise does nothing
 * and the framework runs exactly as before. */
#define BENCH_DISPATCH(argc, argv)                                                                 \
    do {                                                                                           \
        int bench__status = bench_dispatch((argc), (argv));                                        \
        if (bench__status >= 0)                                                                    \
            return bench__status;                                                                  \
    } while (0)

#endif /* BENCH_SHIM_H */
