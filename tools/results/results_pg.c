/* SPDX-License-Identifier: MIT */
/* results_pg.c: owns the raw objects of a PostgreSQL store (libpq): the connection, the schema
 * (versioned, created or migrated under an advisory lock), an object inserted once in one
 * transaction (retried on a serialization failure or a deadlock, bounded), read back, listed in
 * byte order, and the ingest errors (or inserted inside the transaction of a record's index);
 * the URL shown without its password. Every statement is parameterized; and the store it makes
 * (results_store.c). It holds no index (its tables are results_index_pg.c's). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "results_tool.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

#define PG_SCHEMA_VERSION 1
#define PG_LOCK_KEY "7355608029" /* pg_advisory_xact_lock's key of libbench's schema */
#define PG_TRIES 8               /* a transaction retried at most this often */

struct results_pg {
    PGconn *conn;
    char *shown; /* the URL without its password */
    bool retry;  /* the last failure of a put inside a transaction may pass if run again */
};

PGconn *results_pg_conn(struct results_pg *pg)
{
    return pg->conn;
}

bool results_pg_retry(const struct results_pg *pg)
{
    return pg->retry;
}

const char *results_pg_shown(const struct results_pg *pg)
{
    return pg->shown;
}

char *results_pg_redact(const char *url)
{
    /* scheme://user:password@host...: the password cut out; ...?password=x: its value hidden */
    const char *rest = strstr(url, "://");
    struct bench__text t = {0};
    if (rest) {
        rest += 3;
        /* the last '@' of the authority: a password with an unencoded '@' is cut whole */
        const char *at = NULL;
        for (const char *p = rest; *p && *p != '/' && *p != '?'; p++)
            if (*p == '@')
                at = p;
        const char *colon = at ? memchr(rest, ':', (size_t)(at - rest)) : NULL;
        if (colon) {
            bench__text_append(url, (size_t)(colon - url), &t);
            url = at;
        }
    }
    for (const char *p = url; *p;) {
        const char *q = strcasestr(p, "password=");
        if (!q || (q != url && q[-1] != '?' && q[-1] != '&')) {
            bench__text_append(p, q ? (size_t)(q - p) + 9 : strlen(p), &t);
            p = q ? q + 9 : p + strlen(p);
            continue;
        }
        bench__text_append(p, (size_t)(q - p) + 9, &t);
        bench__text_append("***", 3, &t);
        p = q + 9 + strcspn(q + 9, "&");
    }
    char shown[512];
    bench__sanitize_copy(t.data ? t.data : "", shown, sizeof shown);
    free(t.data);
    return bench__xstrdup(shown);
}

int results_pg_error(const struct results_pg *pg, const PGresult *res, const char *what, char *err,
                     size_t size)
{
    const char *msg = res ? PQresultErrorMessage(res) : "";
    if (!msg || !msg[0])
        msg = PQerrorMessage(pg->conn);
    char line[300];
    size_t n = 0;
    for (const char *p = msg; *p && n + 3 < sizeof line; p++) {
        if (*p == '\n' || *p == '\r') { /* "...\n\tHINT..." into "...; HINT..." */
            while (p[1] == ' ' || p[1] == '\t')
                p++;
            if (p[1] && p[1] != '\n' && n)
                line[n++] = ';', line[n++] = ' ';
            continue;
        }
        line[n++] = *p == '\t' ? ' ' : *p;
    }
    while (n && line[n - 1] == ' ')
        n--;
    line[n] = '\0';
    char clean[300];
    bench__sanitize_copy(line, clean, sizeof clean);
    return tool_json_error(err, size, "%s: %s: %s", pg->shown, what,
                           clean[0] ? clean : "the server did not answer");
}

/* The SQLSTATE of a failed result, "" when none. */
static const char *sqlstate(const PGresult *res)
{
    const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return s ? s : "";
}

bool results_pg_retryable(const PGresult *res)
{
    return !strcmp(sqlstate(res), "40001") || !strcmp(sqlstate(res), "40P01");
}

/* One statement without parameters that returns no rows: 0, or -1 with the reason. */
static int pg_exec(struct results_pg *pg, const char *sql, const char *what, char *err, size_t size)
{
    PGresult *res = PQexec(pg->conn, sql);
    int rc = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK
                 ? 0
                 : results_pg_error(pg, res, what, err, size);
    PQclear(res);
    return rc;
}

static const char *const schema_v1[] = {
    "CREATE TABLE IF NOT EXISTS libbench_raw_objects ("
    " key text PRIMARY KEY COLLATE \"C\","
    " sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),"
    " bytes bytea NOT NULL,"
    " created_utc timestamptz NOT NULL DEFAULT now())",
    "CREATE TABLE IF NOT EXISTS libbench_raw_uploads ("
    " id bigserial PRIMARY KEY,"
    " key text NOT NULL COLLATE \"C\","
    " uploaded_utc timestamptz NOT NULL DEFAULT now(),"
    " already boolean NOT NULL)",
    "CREATE TABLE IF NOT EXISTS libbench_ingest_errors ("
    " key text PRIMARY KEY COLLATE \"C\","
    " bytes bytea NOT NULL,"
    " created_utc timestamptz NOT NULL DEFAULT now())",
    /* append-only: a body is never updated nor removed, whatever role asks */
    "CREATE OR REPLACE FUNCTION libbench_raw_immutable() RETURNS trigger LANGUAGE plpgsql AS "
    "$$BEGIN RAISE EXCEPTION 'libbench raw objects are append-only'; END$$",
    "DROP TRIGGER IF EXISTS libbench_raw_immutable ON libbench_raw_objects",
    "CREATE TRIGGER libbench_raw_immutable BEFORE UPDATE OR DELETE ON libbench_raw_objects"
    " FOR EACH ROW EXECUTE FUNCTION libbench_raw_immutable()",
    "INSERT INTO libbench_schema (version) VALUES (1)",
};

/* The schema at PG_SCHEMA_VERSION, made or migrated under the advisory lock, in one
 * transaction. */
static int pg_schema(struct results_pg *pg, char *err, size_t size)
{
    /* the schema already at this version: nothing to create, no lock (a reader's role cannot
     * create) */
    PGresult *now = PQexec(pg->conn, "SELECT max(version) FROM libbench_schema");
    bool current = PQresultStatus(now) == PGRES_TUPLES_OK && PQntuples(now) == 1 &&
                   !PQgetisnull(now, 0, 0) && atoi(PQgetvalue(now, 0, 0)) == PG_SCHEMA_VERSION;
    PQclear(now);
    if (current)
        return 0;
    for (int tries = 0;; tries++) {
        if (pg_exec(pg, "BEGIN", "cannot begin", err, size) != 0)
            return -1;
        int rc = pg_exec(pg, "SELECT pg_advisory_xact_lock(" PG_LOCK_KEY ")",
                         "cannot lock the schema", err, size);
        if (rc == 0)
            rc =
                pg_exec(pg, "CREATE TABLE IF NOT EXISTS libbench_schema (version integer NOT NULL)",
                        "cannot create the schema", err, size);
        int version = 0;
        if (rc == 0) {
            PGresult *res =
                PQexec(pg->conn, "SELECT coalesce(max(version), 0) FROM libbench_schema");
            if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
                version = atoi(PQgetvalue(res, 0, 0));
            else
                rc = results_pg_error(pg, res, "cannot read the schema version", err, size);
            PQclear(res);
        }
        if (rc == 0 && version > PG_SCHEMA_VERSION)
            rc = tool_json_error(err, size,
                                 "%s: its libbench schema is version %d, newer than this "
                                 "libbench's (%d): use a newer libbench",
                                 pg->shown, version, PG_SCHEMA_VERSION);
        for (size_t i = 0; rc == 0 && version < 1 && i < sizeof schema_v1 / sizeof *schema_v1; i++)
            rc = pg_exec(pg, schema_v1[i], "cannot create the schema", err, size);
        if (rc == 0 && pg_exec(pg, "COMMIT", "cannot create the schema", err, size) == 0)
            return 0;
        pg_exec(pg, "ROLLBACK", "rollback", (char[64]){0}, 64);
        /* two first uses at once: the CREATE TABLE IF NOT EXISTS of the lock's table may race */
        if (tries + 1 >= PG_TRIES || !strstr(err, "already exists"))
            return -1;
    }
}

int results_pg_open(const char *url, struct results_pg **out, char *err, size_t size)
{
    struct results_pg *pg = bench__xcalloc(1, sizeof *pg);
    pg->shown = results_pg_redact(url);
    *out = NULL;
    pg->conn = PQconnectdb(url); /* sslmode and the other libpq options pass through */
    if (PQstatus(pg->conn) != CONNECTION_OK) {
        results_pg_error(pg, NULL, "cannot connect", err, size);
        results_pg_close(pg);
        return -1;
    }
    PQclear(PQexec(pg->conn, "SET client_min_messages = warning"));
    if (pg_schema(pg, err, size) != 0) {
        results_pg_close(pg);
        return -1;
    }
    *out = pg;
    return 0;
}

void results_pg_close(struct results_pg *pg)
{
    if (!pg)
        return;
    PQfinish(pg->conn);
    free(pg->shown);
    free(pg);
}

/* One parameterized statement; params[i] of lengths[i] bytes (binary when lengths[i] > 0 and
 * binary[i]). The result, or NULL with the reason when it failed (*retry: worth another try). */
static PGresult *pg_query(struct results_pg *pg, const char *sql, int n, const char *const *params,
                          const int *lengths, const int *formats, int result_format,
                          const char *what, bool *retry, char *err, size_t size)
{
    PGresult *res = PQexecParams(pg->conn, sql, n, NULL, params, lengths, formats, result_format);
    ExecStatusType s = PQresultStatus(res);
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
        return res;
    if (retry)
        *retry = results_pg_retryable(res);
    results_pg_error(pg, res, what, err, size);
    PQclear(res);
    return NULL;
}

/* A value of bytea read back in binary. */
static bool same_value(const PGresult *res, int col, const char *text, size_t len)
{
    return (size_t)PQgetlength(res, 0, col) == len &&
           memcmp(PQgetvalue(res, 0, col), text, len) == 0;
}

/* The statements of one put, inside a transaction: 0 inserted, 1 the same bytes were there, -1
 * with the reason (*retry: worth running the transaction again). */
static int put_in(struct results_pg *pg, bool raw, const char *key, const char *sha256,
                  const char *text, size_t len, bool *retry, char *err, size_t size)
{
    const char *select = raw ? "SELECT bytes FROM libbench_raw_objects WHERE key = $1"
                             : "SELECT bytes FROM libbench_ingest_errors WHERE key = $1";
    int rc = 0;
    const char *params[3] = {key, raw ? sha256 : "", text};
    int lengths[3] = {0, 0, (int)len}, formats[3] = {0, 0, 1};
    PGresult *res;
    if (raw) {
        res = pg_query(pg,
                       "INSERT INTO libbench_raw_objects (key, sha256, bytes) "
                       "VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING",
                       3, params, lengths, formats, 0, "cannot insert", retry, err, size);
    } else {
        const char *p2[2] = {key, text};
        int l2[2] = {0, (int)len}, f2[2] = {0, 1};
        res = pg_query(pg,
                       "INSERT INTO libbench_ingest_errors (key, bytes) VALUES ($1, $2) "
                       "ON CONFLICT (key) DO NOTHING",
                       2, p2, l2, f2, 0, "cannot insert", retry, err, size);
    }
    bool inserted = res && !strcmp(PQcmdTuples(res), "1");
    if (!res)
        rc = -1;
    PQclear(res);
    if (rc == 0 && !inserted) { /* there already: the same bytes, or another's */
        res = pg_query(pg, select, 1, params, NULL, NULL, 1, "cannot read", retry, err, size);
        if (!res)
            rc = -1;
        else if (PQntuples(res) != 1 || !same_value(res, 0, text, len))
            rc = tool_json_error(err, size,
                                 "%s: %s is there with other bytes: it was altered after it "
                                 "was written (its content no longer matches its key); "
                                 "nothing was recorded",
                                 pg->shown, key);
        PQclear(res);
    }
    if (rc == 0 && raw) {
        const char *p2[2] = {key, inserted ? "false" : "true"};
        res = pg_query(pg, "INSERT INTO libbench_raw_uploads (key, already) VALUES ($1, $2)", 2, p2,
                       NULL, NULL, 0, "cannot insert", retry, err, size);
        rc = res ? 0 : -1;
        PQclear(res);
    }
    return rc == 0 ? (inserted ? 0 : 1) : -1;
}

int results_pg_put(struct results_pg *pg, const char *table, const char *key, const char *sha256,
                   const char *text, size_t len, char *err, size_t size)
{
    bool raw = !strcmp(table, "raw");
    if (len > (size_t)RESULTS_OBJECT_MAX_BYTES)
        return tool_json_error(err, size, "%s: %s: over the store's limit", pg->shown, key);
    if (PQtransactionStatus(pg->conn) != PQTRANS_IDLE) {
        /* inside the transaction of a record's index (results_index_pg.c): one commit for both,
         * and the record runs it again when it may pass */
        pg->retry = false;
        return put_in(pg, raw, key, sha256, text, len, &pg->retry, err, size);
    }
    for (int tries = 0;; tries++) {
        bool retry = false;
        if (pg_exec(pg, "BEGIN ISOLATION LEVEL SERIALIZABLE", "cannot begin", err, size) != 0)
            return -1;
        int rc = put_in(pg, raw, key, sha256, text, len, &retry, err, size);
        if (rc >= 0) {
            PGresult *res = PQexec(pg->conn, "COMMIT");
            if (PQresultStatus(res) == PGRES_COMMAND_OK) {
                PQclear(res);
                return rc;
            }
            retry = results_pg_retryable(res);
            results_pg_error(pg, res, "cannot commit", err, size);
            PQclear(res);
        } else {
            PQclear(PQexec(pg->conn, "ROLLBACK"));
        }
        if (!retry || tries + 1 >= PG_TRIES || PQstatus(pg->conn) != CONNECTION_OK)
            return -1;
        /* another recorder's transaction won: wait 1, 2, 4... ms, then again */
        struct timespec pause = {0, (1L << tries) * 1000000L};
        nanosleep(&pause, NULL);
    }
}

int results_pg_read(struct results_pg *pg, const char *key, char **text, size_t *len, char *err,
                    size_t size)
{
    *text = NULL;
    *len = 0;
    char limit[32];
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)RESULTS_OBJECT_MAX_BYTES);
    const char *params[2] = {key, limit};
    /* the length first: an object over the limit is refused without being fetched */
    PGresult *res = pg_query(pg,
                             "SELECT CASE WHEN octet_length(bytes) <= $2::bigint THEN bytes END "
                             "FROM libbench_raw_objects WHERE key = $1",
                             2, params, NULL, NULL, 1, "cannot read", NULL, err, size);
    if (!res)
        return -1;
    int rc = 0;
    if (PQntuples(res) != 1)
        rc = tool_json_error(err, size, "cannot read: %s: no such object", key);
    else if (PQgetisnull(res, 0, 0))
        rc = tool_json_error(err, size, "cannot read: %s: over the store's limit", key);
    else {
        *len = (size_t)PQgetlength(res, 0, 0);
        *text = bench__xmalloc(*len + 1);
        memcpy(*text, PQgetvalue(res, 0, 0), *len);
        (*text)[*len] = '\0';
    }
    PQclear(res);
    return rc;
}

int results_pg_list(struct results_pg *pg, char ***keys, size_t *n, char *err, size_t size)
{
    *keys = NULL;
    *n = 0;
    PGresult *res =
        pg_query(pg, "SELECT key FROM libbench_raw_objects ORDER BY key COLLATE \"C\"", 0, NULL,
                 NULL, NULL, 0, "cannot list the raw objects", NULL, err, size);
    if (!res)
        return -1;
    size_t rows = (size_t)PQntuples(res);
    *keys = bench__xcalloc(rows + 1, sizeof **keys);
    for (size_t i = 0; i < rows; i++)
        (*keys)[i] = bench__xstrdup(PQgetvalue(res, (int)i, 0));
    *n = rows;
    PQclear(res);
    return 0;
}

/* ---- the store: its raw objects and its index on the server ---- */

/* A PostgreSQL store: its raw objects, ingest errors and index tables on the server; no local
 * directory (st->fd stays -1). */
int results_pg_store_open(const char *url, struct results_store *st, char *err, size_t err_size)
{
    if (results_pg_open(url, &st->pg, err, err_size) != 0)
        return -1;
    st->dir = results_pg_shown(st->pg);
    return 0;
}
