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

#include "../util/alloc.h"
#include "../util/clock.h"
#include "../util/text.h"
#include "callgrind_runs.h"
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

/* What a dump holds: instructions, and with the cache simulation L1 and LL misses. */
enum { E_IR, E_L1, E_LL, E_N };

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
    char *row;         /* the row of the pass under way */
    bool cache;        /* --instr=callgrind:cache: the cache simulation's columns too */
    double empty[E_N]; /* under Valgrind: what one empty bracket (a toggle pair) counts */
    bool open;
    uint64_t closed, seq;
    struct cg_pass *passes;
    size_t n_passes;
    bool *taken; /* per pass: given to a row of the normal run already (the n-th pass of a row
                  * name goes to the n-th row of that name) */
};

/* ---- the probe ---------------------------------------------------------------------------- */

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
        found = access(out, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* ---- under Valgrind: the counting side ----------------------------------------------------- */

/* The event of a dump's column name: Ir, or an L1 or LL miss; -1 for the others. */
static int event_of(const char *name)
{
    static const struct {
        const char *name;
        int event;
    } map[] = {{"Ir", E_IR},   {"I1mr", E_L1}, {"D1mr", E_L1}, {"D1mw", E_L1},
               {"ILmr", E_LL}, {"DLmr", E_LL}, {"DLmw", E_LL}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(name, map[i].name) == 0)
            return map[i].event;
    return -1;
}

/* A dump's totals line summed into its events, by the names of its events line; a column the
 * line leaves out at its end (Callgrind drops trailing zeros) is 0. */
static void sum_totals(char *events, const char *totals, double out[E_N])
{
    char *save = NULL;
    const char *p = totals;
    for (char *name = strtok_r(events, " \t\n", &save); name;
         name = strtok_r(NULL, " \t\n", &save)) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            v = 0;
        p = end;
        int e = event_of(name);
        if (e >= 0)
            out[e] = (isnan(out[e]) ? 0 : out[e]) + v;
    }
}

/* The counts of the dump whose trigger is `tag` (a file of dir), removed once read: out[E_IR] is
 * -1 when it is absent, the misses NaN without the cache simulation. */
static void dump_counts(const char *dir, const char *tag, double out[E_N])
{
    out[E_IR] = -1;
    out[E_L1] = out[E_LL] = NAN;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char want[160];
    bench__fmt(want, sizeof want, "desc: Trigger: Client Request: %s\n", tag);
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (strncmp(e->d_name, "cg.", 3) != 0)
            continue;
        char path[1024], line[1024], events[512] = "";
        bench__fmt(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        bool mine = false;
        while (fgets(line, sizeof line, f)) {
            if (strcmp(line, want) == 0)
                mine = true;
            else if (strncmp(line, "events:", 7) == 0) {
                if (!mine)
                    break; /* the header ended without our trigger */
                bench__fmt(events, sizeof events, "%s", line + 7);
            } else if (mine && strncmp(line, "totals:", 7) == 0) {
                out[E_IR] = NAN;
                sum_totals(events, line + 7, out);
                if (isnan(out[E_IR]))
                    out[E_IR] = -1;
                found = true;
                break;
            }
        }
        fclose(f);
        if (mine)
            unlink(path);
    }
    closedir(d);
}

#if BENCH_HAVE_VALGRIND_HEADERS
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
    double c[E_N];
    dump_counts(s->dir, tag, c);
    /* instructions only: an empty bracket's misses depend on what ran before it (the first
     * pair's are cold), so they stay in the counts rather than make one negative */
    s->empty[E_IR] = c[E_IR] >= 0 ? c[E_IR] / EMPTY_BRACKETS : 0;
}
#endif

/* Append a pass's counts to the run's file:
 * "<Ir> <L1> <LL>\t<iterations>\t<brackets>\t<row>" (a miss count "nan" without the cache). */
static void record(const struct cg_state *s, const double c[E_N], uint64_t iterations,
                   uint64_t brackets)
{
    char path[600];
    bench__fmt(path, sizeof path, "%s/counts.%u", s->dir, s->run);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "%.0f %.0f %.0f\t%llu\t%llu\t%s\n", c[E_IR], c[E_L1],
                     c[E_LL], (unsigned long long)iterations, (unsigned long long)brackets, s->row);
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
        char *p = line, *end;
        double c[E_N];
        for (size_t k = 0; k < E_N; k++, p = end)
            c[k] = strtod(p, &end);
        if (*end != '\t' || !(c[E_IR] >= 0))
            continue;
        unsigned long long iters = strtoull(end + 1, &end, 10);
        if (*end != '\t' || iters == 0)
            continue;
        (void)strtoull(end + 1, &end, 10);
        if (*end != '\t')
            continue;
        const char *row = end + 1;
        double v = c[E_IR] / (double)iters;
        if (run == 1) {
            s->passes = bench__xrealloc(s->passes, (s->n_passes + 1) * sizeof *s->passes);
            s->passes[s->n_passes++] = (struct cg_pass){
                bench__xstrdup(row), {v, NAN}, {c[E_L1] / (double)iters, c[E_LL] / (double)iters}};
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

/* ---- the source ------------------------------------------------------------------------------ */

static bool wants_cache(const struct bench__source_request *req)
{
    for (size_t i = 0; i < req->n_flag_values; i++)
        if (strcmp(req->flag_values[i], BACKEND_CACHE) == 0)
            return true;
    return false;
}

/* Two columns, or five with callgrind:cache (static text: nothing in `strings`). */
static size_t callgrind_family_for(const struct bench__source_request *req,
                                   struct bench__family *out)
{
    memset(out, 0, sizeof *out);
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
#elif !BENCH_HAVE_VALGRIND_HEADERS
    (void)req;
    bench__caps_absent(caps, BENCH__CAP_COUNTING,
                       "not built with valgrind headers (<valgrind/callgrind.h>: install "
                       "valgrind, or valgrind-devel, and rebuild)");
    return NULL;
#else
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
        bench__caps_present(caps, BENCH__CAP_COUNTING);
        return s;
    }
    char valgrind[1024];
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
    if (!on_path("valgrind", valgrind, sizeof valgrind)) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING,
                           "valgrind is not on PATH (install valgrind to count instructions "
                           "under Callgrind)");
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
    if (rc == 0)
        for (unsigned run = 1; run <= RUNS; run++)
            read_counts(s, run);
    bench__callgrind_remove_dir(s->dir);
    if (rc != 0) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", why);
        free(s);
        return NULL;
    }
    s->taken = bench__xcalloc(s->n_passes + 1, sizeof *s->taken);
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    double secs = (double)(t1 - t0) / 1e9;
    bench__fmt(status, status_size, "counted under Valgrind in %u runs (%.1f s), before timing",
               RUNS, secs);
    return s;
#endif
}

static void callgrind_close(void *state)
{
    struct cg_state *s = state;
    for (size_t i = 0; i < s->n_passes; i++)
        free(s->passes[i].row);
    free(s->passes);
    free(s->taken);
    free(s->row);
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
#if BENCH_HAVE_VALGRIND_HEADERS
    if (s->inside)
        CALLGRIND_ZERO_STATS;
#endif
}

static void callgrind_bracket_begin(void *state)
{
    struct cg_state *s = state;
#if BENCH_HAVE_VALGRIND_HEADERS
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
#if BENCH_HAVE_VALGRIND_HEADERS
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
#if BENCH_HAVE_VALGRIND_HEADERS
        char tag[64];
        bench__fmt(tag, sizeof tag, "libbench-%ld-%llu", (long)getpid(),
                   (unsigned long long)++s->seq);
        CALLGRIND_DUMP_STATS_AT(tag);
        double c[E_N];
        dump_counts(s->dir, tag, c);
        if (c[E_IR] >= 0) {
            c[E_IR] -= s->empty[E_IR] * (double)brackets;
            s->row = row;
            record(s, c, iterations, brackets);
            s->row = NULL;
            out->values[C_IR] = c[E_IR] / (double)iterations;
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

/* ---- workload windows: not counted (their totals are unmeasured, never 0) ------------------- */

static void callgrind_run_edge(void *state)
{
    (void)state;
}

static void callgrind_edge_read(void *state, void *snapshot)
{
    (void)state;
    *(char *)snapshot = 0;
}

static void callgrind_window_counts(void *state, const void *open, const void *close,
                                    const struct bench__edge_shared shared[2],
                                    struct bench__counts *out)
{
    (void)open, (void)close, (void)shared;
    const struct cg_state *s = state;
    for (size_t k = 0; k < (s && s->cache ? C_N : C_PLAIN); k++)
        out->values[k] = NAN;
}

const struct bench__source_ops bench__source_callgrind = {
    .name = "callgrind",
    .flag = "instr",
    .flag_value = "BACKEND",
    .flag_help = "with --bench: count instructions (=callgrind: exact Ir per iteration, counted "
                 "by running the binary again under Valgrind's callgrind, twice)",
    .flag_value_check = callgrind_backend_check,
    .family_for = callgrind_family_for,
    .open = callgrind_open,
    .close = callgrind_close,
    .pass_begin = callgrind_pass_begin,
    .pass_row = callgrind_pass_row,
    .bracket_begin = callgrind_bracket_begin,
    .bracket_end = callgrind_bracket_end,
    .pass_end = callgrind_pass_end,
    .edge_size = 1,
    .edge_rank = 0,
    .run_begin = callgrind_run_edge,
    .edge_read = callgrind_edge_read,
    .window_counts = callgrind_window_counts,
    .run_end = callgrind_run_edge,
};
