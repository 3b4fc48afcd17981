/* SPDX-License-Identifier: MIT */
/* results_sqlite.c: owns the SQLite implementation of the results index (results_index_impl.h):
 * the schema, the statements, the transactions and the busy timeout that lets two `libbench
 * record` share one file. It computes nothing, and stores unmeasured values as NULL, never 0.
 * Over 600 lines: every SQLite statement of the index is in this one file. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "results_index_impl.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

#define BUSY_TIMEOUT_MS 120000 /* a writer waits this long for another one */
#define CACHE_KIB "-131072"    /* the page cache: 128 MiB at most, as a record needs it */
/* PRAGMA user_version of the index this file writes: a change to SCHEMA changes it. An index of
 * an older number (0: before the number was kept; 1: before issue 28's columns and the changes
 * table; 2: measurements named their object by its key, not by upload_id) is stale and rebuilt
 * from raw/ before it is read; one of a newer number (a later libbench's) is refused as damaged,
 * never overwritten (libbench results rebuild replaces it and keeps it aside). */
#define SCHEMA_VERSION 3

struct results_sqlite {
    sqlite3 *db;
    int bind_rc;  /* the first failed sqlite3_bind_* since the last step, else SQLITE_OK */
    bool damaged; /* a call failed because the file is not an index (results_index_damaged) */
    bool stale;   /* made by an older version of the tables: to be rebuilt */
};

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS uploads(upload_id INTEGER PRIMARY KEY,"
    " object_key TEXT NOT NULL UNIQUE, bench_id TEXT NOT NULL,"
    " profile TEXT NOT NULL, timestamp_utc TEXT NOT NULL, sha256 TEXT NOT NULL,"
    " source_revision TEXT, row_count INTEGER NOT NULL, rejected_count INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS hosts(host_id TEXT PRIMARY KEY, host TEXT, platform TEXT,"
    " machine TEXT, cpu_model TEXT);"
    "CREATE TABLE IF NOT EXISTS runs(bench_id TEXT PRIMARY KEY, timestamp_utc TEXT NOT NULL,"
    " profile TEXT NOT NULL, host_id TEXT NOT NULL, source_revision TEXT,"
    " first_object TEXT NOT NULL, sources TEXT);"
    "CREATE TABLE IF NOT EXISTS subjects(bench_id TEXT NOT NULL, subject TEXT NOT NULL,"
    " library_version TEXT, compiler TEXT, source_revision TEXT, first_object TEXT NOT NULL,"
    " PRIMARY KEY(bench_id, subject));"
    "CREATE TABLE IF NOT EXISTS measurements(upload_id INTEGER NOT NULL, line INTEGER NOT NULL,"
    " bench_id TEXT NOT NULL, timestamp_utc TEXT NOT NULL, subject TEXT NOT NULL,"
    " profile TEXT NOT NULL, scenario TEXT NOT NULL, operation TEXT NOT NULL,"
    " host_id TEXT NOT NULL, run INTEGER NOT NULL, returncode INTEGER NOT NULL, value_ns REAL,"
    " whole_process INTEGER NOT NULL, skip_reason TEXT, failure TEXT, metrics TEXT NOT NULL,"
    " row_sample_count INTEGER, row_mad_ns REAL, contention REAL,"
    " estimated_metrics TEXT NOT NULL, PRIMARY KEY(upload_id, line));"
    "CREATE INDEX IF NOT EXISTS measurements_cell ON measurements(bench_id, subject, profile,"
    " scenario, operation, run);"
    "CREATE TABLE IF NOT EXISTS aggregates(bench_id TEXT NOT NULL, subject TEXT NOT NULL,"
    " profile TEXT NOT NULL, scenario TEXT NOT NULL, operation TEXT NOT NULL,"
    " host_id TEXT NOT NULL, whole_process INTEGER NOT NULL, total_count INTEGER NOT NULL,"
    " sample_count INTEGER NOT NULL, skip_count INTEGER NOT NULL,"
    " failure_count INTEGER NOT NULL, failure_rate REAL, p50_ns REAL, p90_ns REAL, p99_ns REAL,"
    " min_ns REAL, max_ns REAL, mad_ns REAL, mad_n INTEGER NOT NULL, contention REAL,"
    " PRIMARY KEY(bench_id, subject, profile, scenario, operation)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS comparisons(bench_id TEXT NOT NULL, subject TEXT NOT NULL,"
    " profile TEXT NOT NULL, scenario TEXT NOT NULL, operation TEXT NOT NULL,"
    " baseline_bench_id TEXT, reference_bench_id TEXT, reference_subject TEXT,"
    " state TEXT NOT NULL, decided_by TEXT, why TEXT NOT NULL, delta_p50_ns REAL,"
    " delta_p90_ns REAL, delta_p99_ns REAL, slower_p50_pct REAL, slower_p90_pct REAL,"
    " slower_p99_pct REAL, severity REAL,"
    " PRIMARY KEY(bench_id, subject, profile, scenario, operation)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS changes(profile TEXT NOT NULL, scenario TEXT NOT NULL,"
    " operation TEXT NOT NULL, subject TEXT NOT NULL, host_id TEXT NOT NULL,"
    " bench_id TEXT NOT NULL, timestamp_utc TEXT NOT NULL, source_revision TEXT, sources TEXT,"
    " previous_bench_id TEXT NOT NULL, first_bench_id TEXT NOT NULL,"
    " last_bench_id TEXT NOT NULL, runs_before INTEGER NOT NULL, runs_after INTEGER NOT NULL,"
    " median_before_ns REAL, median_after_ns REAL, size_rel REAL, ci_low_rel REAL,"
    " ci_high_rel REAL, ci_level REAL, p REAL, t REAL,"
    " PRIMARY KEY(profile, scenario, operation, subject, host_id, bench_id));";

static const char DROP[] = "DROP TABLE IF EXISTS uploads; DROP TABLE IF EXISTS hosts;"
                           "DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS subjects;"
                           "DROP TABLE IF EXISTS measurements; DROP TABLE IF EXISTS aggregates;"
                           "DROP TABLE IF EXISTS comparisons; DROP TABLE IF EXISTS changes;";

/* -1 with what failed and SQLite's reason; RESULTS_INDEX_DAMAGED when the reason is that the
 * file is not a database or its pages are damaged. */
static int db_error(struct results_sqlite *ix, char *err, size_t size, const char *what)
{
    int code = sqlite3_errcode(ix->db) & 0xff;
    tool_json_error(err, size, "%s: %s", what, sqlite3_errmsg(ix->db));
    if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB)
        return -1;
    ix->damaged = true;
    return RESULTS_INDEX_DAMAGED;
}

static int exec(struct results_sqlite *ix, const char *sql, char *err, size_t size,
                const char *what)
{
    if (sqlite3_exec(ix->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_error(ix, err, size, what);
    return 0;
}

/* One integer a query gives (count(*), a pragma). */
static int query_int(struct results_sqlite *ix, const char *sql, int64_t *v, char *err, size_t size)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_error(ix, err, size, "cannot read the index");
    int rc = sqlite3_step(st);
    *v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return db_error(ix, err, size, "cannot read the index");
    return 0;
}

/* Whether the index is one this file reads: *fresh when it holds nothing yet (a new or empty
 * file); RESULTS_INDEX_DAMAGED with the reason when it is no database, or of another schema. */
static int check_schema(struct results_sqlite *ix, bool *fresh, char *err, size_t size)
{
    int64_t tables, version;
    int rc = query_int(ix, "SELECT count(*) FROM sqlite_master", &tables, err, size);
    if (rc == 0)
        rc = query_int(ix, "PRAGMA user_version", &version, err, size);
    if (rc != 0)
        return rc;
    *fresh = tables == 0;
    if (!*fresh && version >= 0 && version < SCHEMA_VERSION) {
        ix->stale = true;
        return 0;
    }
    if (!*fresh && version != SCHEMA_VERSION) {
        tool_json_error(err, size, "an index of another schema (%lld; this libbench's is %d)",
                        (long long)version, SCHEMA_VERSION);
        ix->damaged = true;
        return RESULTS_INDEX_DAMAGED;
    }
    return 0;
}

/* The tables of an index holding nothing yet, in a write transaction: two first writers do not
 * race (the second finds them there). */
static int create_schema(struct results_sqlite *ix, char *err, size_t size)
{
    bool fresh = false;
    int rc = results_sqlite_begin(ix, err, size);
    if (rc == 0)
        rc = check_schema(ix, &fresh, err, size);
    if (rc == 0 && fresh) {
        char version[64];
        bench__fmt(version, sizeof version, "PRAGMA user_version = %d", SCHEMA_VERSION);
        rc = exec(ix, SCHEMA, err, size, "cannot create the index's tables");
        if (rc == 0)
            rc = exec(ix, version, err, size, "cannot create the index's tables");
    }
    if (rc == 0)
        return results_sqlite_commit(ix, err, size);
    results_sqlite_rollback(ix);
    return rc;
}

/* sqlite3_open_v2 of path not following a symbolic link (the store checked the file first: this
 * closes the race), or -1 with the reason. */
static int open_db(const char *path, int flags, sqlite3 **db, char *err, size_t size)
{
    if (sqlite3_open_v2(path, db, flags | SQLITE_OPEN_NOFOLLOW, NULL) == SQLITE_OK)
        return 0;
    tool_json_error(err, size, "cannot open the index: %s",
                    *db ? sqlite3_errmsg(*db) : "out of memory");
    sqlite3_close(*db);
    *db = NULL;
    return -1;
}

int results_sqlite_open(const char *path, struct results_sqlite **out, char *err, size_t err_size)
{
    struct results_sqlite *ix = bench__xcalloc(1, sizeof *ix);
    *out = NULL;
    if (open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &ix->db, err, err_size) != 0) {
        free(ix);
        return -1;
    }
    sqlite3_busy_timeout(ix->db, BUSY_TIMEOUT_MS);
    /* a record of many rows changes many pages: kept in memory up to the commit, not spilled */
    sqlite3_exec(ix->db, "PRAGMA cache_size = " CACHE_KIB, NULL, NULL, NULL);
    bool fresh = false;
    int rc = check_schema(ix, &fresh, err, err_size);
    if (rc == 0 && fresh)
        rc = create_schema(ix, err, err_size);
    if (rc != 0) {
        sqlite3_close(ix->db);
        free(ix);
        return rc;
    }
    *out = ix;
    return 0;
}

void results_sqlite_reader_cache(struct results_sqlite *ix)
{
    sqlite3_exec(ix->db, "PRAGMA cache_size = -8192", NULL, NULL, NULL);
}

int results_sqlite_health(const char *path, char *why, size_t why_size)
{
    struct results_sqlite ix = {0};
    if (open_db(path, SQLITE_OPEN_READONLY, &ix.db, why, why_size) != 0)
        return 1;
    sqlite3_busy_timeout(ix.db, BUSY_TIMEOUT_MS);
    bool fresh = false;
    int rc = check_schema(&ix, &fresh, why, why_size);
    sqlite3_stmt *st = NULL;
    if (rc == 0 && sqlite3_prepare_v2(ix.db, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
        rc = db_error(&ix, why, why_size, "cannot check the index");
    if (rc == 0) {
        int step = sqlite3_step(st);
        const unsigned char *first = step == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
        if (step != SQLITE_ROW)
            rc = db_error(&ix, why, why_size, "cannot check the index");
        else if (!first || strcmp((const char *)first, "ok") != 0)
            rc = tool_json_error(why, why_size, "damaged pages: %s",
                                 first ? (const char *)first : "?");
    }
    sqlite3_finalize(st);
    sqlite3_close(ix.db);
    return rc != 0;
}

int results_sqlite_replace(struct results_sqlite *ix, const char *source_path, char *err,
                           size_t err_size)
{
    sqlite3 *src = NULL;
    if (open_db(source_path, SQLITE_OPEN_READONLY, &src, err, err_size) != 0)
        return -1;
    sqlite3_backup *b = sqlite3_backup_init(ix->db, "main", src, "main");
    int rc = -1;
    if (!b) {
        rc = db_error(ix, err, err_size, "cannot replace the index");
    } else {
        int step;
        /* one step: the whole copy is one transaction of the index, under its write lock */
        while ((step = sqlite3_backup_step(b, -1)) == SQLITE_BUSY || step == SQLITE_LOCKED)
            sqlite3_sleep(50);
        rc = sqlite3_backup_finish(b) == SQLITE_OK && step == SQLITE_DONE
                 ? 0
                 : db_error(ix, err, err_size, "cannot replace the index");
    }
    sqlite3_close(src);
    return rc;
}

void results_sqlite_close(struct results_sqlite *ix)
{
    if (!ix)
        return;
    sqlite3_close(ix->db);
    free(ix);
}

int results_sqlite_begin(struct results_sqlite *ix, char *err, size_t err_size)
{
    return exec(ix, "BEGIN IMMEDIATE", err, err_size, "cannot start a write transaction");
}

int results_sqlite_commit(struct results_sqlite *ix, char *err, size_t err_size)
{
    int rc = exec(ix, "COMMIT", err, err_size, "cannot commit");
    if (rc != 0)
        results_sqlite_rollback(ix);
    return rc;
}

void results_sqlite_rollback(struct results_sqlite *ix)
{
    sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
}

int results_sqlite_reset(struct results_sqlite *ix, char *err, size_t err_size)
{
    char version[64];
    bench__fmt(version, sizeof version, "PRAGMA user_version = %d", SCHEMA_VERSION);
    int rc = exec(ix, DROP, err, err_size, "cannot drop the index's tables");
    if (rc == 0)
        rc = exec(ix, SCHEMA, err, err_size, "cannot create the index's tables");
    if (rc == 0)
        rc = exec(ix, version, err, err_size, "cannot set the index's version");
    if (rc == 0)
        ix->stale = false;
    return rc;
}

/* ---- statements ---- */

static sqlite3_stmt *prepare(struct results_sqlite *ix, const char *sql, char *err, size_t size)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL) != SQLITE_OK) {
        db_error(ix, err, size, "cannot prepare a statement");
        return NULL;
    }
    return st;
}

/* Every bind goes through these: a failed one (no memory, a value too big) is kept in
 * ix->bind_rc, and the statement it belongs to is not stepped but failed (bind_failed). */
static void bind_check(struct results_sqlite *ix, int rc)
{
    if (rc != SQLITE_OK && ix->bind_rc == SQLITE_OK)
        ix->bind_rc = rc;
}

/* SQLITE_STATIC: every statement here is stepped and reset (its bindings cleared) while the
 * strings it was given are alive, so SQLite need not copy them. */
static void bind_text(struct results_sqlite *ix, sqlite3_stmt *st, int i, const char *s)
{
    bind_check(ix, s ? sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i));
}

/* NaN and infinities are stored as NULL: unmeasured, never 0. */
static void bind_real(struct results_sqlite *ix, sqlite3_stmt *st, int i, double v)
{
    bind_check(ix, isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i));
}

static void bind_int64(struct results_sqlite *ix, sqlite3_stmt *st, int i, sqlite3_int64 v)
{
    bind_check(ix, sqlite3_bind_int64(st, i, v));
}

/* -1 with the reason when a bind of the statement about to run failed (and forgets it). */
static int bind_failed(struct results_sqlite *ix, char *err, size_t size, const char *what)
{
    int rc = ix->bind_rc;
    if (rc == SQLITE_OK)
        return 0;
    ix->bind_rc = SQLITE_OK;
    return tool_json_error(err, size, "%s: cannot bind a value: %s", what, sqlite3_errstr(rc));
}

static int step_done(struct results_sqlite *ix, sqlite3_stmt *st, char *err, size_t size,
                     const char *what)
{
    if (ix->bind_rc != SQLITE_OK) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        return bind_failed(ix, err, size, what);
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return db_error(ix, err, size, what);
    return 0;
}

int results_sqlite_has_upload(struct results_sqlite *ix, const char *object_key, bool *has,
                              char *err, size_t err_size)
{
    sqlite3_stmt *st = prepare(ix, "SELECT 1 FROM uploads WHERE object_key = ?", err, err_size);
    if (!st)
        return -1;
    bind_text(ix, st, 1, object_key);
    if (ix->bind_rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return bind_failed(ix, err, err_size, "cannot read the uploads");
    }
    int rc = sqlite3_step(st);
    *has = rc == SQLITE_ROW;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return db_error(ix, err, err_size, "cannot read the uploads");
    return 0;
}

int results_sqlite_add_upload(struct results_sqlite *ix, const struct results_upload *u,
                              const struct results_line *lines, size_t n, char *err,
                              size_t err_size)
{
    /* an object is added a batch of lines at a time: the last call leaves its counts */
    sqlite3_stmt *up = prepare(ix,
                               "INSERT INTO uploads(object_key, bench_id, profile, timestamp_utc,"
                               " sha256, source_revision, row_count, rejected_count)"
                               " VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(object_key)"
                               " DO UPDATE SET row_count = excluded.row_count,"
                               " rejected_count = excluded.rejected_count",
                               err, err_size);
    sqlite3_stmt *host =
        prepare(ix, "INSERT OR IGNORE INTO hosts VALUES(?,?,?,?,?)", err, err_size);
    /* a bench_id given by two objects: the first key describes the run, whatever the order */
    sqlite3_stmt *run =
        prepare(ix,
                "INSERT INTO runs VALUES(?,?,?,?,?,?,?) ON CONFLICT(bench_id) DO UPDATE SET"
                " timestamp_utc = excluded.timestamp_utc, profile = excluded.profile,"
                " host_id = excluded.host_id, source_revision = excluded.source_revision,"
                " first_object = excluded.first_object, sources = excluded.sources"
                " WHERE excluded.first_object < runs.first_object",
                err, err_size);
    sqlite3_stmt *subj = prepare(
        ix,
        "INSERT INTO subjects VALUES(?,?,?,?,?,?) ON CONFLICT(bench_id, subject) DO UPDATE SET"
        " library_version = excluded.library_version, compiler = excluded.compiler,"
        " source_revision = excluded.source_revision, first_object = excluded.first_object"
        " WHERE excluded.first_object < subjects.first_object",
        err, err_size);
    sqlite3_stmt *meas =
        prepare(ix, "INSERT INTO measurements VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", err,
                err_size);
    sqlite3_stmt *id =
        prepare(ix, "SELECT upload_id FROM uploads WHERE object_key = ?", err, err_size);
    int rc = -1;
    if (!up || !host || !run || !subj || !meas || !id)
        goto out;
    bind_text(ix, up, 1, u->object_key);
    bind_text(ix, up, 2, u->bench_id);
    bind_text(ix, up, 3, u->profile);
    bind_text(ix, up, 4, u->timestamp_utc);
    bind_text(ix, up, 5, u->sha256);
    bind_text(ix, up, 6, u->source_revision);
    bind_int64(ix, up, 7, (sqlite3_int64)u->row_count);
    bind_int64(ix, up, 8, (sqlite3_int64)u->rejected_count);
    if (step_done(ix, up, err, err_size, "cannot add the upload") != 0)
        goto out;
    /* the measurements name their object by its row's id, not by its 100-byte key */
    bind_text(ix, id, 1, u->object_key);
    if (bind_failed(ix, err, err_size, "cannot add the upload") != 0)
        goto out;
    if (sqlite3_step(id) != SQLITE_ROW) {
        db_error(ix, err, err_size, "cannot add the upload");
        goto out;
    }
    sqlite3_int64 upload_id = sqlite3_column_int64(id, 0);
    for (size_t i = 0; i < n; i++) {
        const struct results_line *l = &lines[i];
        /* the host, run and subject of the line before, added by it: adding them again changes
         * nothing (a host is kept once, a run and a subject keep the first object's row) */
        const struct results_line *prev = i ? &lines[i - 1] : NULL;
        bool same_host = prev && !strcmp(prev->m.host_id, l->m.host_id);
        bool same_run = prev && !strcmp(prev->m.bench_id, l->m.bench_id);
        bool same_subject = same_run && !strcmp(prev->m.subject, l->m.subject);
        if (!same_host) {
            bind_text(ix, host, 1, l->m.host_id);
            bind_text(ix, host, 2, l->host);
            bind_text(ix, host, 3, l->platform);
            bind_text(ix, host, 4, l->machine);
            bind_text(ix, host, 5, l->cpu_model);
            if (step_done(ix, host, err, err_size, "cannot add a host") != 0)
                goto out;
        }
        if (!same_run) {
            bind_text(ix, run, 1, l->m.bench_id);
            bind_text(ix, run, 2, l->timestamp_utc);
            bind_text(ix, run, 3, l->m.profile);
            bind_text(ix, run, 4, l->m.host_id);
            bind_text(ix, run, 5, l->source_revision);
            bind_text(ix, run, 6, u->object_key);
            bind_text(ix, run, 7, l->sources_json);
            if (step_done(ix, run, err, err_size, "cannot add a run") != 0)
                goto out;
        }
        if (!same_subject) {
            bind_text(ix, subj, 1, l->m.bench_id);
            bind_text(ix, subj, 2, l->m.subject);
            bind_text(ix, subj, 3, l->library_version);
            bind_text(ix, subj, 4, l->compiler);
            bind_text(ix, subj, 5, l->source_revision);
            bind_text(ix, subj, 6, u->object_key);
            if (step_done(ix, subj, err, err_size, "cannot add a subject") != 0)
                goto out;
        }
        bind_int64(ix, meas, 1, upload_id);
        bind_int64(ix, meas, 2, (sqlite3_int64)(u->first_line + i));
        bind_text(ix, meas, 3, l->m.bench_id);
        bind_text(ix, meas, 4, l->timestamp_utc);
        bind_text(ix, meas, 5, l->m.subject);
        bind_text(ix, meas, 6, l->m.profile);
        bind_text(ix, meas, 7, l->m.scenario);
        bind_text(ix, meas, 8, l->m.operation);
        bind_text(ix, meas, 9, l->m.host_id);
        bind_int64(ix, meas, 10, l->m.run);
        bind_int64(ix, meas, 11, l->m.returncode);
        bind_real(ix, meas, 12, l->m.value_ns);
        bind_int64(ix, meas, 13, l->m.whole_process);
        bind_text(ix, meas, 14, l->skip_reason);
        bind_text(ix, meas, 15, l->failure);
        bind_text(ix, meas, 16, l->metrics_json);
        bind_real(ix, meas, 17, l->m.row_samples > 0 ? (double)l->m.row_samples : NAN);
        bind_real(ix, meas, 18, l->m.row_mad_ns);
        bind_real(ix, meas, 19, l->m.contention_known ? l->m.contention : NAN);
        bind_text(ix, meas, 20, l->estimated_json ? l->estimated_json : "[]");
        if (step_done(ix, meas, err, err_size, "cannot add a measurement") != 0)
            goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(up);
    sqlite3_finalize(host);
    sqlite3_finalize(run);
    sqlite3_finalize(subj);
    sqlite3_finalize(meas);
    sqlite3_finalize(id);
    return rc;
}

/* ---- reading back ---- */

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int finish_read(struct results_sqlite *ix, sqlite3_stmt *st, int rc, char *err, size_t size)
{
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_error(ix, err, size, "cannot read the index");
    return 0;
}

int results_sqlite_runs(struct results_sqlite *ix, struct results_list *out, char *err,
                        size_t err_size)
{
    sqlite3_stmt *st = prepare(ix,
                               "SELECT bench_id, timestamp_utc, host_id, profile,"
                               " source_revision, sources FROM runs"
                               " ORDER BY timestamp_utc, bench_id",
                               err, err_size);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        out->runs = bench__grow(out->runs, &cap, out->n_runs + 1, sizeof *out->runs);
        struct results_run *r = &out->runs[out->n_runs++];
        r->bench_id = results_list_keep(out, sqlite3_column_text(st, 0));
        r->timestamp_utc = results_list_keep(out, sqlite3_column_text(st, 1));
        r->host_id = results_list_keep(out, sqlite3_column_text(st, 2));
        r->profile = results_list_keep(out, sqlite3_column_text(st, 3));
        r->source_revision = results_list_keep(out, sqlite3_column_text(st, 4));
        r->sources = results_list_keep(out, sqlite3_column_text(st, 5));
    }
    return finish_read(ix, st, rc, err, err_size);
}

int results_sqlite_measurements(struct results_sqlite *ix, const char *bench_id,
                                struct results_list *out, char *err, size_t err_size)
{
    sqlite3_stmt *st = prepare(ix,
                               "SELECT bench_id, subject, profile, scenario, operation, host_id,"
                               " run, returncode, value_ns, whole_process, row_sample_count,"
                               " row_mad_ns, contention, metrics, estimated_metrics"
                               " FROM measurements"
                               " WHERE bench_id = ? ORDER BY subject, profile, scenario,"
                               " operation, run, (SELECT object_key FROM uploads u"
                               " WHERE u.upload_id = measurements.upload_id), line",
                               err, err_size);
    if (!st)
        return -1;
    bind_text(ix, st, 1, bench_id);
    if (ix->bind_rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return bind_failed(ix, err, err_size, "cannot read the index");
    }
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        out->values = bench__grow(out->values, &cap, out->n_values + 1, sizeof *out->values);
        struct bench__result_measurement *m = &out->values[out->n_values++].m;
        const char **text[] = {&m->bench_id, &m->subject,   &m->profile,
                               &m->scenario, &m->operation, &m->host_id};
        for (int k = 0; k < 6; k++)
            *text[k] = results_list_keep(out, sqlite3_column_text(st, k));
        m->run = sqlite3_column_int64(st, 6);
        m->returncode = sqlite3_column_int(st, 7);
        m->value_ns = col_real(st, 8);
        m->whole_process = sqlite3_column_int(st, 9) != 0;
        double samples = col_real(st, 10);
        m->row_samples = isfinite(samples) && samples > 0 ? (size_t)samples : 0;
        m->row_mad_ns = col_real(st, 11);
        m->contention = col_real(st, 12);
        m->contention_known = !isnan(m->contention);
        struct results_value *v = &out->values[out->n_values - 1];
        v->metrics_json = results_list_keep(out, sqlite3_column_text(st, 13));
        v->estimated_json = results_list_keep(out, sqlite3_column_text(st, 14));
    }
    return finish_read(ix, st, rc, err, err_size);
}

int results_sqlite_set_aggregates(struct results_sqlite *ix, const char *bench_id,
                                  const struct bench__result_aggregate *a, size_t n, char *err,
                                  size_t err_size)
{
    sqlite3_stmt *del = prepare(ix, "DELETE FROM aggregates WHERE bench_id = ?", err, err_size);
    sqlite3_stmt *ins =
        prepare(ix, "INSERT INTO aggregates VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", err,
                err_size);
    int rc = -1;
    if (!del || !ins)
        goto out;
    bind_text(ix, del, 1, bench_id);
    if (step_done(ix, del, err, err_size, "cannot replace the aggregates") != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const char *text[] = {a[i].bench_id, a[i].subject,   a[i].profile,
                              a[i].scenario, a[i].operation, a[i].host_id};
        for (int k = 0; k < 6; k++)
            bind_text(ix, ins, k + 1, text[k]);
        bind_int64(ix, ins, 7, a[i].whole_process);
        bind_int64(ix, ins, 8, (sqlite3_int64)a[i].total_count);
        bind_int64(ix, ins, 9, (sqlite3_int64)a[i].sample_count);
        bind_int64(ix, ins, 10, (sqlite3_int64)a[i].skip_count);
        bind_int64(ix, ins, 11, (sqlite3_int64)a[i].failure_count);
        const double real[] = {a[i].failure_rate, a[i].p50, a[i].p90, a[i].p99,
                               a[i].min,          a[i].max, a[i].mad};
        for (int k = 0; k < 7; k++)
            bind_real(ix, ins, k + 12, real[k]);
        bind_int64(ix, ins, 19, (sqlite3_int64)a[i].mad_n);
        bind_real(ix, ins, 20, a[i].contention);
        if (step_done(ix, ins, err, err_size, "cannot add an aggregate") != 0)
            goto out;
    }
    rc = 0;
out:
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    return rc;
}

int results_sqlite_aggregates(struct results_sqlite *ix, struct results_list *out, char *err,
                              size_t err_size)
{
    sqlite3_stmt *st = prepare(
        ix,
        "SELECT bench_id, subject, profile, scenario, operation, host_id, whole_process,"
        " total_count, sample_count, skip_count, failure_count, failure_rate, p50_ns, p90_ns,"
        " p99_ns, min_ns, max_ns, mad_ns, mad_n, contention FROM aggregates"
        " ORDER BY bench_id, subject, profile, scenario, operation",
        err, err_size);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        out->aggs = bench__grow(out->aggs, &cap, out->n_aggs + 1, sizeof *out->aggs);
        struct bench__result_aggregate *a = &out->aggs[out->n_aggs++];
        const char **text[] = {&a->bench_id, &a->subject,   &a->profile,
                               &a->scenario, &a->operation, &a->host_id};
        for (int k = 0; k < 6; k++)
            *text[k] = results_list_keep(out, sqlite3_column_text(st, k));
        a->whole_process = sqlite3_column_int(st, 6) != 0;
        a->total_count = (size_t)sqlite3_column_int64(st, 7);
        a->sample_count = (size_t)sqlite3_column_int64(st, 8);
        a->skip_count = (size_t)sqlite3_column_int64(st, 9);
        a->failure_count = (size_t)sqlite3_column_int64(st, 10);
        double *real[] = {&a->failure_rate, &a->p50, &a->p90, &a->p99, &a->min, &a->max, &a->mad};
        for (int k = 0; k < 7; k++)
            *real[k] = col_real(st, k + 11);
        a->mad_n = (size_t)sqlite3_column_int64(st, 18);
        a->contention = col_real(st, 19);
    }
    return finish_read(ix, st, rc, err, err_size);
}

int results_sqlite_clear_comparisons(struct results_sqlite *ix, char *err, size_t err_size)
{
    return exec(ix, "DELETE FROM comparisons", err, err_size, "cannot replace the comparisons");
}

int results_sqlite_add_comparisons(struct results_sqlite *ix, const struct bench__result_row *rows,
                                   size_t n, char *err, size_t err_size)
{
    sqlite3_stmt *ins = prepare(
        ix, "INSERT OR REPLACE INTO comparisons VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", err,
        err_size);
    if (!ins)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct bench__result_row *r = &rows[i];
        const char *text[] = {r->target->bench_id, r->target->subject, r->target->profile,
                              r->target->scenario, r->target->operation};
        for (int k = 0; k < 5; k++)
            bind_text(ix, ins, k + 1, text[k]);
        bind_text(ix, ins, 6, r->baseline ? r->baseline->bench_id : NULL);
        bind_text(ix, ins, 7, r->reference ? r->reference->bench_id : NULL);
        bind_text(ix, ins, 8, r->reference ? r->reference->subject : NULL);
        bind_text(ix, ins, 9, bench__result_state_name(r->state));
        bind_text(ix, ins, 10, r->decided_by);
        bind_text(ix, ins, 11, r->why);
        const double real[] = {r->delta_p50_ns,   r->delta_p90_ns,   r->delta_p99_ns,
                               r->slower_p50_pct, r->slower_p90_pct, r->slower_p99_pct,
                               r->severity};
        for (int k = 0; k < 7; k++)
            bind_real(ix, ins, k + 12, real[k]);
        if (step_done(ix, ins, err, err_size, "cannot add a comparison") != 0) {
            sqlite3_finalize(ins);
            return -1;
        }
    }
    sqlite3_finalize(ins);
    return 0;
}

/* ---- the store's checks (results_ingest.c) ---- */

bool results_sqlite_damaged(const struct results_sqlite *ix)
{
    return ix && ix->damaged;
}

bool results_sqlite_stale(const struct results_sqlite *ix)
{
    return ix->stale;
}

int results_sqlite_upload_keys(struct results_sqlite *ix, char ***keys, size_t *n, char *err,
                               size_t err_size)
{
    *keys = NULL;
    *n = 0;
    sqlite3_stmt *st =
        prepare(ix, "SELECT object_key FROM uploads ORDER BY object_key", err, err_size);
    if (!st)
        return ix->damaged ? RESULTS_INDEX_DAMAGED : -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *key = sqlite3_column_text(st, 0);
        *keys = bench__grow(*keys, &cap, *n + 1, sizeof **keys);
        (*keys)[(*n)++] = bench__xstrdup(key ? (const char *)key : "");
    }
    return finish_read(ix, st, rc, err, err_size);
}

/* ---- change points ---- */

int results_sqlite_set_changes(struct results_sqlite *ix, const struct results_change *c, size_t n,
                               char *err, size_t err_size)
{
    if (exec(ix, "DELETE FROM changes", err, err_size, "cannot replace the change points") != 0)
        return -1;
    sqlite3_stmt *ins =
        prepare(ix, "INSERT INTO changes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", err,
                err_size);
    if (!ins)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct results_change *x = &c[i];
        const char *text[] = {x->profile,           x->scenario,        x->operation,
                              x->subject,           x->host_id,         x->bench_id,
                              x->timestamp_utc,     x->source_revision, x->sources,
                              x->previous_bench_id, x->first_bench_id,  x->last_bench_id};
        const double real[] = {x->median_before_ns, x->median_after_ns, x->size_rel, x->ci_low_rel,
                               x->ci_high_rel,      x->ci_level,        x->p,        x->t};
        for (int k = 0; k < 12; k++)
            bind_text(ix, ins, k + 1, text[k]);
        bind_int64(ix, ins, 13, (sqlite3_int64)x->runs_before);
        bind_int64(ix, ins, 14, (sqlite3_int64)x->runs_after);
        for (int k = 0; k < 8; k++)
            bind_real(ix, ins, k + 15, real[k]);
        rc = step_done(ix, ins, err, err_size, "cannot add a change point");
    }
    sqlite3_finalize(ins);
    return rc;
}

int results_sqlite_changes(struct results_sqlite *ix, struct results_list *out, char *err,
                           size_t err_size)
{
    sqlite3_stmt *st =
        prepare(ix,
                "SELECT profile, scenario, operation, subject, host_id, bench_id, timestamp_utc,"
                " source_revision, sources, previous_bench_id, first_bench_id, last_bench_id,"
                " runs_before, runs_after, median_before_ns, median_after_ns, size_rel, ci_low_rel,"
                " ci_high_rel, ci_level, p, t FROM changes ORDER BY profile, scenario, operation,"
                " subject, host_id, timestamp_utc, bench_id",
                err, err_size);
    if (!st)
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        out->changes = bench__grow(out->changes, &cap, out->n_changes + 1, sizeof *out->changes);
        struct results_change *x = &out->changes[out->n_changes++];
        const char **text[] = {&x->profile,           &x->scenario,        &x->operation,
                               &x->subject,           &x->host_id,         &x->bench_id,
                               &x->timestamp_utc,     &x->source_revision, &x->sources,
                               &x->previous_bench_id, &x->first_bench_id,  &x->last_bench_id};
        for (int k = 0; k < 12; k++)
            *text[k] = results_list_keep(out, sqlite3_column_text(st, k));
        x->runs_before = (size_t)sqlite3_column_int64(st, 12);
        x->runs_after = (size_t)sqlite3_column_int64(st, 13);
        double *real[] = {&x->median_before_ns, &x->median_after_ns, &x->size_rel, &x->ci_low_rel,
                          &x->ci_high_rel,      &x->ci_level,        &x->p,        &x->t};
        for (int k = 0; k < 8; k++)
            *real[k] = col_real(st, k + 14);
    }
    return finish_read(ix, st, rc, err, err_size);
}
