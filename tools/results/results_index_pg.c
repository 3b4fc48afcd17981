/* SPDX-License-Identifier: MIT */
/* results_index_pg.c: owns the PostgreSQL implementation of the results index
 * (results_index_impl.h): the index tables of a postgresql:// store (the SQLite index's, named
 * libbench_index_*), versioned and created or migrated under an advisory lock, on the
 * connection of the store's raw objects so that a record's object and its index are one
 * transaction. Writers are serialized by a session advisory lock taken before their
 * SERIALIZABLE transaction (a failure that may pass is retried by the store). Every statement is
 * parameterized; bulk rows go through COPY (data, never SQL). Text columns are COLLATE "C":
 * SQLite's order. It computes nothing and stores unmeasured values as NULL, never 0. Over 600
 * lines because every PostgreSQL statement of the index is in this one file. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "results_index_impl.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/text.h"

/* The version of the tables below: a change to them changes it. Tables of an older version are
 * dropped, made again and filled from the raw objects (results_pgix_stale); a newer version (a
 * later libbench's) is refused, never changed. */
#define INDEX_VERSION 1
#define SCHEMA_LOCK "7355608030" /* pg_advisory_xact_lock's key of the index tables' schema */
#define WRITE_LOCK "7355608031"  /* pg_advisory_lock's key of one writer of the index */
#define T " text COLLATE \"C\""

struct results_pgix {
    struct results_pg *pg;
    PGconn *conn;
    bool stale;   /* made again empty by a migration: to be filled from the raw objects */
    bool retry;   /* the last failure may pass when the transaction is run again */
    bool locked;  /* this writer holds WRITE_LOCK */
    bool reading; /* the reader's snapshot transaction is open */
};

static const char *const TABLES[] = {"libbench_index_uploads",      "libbench_index_hosts",
                                     "libbench_index_runs",         "libbench_index_subjects",
                                     "libbench_index_measurements", "libbench_index_aggregates",
                                     "libbench_index_comparisons",  "libbench_index_changes"};

static const char *const SCHEMA[] = {
    "CREATE TABLE libbench_index_uploads(upload_id bigserial PRIMARY KEY,"
    " object_key" T " NOT NULL UNIQUE, bench_id" T " NOT NULL, profile" T " NOT NULL,"
    " timestamp_utc" T " NOT NULL, sha256" T " NOT NULL, source_revision" T ","
    " row_count bigint NOT NULL, rejected_count bigint NOT NULL)",
    "CREATE TABLE libbench_index_hosts(host_id" T " PRIMARY KEY, host" T ", platform" T ","
    " machine" T ", cpu_model" T ")",
    "CREATE TABLE libbench_index_runs(bench_id" T " PRIMARY KEY, timestamp_utc" T " NOT NULL,"
    " profile" T " NOT NULL, host_id" T " NOT NULL, source_revision" T ","
    " first_object" T " NOT NULL, sources" T ")",
    "CREATE TABLE libbench_index_subjects(bench_id" T " NOT NULL, subject" T " NOT NULL,"
    " library_version" T ", compiler" T ", source_revision" T ", first_object" T " NOT NULL,"
    " PRIMARY KEY(bench_id, subject))",
    "CREATE TABLE libbench_index_measurements(upload_id bigint NOT NULL, line bigint NOT NULL,"
    " bench_id" T " NOT NULL, timestamp_utc" T " NOT NULL, subject" T " NOT NULL,"
    " profile" T " NOT NULL, scenario" T " NOT NULL, operation" T " NOT NULL,"
    " host_id" T " NOT NULL, run bigint NOT NULL, returncode bigint NOT NULL,"
    " value_ns double precision, whole_process bigint NOT NULL, skip_reason" T ","
    " failure" T ", metrics" T " NOT NULL, row_sample_count double precision,"
    " row_mad_ns double precision, contention double precision,"
    " estimated_metrics" T " NOT NULL, PRIMARY KEY(upload_id, line))",
    "CREATE INDEX libbench_index_measurements_cell ON libbench_index_measurements(bench_id,"
    " subject, profile, scenario, operation, run)",
    "CREATE TABLE libbench_index_aggregates(bench_id" T " NOT NULL, subject" T " NOT NULL,"
    " profile" T " NOT NULL, scenario" T " NOT NULL, operation" T " NOT NULL,"
    " host_id" T " NOT NULL, whole_process bigint NOT NULL, total_count bigint NOT NULL,"
    " sample_count bigint NOT NULL, skip_count bigint NOT NULL,"
    " failure_count bigint NOT NULL, failure_rate double precision, p50_ns double precision,"
    " p90_ns double precision, p99_ns double precision, min_ns double precision,"
    " max_ns double precision, mad_ns double precision, mad_n bigint NOT NULL,"
    " contention double precision, PRIMARY KEY(bench_id, subject, profile, scenario, operation))",
    "CREATE TABLE libbench_index_comparisons(bench_id" T " NOT NULL, subject" T " NOT NULL,"
    " profile" T " NOT NULL, scenario" T " NOT NULL, operation" T " NOT NULL,"
    " baseline_bench_id" T ", reference_bench_id" T ", reference_subject" T ","
    " state" T " NOT NULL, decided_by" T ", why" T " NOT NULL, delta_p50_ns double precision,"
    " delta_p90_ns double precision, delta_p99_ns double precision,"
    " slower_p50_pct double precision, slower_p90_pct double precision,"
    " slower_p99_pct double precision, severity double precision,"
    " PRIMARY KEY(bench_id, subject, profile, scenario, operation))",
    "CREATE TABLE libbench_index_changes(profile" T " NOT NULL, scenario" T " NOT NULL,"
    " operation" T " NOT NULL, subject" T " NOT NULL, host_id" T " NOT NULL,"
    " bench_id" T " NOT NULL, timestamp_utc" T " NOT NULL, source_revision" T ", sources" T ","
    " previous_bench_id" T " NOT NULL, first_bench_id" T " NOT NULL,"
    " last_bench_id" T " NOT NULL, runs_before bigint NOT NULL, runs_after bigint NOT NULL,"
    " median_before_ns double precision, median_after_ns double precision,"
    " size_rel double precision, ci_low_rel double precision, ci_high_rel double precision,"
    " ci_level double precision, p double precision, t double precision,"
    " PRIMARY KEY(profile, scenario, operation, subject, host_id, bench_id))",
};

/* -1 with what failed and the server's reason; ix->retry when it may pass if run again. */
static int fail(struct results_pgix *ix, const PGresult *res, const char *what, char *err,
                size_t size)
{
    if (res && results_pg_retryable(res))
        ix->retry = true;
    return results_pg_error(ix->pg, res, what, err, size);
}

/* One statement, its parameters as text (NULL: null): the result, or NULL with the reason. */
static PGresult *query(struct results_pgix *ix, const char *sql, int n, const char *const *params,
                       const char *what, char *err, size_t size)
{
    PGresult *res = PQexecParams(ix->conn, sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType s = PQresultStatus(res);
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        return res;
    fail(ix, res, what, err, size);
    PQclear(res);
    return NULL;
}

static int run(struct results_pgix *ix, const char *sql, int n, const char *const *params,
               const char *what, char *err, size_t size)
{
    PGresult *res = query(ix, sql, n, params, what, err, size);
    PQclear(res);
    return res ? 0 : -1;
}

/* ---- COPY: the rows of a table as data, tab-separated, \N for null ---- */

static void put_text(struct bench__text *t, const char *s)
{
    if (!s) {
        bench__text_append("\\N", 2, t);
        return;
    }
    for (const char *p = s; *p; p++) {
        const char *esc = *p == '\\'   ? "\\\\"
                          : *p == '\t' ? "\\t"
                          : *p == '\n' ? "\\n"
                          : *p == '\r' ? "\\r"
                                       : NULL;
        bench__text_append(esc ? esc : p, esc ? 2 : 1, t);
    }
}

/* NaN and infinities are null: unmeasured, never 0. %.17g reads back as the same double. */
static void put_real(struct bench__text *t, double v)
{
    char buf[40];
    if (!isfinite(v)) {
        bench__text_append("\\N", 2, t);
        return;
    }
    int n = snprintf(buf, sizeof buf, "%.17g", v);
    bench__text_append(buf, (size_t)n, t);
}

static void put_int(struct bench__text *t, long long v)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", v);
    bench__text_append(buf, (size_t)n, t);
}

static void put_sep(struct bench__text *t, bool last)
{
    bench__text_append(last ? "\n" : "\t", 1, t);
}

/* Sends rows (COPY's text format) with `sql` (a COPY ... FROM STDIN): 0, or -1. */
static int copy(struct results_pgix *ix, const char *sql, const struct bench__text *rows,
                const char *what, char *err, size_t size)
{
    if (!rows->len)
        return 0;
    PGresult *res = PQexec(ix->conn, sql);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        int rc = fail(ix, res, what, err, size);
        PQclear(res);
        return rc;
    }
    PQclear(res);
    bool sent = true;
    for (size_t done = 0; sent && done < rows->len;) {
        size_t n = rows->len - done < (1u << 20) ? rows->len - done : (1u << 20);
        sent = PQputCopyData(ix->conn, rows->data + done, (int)n) == 1;
        done += n;
    }
    if (PQputCopyEnd(ix->conn, sent ? NULL : "libbench: cannot send the rows") != 1)
        sent = false;
    int rc = 0;
    while ((res = PQgetResult(ix->conn))) {
        if (rc == 0 && PQresultStatus(res) != PGRES_COMMAND_OK)
            rc = fail(ix, res, what, err, size);
        PQclear(res);
    }
    if (rc == 0 && !sent)
        rc = fail(ix, NULL, what, err, size);
    return rc;
}

/* ---- the schema ---- */

/* The index tables at INDEX_VERSION, under SCHEMA_LOCK in one transaction: made when there are
 * none, made again (ix->stale) when they are of an older version. */
static int make_schema(struct results_pgix *ix, char *err, size_t size)
{
    int rc = run(ix, "BEGIN", 0, NULL, "cannot begin", err, size);
    if (rc != 0)
        return rc;
    rc = run(ix, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK ")", 0, NULL,
             "cannot lock the index's schema", err, size);
    if (rc == 0)
        rc = run(ix, "CREATE TABLE IF NOT EXISTS libbench_index_schema (version integer NOT NULL)",
                 0, NULL, "cannot create the index's tables", err, size);
    int version = 0;
    PGresult *res = rc == 0
                        ? query(ix, "SELECT coalesce(max(version), 0) FROM libbench_index_schema",
                                0, NULL, "cannot read the index's version", err, size)
                        : NULL;
    if (res && PQntuples(res) == 1)
        version = atoi(PQgetvalue(res, 0, 0));
    else if (rc == 0)
        rc = -1;
    PQclear(res);
    if (rc == 0 && version > INDEX_VERSION)
        rc = tool_json_error(err, size,
                             "%s: its index tables are version %d, newer than this libbench's "
                             "(%d): use a newer libbench",
                             results_pg_shown(ix->pg), version, INDEX_VERSION);
    if (rc == 0 && version < INDEX_VERSION) {
        for (size_t i = 0; rc == 0 && version > 0 && i < sizeof TABLES / sizeof *TABLES; i++) {
            char sql[128];
            bench__fmt(sql, sizeof sql, "DROP TABLE IF EXISTS %s", TABLES[i]);
            rc = run(ix, sql, 0, NULL, "cannot migrate the index's tables", err, size);
        }
        for (size_t i = 0; rc == 0 && i < sizeof SCHEMA / sizeof *SCHEMA; i++)
            rc = run(ix, SCHEMA[i], 0, NULL, "cannot create the index's tables", err, size);
        char v[16];
        bench__fmt(v, sizeof v, "%d", INDEX_VERSION);
        const char *p[1] = {v};
        if (rc == 0)
            rc = run(ix, "DELETE FROM libbench_index_schema", 0, NULL,
                     "cannot create the index's tables", err, size);
        if (rc == 0)
            rc = run(ix, "INSERT INTO libbench_index_schema (version) VALUES ($1::integer)", 1, p,
                     "cannot create the index's tables", err, size);
        ix->stale = rc == 0 && version > 0;
    }
    if (rc == 0)
        return run(ix, "COMMIT", 0, NULL, "cannot create the index's tables", err, size);
    PQclear(PQexec(ix->conn, "ROLLBACK"));
    return rc;
}

int results_pgix_open(struct results_pg *pg, struct results_pgix **out, char *err, size_t err_size)
{
    struct results_pgix *ix = bench__xcalloc(1, sizeof *ix);
    ix->pg = pg;
    ix->conn = results_pg_conn(pg);
    *out = NULL;
    /* every double read back as the one written */
    PQclear(PQexec(ix->conn, "SET extra_float_digits = 3"));
    /* the tables already at this version: nothing to make, no lock (a reader cannot make) */
    PGresult *now = PQexec(ix->conn, "SELECT max(version) FROM libbench_index_schema");
    bool current = PQresultStatus(now) == PGRES_TUPLES_OK && PQntuples(now) == 1 &&
                   !PQgetisnull(now, 0, 0) && atoi(PQgetvalue(now, 0, 0)) == INDEX_VERSION;
    PQclear(now);
    if (!current && make_schema(ix, err, err_size) != 0) {
        free(ix);
        return -1;
    }
    *out = ix;
    return 0;
}

void results_pgix_close(struct results_pgix *ix)
{
    if (!ix)
        return;
    if (PQtransactionStatus(ix->conn) != PQTRANS_IDLE)
        PQclear(PQexec(ix->conn, "ROLLBACK"));
    if (ix->locked)
        PQclear(PQexec(ix->conn, "SELECT pg_advisory_unlock(" WRITE_LOCK ")"));
    free(ix);
}

/* What a report reads from here on is one snapshot of the index. */
void results_pgix_reader_cache(struct results_pgix *ix)
{
    if (PQtransactionStatus(ix->conn) == PQTRANS_IDLE)
        PQclear(PQexec(ix->conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
}

bool results_pgix_damaged(const struct results_pgix *ix)
{
    (void)ix; /* the server checks its own pages */
    return false;
}

bool results_pgix_stale(const struct results_pgix *ix)
{
    return ix->stale;
}

bool results_pgix_retryable(const struct results_pgix *ix)
{
    return ix->retry || results_pg_retry(ix->pg);
}

static void unlock(struct results_pgix *ix)
{
    if (ix->locked)
        PQclear(PQexec(ix->conn, "SELECT pg_advisory_unlock(" WRITE_LOCK ")"));
    ix->locked = false;
}

/* The writers of one store one after the other (as SQLite's BEGIN IMMEDIATE): the lock first,
 * then the transaction, whose snapshot is taken once the writer before has committed. */
int results_pgix_begin(struct results_pgix *ix, char *err, size_t err_size)
{
    ix->retry = false;
    int rc = run(ix, "SELECT pg_advisory_lock(" WRITE_LOCK ")", 0, NULL,
                 "cannot wait for the other writers", err, err_size);
    if (rc != 0)
        return rc;
    ix->locked = true;
    rc = run(ix, "BEGIN ISOLATION LEVEL SERIALIZABLE", 0, NULL, "cannot start a write transaction",
             err, err_size);
    if (rc != 0)
        unlock(ix);
    return rc;
}

int results_pgix_commit(struct results_pgix *ix, char *err, size_t err_size)
{
    int rc = run(ix, "COMMIT", 0, NULL, "cannot commit", err, err_size);
    if (rc != 0)
        results_pgix_rollback(ix);
    unlock(ix);
    return rc;
}

void results_pgix_rollback(struct results_pgix *ix)
{
    if (PQtransactionStatus(ix->conn) != PQTRANS_IDLE)
        PQclear(PQexec(ix->conn, "ROLLBACK"));
    unlock(ix);
}

/* Every row removed (DELETE, not DROP: a recorder's role may write rows, not make tables). */
int results_pgix_reset(struct results_pgix *ix, char *err, size_t err_size)
{
    for (size_t i = 0; i < sizeof TABLES / sizeof *TABLES; i++) {
        char sql[128];
        bench__fmt(sql, sizeof sql, "DELETE FROM %s", TABLES[i]);
        if (run(ix, sql, 0, NULL, "cannot empty the index's tables", err, err_size) != 0)
            return -1;
    }
    ix->stale = false;
    return 0;
}

int results_pgix_has_upload(struct results_pgix *ix, const char *object_key, bool *has, char *err,
                            size_t err_size)
{
    const char *p[1] = {object_key};
    PGresult *res = query(ix, "SELECT 1 FROM libbench_index_uploads WHERE object_key = $1", 1, p,
                          "cannot read the uploads", err, err_size);
    if (!res)
        return -1;
    *has = PQntuples(res) > 0;
    PQclear(res);
    return 0;
}

static const char UPLOAD[] =
    "INSERT INTO libbench_index_uploads(object_key, bench_id, profile, timestamp_utc, sha256,"
    " source_revision, row_count, rejected_count) VALUES($1, $2, $3, $4, $5, $6, $7::bigint,"
    " $8::bigint) ON CONFLICT(object_key) DO UPDATE SET row_count = excluded.row_count,"
    " rejected_count = excluded.rejected_count RETURNING upload_id";
static const char HOST[] = "INSERT INTO libbench_index_hosts VALUES($1, $2, $3, $4, $5)"
                           " ON CONFLICT DO NOTHING";
/* a bench_id given by two objects: the first key describes the run, whatever the order */
static const char RUN[] =
    "INSERT INTO libbench_index_runs VALUES($1, $2, $3, $4, $5, $6, $7) ON CONFLICT(bench_id)"
    " DO UPDATE SET timestamp_utc = excluded.timestamp_utc, profile = excluded.profile,"
    " host_id = excluded.host_id, source_revision = excluded.source_revision,"
    " first_object = excluded.first_object, sources = excluded.sources"
    " WHERE excluded.first_object < libbench_index_runs.first_object";
static const char SUBJECT[] =
    "INSERT INTO libbench_index_subjects VALUES($1, $2, $3, $4, $5, $6)"
    " ON CONFLICT(bench_id, subject) DO UPDATE SET library_version = excluded.library_version,"
    " compiler = excluded.compiler, source_revision = excluded.source_revision,"
    " first_object = excluded.first_object"
    " WHERE excluded.first_object < libbench_index_subjects.first_object";

int results_pgix_add_upload(struct results_pgix *ix, const struct results_upload *u,
                            const struct results_line *lines, size_t n, char *err, size_t err_size)
{
    char rows[32], rejected[32];
    bench__fmt(rows, sizeof rows, "%zu", u->row_count);
    bench__fmt(rejected, sizeof rejected, "%zu", u->rejected_count);
    const char *up[8] = {u->object_key, u->bench_id,        u->profile, u->timestamp_utc,
                         u->sha256,     u->source_revision, rows,       rejected};
    PGresult *res = query(ix, UPLOAD, 8, up, "cannot add the upload", err, err_size);
    if (!res)
        return -1;
    long long upload_id = PQntuples(res) == 1 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : -1;
    PQclear(res);
    if (upload_id < 0)
        return tool_json_error(err, err_size, "cannot add the upload: no id");
    struct bench__text t = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const struct results_line *l = &lines[i];
        /* the host, run and subject of the line before, added by it: adding them again changes
         * nothing (a host is kept once, a run and a subject keep the first object's row) */
        const struct results_line *prev = i ? &lines[i - 1] : NULL;
        bool same_host = prev && !strcmp(prev->m.host_id, l->m.host_id);
        bool same_run = prev && !strcmp(prev->m.bench_id, l->m.bench_id);
        bool same_subject = same_run && !strcmp(prev->m.subject, l->m.subject);
        const char *host[5] = {l->m.host_id, l->host, l->platform, l->machine, l->cpu_model};
        const char *run_p[7] = {l->m.bench_id,      l->timestamp_utc, l->m.profile,   l->m.host_id,
                                l->source_revision, u->object_key,    l->sources_json};
        const char *subj[6] = {l->m.bench_id, l->m.subject,       l->library_version,
                               l->compiler,   l->source_revision, u->object_key};
        if (!same_host)
            rc = run(ix, HOST, 5, host, "cannot add a host", err, err_size);
        if (rc == 0 && !same_run)
            rc = run(ix, RUN, 7, run_p, "cannot add a run", err, err_size);
        if (rc == 0 && !same_subject)
            rc = run(ix, SUBJECT, 6, subj, "cannot add a subject", err, err_size);
        put_int(&t, upload_id), put_sep(&t, false);
        put_int(&t, (long long)(u->first_line + i)), put_sep(&t, false);
        const char *text[7] = {l->m.bench_id, l->timestamp_utc, l->m.subject, l->m.profile,
                               l->m.scenario, l->m.operation,   l->m.host_id};
        for (int k = 0; k < 7; k++)
            put_text(&t, text[k]), put_sep(&t, false);
        put_int(&t, (long long)l->m.run), put_sep(&t, false);
        put_int(&t, l->m.returncode), put_sep(&t, false);
        put_real(&t, l->m.value_ns), put_sep(&t, false);
        put_int(&t, l->m.whole_process), put_sep(&t, false);
        put_text(&t, l->skip_reason), put_sep(&t, false);
        put_text(&t, l->failure), put_sep(&t, false);
        put_text(&t, l->metrics_json), put_sep(&t, false);
        put_real(&t, l->m.row_samples > 0 ? (double)l->m.row_samples : NAN), put_sep(&t, false);
        put_real(&t, l->m.row_mad_ns), put_sep(&t, false);
        put_real(&t, l->m.contention_known ? l->m.contention : NAN), put_sep(&t, false);
        put_text(&t, l->estimated_json ? l->estimated_json : "[]"), put_sep(&t, true);
    }
    if (rc == 0)
        rc = copy(ix, "COPY libbench_index_measurements FROM STDIN", &t,
                  "cannot add the measurements", err, err_size);
    free(t.data);
    return rc;
}

/* ---- reading back ---- */

static const unsigned char *col_text(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? NULL : (const unsigned char *)PQgetvalue(res, row, col);
}

static double col_real(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? NAN : strtod(PQgetvalue(res, row, col), NULL);
}

static long long col_int(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? 0 : strtoll(PQgetvalue(res, row, col), NULL, 10);
}

int results_pgix_runs(struct results_pgix *ix, struct results_list *out, char *err, size_t err_size)
{
    PGresult *res = query(ix,
                          "SELECT bench_id, timestamp_utc, host_id, profile, source_revision,"
                          " sources FROM libbench_index_runs ORDER BY timestamp_utc, bench_id",
                          0, NULL, "cannot read the index", err, err_size);
    if (!res)
        return -1;
    int rows = PQntuples(res);
    out->runs = bench__xcalloc((size_t)rows + 1, sizeof *out->runs);
    for (int i = 0; i < rows; i++) {
        struct results_run *r = &out->runs[out->n_runs++];
        r->bench_id = results_list_keep(out, col_text(res, i, 0));
        r->timestamp_utc = results_list_keep(out, col_text(res, i, 1));
        r->host_id = results_list_keep(out, col_text(res, i, 2));
        r->profile = results_list_keep(out, col_text(res, i, 3));
        r->source_revision = results_list_keep(out, col_text(res, i, 4));
        r->sources = results_list_keep(out, col_text(res, i, 5));
    }
    PQclear(res);
    return 0;
}

int results_pgix_measurements(struct results_pgix *ix, const char *bench_id,
                              struct results_list *out, char *err, size_t err_size)
{
    const char *p[1] = {bench_id};
    PGresult *res = query(
        ix,
        "SELECT m.bench_id, m.subject, m.profile, m.scenario, m.operation, m.host_id, m.run,"
        " m.returncode, m.value_ns, m.whole_process, m.row_sample_count, m.row_mad_ns,"
        " m.contention, m.metrics, m.estimated_metrics FROM libbench_index_measurements m"
        " JOIN libbench_index_uploads u ON u.upload_id = m.upload_id WHERE m.bench_id = $1"
        " ORDER BY m.subject, m.profile, m.scenario, m.operation, m.run, u.object_key, m.line",
        1, p, "cannot read the index", err, err_size);
    if (!res)
        return -1;
    int rows = PQntuples(res);
    out->values = bench__xcalloc((size_t)rows + 1, sizeof *out->values);
    for (int i = 0; i < rows; i++) {
        struct results_value *v = &out->values[out->n_values++];
        struct bench__result_measurement *m = &v->m;
        const char **text[] = {&m->bench_id, &m->subject,   &m->profile,
                               &m->scenario, &m->operation, &m->host_id};
        for (int k = 0; k < 6; k++)
            *text[k] = results_list_keep(out, col_text(res, i, k));
        m->run = col_int(res, i, 6);
        m->returncode = (int)col_int(res, i, 7);
        m->value_ns = col_real(res, i, 8);
        m->whole_process = col_int(res, i, 9) != 0;
        double samples = col_real(res, i, 10);
        m->row_samples = isfinite(samples) && samples > 0 ? (size_t)samples : 0;
        m->row_mad_ns = col_real(res, i, 11);
        m->contention = col_real(res, i, 12);
        m->contention_known = !isnan(m->contention);
        v->metrics_json = results_list_keep(out, col_text(res, i, 13));
        v->estimated_json = results_list_keep(out, col_text(res, i, 14));
    }
    PQclear(res);
    return 0;
}

int results_pgix_set_aggregates(struct results_pgix *ix, const char *bench_id,
                                const struct bench__result_aggregate *a, size_t n, char *err,
                                size_t err_size)
{
    const char *p[1] = {bench_id};
    if (run(ix, "DELETE FROM libbench_index_aggregates WHERE bench_id = $1", 1, p,
            "cannot replace the aggregates", err, err_size) != 0)
        return -1;
    struct bench__text t = {0};
    for (size_t i = 0; i < n; i++) {
        const char *text[] = {a[i].bench_id, a[i].subject,   a[i].profile,
                              a[i].scenario, a[i].operation, a[i].host_id};
        for (int k = 0; k < 6; k++)
            put_text(&t, text[k]), put_sep(&t, false);
        const long long count[] = {a[i].whole_process, (long long)a[i].total_count,
                                   (long long)a[i].sample_count, (long long)a[i].skip_count,
                                   (long long)a[i].failure_count};
        for (int k = 0; k < 5; k++)
            put_int(&t, count[k]), put_sep(&t, false);
        const double real[] = {a[i].failure_rate, a[i].p50, a[i].p90, a[i].p99,
                               a[i].min,          a[i].max, a[i].mad};
        for (int k = 0; k < 7; k++)
            put_real(&t, real[k]), put_sep(&t, false);
        put_int(&t, (long long)a[i].mad_n), put_sep(&t, false);
        put_real(&t, a[i].contention), put_sep(&t, true);
    }
    int rc = copy(ix, "COPY libbench_index_aggregates FROM STDIN", &t, "cannot add an aggregate",
                  err, err_size);
    free(t.data);
    return rc;
}

int results_pgix_aggregates(struct results_pgix *ix, struct results_list *out, char *err,
                            size_t err_size)
{
    PGresult *res =
        query(ix,
              "SELECT bench_id, subject, profile, scenario, operation, host_id, whole_process,"
              " total_count, sample_count, skip_count, failure_count, failure_rate, p50_ns, p90_ns,"
              " p99_ns, min_ns, max_ns, mad_ns, mad_n, contention FROM libbench_index_aggregates"
              " ORDER BY bench_id, subject, profile, scenario, operation",
              0, NULL, "cannot read the index", err, err_size);
    if (!res)
        return -1;
    int rows = PQntuples(res);
    out->aggs = bench__xcalloc((size_t)rows + 1, sizeof *out->aggs);
    for (int i = 0; i < rows; i++) {
        struct bench__result_aggregate *a = &out->aggs[out->n_aggs++];
        const char **text[] = {&a->bench_id, &a->subject,   &a->profile,
                               &a->scenario, &a->operation, &a->host_id};
        for (int k = 0; k < 6; k++)
            *text[k] = results_list_keep(out, col_text(res, i, k));
        a->whole_process = col_int(res, i, 6) != 0;
        a->total_count = (size_t)col_int(res, i, 7);
        a->sample_count = (size_t)col_int(res, i, 8);
        a->skip_count = (size_t)col_int(res, i, 9);
        a->failure_count = (size_t)col_int(res, i, 10);
        double *real[] = {&a->failure_rate, &a->p50, &a->p90, &a->p99, &a->min, &a->max, &a->mad};
        for (int k = 0; k < 7; k++)
            *real[k] = col_real(res, i, k + 11);
        a->mad_n = (size_t)col_int(res, i, 18);
        a->contention = col_real(res, i, 19);
    }
    PQclear(res);
    return 0;
}

int results_pgix_clear_comparisons(struct results_pgix *ix, char *err, size_t err_size)
{
    return run(ix, "DELETE FROM libbench_index_comparisons", 0, NULL,
               "cannot replace the comparisons", err, err_size);
}

static bool same_cell(const struct bench__result_row *a, const struct bench__result_row *b)
{
    const struct bench__result_aggregate *x = a->target, *y = b->target;
    return !strcmp(x->bench_id, y->bench_id) && !strcmp(x->subject, y->subject) &&
           !strcmp(x->profile, y->profile) && !strcmp(x->scenario, y->scenario) &&
           !strcmp(x->operation, y->operation);
}

int results_pgix_add_comparisons(struct results_pgix *ix, const struct bench__result_row *rows,
                                 size_t n, char *err, size_t err_size)
{
    struct bench__text t = {0};
    for (size_t i = 0; i < n; i++) {
        const struct bench__result_row *r = &rows[i];
        bool replaced = false; /* SQLite's INSERT OR REPLACE: the last row of a cell stays */
        for (size_t j = i + 1; j < n && !replaced; j++)
            replaced = same_cell(r, &rows[j]);
        if (replaced)
            continue;
        const char *text[] = {r->target->bench_id,
                              r->target->subject,
                              r->target->profile,
                              r->target->scenario,
                              r->target->operation,
                              r->baseline ? r->baseline->bench_id : NULL,
                              r->reference ? r->reference->bench_id : NULL,
                              r->reference ? r->reference->subject : NULL,
                              bench__result_state_name(r->state),
                              r->decided_by,
                              r->why};
        for (int k = 0; k < 11; k++)
            put_text(&t, text[k]), put_sep(&t, false);
        const double real[] = {r->delta_p50_ns,   r->delta_p90_ns,   r->delta_p99_ns,
                               r->slower_p50_pct, r->slower_p90_pct, r->slower_p99_pct,
                               r->severity};
        for (int k = 0; k < 7; k++)
            put_real(&t, real[k]), put_sep(&t, k == 6);
    }
    int rc = copy(ix, "COPY libbench_index_comparisons FROM STDIN", &t, "cannot add a comparison",
                  err, err_size);
    free(t.data);
    return rc;
}

int results_pgix_upload_keys(struct results_pgix *ix, char ***keys, size_t *n, char *err,
                             size_t err_size)
{
    *keys = NULL;
    *n = 0;
    PGresult *res = query(ix, "SELECT object_key FROM libbench_index_uploads ORDER BY object_key",
                          0, NULL, "cannot read the index", err, err_size);
    if (!res)
        return -1;
    int rows = PQntuples(res);
    *keys = bench__xcalloc((size_t)rows + 1, sizeof **keys);
    for (int i = 0; i < rows; i++)
        (*keys)[(*n)++] = bench__xstrdup(PQgetvalue(res, i, 0));
    PQclear(res);
    return 0;
}

int results_pgix_set_changes(struct results_pgix *ix, const struct results_change *c, size_t n,
                             char *err, size_t err_size)
{
    if (run(ix, "DELETE FROM libbench_index_changes", 0, NULL, "cannot replace the change points",
            err, err_size) != 0)
        return -1;
    struct bench__text t = {0};
    for (size_t i = 0; i < n; i++) {
        const struct results_change *x = &c[i];
        const char *text[] = {x->profile,           x->scenario,        x->operation,
                              x->subject,           x->host_id,         x->bench_id,
                              x->timestamp_utc,     x->source_revision, x->sources,
                              x->previous_bench_id, x->first_bench_id,  x->last_bench_id};
        const double real[] = {x->median_before_ns, x->median_after_ns, x->size_rel, x->ci_low_rel,
                               x->ci_high_rel,      x->ci_level,        x->p,        x->t};
        for (int k = 0; k < 12; k++)
            put_text(&t, text[k]), put_sep(&t, false);
        put_int(&t, (long long)x->runs_before), put_sep(&t, false);
        put_int(&t, (long long)x->runs_after), put_sep(&t, false);
        for (int k = 0; k < 8; k++)
            put_real(&t, real[k]), put_sep(&t, k == 7);
    }
    int rc = copy(ix, "COPY libbench_index_changes FROM STDIN", &t, "cannot add a change point",
                  err, err_size);
    free(t.data);
    return rc;
}

int results_pgix_changes(struct results_pgix *ix, struct results_list *out, char *err,
                         size_t err_size)
{
    PGresult *res =
        query(ix,
              "SELECT profile, scenario, operation, subject, host_id, bench_id, timestamp_utc,"
              " source_revision, sources, previous_bench_id, first_bench_id, last_bench_id,"
              " runs_before, runs_after, median_before_ns, median_after_ns, size_rel, ci_low_rel,"
              " ci_high_rel, ci_level, p, t FROM libbench_index_changes ORDER BY profile, scenario,"
              " operation, subject, host_id, timestamp_utc, bench_id",
              0, NULL, "cannot read the index", err, err_size);
    if (!res)
        return -1;
    int rows = PQntuples(res);
    out->changes = bench__xcalloc((size_t)rows + 1, sizeof *out->changes);
    for (int i = 0; i < rows; i++) {
        struct results_change *x = &out->changes[out->n_changes++];
        const char **text[] = {&x->profile,           &x->scenario,        &x->operation,
                               &x->subject,           &x->host_id,         &x->bench_id,
                               &x->timestamp_utc,     &x->source_revision, &x->sources,
                               &x->previous_bench_id, &x->first_bench_id,  &x->last_bench_id};
        for (int k = 0; k < 12; k++)
            *text[k] = results_list_keep(out, col_text(res, i, k));
        x->runs_before = (size_t)col_int(res, i, 12);
        x->runs_after = (size_t)col_int(res, i, 13);
        double *real[] = {&x->median_before_ns, &x->median_after_ns, &x->size_rel, &x->ci_low_rel,
                          &x->ci_high_rel,      &x->ci_level,        &x->p,        &x->t};
        for (int k = 0; k < 8; k++)
            *real[k] = col_real(res, i, k + 14);
    }
    PQclear(res);
    return 0;
}
