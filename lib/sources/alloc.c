/* SPDX-License-Identifier: MIT */
/* alloc.c: owns the "alloc" counting source: exact counts of allocator calls (allocs, frees,
 * alloc-bytes) read from the interposer libbench-alloc.so, found at run time, and every reason it
 * cannot count. It must never count while samples are timed: the interposer counts only inside
 * the brackets of a counting pass and between a workload test's run_begin and run_end.
 *
 * The mechanism (docs/reference/metrics.md, "alloc"): interposition in the test binary by a small
 * library of its own, interpose/alloc.c (which says why it is not libbench.so itself). This file
 * finds its table with dlsym(RTLD_DEFAULT), checks that a malloc and a free of the library reach
 * it, and reports each absence with its reason: a sanitizer or Valgrind (each replaces the
 * allocator), a static binary, an interposer not loaded, or an allocator it cannot see. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/text.h"
#include "alloc.h"
#include "process_probe.h"
#include "../util/alloc_interposer.h"
#include "source.h"

enum { A_ALLOCS, A_FREES, A_BYTES, A_N };

/* Per iteration, two decimals: a count is exact, and 0.33 says one call every three iterations. */
static const struct bench__column_desc alloc_family[A_N] = {
    {"allocs", "allocs/iter", BENCH__FORMAT_RATIO, BENCH__QUANTITATIVE, "alloc", true},
    {"frees", "frees/iter", BENCH__FORMAT_RATIO, BENCH__QUANTITATIVE, "alloc", true},
    {"alloc-bytes", "alloc-B/iter", BENCH__FORMAT_RATIO, BENCH__QUANTITATIVE, "alloc", true},
};

static const struct bench__total_desc alloc_totals[A_N] = {
    {"alloc", NULL, "allocs", "allocs", "allocs", BENCH__FORMAT_COUNT, true},
    {"alloc", NULL, "frees", "frees", "frees", BENCH__FORMAT_COUNT, true},
    {"alloc", NULL, "allocBytes", "alloc-B", "alloc-bytes", BENCH__FORMAT_COUNT, true},
};

#define SCOPE_ALL "all-threads"
#define SCOPE_THREAD "thread"

/* ---- the reasons (pure) ------------------------------------------------------------------ */

bool bench__alloc_absence(const struct bench__alloc_probe *p, char *why, size_t size)
{
    why[0] = '\0';
    if (p->sanitizer)
        bench__fmt(why, size,
                   "%s replaces the allocator (its runtime is in this process): allocator calls "
                   "cannot be counted in a sanitizer build",
                   p->sanitizer);
    else if (p->valgrind)
        bench__fmt(why, size,
                   "running under Valgrind, which replaces the allocator: allocator calls cannot "
                   "be counted");
    else if (p->static_binary)
        bench__fmt(why, size,
                   "a static binary: no allocator can be interposed without a dynamic loader");
    else if (!p->found)
        bench__fmt(why, size,
                   "the allocation interposer libbench-alloc.so is not loaded in this process: "
                   "link the test binary with it (pkg-config libbench-alloc) or run it with "
                   "LD_PRELOAD=libbench-alloc.so");
    else if (!p->version_ok)
        bench__fmt(why, size,
                   "the loaded libbench-alloc.so is of another version than this libbench");
    else if (p->broken)
        bench__fmt(why, size, "libbench-alloc.so cannot forward: %s", p->broken);
    else if (!p->sees_allocations)
        bench__fmt(why, size,
                   "malloc does not reach libbench-alloc.so: the program or a library loaded "
                   "before it has an allocator of its own, which the interposer cannot see");
    return why[0] != '\0';
}

/* ---- the probe -------------------------------------------------------------------------- */

/* A malloc and a free of the library, counted on this thread. */
static bool sees_allocations(const struct bench__alloc_interposer *ip)
{
    struct bench__alloc_tally before, after;
    ip->thread_read(&before);
    ip->thread_count(true);
    void *p = bench__xmalloc(24);
    free(p);
    ip->thread_count(false);
    ip->thread_read(&after);
    return after.allocs - before.allocs == 1 && after.frees - before.frees == 1 &&
           after.bytes - before.bytes == 24;
}

struct alloc_state {
    const struct bench__alloc_interposer *ip;
    bool all; /* --alloc=all-threads: every thread's calls */
    struct bench__alloc_tally at_begin, total;
    bool open;
    uint64_t closed; /* brackets of the pass that balanced */
};

static void *alloc_open(const struct bench__source_request *req, struct bench__caps *caps,
                        char *status, size_t status_size)
{
    status[0] = '\0';
    if (!BENCH__LINUX) { /* the interposer is built on Linux only (interpose/meson.build) */
        bench__caps_off_platform(caps, BENCH__CAP_COUNTING,
                                 "the interposer libbench-alloc.so is built on Linux only");
        return NULL;
    }
    struct bench__alloc_probe p = {.sanitizer = bench__sanitizer_present(),
                                   .valgrind = bench__under_valgrind(),
                                   .static_binary = bench__static_binary()};
    const struct bench__alloc_interposer *ip = NULL;
    if (!p.sanitizer && !p.valgrind) {
        void *sym = bench__os.dlsym(RTLD_DEFAULT, BENCH__ALLOC_INTERPOSER_SYMBOL);
        p.found = sym != NULL;
        if (p.found) {
            p.static_binary = false; /* found through a dynamic loader after all */
            bench__alloc_interposer_fn get;
            memcpy(&get, &sym, sizeof get);
            ip = get();
            p.version_ok =
                ip && ip->version == BENCH__ALLOC_INTERPOSER_VERSION && ip->size >= sizeof *ip;
        }
        if (p.version_ok) {
            p.broken = ip->broken();
            p.sees_allocations = !p.broken && sees_allocations(ip);
        }
    }
    char why[BENCH__REASON_MAX];
    if (bench__alloc_absence(&p, why, sizeof why)) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", why);
        return NULL;
    }
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    struct alloc_state *s = bench__xcalloc(1, sizeof *s);
    s->ip = ip;
    for (size_t i = 0; i < req->n_flag_values; i++)
        s->all = strcmp(req->flag_values[i], SCOPE_ALL) == 0; /* the last one given decides */
    bench__fmt(status, status_size, "%s", s->all ? "counts every thread" : "");
    return s;
}

static void alloc_close(void *state)
{
    struct alloc_state *s = state;
    if (s->open)
        s->all ? s->ip->all_count(false) : s->ip->thread_count(false);
    free(s);
}

static int alloc_scope_check(const char *value, char *err, size_t err_size)
{
    if (strcmp(value, SCOPE_ALL) == 0 || strcmp(value, SCOPE_THREAD) == 0)
        return 0;
    bench__fmt(err, err_size, "'%s' is not a scope (thread or " SCOPE_ALL ")", value);
    return -1;
}

static void tally_read(const struct alloc_state *s, struct bench__alloc_tally *t)
{
    s->all ? s->ip->all_read(t) : s->ip->thread_read(t);
}

static void counting(struct alloc_state *s, bool on)
{
    s->all ? s->ip->all_count(on) : s->ip->thread_count(on);
    s->open = on;
}

/* ---- the counting pass -------------------------------------------------------------------- */

static void alloc_pass_begin(void *state)
{
    struct alloc_state *s = state;
    memset(&s->total, 0, sizeof s->total);
    s->closed = 0;
}

static void alloc_bracket_begin(void *state)
{
    struct alloc_state *s = state;
    tally_read(s, &s->at_begin);
    counting(s, true);
}

static void alloc_bracket_end(void *state)
{
    struct alloc_state *s = state;
    if (!s->open)
        return;
    counting(s, false);
    struct bench__alloc_tally now;
    tally_read(s, &now);
    s->total.allocs += now.allocs - s->at_begin.allocs;
    s->total.frees += now.frees - s->at_begin.frees;
    s->total.bytes += now.bytes - s->at_begin.bytes;
    s->closed++;
}

static void alloc_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                           struct bench__counts *out)
{
    struct alloc_state *s = state;
    bool measured = iterations > 0 && brackets > 0 && s->closed == brackets && !s->open;
    const uint64_t v[A_N] = {s->total.allocs, s->total.frees, s->total.bytes};
    for (size_t k = 0; k < A_N; k++)
        out->values[k] = measured ? (double)v[k] / (double)iterations : NAN;
}

/* ---- workload windows ---------------------------------------------------------------------- */

static void alloc_run_begin(void *state)
{
    counting(state, true);
}

static void alloc_edge_read(void *state, void *snapshot)
{
    tally_read(state, snapshot);
}

static void alloc_window_counts(void *state, const void *open, const void *close,
                                const struct bench__edge_shared shared[2],
                                struct bench__counts *out)
{
    (void)state;
    (void)shared;
    struct bench__alloc_tally a, b;
    memcpy(&a, open, sizeof a);
    memcpy(&b, close, sizeof b);
    out->values[A_ALLOCS] = (double)(b.allocs - a.allocs);
    out->values[A_FREES] = (double)(b.frees - a.frees);
    out->values[A_BYTES] = (double)(b.bytes - a.bytes);
}

static void alloc_run_end(void *state)
{
    counting(state, false);
}

const struct bench__source_ops bench__source_alloc = {
    .name = "alloc",
    .flag = "alloc",
    .flag_value = "SCOPE",
    .flag_help =
        "with --bench: count allocator calls (=" SCOPE_ALL ": every thread's, not only the body's)",
    .flag_value_check = alloc_scope_check,
    .family = alloc_family,
    .n_family = A_N,
    .open = alloc_open,
    .close = alloc_close,
    .pass_begin = alloc_pass_begin,
    .bracket_begin = alloc_bracket_begin,
    .bracket_end = alloc_bracket_end,
    .pass_end = alloc_pass_end,
    .edge_size = sizeof(struct bench__alloc_tally),
    .edge_rank = 6, /* inside every other source's but callgrind's, which reads nothing and
                       allocates nothing in the normal run */
    .totals = alloc_totals,
    .n_totals = A_N,
    .run_begin = alloc_run_begin,
    .edge_read = alloc_edge_read,
    .window_counts = alloc_window_counts,
    .run_end = alloc_run_end,
};
