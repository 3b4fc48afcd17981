/* SPDX-License-Identifier: MIT */
/* results_ingest.c: owns reading raw objects into the index (docs/reference/results.md, "The
 * index"): an object's lines read a batch at a time (what the reader refuses sent to
 * ingest-errors/), the aggregates and comparisons recomputed, the objects the index lacks found
 * and indexed (reconcile), the transaction of one `record` (the index before the object), and a
 * rebuild into a file of its own put in place of the old index (a server's index emptied and
 * filled again in one transaction). Over 600 lines because the record, the reconcile and the
 * rebuild share its reading of an object. It holds no SQL
 * (results_index.h), no file I/O of its own (results_store.c) and no statistics
 * (lib/stats/results.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_tool.h"
#include "results_index.h"
#include "results_lines.h"
#include "results_tool.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

static int fill(const struct results_store *st, struct results_index *ix, bool reset,
                struct results_rebuilt *o, char *err, size_t size);

int results_store_open_index(const struct results_store *st, bool create, struct results_index **ix,
                             char *err, size_t err_size)
{
    bool exists;
    *ix = NULL;
    int rc;
    if (st->pg) { /* the index tables on the server, made when there are none */
        rc = results_index_open_pg(st->pg, ix, err, err_size);
    } else {
        if (results_store_index_check(st, &exists, err, err_size) != 0)
            return -1;
        if (!exists && !create)
            return 1;
        char *path = results_store_index_path(st, RESULTS_INDEX_FILE);
        rc = results_index_open(path, ix, err, err_size);
        free(path);
    }
    if (rc == 0 && results_index_stale(*ix)) {
        /* made by an older libbench (other tables): the index is a cache, so it is made again
         * from raw/ before anything is read from or written to it */
        char shown[256];
        bench__sanitize_copy(st->dir, shown, sizeof shown);
        if (st->pg)
            fprintf(stderr,
                    "libbench: the index tables of %s were made by another version of libbench: "
                    "rebuilding them from its raw objects\n",
                    shown);
        else
            fprintf(stderr,
                    "libbench: %s/%s was made by another version of libbench: rebuilding it "
                    "from raw/\n",
                    shown, RESULTS_INDEX_FILE);
        struct results_rebuilt o = {0};
        rc = fill(st, *ix, true, &o, err, err_size);
        if (rc != 0) {
            results_index_close(*ix);
            *ix = NULL;
        }
    }
    if (rc == RESULTS_INDEX_DAMAGED)
        results_store_damaged_fix(st, err, err_size);
    return rc;
}

void results_store_damaged_fix(const struct results_store *st, char *err, size_t err_size)
{
    char *reason = bench__xstrdup(err);
    tool_json_error(err, err_size,
                    "%s/%s is damaged (%s): libbench results rebuild --results %s replaces it "
                    "and keeps it aside; the raw objects are intact",
                    st->dir, RESULTS_INDEX_FILE, reason, st->dir);
    free(reason);
}

/* ---- the aggregates and comparisons ---- */

/* Recomputes the aggregates of one bench_id from its measurements. */
static int refresh_aggregates(struct results_index *ix, const char *bench_id, char *err,
                              size_t size)
{
    struct results_list vals = {0};
    int rc = results_index_measurements(ix, bench_id, &vals, err, size);
    if (rc != 0) {
        results_list_free(&vals);
        return rc;
    }
    struct bench__result_measurement *m = bench__xcalloc(vals.n_values + 1, sizeof *m);
    for (size_t i = 0; i < vals.n_values; i++)
        m[i] = vals.values[i].m;
    struct bench__result_aggregate *aggs = NULL;
    size_t n_aggs = 0;
    rc = bench__results_aggregate(m, vals.n_values, &aggs, &n_aggs);
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
static int refresh_comparisons(struct results_index *ix, const struct results_list *runs,
                               const struct results_list *aggs, char *err, size_t size)
{
    int rc = results_index_clear_comparisons(ix, err, size);
    if (rc != 0)
        return rc;
    struct report_options opt;
    report_options_default(&opt);
    opt.mode = REPORT_MODE_LATEST_VS_PREVIOUS;
    opt.without_history = true;
    for (size_t i = 0; i < runs->n_runs; i++) {
        struct report_selection sel;
        struct report_rows rows;
        rc = report_select(runs, aggs, &opt, i, &sel, &rows, err, size);
        if (rc != 0)
            return rc;
        /* each run's rows written as they are judged: memory follows one run, not the store */
        rc = results_index_add_comparisons(ix, rows.rows, rows.n, err, size);
        report_rows_free(&rows);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Recomputes the change points of every series (the table `changes`), with the engine's
 * defaults, over every run of each: a step after the aggregates, so a rebuild recreates them. */
static int refresh_changes(struct results_index *ix, const struct results_list *runs,
                           const struct results_list *aggs, char *err, size_t size)
{
    struct results_change *c = NULL;
    size_t n = 0;
    int rc = report_series_changes(runs, aggs, &c, &n, err, size) == 0
                 ? results_index_set_changes(ix, c, n, err, size)
                 : -1;
    free(c);
    return rc;
}

/* What follows the aggregates: the comparisons, then the change points, from the runs and the
 * aggregates read once. */
static int refresh_history(struct results_index *ix, char *err, size_t size)
{
    struct results_list runs = {0}, aggs = {0};
    int rc = results_index_runs(ix, &runs, err, size);
    if (rc == 0)
        rc = results_index_aggregates(ix, &aggs, err, size);
    if (rc == 0)
        rc = refresh_comparisons(ix, &runs, &aggs, err, size);
    if (rc == 0)
        rc = refresh_changes(ix, &runs, &aggs, err, size);
    results_list_free(&runs);
    results_list_free(&aggs);
    return rc;
}

/* ---- an object into the index ---- */

/* One line of stderr for what was kept in ingest-errors/. */
static void say_kept(const struct results_store *st, const char *key, const char *what,
                     const char *where)
{
    char shown[512];
    bench__sanitize_copy(key, shown, sizeof shown);
    fprintf(stderr, "libbench %s: %s/%s: %s: kept in %s/%s\n", st->command, st->dir, shown, what,
            st->dir, where);
}

/* An ingest error of kind raw-object: the whole object (whole != NULL) or its lines (bad). */
static int keep_refusal(const struct results_store *st, const char *key, const char *whole,
                        json_t *bad, char *err, size_t size)
{
    char profile[65] = "", date[11] = "", bench_id[17] = "", sha12[13] = "";
    bool keyed = results_object_key_parse(key, profile, date, bench_id, sha12);
    json_t *doc = json_object();
    json_object_set_new(doc, "kind", json_string("raw-object"));
    json_object_set_new(doc, "object", tool_json_text(key));
    json_object_set_new(doc, "reason", tool_json_text(whole ? whole : "lines refused"));
    json_object_set_new(doc, "lines", bad ? json_incref(bad) : json_array());
    char *where = NULL;
    int rc =
        results_store_put_error(st, keyed ? profile : NULL, date, bench_id, doc, &where, err, size);
    json_decref(doc);
    if (rc == 0) {
        char what[300];
        if (whole)
            bench__fmt(what, sizeof what, "%s", whole);
        else
            bench__fmt(what, sizeof what, "%zu line%s refused", json_array_size(bad),
                       json_array_size(bad) == 1 ? "" : "s");
        say_kept(st, key, what, where);
    }
    free(where);
    return rc;
}

/* What one object's lines are being added with. */
struct batch {
    struct results_upload u;
    size_t accepted;
    char *timestamp, *revision; /* of its first accepted line */
};

/* Adds the batch's lines (and the object's row with the counts so far). */
static int flush(struct results_index *ix, struct batch *b, const struct results_line_batch *lines,
                 json_t *bad, char *err, size_t size)
{
    if (!b->accepted && lines->n) {
        b->timestamp = bench__xstrdup(lines->lines[0].timestamp_utc);
        b->revision = lines->lines[0].source_revision
                          ? bench__xstrdup(lines->lines[0].source_revision)
                          : NULL;
    }
    b->accepted += lines->n;
    b->u.timestamp_utc = b->timestamp ? b->timestamp : "";
    b->u.source_revision = b->revision;
    b->u.row_count = b->accepted;
    b->u.rejected_count = json_array_size(bad);
    b->u.first_line = b->accepted - lines->n;
    return results_index_add_upload(ix, &b->u, lines->lines, lines->n, err, size);
}

/* Reads text as the object at key into the index (inside the caller's transaction). Lines the
 * reader refuses go to ingest-errors/ (their count added to *rejected); an object refused whole
 * counts 1. *added: the object is in the index now (it was not before). */
static int ingest_text(const struct results_store *st, struct results_index *ix, const char *key,
                       const char *text, size_t len, const char *known_hex, size_t *rejected,
                       bool *added, char *err, size_t size)
{
    *added = false;
    char profile[65] = "", date[11] = "", bench_id[17] = "", sha12[13] = "";
    bool keyed = results_object_key_parse(key, profile, date, bench_id, sha12);
    bool has = false;
    int rc = keyed ? results_index_has_upload(ix, key, &has, err, size) : 0;
    if (rc != 0 || has)
        return rc;
    char hex[65];
    if (known_hex) /* the record that made the text and its key hashed it */
        memcpy(hex, known_hex, sizeof hex);
    else
        tool_sha256_hex(text, len, hex);
    if (!keyed || strncmp(hex, sha12, 12) != 0) {
        *rejected += 1;
        return keep_refusal(st, key,
                            !keyed ? "not a raw object's key"
                                   : "its content's SHA-256 does not match its key (the object "
                                     "was changed)",
                            NULL, err, size);
    }
    json_t *bad = json_array();
    struct batch *b = bench__xcalloc(1, sizeof *b);
    b->u = (struct results_upload){
        .object_key = key, .bench_id = bench_id, .profile = profile, .sha256 = hex};
    /* the lines read by a thread of their own while the index adds the batch before */
    struct results_lines *reader = results_lines_start(text, len, bench_id, profile);
    for (bool last = false; rc == 0 && !last;) {
        struct results_line_batch *lines = results_lines_next(reader);
        last = lines->last;
        json_array_extend(bad, lines->bad);
        if (last && json_array_size(bad) > 0) { /* the refusals kept before the last lines */
            *rejected += json_array_size(bad);
            rc = keep_refusal(st, key, NULL, bad, err, size);
        }
        if (rc == 0) /* a full batch, or the rest and the object's final counts */
            rc = flush(ix, b, lines, bad, err, size);
        results_lines_done(reader, lines);
    }
    results_lines_stop(reader);
    if (rc == 0 && b->accepted)
        rc = refresh_aggregates(ix, bench_id, err, size);
    *added = rc == 0;
    free(b->timestamp);
    free(b->revision);
    free(b);
    json_decref(bad);
    return rc;
}

/* Reads the entry under raw/ into the index: a file that cannot be read (a symbolic link, a
 * FIFO, over the limit) is refused whole, like an object whose bytes are not its key's. */
static int ingest_entry(const struct results_store *st, struct results_index *ix,
                        const struct results_entry *e, size_t *rejected, bool *added, char *err,
                        size_t size)
{
    char *text = NULL, why[300];
    size_t len = 0;
    *added = false;
    if (e->refused) {
        *rejected += 1;
        return keep_refusal(st, e->key, e->refused, NULL, err, size);
    }
    if (results_store_read(st, e->key, &text, &len, why, sizeof why) != 0) {
        *rejected += 1;
        return keep_refusal(st, e->key, why, NULL, err, size);
    }
    int rc = ingest_text(st, ix, e->key, text, len, NULL, rejected, added, err, size);
    free(text);
    return rc;
}

/* ---- reconcile ---- */

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries under raw/ the index does not hold (list and *n; *unindexed: their indices). */
static int missing(const struct results_store *st, struct results_index *ix,
                   struct results_entry **list, size_t *n, size_t **unindexed, size_t *n_unindexed,
                   char *err, size_t size)
{
    char **keys = NULL;
    size_t n_keys = 0;
    *unindexed = NULL;
    *n_unindexed = 0;
    int rc = results_store_list(st, list, n, err, size);
    if (rc == 0)
        rc = results_index_upload_keys(ix, &keys, &n_keys, err, size);
    if (rc == 0) {
        if (n_keys) /* qsort of no array: NULL is not one */
            qsort(keys, n_keys, sizeof *keys, key_cmp);
        *unindexed = bench__xcalloc(*n + 1, sizeof **unindexed);
        size_t k = 0;
        for (size_t i = 0; i < *n; i++) { /* both in byte order: one merge */
            while (k < n_keys && strcmp(keys[k], (*list)[i].key) < 0)
                k++;
            if (k >= n_keys || strcmp(keys[k], (*list)[i].key) != 0)
                (*unindexed)[(*n_unindexed)++] = i;
        }
    }
    for (size_t i = 0; i < n_keys; i++)
        free(keys[i]);
    free(keys);
    return rc;
}

int results_store_pending(const struct results_store *st, struct results_index *ix, size_t *pending,
                          char *err, size_t err_size)
{
    struct results_entry *list = NULL;
    size_t n = 0, *unindexed = NULL;
    int rc = missing(st, ix, &list, &n, &unindexed, pending, err, err_size);
    free(unindexed);
    results_entries_free(list, n);
    return rc;
}

/* Indexes what the index lacks, inside the caller's transaction (no comparisons). */
static int reconcile_in(const struct results_store *st, struct results_index *ix,
                        struct results_reconciled *r, char *err, size_t size)
{
    struct results_entry *list = NULL;
    size_t n = 0, *unindexed = NULL, n_unindexed = 0;
    int rc = missing(st, ix, &list, &n, &unindexed, &n_unindexed, err, size);
    for (size_t i = 0; rc == 0 && i < n_unindexed; i++) {
        bool added;
        rc = ingest_entry(st, ix, &list[unindexed[i]], &r->refused, &added, err, size);
        r->indexed += added;
    }
    free(unindexed);
    results_entries_free(list, n);
    return rc;
}

int results_store_reconcile(const struct results_store *st, struct results_index *ix,
                            struct results_reconciled *r, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    int rc = results_index_begin(ix, err, err_size);
    if (rc != 0)
        return rc;
    rc = reconcile_in(st, ix, r, err, err_size);
    if (rc == 0 && r->indexed)
        rc = refresh_history(ix, err, err_size);
    if (rc != 0) {
        results_index_rollback(ix);
        return rc;
    }
    return results_index_commit(ix, err, err_size);
}

/* One try of a record (results_store_record). The object's memory is freed before the history
 * is recomputed unless `keep` (a try that may be run again needs it). */
static int record_once(const struct results_store *st, struct results_index *ix, const char *key,
                       const char *sha256_hex, struct bench__text *object, bool keep,
                       struct results_reconciled *r, bool *already, size_t *rejected, char *err,
                       size_t err_size)
{
    const char *text = object->data;
    size_t len = object->len;
    memset(r, 0, sizeof *r);
    *already = false;
    *rejected = 0;
    int rc = results_index_begin(ix, err, err_size);
    if (rc != 0)
        return rc;
    rc = reconcile_in(st, ix, r, err, err_size);
    bool added;
    if (rc == 0)
        rc = ingest_text(st, ix, key, text, len, sha256_hex, rejected, &added, err, err_size);
    if (rc == 0) { /* the index took it: now the object, then the history, then the commit */
        int put = results_store_put_object(st, key, text, len, err, err_size);
        *already = put == 1;
        rc = put < 0 ? -1 : 0;
    }
    if (!keep) { /* its memory is not held while the history is recomputed */
        free(object->data);
        *object = (struct bench__text){0};
    }
    if (rc == 0)
        rc = refresh_history(ix, err, err_size);
    if (rc != 0) {
        results_index_rollback(ix);
        return rc;
    }
    return results_index_commit(ix, err, err_size);
}

int results_store_record(const struct results_store *st, struct results_index *ix, const char *key,
                         const char *sha256_hex, struct bench__text *object,
                         struct results_reconciled *r, bool *already, size_t *rejected, char *err,
                         size_t err_size)
{
    /* on a server, the object and its index are one transaction: run again whole when it
     * failed in a way that may pass (another transaction won), RESULTS_INDEX_TRIES at most */
    bool server = st->pg != NULL;
    for (int tries = 0;; tries++) {
        int rc = record_once(st, ix, key, sha256_hex, object, server, r, already, rejected, err,
                             err_size);
        if (rc == 0 || !results_index_retryable(ix) || tries + 1 >= RESULTS_INDEX_TRIES) {
            free(object->data);
            *object = (struct bench__text){0};
            return rc;
        }
        struct timespec pause = {0, (1L << tries) * 1000000L}; /* 1, 2, 4... ms */
        nanosleep(&pause, NULL);
    }
}

int results_store_open_for_report(const char *dir, struct results_store *st,
                                  struct results_index **ix, char *err, size_t err_size)
{
    *ix = NULL;
    int rc = results_store_open(dir, false, st, err, err_size);
    if (rc == 1)
        return tool_json_error(err, err_size, "%s: no run recorded yet (see libbench record)", dir);
    if (rc != 0)
        return -1;
    st->command = "report";
    rc = results_store_open_index(st, false, ix, err, err_size);
    if (rc == 1) {
        struct results_entry *list = NULL;
        size_t n = 0;
        results_store_list(st, &list, &n, err, err_size);
        results_entries_free(list, n);
        return n ? tool_json_error(err, err_size,
                                   "%s: no %s: recreate it with libbench results rebuild "
                                   "--results %s",
                                   dir, RESULTS_INDEX_FILE, dir)
                 : tool_json_error(err, err_size, "%s: no run recorded yet (see libbench record)",
                                   dir);
    }
    size_t pending = 0;
    if (rc == 0)
        rc = results_store_pending(st, *ix, &pending, err, err_size);
    if (rc == 0 && pending) {
        struct results_reconciled r;
        char why[512];
        if (results_store_reconcile(st, *ix, &r, why, sizeof why) == 0) {
            if (r.indexed && st->pg)
                fprintf(stderr,
                        "libbench report: %zu raw object%s the index lacked (pushed, or recorded "
                        "by an older libbench) indexed first\n",
                        r.indexed, r.indexed == 1 ? "" : "s");
            else if (r.indexed)
                fprintf(stderr,
                        "libbench report: %zu raw object%s the index lacked (a record stopped "
                        "before its end) indexed first\n",
                        r.indexed, r.indexed == 1 ? "" : "s");
        } else if (results_index_damaged(*ix)) {
            bench__fmt(err, err_size, "%s", why);
            rc = -1;
        } else { /* a store it cannot write: the report says what it leaves out */
            fprintf(stderr,
                    "libbench report: %zu raw object%s not in the index, left out of this "
                    "report (%s): libbench results rebuild --results %s indexes them\n",
                    pending, pending == 1 ? "" : "s", why, dir);
        }
    }
    if (rc != 0 && results_index_damaged(*ix))
        results_store_damaged_fix(st, err, err_size);
    return rc == 0 ? 0 : -1;
}

/* ---- rebuild ---- */

/* The index ix made from every entry under raw/ in one transaction (emptied first when `reset`:
 * a stale index rebuilt in place). */
static int fill(const struct results_store *st, struct results_index *ix, bool reset,
                struct results_rebuilt *o, char *err, size_t size)
{
    struct results_entry *list = NULL;
    size_t n = 0;
    int rc = results_index_begin(ix, err, size);
    if (rc != 0)
        return rc;
    if (reset)
        rc = results_index_reset(ix, err, size);
    if (rc == 0)
        rc = results_store_list(st, &list, &n, err, size);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        bool added;
        rc = ingest_entry(st, ix, &list[i], &o->rejected, &added, err, size);
        o->objects += 1;
    }
    if (rc == 0)
        rc = refresh_history(ix, err, size);
    if (rc == 0)
        rc = results_index_commit(ix, err, size);
    else
        results_index_rollback(ix);
    results_entries_free(list, n);
    return rc;
}

/* A new index at `name` in the store, from every entry under raw/. */
static int build(const struct results_store *st, const char *name, struct results_rebuilt *o,
                 char *err, size_t size)
{
    struct results_index *ix = NULL;
    char *path = results_store_index_path(st, name);
    int rc = results_index_open(path, &ix, err, size);
    free(path);
    if (rc == 0)
        rc = fill(st, ix, false, o, err, size);
    results_index_close(ix);
    return rc;
}

/* The rebuilt index `fresh` over the healthy index: its content replaced in one transaction,
 * then what was recorded while the rebuild ran indexed too. */
static int replace_healthy(const struct results_store *st, const char *fresh,
                           struct results_rebuilt *o, char *err, size_t size)
{
    struct results_index *ix = NULL;
    char *path = results_store_index_path(st, fresh);
    int rc = results_store_open_index(st, false, &ix, err, size);
    if (rc == 0)
        rc = results_index_replace(ix, path, err, size);
    free(path);
    struct results_reconciled r;
    if (rc == 0)
        rc = results_store_reconcile(st, ix, &r, err, size);
    if (rc == 0)
        o->late = r.indexed;
    results_index_close(ix);
    return rc;
}

int results_store_rebuild(const char *dir, struct results_rebuilt *o, char *err, size_t err_size)
{
    memset(o, 0, sizeof *o);
    struct results_store st;
    if (results_store_open(dir, true, &st, err, err_size) != 0)
        return -1;
    st.command = "results";
    if (st.pg) { /* the index tables emptied and filled again in one transaction */
        struct results_index *ix = NULL;
        int rc = results_index_open_pg(st.pg, &ix, err, err_size);
        if (rc == 0)
            rc = fill(&st, ix, true, o, err, err_size);
        results_index_close(ix);
        results_store_close(&st);
        return rc == 0 ? 0 : -1;
    }
    char *fresh = results_store_rebuild_name(&st);
    int rc = build(&st, fresh, o, err, err_size);
    bool exists = false, damaged = false;
    if (rc == 0 && results_store_index_check(&st, &exists, o->why, sizeof o->why) != 0)
        damaged = true; /* a symbolic link, a directory: kept aside too */
    if (rc == 0 && exists && !damaged) {
        char *path = results_store_index_path(&st, RESULTS_INDEX_FILE);
        damaged = results_index_health(path, o->why, sizeof o->why) != 0;
        free(path);
    }
    if (rc == 0 && (!exists || damaged)) {
        struct results_record_info stamp;
        results_time_stamp((int64_t)time(NULL), &stamp);
        rc =
            results_store_swap_index(&st, fresh, damaged, stamp.bench_id, &o->aside, err, err_size);
        if (rc == 1) /* an index was made meanwhile: healthy, replaced as one */
            rc = replace_healthy(&st, fresh, o, err, err_size);
    } else if (rc == 0) {
        rc = replace_healthy(&st, fresh, o, err, err_size);
    }
    if (rc != 0 || !damaged)
        results_store_remove_index(&st, fresh);
    if (rc == RESULTS_INDEX_DAMAGED)
        rc = -1;
    free(fresh);
    results_store_close(&st);
    return rc;
}
