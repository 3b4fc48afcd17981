/* SPDX-License-Identifier: MIT */
/* atomic_file.c: owns how libbench and its tools put a document on disk: a growable text buffer
 * (jansson's dump callback fits it), the check of a destination before anything runs, and the
 * atomic file write (a temporary file in the target's directory, fsync, rename; devices and FIFOs
 * written in place; the temporary removed on a fatal signal, and one a killed writer left behind
 * removed by the next write to the same target). It knows no document. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "atomic_file.h"
#include "text.h"

int bench__text_append(const char *bytes, size_t size, void *data)
{
    struct bench__text *b = data;
    if (size + 1 > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        while (size + 1 > cap - b->len)
            cap *= 2;
        b->data = bench__xrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, size);
    b->len += size;
    b->data[b->len] = '\0';
    return 0;
}

ssize_t (*bench__atomic_file_write)(int fd, const void *data, size_t len) = write;

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = bench__atomic_file_write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            return EIO;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

const char *bench__write_file_strerror(int e)
{
    if (e == BENCH__WRITE_DANGLING)
        return "a dangling symbolic link (refused: a link is never replaced by a file)";
    return strerror(e);
}

/* ---- the temporary file's name -------------------------------------------------------- */

/* A temporary is ".<tag>.<pid>.XXXXXX" in the target's directory: 19 bytes around the tag (a
 * pid has at most 10 digits), so the name fits whatever the target's name length. */
#define TEMP_AROUND_TAG 19

/* The longest file name the directory takes (at most NAME_MAX, which the kernel enforces). */
static size_t name_max(const char *dir)
{
    long n = pathconf(dir, _PC_NAME_MAX);
    return n > 0 && n < NAME_MAX ? (size_t)n : NAME_MAX;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The tag of a target's temporaries: its name when the temporary name then fits the directory;
 * otherwise the longest prefix that does, with "~" and a hash of the whole name (so two long
 * names that share the prefix still have their own tags). */
static void temp_tag(const char *base, size_t max, char tag[NAME_MAX + 1])
{
    size_t room = max > TEMP_AROUND_TAG + 9 ? max - TEMP_AROUND_TAG : 9;
    if (strlen(base) <= room) {
        memcpy(tag, base, strlen(base) + 1);
        return;
    }
    size_t keep = bench__utf8_cut(base, room - 9);
    snprintf(tag, NAME_MAX + 1, "%.*s~%08x", (int)keep, base, (unsigned)fnv1a(base));
}

static bool ascii_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Is `entry` a temporary of this tag (".<tag>.<digits>.<6 letters or digits>")? Its pid too. */
static bool temp_of(const char *entry, const char *tag, pid_t *pid)
{
    size_t t = strlen(tag);
    if (entry[0] != '.' || strncmp(entry + 1, tag, t) != 0 || entry[1 + t] != '.')
        return false;
    const char *p = entry + 2 + t, *digits = p;
    uint64_t v = 0;
    while (*p >= '0' && *p <= '9' && p - digits < 10)
        v = v * 10 + (uint64_t)(*p++ - '0');
    if (p == digits || *p != '.' || v == 0 || v > INT_MAX)
        return false;
    p++;
    for (int i = 0; i < 6; i++)
        if (!ascii_alnum(p[i]))
            return false;
    if (p[6] != '\0')
        return false;
    *pid = (pid_t)v;
    return true;
}

/* Remove the temporaries of this tag that a killed writer left: a regular file of ours whose
 * writing process is gone (the pid in its name names no process) and that no process holds
 * locked (a writer locks its temporary: this covers a pid from another pid namespace, or a
 * writer on another host of a shared directory). Anything else is left alone. */
static void remove_left_over(const char *dir, const char *tag)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        pid_t pid;
        if (!temp_of(de->d_name, tag, &pid) || pid == getpid())
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue; /* its writer may still be at work */
        struct stat st, fst;
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        int fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        /* held: a writer is at work; no locking here (ENOLCK...): the pid test alone */
        bool unlocked = flock(fd, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK;
        if (unlocked && fstat(fd, &fst) == 0 && fst.st_dev == st.st_dev && fst.st_ino == st.st_ino)
            unlinkat(dfd, de->d_name, 0);
        close(fd);
    }
    closedir(d);
}

/* ---- removal on a fatal signal ---------------------------------------------------------- */

/* The signals whose default action would end the process in the middle of a write. */
static const int fatal_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGXFSZ};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])

static char armed_path[PATH_MAX];
static volatile sig_atomic_t armed;
static atomic_flag guard_busy = ATOMIC_FLAG_INIT;

/* Remove the temporary, then let the signal's default action go on (async-signal-safe). */
static void remove_then_die(int sig)
{
    int saved = errno;
    if (armed) {
        armed = 0;
        unlink(armed_path);
    }
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* blocked while this handler runs: delivered, by default, when it returns */
    errno = saved;
}

struct guard {
    bool active;
    bool installed[N_FATAL];
    struct sigaction saved[N_FATAL];
    sigset_t set;
};

/* Handle the fatal signals left at their default action (a program's own handler or SIG_IGN is
 * kept: then the signal does not end the write). One write at a time is covered; a concurrent
 * one in another thread leaves its temporary to the next write's clean-up. */
static void guard_begin(struct guard *g)
{
    memset(g, 0, sizeof *g);
    sigemptyset(&g->set);
    if (atomic_flag_test_and_set(&guard_busy))
        return;
    g->active = true;
    struct sigaction act = {.sa_handler = remove_then_die};
    sigemptyset(&act.sa_mask);
    for (size_t i = 0; i < N_FATAL; i++)
        sigaddset(&act.sa_mask, fatal_signals[i]);
    for (size_t i = 0; i < N_FATAL; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) ||
            old.sa_handler != SIG_DFL)
            continue;
        if (sigaction(fatal_signals[i], &act, &g->saved[i]) == 0) {
            g->installed[i] = true;
            sigaddset(&g->set, fatal_signals[i]);
        }
    }
}

static void guard_end(struct guard *g)
{
    if (!g->active)
        return;
    armed = 0;
    for (size_t i = 0; i < N_FATAL; i++)
        if (g->installed[i])
            sigaction(fatal_signals[i], &g->saved[i], NULL);
    atomic_flag_clear(&guard_busy);
}

/* ---- the target ------------------------------------------------------------------------ */

/* What bench__write_file_from's producer writes through: write_all on the descriptor. */
static int put_fd(void *sink, const char *data, size_t len)
{
    return write_all(*(const int *)sink, data, len);
}

/* A device or a FIFO: there is nothing to replace, so write in place. */
static int write_direct(const char *path, bench__write_producer produce, void *ctx)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = produce(ctx, put_fd, &fd);
    if (close(fd) != 0 && e == 0 && errno != EINTR)
        e = errno;
    return e;
}

/* The process umask, read without changing it where the kernel tells (Linux >= 4.7). */
static mode_t current_umask(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (f) {
        char line[256];
        unsigned mask;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "Umask: %o", &mask) == 1) {
                fclose(f);
                return (mode_t)(mask & 0777u);
            }
        }
        fclose(f);
    }
    mode_t mask = umask(022);
    umask(mask);
    return mask;
}

/* What a write does with a path. */
enum target_kind {
    TARGET_REPLACE, /* a regular file (or none yet) at `target`: temporary and rename */
    TARGET_DIRECT,  /* a device or a FIFO: written in place */
};

/* Follow a link to what it names; refuse a directory, a dangling or a looping link. On success
 * *target is the file to replace (malloc'd) or NULL to write `path` in place. */
static int resolve(const char *path, char **target, enum target_kind *kind)
{
    *target = NULL;
    struct stat lst, st;
    if (lstat(path, &lst) != 0) {
        if (errno != ENOENT)
            return errno;
        *kind = TARGET_REPLACE; /* a new file (its directory is checked when it is created) */
        *target = bench__xstrdup(path);
        return 0;
    }
    st = lst;
    if (S_ISLNK(lst.st_mode) && stat(path, &st) != 0)
        return errno == ENOENT ? BENCH__WRITE_DANGLING : errno; /* ELOOP: a loop */
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode)) {
        *kind = TARGET_DIRECT;
        return 0;
    }
    *kind = TARGET_REPLACE;
    /* a link to a regular file: replace the file it names and keep the link */
    *target = S_ISLNK(lst.st_mode) ? realpath(path, NULL) : bench__xstrdup(path);
    return *target ? 0 : errno ? errno : ENOMEM;
}

/* The target's directory ("." for a bare name) and the temporary's template beside it. */
struct temp_name {
    char *dir;
    const char *base;
    char *path; /* "<dir>/.<tag>.<pid>.XXXXXX" (no "./" for a bare name) */
    char tag[NAME_MAX + 1];
};

static int temp_name_make(struct temp_name *t, const char *target)
{
    memset(t, 0, sizeof *t);
    const char *slash = strrchr(target, '/');
    t->base = slash ? slash + 1 : target;
    size_t dir_len = slash ? (size_t)(slash - target) : 0;
    t->dir = slash ? bench__xstrndup(target, dir_len ? dir_len : 1) : bench__xstrdup(".");
    if (*t->base == '\0')
        return EISDIR;
    size_t max = name_max(t->dir);
    if (strlen(t->base) > max)
        return ENAMETOOLONG;
    temp_tag(t->base, max, t->tag);
    size_t prefix = slash ? (size_t)(t->base - target) : 0;
    t->path = bench__xasprintf("%.*s.%s.%ld.XXXXXX", (int)prefix, target, t->tag, (long)getpid());
    return 0;
}

static void temp_name_free(struct temp_name *t)
{
    free(t->dir);
    free(t->path);
}

/* Write .<tag>.<pid>.XXXXXX next to target, make it durable, rename it over target. On failure,
 * or on a fatal signal meanwhile, the temporary file is gone and target untouched. */
static int write_replace(const char *target, bench__write_producer produce, void *ctx)
{
    struct temp_name t;
    int e = temp_name_make(&t, target);
    if (e) {
        temp_name_free(&t);
        return e;
    }
    remove_left_over(t.dir, t.tag);
    struct guard g;
    guard_begin(&g);
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &g.set, &old);
    int fd = mkostemp(t.path, O_CLOEXEC);
    if (fd < 0) {
        e = errno;
    } else {
        (void)flock(fd, LOCK_EX | LOCK_NB); /* "a writer is at work" (see remove_left_over) */
        if (g.active && strlen(t.path) < sizeof armed_path) {
            memcpy(armed_path, t.path, strlen(t.path) + 1);
            armed = 1;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd >= 0) {
        if (fchmod(fd, 0644 & ~current_umask()) != 0)
            e = errno;
        if (e == 0)
            e = produce(ctx, put_fd, &fd);
        if (e == 0 && fsync(fd) != 0)
            e = errno;
        if (close(fd) != 0 && e == 0 && errno != EINTR)
            e = errno;
        pthread_sigmask(SIG_BLOCK, &g.set, &old);
        if (e == 0 && rename(t.path, target) != 0)
            e = errno;
        if (e != 0)
            unlink(t.path);
        armed = 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    guard_end(&g);
    temp_name_free(&t);
    return e;
}

int bench__write_file_from(const char *path, bench__write_producer produce, void *ctx)
{
    char *target;
    enum target_kind kind;
    int e = resolve(path, &target, &kind);
    if (e == 0)
        e = kind == TARGET_DIRECT ? write_direct(path, produce, ctx)
                                  : write_replace(target, produce, ctx);
    free(target);
    return e;
}

struct whole {
    const char *data;
    size_t len;
};

static int put_whole(void *ctx, int (*put)(void *sink, const char *data, size_t len), void *sink)
{
    const struct whole *w = ctx;
    return put(sink, w->data, w->len);
}

int bench__write_file(const char *path, const char *data, size_t len)
{
    struct whole w = {data, len};
    return bench__write_file_from(path, put_whole, &w);
}

/* ---- the check before a run ---------------------------------------------------------------- */

BENCH_PRINTF(3, 4) static int refuse(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(why, size, fmt, ap);
    va_end(ap);
    bench__sanitize(why);
    return -1;
}

/* Can a file be created in the target's directory? A temporary of the target's own pattern is
 * created and removed at once: the one test that covers permissions, read-only mounts and
 * directories such as /proc alike. */
static int check_replace(const char *target, char *why, size_t size)
{
    struct temp_name t;
    int e = temp_name_make(&t, target);
    int rc = 0;
    struct stat st;
    if (e == ENAMETOOLONG)
        rc = refuse(why, size, "the file name is %zu bytes long (at most %zu in '%s')",
                    strlen(t.base), name_max(t.dir), t.dir);
    else if (e)
        rc = refuse(why, size, "%s", strerror(e));
    else if (stat(t.dir, &st) != 0)
        rc = errno == ENOENT ? refuse(why, size, "the directory '%s' does not exist", t.dir)
                             : refuse(why, size, "'%s': %s", t.dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = refuse(why, size, "'%s' is not a directory", t.dir);
    else {
        int fd = mkostemp(t.path, O_CLOEXEC);
        if (fd < 0)
            rc = refuse(why, size, "no file can be created in '%s': %s", t.dir, strerror(errno));
        else {
            close(fd);
            unlink(t.path);
        }
    }
    temp_name_free(&t);
    return rc;
}

int bench__write_file_check(const char *path, char *why, size_t size)
{
    if (strlen(path) >= PATH_MAX)
        return refuse(why, size, "the path is %zu bytes long (at most %d)", strlen(path),
                      PATH_MAX - 1);
    char *target;
    enum target_kind kind;
    int e = resolve(path, &target, &kind);
    int rc = 0;
    if (e == BENCH__WRITE_DANGLING) {
        char to[PATH_MAX];
        ssize_t n = readlink(path, to, sizeof to - 1);
        to[n > 0 ? n : 0] = '\0';
        rc = refuse(why, size,
                    "it is a dangling symbolic link (to '%s'): refused, a link is never replaced "
                    "by a file",
                    to);
    } else if (e == ELOOP) {
        rc = refuse(why, size, "it is a symbolic link that loops: refused");
    } else if (e == EISDIR) {
        rc = refuse(why, size, "it is a directory");
    } else if (e == ENAMETOOLONG) {
        rc = check_replace(path, why, size); /* says which name is too long */
    } else if (e) {
        rc = refuse(why, size, "%s", strerror(e));
    } else if (kind == TARGET_DIRECT) {
        if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0)
            rc = refuse(why, size, "%s", strerror(errno));
    } else {
        rc = check_replace(target, why, size);
    }
    free(target);
    return rc;
}
