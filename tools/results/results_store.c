/* SPDX-License-Identifier: MIT */
/* results_store.c: owns the results store on disk (docs/reference/results.md, "The store"): its
 * directory opened once, and every file under it reached from that descriptor one directory at a
 * time without following a symbolic link (each one refused and named); a raw object written once
 * (an unnamed O_TMPFILE linked to its name: a kill leaves nothing behind, an existing object is
 * never replaced, and one found at the key is checked byte for byte); an ingest error written next
 * to the raw objects; the files under raw/ listed; the index file's place (its checks before it
 * is opened, and a rebuilt index swapped in with a damaged one kept aside). A PostgreSQL store
 * (st->pg) has its raw objects, ingest errors and index on the server (results_pg.c,
 * results_index_pg.c) and no directory. It holds no SQL (results_index.h) and reads no line
 * (results_ingest.c). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results_tool.h"
#include "common/file.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

#define LIST_DEPTH_MAX 16 /* raw/v1/profile=/date=/bench_id=/sha256=/results.jsonl is 7 deep */

int results_store_open(const char *dir, bool create, struct results_store *st, char *err,
                       size_t err_size)
{
    memset(st, 0, sizeof *st);
    st->fd = -1;
    st->dir = dir;
    if (results_location_is_pg(dir)) {
#ifdef LIBBENCH_HAVE_PG
        return results_pg_store_open(dir, st, err, err_size);
#else
        return tool_json_error(err, err_size, "this libbench was built without libpq (libpq-dev)");
#endif
    }
    if (create && mkdir(dir, 0777) != 0 && errno != EEXIST)
        return tool_json_error(err, err_size, "cannot create %s: %s", dir, strerror(errno));
    st->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (st->fd < 0) {
        if (errno == ENOENT && !create)
            return 1;
        return tool_json_error(err, err_size, "cannot open %s: %s", dir, strerror(errno));
    }
    char real[PATH_MAX];
    if (!realpath(dir, real)) {
        int e = errno;
        results_store_close(st);
        return tool_json_error(err, err_size, "cannot resolve %s: %s", dir, strerror(e));
    }
    st->real = bench__xstrdup(real);
    return 0;
}

void results_store_close(struct results_store *st)
{
    if (st->fd >= 0)
        close(st->fd);
    free(st->real);
#ifdef LIBBENCH_HAVE_PG
    results_pg_close(st->pg);
#endif
    st->pg = NULL;
    st->fd = -1;
    st->real = NULL;
}

/* What a non-directory is, for "DIR/x is <kind>, not a directory of the store". */
static const char *kind_at(int dirfd, const char *name)
{
    struct stat sb;
    if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return NULL;
    const char *kind = tool_file_kind(sb.st_mode);
    return kind ? kind : "a file";
}

/* The directory of the first rel_len bytes of rel ("raw/v1/..."), each part opened from the one
 * before without following a symbolic link, created when `create`: its descriptor, or -1 with
 * the reason (a missing part: errno ENOENT). */
static int open_dirs(const struct results_store *st, const char *rel, size_t rel_len, bool create,
                     char *err, size_t size)
{
    int fd = openat(st->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return tool_json_error(err, size, "cannot open %s: %s", st->dir, strerror(errno));
    for (size_t at = 0; at < rel_len;) {
        const char *slash = memchr(rel + at, '/', rel_len - at);
        size_t end = slash ? (size_t)(slash - rel) : rel_len;
        char part[NAME_MAX + 1];
        if (end - at > NAME_MAX || end == at) {
            close(fd);
            return tool_json_error(err, size, "%s/%.*s: not a path of the store", st->dir,
                                   (int)rel_len, rel);
        }
        memcpy(part, rel + at, end - at);
        part[end - at] = '\0';
        int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && create) {
            if (mkdirat(fd, part, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                close(fd);
                return tool_json_error(err, size, "cannot create %s/%.*s: %s", st->dir, (int)end,
                                       rel, strerror(e));
            }
            next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0) {
            int e = errno;
            const char *kind = e == ELOOP || e == ENOTDIR ? kind_at(fd, part) : NULL;
            close(fd);
            if (kind)
                tool_json_error(err, size,
                                "%s/%.*s is %s, not a directory of the store (not followed)",
                                st->dir, (int)end, rel, kind);
            else
                tool_json_error(err, size, "cannot open %s/%.*s: %s", st->dir, (int)end, rel,
                                strerror(e));
            errno = e;
            return -1;
        }
        close(fd);
        fd = next;
        at = end + 1;
    }
    return fd;
}

int results_store_read(const struct results_store *st, const char *rel, char **text, size_t *len,
                       char *err, size_t err_size)
{
    *text = NULL;
    *len = 0;
#ifdef LIBBENCH_HAVE_PG
    if (st->pg)
        return results_pg_read(st->pg, rel, text, len, err, err_size);
#endif
    const char *slash = strrchr(rel, '/');
    size_t dir_len = slash ? (size_t)(slash - rel) : 0;
    int dfd = open_dirs(st, rel, dir_len, false, err, err_size);
    if (dfd < 0)
        return -1;
    int rc = tool_read_file_at(dfd, slash ? slash + 1 : rel, true, RESULTS_OBJECT_MAX_BYTES, text,
                               len, err, err_size);
    close(dfd);
    return rc;
}

/* Whether the file `name` in dfd holds exactly text: 1, or 0 with why it does not in err. */
static int same_bytes(int dfd, const char *shown, const char *name, const char *text, size_t len,
                      char *err, size_t size)
{
    char *have, why[200];
    size_t have_len;
    if (tool_read_file_at(dfd, name, true, RESULTS_OBJECT_MAX_BYTES, &have, &have_len, why,
                          sizeof why) != 0) {
        tool_json_error(err, size, "%s is there but is not the store's: %s", shown,
                        why + (strncmp(why, "cannot read: ", 13) ? 0 : 13));
        return 0;
    }
    bool same = have_len == len && memcmp(have, text, len) == 0;
    free(have);
    if (!same)
        tool_json_error(err, size,
                        "%s is there with other bytes: it was altered after it was written (its "
                        "content no longer matches its key); nothing was recorded",
                        shown);
    return same;
}

/* A new file in dfd with text, fsynced and read-only, not yet named: its descriptor, and in
 * tmp_name the hidden name it has where the file system has no O_TMPFILE ("" otherwise). */
static int unnamed_file(int dfd, bool named, const char *text, size_t len, char tmp_name[64])
{
    static unsigned counter;
    int fd = -1;
    tmp_name[0] = '\0';
    errno = EOPNOTSUPP;
#ifdef O_TMPFILE
    if (!named)
        fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0444);
#endif
    for (int tries = 0; fd < 0 && named && tries < 1000; tries++) {
        snprintf(tmp_name, 64, ".tmp.%ld.%u", (long)getpid(), counter++);
        fd = openat(dfd, tmp_name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        tmp_name[0] = '\0';
        return -1;
    }
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            if (tmp_name[0])
                unlinkat(dfd, tmp_name, 0);
            errno = e;
            return -1;
        }
        done += (size_t)w;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        if (tmp_name[0])
            unlinkat(dfd, tmp_name, 0);
        errno = e;
        return -1;
    }
    return fd;
}

/* Writes dir/rel once: 0 written, 1 it was there with the same bytes, -1 with the reason (also
 * when a file with other bytes, a symbolic link or anything else is at rel). */
static int write_once(const struct results_store *st, const char *rel, const char *text, size_t len,
                      char *err, size_t size)
{
    const char *slash = strrchr(rel, '/');
    const char *name = slash ? slash + 1 : rel;
    char *shown = bench__xasprintf("%s/%s", st->dir, rel);
    int dfd = open_dirs(st, rel, slash ? (size_t)(slash - rel) : 0, true, err, size);
    int rc = -1;
    for (int named = 0; dfd >= 0 && named < 2; named++) {
        char tmp[64];
        int fd = unnamed_file(dfd, named, text, len, tmp);
        if (fd < 0 && !named && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
            continue; /* no O_TMPFILE here: a hidden name */
        if (fd < 0) {
            tool_json_error(err, size, "cannot write %s: %s", shown, strerror(errno));
            break;
        }
        int linked;
        if (tmp[0]) {
            linked = linkat(dfd, tmp, dfd, name, 0);
        } else {
            char proc[64];
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
            linked = linkat(AT_FDCWD, proc, dfd, name, AT_SYMLINK_FOLLOW);
        }
        int e = errno;
        close(fd);
        if (tmp[0])
            unlinkat(dfd, tmp, 0);
        if (linked != 0 && !tmp[0] && e == ENOENT)
            continue; /* no /proc to name the unnamed file: a hidden name */
        if (linked == 0) {
            fsync(dfd);
            rc = 0;
        } else if (e == EEXIST) {
            rc = same_bytes(dfd, shown, name, text, len, err, size) ? 1 : -1;
        } else {
            tool_json_error(err, size, "cannot create %s: %s", shown, strerror(e));
        }
        break;
    }
    if (dfd >= 0)
        close(dfd);
    free(shown);
    return rc;
}

int results_store_put_object(const struct results_store *st, const char *key, const char *text,
                             size_t len, char *err, size_t err_size)
{
#ifdef LIBBENCH_HAVE_PG
    if (st->pg) {
        char hex[65];
        tool_sha256_hex(text, len, hex);
        return results_pg_put(st->pg, "raw", key, hex, text, len, err, err_size);
    }
#endif
    return write_once(st, key, text, len, err, err_size);
}

int results_store_put_error(const struct results_store *st, const char *profile, const char *date,
                            const char *bench_id, json_t *error_doc, char **path_out, char *err,
                            size_t err_size)
{
    struct bench__text t = {0};
    *path_out = NULL;
    tool_json_dump(error_doc, &t);
    char hex[65];
    tool_sha256_hex(t.data, t.len, hex);
    char *rel = profile && date && bench_id
                    ? bench__xasprintf("ingest-errors/v1/profile=%s/date=%s/bench_id=%s/"
                                       "sha256=%.12s.json",
                                       profile, date, bench_id, hex)
                    : bench__xasprintf("ingest-errors/v1/unkeyed/sha256=%.12s.json", hex);
    int rc;
#ifdef LIBBENCH_HAVE_PG
    if (st->pg)
        rc = results_pg_put(st->pg, "errors", rel, NULL, t.data, t.len, err, err_size) < 0 ? -1 : 0;
    else
#endif
        rc = write_once(st, rel, t.data, t.len, err, err_size);
    free(t.data);
    if (rc < 0) {
        free(rel);
        return -1;
    }
    *path_out = rel;
    return 0;
}

/* ---- listing raw/ ---- */

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct results_entry *)a)->key, ((const struct results_entry *)b)->key);
}

/* A hidden ".tmp.<pid>.<n>" of a process that is gone: what a killed record left where the file
 * system has no O_TMPFILE. */
static bool stale_temporary(const char *name)
{
    if (strncmp(name, ".tmp.", 5) != 0)
        return false;
    char *end;
    long pid = strtol(name + 5, &end, 10);
    return pid > 0 && *end == '.' && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void add_entry(struct results_entry **list, size_t *n, size_t *cap, char *key,
                      const char *refused)
{
    *list = bench__grow(*list, cap, *n + 1, sizeof **list);
    (*list)[(*n)++] = (struct results_entry){key, refused};
}

/* Every entry under the directory dfd (rel: its path under the store), in no order. */
static int list_dir(int dfd, const char *rel, int depth, struct results_entry **list, size_t *n,
                    size_t *cap, char *err, size_t size)
{
    int own = dup(dfd);
    DIR *d = own >= 0 ? fdopendir(own) : NULL;
    if (!d) {
        if (own >= 0)
            close(own);
        return tool_json_error(err, size, "cannot read %s: %s", rel, strerror(errno));
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d))) {
        if (de->d_name[0] == '.') { /* ".", "..", and temporaries (skipped by every reader) */
            if (stale_temporary(de->d_name))
                unlinkat(dfd, de->d_name, 0);
            continue;
        }
        char *child = bench__xasprintf("%s/%s", rel, de->d_name);
        unsigned type = de->d_type;
        struct stat sb;
        if (type == DT_UNKNOWN && fstatat(dfd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
            type = S_ISDIR(sb.st_mode)   ? DT_DIR
                   : S_ISREG(sb.st_mode) ? DT_REG
                   : S_ISLNK(sb.st_mode) ? DT_LNK
                                         : DT_FIFO;
        if (type == DT_DIR && depth < LIST_DEPTH_MAX) {
            int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                rc = list_dir(sub, child, depth + 1, list, n, cap, err, size);
                close(sub);
                free(child);
                continue;
            }
            add_entry(list, n, cap, child, "a directory that cannot be read");
        } else if (type == DT_DIR) {
            add_entry(list, n, cap, child, "a directory deeper than any raw object's");
        } else if (type == DT_REG) {
            add_entry(list, n, cap, child, NULL);
        } else if (type == DT_LNK) {
            add_entry(list, n, cap, child, "a symbolic link, not followed");
        } else {
            add_entry(list, n, cap, child,
                      type == DT_FIFO ? "a FIFO, not a regular file" : "not a regular file");
        }
    }
    closedir(d);
    return rc;
}

int results_store_list(const struct results_store *st, struct results_entry **list, size_t *n,
                       char *err, size_t err_size)
{
    size_t cap = 0;
    *list = NULL;
    *n = 0;
#ifdef LIBBENCH_HAVE_PG
    if (st->pg) { /* in byte order from the server */
        char **keys;
        size_t n_keys;
        if (results_pg_list(st->pg, &keys, &n_keys, err, err_size) != 0)
            return -1;
        for (size_t i = 0; i < n_keys; i++)
            add_entry(list, n, &cap, keys[i], NULL);
        free(keys);
        return 0;
    }
#endif
    int dfd = open_dirs(st, "raw", 3, false, err, err_size);
    if (dfd < 0)
        return errno == ENOENT ? 0 : -1;
    int rc = list_dir(dfd, "raw", 1, list, n, &cap, err, err_size);
    close(dfd);
    if (*n)
        qsort(*list, *n, sizeof **list, entry_cmp);
    return rc;
}

void results_entries_free(struct results_entry *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i].key);
    free(list);
}

/* ---- the index file's place ---- */

int results_store_index_check(const struct results_store *st, bool *exists, char *err,
                              size_t err_size)
{
    struct stat sb;
    *exists = false;
    if (fstatat(st->fd, RESULTS_INDEX_FILE, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return 0;
        return tool_json_error(err, err_size, "cannot read %s/%s: %s", st->dir, RESULTS_INDEX_FILE,
                               strerror(errno));
    }
    *exists = true;
    const char *kind = tool_file_kind(sb.st_mode);
    if (!kind)
        return 0;
    return tool_json_error(err, err_size,
                           "%s/%s is %s, not an index (not followed): libbench results rebuild "
                           "--results %s replaces it and keeps it aside",
                           st->dir, RESULTS_INDEX_FILE, kind, st->dir);
}

char *results_store_index_path(const struct results_store *st, const char *name)
{
    return bench__xasprintf("%s/%s", st->real, name);
}

/* Whether a ".index-rebuild.<pid>..." file belongs to a process that is gone. */
static bool stale_rebuild(const char *name)
{
    const char *prefix = "." RESULTS_INDEX_FILE ".rebuild.";
    if (strncmp(name, prefix, strlen(prefix)) != 0)
        return false;
    char *end;
    long pid = strtol(name + strlen(prefix), &end, 10);
    return pid > 0 && (*end == '\0' || *end == '-') && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

void results_store_remove_index(const struct results_store *st, const char *name)
{
    char *journal = bench__xasprintf("%s-journal", name);
    unlinkat(st->fd, name, 0);
    unlinkat(st->fd, journal, 0);
    free(journal);
}

char *results_store_rebuild_name(const struct results_store *st)
{
    int own = dup(st->fd);
    DIR *d = own >= 0 ? fdopendir(own) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (stale_rebuild(de->d_name))
            unlinkat(st->fd, de->d_name, 0);
    if (d)
        closedir(d);
    else if (own >= 0)
        close(own);
    char *name = bench__xasprintf("." RESULTS_INDEX_FILE ".rebuild.%ld", (long)getpid());
    results_store_remove_index(st, name); /* an earlier process of the same pid's */
    return name;
}

/* Renames `from` to `to` in the store's directory, never over an existing file. */
static int rename_new(const struct results_store *st, const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(st->fd, from, st->fd, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
#endif
    if (faccessat(st->fd, to, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
        errno = EEXIST;
        return -1;
    }
    return renameat(st->fd, from, st->fd, to);
}

int results_store_swap_index(const struct results_store *st, const char *fresh, bool damaged,
                             const char *stamp, char **aside, char *err, size_t err_size)
{
    *aside = NULL;
    if (!damaged) { /* no index there: the new one takes its place, never over one made since */
        if (rename_new(st, fresh, RESULTS_INDEX_FILE) != 0)
            return errno == EEXIST ? 1
                                   : tool_json_error(err, err_size, "cannot rename %s/%s: %s",
                                                     st->dir, fresh, strerror(errno));
        fsync(st->fd);
        return 0;
    }
    char *name = NULL;
    for (int k = 0; k < 100 && !name; k++) {
        name = k ? bench__xasprintf("%s.damaged-%s-%d", RESULTS_INDEX_FILE, stamp, k)
                 : bench__xasprintf("%s.damaged-%s", RESULTS_INDEX_FILE, stamp);
        if (faccessat(st->fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) {
            free(name);
            name = NULL;
        }
    }
    if (!name)
        return tool_json_error(err, err_size, "no free name to keep the damaged index aside");
    /* its journal first: a hot journal left there would be played into the new index */
    char *journal = bench__xasprintf("%s-journal", RESULTS_INDEX_FILE);
    char *journal_aside = bench__xasprintf("%s-journal", name);
    int rc = 0;
    if (renameat(st->fd, journal, st->fd, journal_aside) != 0 && errno != ENOENT)
        rc = tool_json_error(err, err_size, "cannot keep %s/%s aside: %s", st->dir, journal,
                             strerror(errno));
    bool swapped = false;
#ifdef RENAME_EXCHANGE
    if (rc == 0 && renameat2(st->fd, fresh, st->fd, RESULTS_INDEX_FILE, RENAME_EXCHANGE) == 0) {
        swapped = true; /* in one step; the damaged one now has the fresh one's name */
        if (renameat(st->fd, fresh, st->fd, name) != 0)
            rc = tool_json_error(err, err_size, "cannot rename %s/%s: %s", st->dir, fresh,
                                 strerror(errno));
    }
#endif
    if (rc == 0 && !swapped &&
        (renameat(st->fd, RESULTS_INDEX_FILE, st->fd, name) != 0 ||
         renameat(st->fd, fresh, st->fd, RESULTS_INDEX_FILE) != 0))
        rc = tool_json_error(err, err_size, "cannot replace %s/%s: %s", st->dir, RESULTS_INDEX_FILE,
                             strerror(errno));
    fsync(st->fd);
    free(journal);
    free(journal_aside);
    if (rc != 0) {
        free(name);
        return -1;
    }
    *aside = name;
    return 0;
}
