/* SPDX-License-Identifier: MIT */
/* registry.c: owns the list that registration constructors fill, and the validated,
 * ordered, filtered snapshot (the suite) that the runners work on. Constructors only
 * link a descriptor; every check happens here when the program starts. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static struct bench_test *registry_head;

void bench_register(struct bench_test *test)
{
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

/* The library knows descriptors up to the end of `next`; a newer shim may append fields,
 * accepted only while they are zero (libpfm4's rule). */
static int check_size(const struct bench_test *t)
{
    if (t->size < sizeof(struct bench_test))
        return BENCH_ESTRUCT;
    const unsigned char *tail = (const unsigned char *)t + sizeof(struct bench_test);
    for (size_t i = 0; i < t->size - sizeof(struct bench_test); i++)
        if (tail[i])
            return BENCH_ESTRUCT;
    return 0;
}

static int check_descriptor(const struct bench_test *t, char *err, size_t err_size)
{
    const char *where = t->file ? t->file : "?";
    if (check_size(t)) {
        snprintf(err, err_size, "test '%s' (%s:%u) was compiled against an incompatible "
                 "<bench/shim.h> (descriptor size %u, this libbench knows %zu)",
                 t->name ? t->name : "?", where, t->line, t->size, sizeof(struct bench_test));
        return BENCH_ESTRUCT;
    }
    if (!t->name || !*t->name || !t->file || !t->fn) {
        snprintf(err, err_size, "a test registered at %s:%u has no name, file or body", where,
                 t->line);
        return BENCH_EINVAL;
    }
    bool kind_ok = (t->kind == BENCH_KIND_TEST && !t->benchmark && !t->workload) ||
                   (t->kind == BENCH_KIND_BENCHMARK && t->benchmark && !t->workload) ||
                   (t->kind == BENCH_KIND_WORKLOAD && t->workload && !t->benchmark);
    if (!kind_ok) {
        snprintf(err, err_size, "test '%s' (%s:%u) is marked both benchmark and workload, or "
                 "neither consistently", t->name, where, t->line);
        return BENCH_EINVAL;
    }
    if ((t->benchmark && t->benchmark->size < sizeof(struct bench_benchmark_opts)) ||
        (t->workload && t->workload->size < sizeof(struct bench_workload_opts))) {
        snprintf(err, err_size, "test '%s' (%s:%u) has options from an incompatible "
                 "<bench/shim.h>", t->name, where, t->line);
        return BENCH_ESTRUCT;
    }
    if (t->workload && (unsigned)t->workload->regime > BENCH_CACHE_COLD) {
        snprintf(err, err_size, "workload '%s' (%s:%u) has an unknown cache regime %d", t->name,
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

static int compare_full_names(const void *pa, const void *pb)
{
    const struct bench__entry *const *a = pa, *const *b = pb;
    return strcmp((*a)->full_name, (*b)->full_name);
}

static int find_duplicate(const struct bench__suite *suite, char *err, size_t err_size)
{
    if (suite->count < 2)
        return 0;
    const struct bench__entry **by_name = malloc(suite->count * sizeof *by_name);
    if (!by_name)
        return BENCH_ENOMEM;
    for (size_t i = 0; i < suite->count; i++)
        by_name[i] = &suite->entries[i];
    qsort(by_name, suite->count, sizeof *by_name, compare_full_names);
    int rc = 0;
    for (size_t i = 1; i < suite->count && !rc; i++)
        if (!strcmp(by_name[i - 1]->full_name, by_name[i]->full_name)) {
            snprintf(err, err_size, "test name '%s' is registered twice (%s:%u and %s:%u)",
                     by_name[i]->full_name, by_name[i - 1]->test->file, by_name[i - 1]->test->line,
                     by_name[i]->test->file, by_name[i]->test->line);
            rc = BENCH_EDUP;
        }
    free(by_name);
    return rc;
}

int bench__suite_load(struct bench__suite *suite, struct bench_test *head, char *err,
                      size_t err_size)
{
    memset(suite, 0, sizeof *suite);
    if (!head)
        head = registry_head;
    size_t n = 0;
    for (struct bench_test *t = head; t; t = t->next)
        n++;
    suite->entries = calloc(n ? n : 1, sizeof *suite->entries);
    if (!suite->entries)
        return BENCH_ENOMEM;
    for (struct bench_test *t = head; t; t = t->next) {
        int rc = check_descriptor(t, err, err_size);
        if (rc) {
            bench__suite_free(suite);
            return rc;
        }
        const char *stem;
        size_t stem_len = bench__file_stem(t->file, &stem);
        struct bench__entry *e = &suite->entries[suite->count++];
        e->test = t;
        if (asprintf(&e->full_name, "%.*s.%s", (int)stem_len, stem, t->name) < 0) {
            e->full_name = NULL;
            bench__suite_free(suite);
            return BENCH_ENOMEM;
        }
    }
    qsort(suite->entries, suite->count, sizeof *suite->entries, compare_entries);
    int rc = find_duplicate(suite, err, err_size);
    if (rc) {
        if (rc == BENCH_ENOMEM)
            snprintf(err, err_size, "out of memory");
        bench__suite_free(suite);
    }
    return rc;
}

void bench__suite_free(struct bench__suite *suite)
{
    for (size_t i = 0; i < suite->count; i++)
        free(suite->entries[i].full_name);
    free(suite->entries);
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
