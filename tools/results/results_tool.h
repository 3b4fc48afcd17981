/* SPDX-License-Identifier: MIT */
/* results_tool.h: the declarations the files of the results history share (`libbench record`,
 * `libbench report`, `libbench results rebuild`): the raw line (docs/reference/results.md, "The
 * raw line"), the store's layout on disk, and the commands' entry points. The index has its own
 * narrow interface (results_index.h). */
#ifndef LIBBENCH_RESULTS_TOOL_H
#define LIBBENCH_RESULTS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "stats/results.h"
#include "common/file.h"
#include "common/sha256.h"
#include "util/atomic_file.h"

#define RESULTS_DEFAULT_DIR "results"
#define RESULTS_DEFAULT_PROFILE "default"
/* One limit for what the store reads and writes (tools/common/file.h, 256 MiB): a document
 * larger is refused, and so is a document whose lines would make the raw object larger, before
 * anything is written: the store never writes an object its own reader refuses. */
#define RESULTS_DOC_MAX_BYTES TOOL_FILE_MAX_BYTES
#define RESULTS_OBJECT_MAX_BYTES TOOL_FILE_MAX_BYTES
#define RESULTS_RUNS_MAX 1000000u /* a run document's meta.runs: 10 x libbench run's limit */
#define RESULTS_DEFAULT_SUBJECT "local"
#define RESULTS_SCHEMA_VERSION 1

/* What one `libbench record` call stamps on every line it writes. */
struct results_record_info {
    char bench_id[17];      /* YYYYMMDDTHHMMSSZ, UTC */
    char timestamp_utc[21]; /* YYYY-MM-DDTHH:MM:SSZ */
    char date[11];          /* YYYY-MM-DD: the object's date= part */
    const char *profile, *subject;
    const char *source_revision; /* NULL when the working directory is not a git checkout */
    const char *recorder_version;
    const char *subject_role;  /* --subject-role: baseline, candidate, aa_control, reference;
                                  NULL when not said */
    const char *binary_sha256; /* of --binary FILE; NULL without it */
    const json_t *sources;     /* --source NAME=HASH, as an object; NULL without any */
};

/* "YYYY-MM-DDTHH:MM:SSZ" (or with a "+00:00" offset) into seconds since the epoch. */
bool results_time_parse(const char *text, int64_t *epoch);
/* Fills bench_id, timestamp_utc and date from seconds since the epoch; false out of range. */
bool results_time_stamp(int64_t epoch, struct results_record_info *info);
/* A profile name is a path part: 1 to 64 of [A-Za-z0-9._-], not starting with '.'. */
bool results_profile_ok(const char *profile);
/* "NAME=HASH" (a source and its hash or commit, `record --source`, or a document's provenance
 * fact "source NAME=HASH") into obj; false when it is not one: NAME 1 to 64 of
 * [A-Za-z0-9._-], HASH 1 to 128 printable ASCII characters without a space. */
bool results_source_add(json_t *obj, const char *text);
/* Whether a --subject-role is one of the roles of the results contract. */
bool results_subject_role_ok(const char *role);

/* Appends the raw lines of one document (--bench-json schema 2, or `libbench run --json` schema
 * 1) to out. *run_base is the run index of the document's first repetition; it is advanced past
 * the document's repetitions. A row the reader cannot accept is appended to `rejected` (a JSON
 * array) as {"row": index, "reason": text, "value": the row} and written nowhere else. Returns
 * the number of lines written, or -1 with the reason in err when the whole document is refused:
 * then nothing of it is in out or rejected. A document whose lines would take out over
 * RESULTS_OBJECT_MAX_BYTES is refused whole, before those lines are written where their count
 * tells it (meta.runs of a failed command, a --bench-json document's rows). */
long results_doc_lines(const json_t *doc, size_t doc_index, const struct results_record_info *info,
                       size_t *run_base, struct bench__text *out, json_t *rejected, char *err,
                       size_t err_size);
/* The same from the document's text (len bytes), read a few rows at a time
 * (common/json_rows.h): what `libbench record` calls. A text that is not JSON is refused whole
 * ("not JSON: ..."), wherever the fault is. */
long results_doc_text_lines(const char *text, size_t len, size_t doc_index,
                            const struct results_record_info *info, size_t *run_base,
                            struct bench__text *out, json_t *rejected, char *err, size_t err_size);

/* One raw line read back. Every string is owned by root (or text), except the *_json texts
 * (malloc'd).
 * A field a line written before it existed lacks reads as not known (NULL, 0, NaN). */
struct results_line {
    json_t *root;
    char *text; /* the line's copy its strings point into, when results_line_parse_fast read it */
    struct bench__result_measurement m; /* with the row's samples, MAD and contention */
    const char *timestamp_utc;
    const char *skip_reason, *failure; /* NULL when null */
    const char *host, *platform, *machine, *cpu_model;
    const char *compiler, *library_version, *source_revision; /* NULL when null */
    char *metrics_json;   /* the metrics object, compact, keys sorted */
    char *estimated_json; /* estimated_metrics, a compact array ("[]" when none) */
    char *sources_json;   /* sources, a compact object, keys sorted; NULL when none */
};
/* Reads one line (without its newline): 0, or -1 with the reason in err (nothing to free). */
int results_line_parse(const char *text, size_t len, struct results_line *out, char *err,
                       size_t err_size);
/* The same with jansson alone (what results_line_parse does with any line the fast reader leaves
 * to it): the reference its tests compare the fast reader with. */
int results_line_parse_jansson(const char *text, size_t len, struct results_line *out, char *err,
                               size_t err_size);
/* The line read without jansson when it has the shape the writer gives it (results_line_fast.c):
 * 1 with *out filled as results_line_parse_jansson fills it; 0 (nothing to free) when it is left
 * to that reader, every line it would refuse included. */
int results_line_parse_fast(const char *text, size_t len, struct results_line *out);
void results_line_free(struct results_line *line);

/* "raw/v1/profile=<p>/date=<d>/bench_id=<id>/sha256=<first12>/results.jsonl" (malloc'd). */
char *results_object_key(const char *profile, const char *date, const char *bench_id,
                         const char *sha256_hex);
/* Reads the profile, date, bench_id and sha256 prefix back from an object key; false when the
 * key is not one. The parts are copied into the buffers. */
bool results_object_key_parse(const char *key, char profile[65], char date[11], char bench_id[17],
                              char sha12[13]);

/* The store on disk (results_store.c): its directory, opened once; every file under it is
 * reached from that descriptor, one directory at a time, never through a symbolic link. */
#define RESULTS_INDEX_FILE "index.sqlite"
struct results_pg;
struct results_store {
    const char *dir;       /* as given: what messages name (a URL: without its password) */
    const char *command;   /* "record", "report", "results": the prefix of what it says on stderr */
    char *real;            /* its real path: the index file's is made from it */
    int fd;                /* the directory (-1 for a PostgreSQL store) */
    struct results_pg *pg; /* a PostgreSQL store: its raw objects and ingest errors; or NULL */
};
/* Opens dir, creating it when `create`: 0; 1 when it does not exist (without `create`); -1 with
 * the reason in err. */
int results_store_open(const char *dir, bool create, struct results_store *st, char *err,
                       size_t err_size);
void results_store_close(struct results_store *st);
/* The file at rel under the store (a raw object), never through a symbolic link, at most
 * RESULTS_OBJECT_MAX_BYTES: 0, or -1 with "cannot read: ..." or the part refused in err. */
int results_store_read(const struct results_store *st, const char *rel, char **text, size_t *len,
                       char *err, size_t err_size);
/* Writes text as the object `key`, atomically (an unnamed file linked to its name), never over
 * an existing object: 0 written, 1 the same bytes were already there, -1 with the reason in err
 * (also when the file at the key holds other bytes, or is a symbolic link or not a file). */
int results_store_put_object(const struct results_store *st, const char *key, const char *text,
                             size_t len, char *err, size_t err_size);
/* Writes one ingest error document under ingest-errors/v1/... (never over an existing one);
 * *path_out (malloc'd) is its path relative to the store. 0, or -1 with the reason in err. */
int results_store_put_error(const struct results_store *st, const char *profile, const char *date,
                            const char *bench_id, json_t *error_doc, char **path_out, char *err,
                            size_t err_size);
/* One entry under raw/: a regular file (refused NULL) or what it is instead. */
struct results_entry {
    char *key;           /* its path under the store: "raw/v1/..." */
    const char *refused; /* why it is no object ("a symbolic link, not followed"), or NULL */
};
/* Every entry under raw/ (none without raw/), in byte order of the keys; names starting with '.'
 * are skipped (a temporary file of a record that was killed is removed once its process is
 * gone). 0, or -1 with the reason. */
int results_store_list(const struct results_store *st, struct results_entry **list, size_t *n,
                       char *err, size_t err_size);
void results_entries_free(struct results_entry *list, size_t n);
/* Whether index.sqlite is there (*exists): 0 when it is absent or a regular file; -1 with the
 * reason and the fix when it is a symbolic link, a directory or another kind of file. */
int results_store_index_check(const struct results_store *st, bool *exists, char *err,
                              size_t err_size);
/* The path of `name` in the store's real directory (malloc'd): what SQLite opens. */
char *results_store_index_path(const struct results_store *st, const char *name);
/* The name a rebuild builds its index under (".index.sqlite.rebuild.<pid>", malloc'd); the
 * files of rebuilds whose process is gone are removed first. */
char *results_store_rebuild_name(const struct results_store *st);
/* Removes the index file `name` of the store and its journal (a rebuild's, once used). */
void results_store_remove_index(const struct results_store *st, const char *name);
/* Puts the index `fresh` (a name in the store) in place of index.sqlite. Not `damaged`: only
 * where there is none (1 when one was made meanwhile, and nothing is done). `damaged`: the
 * damaged one and its journal are swapped out in one step and kept as
 * index.sqlite.damaged-<stamp>, its name in *aside (malloc'd). 0, or -1 with the reason. */
int results_store_swap_index(const struct results_store *st, const char *fresh, bool damaged,
                             const char *stamp, char **aside, char *err, size_t err_size);

/* Reading objects into the index (results_ingest.c). */
struct results_index;
/* Opens the store's index after checking its file (not a link, a regular file): 0; 1 when
 * there is none and not `create`; -1, or RESULTS_INDEX_DAMAGED with the fix in err. */
int results_store_open_index(const struct results_store *st, bool create, struct results_index **ix,
                             char *err, size_t err_size);
/* Adds to err, when the index was found damaged, how to replace it. */
void results_store_damaged_fix(const struct results_store *st, char *err, size_t err_size);
/* What reconciling found: raw objects indexed, and objects or lines refused (each said on
 * stderr and kept in ingest-errors/). */
struct results_reconciled {
    size_t indexed, refused;
};
/* The raw objects under raw/ the index does not hold, counted (none are read). */
int results_store_pending(const struct results_store *st, struct results_index *ix, size_t *pending,
                          char *err, size_t err_size);
/* Indexes every raw object the index does not hold, in one transaction with the comparisons
 * recomputed: what `report` runs first. */
int results_store_reconcile(const struct results_store *st, struct results_index *ix,
                            struct results_reconciled *r, char *err, size_t err_size);
/* What `report` opens: the store and its index (never created: "no run recorded yet", or the
 * rebuild that recreates a missing index), with the raw objects the index lacks indexed first,
 * or, where the store cannot be written, their count said on stderr. 0, or -1 with the reason
 * (the fix of a damaged index) in err. */
int results_store_open_for_report(const char *dir, struct results_store *st,
                                  struct results_index **ix, char *err, size_t err_size);
/* One `record`: in one transaction of the index, the objects it lacks indexed, then `object`'s
 * text as the object `key` (its aggregates), the object written (and `object` freed: its
 * memory is not held while the history is recomputed), every comparison and change point
 * recomputed, then the commit: an index that fails leaves no object, and an object written is
 * indexed now or by the next reconcile. sha256_hex: the SHA-256 of `object` its key was made from
 * (not computed again). *already: the same object was there. *rejected: its lines refused. 0,
 * or -1 (RESULTS_INDEX_DAMAGED) with the reason. */
int results_store_record(const struct results_store *st, struct results_index *ix, const char *key,
                         const char *sha256_hex, struct bench__text *object,
                         struct results_reconciled *r, bool *already, size_t *rejected, char *err,
                         size_t err_size);
/* What a rebuild did. */
struct results_rebuilt {
    size_t objects, rejected;
    char *aside;   /* the damaged index kept aside (its name in the store), or NULL */
    char why[256]; /* why it was damaged */
    size_t late;   /* objects recorded while it ran, indexed after */
};
/* Builds a new index from raw/ alone in a file of its own, then puts it in place: over a
 * healthy index in one transaction (results_index_replace), in place of a damaged one in one
 * rename (the damaged one kept aside). 0, or -1 with the reason (the old index as it was). */
int results_store_rebuild(const char *dir, struct results_rebuilt *out, char *err, size_t err_size);

/* What a --results value names (results_location.c). */
enum results_location_kind {
    RESULTS_LOCATION_DIRECTORY,  /* a local store: the value (NULL: RESULTS_DEFAULT_DIR) */
    RESULTS_LOCATION_POSTGRESQL, /* a postgresql:// (or postgres://) URL, in a build with libpq */
};
/* Whether value is a postgresql:// or postgres:// URL. */
bool results_location_is_pg(const char *value);
/* The --results value when none is given: LIBBENCH_RESULTS when set and not empty, else NULL. */
const char *results_location_default(void);

/* A PostgreSQL store's raw objects (results_pg.c, a build with libpq). The URL goes to libpq as
 * it is (sslmode and every other option pass through); messages show it without its password. */
int results_pg_open(const char *url, struct results_pg **out, char *err, size_t size);
void results_pg_close(struct results_pg *pg);
const char *results_pg_shown(const struct results_pg *pg);
/* The connection (results_index_pg.c runs the index's statements on it); a failed result's
 * reason on one line into err (-1); whether a result's failure may pass when its transaction is
 * run again (a serialization failure, a deadlock); whether the last put inside a transaction
 * failed so. */
struct pg_conn;
struct pg_result;
struct pg_conn *results_pg_conn(struct results_pg *pg);
int results_pg_error(const struct results_pg *pg, const struct pg_result *res, const char *what,
                     char *err, size_t size);
bool results_pg_retryable(const struct pg_result *res);
bool results_pg_retry(const struct results_pg *pg);
/* Opens the PostgreSQL store at url as st (results_store_open of a postgresql:// value): the
 * connection, its schema, and the local directory of its index (created). 0, or -1. */
int results_pg_store_open(const char *url, struct results_store *st, char *err, size_t size);
/* The URL without its password (malloc'd). */
char *results_pg_redact(const char *url);
/* Inserts text at key in one transaction (or in the connection's open one, not retried: see
 * results_pg_retry), never over another body: table "raw" (the raw
 * objects, with sha256, each upload logged) or "errors" (the ingest errors). 0 inserted, 1 the same
 * bytes were there, -1 with the reason (other bytes at key included). */
int results_pg_put(struct results_pg *pg, const char *table, const char *key, const char *sha256,
                   const char *text, size_t len, char *err, size_t size);
/* The raw object at key (at most RESULTS_OBJECT_MAX_BYTES, malloc'd, NUL-terminated). */
int results_pg_read(struct results_pg *pg, const char *key, char **text, size_t *len, char *err,
                    size_t size);
/* Every raw object's key in byte order (malloc'd, each and the array). */
int results_pg_list(struct results_pg *pg, char ***keys, size_t *n, char *err, size_t size);
/* 0 with *kind; or 2, the exit status of a usage error, after its one line on stderr ("libbench
 * <command>": an empty value, a URL of a store this build does not have). */
int results_location(const char *command, const char *value, enum results_location_kind *kind);

/* The commands. */
void record_usage(FILE *out);
int record_main(int argc, char **argv);
void report_usage(FILE *out);
int report_main(int argc, char **argv);
void results_usage(FILE *out);
int results_main(int argc, char **argv);
/* `libbench results push DIR URL`: every raw object of the local store DIR into the PostgreSQL
 * store URL (results_push.c). The exit status. */
int results_push_main(const char *dir, const char *url);

/* results_line.c's checks of a JSON value, shared with the writer (results_raw.c): a number or
 * null (NaN), false when it is something else; an array of strings, else NULL. */
bool results_num_or_null(const json_t *v, double *out);
const json_t *results_strings(const json_t *v);

#endif /* LIBBENCH_RESULTS_TOOL_H */
