/* SPDX-License-Identifier: MIT */
/* callgrind.c: owns the "callgrind" counting source (--instr=callgrind): exact instructions (Ir)
 * per iteration, counted by running the test binary again under valgrind --tool=callgrind, twice,
 * and every reason it cannot. It never times anything under Valgrind: the runs it starts count
 * only, their output is discarded, and every time column comes from the normal run.
 *
 * Two sides (docs/reference/metrics.md, "callgrind"). The normal run's open() starts the runs
 * under Valgrind (callgrind_runs.c: the same binary and arguments, a pinned counting schedule of
 * BENCH__CALLGRIND_ITERS iterations per pass, a private directory removed afterwards), one after
 * the other and before any sample is timed. In those runs this source toggles collection exactly
 * around the brackets of each counting pass (CALLGRIND_TOGGLE_COLLECT), dumps the pass
 * (CALLGRIND_DUMP_STATS_AT), subtracts what an empty bracket counts once per bracket, and writes
 * the pass's Ir to a file of the directory. The normal run then gives each row the count of the
 * same row's pass (matched by name and occurrence), and the spread between the two runs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if BENCH_HAVE_VALGRIND_HEADERS
#include <valgrind/callgrind.h>
#endif
/* The side that counts under Valgrind: Linux (callgrind_runs.c, callgrind_dump.c) with the
 * client requests. */
#define CG_COUNTS (BENCH__LINUX && BENCH_HAVE_VALGRIND_HEADERS)

#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/clock.h"
#include "../util/text.h"
#include "callgrind_runs.h"
#include "callgrind_windows.h"
#include "process_probe.h"
#include "source.h"

enum { C_IR, C_SPREAD, C_L1, C_LL, C_EST, C_N };
#define C_PLAIN 2 /* --instr=callgrind: the first two columns; callgrind:cache: all five */

/* Per iteration, two decimals: an exact count divided by the iterations of the pass. The cache
 * columns are the simulation's (--cache-sim=yes): L1 = I1mr + D1mr + D1mw, LL = ILmr + DLmr +
 * DLmw, and the estimated cycles Ir + 10 L1 + 100 LL (KCachegrind's "Cycle Estimation"), an
 * estimate (≈) wherever it goes. */
static const struct bench__column_desc callgrind_family[C_N] = {
    {"instructions", "Ir/iter", BENCH__FORMAT_RATIO, BENCH__QUANTITATIVE, "callgrind", true},
    {"instructions-spread", "Ir-spread", BENCH__FORMAT_RATIO, BENCH__DIAGNOSTIC, "callgrind", true},
    {"l1-misses", "L1-miss/iter", BENCH__FORMAT_RATIO, BENCH__QUANTITATIVE, "callgrind", true},
    {"ll-misses", "LL-miss/iter", BENCH__FORMAT_RATIO, BENCH__QUANTITATIVE, "callgrind", true},
    {"est-cycles", "est-cycles/iter", BENCH__FORMAT_RATIO, BENCH__QUANTITATIVE, "callgrind", true},
};
#define BACKEND_CACHE "callgrind:cache"

#define RUNS 2
#define EMPTY_BRACKETS 16

/* One counted pass of a run under Valgrind. */
struct cg_pass {
    char *row;
    double per_iter[RUNS]; /* Ir per iteration in run 1 and run 2 (NaN: not counted) */
    double misses[2];      /* run 1's L1 and LL misses per iteration (NaN without the cache) */
};

struct cg_state {
    bool inside;     /* this process runs under Valgrind for a normal run */
    bool probe_only; /* opened by a listing or without --instr=callgrind */
    char dir[512];
    unsigned run;
    char *row;                 /* the row of the pass under way */
    bool cache;                /* --instr=callgrind:cache: the cache simulation's columns too */
    double empty[BENCH__CG_N]; /* under Valgrind: what one empty bracket (a toggle pair) counts */
    bool open;
    uint64_t closed, seq;
    struct cg_pass *passes;
    struct bench__cg_windows *windows; /* the workload windows (NULL: probe only) */
    size_t n_passes;
    bool *taken; /* per pass: given to a row of the normal run already (the n-th pass of a row
                  * name goes to the n-th row of that name) */
};

/* ---- the probe ---------------------------------------------------------------------------- */

#if BENCH__LINUX
/* The full path of `name` on PATH, into out; false when it is not there. */
static bool on_path(const char *name, char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        return false;
    char *copy = bench__xstrdup(path), *save = NULL;
    bool found = false;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        bench__fmt(out, size, "%s/%s", *d ? d : ".", name);
        int fd = bench__os.open(out, O_RDONLY | O_CLOEXEC); /* the seam: a fake host has none */
        found = fd >= 0 && access(out, X_OK) == 0;
        if (fd >= 0)
            bench__os.close(fd);
    }
    free(copy);
    return found;
}
#endif

/* ---- under Valgrind: the counting side ----------------------------------------------------- */

#if CG_COUNTS
/* What one empty bracket counts under Valgrind (EMPTY_BRACKETS toggle pairs, nothing between):
 * subtracted from every pass, once per bracket, so a count is the calls' own and not the
 * bracket's. The rest of the harness around a bracket stays in (docs/reference/metrics.md). */
static void empty_bracket(struct cg_state *s)
{
    CALLGRIND_ZERO_STATS;
    for (int i = 0; i < EMPTY_BRACKETS; i++) {
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_TOGGLE_COLLECT;
    }
    char tag[64];
    bench__fmt(tag, sizeof tag, "libbench-%ld-empty", (long)getpid());
    CALLGRIND_DUMP_STATS_AT(tag);
    double c[BENCH__CG_N];
    bench__callgrind_dump_counts(s->dir, tag, c);
    /* instructions only: an empty bracket's misses depend on what ran before it (the first
     * pair's are cold), so they stay in the counts rather than make one negative */
    s->empty[BENCH__CG_IR] = c[BENCH__CG_IR] >= 0 ? c[BENCH__CG_IR] / EMPTY_BRACKETS : 0;
}
#endif

#if CG_COUNTS /* the counts files: written under Valgrind, read by the normal run */
/* Under Valgrind: a first line in the run's file, so that a run with nothing to count (a binary
 * of workloads without windows) is told from one Valgrind refused. */
static void started(const struct cg_state *s)
{
    char path[600];
    bench__fmt(path, sizeof path, "%s/counts.%u", s->dir, s->run);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0 && write(fd, "#\n", 2) != 2)
        (void)0; /* the normal run then says the run counted nothing */
    if (fd >= 0)
        close(fd);
}

/* Append a pass's counts to the run's file:
 * "<Ir> <L1> <LL>\t<iterations>\t<brackets>\t<row>" (a miss count "nan" without the cache). */
static void record(const struct cg_state *s, const double c[BENCH__CG_N], uint64_t iterations,
                   uint64_t brackets)
{
    char path[600];
    bench__fmt(path, sizeof path, "%s/counts.%u", s->dir, s->run);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "%.0f %.0f %.0f\t%llu\t%llu\t%s\n", c[BENCH__CG_IR],
                     c[BENCH__CG_L1], c[BENCH__CG_LL], (unsigned long long)iterations,
                     (unsigned long long)brackets, s->row);
    if (n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) != n)
        (void)0; /* a short write loses this row's count: the normal run shows it unmeasured */
    close(fd);
}

/* Read run `run`'s counts into the passes (run 1 adds them, run 2 fills its column). */
static void read_counts(struct cg_state *s, unsigned run)
{
    char path[600];
    bench__fmt(path, sizeof path, "%s/counts.%u", s->dir, run);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t len = 0;
    while (getline(&line, &len, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == 'W' && line[1] == '\t') {
            bench__cg_windows_read(s->windows, line + 2, run);
            continue;
        }
        char *p = line, *end;
        double c[BENCH__CG_N];
        for (size_t k = 0; k < BENCH__CG_N; k++, p = end)
            c[k] = strtod(p, &end);
        if (*end != '\t' || !(c[BENCH__CG_IR] >= 0))
            continue;
        unsigned long long iters = strtoull(end + 1, &end, 10);
        if (*end != '\t' || iters == 0)
            continue;
        (void)strtoull(end + 1, &end, 10);
        if (*end != '\t')
            continue;
        const char *row = end + 1;
        double v = c[BENCH__CG_IR] / (double)iters;
        if (run == 1) {
            s->passes = bench__xrealloc(s->passes, (s->n_passes + 1) * sizeof *s->passes);
            s->passes[s->n_passes++] = (struct cg_pass){
                bench__xstrdup(row),
                {v, NAN},
                {c[BENCH__CG_L1] / (double)iters, c[BENCH__CG_LL] / (double)iters}};
            continue;
        }
        /* run 2: the same row's same occurrence in run 1 */
        for (size_t i = 0; i < s->n_passes; i++) {
            if (strcmp(s->passes[i].row, row) == 0 && isnan(s->passes[i].per_iter[1])) {
                s->passes[i].per_iter[1] = v;
                break;
            }
        }
    }
    free(line);
    fclose(f);
}

#endif

/* ---- the source ------------------------------------------------------------------------------ */

static bool wants_cache(const struct bench__source_request *req)
{
    for (size_t i = 0; i < req->n_flag_values; i++)
        if (strcmp(req->flag_values[i], BACKEND_CACHE) == 0)
            return true;
    return false;
}

/* What a selector of --metrics makes of this source: its columns, by name or header. */
static enum bench__claim callgrind_claim(const char *selector)
{
    for (size_t k = 0; k < C_N; k++)
        if (strcmp(selector, callgrind_family[k].name) == 0 ||
            strcmp(selector, callgrind_family[k].header) == 0)
            return BENCH__CLAIM_COUNTED;
    return BENCH__CLAIM_NONE;
}

/* Nothing unless asked (--instr, or one of its columns named): then two columns, or five with
 * callgrind:cache (static text: nothing in `strings`). */
static size_t callgrind_family_for(const struct bench__source_request *req,
                                   struct bench__family *out)
{
    memset(out, 0, sizeof *out);
    bool asked = req->flag;
    for (size_t i = 0; i < req->n_selectors && !asked; i++)
        asked = strcmp(req->selectors[i], "all") == 0 ||
                callgrind_claim(req->selectors[i]) == BENCH__CLAIM_COUNTED;
    if (!asked)
        return 0;
    out->n = wants_cache(req) ? C_N : C_PLAIN;
    out->columns = bench__xcalloc(out->n, sizeof *out->columns);
    memcpy(out->columns, callgrind_family, out->n * sizeof *out->columns);
    return out->n;
}

static void *callgrind_open(const struct bench__source_request *req, struct bench__caps *caps,
                            char *status, size_t status_size)
{
    status[0] = '\0';
#if !BENCH__LINUX
    (void)req;
    bench__caps_off_platform(caps, BENCH__CAP_COUNTING,
                             "the runs under Valgrind read /proc/self/exe");
    return NULL;
#else
#if BENCH_HAVE_VALGRIND_HEADERS
    if (RUNNING_ON_VALGRIND) {
        const char *dir = getenv(BENCH__CALLGRIND_ENV_DIR), *run = getenv(BENCH__CALLGRIND_ENV_RUN);
        if (!dir || !run) {
            bench__caps_absent(caps, BENCH__CAP_COUNTING,
                               "already running under Valgrind, not started by libbench: run "
                               "without valgrind (--instr=callgrind starts it itself)");
            return NULL;
        }
        struct cg_state *s = bench__xcalloc(1, sizeof *s);
        s->inside = true;
        bench__fmt(s->dir, sizeof s->dir, "%s", dir);
        s->run = (unsigned)strtoul(run, NULL, 10);
        s->cache = wants_cache(req);
        empty_bracket(s);
        s->windows = bench__cg_windows_new(s->dir, s->run, true);
        started(s);
        bench__caps_present(caps, BENCH__CAP_COUNTING);
        return s;
    }
#endif
    /* PATH first, through the OS seam: a fake host answers the same in every build */
    char valgrind[1024];
    if (!on_path("valgrind", valgrind, sizeof valgrind)) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING,
                           "valgrind is not on PATH (install valgrind to count instructions "
                           "under Callgrind)");
        return NULL;
    }
#if !BENCH_HAVE_VALGRIND_HEADERS
    (void)req;
    bench__caps_absent(caps, BENCH__CAP_COUNTING,
                       "not built with valgrind headers (<valgrind/callgrind.h>: install "
                       "valgrind, or valgrind-devel, and rebuild)");
    return NULL;
#else
    const char *sanitizer = bench__sanitizer_present();
    if (sanitizer) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING,
                           "a %s build: its runtime and Valgrind cannot share one process (count "
                           "instructions with a build without sanitizers)",
                           sanitizer);
        return NULL;
    }
    if (bench__static_binary()) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING,
                           "a static binary: Valgrind's tools need the dynamic loader to start "
                           "the test binary under them");
        return NULL;
    }
    struct cg_state *s = bench__xcalloc(1, sizeof *s);
    s->cache = wants_cache(req);
    if (!req->flag) { /* a listing, or a metric named without --instr=callgrind */
        s->probe_only = true;
        bench__caps_present(caps, BENCH__CAP_COUNTING);
        bench__fmt(status, status_size, "counts only with --instr=callgrind");
        return s;
    }
    const char *tmp = getenv("TMPDIR");
    bench__fmt(s->dir, sizeof s->dir, "%s/libbench-callgrind-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir)) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "mkdtemp %s: %s", s->dir, strerror(errno));
        free(s);
        return NULL;
    }
    int64_t t0 = bench__clock_deadline_ns();
    char why[BENCH__REASON_MAX] = "";
    int rc = 0;
    for (unsigned run = 1; run <= RUNS && rc == 0; run++)
        rc = bench__callgrind_run(valgrind, s->dir, run, s->cache, why, sizeof why);
    int64_t t1 = bench__clock_deadline_ns();
    s->windows = bench__cg_windows_new(s->dir, 0, false);
    if (rc == 0)
        for (unsigned run = 1; run <= RUNS; run++)
            read_counts(s, run);
    bench__callgrind_remove_dir(s->dir);
    if (rc != 0) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", why);
        bench__cg_windows_free(s->windows);
        free(s);
        return NULL;
    }
    s->taken = bench__xcalloc(s->n_passes + 1, sizeof *s->taken);
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    double secs = (double)(t1 - t0) / 1e9;
    bench__fmt(status, status_size, "counted under Valgrind in %u runs (%.1f s), before timing",
               RUNS, secs);
    return s;
#endif /* the valgrind headers */
#endif /* Linux */
}

static void callgrind_close(void *state)
{
    struct cg_state *s = state;
    for (size_t i = 0; i < s->n_passes; i++)
        free(s->passes[i].row);
    free(s->passes);
    free(s->taken);
    free(s->row);
    bench__cg_windows_free(s->windows);
    free(s);
}

static int callgrind_backend_check(const char *value, char *err, size_t err_size)
{
    if (strcmp(value, "callgrind") == 0 || strcmp(value, BACKEND_CACHE) == 0)
        return 0;
    bench__fmt(err, err_size, "'%s' is not an instruction counter (only 'callgrind' or '%s')",
               value, BACKEND_CACHE);
    return -1;
}

static void callgrind_pass_row(void *state, const char *row)
{
    struct cg_state *s = state;
    free(s->row);
    s->row = row ? bench__xstrdup(row) : NULL;
}

static void callgrind_pass_begin(void *state)
{
    struct cg_state *s = state;
    s->closed = 0;
#if CG_COUNTS
    if (s->inside)
        CALLGRIND_ZERO_STATS;
#endif
}

static void callgrind_bracket_begin(void *state)
{
    struct cg_state *s = state;
#if CG_COUNTS
    if (s->inside && !s->open)
        CALLGRIND_TOGGLE_COLLECT;
#endif
    s->open = true;
}

static void callgrind_bracket_end(void *state)
{
    struct cg_state *s = state;
    if (!s->open)
        return;
#if CG_COUNTS
    if (s->inside)
        CALLGRIND_TOGGLE_COLLECT;
#endif
    s->open = false;
    s->closed++;
}

/* The cache columns of a row from its misses per iteration: NaN without the simulation. */
static void cache_columns(const struct cg_state *s, double ir, const double misses[2],
                          struct bench__counts *out)
{
    if (!s->cache)
        return;
    out->values[C_L1] = misses[0];
    out->values[C_LL] = misses[1];
    out->values[C_EST] = isnan(misses[0]) || isnan(misses[1]) || isnan(ir)
                             ? NAN
                             : ir + 10.0 * misses[0] + 100.0 * misses[1];
    out->estimate[C_EST] = !isnan(out->values[C_EST]);
}

static void callgrind_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                               struct bench__counts *out)
{
    struct cg_state *s = state;
    size_t n = s->cache ? C_N : C_PLAIN;
    for (size_t k = 0; k < n; k++)
        out->values[k] = NAN;
    char *row = s->row;
    s->row = NULL;
    bool balanced = iterations > 0 && brackets > 0 && s->closed == brackets && !s->open;
    if (!row || !balanced || s->probe_only) {
        free(row);
        return;
    }
    if (s->inside) {
#if CG_COUNTS
        char tag[64];
        bench__fmt(tag, sizeof tag, "libbench-%ld-%llu", (long)getpid(),
                   (unsigned long long)++s->seq);
        CALLGRIND_DUMP_STATS_AT(tag);
        double c[BENCH__CG_N];
        bench__callgrind_dump_counts(s->dir, tag, c);
        if (c[BENCH__CG_IR] >= 0) {
            c[BENCH__CG_IR] -= s->empty[BENCH__CG_IR] * (double)brackets;
            s->row = row;
            record(s, c, iterations, brackets);
            s->row = NULL;
            out->values[C_IR] = c[BENCH__CG_IR] / (double)iterations;
        }
#endif
        free(row);
        return;
    }
    /* the normal run: this row's next occurrence among run 1's passes */
    for (size_t i = 0; i < s->n_passes; i++) {
        if (strcmp(s->passes[i].row, row) != 0 || s->taken[i])
            continue;
        s->taken[i] = true;
        double a = s->passes[i].per_iter[0], b = s->passes[i].per_iter[1];
        out->values[C_IR] = a;
        out->values[C_SPREAD] = isnan(b) ? NAN : fabs(a - b);
        cache_columns(s, a, s->passes[i].misses, out);
        break;
    }
    free(row);
}

/* ---- workload windows (callgrind_windows.c): a window's totals across it ------------------ */

static void callgrind_run_name(void *state, const char *test)
{
    bench__cg_windows_test(((struct cg_state *)state)->windows, test);
}

static void callgrind_run_begin(void *state)
{
    bench__cg_windows_begin(((struct cg_state *)state)->windows);
}

static void callgrind_run_end(void *state)
{
    bench__cg_windows_end(((struct cg_state *)state)->windows);
}

/* A window's totals: the counts across the window, not per iteration ("Ir", "L1-miss"). */
static void callgrind_window_total(const struct bench__column_desc *column,
                                   struct bench__total_desc *out)
{
    static const char *const headers[C_N] = {"Ir", "Ir-spread", "L1-miss", "LL-miss", "est-cycles"};
    const char *header = column->header;
    for (size_t k = 0; k < C_N; k++)
        if (strcmp(column->name, callgrind_family[k].name) == 0)
            header = headers[k];
    *out = (struct bench__total_desc){"callgrind",         NULL, column->name, header, column->name,
                                      BENCH__FORMAT_COUNT, true};
}

static void callgrind_edge_read(void *state, void *snapshot)
{
    uint64_t edge = bench__cg_windows_edge(((struct cg_state *)state)->windows);
    memcpy(snapshot, &edge, sizeof edge);
}

static void callgrind_window_counts(void *state, const void *open, const void *close,
                                    const struct bench__edge_shared shared[2],
                                    struct bench__counts *out)
{
    (void)shared;
    const struct cg_state *s = state;
    for (size_t k = 0; k < (s->cache ? C_N : C_PLAIN); k++)
        out->values[k] = NAN;
    uint64_t o, c;
    memcpy(&o, open, sizeof o);
    memcpy(&c, close, sizeof c);
    double d[BENCH__CG_RUNS][BENCH__CG_N];
    if (s->inside || !bench__cg_windows_delta(s->windows, o, c, d))
        return;
    out->values[C_IR] = d[0][BENCH__CG_IR];
    out->values[C_SPREAD] =
        isnan(d[1][BENCH__CG_IR]) ? NAN : fabs(d[0][BENCH__CG_IR] - d[1][BENCH__CG_IR]);
    double misses[2] = {d[0][BENCH__CG_L1], d[0][BENCH__CG_LL]};
    cache_columns(s, d[0][BENCH__CG_IR], misses, out);
}

const struct bench__source_ops bench__source_callgrind = {
    .name = "callgrind",
    .flag = "instr",
    .flag_value = "BACKEND",
    .flag_help = "with --bench: count instructions (=callgrind: exact Ir per iteration, counted "
                 "by running the binary again under Valgrind's callgrind, twice)",
    .flag_value_check = callgrind_backend_check,
    .family_for = callgrind_family_for,
    .claim = callgrind_claim,
    .open = callgrind_open,
    .close = callgrind_close,
    .pass_begin = callgrind_pass_begin,
    .pass_row = callgrind_pass_row,
    .bracket_begin = callgrind_bracket_begin,
    .bracket_end = callgrind_bracket_end,
    .pass_end = callgrind_pass_end,
    .edge_size = sizeof(uint64_t),
    .edge_rank = 7, /* innermost: no other source's reading falls inside its windows */
    .window_total = callgrind_window_total,
    .run_name = callgrind_run_name,
    .run_begin = callgrind_run_begin,
    .edge_read = callgrind_edge_read,
    .window_counts = callgrind_window_counts,
    .run_end = callgrind_run_end,
};
