/* SPDX-License-Identifier: MIT */
/* registry.h: the tests that registration constructors linked, and the validated, ordered and
 * filtered snapshot of them (the suite) that every mode works on. */
#ifndef BENCH_SUITE_REGISTRY_H
#define BENCH_SUITE_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include <bench/bench.h>

#include "config.h"

/* A descriptor as this library knows it: a copy of the caller's, taken when the suite is
 * loaded, in which every field beyond the caller's size reads as zero; `test.benchmark` and
 * `test.workload` point at the normalized copies of the options here (or are NULL), `test.size`
 * is this library's sizeof and `test.next` is NULL. */
struct bench__descriptor {
    struct bench_test test;
    struct bench_benchmark_opts benchmark;
    struct bench_workload_opts workload;
};

struct bench__entry {
    const struct bench_test *test; /* the normalized copy (in the suite's descriptors) */
    char *full_name;               /* "<file-stem>.<name>" */
};

struct bench__suite {
    struct bench__entry *entries; /* by file stem, then path, then line */
    size_t count;
    struct bench__descriptor *descriptors; /* owned; entries point into it (never moved) */
};

/* Snapshot the registry (or an explicit list, for tests: `head` may be NULL for the global
 * registry). On a bad descriptor returns a negative code and a message in err. */
BENCH__HIDDEN int bench__suite_load(struct bench__suite *suite, struct bench_test *head, char *err,
                                    size_t err_size);
BENCH__HIDDEN void bench__suite_free(struct bench__suite *suite);
BENCH__HIDDEN struct bench_test *bench__registry_head(void);
/* Keep the entries whose full name matches --include and not --exclude. */
BENCH__HIDDEN void bench__suite_filter(struct bench__suite *suite, const struct bench__config *cfg);
BENCH__HIDDEN bool bench__filter_match(const struct bench__config *cfg, const char *full_name);
/* What a run does with the entries: list them all, run the tests, or measure the benchmarks and
 * workloads. */
enum bench__filter_mode { BENCH__FILTER_LIST, BENCH__FILTER_TEST, BENCH__FILTER_BENCH };
/* On the unfiltered suite: when --include or --exclude is given and selects none of the entries
 * this mode takes, returns BENCH_ENOENT with the sentence naming the pattern(s) in err (one line,
 * control characters as '?'); otherwise 0. No filter is never an error. */
BENCH__HIDDEN int bench__filter_check(const struct bench__suite *suite,
                                      const struct bench__config *cfg, enum bench__filter_mode mode,
                                      char *err, size_t err_size);
/* "<stem>" of a __FILE__ path: the last component without its last extension. */
BENCH__HIDDEN size_t bench__file_stem(const char *path, const char **stem);

#endif /* BENCH_SUITE_REGISTRY_H */
