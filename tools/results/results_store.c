/* SPDX-License-Identifier: MIT */
/* results_store.c: owns the results store on disk (docs/reference/results.md, "The store"): a raw
 * object written once (a temporary file linked to its name, so an existing object is never
 * replaced), an ingest error written next to the raw objects, an object read back into the index
 * with the aggregates and comparisons recomputed, and the index rebuilt from raw/ alone. It holds
 * no SQL (results_index.h) and no statistics (lib/stats/results.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_tool.h"
#include "results_index.h"
#include "results_tool.h"
#include "common/file.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

/* mkdir -p of the directories of path after its first `skip` bytes. */
static int make_dirs(char *path, size_t skip, char *err, size_t size)
{
    for (char *p = path + skip; *p; p++) {
        if (*p != '/' || p == path)
            continue;
        *p = '\0';
        int rc = mkdir(path, 0777);
        int e = errno;
        *p = '/';
        if (rc != 0 && e != EEXIST) {
            *p = '\0';
            tool_json_error(err, size, "cannot create %s: %s", path, strerror(e));
            *p = '/';
            return -1;
        }
    }
    return 0;
}

/* Writes dir/rel once: a temporary file in the same directory, fsynced, then linked to its name
 * (link(2) never replaces an existing file). 0 written, 1 it was there, -1 error. */
static int write_once(const char *dir, const char *rel, const char *text, size_t len, char *err,
                      size_t size)
{
    char *path = bench__xasprintf("%s/%s", dir, rel);
    if (make_dirs(path, 0, err, size) != 0) {
        free(path);
        return -1;
    }
    char *slash = strrchr(path, '/');
    char *tmp = bench__xasprintf("%.*s/.tmp.%ld.XXXXXX", (int)(slash - path), path, (long)getpid());
    int rc = -1;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        tool_json_error(err, size, "cannot create a file next to %s: %s", path, strerror(errno));
        goto out;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            tool_json_error(err, size, "cannot write %s: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            goto out;
        }
        done += (size_t)w;
    }
    if (fchmod(fd, 0444) != 0 || fsync(fd) != 0) {
        tool_json_error(err, size, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    close(fd);
    if (link(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        if (e == EEXIST) {
            rc = 1;
            goto out;
        }
        tool_json_error(err, size, "cannot create %s: %s", path, strerror(e));
        goto out;
    }
    unlink(tmp);
    *slash = '\0';
    int dfd = open(path, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    rc = 0;
out:
    free(tmp);
    free(path);
    return rc;
}

int results_store_put_object(const char *dir, const char *key, const char *text, size_t len,
                             char *err, size_t err_size)
{
    return write_once(dir, key, text, len, err, err_size);
}

int results_store_put_error(const char *dir, const char *profile, const char *date,
                            const char *bench_id, json_t *error_doc, char **path_out, char *err,
                            size_t err_size)
{
    struct bench__text t = {0};
    *path_out = NULL;
    tool_json_dump(error_doc, &t);
    char hex[65];
    results_sha256_hex(t.data, t.len, hex);
    char *rel = profile && date && bench_id
                    ? bench__xasprintf("ingest-errors/v1/profile=%s/date=%s/bench_id=%s/"
                                       "sha256=%.12s.json",
                                       profile, date, bench_id, hex)
                    : bench__xasprintf("ingest-errors/v1/unkeyed/sha256=%.12s.json", hex);
    int rc = write_once(dir, rel, t.data, t.len, err, err_size);
    free(t.data);
    if (rc < 0) {
        free(rel);
        return -1;
    }
    *path_out = rel;
    return 0;
}

/* The index at dir/index.sqlite, opened as it is (stale or not). */
static int open_index(const char *dir, struct results_index **ix, char *err, size_t err_size)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return tool_json_error(err, err_size, "cannot create %s: %s", dir, strerror(errno));
    char *path = bench__xasprintf("%s/index.sqlite", dir);
    int rc = results_index_open(path, ix, err, err_size);
    free(path);
    return rc;
}

/* ---- reading an object into the index ---- */

/* The text of a rejected line for its error document: itself when it is UTF-8, else null. */
static json_t *line_text(const char *s, size_t n)
{
    json_t *v = json_stringn(s, n);
    return v ? v : json_null();
}

/* Recomputes the aggregates of one bench_id from its measurements. */
static int refresh_aggregates(struct results_index *ix, const char *bench_id, char *err,
                              size_t size)
{
    struct results_list vals = {0};
    if (results_index_measurements(ix, bench_id, &vals, err, size) != 0) {
        results_list_free(&vals);
        return -1;
    }
    struct bench__result_measurement *m = bench__xcalloc(vals.n_values + 1, sizeof *m);
    for (size_t i = 0; i < vals.n_values; i++)
        m[i] = vals.values[i].m;
    struct bench__result_aggregate *aggs = NULL;
    size_t n_aggs = 0;
    int rc = bench__results_aggregate(m, vals.n_values, &aggs, &n_aggs);
    if (rc != 0)
        rc = tool_json_error(err, size, "cannot aggregate the measurements of %s", bench_id);
    else
        rc = results_index_set_aggregates(ix, bench_id, aggs, n_aggs, err, size);
    free(aggs);
    free(m);
    results_list_free(&vals);
    return rc;
}

/* Recomputes every comparison: each run against the run before it on its host, with the default
 * thresholds (the table `comparisons`; `libbench report` judges again with its own options). */
static int refresh_comparisons(struct results_index *ix, char *err, size_t size)
{
    struct results_list runs = {0}, aggs = {0};
    struct bench__result_row *all = NULL;
    size_t n_all = 0, cap = 0;
    int rc = -1;
    if (results_index_runs(ix, &runs, err, size) != 0 ||
        results_index_aggregates(ix, &aggs, err, size) != 0)
        goto out;
    struct report_options opt;
    report_options_default(&opt);
    opt.mode = REPORT_MODE_LATEST_VS_PREVIOUS;
    opt.without_history = true;
    for (size_t i = 0; i < runs.n_runs; i++) {
        struct report_selection sel;
        struct report_rows rows;
        if (report_select(&runs, &aggs, &opt, i, &sel, &rows, err, size) != 0)
            goto out;
        all = bench__grow(all, &cap, n_all + rows.n + 1, sizeof *all);
        memcpy(all + n_all, rows.rows, rows.n * sizeof *rows.rows);
        n_all += rows.n;
        report_rows_free(&rows);
    }
    rc = results_index_set_comparisons(ix, all, n_all, err, size);
out:
    free(all);
    results_list_free(&runs);
    results_list_free(&aggs);
    return rc;
}

/* Recomputes the change points of every series (the table `changes`), with the engine's
 * defaults, over every run of each: a step after the aggregates, so a rebuild recreates them. */
static int refresh_changes(struct results_index *ix, char *err, size_t size)
{
    struct results_list runs = {0}, aggs = {0};
    struct results_change *c = NULL;
    size_t n = 0;
    int rc = -1;
    if (results_index_runs(ix, &runs, err, size) == 0 &&
        results_index_aggregates(ix, &aggs, err, size) == 0 &&
        report_series_changes(&runs, &aggs, &c, &n, err, size) == 0)
        rc = results_index_set_changes(ix, c, n, err, size);
    free(c);
    results_list_free(&runs);
    results_list_free(&aggs);
    return rc;
}

/* Reads the object at key into the index (inside the caller's transaction). */
static int ingest_object(const char *dir, struct results_index *ix, const char *key,
                         size_t *rejected, char *err, size_t size)
{
    char profile[65] = "", date[11] = "", bench_id[17] = "", sha12[13] = "";
    bool keyed = results_object_key_parse(key, profile, date, bench_id, sha12);
    bool has = false;
    if (keyed && results_index_has_upload(ix, key, &has, err, size) != 0)
        return -1;
    if (has)
        return 0;
    char *path = bench__xasprintf("%s/%s", dir, key);
    char *text;
    size_t len;
    char read_why[160];
    int rc = tool_read_file(path, RESULTS_OBJECT_MAX_BYTES, &text, &len, read_why, sizeof read_why);
    if (rc != 0)
        tool_json_error(err, size, "%s: %s", path, read_why);
    free(path);
    if (rc != 0)
        return -1;
    char hex[65];
    results_sha256_hex(text, len, hex);
    json_t *bad = json_array();
    struct results_line *lines = NULL;
    size_t n = 0, cap = 0, line_no = 0;
    const char *whole = !keyed                         ? "not a raw object's key"
                        : strncmp(hex, sha12, 12) != 0 ? "its content's SHA-256 does not match "
                                                         "its key (the object was changed)"
                                                       : NULL;
    for (size_t pos = 0; !whole && pos < len; line_no++) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (end > pos) {
            char why[256];
            struct results_line l;
            if (results_line_parse(text + pos, end - pos, &l, why, sizeof why) == 0) {
                if (strcmp(l.m.bench_id, bench_id) || strcmp(l.m.profile, profile)) {
                    bench__fmt(why, sizeof why, "its bench_id or profile is not its object's");
                    results_line_free(&l);
                } else {
                    lines = bench__grow(lines, &cap, n + 1, sizeof *lines);
                    lines[n++] = l;
                    why[0] = '\0';
                }
            }
            if (why[0]) {
                json_t *e = json_object();
                json_object_set_new(e, "line", json_integer((json_int_t)line_no + 1));
                json_object_set_new(e, "reason", tool_json_text(why));
                json_object_set_new(e, "text", line_text(text + pos, end - pos));
                json_array_append_new(bad, e);
            }
        }
        pos = end + 1;
    }
    free(text);
    rc = 0;
    if (whole || json_array_size(bad) > 0) {
        json_t *doc = json_object();
        json_object_set_new(doc, "kind", json_string("raw-object"));
        json_object_set_new(doc, "object", tool_json_text(key));
        json_object_set_new(doc, "reason", json_string(whole ? whole : "lines refused"));
        json_object_set_new(doc, "lines", json_incref(bad));
        char *where = NULL;
        rc = results_store_put_error(dir, keyed ? profile : NULL, date, bench_id, doc, &where, err,
                                     size);
        json_decref(doc);
        free(where);
        *rejected += whole ? 1 : json_array_size(bad);
    }
    if (rc == 0 && !whole) {
        struct results_upload u = {.object_key = key,
                                   .bench_id = bench_id,
                                   .profile = profile,
                                   .timestamp_utc = n ? lines[0].timestamp_utc : "",
                                   .sha256 = hex,
                                   .source_revision = n ? lines[0].source_revision : NULL,
                                   .row_count = n,
                                   .rejected_count = json_array_size(bad)};
        rc = results_index_add_upload(ix, &u, lines, n, err, size);
        if (rc == 0 && n)
            rc = refresh_aggregates(ix, bench_id, err, size);
    }
    for (size_t i = 0; i < n; i++)
        results_line_free(&lines[i]);
    free(lines);
    json_decref(bad);
    return rc;
}

int results_store_ingest(const char *dir, struct results_index *ix, const char *key,
                         size_t *rejected, char *err, size_t err_size)
{
    if (results_index_begin(ix, err, err_size) != 0)
        return -1;
    if (ingest_object(dir, ix, key, rejected, err, err_size) != 0 ||
        refresh_comparisons(ix, err, err_size) != 0 || refresh_changes(ix, err, err_size) != 0) {
        results_index_rollback(ix);
        return -1;
    }
    return results_index_commit(ix, err, err_size);
}

/* ---- rebuild ---- */

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file under dir/rel, in byte order of their paths, skipping names that start with '.'
 * (a record's temporary file). */
static int list_files(const char *dir, const char *rel, char ***keys, size_t *n, size_t *cap,
                      char *err, size_t size)
{
    char *path = bench__xasprintf("%s/%s", dir, rel);
    DIR *d = opendir(path);
    if (!d) {
        int e = errno;
        free(path);
        if (e == ENOENT)
            return 0;
        return tool_json_error(err, size, "cannot read %s/%s: %s", dir, rel, strerror(e));
    }
    char **names = NULL;
    size_t nn = 0, nc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        names = bench__grow(names, &nc, nn + 1, sizeof *names);
        names[nn++] = bench__xstrdup(de->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, name_cmp);
    int rc = 0;
    for (size_t i = 0; i < nn; i++) {
        char *child = bench__xasprintf("%s/%s", rel, names[i]);
        char *full = bench__xasprintf("%s/%s", path, names[i]);
        struct stat sb;
        if (rc == 0 && stat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            rc = list_files(dir, child, keys, n, cap, err, size);
            free(child);
        } else if (rc == 0) {
            *keys = bench__grow(*keys, cap, *n + 1, sizeof **keys);
            (*keys)[(*n)++] = child;
        } else {
            free(child);
        }
        free(full);
        free(names[i]);
    }
    free(names);
    free(path);
    return rc;
}

/* Recreates the index ix from raw/ alone, in one transaction. */
static int rebuild_into(const char *dir, struct results_index *ix, size_t *objects,
                        size_t *rejected, char *err, size_t err_size)
{
    char **keys = NULL;
    size_t n = 0, cap = 0;
    int rc = results_index_begin(ix, err, err_size);
    if (rc != 0)
        return -1;
    rc = results_index_reset(ix, err, err_size);
    if (rc == 0)
        rc = list_files(dir, "raw", &keys, &n, &cap, err, err_size);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = ingest_object(dir, ix, keys[i], rejected, err, err_size);
        *objects += 1;
    }
    if (rc == 0)
        rc = refresh_comparisons(ix, err, err_size);
    if (rc == 0)
        rc = refresh_changes(ix, err, err_size);
    if (rc == 0)
        rc = results_index_commit(ix, err, err_size);
    else
        results_index_rollback(ix);
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    return rc;
}

int results_store_rebuild(const char *dir, size_t *objects, size_t *rejected, char *err,
                          size_t err_size)
{
    struct results_index *ix;
    *objects = *rejected = 0;
    if (open_index(dir, &ix, err, err_size) != 0)
        return -1;
    int rc = rebuild_into(dir, ix, objects, rejected, err, err_size);
    results_index_close(ix);
    return rc;
}

int results_store_open_index(const char *dir, struct results_index **ix, char *err, size_t err_size)
{
    if (open_index(dir, ix, err, err_size) != 0)
        return -1;
    if (!results_index_stale(*ix))
        return 0;
    /* made by an older libbench (other tables): the index is a cache, so it is made again
     * from raw/ before anything is read from or written to it */
    size_t objects = 0, rejected = 0;
    char shown[256];
    bench__sanitize_copy(dir, shown, sizeof shown);
    fprintf(stderr,
            "libbench: %s/index.sqlite was made by another version of libbench: rebuilding it "
            "from raw/\n",
            shown);
    if (rebuild_into(dir, *ix, &objects, &rejected, err, err_size) != 0) {
        results_index_close(*ix);
        *ix = NULL;
        return -1;
    }
    return 0;
}
