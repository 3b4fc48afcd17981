/* SPDX-License-Identifier: MIT */
/* callgrind_windows.c: owns the workload windows of the "callgrind" source (callgrind.c). Under
 * Valgrind, a workload test collects from its start to its end, and every edge of a window dumps
 * (the dump resets the counters) and adds the dump to the test's running total, which it writes
 * to the run's counts file as "W\t<Ir> <L1> <LL>\t<edge>\t<test>"; collection is off from the
 * edge's first instruction on until it returns, so the reading itself is never counted. In the
 * normal run each edge is numbered the same way and a window's counts are the difference of its two
 * edges' totals, from the same test's same occurrence in the runs under Valgrind. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if BENCH_HAVE_VALGRIND_HEADERS
#include <valgrind/callgrind.h>
#endif

#include "../util/alloc.h"
#include "../util/text.h"
#include "callgrind_windows.h"

/* One occurrence of a workload test: its edges' running totals in each run (NaN: not read). */
struct cg_test {
    char *name;
    size_t n_edges;
    double (*cum)[BENCH__CG_RUNS][BENCH__CG_N];
    bool filled[BENCH__CG_RUNS]; /* run r's edges of this occurrence were read */
    bool taken;                  /* given to a test of the normal run */
};

struct bench__cg_windows {
    bool inside;
    const char *dir; /* the private directory (the source's, under Valgrind) */
    unsigned run;
    char *test;    /* the test the next run is for */
    uint64_t edge; /* the edges of the test under way so far */
    bool running;  /* under Valgrind: collecting for a test */
    double cum[BENCH__CG_N];
    struct cg_test *tests; /* the normal run: every occurrence the runs recorded */
    size_t n_tests;
    struct cg_test *current; /* ...and the one of the test under way (NULL: none recorded) */
    struct cg_test *reading[BENCH__CG_RUNS]; /* the occurrence each run's lines fill */
};

struct bench__cg_windows *bench__cg_windows_new(const char *dir, unsigned run, bool inside)
{
    struct bench__cg_windows *w = bench__xcalloc(1, sizeof *w);
    w->dir = dir;
    w->run = run;
    w->inside = inside;
    return w;
}

void bench__cg_windows_free(struct bench__cg_windows *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_tests; i++) {
        free(w->tests[i].name);
        free(w->tests[i].cum);
    }
    free(w->tests);
    free(w->test);
    free(w);
}

void bench__cg_windows_test(struct bench__cg_windows *w, const char *test)
{
    if (!w)
        return;
    free(w->test);
    w->test = bench__xstrdup(test ? test : "");
}

void bench__cg_windows_begin(struct bench__cg_windows *w)
{
    if (!w)
        return;
    w->edge = 0;
    if (!w->inside) { /* the next occurrence of this test the runs recorded */
        w->current = NULL;
        for (size_t i = 0; i < w->n_tests && !w->current; i++)
            if (!w->tests[i].taken && strcmp(w->tests[i].name, w->test ? w->test : "") == 0)
                w->current = &w->tests[i];
        if (w->current)
            w->current->taken = true;
        return;
    }
#if BENCH_HAVE_VALGRIND_HEADERS
    for (size_t k = 0; k < BENCH__CG_N; k++)
        w->cum[k] = 0;
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    w->running = true;
#endif
}

/* Under Valgrind: dump, stop collecting, add the dump to the running total and write it. */
static void count_edge(struct bench__cg_windows *w)
{
#if BENCH_HAVE_VALGRIND_HEADERS
    CALLGRIND_TOGGLE_COLLECT; /* first: what follows (the tag's digits vary) is not counted */
    char tag[64];
    bench__fmt(tag, sizeof tag, "libbench-%ld-edge-%llu", (long)getpid(),
               (unsigned long long)w->edge);
    CALLGRIND_DUMP_STATS_AT(tag); /* dumps and zeroes the counts, collecting or not */
    double c[BENCH__CG_N];
    bench__callgrind_dump_counts(w->dir, tag, c);
    for (size_t k = 0; k < BENCH__CG_N; k++)
        w->cum[k] = c[BENCH__CG_IR] < 0 ? NAN : w->cum[k] + c[k];
    char path[600], line[1024];
    bench__fmt(path, sizeof path, "%s/counts.%u", w->dir, w->run);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
        int n = snprintf(line, sizeof line, "W\t%.0f %.0f %.0f\t%llu\t%s\n", w->cum[BENCH__CG_IR],
                         w->cum[BENCH__CG_L1], w->cum[BENCH__CG_LL], (unsigned long long)w->edge,
                         w->test ? w->test : "");
        if (n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) != n)
            (void)0; /* a short write loses the window: the normal run shows it unmeasured */
        close(fd);
    }
    CALLGRIND_TOGGLE_COLLECT;
#else
    (void)w;
#endif
}

uint64_t bench__cg_windows_edge(struct bench__cg_windows *w)
{
    if (!w)
        return UINT64_MAX;
    if (w->inside && w->running)
        count_edge(w);
    return w->edge++;
}

void bench__cg_windows_end(struct bench__cg_windows *w)
{
    if (!w)
        return;
#if BENCH_HAVE_VALGRIND_HEADERS
    if (w->inside && w->running)
        CALLGRIND_TOGGLE_COLLECT;
#endif
    w->running = false;
    w->current = NULL;
}

void bench__cg_windows_read(struct bench__cg_windows *w, const char *line, unsigned run)
{
    if (!w || run < 1 || run > BENCH__CG_RUNS)
        return;
    char *end;
    double c[BENCH__CG_N];
    const char *p = line;
    for (size_t k = 0; k < BENCH__CG_N; k++, p = end)
        c[k] = strtod(p, &end);
    if (*end != '\t')
        return;
    unsigned long long edge = strtoull(end + 1, &end, 10);
    if (*end != '\t' || edge > 1u << 20)
        return;
    const char *test = end + 1;
    struct cg_test **t = &w->reading[run - 1];
    if (edge == 0) { /* a new occurrence: run 1 adds it, run 2 fills the same one */
        *t = NULL;
        for (size_t i = 0; run > 1 && i < w->n_tests && !*t; i++)
            if (!w->tests[i].filled[run - 1] && strcmp(w->tests[i].name, test) == 0)
                *t = &w->tests[i];
        if (!*t && run == 1) {
            w->tests = bench__xrealloc(w->tests, (w->n_tests + 1) * sizeof *w->tests);
            *t = &w->tests[w->n_tests++];
            **t = (struct cg_test){.name = bench__xstrdup(test)};
        }
        if (*t)
            (*t)->filled[run - 1] = true;
    }
    if (!*t || strcmp((*t)->name, test) != 0)
        return;
    while ((*t)->n_edges <= edge) {
        size_t n = (*t)->n_edges;
        (*t)->cum = bench__xrealloc((*t)->cum, (n + 1) * sizeof *(*t)->cum);
        for (size_t r = 0; r < BENCH__CG_RUNS; r++)
            for (size_t k = 0; k < BENCH__CG_N; k++)
                (*t)->cum[n][r][k] = NAN;
        (*t)->n_edges = n + 1;
    }
    for (size_t k = 0; k < BENCH__CG_N; k++)
        (*t)->cum[edge][run - 1][k] = c[k];
}

bool bench__cg_windows_delta(const struct bench__cg_windows *w, uint64_t open, uint64_t close,
                             double out[BENCH__CG_RUNS][BENCH__CG_N])
{
    const struct cg_test *t = w ? w->current : NULL;
    if (!t || open >= t->n_edges || close >= t->n_edges || close <= open)
        return false;
    for (size_t r = 0; r < BENCH__CG_RUNS; r++)
        for (size_t k = 0; k < BENCH__CG_N; k++)
            out[r][k] = t->cum[close][r][k] - t->cum[open][r][k]; /* NaN when either is */
    return !isnan(out[0][BENCH__CG_IR]);
}
