/* SPDX-License-Identifier: MIT */
/* tier0.c: owns the tier-0 counting source (getrusage + /proc/self/io deltas around each bracket
 * of a benchmark pass or between a workload window's edges, its calibrated self-cost, cache-hit
 * %). It must never report 0 for a field it could not read. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/text.h"
#include "source.h"
#include "tier0.h"

/* The family, in catalog order. */
enum {
    F_SYSCR,
    F_SYSCW,
    F_MINFLT,
    F_MAJFLT,
    F_VOL_CS,
    F_INVOL_CS,
    F_RCHAR,
    F_WCHAR,
    F_RD_BYTES,
    F_WR_BYTES,
    F_CACHE_HIT,
    F_COUNT
};
#define N_COUNTED F_CACHE_HIT /* fields read from the OS; cache-hit is derived */

static const struct bench__column_desc tier0_family[F_COUNT] = {
    {"syscr", "syscr", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"syscw", "syscw", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"minflt", "min-flt", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"majflt", "maj-flt", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"vol-cs", "vol-cs", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"invol-cs", "invol-cs", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"rchar", "rchar", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"wchar", "wchar", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"rd-bytes", "rd-bytes", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"wr-bytes", "wr-bytes", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "tier0", false},
    {"cache-hit", "cache-hit", BENCH__FORMAT_PERCENT, BENCH__QUANTITATIVE, "tier0", false},
};

/* A window's totals, under their own names, in the family's order (cache-hit: table only). */
static const struct bench__total_desc tier0_totals[F_COUNT] = {
    {"tier0", NULL, "syscr", "syscr", "syscr", BENCH__FORMAT_COUNT, false},
    {"tier0", NULL, "syscw", "syscw", "syscw", BENCH__FORMAT_COUNT, false},
    {"tier0", NULL, "minflt", "min-flt", "minflt", BENCH__FORMAT_COUNT, false},
    {"tier0", NULL, "majflt", "maj-flt", "majflt", BENCH__FORMAT_COUNT, true},
    {"tier0", NULL, "volCs", "vol-cs", "vol-cs", BENCH__FORMAT_COUNT, false},
    {"tier0", NULL, "involCs", "invol-cs", "invol-cs", BENCH__FORMAT_COUNT, false},
    {"tier0", NULL, "rchar", "rchar", "rchar", BENCH__FORMAT_COUNT, false},
    {"tier0", NULL, "wchar", "wchar", "wchar", BENCH__FORMAT_COUNT, false},
    {"tier0", NULL, "readBytes", "rd-bytes", "rd-bytes", BENCH__FORMAT_COUNT, true},
    {"tier0", NULL, "writeBytes", "wr-bytes", "wr-bytes", BENCH__FORMAT_COUNT, true},
    {"tier0", NULL, NULL, "cache-hit", "cache-hit", BENCH__FORMAT_PERCENT, false},
};

/* Where each parsed /proc/self/io value and each getrusage value lands in the family. */
static const size_t io_field[BENCH__TIER0_N_IO] = {F_SYSCR, F_SYSCW,    F_RCHAR,
                                                   F_WCHAR, F_RD_BYTES, F_WR_BYTES};
static const size_t ru_field[4] = {F_MINFLT, F_MAJFLT, F_VOL_CS, F_INVOL_CS};
/* The fields our own /proc/self/io read inflates: the only ones the self-cost applies to. */
static const size_t cost_field[4] = {F_SYSCR, F_SYSCW, F_RCHAR, F_WCHAR};

#define IO_PATH "/proc/self/io"
#define IO_BUF 1024
#define CALIBRATION_PAIRS 9

/* ---- the /proc/self/io parser (pure) -------------------------------------------------- */

/* The value after `key:`: spaces/tabs, digits, then a newline; anything else is -1. */
static int64_t parse_value(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    uint64_t v;
    const char *stop;
    if (bench__parse_digits(p, end, INT64_MAX, &v, &stop) != BENCH__DIGITS_OK)
        return -1; /* no digits, or beyond INT64_MAX */
    /* a digit run cut off by the end of the buffer may be a torn read */
    if (stop == end || *stop != '\n')
        return -1;
    return (int64_t)v;
}

void bench__tier0_parse_io(const char *text, size_t len, int64_t out[6])
{
    static const char *const keys[BENCH__TIER0_N_IO] = {"syscr", "syscw",      "rchar",
                                                        "wchar", "read_bytes", "write_bytes"};
    bool seen[BENCH__TIER0_N_IO] = {false};
    for (size_t k = 0; k < BENCH__TIER0_N_IO; k++)
        out[k] = -1;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        for (size_t k = 0; k < BENCH__TIER0_N_IO; k++) {
            size_t kl = strlen(keys[k]);
            if (!seen[k] && (size_t)(next - p) > kl && memcmp(p, keys[k], kl) == 0 &&
                p[kl] == ':') {
                seen[k] = true; /* the first line with the key decides */
                out[k] = parse_value(p + kl + 1, next);
                break;
            }
        }
        p = next;
    }
}

/* ---- snapshots -------------------------------------------------------------------------- */

struct tier0 {
    struct bench__os_file io; /* /proc/self/io, kept open from open to close */
    bool have_io;             /* /proc/self/io gave syscr and rchar at open */
    bool have_ru;             /* getrusage worked at open */
    char io_why[128];         /* why not, when !have_io */
    char ru_why[96];          /* why not, when !have_ru */
    double cost[N_COUNTED];   /* self-cost of one snapshot pair, family order (0 elsewhere) */
    int64_t begin[N_COUNTED];
    /* the pass */
    int64_t total[N_COUNTED];
    bool lost[N_COUNTED];
    uint64_t brackets;
    /* rchar our own begin-edge reads added: exactly the bytes of /proc/self/io they got
     * (the text shows rchar before the read that returns it is charged) */
    int64_t own_rchar;
    ssize_t last_text_bytes;
};

/* Read /proc/self/io into the family slots; returns 0 or the errno of the failed read. */
static int snap_io(struct tier0 *t, int64_t f[N_COUNTED], ssize_t *text_bytes)
{
    char buf[IO_BUF];
    int64_t io[BENCH__TIER0_N_IO];
    ssize_t n = bench__os_file_read(&t->io, buf, sizeof buf);
    if (text_bytes)
        *text_bytes = n;
    if (n >= 0)
        bench__tier0_parse_io(buf, (size_t)n, io);
    else
        for (size_t k = 0; k < BENCH__TIER0_N_IO; k++)
            io[k] = -1;
    for (size_t k = 0; k < BENCH__TIER0_N_IO; k++)
        f[io_field[k]] = io[k];
    return n < 0 ? (int)-n : 0;
}

/* getrusage(RUSAGE_SELF) into the family slots; returns 0 or its errno. */
static int snap_ru(int64_t f[N_COUNTED])
{
    struct rusage ru;
    int err = 0;
    errno = 0;
    if (bench__os.getrusage(RUSAGE_SELF, &ru) != 0) {
        err = errno ? errno : EIO;
        for (size_t k = 0; k < 4; k++)
            f[ru_field[k]] = -1;
        return err;
    }
    f[F_MINFLT] = ru.ru_minflt;
    f[F_MAJFLT] = ru.ru_majflt;
    f[F_VOL_CS] = ru.ru_nvcsw;
    f[F_INVOL_CS] = ru.ru_nivcsw;
    return 0;
}

static void snap_unknown(int64_t f[N_COUNTED], const size_t *fields, size_t n)
{
    for (size_t k = 0; k < n; k++)
        f[fields[k]] = -1;
}

/* The two edges nest: /proc/self/io outside, getrusage inside, so the fault and context-
 * switch window does not contain our own /proc read. A half that failed at open is not
 * read again (its columns were announced as null). */
static void snap_begin(struct tier0 *t, int64_t f[N_COUNTED])
{
    if (t->have_io)
        snap_io(t, f, &t->last_text_bytes);
    else
        snap_unknown(f, io_field, BENCH__TIER0_N_IO);
    if (t->have_ru)
        snap_ru(f);
    else
        snap_unknown(f, ru_field, 4);
}

static void snap_end(struct tier0 *t, int64_t f[N_COUNTED])
{
    if (t->have_ru)
        snap_ru(f);
    else
        snap_unknown(f, ru_field, 4);
    if (t->have_io)
        snap_io(t, f, NULL);
    else
        snap_unknown(f, io_field, BENCH__TIER0_N_IO);
}

/* A field unknown on either edge (or running backwards) is lost for the pass, never 0. */
static bool delta(const int64_t *a, const int64_t *b, size_t i, int64_t *d)
{
    if (a[i] < 0 || b[i] < 0 || b[i] < a[i])
        return false;
    *d = b[i] - a[i];
    return true;
}

/* Median of 9 empty snapshot pairs, for the fields our own read inflates. */
static void calibrate(struct tier0 *t)
{
    double d[4][CALIBRATION_PAIRS];
    size_t n[4] = {0};
    for (int pair = 0; pair < CALIBRATION_PAIRS; pair++) {
        int64_t a[N_COUNTED], b[N_COUNTED];
        snap_begin(t, a);
        snap_end(t, b);
        for (size_t k = 0; k < 4; k++) {
            int64_t v;
            if (delta(a, b, cost_field[k], &v))
                d[k][n[k]++] = (double)v;
        }
    }
    for (size_t k = 0; k < 4; k++)
        t->cost[cost_field[k]] = n[k] ? bench__summarize(d[k], n[k]).median : 0.0;
}

/* ---- the source ------------------------------------------------------------------------- */

static void *tier0_open(const struct bench__source_request *req, struct bench__caps *caps,
                        char *status, size_t status_size)
{
    (void)req;
    status[0] = '\0';
    struct tier0 *t = bench__xcalloc(1, sizeof *t);
    bench__os_file_open(&t->io, IO_PATH);
    int64_t f[N_COUNTED];
    int ru_err = snap_ru(f);
    char ru_why[96] = "", io_why[128] = "";
#if BENCH__LINUX
    int io_err = snap_io(t, f, NULL);
#else
    /* the I/O fields come from Linux's /proc/self/io: getrusage's fields stay */
    int io_err = 0;
    snap_unknown(f, io_field, BENCH__TIER0_N_IO);
    bench__fmt(io_why, sizeof io_why, BENCH__OFF_PLATFORM " (" IO_PATH " is Linux's)");
#endif
    if (ru_err)
        bench__fmt(ru_why, sizeof ru_why, "getrusage(RUSAGE_SELF) failed (%s)", strerror(ru_err));
    if (io_why[0] == '\0' && io_err)
        bench__fmt(io_why, sizeof io_why, IO_PATH " unreadable (%s)", strerror(io_err));
    else if (io_why[0] == '\0' && (f[F_SYSCR] < 0 || f[F_RCHAR] < 0))
        bench__fmt(io_why, sizeof io_why, IO_PATH " has no parsable syscr/rchar lines");

    if (ru_why[0] && io_why[0]) {
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s and %s — no tier-0 field is readable",
                           ru_why, io_why);
        bench__os_file_close(&t->io);
        free(t);
        return NULL;
    }
    t->have_ru = !ru_why[0];
    t->have_io = !io_why[0];
    memcpy(t->io_why, io_why, sizeof io_why);
    memcpy(t->ru_why, ru_why, sizeof ru_why);
    if (!t->have_io)
        bench__os_file_close(&t->io); /* never read again */
    if (io_why[0])
        bench__fmt(status, status_size, "%s — I/O columns are null", io_why);
    else if (ru_why[0])
        bench__fmt(status, status_size, "%s — fault and context-switch columns are null", ru_why);
    calibrate(t);
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    return t;
}

/* The I/O fields (and cache-hit, made of two of them) without /proc/self/io, the fault and
 * context-switch fields without getrusage. */
static const char *tier0_column_absent(const void *state, size_t k)
{
    const struct tier0 *t = state;
    for (size_t i = 0; i < 4; i++)
        if (ru_field[i] == k)
            return t->have_ru ? NULL : t->ru_why;
    return t->have_io ? NULL : t->io_why;
}

double bench__tier0_self_cost(const void *state, size_t field)
{
    const struct tier0 *t = state;
    return field < N_COUNTED ? t->cost[field] : 0.0;
}

static void tier0_close(void *state)
{
    struct tier0 *t = state;
    bench__os_file_close(&t->io);
    free(t);
}

static void tier0_pass_begin(void *state)
{
    struct tier0 *t = state;
    memset(t->total, 0, sizeof t->total);
    memset(t->lost, 0, sizeof t->lost);
    t->brackets = 0;
    t->own_rchar = 0;
}

static void tier0_bracket_begin(void *state)
{
    struct tier0 *t = state;
    t->last_text_bytes = 0;
    snap_begin(t, t->begin);
    if (t->last_text_bytes > 0)
        t->own_rchar += t->last_text_bytes;
}

static void tier0_bracket_end(void *state)
{
    struct tier0 *t = state;
    int64_t end[N_COUNTED];
    snap_end(t, end);
    for (size_t i = 0; i < N_COUNTED; i++) {
        int64_t d;
        if (delta(t->begin, end, i, &d))
            t->total[i] += d;
        else
            t->lost[i] = true;
    }
    t->brackets++;
}

/* Per-iteration values: raw deltas divided by iterations once, minus our own cost: for rchar
 * the exact bytes our begin-edge reads returned, for syscr/syscw/wchar the calibrated cost of
 * the snapshot pairs actually taken; clamped at 0. */
static void finish_counts(const struct tier0 *t, const int64_t total[N_COUNTED],
                          const bool lost[N_COUNTED], int64_t own_rchar, uint64_t pairs,
                          uint64_t iterations, struct bench__counts *out)
{
    for (size_t i = 0; i < F_COUNT; i++) {
        out->values[i] = NAN;
        if (out->estimate)
            out->estimate[i] = false;
    }
    if (iterations == 0 || pairs == 0)
        return; /* nothing was measured */
    double iters = (double)iterations;
    for (size_t i = 0; i < N_COUNTED; i++) {
        if (lost[i])
            continue;
        double own = i == F_RCHAR && own_rchar > 0 ? (double)own_rchar : t->cost[i] * (double)pairs;
        double v = ((double)total[i] - own) / iters;
        out->values[i] = v > 0 ? v : 0.0;
    }
    double rchar = out->values[F_RCHAR], rd = out->values[F_RD_BYTES];
    if (!isnan(rchar) && rchar > 0 && !isnan(rd))
        out->values[F_CACHE_HIT] = (1.0 - fmin(rd, rchar) / rchar) * 100.0;
}

static void tier0_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                           struct bench__counts *out)
{
    struct tier0 *t = state;
    (void)brackets; /* the pairs this source took are what its self-cost scales with */
    finish_counts(t, t->total, t->lost, t->own_rchar, t->brackets, iterations, out);
}

/* ---- workload windows ----------------------------------------------------------------------
 * An edge reads /proc/self/io only; the fault and context-switch fields come from the wall
 * source's getrusage(RUSAGE_SELF) at the same edge (one system call fewer per edge), so they
 * span the wall source's edges, just outside this source's. */

struct tier0_edge {
    int64_t f[N_COUNTED];
    ssize_t text_bytes;
};

static void tier0_run_begin(void *state)
{
    (void)state; /* cumulative by nature */
}

static void tier0_edge_read(void *state, void *snapshot)
{
    struct tier0 *t = state;
    struct tier0_edge *e = snapshot;
    e->text_bytes = 0;
    if (t->have_io)
        snap_io(t, e->f, &e->text_bytes);
    else
        snap_unknown(e->f, io_field, BENCH__TIER0_N_IO);
}

static void ru_from_shared(const struct tier0 *t, const struct bench__edge_shared *s,
                           int64_t f[N_COUNTED])
{
    if (!t->have_ru || !s->self_ok) {
        snap_unknown(f, ru_field, 4);
        return;
    }
    f[F_MINFLT] = s->self.ru_minflt;
    f[F_MAJFLT] = s->self.ru_majflt;
    f[F_VOL_CS] = s->self.ru_nvcsw;
    f[F_INVOL_CS] = s->self.ru_nivcsw;
}

static void tier0_window_counts(void *state, const void *open, const void *close,
                                const struct bench__edge_shared shared[2],
                                struct bench__counts *out)
{
    const struct tier0 *t = state;
    const struct tier0_edge *a = open, *b = close;
    int64_t fa[N_COUNTED], fb[N_COUNTED], total[N_COUNTED] = {0};
    bool lost[N_COUNTED] = {false};
    memcpy(fa, a->f, sizeof fa);
    memcpy(fb, b->f, sizeof fb);
    ru_from_shared(t, &shared[0], fa);
    ru_from_shared(t, &shared[1], fb);
    for (size_t i = 0; i < N_COUNTED; i++)
        lost[i] = !delta(fa, fb, i, &total[i]);
    finish_counts(t, total, lost, a->text_bytes > 0 ? a->text_bytes : 0, 1, 1, out);
}

static void tier0_run_end(void *state)
{
    (void)state;
}

static void tier0_edge_cost(void *state, unsigned *calls, uint64_t *bytes)
{
    const struct tier0 *t = state;
    *calls = t->have_io ? 1 : 0;
    *bytes = 0; /* its own bytes vary; only the sources outside it would see them */
}

/* Its own reads are subtracted; the readings nested inside its edges are not. */
static void tier0_window_floor(void *state, unsigned calls, uint64_t bytes, char *text, size_t size)
{
    const struct tier0 *t = state;
    if (!t->have_io || calls == 0) {
        if (size)
            text[0] = '\0';
        return;
    }
    bench__fmt(text, size,
               "`syscr` and `rchar` of each window include %u and %llu of the readings nested "
               "inside tier-0's edges (not subtracted)",
               calls, (unsigned long long)bytes);
}

const struct bench__source_ops bench__source_tier0 = {
    .name = "tier0",
    .family = tier0_family,
    .n_family = F_COUNT,
    .open = tier0_open,
    .close = tier0_close,
    .column_absent = tier0_column_absent,
    .pass_begin = tier0_pass_begin,
    .bracket_begin = tier0_bracket_begin,
    .bracket_end = tier0_bracket_end,
    .pass_end = tier0_pass_end,
    .edge_size = sizeof(struct tier0_edge),
    .edge_rank = 3,
    .totals = tier0_totals,
    .n_totals = F_COUNT,
    .run_begin = tier0_run_begin,
    .edge_read = tier0_edge_read,
    .window_counts = tier0_window_counts,
    .run_end = tier0_run_end,
    .edge_cost = tier0_edge_cost,
    .window_floor = tier0_window_floor,
};
