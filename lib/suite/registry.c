/* SPDX-License-Identifier: MIT */
/* registry.c: owns the list that registration constructors fill, and the validated,
 * ordered, filtered snapshot (the suite) of normalized descriptor copies that the runners work
 * on, with the sentence for a filter that selects nothing. Constructors only link a descriptor;
 * every check and copy happens here when the program starts. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/abi.h"
#include "../util/alloc.h"
#include "../util/text.h"
#include "registry.h"

/* The first released sizes are today's layouts; a field appended later changes sizeof, never
 * these (docs/explanation/abi-policy.md). */
_Static_assert(BENCH_TEST_SIZE_V1 == sizeof(struct bench_test), "bench_test v1 size");
_Static_assert(BENCH_BENCHMARK_OPTS_SIZE_V1 == sizeof(struct bench_benchmark_opts),
               "bench_benchmark_opts v1 size");
_Static_assert(BENCH_WORKLOAD_OPTS_SIZE_V1 == sizeof(struct bench_workload_opts),
               "bench_workload_opts v1 size");
/* bench_register writes `next` into descriptors of any accepted size. */
_Static_assert(offsetof(struct bench_test, next) + sizeof(struct bench_test *) <=
                   BENCH_TEST_SIZE_V1,
               "next lies inside the first released descriptor");

static struct bench_test *registry_head;

/* Descriptors below the first released size (too small to hold `next`) are never written to:
 * they are remembered here (no allocation) and reported when the program starts. */
#define REJECTED_MAX 8
static const struct bench_test *rejected[REJECTED_MAX];
static size_t n_rejected;

void bench_register(struct bench_test *test)
{
    if (test->size < BENCH_TEST_SIZE_V1) {
        if (n_rejected < REJECTED_MAX)
            rejected[n_rejected] = test;
        n_rejected++;
        return;
    }
    test->next = registry_head;
    registry_head = test;
}

struct bench_test *bench__registry_head(void)
{
    return registry_head;
}

size_t bench__file_stem(const char *path, const char **stem)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    *stem = base;
    return dot && dot != base ? (size_t)(dot - base) : strlen(base);
}

/* Check the caller's descriptor `raw` and fill `d` with its normalized copy (and of its
 * options); the checks after the size read the copy. 0, or a code and a message in err. */
static int check_descriptor(const struct bench_test *raw, struct bench__descriptor *d, char *err,
                            size_t err_size)
{
    const char *where = raw->file ? raw->file : "?";
    enum bench__abi_verdict verdict =
        bench__abi_normalize(raw, raw->size, BENCH_TEST_SIZE_V1, sizeof d->test, &d->test);
    if (verdict == BENCH__ABI_TOO_SMALL) {
        bench__fmt(err, err_size,
                   "test '%s' (%s:%u) was compiled against an incompatible "
                   "<bench/shim.h> (descriptor size %u, this libbench needs at least %u)",
                   raw->name ? raw->name : "?", where, raw->line, raw->size,
                   (unsigned)BENCH_TEST_SIZE_V1);
        return BENCH_ESTRUCT;
    }
    if (verdict != BENCH__ABI_ACCEPTED) {
        bench__fmt(err, err_size,
                   "test '%s' (%s:%u) was compiled against an incompatible "
                   "<bench/shim.h> (descriptor size %u, this libbench knows %zu)",
                   raw->name ? raw->name : "?", where, raw->line, raw->size,
                   sizeof(struct bench_test));
        return BENCH_ESTRUCT;
    }
    struct bench_test *t = &d->test;
    t->size = sizeof *t;
    t->next = NULL;
    if (!t->name || !*t->name || !t->file || !t->fn) {
        bench__fmt(err, err_size, "a test registered at %s:%u has no name, file or body", where,
                   t->line);
        return BENCH_EINVAL;
    }
    const char *kind_problem = NULL;
    if (t->benchmark && t->workload)
        kind_problem = "has both benchmark and workload options";
    else if (t->kind == BENCH_KIND_TEST && (t->benchmark || t->workload))
        kind_problem = "is a plain test with benchmark or workload options";
    else if (t->kind == BENCH_KIND_BENCHMARK && !t->benchmark)
        kind_problem = "is a benchmark without benchmark options";
    else if (t->kind == BENCH_KIND_WORKLOAD && !t->workload)
        kind_problem = "is a workload without workload options";
    else if (t->kind < BENCH_KIND_TEST || t->kind > BENCH_KIND_WORKLOAD)
        kind_problem = "has an unknown kind";
    if (kind_problem) {
        bench__fmt(err, err_size, "test '%s' (%s:%u) %s", t->name, where, t->line, kind_problem);
        return BENCH_EINVAL;
    }
    if ((t->benchmark &&
         bench__abi_normalize(t->benchmark, t->benchmark->size, BENCH_BENCHMARK_OPTS_SIZE_V1,
                              sizeof d->benchmark, &d->benchmark) != BENCH__ABI_ACCEPTED) ||
        (t->workload &&
         bench__abi_normalize(t->workload, t->workload->size, BENCH_WORKLOAD_OPTS_SIZE_V1,
                              sizeof d->workload, &d->workload) != BENCH__ABI_ACCEPTED)) {
        bench__fmt(err, err_size,
                   "test '%s' (%s:%u) has options from an incompatible "
                   "<bench/shim.h>",
                   t->name, where, t->line);
        return BENCH_ESTRUCT;
    }
    if (t->benchmark) {
        d->benchmark.size = sizeof d->benchmark;
        t->benchmark = &d->benchmark;
    }
    if (t->workload) {
        d->workload.size = sizeof d->workload;
        t->workload = &d->workload;
    }
    const char *stem;
    if (bench__file_stem(t->file, &stem) == 0) {
        bench__fmt(err, err_size, "test '%s' (%s:%u) has no file stem to name it by", t->name,
                   where, t->line);
        return BENCH_EINVAL;
    }
    if (t->workload && (unsigned)t->workload->regime > BENCH_CACHE_COLD) {
        bench__fmt(err, err_size, "workload '%s' (%s:%u) has an unknown cache regime %d", t->name,
                   where, t->line, (int)t->workload->regime);
        return BENCH_EINVAL;
    }
    return 0;
}

/* Definition order within a file, files by stem then path: stable across link orders. */
static int compare_entries(const void *pa, const void *pb)
{
    const struct bench__entry *a = pa, *b = pb;
    const char *sa, *sb;
    size_t la = bench__file_stem(a->test->file, &sa), lb = bench__file_stem(b->test->file, &sb);
    size_t common = la < lb ? la : lb;
    int c = strncmp(sa, sb, common);
    if (c == 0 && la != lb)
        c = la < lb ? -1 : 1;
    if (c == 0)
        c = strcmp(a->test->file, b->test->file);
    if (c == 0)
        c = a->test->line < b->test->line ? -1 : a->test->line > b->test->line;
    if (c == 0)
        c = strcmp(a->test->name, b->test->name);
    return c;
}

/* By full name, ties in suite order, so a duplicate is reported the same way everywhere. */
static int compare_full_names(const void *pa, const void *pb)
{
    const struct bench__entry *const *a = pa, *const *b = pb;
    int c = strcmp((*a)->full_name, (*b)->full_name);
    return c ? c : (*a < *b ? -1 : *a > *b);
}

static int find_duplicate(const struct bench__suite *suite, char *err, size_t err_size)
{
    if (suite->count < 2)
        return 0;
    const struct bench__entry **by_name = bench__try_malloc(suite->count * sizeof *by_name);
    if (!by_name)
        return BENCH_ENOMEM;
    for (size_t i = 0; i < suite->count; i++)
        by_name[i] = &suite->entries[i];
    qsort(by_name, suite->count, sizeof *by_name, compare_full_names);
    int rc = 0;
    for (size_t i = 1; i < suite->count && !rc; i++)
        if (!strcmp(by_name[i - 1]->full_name, by_name[i]->full_name)) {
            bench__fmt(err, err_size, "test name '%s' is registered twice (%s:%u and %s:%u)",
                       by_name[i]->full_name, by_name[i - 1]->test->file,
                       by_name[i - 1]->test->line, by_name[i]->test->file, by_name[i]->test->line);
            rc = BENCH_EDUP;
        }
    free(by_name);
    return rc;
}

int bench__suite_load(struct bench__suite *suite, struct bench_test *head, char *err,
                      size_t err_size)
{
    memset(suite, 0, sizeof *suite);
    if (!head && n_rejected) {
        const struct bench_test *t = rejected[0];
        bench__fmt(err, err_size,
                   "%zu test(s) were compiled against an incompatible "
                   "<bench/shim.h>, the first at %s:%u (descriptor size %u, this libbench needs "
                   "at least %u)",
                   n_rejected, t->file ? t->file : "?", t->line, t->size,
                   (unsigned)BENCH_TEST_SIZE_V1);
        return BENCH_ESTRUCT;
    }
    if (!head)
        head = registry_head;
    size_t n = 0;
    for (struct bench_test *t = head; t; t = t->next)
        n++;
    suite->entries = bench__try_calloc(n ? n : 1, sizeof *suite->entries);
    suite->descriptors = bench__try_calloc(n ? n : 1, sizeof *suite->descriptors);
    if (!suite->entries || !suite->descriptors) {
        bench__suite_free(suite);
        bench__fmt(err, err_size, "out of memory");
        return BENCH_ENOMEM;
    }
    for (const struct bench_test *raw = head; raw; raw = raw->next) {
        struct bench__descriptor *d = &suite->descriptors[suite->count];
        int rc = check_descriptor(raw, d, err, err_size);
        if (rc) {
            bench__suite_free(suite);
            return rc;
        }
        const struct bench_test *t = &d->test;
        const char *stem;
        size_t stem_len = bench__file_stem(t->file, &stem);
        struct bench__entry *e = &suite->entries[suite->count++];
        e->test = t;
        size_t size = stem_len + 1 + strlen(t->name) + 1;
        e->full_name = bench__try_malloc(size);
        if (!e->full_name) {
            bench__suite_free(suite);
            bench__fmt(err, err_size, "out of memory");
            return BENCH_ENOMEM;
        }
        snprintf(e->full_name, size, "%.*s.%s", (int)stem_len, stem, t->name);
    }
    qsort(suite->entries, suite->count, sizeof *suite->entries, compare_entries);
    int rc = find_duplicate(suite, err, err_size);
    if (rc) {
        if (rc == BENCH_ENOMEM)
            bench__fmt(err, err_size, "out of memory");
        bench__suite_free(suite);
    }
    return rc;
}

void bench__suite_free(struct bench__suite *suite)
{
    for (size_t i = 0; i < suite->count; i++)
        free(suite->entries[i].full_name);
    free(suite->entries);
    free(suite->descriptors);
    memset(suite, 0, sizeof *suite);
}

bool bench__filter_match(const struct bench__config *cfg, const char *full_name)
{
    if (cfg->include_src && regexec(&cfg->include_re, full_name, 0, NULL, 0) != 0)
        return false;
    if (cfg->exclude_src && regexec(&cfg->exclude_re, full_name, 0, NULL, 0) == 0)
        return false;
    return true;
}

/* Does this mode run (or list) entries of this kind? */
static bool mode_takes(enum bench__filter_mode mode, enum bench_kind kind)
{
    switch (mode) {
    case BENCH__FILTER_LIST: return true;
    case BENCH__FILTER_TEST: return kind != BENCH_KIND_BENCHMARK && kind != BENCH_KIND_WORKLOAD;
    case BENCH__FILTER_BENCH: return kind == BENCH_KIND_BENCHMARK || kind == BENCH_KIND_WORKLOAD;
    }
    return true;
}

int bench__filter_check(const struct bench__suite *suite, const struct bench__config *cfg,
                        enum bench__filter_mode mode, char *err, size_t err_size)
{
    if (!cfg->include_src && !cfg->exclude_src)
        return 0; /* no filter: an empty program, or mode, is not an error */
    size_t total = 0, selected = 0, selected_other = 0;
    for (size_t i = 0; i < suite->count; i++) {
        bool takes = mode_takes(mode, suite->entries[i].test->kind);
        bool match = bench__filter_match(cfg, suite->entries[i].full_name);
        total += takes;
        selected += takes && match;
        selected_other += !takes && match;
    }
    if (selected > 0)
        return 0;
    char include[BENCH__PATTERN_MAX + 1], exclude[BENCH__PATTERN_MAX + 1], filter[300];
    bench__sanitize_copy(cfg->include_src, include, sizeof include);
    bench__sanitize_copy(cfg->exclude_src, exclude, sizeof exclude);
    if (cfg->include_src && cfg->exclude_src)
        bench__fmt(filter, sizeof filter, "--include '%s' with --exclude '%s'", include, exclude);
    else if (cfg->include_src)
        bench__fmt(filter, sizeof filter, "--include '%s'", include);
    else
        bench__fmt(filter, sizeof filter, "--exclude '%s'", exclude);
    static const char *const noun[] = {"test, benchmark or workload", "test",
                                       "benchmark or workload"};
    if (total == 0)
        bench__fmt(err, err_size, "%s selects no %s: the program has none", filter, noun[mode]);
    else if (selected_other > 0 && mode == BENCH__FILTER_TEST)
        bench__fmt(err, err_size,
                   "%s selects no test (of %zu), only benchmarks or workloads (run them with "
                   "--bench)",
                   filter, total);
    else if (selected_other > 0 && mode == BENCH__FILTER_BENCH)
        bench__fmt(err, err_size,
                   "%s selects no benchmark or workload (of %zu), only tests (run them without "
                   "--bench)",
                   filter, total);
    else if (mode == BENCH__FILTER_LIST)
        bench__fmt(err, err_size, "%s selects no %s (of %zu)", filter, noun[mode], total);
    else
        bench__fmt(err, err_size, "%s selects no %s (of %zu; --list shows every name)", filter,
                   noun[mode], total);
    return BENCH_ENOENT;
}

void bench__suite_filter(struct bench__suite *suite, const struct bench__config *cfg)
{
    size_t kept = 0;
    for (size_t i = 0; i < suite->count; i++) {
        if (bench__filter_match(cfg, suite->entries[i].full_name))
            suite->entries[kept++] = suite->entries[i];
        else
            free(suite->entries[i].full_name);
    }
    suite->count = kept;
}
