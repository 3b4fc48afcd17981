/* SPDX-License-Identifier: MIT */
/* test_tier0.c: the tier-0 source: the /proc/self/io parser on literal fixtures (captured,
 * torn, hostile), the bracket, self-cost and absent-is-not-zero rules through a fake kernel
 * behind the os seam, and one pass on the real kernel counting read(2) calls on /dev/zero. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sources/source.h"
#include "sources/tier0.h"
#include "platform/os.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define N_FAMILY 11

static const struct bench__source_ops *const ops = &bench__source_tier0;

/* Index of a family member by id (the tests never hard-code the order they check). */
static size_t fam(const char *id)
{
    for (size_t i = 0; i < ops->n_family; i++)
        if (strcmp(ops->family[i].name, id) == 0)
            return i;
    fail_msg("no tier0 family member '%s'", id);
    return 0;
}

#define assert_near(got, want, tol)                                                                \
    do {                                                                                           \
        double g_ = (got), w_ = (want), t_ = (tol);                                                \
        if (!(fabs(g_ - w_) <= t_))                                                                \
            fail_msg("%s == %.17g, want %.17g ± %g", #got, g_, w_, t_);                            \
    } while (0)

#define assert_nan(v)                                                                              \
    do {                                                                                           \
        double v_ = (v);                                                                           \
        if (!isnan(v_))                                                                            \
            fail_msg("%s == %.17g, want NaN (not measured)", #v, v_);                              \
    } while (0)

/* ---- the family ------------------------------------------------------------------------- */

static void test_family_is_the_catalog_rows(void **state)
{
    (void)state;
    static const struct {
        const char *id, *header;
        enum bench__format format;
    } want[N_FAMILY] = {
        {"syscr", "syscr", BENCH__FORMAT_COUNT},
        {"syscw", "syscw", BENCH__FORMAT_COUNT},
        {"minflt", "min-flt", BENCH__FORMAT_COUNT},
        {"majflt", "maj-flt", BENCH__FORMAT_COUNT},
        {"vol-cs", "vol-cs", BENCH__FORMAT_COUNT},
        {"invol-cs", "invol-cs", BENCH__FORMAT_COUNT},
        {"rchar", "rchar", BENCH__FORMAT_COUNT},
        {"wchar", "wchar", BENCH__FORMAT_COUNT},
        {"rd-bytes", "rd-bytes", BENCH__FORMAT_COUNT},
        {"wr-bytes", "wr-bytes", BENCH__FORMAT_COUNT},
        {"cache-hit", "cache-hit", BENCH__FORMAT_PERCENT},
    };
    assert_string_equal(ops->name, "tier0");
    assert_null(ops->flag); /* asked for only by naming its metrics */
    assert_null(ops->fallback_for);
    assert_int_equal(ops->n_family, N_FAMILY);
    for (size_t i = 0; i < N_FAMILY; i++) {
        const struct bench__column_desc *d = &ops->family[i];
        assert_string_equal(d->name, want[i].id);
        assert_string_equal(d->header, want[i].header);
        assert_int_equal(d->format, want[i].format);
        assert_int_equal(d->cls, BENCH__QUANTITATIVE);
        assert_string_equal(d->source, "tier0");
        assert_false(d->is_default);
    }
}

/* ---- the parser -------------------------------------------------------------------------- */

enum { SYSCR, SYSCW, RCHAR, WCHAR, RBYTES, WBYTES };
#define NA (-1)

struct parse_case {
    const char *what;
    const char *text;
    size_t len; /* 0 = strlen(text) */
    int64_t want[6];
};

/* Captured on the development VM with `cat /proc/self/io` (Linux 6.18). */
#define CAPTURED                                                                                   \
    "rchar: 6976\n"                                                                                \
    "wchar: 0\n"                                                                                   \
    "syscr: 10\n"                                                                                  \
    "syscw: 0\n"                                                                                   \
    "read_bytes: 0\n"                                                                              \
    "write_bytes: 0\n"                                                                             \
    "cancelled_write_bytes: 0\n"

static const struct parse_case parse_cases[] = {
    {"captured", CAPTURED, 0, {10, 0, 6976, 0, 0, 0}},
    {"large values",
     "rchar: 4270283937\nwchar: 120836102\nsyscr: 1264033\nsyscw: 342017\n"
     "read_bytes: 1101746176\nwrite_bytes: 94396416\ncancelled_write_bytes: 2719744\n",
     0,
     {1264033, 342017, 4270283937, 120836102, 1101746176, 94396416}},
    {"empty", "", 0, {NA, NA, NA, NA, NA, NA}},
    {"missing read_bytes and syscw",
     "rchar: 5\nwchar: 6\nsyscr: 7\nwrite_bytes: 8\n",
     0,
     {7, NA, 5, 6, NA, 8}},
    {"order does not matter",
     "write_bytes: 6\nread_bytes: 5\nwchar: 4\nrchar: 3\nsyscw: 2\nsyscr: 1\n",
     0,
     {1, 2, 3, 4, 5, 6}},
    {"glued token", "syscr:12x\nrchar: 9\n", 0, {NA, NA, 9, NA, NA, NA}},
    {"glued, space then junk", "syscr: 12 3\nrchar: 9q\n", 0, {NA, NA, NA, NA, NA, NA}},
    {"trailing blank before newline", "syscr: 12 \n", 0, {NA, NA, NA, NA, NA, NA}},
    {"no digits", "syscr: \nrchar:\nwchar: x1\n", 0, {NA, NA, NA, NA, NA, NA}},
    {"negative", "syscr: -5\n", 0, {NA, NA, NA, NA, NA, NA}},
    {"longer key is not the key", "syscrx: 5\nrchar_: 6\n", 0, {NA, NA, NA, NA, NA, NA}},
    {"key not at line start",
     " syscr: 5\nxrchar: 6\n\twchar: 7\nfoo syscw: 8\n",
     0,
     {NA, NA, NA, NA, NA, NA}},
    {"cancelled_write_bytes is not write_bytes",
     "cancelled_write_bytes: 77\nsyscr: 1\n",
     0,
     {1, NA, NA, NA, NA, NA}},
    {"key mid-line after other text", "rchar: 1 syscr: 2\n", 0, {NA, NA, NA, NA, NA, NA}},
    {"no blank after colon", "syscr:12\n", 0, {12, NA, NA, NA, NA, NA}},
    {"tabs and spaces", "syscr:\t\t12\nrchar: \t 34\nwchar:\t 56\n", 0, {12, NA, 34, 56, NA, NA}},
    {"blank lines and CR", "\n\nsyscr: 3\n\r\nrchar: 4\r\n", 0, {3, NA, NA, NA, NA, NA}},
    {"duplicate key: the first line decides",
     "syscr: 1\nsyscr: 2\nrchar:bad\nrchar: 3\n",
     0,
     {1, NA, NA, NA, NA, NA}},
    {"torn mid-number at the end", "rchar: 6976\nwchar: 0\nsyscr: 1", 0, {NA, NA, 6976, 0, NA, NA}},
    {"torn mid-key", "rchar: 6976\nwchar: 0\nsys", 0, {NA, NA, 6976, 0, NA, NA}},
    {"torn after the colon", "rchar: 6976\nsyscr: ", 0, {NA, NA, 6976, NA, NA, NA}},
    {"len cuts a NUL-terminated text", CAPTURED, 24, {NA, NA, 6976, 0, NA, NA}},
    {"INT64_MAX", "syscr: 9223372036854775807\n", 0, {INT64_MAX, NA, NA, NA, NA, NA}},
    {"INT64_MAX + 1", "syscr: 9223372036854775808\n", 0, {NA, NA, NA, NA, NA, NA}},
    {"20 digits", "rchar: 12345678901234567890\nsyscr: 4\n", 0, {4, NA, NA, NA, NA, NA}},
    {"40 digits", "rchar: 1234567890123456789012345678901234567890\n", 0, {NA, NA, NA, NA, NA, NA}},
    {"leading zeros", "syscr: 0000000000000000000000042\n", 0, {42, NA, NA, NA, NA, NA}},
};

static void test_parse_table(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof parse_cases / sizeof parse_cases[0]; c++) {
        const struct parse_case *pc = &parse_cases[c];
        int64_t out[6] = {123, 123, 123, 123, 123, 123};
        size_t len = pc->len ? pc->len : strlen(pc->text);
        bench__tier0_parse_io(pc->text, len, out);
        for (size_t k = 0; k < 6; k++)
            if (out[k] != pc->want[k])
                fail_msg("case '%s': field %zu == %lld, want %lld", pc->what, k, (long long)out[k],
                         (long long)pc->want[k]);
    }
}

static void test_parse_embedded_nul(void **state)
{
    (void)state;
    static const char text[] = "syscr: 1\n\0rchar: 2\nwchar: 3\0\n";
    int64_t out[6];
    bench__tier0_parse_io(text, sizeof text - 1, out);
    assert_int_equal(out[SYSCR], 1);
    assert_int_equal(out[RCHAR], NA); /* the NUL is the line start, not 'r' */
    assert_int_equal(out[WCHAR], NA); /* the NUL glues the digits */
}

static void test_parse_every_prefix_of_captured(void **state)
{
    (void)state;
    /* a torn read at any byte: every field is either its captured value or -1, and a
     * field counts only once its whole line (newline included) is inside the buffer */
    static const char text[] = CAPTURED;
    int64_t full[6];
    bench__tier0_parse_io(text, sizeof text - 1, full);
    for (size_t len = 0; len < sizeof text; len++) {
        int64_t out[6];
        bench__tier0_parse_io(text, len, out);
        for (size_t k = 0; k < 6; k++)
            assert_true(out[k] == NA || out[k] == full[k]);
        assert_int_equal(out[RCHAR] != NA, len >= strlen("rchar: 6976\n"));
    }
}

/* ---- a fake kernel behind the seam --------------------------------------------------------- */

#define FAKE_FD 4242

static struct fake_kernel {
    /* /proc/self/io counters; a read charges syscr and rchar the way vfs_read does */
    int64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
    bool omit_read_bytes;
    /* getrusage */
    long minflt, majflt, nvcsw, nivcsw;
    /* faults */
    int open_errno, read_errno, ru_errno;
    size_t chunk;          /* most bytes one read returns (0 = all) */
    const char *cut_after; /* serve the text only up to and including this string */
    int64_t extra_syscr;   /* extra syscr charged per read */
    /* the open file */
    char text[512];
    size_t len, pos;
    bool is_open;
    unsigned opens, reads, getrusages;
} fk;

static int fake_open(const char *path, int flags)
{
    (void)flags;
    if (fk.open_errno) {
        errno = fk.open_errno;
        return -1;
    }
    assert_string_equal(path, "/proc/self/io");
    assert_false(fk.is_open);
    int n = snprintf(fk.text, sizeof fk.text,
                     "rchar: %lld\nwchar: %lld\nsyscr: %lld\nsyscw: %lld\n", (long long)fk.rchar,
                     (long long)fk.wchar, (long long)fk.syscr, (long long)fk.syscw);
    if (!fk.omit_read_bytes)
        n += snprintf(fk.text + n, sizeof fk.text - (size_t)n, "read_bytes: %lld\n",
                      (long long)fk.read_bytes);
    n += snprintf(fk.text + n, sizeof fk.text - (size_t)n,
                  "write_bytes: %lld\ncancelled_write_bytes: 0\n", (long long)fk.write_bytes);
    fk.len = (size_t)n;
    if (fk.cut_after) {
        const char *at = strstr(fk.text, fk.cut_after);
        assert_non_null(at);
        fk.len = (size_t)(at - fk.text) + strlen(fk.cut_after);
    }
    fk.pos = 0;
    fk.is_open = true;
    fk.opens++;
    return FAKE_FD;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    assert_int_equal(fd, FAKE_FD);
    assert_true(fk.is_open);
    fk.reads++;
    fk.syscr += 1 + fk.extra_syscr;
    if (fk.read_errno) {
        errno = fk.read_errno;
        return -1;
    }
    size_t n = fk.len - fk.pos;
    if (n > count)
        n = count;
    if (fk.chunk && n > fk.chunk)
        n = fk.chunk;
    memcpy(buf, fk.text + fk.pos, n);
    fk.pos += n;
    fk.rchar += (int64_t)n;
    return (ssize_t)n;
}

static int fake_close(int fd)
{
    assert_int_equal(fd, FAKE_FD);
    assert_true(fk.is_open);
    fk.is_open = false;
    return 0;
}

static int fake_getrusage(int who, struct rusage *ru)
{
    assert_int_equal(who, RUSAGE_SELF);
    fk.getrusages++;
    if (fk.ru_errno) {
        errno = fk.ru_errno;
        return -1;
    }
    memset(ru, 0, sizeof *ru);
    ru->ru_minflt = fk.minflt;
    ru->ru_majflt = fk.majflt;
    ru->ru_nvcsw = fk.nvcsw;
    ru->ru_nivcsw = fk.nivcsw;
    return 0;
}

static int fake_setup(void **state)
{
    (void)state;
    memset(&fk, 0, sizeof fk);
    /* fixed digit counts for the whole test, so every snapshot text has the same length */
    fk.rchar = 10000000;
    fk.wchar = 1000000;
    fk.syscr = 1000000;
    fk.syscw = 1000000;
    fk.read_bytes = 1000000;
    fk.write_bytes = 1000000;
    fk.minflt = 1000;
    fk.majflt = 10;
    fk.nvcsw = 100;
    fk.nivcsw = 100;
    bench__os.open = fake_open;
    bench__os.read = fake_read;
    bench__os.close = fake_close;
    bench__os.getrusage = fake_getrusage;
    return 0;
}

static int fake_teardown(void **state)
{
    (void)state;
    bench__os_reset();
    return 0;
}

/* What one counted call does to the fake kernel. */
struct work {
    int64_t syscr, syscw, rchar, wchar, read_bytes, write_bytes;
    long minflt, majflt, nvcsw, nivcsw;
};

static void do_work(const struct work *w)
{
    fk.syscr += w->syscr;
    fk.syscw += w->syscw;
    fk.rchar += w->rchar;
    fk.wchar += w->wchar;
    fk.read_bytes += w->read_bytes;
    fk.write_bytes += w->write_bytes;
    fk.minflt += w->minflt;
    fk.majflt += w->majflt;
    fk.nvcsw += w->nvcsw;
    fk.nivcsw += w->nivcsw;
}

struct opened {
    void *st;
    struct bench__caps caps;
    char status[256];
};

static void open_source(struct opened *o)
{
    struct bench__source_request req = {0};
    memset(o, 0, sizeof *o);
    strcpy(o->status, "garbage");
    o->st = ops->open(&req, &o->caps, o->status, sizeof o->status);
}

/* One pass of `iters` calls in brackets of `batch`; returns the brackets taken. */
static uint64_t run_pass(void *st, uint64_t iters, uint64_t batch, const struct work *w,
                         double values[N_FAMILY])
{
    bool est[N_FAMILY];
    memset(est, 1, sizeof est);
    struct bench__counts out = {.values = values, .estimate = est, .scale = NAN};
    uint64_t brackets = 0;
    ops->pass_begin(st);
    for (uint64_t done = 0; done < iters; brackets++) {
        uint64_t n = iters - done < batch ? iters - done : batch;
        ops->bracket_begin(st);
        for (uint64_t i = 0; i < n; i++)
            do_work(w);
        ops->bracket_end(st);
        done += n;
    }
    ops->pass_end(st, iters, brackets, &out);
    for (size_t i = 0; i < N_FAMILY; i++)
        assert_false(est[i]); /* tier-0 never scales */
    return brackets;
}

static const struct work busy = {.syscr = 3,
                                 .syscw = 2,
                                 .rchar = 400,
                                 .wchar = 30,
                                 .read_bytes = 100,
                                 .write_bytes = 7,
                                 .minflt = 5,
                                 .majflt = 1,
                                 .nvcsw = 2,
                                 .nivcsw = 1};

static void assert_busy_io(const double *v)
{
    assert_near(v[fam("syscr")], 3, 1e-9);
    assert_near(v[fam("syscw")], 2, 1e-9);
    assert_near(v[fam("rchar")], 400, 1e-9);
    assert_near(v[fam("wchar")], 30, 1e-9);
    assert_near(v[fam("rd-bytes")], 100, 1e-9);
    assert_near(v[fam("wr-bytes")], 7, 1e-9);
    assert_near(v[fam("cache-hit")], 75, 1e-9);
}

static void assert_busy_rusage(const double *v)
{
    assert_near(v[fam("minflt")], 5, 1e-12);
    assert_near(v[fam("majflt")], 1, 1e-12);
    assert_near(v[fam("vol-cs")], 2, 1e-12);
    assert_near(v[fam("invol-cs")], 1, 1e-12);
}

static void assert_io_nan(const double *v)
{
    assert_nan(v[fam("syscr")]);
    assert_nan(v[fam("syscw")]);
    assert_nan(v[fam("rchar")]);
    assert_nan(v[fam("wchar")]);
    assert_nan(v[fam("rd-bytes")]);
    assert_nan(v[fam("wr-bytes")]);
    assert_nan(v[fam("cache-hit")]);
}

static void assert_rusage_nan(const double *v)
{
    assert_nan(v[fam("minflt")]);
    assert_nan(v[fam("majflt")]);
    assert_nan(v[fam("vol-cs")]);
    assert_nan(v[fam("invol-cs")]);
}

/* ---- through the seam ---------------------------------------------------------------------- */

static void test_open_healthy(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    assert_string_equal(o.status, "");
    assert_true(o.caps.present & (1u << BENCH__CAP_COUNTING));
    assert_int_equal(o.caps.n_absent, 0);
    assert_false(fk.is_open); /* every open was closed */
    /* probe + 9 calibration pairs: raw open/read/close every time (size 0 files) */
    assert_int_equal(fk.opens, 1 + 2 * 9);
    ops->close(o.st);
}

static void test_pass_values_and_self_cost(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    /* each snapshot costs 2 reads (data, EOF) and its text in rchar; without the
     * calibrated subtraction syscr would be 3 + 2·10/100 */
    double v[N_FAMILY];
    uint64_t brackets = run_pass(o.st, 100, 10, &busy, v);
    assert_int_equal(brackets, 10);
    assert_busy_io(v);
    assert_busy_rusage(v);
    /* an uneven last bracket: cost scales with the brackets actually taken */
    brackets = run_pass(o.st, 95, 10, &busy, v);
    assert_int_equal(brackets, 10);
    assert_busy_io(v);
    assert_busy_rusage(v);
    ops->close(o.st);
}

static void test_short_reads_are_reassembled(void **state)
{
    (void)state;
    fk.chunk = 7; /* /proc hands out the file a few bytes at a time */
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    assert_string_equal(o.status, "");
    double v[N_FAMILY];
    run_pass(o.st, 60, 6, &busy, v);
    assert_busy_io(v);
    assert_busy_rusage(v);
    ops->close(o.st);
}

static void test_self_cost_clamps_at_zero(void **state)
{
    (void)state;
    fk.extra_syscr = 1; /* calibration sees 4 syscr per pair, the pass only 2 */
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    fk.extra_syscr = 0;
    static const struct work idle = {0};
    double v[N_FAMILY];
    run_pass(o.st, 10, 1, &idle, v);
    assert_true(v[fam("syscr")] == 0.0); /* 2 − 4 per bracket, clamped; not negative */
    assert_true(v[fam("rchar")] == 0.0); /* our own reads exactly cancelled */
    assert_true(v[fam("wchar")] == 0.0); /* measured zero is a real zero */
    assert_true(v[fam("rd-bytes")] == 0.0);
    /* nothing read: the cache-hit ratio is undefined, not 100 % */
    assert_nan(v[fam("cache-hit")]);
    /* a workload that reads does show through */
    static const struct work one = {.syscr = 1, .rchar = 64};
    run_pass(o.st, 10, 1, &one, v);
    assert_near(v[fam("syscr")], 0.0, 0); /* 1 + 2 − 4: still clamped */
    assert_near(v[fam("rchar")], 64, 1e-9);
    assert_near(v[fam("cache-hit")], 100, 1e-9);
    ops->close(o.st);
}

static void test_cache_hit_readahead_clamps_to_zero(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    static const struct work ra = {.syscr = 1, .rchar = 10, .read_bytes = 4096};
    double v[N_FAMILY];
    run_pass(o.st, 20, 5, &ra, v);
    assert_near(v[fam("rchar")], 10, 1e-9);
    assert_near(v[fam("rd-bytes")], 4096, 1e-9);
    assert_true(v[fam("cache-hit")] == 0.0);
    ops->close(o.st);
}

static void check_open_fails(int err, const char *text)
{
    fk.open_errno = err;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    char want[160];
    snprintf(want, sizeof want, "/proc/self/io unreadable (%s) — I/O columns are null", text);
    assert_string_equal(o.status, want);
    assert_true(o.caps.present & (1u << BENCH__CAP_COUNTING));
    double v[N_FAMILY];
    run_pass(o.st, 50, 10, &busy, v);
    assert_io_nan(v);
    assert_busy_rusage(v);
    /* the io half announced as null stays null even if the file comes back */
    fk.open_errno = 0;
    unsigned opens = fk.opens;
    run_pass(o.st, 50, 10, &busy, v);
    assert_io_nan(v);
    assert_int_equal(fk.opens, opens);
    ops->close(o.st);
}

static void test_open_enoent_io_null_rusage_kept(void **state)
{
    (void)state;
    check_open_fails(ENOENT, "No such file or directory");
}

static void test_open_eacces_io_null_rusage_kept(void **state)
{
    (void)state;
    check_open_fails(EACCES, "Permission denied");
}

static void test_io_fails_mid_pass(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    assert_string_equal(o.status, "");
    double v[N_FAMILY];
    static const int errs[] = {EACCES, ENOENT};
    for (size_t e = 0; e < 2; e++) {
        fk.open_errno = errs[e];
        run_pass(o.st, 50, 10, &busy, v);
        assert_io_nan(v);
        assert_busy_rusage(v);
        fk.open_errno = 0;
        run_pass(o.st, 50, 10, &busy, v); /* a later pass recovers */
        assert_busy_io(v);
    }
    /* a read error */
    fk.read_errno = EIO;
    run_pass(o.st, 50, 10, &busy, v);
    assert_io_nan(v);
    assert_busy_rusage(v);
    fk.read_errno = 0;
    ops->close(o.st);
}

/* A failure on a single edge of a single bracket loses the field for the whole pass. */
static int fail_open_countdown;
static int flaky_open(const char *path, int flags)
{
    if (fail_open_countdown-- == 0) {
        errno = EACCES;
        return -1;
    }
    return fake_open(path, flags);
}

static void test_one_bad_edge_loses_the_pass(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    double v[N_FAMILY];
    for (int edge = 0; edge < 6; edge++) { /* 3 brackets, 2 edges each */
        fail_open_countdown = edge;
        bench__os.open = flaky_open;
        run_pass(o.st, 30, 10, &busy, v);
        bench__os.open = fake_open;
        assert_io_nan(v);
        assert_busy_rusage(v);
    }
    ops->close(o.st);
}

static void test_torn_read_loses_only_the_torn_fields(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    fk.cut_after = "read_bytes: 1"; /* EOF mid-number: read_bytes torn, write_bytes gone */
    double v[N_FAMILY];
    run_pass(o.st, 40, 10, &busy, v);
    assert_near(v[fam("syscr")], 3, 1e-9);
    assert_near(v[fam("syscw")], 2, 1e-9);
    /* a shorter text than calibrated: rchar's cost is overestimated by the cut bytes */
    assert_true(v[fam("rchar")] >= 400 - 40.0 / 4 && v[fam("rchar")] <= 400);
    assert_near(v[fam("wchar")], 30, 1e-9);
    assert_nan(v[fam("rd-bytes")]);
    assert_nan(v[fam("wr-bytes")]);
    assert_nan(v[fam("cache-hit")]); /* read_bytes unknown: no fabricated 100 % */
    assert_busy_rusage(v);
    ops->close(o.st);
}

static void test_missing_read_bytes(void **state)
{
    (void)state;
    fk.omit_read_bytes = true;
    struct opened o;
    open_source(&o);
    assert_string_equal(o.status, ""); /* syscr and rchar are enough */
    double v[N_FAMILY];
    run_pass(o.st, 40, 10, &busy, v);
    assert_near(v[fam("rchar")], 400, 1e-9);
    assert_nan(v[fam("rd-bytes")]);
    assert_nan(v[fam("cache-hit")]);
    assert_near(v[fam("wr-bytes")], 7, 1e-9);
    ops->close(o.st);
}

static void test_io_without_syscr_is_io_absent(void **state)
{
    (void)state;
    fk.cut_after = "wchar: 1000000\n"; /* rchar and wchar only */
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    assert_string_equal(o.status,
                        "/proc/self/io has no parsable syscr/rchar lines — I/O columns are null");
    fk.cut_after = NULL;
    double v[N_FAMILY];
    run_pass(o.st, 40, 10, &busy, v);
    assert_io_nan(v);
    assert_busy_rusage(v);
    ops->close(o.st);
}

static void test_getrusage_fails_mid_pass(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    fk.ru_errno = EINVAL;
    double v[N_FAMILY];
    run_pass(o.st, 40, 10, &busy, v);
    assert_rusage_nan(v);
    assert_busy_io(v);
    fk.ru_errno = 0;
    run_pass(o.st, 40, 10, &busy, v);
    assert_busy_rusage(v);
    ops->close(o.st);
}

static void test_getrusage_fails_at_open(void **state)
{
    (void)state;
    fk.ru_errno = EPERM;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    assert_true(o.caps.present & (1u << BENCH__CAP_COUNTING));
    assert_string_equal(o.status, "getrusage(RUSAGE_SELF) failed (Operation not permitted) — "
                                  "fault and context-switch columns are null");
    double v[N_FAMILY];
    run_pass(o.st, 40, 10, &busy, v);
    assert_rusage_nan(v);
    assert_busy_io(v);
    ops->close(o.st);
}

static void test_both_fail_counting_absent(void **state)
{
    (void)state;
    fk.ru_errno = EPERM;
    fk.open_errno = ENOENT;
    struct opened o;
    open_source(&o);
    assert_null(o.st);
    assert_false(o.caps.present & (1u << BENCH__CAP_COUNTING));
    const char *why = bench__caps_reason(&o.caps, BENCH__CAP_COUNTING);
    assert_non_null(why);
    assert_non_null(strstr(why, "getrusage(RUSAGE_SELF) failed (Operation not permitted)"));
    assert_non_null(strstr(why, "/proc/self/io unreadable (No such file or directory)"));
    assert_string_equal(o.status, "");
}

static void test_nothing_measured_is_nan(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    double v[N_FAMILY];
    bool est[N_FAMILY];
    struct bench__counts out = {.values = v, .estimate = est, .scale = NAN};
    ops->pass_begin(o.st); /* no bracket at all */
    ops->pass_end(o.st, 100, 0, &out);
    for (size_t i = 0; i < N_FAMILY; i++)
        assert_nan(v[i]);
    run_pass(o.st, 0, 10, &busy, v); /* zero iterations */
    for (size_t i = 0; i < N_FAMILY; i++)
        assert_nan(v[i]);
    ops->close(o.st);
}

static void test_counter_running_backwards_is_nan(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    double v[N_FAMILY];
    bool est[N_FAMILY];
    struct bench__counts out = {.values = v, .estimate = est, .scale = NAN};
    ops->pass_begin(o.st);
    ops->bracket_begin(o.st);
    fk.syscr -= 1000; /* a counter that runs backwards is not a measurement */
    ops->bracket_end(o.st);
    ops->pass_end(o.st, 1, 1, &out);
    assert_nan(v[fam("syscr")]);
    assert_true(v[fam("rchar")] == 0.0); /* only our own read, exactly cancelled */
    ops->close(o.st);
}

/* ---- workload windows ---------------------------------------------------------------------- */

/* A window edge's shared reading: the wall source's getrusage(RUSAGE_SELF). */
static struct bench__edge_shared shared_ru(long minflt, long majflt, long nvcsw, long nivcsw)
{
    struct bench__edge_shared s;
    memset(&s, 0, sizeof s);
    s.self_ok = true;
    s.self.ru_minflt = minflt;
    s.self.ru_majflt = majflt;
    s.self.ru_nvcsw = nvcsw;
    s.self.ru_nivcsw = nivcsw;
    return s;
}

/* A window's edges: each a snapshot of edge_size bytes. */
struct window {
    void *open, *close;
};

static struct window window_new(void)
{
    assert_true(ops->edge_size > 0);
    struct window w = {calloc(1, ops->edge_size), calloc(1, ops->edge_size)};
    assert_non_null(w.open);
    assert_non_null(w.close);
    return w;
}

static void window_free(struct window *w)
{
    free(w->open);
    free(w->close);
}

static void window_counts(void *st, const struct window *w, const struct bench__edge_shared sh[2],
                          double v[N_FAMILY])
{
    bool est[N_FAMILY];
    memset(est, 1, sizeof est);
    /* as the driver calls it: scale NaN, left so by a source with no PMU */
    struct bench__counts out = {.values = v, .estimate = est, .scale = NAN};
    for (size_t i = 0; i < N_FAMILY; i++)
        v[i] = -12345;
    ops->window_counts(st, w->open, w->close, sh, &out);
    for (size_t i = 0; i < N_FAMILY; i++)
        assert_false(est[i]); /* tier-0 never scales */
    assert_nan(out.scale);
}

/* The io half of `busy` done 5 times, as a window's totals. */
static void assert_busy5_io(const double *v)
{
    assert_near(v[fam("syscr")], 15, 0);
    assert_near(v[fam("syscw")], 10, 0);
    assert_near(v[fam("rchar")], 2000, 0);
    assert_near(v[fam("wchar")], 150, 0);
    assert_near(v[fam("rd-bytes")], 500, 0);
    assert_near(v[fam("wr-bytes")], 35, 0);
    assert_near(v[fam("cache-hit")], 75, 1e-9);
}

static void test_window_io_delta_less_own_text(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    struct window w = window_new();
    /* the opening edge's text is 1 byte longer than the calibrated one and the closing edge's
     * 2 bytes longer (write_bytes gains a digit at each): only the opening edge's own text is
     * inside the window's rchar, and it is subtracted exactly */
    fk.write_bytes = 99999990;
    ops->run_begin(o.st);
    ops->edge_read(o.st, w.open);
    for (int i = 0; i < 5; i++)
        do_work(&busy);
    ops->edge_read(o.st, w.close);
    ops->run_end(o.st);
    struct bench__edge_shared sh[2] = {shared_ru(1000, 10, 100, 100),
                                       shared_ru(1007, 13, 111, 113)};
    double v[N_FAMILY];
    window_counts(o.st, &w, sh, v);
    assert_busy5_io(v); /* syscr: the opening edge's 2 reads less the calibrated pair */
    window_free(&w);
    ops->close(o.st);
}

static void test_window_rusage_from_shared_readings(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    struct window w = window_new();
    unsigned getrusages = fk.getrusages, opens = fk.opens;
    ops->run_begin(o.st);
    ops->edge_read(o.st, w.open);
    for (int i = 0; i < 5; i++)
        do_work(&busy); /* the fake's own rusage moves by 25, 5, 10, 5: not what is reported */
    ops->edge_read(o.st, w.close);
    ops->run_end(o.st);
    assert_int_equal(fk.getrusages, getrusages); /* an edge reads /proc/self/io only */
    assert_int_equal(fk.opens, opens + 2);
    struct bench__edge_shared sh[2] = {shared_ru(1000, 10, 100, 100),
                                       shared_ru(1007, 13, 111, 113)};
    double v[N_FAMILY];
    window_counts(o.st, &w, sh, v);
    assert_int_equal(fk.getrusages, getrusages); /* nor do the counts */
    assert_near(v[fam("minflt")], 7, 0);         /* shared[1] − shared[0] */
    assert_near(v[fam("majflt")], 3, 0);
    assert_near(v[fam("vol-cs")], 11, 0);
    assert_near(v[fam("invol-cs")], 13, 0);
    assert_busy5_io(v);
    window_free(&w);
    ops->close(o.st);
}

static void test_window_shared_reading_failed(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    struct window w = window_new();
    for (int edge = 0; edge < 2; edge++) {
        ops->run_begin(o.st);
        ops->edge_read(o.st, w.open);
        for (int i = 0; i < 5; i++)
            do_work(&busy);
        ops->edge_read(o.st, w.close);
        ops->run_end(o.st);
        struct bench__edge_shared sh[2] = {shared_ru(1000, 10, 100, 100),
                                           shared_ru(1007, 13, 111, 113)};
        sh[edge].self_ok = false; /* getrusage(RUSAGE_SELF) failed at this edge */
        double v[N_FAMILY];
        window_counts(o.st, &w, sh, v);
        assert_rusage_nan(v);
        assert_busy5_io(v);
    }
    window_free(&w);
    ops->close(o.st);
}

static void test_window_io_unreadable_at_an_edge(void **state)
{
    (void)state;
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    struct window w = window_new();
    for (int edge = 0; edge < 2; edge++) {
        ops->run_begin(o.st);
        fk.open_errno = edge == 0 ? EACCES : 0;
        ops->edge_read(o.st, w.open);
        for (int i = 0; i < 5; i++)
            do_work(&busy);
        fk.open_errno = edge == 1 ? EACCES : 0;
        ops->edge_read(o.st, w.close);
        fk.open_errno = 0;
        ops->run_end(o.st);
        struct bench__edge_shared sh[2] = {shared_ru(1000, 10, 100, 100),
                                           shared_ru(1007, 13, 111, 113)};
        double v[N_FAMILY];
        window_counts(o.st, &w, sh, v);
        assert_io_nan(v);
        assert_near(v[fam("minflt")], 7, 0);
        assert_near(v[fam("invol-cs")], 13, 0);
    }
    window_free(&w);
    ops->close(o.st);
}

static void test_window_rusage_absent_since_open(void **state)
{
    (void)state;
    fk.ru_errno = EPERM; /* announced as null at open: stays null in windows */
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    fk.ru_errno = 0;
    struct window w = window_new();
    ops->run_begin(o.st);
    ops->edge_read(o.st, w.open);
    for (int i = 0; i < 5; i++)
        do_work(&busy);
    ops->edge_read(o.st, w.close);
    ops->run_end(o.st);
    struct bench__edge_shared sh[2] = {shared_ru(1000, 10, 100, 100),
                                       shared_ru(1007, 13, 111, 113)};
    double v[N_FAMILY];
    window_counts(o.st, &w, sh, v);
    assert_rusage_nan(v);
    assert_busy5_io(v);
    window_free(&w);
    ops->close(o.st);
}

/* ---- the real kernel ----------------------------------------------------------------------- */

static void test_real_kernel_counts_dev_zero_reads(void **state)
{
    (void)state;
    bench__os_reset();
    char text[1024];
    int64_t io[6];
    ssize_t n = bench__os_read_file("/proc/self/io", text, sizeof text);
    if (n >= 0)
        bench__tier0_parse_io(text, (size_t)n, io);
    if (n < 0 || io[SYSCR] < 0 || io[RCHAR] < 0) {
        print_message("skipped: /proc/self/io unreadable or without syscr/rchar here\n");
        skip();
    }
    struct opened o;
    open_source(&o);
    assert_non_null(o.st);
    assert_string_equal(o.status, "");
    int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    char buf[64];

    enum { ITERS = 1000, BATCH = 100 };
    double v[N_FAMILY];
    bool est[N_FAMILY];
    struct bench__counts out = {.values = v, .estimate = est, .scale = NAN};
    ops->pass_begin(o.st);
    for (int b = 0; b < ITERS / BATCH; b++) {
        ops->bracket_begin(o.st);
        for (int i = 0; i < BATCH; i++)
            if (read(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
                fail_msg("read(/dev/zero): %s", strerror(errno));
        ops->bracket_end(o.st);
    }
    ops->pass_end(o.st, ITERS, ITERS / BATCH, &out);
    close(fd);

    print_message("real kernel: syscr/iter %.4f  rchar/iter %.4f  syscw %.4f  wchar %.4f  "
                  "min-flt %.4f  rd-bytes %.4f  cache-hit %.2f%%\n",
                  v[fam("syscr")], v[fam("rchar")], v[fam("syscw")], v[fam("wchar")],
                  v[fam("minflt")], v[fam("rd-bytes")], v[fam("cache-hit")]);
    print_message(
        "calibrated self-cost per bracket: syscr %.1f  syscw %.1f  rchar %.1f  "
        "wchar %.1f\n",
        bench__tier0_self_cost(o.st, fam("syscr")), bench__tier0_self_cost(o.st, fam("syscw")),
        bench__tier0_self_cost(o.st, fam("rchar")), bench__tier0_self_cost(o.st, fam("wchar")));

    assert_near(v[fam("syscr")], 1.00, 0.02);
    assert_near(v[fam("rchar")], 64, 1.5);
    for (size_t i = 0; i < N_FAMILY; i++)
        if (isnan(v[i]))
            fail_msg("%s is NaN on the real kernel", ops->family[i].name);
    /* one snapshot = one pread of the /proc/self/io that stays open (os.c) */
    assert_true(bench__tier0_self_cost(o.st, fam("syscr")) == 1.0);
    assert_true(bench__tier0_self_cost(o.st, fam("rchar")) > 0);
    assert_true(bench__tier0_self_cost(o.st, fam("minflt")) == 0.0); /* never subtracted */
    ops->close(o.st);
}

/* The edges read the /proc/self/io that open kept open (the fd, re-read in place), and close
 * closes it: texts planted under that fd are what the edges read. */
static int kept_io_fd(void)
{
    char want[64];
    snprintf(want, sizeof want, "/proc/%d/io", (int)getpid());
    int found = -1;
    for (int fd = 0; fd < 1024; fd++) {
        char link[64], target[128];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, want) == 0) {
            assert_int_equal(found, -1); /* one kept fd, not one per read */
            found = fd;
        }
    }
    return found;
}

static void plant_io(int fd, long long read_bytes)
{
    char text[256];
    int len = snprintf(text, sizeof text,
                       "rchar: 1000\nwchar: 10\nsyscr: 10\nsyscw: 1\nread_bytes: %lld\n"
                       "write_bytes: 0\ncancelled_write_bytes: 0\n",
                       read_bytes);
    int mfd = memfd_create("io", MFD_CLOEXEC);
    assert_true(mfd >= 0);
    assert_int_equal(write(mfd, text, (size_t)len), len);
    assert_int_equal(dup2(mfd, fd), fd);
    close(mfd);
}

static void test_real_edges_read_the_kept_file(void **state)
{
    (void)state;
    bench__os_reset();
    assert_int_equal(kept_io_fd(), -1);
    struct opened o;
    open_source(&o);
    if (!o.st || o.status[0]) {
        print_message("skipped: /proc/self/io unusable here (%s)\n", o.status);
        if (o.st)
            ops->close(o.st);
        skip();
    }
    int kept = kept_io_fd();
    assert_true(kept >= 0);
    struct window w = window_new();
    ops->run_begin(o.st);
    plant_io(kept, 4096);
    ops->edge_read(o.st, w.open);
    plant_io(kept, 3 * 4096);
    ops->edge_read(o.st, w.close);
    ops->run_end(o.st);
    struct bench__edge_shared sh[2] = {shared_ru(1000, 10, 100, 100),
                                       shared_ru(1007, 13, 111, 113)};
    double v[N_FAMILY];
    window_counts(o.st, &w, sh, v);
    assert_near(v[fam("rd-bytes")], 2 * 4096, 0);
    window_free(&w);
    ops->close(o.st);
    assert_int_equal(kept_io_fd(), -1);
    assert_int_equal(fcntl(kept, F_GETFD), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_is_the_catalog_rows),
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_parse_embedded_nul),
        cmocka_unit_test(test_parse_every_prefix_of_captured),
        cmocka_unit_test_setup_teardown(test_open_healthy, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_pass_values_and_self_cost, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_short_reads_are_reassembled, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_self_cost_clamps_at_zero, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_cache_hit_readahead_clamps_to_zero, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_open_enoent_io_null_rusage_kept, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_open_eacces_io_null_rusage_kept, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_io_fails_mid_pass, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_one_bad_edge_loses_the_pass, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_torn_read_loses_only_the_torn_fields, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_missing_read_bytes, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_io_without_syscr_is_io_absent, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_getrusage_fails_mid_pass, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_getrusage_fails_at_open, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_both_fail_counting_absent, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_nothing_measured_is_nan, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_counter_running_backwards_is_nan, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_window_io_delta_less_own_text, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_window_rusage_from_shared_readings, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_window_shared_reading_failed, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_window_io_unreadable_at_an_edge, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_window_rusage_absent_since_open, fake_setup,
                                        fake_teardown),
        cmocka_unit_test(test_real_kernel_counts_dev_zero_reads),
        cmocka_unit_test(test_real_edges_read_the_kept_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
