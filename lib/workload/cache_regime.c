/* SPDX-License-Identifier: MIT */
/* cache_regime.c: owns page-cache regime prep (cold/warm/steady), residency, fs probes and the
 * pure stamp policy. It must never touch /proc/sys/vm/drop_caches nor files it was not named. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#if BENCH__LINUX
#include <sys/statfs.h>
#endif
#include <unistd.h>

#include "cache_regime.h"
#include "../platform/os.h"
#include "../util/alloc.h"
#include "../util/text.h"

#define WARM_CHUNK (64u * 1024u) /* read-through preload chunk */
#define MINCORE_VEC 4096u        /* pages per mincore call (bounded stack vector) */
#if BENCH__LINUX
#define OPEN_FOR_STAT (O_PATH | O_CLOEXEC) /* no read permission needed to ask the fs */
#else
#define OPEN_FOR_STAT (O_RDONLY | O_CLOEXEC)
#endif
#define PATH_SHOWN 120u /* bytes of a path quoted in a reason (its tail) */

/* ---- reasons ------------------------------------------------------------------------------ */

/* "<path>: <what>" into reason (first failure only: one reason suffices, the stamp downgrades
 * anyway). A long path is shown by its tail, prefixed with an ellipsis. */
static void set_reason(char *reason, size_t size, const char *path, const char *what, int err)
{
    if (reason[0] != '\0')
        return;
    const char *shown = path ? path : "(null path)";
    const char *dots = "";
    size_t len = strlen(shown);
    if (len > PATH_SHOWN) {
        shown += len - PATH_SHOWN;
        while (((unsigned char)*shown & 0xC0u) == 0x80u)
            shown++;
        dots = "\u2026";
    }
    if (err != 0)
        bench__fmt(reason, size, "%s%s: %s: %s", dots, shown, what, strerror(err));
    else
        bench__fmt(reason, size, "%s%s: %s", dots, shown, what);
}

/* ---- filesystem kind ----------------------------------------------------------------------- */

enum bench__fs_kind bench__fs_kind_of_magic(uint64_t f_type)
{
    if (f_type == BENCH__TMPFS_MAGIC || f_type == BENCH__RAMFS_MAGIC)
        return BENCH__FS_TMPFS;
    if (f_type == BENCH__ZFS_MAGIC)
        return BENCH__FS_ZFS;
    return BENCH__FS_OTHER;
}

enum bench__fs_kind bench__fs_kind_of_fd(int fd)
{
#if !BENCH__LINUX
    (void)fd; /* the filesystem magic numbers are Linux's statfs f_type */
    return BENCH__FS_UNKNOWN;
#else
    struct statfs sf;
    memset(&sf, 0, sizeof sf);
    if (bench__os.fstatfs(fd, &sf) != 0)
        return BENCH__FS_UNKNOWN;
    /* Zero-extend from the native word: f_type is a signed 32-bit word on 32-bit ABIs, where
     * ramfs's magic (top bit set) would otherwise sign-extend past every case. */
    uint64_t magic = (uint64_t)sf.f_type & (UINT64_MAX >> (64u - 8u * sizeof sf.f_type));
    return bench__fs_kind_of_magic(magic);
#endif
}

enum bench__fs_kind bench__fs_kind_of_path(const char *path)
{
    if (path == NULL)
        return BENCH__FS_UNKNOWN;
    int fd = bench__os.open(path, OPEN_FOR_STAT);
    if (fd < 0)
        return BENCH__FS_UNKNOWN;
    enum bench__fs_kind kind = bench__fs_kind_of_fd(fd);
    bench__os.close(fd);
    return kind;
}

/* ---- residency ----------------------------------------------------------------------------- */

static int errno_or(int fallback)
{
    return errno != 0 ? errno : fallback;
}

int bench__residency_pages(int fd, uint64_t *pages, uint64_t *resident)
{
    *pages = 0;
    *resident = 0;
    struct stat st;
    errno = 0;
    if (bench__os.fstat(fd, &st) != 0)
        return -errno_or(EIO);
    if (!S_ISREG(st.st_mode))
        return -EINVAL;
    if (st.st_size <= 0)
        return 0; /* empty: 0/0, and mmap of length 0 is EINVAL */
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0)
        return -EINVAL;
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX)
        return -EFBIG;
    size_t len = (size_t)st.st_size;
    uint64_t page = (uint64_t)ps;
    uint64_t npages = ((uint64_t)len + page - 1) / page;

    errno = 0;
    void *addr = bench__os.mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED)
        return -errno_or(ENOMEM);

    unsigned char vec[MINCORE_VEC];
    uint64_t res = 0;
    int rc = 0;
    for (uint64_t done = 0; done < npages;) {
        uint64_t chunk = npages - done < MINCORE_VEC ? npages - done : MINCORE_VEC;
        size_t off = (size_t)(done * page);
        size_t clen = done + chunk == npages ? len - off : (size_t)(chunk * page);
        errno = 0;
        if (bench__os.mincore((char *)addr + off, clen, vec) != 0) {
            rc = -errno_or(EIO);
            break;
        }
        for (uint64_t i = 0; i < chunk; i++)
            res += vec[i] & 1u;
        done += chunk;
    }
    bench__os.munmap(addr, len);
    if (rc != 0)
        return rc;
    *pages = npages;
    *resident = res;
    return 0;
}

double bench__residency(const int *fds, size_t n)
{
    uint64_t total = 0, resident = 0;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (fds[i] < 0)
            continue;
        uint64_t p, r;
        if (bench__residency_pages(fds[i], &p, &r) != 0)
            continue;
        total += p;
        resident += r;
        any = true;
    }
    return any && total > 0 ? (double)resident / (double)total : NAN;
}

/* ---- the pure policy ----------------------------------------------------------------------- */

/* A fraction as integral percent, truncated (a tiny epsilon keeps 0.29 from printing 28). */
static long long percent_of(double fraction)
{
    return (long long)floor(fraction * 100.0 + 1e-9);
}

void bench__regime_policy(enum bench_cache_regime requested, bool prep_ok, const char *prep_reason,
                          enum bench__fs_kind fs, bool mixed_fs, double before, double after,
                          struct bench__regime_stamp *out)
{
    memset(out, 0, sizeof *out);
    out->present = true;
    out->requested = requested;
    out->effective = requested;
    out->resident_before = before;
    out->resident_after = after;
    char *note = out->note;
    const size_t size = sizeof out->note;
    char buf[sizeof out->note];

    if (requested != BENCH_CACHE_COLD && requested != BENCH_CACHE_WARM) {
        /* steady: nothing was attempted; the fractions are disclosure only, but residency a
         * reader cannot trust still needs its caveat */
        if (fs == BENCH__FS_ZFS)
            bench__note_append(note, size, "zfs: page-cache residency does not reflect ARC state");
        else if (fs == BENCH__FS_UNKNOWN)
            bench__note_append(note, size, "fs type unprobed");
        goto mixed;
    }
    const bool cold = requested == BENCH_CACHE_COLD;

    if (!prep_ok) {
        out->effective = BENCH_CACHE_STEADY;
        /* the reason is cut (on a character boundary) so the verdict's tail always fits */
        static const char tail[] = ") \u2014 ran steady-state";
        const char *why = prep_reason && prep_reason[0] ? prep_reason : "prep failed";
        size_t max = sizeof buf - sizeof "cold unavailable (" - (sizeof tail - 1);
        bench__fmt(buf, sizeof buf, "%s unavailable (%.*s%s", cold ? "cold" : "warm",
                   (int)bench__utf8_cut(why, max), why, tail);
        bench__note_append(note, size, buf);
        goto mixed;
    }

    switch (fs) {
    case BENCH__FS_TMPFS:
        if (cold) {
            out->effective = BENCH_CACHE_STEADY;
            bench__note_append(note, size,
                               "cold impossible on tmpfs (the pages ARE the file) \u2014 ran "
                               "steady-state");
        }
        /* warm on tmpfs is trivially true: no note */
        goto mixed;
    case BENCH__FS_ZFS:
        /* mincore is blind on ZFS both ways (the ARC is not the page cache): thresholds are
         * suppressed, the fractions stay as disclosure */
        bench__note_append(note, size,
                           cold ? "zfs: ARC survives posix_fadvise \u2014 cold partial at best; "
                                  "page-cache residency shown, ARC unverifiable"
                                : "zfs: preload warms the ARC; page-cache residency does not "
                                  "reflect it");
        goto mixed;
    case BENCH__FS_OTHER:
    case BENCH__FS_UNKNOWN:
    default: break;
    }

    if (isnan(after)) {
        bench__note_append(note, size, "residency unverified (mincore unavailable)");
    } else if (cold && after > BENCH__COLD_RESIDENT_MAX) {
        out->effective = BENCH_CACHE_STEADY;
        bench__fmt(buf, sizeof buf,
                   "posix_fadvise did not evict (%lld%% resident \u2014 another process's "
                   "mapping?) \u2014 ran steady-state",
                   percent_of(after));
        bench__note_append(note, size, buf);
    } else if (!cold && after < BENCH__WARM_RESIDENT_MIN) {
        out->effective = BENCH_CACHE_STEADY;
        bench__fmt(buf, sizeof buf,
                   "preload did not stick (%lld%% resident) \u2014 memory pressure or file > "
                   "RAM?",
                   percent_of(after));
        bench__note_append(note, size, buf);
    }
    if (fs == BENCH__FS_UNKNOWN)
        bench__note_append(note, size, "fs type unprobed");

mixed:
    if (mixed_fs)
        bench__note_append(note, size,
                           "mixed filesystems \u2014 residency verification approximate");
}

/* ---- the prep ------------------------------------------------------------------------------ */

/* cold on one open file: flush dirty pages (DONTNEED silently skips them), then evict. */
static void prep_cold(int fd, const char *path, char *reason, size_t size)
{
    (void)bench__os.fdatasync(fd); /* a failure leaves pages dirty: the residency check sees it */
    int rc = bench__os.posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc != 0)
        set_reason(reason, size, path, "posix_fadvise failed", rc);
}

/* warm on one open file: an explicit read-through to EOF (never WILLNEED, which is a hint). */
static void prep_warm(int fd, const char *path, unsigned char *buf, char *reason, size_t size)
{
    for (;;) {
        errno = 0;
        ssize_t got = bench__os.read(fd, buf, WARM_CHUNK);
        if (got == 0)
            return;
        if (got > 0)
            continue;
        if (errno == EINTR)
            continue;
        set_reason(reason, size, path, "read failed", errno_or(EIO));
        return;
    }
}

void bench__regime_prepare(enum bench_cache_regime regime, const char *const *paths, size_t n,
                           struct bench__regime_stamp *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || paths == NULL)
        return; /* no paths: a no-op, nothing to stamp */
    const bool active = regime == BENCH_CACHE_COLD || regime == BENCH_CACHE_WARM;

    int small[16];
    int *fds = small;
    if (n > sizeof small / sizeof small[0])
        fds = bench__xcalloc(n, sizeof *fds);

    char reason[256] = "";
    enum bench__fs_kind first = BENCH__FS_UNKNOWN;
    bool probed = false, mixed = false, any_zfs = false;
    for (size_t i = 0; i < n; i++) {
        fds[i] = -1;
        const char *path = paths[i];
        if (path == NULL) {
            set_reason(reason, sizeof reason, path, "no path", 0);
            continue;
        }
        /* O_NONBLOCK: opening a FIFO without a writer must not hang */
        errno = 0;
        int fd = bench__os.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            set_reason(reason, sizeof reason, path, "open failed", errno_or(EIO));
            continue;
        }
        struct stat st;
        errno = 0;
        if (bench__os.fstat(fd, &st) != 0) {
            set_reason(reason, sizeof reason, path, "fstat failed", errno_or(EIO));
            bench__os.close(fd);
            continue;
        }
        if (!S_ISREG(st.st_mode)) {
            /* a FIFO would block a read, a device (/dev/zero) would never reach EOF */
            set_reason(reason, sizeof reason, path, "not a regular file", 0);
            bench__os.close(fd);
            continue;
        }
        fds[i] = fd;
        enum bench__fs_kind k = bench__fs_kind_of_fd(fd);
        if (!probed) {
            first = k;
            probed = true;
        } else if (k != first) {
            mixed = true;
        }
        if (k == BENCH__FS_ZFS)
            any_zfs = true;
    }
    /* the set's kind: any zfs makes the aggregate ARC-blind; a mixed set is otherwise other */
    enum bench__fs_kind kind = any_zfs ? BENCH__FS_ZFS : mixed ? BENCH__FS_OTHER : first;

    const double before = bench__residency(fds, n);
    bool prep_ok = reason[0] == '\0';
    if (active && prep_ok) {
        unsigned char *buf = regime == BENCH_CACHE_WARM ? bench__xmalloc(WARM_CHUNK) : NULL;
        for (size_t i = 0; i < n && reason[0] == '\0'; i++) {
            if (regime == BENCH_CACHE_COLD)
                prep_cold(fds[i], paths[i], reason, sizeof reason);
            else
                prep_warm(fds[i], paths[i], buf, reason, sizeof reason);
        }
        free(buf);
        prep_ok = reason[0] == '\0';
    }
    /* steady provably preserves residency: one probe fills both */
    const double after = active ? bench__residency(fds, n) : before;

    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0)
            bench__os.close(fds[i]);
    if (fds != small)
        free(fds);

    bench__regime_policy(regime, prep_ok, reason, kind, mixed, before, after, out);
}

/* ---- words --------------------------------------------------------------------------------- */
