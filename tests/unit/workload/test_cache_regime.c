/* SPDX-License-Identifier: MIT */
/* test_cache_regime.c: the page-cache regime: the f_type table, the pure stamp policy matrix
 * (every note exactly), residency and prep failures through the os seam, refusal of FIFOs and
 * devices, and the real kernel (cold/warm on a 64 MiB ext4 file, cold on tmpfs). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "workload/cache_regime.h"
#include "platform/os.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define EM "\u2014" /* the em dash of the notes */
#define MIB (1024u * 1024u)

#define assert_nan(v)                                                                              \
    do {                                                                                           \
        double v_ = (v);                                                                           \
        if (!isnan(v_))                                                                            \
            fail_msg("%s == %.17g, want NaN (not measured)", #v, v_);                              \
    } while (0)

#define assert_near(got, want, tol)                                                                \
    do {                                                                                           \
        double g_ = (got), w_ = (want), t_ = (tol);                                                \
        if (!(fabs(g_ - w_) <= t_))                                                                \
            fail_msg("%s == %.17g, want %.17g ± %g", #got, g_, w_, t_);                            \
    } while (0)

static const char *const NOTE_UNVERIFIED = "residency unverified (mincore unavailable)";
static const char *const NOTE_UNPROBED = "fs type unprobed";
static const char *const NOTE_MIXED = "mixed filesystems " EM " residency verification approximate";
static const char *const NOTE_TMPFS_COLD =
    "cold impossible on tmpfs (the pages ARE the file) " EM " ran steady-state";

/* ---- helpers --------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A file of `size` bytes (non-zero pattern, never sparse) under `dir`, synced; the path is
 * written to `path`. */
static void make_file(const char *dir, size_t size, char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/libbench-cache-regime-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp(%s): %s", path, strerror(errno));
    static unsigned char block[1u << 16];
    memset(block, 0x5a, sizeof block);
    for (size_t done = 0; done < size;) {
        size_t want = size - done < sizeof block ? size - done : sizeof block;
        ssize_t n = write(fd, block, want);
        if (n <= 0)
            fail_msg("write(%s): %s", path, strerror(errno));
        done += (size_t)n;
    }
    if (fsync(fd) != 0)
        fail_msg("fsync(%s): %s", path, strerror(errno));
    close(fd);
}

/* read_bytes of /proc/self/io, or -1 when unreadable. */
static long long self_read_bytes(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    if (f == NULL)
        return -1;
    char line[128];
    long long v = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "read_bytes: %lld", &v) == 1)
            break;
    fclose(f);
    return v;
}

/* Read `path` through (the workload a regime prepares for); returns bytes read. */
static size_t read_through(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail_msg("open(%s): %s", path, strerror(errno));
    static unsigned char buf[1u << 16];
    size_t total = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        total += (size_t)n;
    close(fd);
    return total;
}

static bool utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t extra = *p < 0x80             ? 0
                       : (*p & 0xE0) == 0xC0 ? 1
                       : (*p & 0xF0) == 0xE0 ? 2
                       : (*p & 0xF8) == 0xF0 ? 3
                                             : 9;
        if (extra == 9)
            return false;
        p++;
        for (size_t i = 0; i < extra; i++, p++)
            if ((*p & 0xC0) != 0x80)
                return false;
    }
    return true;
}

/* ---- the fake kernel behind the seam ------------------------------------------------------- */

static int fake_fadvise_err;   /* returned by posix_fadvise */
static int fake_mincore_errno; /* mincore fails with it when non-zero */
static long fake_f_type;       /* what fstatfs reports */
static int fadvise_calls, fdatasync_calls, mincore_calls;
static int fdatasync_then_fadvise; /* fdatasync seen before each fadvise */

static int fake_fadvise(int fd, off_t off, off_t len, int advice)
{
    (void)fd;
    fadvise_calls++;
    if (fdatasync_calls == fadvise_calls)
        fdatasync_then_fadvise++;
    assert_int_equal(off, 0);
    assert_int_equal(len, 0);
    assert_int_equal(advice, POSIX_FADV_DONTNEED);
    return fake_fadvise_err;
}

static int fake_fdatasync(int fd)
{
    (void)fd;
    fdatasync_calls++;
    return 0;
}

/* Every 4th page resident; the others carry junk in the bits above bit 0 (not residency). */
static int fake_mincore(void *addr, size_t length, unsigned char *vec)
{
    mincore_calls++;
    if (fake_mincore_errno != 0) {
        errno = fake_mincore_errno;
        return -1;
    }
    long ps = sysconf(_SC_PAGESIZE);
    assert_int_equal((uintptr_t)addr % (uintptr_t)ps, 0);
    size_t pages = (length + (size_t)ps - 1) / (size_t)ps;
    for (size_t i = 0; i < pages; i++)
        vec[i] = i % 4 == 0 ? 0x01 : 0xFE;
    return 0;
}

static int fake_fstatfs(int fd, struct statfs *buf)
{
    (void)fd;
    memset(buf, 0, sizeof *buf);
    buf->f_type = (__typeof__(buf->f_type))fake_f_type;
    return 0;
}

static int failing_fstatfs(int fd, struct statfs *buf)
{
    (void)fd;
    (void)buf;
    errno = ENOSYS;
    return -1;
}

static int failing_fstat(int fd, struct stat *buf)
{
    (void)fd;
    (void)buf;
    errno = EACCES;
    return -1;
}

static void *failing_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
    (void)addr, (void)length, (void)prot, (void)flags, (void)fd, (void)offset;
    errno = ENODEV;
    return MAP_FAILED;
}

static int seam_setup(void **state)
{
    (void)state;
    bench__os_reset();
    fake_fadvise_err = 0;
    fake_mincore_errno = 0;
    fake_f_type = 0xEF53; /* ext4 */
    fadvise_calls = fdatasync_calls = mincore_calls = 0;
    fdatasync_then_fadvise = 0;
    return 0;
}

static int seam_teardown(void **state)
{
    (void)state;
    bench__os_reset();
    alarm(0);
    return 0;
}

/* ---- the f_type table ---------------------------------------------------------------------- */

static void test_fs_kind_of_magic_table(void **state)
{
    (void)state;
    static const struct {
        uint64_t f_type;
        enum bench__fs_kind want;
    } rows[] = {
        {UINT64_C(0x01021994), BENCH__FS_TMPFS}, /* tmpfs */
        {UINT64_C(0x858458f6), BENCH__FS_TMPFS}, /* ramfs: top bit of the 32-bit word set */
        {UINT64_C(0x2fc12fc1), BENCH__FS_ZFS},
        {UINT64_C(0xef53), BENCH__FS_OTHER},     /* ext2/3/4 */
        {UINT64_C(0x9123683e), BENCH__FS_OTHER}, /* btrfs */
        {UINT64_C(0x58465342), BENCH__FS_OTHER}, /* xfs */
        {UINT64_C(0x6969), BENCH__FS_OTHER},     /* nfs */
        {UINT64_C(0x794c7630), BENCH__FS_OTHER}, /* overlayfs */
        {UINT64_C(0), BENCH__FS_OTHER},
        {UINT64_MAX, BENCH__FS_OTHER},
        /* a sign-extended ramfs magic is not a magic: the caller must zero-extend */
        {UINT64_C(0xffffffff858458f6), BENCH__FS_OTHER},
        {UINT64_C(0x1858458f6), BENCH__FS_OTHER},
        {UINT64_C(0x101021994), BENCH__FS_OTHER},
        {UINT64_C(0xffffffff01021994), BENCH__FS_OTHER},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (bench__fs_kind_of_magic(rows[i].f_type) != rows[i].want)
            fail_msg("f_type %#llx: kind %d, want %d", (unsigned long long)rows[i].f_type,
                     (int)bench__fs_kind_of_magic(rows[i].f_type), (int)rows[i].want);
}

static void test_fs_kind_of_fd_through_seam(void **state)
{
    (void)state;
    bench__os.fstatfs = fake_fstatfs;
    fake_f_type = (long)0x858458f6; /* ramfs as the kernel reports it on this ABI */
    assert_int_equal(bench__fs_kind_of_fd(0), BENCH__FS_TMPFS);
    fake_f_type = 0x01021994;
    assert_int_equal(bench__fs_kind_of_fd(0), BENCH__FS_TMPFS);
    fake_f_type = 0x2fc12fc1;
    assert_int_equal(bench__fs_kind_of_fd(0), BENCH__FS_ZFS);
    fake_f_type = 0xEF53;
    assert_int_equal(bench__fs_kind_of_fd(0), BENCH__FS_OTHER);
    bench__os.fstatfs = failing_fstatfs;
    assert_int_equal(bench__fs_kind_of_fd(0), BENCH__FS_UNKNOWN);
    assert_int_equal(bench__fs_kind_of_path("/"), BENCH__FS_UNKNOWN);
}

static void test_fs_kind_real(void **state)
{
    (void)state;
    assert_int_equal(bench__fs_kind_of_path("/nonexistent/definitely/missing"), BENCH__FS_UNKNOWN);
    assert_int_equal(bench__fs_kind_of_path(NULL), BENCH__FS_UNKNOWN);
    struct statfs sf;
    if (statfs("/dev/shm", &sf) == 0 && (unsigned long)sf.f_type == 0x01021994)
        assert_int_equal(bench__fs_kind_of_path("/dev/shm"), BENCH__FS_TMPFS);
    if (statfs("/", &sf) == 0 && (unsigned long)sf.f_type == 0xEF53)
        assert_int_equal(bench__fs_kind_of_path("/"), BENCH__FS_OTHER);
}

/* ---- the pure policy ----------------------------------------------------------------------- */

#define S BENCH_CACHE_STEADY
#define W BENCH_CACHE_WARM
#define C BENCH_CACHE_COLD
#define OTHER BENCH__FS_OTHER
#define TMPFS BENCH__FS_TMPFS
#define ZFS BENCH__FS_ZFS
#define UNKNOWN BENCH__FS_UNKNOWN

static const struct policy_row {
    const char *what;
    enum bench_cache_regime requested;
    bool prep_ok;
    const char *reason;
    enum bench__fs_kind fs;
    bool mixed;
    double before, after;
    enum bench_cache_regime effective;
    const char *note;
} policy_rows[] = {
    /* steady: nothing attempted; only untrustworthy residency is noted */
    {"steady other", S, true, NULL, OTHER, false, 0.42, 0.42, S, ""},
    {"steady tmpfs", S, true, NULL, TMPFS, false, 1.0, 1.0, S, ""},
    {"steady zfs", S, true, NULL, ZFS, false, 0.0, 0.0, S,
     "zfs: page-cache residency does not reflect ARC state"},
    {"steady unknown", S, true, NULL, UNKNOWN, false, 0.5, 0.5, S, "fs type unprobed"},
    {"steady NaN other", S, true, NULL, OTHER, false, NAN, NAN, S, ""},
    {"steady prep reason ignored", S, false, "x: open failed: No such file or directory", OTHER,
     false, NAN, NAN, S, ""},
    {"steady mixed", S, true, NULL, OTHER, true, 0.3, 0.3, S,
     "mixed filesystems " EM " residency verification approximate"},
    {"steady zfs mixed", S, true, NULL, ZFS, true, 0.3, 0.3, S,
     "zfs: page-cache residency does not reflect ARC state; mixed filesystems " EM
     " residency verification approximate"},
    /* prep failed: downgraded with the reason, whatever the fs */
    {"cold prep failed", C, false, "/a: posix_fadvise failed: Function not implemented", OTHER,
     false, 1.0, 1.0, S,
     "cold unavailable (/a: posix_fadvise failed: Function not implemented) " EM
     " ran steady-state"},
    {"warm prep failed", W, false, "/dev/zero: not a regular file", OTHER, false, NAN, NAN, S,
     "warm unavailable (/dev/zero: not a regular file) " EM " ran steady-state"},
    {"cold prep failed, no reason", C, false, NULL, OTHER, false, 1.0, 1.0, S,
     "cold unavailable (prep failed) " EM " ran steady-state"},
    {"cold prep failed, empty reason", C, false, "", UNKNOWN, false, 1.0, 1.0, S,
     "cold unavailable (prep failed) " EM " ran steady-state"},
    {"cold prep failed on tmpfs", C, false, "r", TMPFS, false, 1.0, 1.0, S,
     "cold unavailable (r) " EM " ran steady-state"},
    {"warm prep failed on zfs", W, false, "r", ZFS, false, 0.0, 0.0, S,
     "warm unavailable (r) " EM " ran steady-state"},
    {"cold prep failed mixed", C, false, "r", OTHER, true, 1.0, 1.0, S,
     "cold unavailable (r) " EM " ran steady-state; mixed filesystems " EM
     " residency verification approximate"},
    /* tmpfs: cold impossible, warm trivially true */
    {"cold tmpfs", C, true, NULL, TMPFS, false, 1.0, 1.0, S,
     "cold impossible on tmpfs (the pages ARE the file) " EM " ran steady-state"},
    {"warm tmpfs", W, true, NULL, TMPFS, false, 1.0, 1.0, W, ""},
    {"warm tmpfs no threshold", W, true, NULL, TMPFS, false, 0.0, 0.0, W, ""},
    {"warm tmpfs NaN", W, true, NULL, TMPFS, false, NAN, NAN, W, ""},
    /* zfs: thresholds suppressed both ways */
    {"cold zfs", C, true, NULL, ZFS, false, 0.0, 0.9, C,
     "zfs: ARC survives posix_fadvise " EM " cold partial at best; page-cache residency "
     "shown, ARC unverifiable"},
    {"warm zfs", W, true, NULL, ZFS, false, 0.0, 0.0, W,
     "zfs: preload warms the ARC; page-cache residency does not reflect it"},
    {"cold zfs mixed", C, true, NULL, ZFS, true, 1.0, 1.0, C,
     "zfs: ARC survives posix_fadvise " EM " cold partial at best; page-cache residency "
     "shown, ARC unverifiable; mixed filesystems " EM " residency verification approximate"},
    /* other: the thresholds bite, boundaries exact */
    {"cold evicted", C, true, NULL, OTHER, false, 1.0, 0.0, C, ""},
    {"cold at threshold", C, true, NULL, OTHER, false, 1.0, 0.10, C, ""},
    {"cold just over", C, true, NULL, OTHER, false, 1.0, 0.1000001, S,
     "posix_fadvise did not evict (10% resident " EM " another process's mapping?) " EM
     " ran steady-state"},
    {"cold 35%", C, true, NULL, OTHER, false, 1.0, 0.35, S,
     "posix_fadvise did not evict (35% resident " EM " another process's mapping?) " EM
     " ran steady-state"},
    {"cold 100%", C, true, NULL, OTHER, false, 1.0, 1.0, S,
     "posix_fadvise did not evict (100% resident " EM " another process's mapping?) " EM
     " ran steady-state"},
    {"warm full", W, true, NULL, OTHER, false, 0.0, 1.0, W, ""},
    {"warm at threshold", W, true, NULL, OTHER, false, 0.0, 0.90, W, ""},
    {"warm just under", W, true, NULL, OTHER, false, 0.0, 0.8999, S,
     "preload did not stick (89% resident) " EM " memory pressure or file > RAM?"},
    {"warm 55%", W, true, NULL, OTHER, false, 0.0, 0.55, S,
     "preload did not stick (55% resident) " EM " memory pressure or file > RAM?"},
    {"warm 29% (0.29*100 < 29 in binary)", W, true, NULL, OTHER, false, 0.0, 0.29, S,
     "preload did not stick (29% resident) " EM " memory pressure or file > RAM?"},
    {"warm 0%", W, true, NULL, OTHER, false, 0.0, 0.0, S,
     "preload did not stick (0% resident) " EM " memory pressure or file > RAM?"},
    /* NaN residency with a successful prep: unverified, never a downgrade */
    {"cold NaN", C, true, NULL, OTHER, false, NAN, NAN, C,
     "residency unverified (mincore unavailable)"},
    {"warm NaN", W, true, NULL, OTHER, false, NAN, NAN, W,
     "residency unverified (mincore unavailable)"},
    /* unknown: thresholds apply, plus the unprobed note */
    {"cold unknown ok", C, true, NULL, UNKNOWN, false, 1.0, 0.02, C, "fs type unprobed"},
    {"cold unknown over", C, true, NULL, UNKNOWN, false, 1.0, 0.5, S,
     "posix_fadvise did not evict (50% resident " EM " another process's mapping?) " EM
     " ran steady-state; fs type unprobed"},
    {"warm unknown under", W, true, NULL, UNKNOWN, false, 0.0, 0.5, S,
     "preload did not stick (50% resident) " EM " memory pressure or file > RAM?; fs type "
     "unprobed"},
    {"cold unknown NaN", C, true, NULL, UNKNOWN, false, NAN, NAN, C,
     "residency unverified (mincore unavailable); fs type unprobed"},
    /* mixed sets */
    {"warm mixed ok", W, true, NULL, OTHER, true, 0.0, 0.95, W,
     "mixed filesystems " EM " residency verification approximate"},
    {"cold mixed over", C, true, NULL, OTHER, true, 1.0, 0.5, S,
     "posix_fadvise did not evict (50% resident " EM " another process's mapping?) " EM
     " ran steady-state; mixed filesystems " EM " residency verification approximate"},
    {"cold unknown NaN mixed", C, true, NULL, UNKNOWN, true, NAN, NAN, C,
     "residency unverified (mincore unavailable); fs type unprobed; mixed filesystems " EM
     " residency verification approximate"},
};

static void same_double(const char *what, const char *field, double got, double want)
{
    if (isnan(want) ? !isnan(got) : got != want)
        fail_msg("%s: %s %.17g, want %.17g", what, field, got, want);
}

static void test_policy_matrix(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof policy_rows / sizeof policy_rows[0]; i++) {
        const struct policy_row *r = &policy_rows[i];
        struct bench__regime_stamp st;
        memset(&st, 0xA5, sizeof st); /* the policy overwrites everything */
        bench__regime_policy(r->requested, r->prep_ok, r->reason, r->fs, r->mixed, r->before,
                             r->after, &st);
        if (!st.present)
            fail_msg("%s: not present", r->what);
        if (st.requested != r->requested)
            fail_msg("%s: requested %d", r->what, (int)st.requested);
        if (st.effective != r->effective)
            fail_msg("%s: effective %s, want %s", r->what, bench__regime_word(st.effective),
                     bench__regime_word(r->effective));
        if (strcmp(st.note, r->note) != 0)
            fail_msg("%s: note\n  got  \"%s\"\n  want \"%s\"", r->what, st.note, r->note);
        same_double(r->what, "before", st.resident_before, r->before);
        same_double(r->what, "after", st.resident_after, r->after);
    }
}

static void test_policy_long_reason_keeps_the_verdict(void **state)
{
    (void)state;
    char reason[1200] = "";
    for (size_t i = 0; i < 500; i++)
        strcat(reason, "\u00e9"); /* two bytes each: a cut can fall mid-character */
    struct bench__regime_stamp st;
    bench__regime_policy(C, false, reason, OTHER, true, 1.0, 1.0, &st);
    assert_int_equal(st.effective, S);
    assert_true(strlen(st.note) < sizeof st.note);
    assert_true(utf8_valid(st.note));
    assert_true(strncmp(st.note, "cold unavailable (\u00e9", 20) == 0);
    /* the verdict's tail survives; only the disclosure after it may be cut */
    assert_non_null(strstr(st.note, ") " EM " ran steady-state"));
}

static void test_regime_words(void **state)
{
    (void)state;
    assert_string_equal(bench__regime_word(BENCH_CACHE_STEADY), "steady");
    assert_string_equal(bench__regime_word(BENCH_CACHE_WARM), "warm");
    assert_string_equal(bench__regime_word(BENCH_CACHE_COLD), "cold");
    assert_string_equal(bench__regime_json_word(BENCH_CACHE_STEADY), "steadyState");
    assert_string_equal(bench__regime_json_word(BENCH_CACHE_WARM), "warm");
    assert_string_equal(bench__regime_json_word(BENCH_CACHE_COLD), "cold");
    assert_string_equal(bench__regime_word((enum bench_cache_regime)7), "?");
    assert_string_equal(bench__regime_json_word((enum bench_cache_regime)7), "?");
}

/* ---- residency through the seam -------------------------------------------------------------- */

static int open_ro(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail_msg("open(%s): %s", path, strerror(errno));
    return fd;
}

static void test_residency_page_weighted_with_sysconf_stride(void **state)
{
    (void)state;
    const size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    char a[256], b[256], e[256];
    make_file("/var/tmp", 2 * ps + 1, a, sizeof a); /* 3 pages: page 0 resident */
    make_file("/var/tmp", 5 * ps, b, sizeof b);     /* 5 pages: pages 0 and 4 resident */
    make_file("/var/tmp", 0, e, sizeof e);          /* empty: 0/0, ok */
    int fds[4] = {open_ro(a), open_ro(b), open_ro(e), -1};
    bench__os.mincore = fake_mincore;

    uint64_t pages, resident;
    assert_int_equal(bench__residency_pages(fds[0], &pages, &resident), 0);
    assert_int_equal(pages, 3);
    assert_int_equal(resident, 1);
    assert_int_equal(bench__residency_pages(fds[1], &pages, &resident), 0);
    assert_int_equal(pages, 5);
    assert_int_equal(resident, 2);
    mincore_calls = 0;
    assert_int_equal(bench__residency_pages(fds[2], &pages, &resident), 0);
    assert_int_equal(pages, 0);
    assert_int_equal(resident, 0);
    assert_int_equal(mincore_calls, 0); /* the empty file is never mapped */

    /* page-weighted, not the mean of fractions ((1/3 + 2/5) / 2) */
    assert_near(bench__residency(fds, 4), 3.0 / 8.0, 1e-12);
    assert_nan(bench__residency(fds + 2, 2)); /* only an empty file and a closed slot */
    assert_nan(bench__residency(fds, 0));

    /* every way of being unmeasurable is NaN, never 0 */
    fake_mincore_errno = ENOSYS;
    assert_int_equal(bench__residency_pages(fds[0], &pages, &resident), -ENOSYS);
    assert_nan(bench__residency(fds, 4));
    fake_mincore_errno = 0;
    bench__os.mmap = failing_mmap;
    assert_int_equal(bench__residency_pages(fds[0], &pages, &resident), -ENODEV);
    assert_nan(bench__residency(fds, 2));
    bench__os_reset();
    bench__os.fstat = failing_fstat;
    assert_int_equal(bench__residency_pages(fds[0], &pages, &resident), -EACCES);
    assert_nan(bench__residency(fds, 2));
    bench__os_reset();
    int zero = open_ro("/dev/zero");
    assert_int_equal(bench__residency_pages(zero, &pages, &resident), -EINVAL);
    close(zero);

    for (int i = 0; i < 3; i++)
        close(fds[i]);
    unlink(a);
    unlink(b);
    unlink(e);
}

/* ---- prep through the seam ------------------------------------------------------------------ */

static void test_fadvise_failing_runs_steady(void **state)
{
    (void)state;
    char a[256], want[600];
    make_file("/var/tmp", 3 * 4096, a, sizeof a);
    const char *paths[] = {a};
    bench__os.posix_fadvise = fake_fadvise;
    bench__os.fdatasync = fake_fdatasync;
    bench__os.fstatfs = fake_fstatfs;
    static const int errs[] = {ENOSYS, EINVAL};
    for (size_t i = 0; i < 2; i++) {
        fake_fadvise_err = errs[i];
        struct bench__regime_stamp st;
        bench__regime_prepare(C, paths, 1, &st);
        assert_true(st.present);
        assert_int_equal(st.requested, C);
        assert_int_equal(st.effective, S);
        snprintf(want, sizeof want,
                 "cold unavailable (%s: posix_fadvise failed: %s) " EM " ran steady-state", a,
                 strerror(errs[i]));
        assert_string_equal(st.note, want);
        assert_false(isnan(st.resident_before));
        assert_false(isnan(st.resident_after));
    }
    assert_int_equal(fadvise_calls, 2);
    assert_int_equal(fdatasync_then_fadvise, 2); /* fdatasync precedes every DONTNEED */
    unlink(a);
}

static void test_cold_syncs_then_evicts_each_file(void **state)
{
    (void)state;
    char a[256], b[256];
    make_file("/var/tmp", 4096, a, sizeof a);
    make_file("/var/tmp", 4096, b, sizeof b);
    const char *paths[] = {a, b};
    bench__os.posix_fadvise = fake_fadvise;
    bench__os.fdatasync = fake_fdatasync;
    bench__os.fstatfs = fake_fstatfs;
    bench__os.mincore = fake_mincore; /* 1 page each, both "resident" (page 0) */
    struct bench__regime_stamp st;
    bench__regime_prepare(C, paths, 2, &st);
    assert_int_equal(fadvise_calls, 2);
    assert_int_equal(fdatasync_calls, 2);
    assert_int_equal(fdatasync_then_fadvise, 2);
    /* the fake evicted nothing: the verification catches it */
    assert_int_equal(st.effective, S);
    assert_string_equal(st.note, "posix_fadvise did not evict (100% resident " EM
                                 " another process's mapping?) " EM " ran steady-state");
    unlink(a);
    unlink(b);
}

static void test_mincore_failing_is_unverified(void **state)
{
    (void)state;
    char a[256];
    make_file("/var/tmp", 8 * 4096, a, sizeof a);
    const char *paths[] = {a};
    bench__os.mincore = fake_mincore;
    bench__os.fstatfs = fake_fstatfs;
    fake_mincore_errno = ENOSYS;
    static const enum bench_cache_regime regimes[] = {C, W};
    for (size_t i = 0; i < 2; i++) {
        struct bench__regime_stamp st;
        bench__regime_prepare(regimes[i], paths, 1, &st);
        assert_int_equal(st.effective, regimes[i]); /* unverified is not a downgrade */
        assert_nan(st.resident_before);
        assert_nan(st.resident_after);
        assert_string_equal(st.note, NOTE_UNVERIFIED);
    }
    struct bench__regime_stamp st;
    bench__regime_prepare(S, paths, 1, &st);
    assert_int_equal(st.effective, S);
    assert_nan(st.resident_before);
    assert_string_equal(st.note, "");
    unlink(a);
}

static void test_statfs_failing_is_unknown(void **state)
{
    (void)state;
    char a[256];
    make_file("/var/tmp", 8 * 4096, a, sizeof a);
    const char *paths[] = {a};
    bench__os.fstatfs = failing_fstatfs;
    bench__os.mincore = fake_mincore; /* 2 of 8 pages: 25 % */
    struct bench__regime_stamp st;
    bench__regime_prepare(S, paths, 1, &st);
    assert_int_equal(st.effective, S);
    assert_near(st.resident_before, 0.25, 1e-12);
    assert_near(st.resident_after, 0.25, 1e-12);
    assert_string_equal(st.note, NOTE_UNPROBED);
    bench__regime_prepare(C, paths, 1, &st); /* thresholds still apply on unknown */
    assert_int_equal(st.effective, S);
    assert_string_equal(st.note,
                        "posix_fadvise did not evict (25% resident " EM
                        " another process's mapping?) " EM " ran steady-state; fs type unprobed");
    fake_mincore_errno = ENOSYS;
    bench__regime_prepare(C, paths, 1, &st);
    assert_int_equal(st.effective, C);
    assert_string_equal(st.note, "residency unverified (mincore unavailable); fs type unprobed");
    unlink(a);
}

static void test_fstat_failing_is_a_reason(void **state)
{
    (void)state;
    char a[256], want[600];
    make_file("/var/tmp", 4096, a, sizeof a);
    const char *paths[] = {a};
    bench__os.fstat = failing_fstat;
    struct bench__regime_stamp st;
    bench__regime_prepare(W, paths, 1, &st);
    assert_int_equal(st.effective, S);
    snprintf(want, sizeof want, "warm unavailable (%s: fstat failed: %s) " EM " ran steady-state",
             a, strerror(EACCES));
    assert_string_equal(st.note, want);
    unlink(a);
}

/* ---- refusals -------------------------------------------------------------------------------- */

static void test_fifo_refused_promptly(void **state)
{
    (void)state;
    char dir[] = "/tmp/libbench-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[128], want[400];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo};
    alarm(10); /* a hang fails the test instead of stalling the suite */
    static const enum bench_cache_regime regimes[] = {C, W, S};
    for (size_t i = 0; i < 3; i++) {
        struct bench__regime_stamp st;
        double t0 = now_s();
        bench__regime_prepare(regimes[i], paths, 1, &st);
        double dt = now_s() - t0;
        if (dt > 0.25)
            fail_msg("%s on a FIFO took %.3f s", bench__regime_word(regimes[i]), dt);
        assert_true(st.present);
        assert_int_equal(st.effective, S);
        assert_nan(st.resident_before);
        assert_nan(st.resident_after);
        if (regimes[i] == S) {
            assert_string_equal(st.note, NOTE_UNPROBED); /* nothing was probed */
        } else {
            snprintf(want, sizeof want,
                     "%s unavailable (%s: not a regular file) " EM " ran steady-state",
                     bench__regime_word(regimes[i]), fifo);
            assert_string_equal(st.note, want);
        }
    }
    alarm(0);
    unlink(fifo);
    rmdir(dir);
}

static void test_devices_and_directories_refused(void **state)
{
    (void)state;
    static const char *const refused[] = {"/dev/zero", "/dev/null", "/tmp"};
    char want[400];
    alarm(10); /* /dev/zero read through would never end */
    for (size_t i = 0; i < 3; i++) {
        const char *paths[] = {refused[i]};
        for (int r = 0; r < 2; r++) {
            enum bench_cache_regime regime = r ? W : C;
            struct bench__regime_stamp st;
            bench__regime_prepare(regime, paths, 1, &st);
            assert_int_equal(st.effective, S);
            snprintf(want, sizeof want,
                     "%s unavailable (%s: not a regular file) " EM " ran steady-state",
                     bench__regime_word(regime), refused[i]);
            assert_string_equal(st.note, want);
        }
    }
    alarm(0);
}

static void test_missing_file_and_no_paths(void **state)
{
    (void)state;
    const char *paths[] = {"/nonexistent/definitely/missing", NULL};
    struct bench__regime_stamp st;
    bench__regime_prepare(C, paths, 1, &st);
    assert_int_equal(st.effective, S);
    assert_string_equal(st.note, "cold unavailable (/nonexistent/definitely/missing: open "
                                 "failed: No such file or directory) " EM " ran steady-state");
    /* one bad file in a set downgrades the set (the first reason is kept) */
    char a[256];
    make_file("/var/tmp", 4096, a, sizeof a);
    const char *set[] = {a, NULL};
    bench__regime_prepare(W, set, 2, &st);
    assert_int_equal(st.effective, S);
    assert_string_equal(st.note, "warm unavailable ((null path): no path) " EM " ran steady-state");
    unlink(a);
    /* no paths: a no-op, nothing stamped */
    memset(&st, 0xA5, sizeof st);
    bench__regime_prepare(C, paths, 0, &st);
    assert_false(st.present);
}

static void test_long_path_reason_is_cut_cleanly(void **state)
{
    (void)state;
    char path[1024] = "/nonexistent";
    while (strlen(path) < 900)
        strcat(path, "/\u00e9\u00e9\u00e9");
    const char *paths[] = {path};
    struct bench__regime_stamp st;
    bench__regime_prepare(C, paths, 1, &st);
    assert_int_equal(st.effective, S);
    assert_true(utf8_valid(st.note));
    assert_true(strncmp(st.note, "cold unavailable (\u2026", 21) == 0);
    size_t len = strlen(st.note), tail = strlen(") " EM " ran steady-state");
    assert_true(len > tail);
    assert_string_equal(st.note + len - tail, ") " EM " ran steady-state");
}

/* ---- the real kernel ------------------------------------------------------------------------- */

static void test_many_files_warm(void **state)
{
    (void)state;
    char a[256];
    make_file("/var/tmp", 3 * 4096, a, sizeof a);
    if (bench__fs_kind_of_path(a) != BENCH__FS_OTHER) {
        unlink(a);
        print_message("skipped: /var/tmp is not an ordinary page-cache filesystem here\n");
        skip();
    }
    const char *paths[40];
    for (size_t i = 0; i < 40; i++)
        paths[i] = a;
    struct bench__regime_stamp st;
    bench__regime_prepare(W, paths, 40, &st);
    assert_int_equal(st.effective, W);
    assert_string_equal(st.note, "");
    assert_near(st.resident_after, 1.0, 1e-12);
    unlink(a);
}

static void test_real_cold_and_warm_on_ext4(void **state)
{
    (void)state;
    char a[256];
    make_file("/var/tmp", 64u * MIB, a, sizeof a);
    if (bench__fs_kind_of_path(a) != BENCH__FS_OTHER || self_read_bytes() < 0) {
        unlink(a);
        print_message("skipped: /var/tmp is not an ordinary fs or /proc/self/io has no "
                      "read_bytes here\n");
        skip();
    }
    const char *paths[] = {a};

    struct bench__regime_stamp cold;
    bench__regime_prepare(C, paths, 1, &cold);
    long long r0 = self_read_bytes();
    size_t got = read_through(a);
    long long cold_read = self_read_bytes() - r0;

    /* evict again, so the warm prep itself must bring the file in */
    struct bench__regime_stamp warm, recold;
    bench__regime_prepare(C, paths, 1, &recold);
    bench__regime_prepare(W, paths, 1, &warm);
    r0 = self_read_bytes();
    size_t got2 = read_through(a);
    long long warm_read = self_read_bytes() - r0;
    unlink(a);

    print_message("real kernel (ext4, 64 MiB): cold %s->%s before %.4f after %.4f note \"%s\"; "
                  "read-through read_bytes %lld\n",
                  bench__regime_word(cold.requested), bench__regime_word(cold.effective),
                  cold.resident_before, cold.resident_after, cold.note, cold_read);
    print_message("real kernel (ext4, 64 MiB): warm %s->%s before %.4f after %.4f note \"%s\"; "
                  "read-through read_bytes %lld\n",
                  bench__regime_word(warm.requested), bench__regime_word(warm.effective),
                  warm.resident_before, warm.resident_after, warm.note, warm_read);

    assert_int_equal(got, 64u * MIB);
    assert_int_equal(got2, 64u * MIB);
    assert_int_equal(cold.effective, C);
    assert_string_equal(cold.note, "");
    assert_true(cold.resident_after <= 0.10);
    assert_true(cold_read >= 32ll * MIB);
    assert_int_equal(warm.effective, W);
    assert_string_equal(warm.note, "");
    assert_int_equal(recold.effective, C);
    assert_true(warm.resident_before <= 0.10);
    assert_true(warm.resident_after >= 0.90);
    assert_true(cold_read > 10 * warm_read);
}

static void test_real_cold_on_tmpfs_downgrades(void **state)
{
    (void)state;
    if (bench__fs_kind_of_path("/dev/shm") != BENCH__FS_TMPFS) {
        print_message("skipped: /dev/shm is not tmpfs here\n");
        skip();
    }
    char a[256];
    make_file("/dev/shm", 1u * MIB, a, sizeof a);
    const char *paths[] = {a};
    struct bench__regime_stamp st;
    bench__regime_prepare(C, paths, 1, &st);
    assert_int_equal(st.requested, C);
    assert_int_equal(st.effective, S);
    assert_string_equal(st.note, NOTE_TMPFS_COLD);
    assert_near(st.resident_after, 1.0, 1e-12); /* the pages are the file */
    bench__regime_prepare(W, paths, 1, &st);
    assert_int_equal(st.effective, W);
    assert_string_equal(st.note, "");

    /* a set spanning tmpfs and the root fs is mixed: the thresholds apply as "other" */
    char b[256];
    make_file("/var/tmp", 64u * 1024u, b, sizeof b);
    if (bench__fs_kind_of_path(b) == BENCH__FS_OTHER) {
        const char *set[] = {a, b};
        bench__regime_prepare(W, set, 2, &st);
        assert_int_equal(st.effective, W);
        assert_string_equal(st.note, NOTE_MIXED);
        bench__regime_prepare(S, set, 2, &st);
        assert_int_equal(st.effective, S);
        assert_string_equal(st.note, NOTE_MIXED);
    }
    unlink(b);
    unlink(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fs_kind_of_magic_table),
        cmocka_unit_test_setup_teardown(test_fs_kind_of_fd_through_seam, seam_setup, seam_teardown),
        cmocka_unit_test(test_fs_kind_real),
        cmocka_unit_test(test_policy_matrix),
        cmocka_unit_test(test_policy_long_reason_keeps_the_verdict),
        cmocka_unit_test(test_regime_words),
        cmocka_unit_test_setup_teardown(test_residency_page_weighted_with_sysconf_stride,
                                        seam_setup, seam_teardown),
        cmocka_unit_test_setup_teardown(test_fadvise_failing_runs_steady, seam_setup,
                                        seam_teardown),
        cmocka_unit_test_setup_teardown(test_cold_syncs_then_evicts_each_file, seam_setup,
                                        seam_teardown),
        cmocka_unit_test_setup_teardown(test_mincore_failing_is_unverified, seam_setup,
                                        seam_teardown),
        cmocka_unit_test_setup_teardown(test_statfs_failing_is_unknown, seam_setup, seam_teardown),
        cmocka_unit_test_setup_teardown(test_fstat_failing_is_a_reason, seam_setup, seam_teardown),
        cmocka_unit_test_setup_teardown(test_fifo_refused_promptly, seam_setup, seam_teardown),
        cmocka_unit_test_setup_teardown(test_devices_and_directories_refused, seam_setup,
                                        seam_teardown),
        cmocka_unit_test_setup_teardown(test_missing_file_and_no_paths, seam_setup, seam_teardown),
        cmocka_unit_test_setup_teardown(test_long_path_reason_is_cut_cleanly, seam_setup,
                                        seam_teardown),
        cmocka_unit_test_setup_teardown(test_many_files_warm, seam_setup, seam_teardown),
        cmocka_unit_test_setup_teardown(test_real_cold_and_warm_on_ext4, seam_setup, seam_teardown),
        cmocka_unit_test_setup_teardown(test_real_cold_on_tmpfs_downgrades, seam_setup,
                                        seam_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
