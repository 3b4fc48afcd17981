/* SPDX-License-Identifier: MIT */
/* results_index.h: the narrow interface of the results history's derived index (the tables of
 * docs/reference/results.md, "The index"). The index is rebuilt from raw/ alone, so everything in
 * it is derived. Callers see only these calls: rows go in as raw lines, aggregates and
 * comparisons computed elsewhere (lib/stats/results.h), and come back out as plain structs. Two
 * implementations (results_index_impl.h), chosen when the index is opened (results_index.c):
 * SQLite (a directory's index.sqlite, results_sqlite.c) and PostgreSQL (the index tables of a
 * postgresql:// store, results_index_pg.c); nothing else holds SQL of the index. */
#ifndef LIBBENCH_RESULTS_INDEX_H
#define LIBBENCH_RESULTS_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "results_tool.h"
#include "stats/results.h"

struct results_index;

/* What a call returns when the index cannot be read as one: not a database, damaged pages, or
 * an index of another schema. The raw objects are intact: `libbench results rebuild` replaces
 * it (the store adds that to the reason). Every other failure is -1. */
#define RESULTS_INDEX_DAMAGED (-2)

/* Opens the index at path (never through a symbolic link), creating it and its tables when it
 * holds nothing yet; waits for other writers (a busy timeout) rather than failing. 0, or -1 or
 * RESULTS_INDEX_DAMAGED with the reason in err. */
int results_index_open(const char *path, struct results_index **out, char *err, size_t err_size);
/* Opens the index tables of the PostgreSQL store pg (a build with libpq), on its connection:
 * creates them, or migrates them from an older version (then results_index_stale), under an
 * advisory lock when they are not at this libbench's version. 0, or -1 with the reason. */
struct results_pg;
int results_index_open_pg(struct results_pg *pg, struct results_index **out, char *err,
                          size_t err_size);
void results_index_close(struct results_index *ix);
/* A page cache of 8 MiB rather than a record's 128 MiB: what a reader that reads each page once
 * (a report of the latest run) keeps in memory. */
void results_index_reader_cache(struct results_index *ix);
/* Whether a call on ix failed because the index is damaged (RESULTS_INDEX_DAMAGED), whatever
 * the caller's return value said. */
bool results_index_damaged(const struct results_index *ix);
/* Whether the last failure of ix may pass when its whole transaction is run again (a server's
 * serialization failure or deadlock): the store runs it again, RESULTS_INDEX_TRIES times at
 * most. Never for SQLite (its writers wait for each other). */
#define RESULTS_INDEX_TRIES 8
bool results_index_retryable(const struct results_index *ix);
/* Whether the index file at path is healthy, read only: 0, or 1 with why it is not (no
 * database, another schema, PRAGMA quick_check's first complaint) in why. */
int results_index_health(const char *path, char *why, size_t why_size);
/* Replaces the whole content of ix by the index at source_path, in one transaction under ix's
 * write lock (a rebuilt index put in place of a healthy one that other processes may hold
 * open). 0, or -1 with the reason. */
int results_index_replace(struct results_index *ix, const char *source_path, char *err,
                          size_t err_size);

/* One write transaction that excludes every other writer from its start; the other calls change
 * nothing outside one. On PostgreSQL, the raw object a record inserts is in the same
 * transaction. */
int results_index_begin(struct results_index *ix, char *err, size_t err_size);
int results_index_commit(struct results_index *ix, char *err, size_t err_size);
void results_index_rollback(struct results_index *ix);
/* Drops every table and creates them empty (for a rebuild, inside its transaction). */
int results_index_reset(struct results_index *ix, char *err, size_t err_size);
/* Whether the index was made by another version of its tables (an older libbench): nothing
 * but a reset may then write to it; the store rebuilds it from raw/ (results_store.c). */
bool results_index_stale(const struct results_index *ix);

/* One raw object. */
struct results_upload {
    const char *object_key, *bench_id, *profile, *timestamp_utc, *sha256;
    const char *source_revision; /* NULL when null */
    size_t row_count;            /* lines accepted */
    size_t rejected_count;       /* lines sent to ingest-errors/ */
    size_t first_line;           /* the accepted lines before the ones of this call */
};
/* Whether the object is already in the index. */
int results_index_has_upload(struct results_index *ix, const char *object_key, bool *has, char *err,
                             size_t err_size);
/* Adds the object, its accepted lines (the measurements, with their hosts, run and subjects).
 * An object may be added in several calls, a batch of lines each (first_line advanced): the
 * object's row is written again by each, and the last call's counts stay. */
int results_index_add_upload(struct results_index *ix, const struct results_upload *u,
                             const struct results_line *lines, size_t n, char *err,
                             size_t err_size);

/* What the index gives back. Every string is owned by the list; free with
 * results_list_free. */
struct results_run {
    const char *bench_id, *timestamp_utc, *host_id, *profile;
    const char *source_revision; /* NULL when the run carries none */
    const char *sources;         /* its sources, a JSON object's text; NULL when none */
};
struct results_value {
    struct bench__result_measurement m; /* strings owned by the list */
    const char *metrics_json;           /* the line's metrics object (JSON text) */
    const char *estimated_json;         /* the names of its estimated metrics (a JSON array) */
};
/* One change point of one series (docs/reference/results.md, "The index", table `changes`):
 * the series, the run where the new segment starts with its commit and sources, the runs
 * around it, and what lib/stats/changepoint.h found (cp.index etc. are of the series). */
struct results_change {
    const char *profile, *scenario, *operation, *subject, *host_id;
    const char *bench_id, *timestamp_utc;       /* the run where the new segment starts */
    const char *source_revision, *sources;      /* that run's; NULL when none */
    const char *previous_bench_id;              /* the last run with a value before it */
    const char *first_bench_id, *last_bench_id; /* the runs the test compared, both included */
    size_t runs_before, runs_after;
    double median_before_ns, median_after_ns;
    double size_rel, ci_low_rel, ci_high_rel, ci_level; /* NaN when not computed */
    double p, t;
};
struct results_intern; /* the list's strings, each kept once (results_list.c) */
struct results_list {
    struct results_run *runs;
    size_t n_runs;
    struct results_value *values;
    size_t n_values;
    struct bench__result_aggregate *aggs;
    size_t n_aggs;
    struct results_change *changes;
    size_t n_changes;
    char **strings; /* every string above */
    size_t n_strings, cap_strings;
    struct results_intern *intern;
};
void results_list_free(struct results_list *list);
/* text kept in the list once (the same pointer for the same text), NULL for NULL (results_list.c)
 */
const char *results_list_keep(struct results_list *l, const unsigned char *text);

/* Every run, oldest first (timestamp_utc, then bench_id). */
int results_index_runs(struct results_index *ix, struct results_list *out, char *err,
                       size_t err_size);
/* The measurements of one bench_id, in (subject, profile, scenario, operation, run) order. */
int results_index_measurements(struct results_index *ix, const char *bench_id,
                               struct results_list *out, char *err, size_t err_size);
/* Replaces the aggregates of one bench_id. */
int results_index_set_aggregates(struct results_index *ix, const char *bench_id,
                                 const struct bench__result_aggregate *a, size_t n, char *err,
                                 size_t err_size);
/* Every aggregate, in (bench_id, subject, profile, scenario, operation) order. */
int results_index_aggregates(struct results_index *ix, struct results_list *out, char *err,
                             size_t err_size);
/* Removes every comparison (before results_index_add_comparisons writes them anew). */
int results_index_clear_comparisons(struct results_index *ix, char *err, size_t err_size);
/* Adds comparisons: each row judged, its baseline's and reference's bench_id with it. */
int results_index_add_comparisons(struct results_index *ix, const struct bench__result_row *rows,
                                  size_t n, char *err, size_t err_size);
/* Every object key the index holds, in byte order (malloc'd, each and the array). */
int results_index_upload_keys(struct results_index *ix, char ***keys, size_t *n, char *err,
                              size_t err_size);
/* Replaces every change point (the store's step after the aggregates: report_series.c finds
 * them in every series of the index). */
int results_index_set_changes(struct results_index *ix, const struct results_change *c, size_t n,
                              char *err, size_t err_size);
/* Every change point, in (profile, scenario, operation, subject, host_id, timestamp_utc,
 * bench_id) order. */
int results_index_changes(struct results_index *ix, struct results_list *out, char *err,
                          size_t err_size);

#endif /* LIBBENCH_RESULTS_INDEX_H */
