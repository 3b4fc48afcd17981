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
#include "util/atomic_file.h"

#define RESULTS_DEFAULT_DIR "results"
#define RESULTS_DEFAULT_PROFILE "default"
#define RESULTS_DOC_MAX_BYTES (64u << 20) /* a recorded document over 64 MiB is refused */
#define RESULTS_RUNS_MAX 1000000u /* a run document's meta.runs: 10 x libbench run's limit */
#define RESULTS_OBJECT_MAX_BYTES (256u << 20) /* a raw object over 256 MiB is refused */
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

/* SHA-256 of data as 64 lowercase hex digits (nettle). */
void results_sha256_hex(const void *data, size_t len, char hex[65]);
/* SHA-256 of a regular file, read in pieces (never opened if it is not one: a FIFO would
 * block); 0, or -1 with the reason in why. */
int results_sha256_file(const char *path, char hex[65], char *why, size_t size);

/* Appends the raw lines of one document (--bench-json schema 2, or `libbench run --json` schema
 * 1) to out. *run_base is the run index of the document's first repetition; it is advanced past
 * the document's repetitions. A row the reader cannot accept is appended to `rejected` (a JSON
 * array) as {"row": index, "reason": text} and written nowhere else. Returns the number of lines
 * written, or -1 with the reason in err when the whole document is refused. */
long results_doc_lines(const json_t *doc, size_t doc_index, const struct results_record_info *info,
                       size_t *run_base, struct bench__text *out, json_t *rejected, char *err,
                       size_t err_size);

/* One raw line read back. Every string is owned by root, except the *_json texts (malloc'd).
 * A field a line written before it existed lacks reads as not known (NULL, 0, NaN). */
struct results_line {
    json_t *root;
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
void results_line_free(struct results_line *line);

/* "raw/v1/profile=<p>/date=<d>/bench_id=<id>/sha256=<first12>/results.jsonl" (malloc'd). */
char *results_object_key(const char *profile, const char *date, const char *bench_id,
                         const char *sha256_hex);
/* Reads the profile, date, bench_id and sha256 prefix back from an object key; false when the
 * key is not one. The parts are copied into the buffers. */
bool results_object_key_parse(const char *key, char profile[65], char date[11], char bench_id[17],
                              char sha12[13]);

/* The store on disk (results_store.c). */
struct results_index;
/* Writes text as the object `key` under dir, atomically, never over an existing object: 0 written,
 * 1 the same object was already there (same key: same bytes), -1 with the reason in err. */
int results_store_put_object(const char *dir, const char *key, const char *text, size_t len,
                             char *err, size_t err_size);
/* Writes one ingest error document under dir/ingest-errors/v1/... (never over an existing one);
 * *path_out (malloc'd) is its path relative to dir. 0, or -1 with the reason in err. */
int results_store_put_error(const char *dir, const char *profile, const char *date,
                            const char *bench_id, json_t *error_doc, char **path_out, char *err,
                            size_t err_size);
/* Opens (creating when needed) dir/index.sqlite. */
int results_store_open_index(const char *dir, struct results_index **ix, char *err,
                             size_t err_size);
/* Ingests the raw object at key into the index in one transaction, then recomputes the
 * aggregates of its bench_id and every comparison. Lines it cannot accept are written under
 * ingest-errors/ (their count in *rejected). 0, or -1 with the reason in err. */
int results_store_ingest(const char *dir, struct results_index *ix, const char *key,
                         size_t *rejected, char *err, size_t err_size);
/* Recreates the index from raw/ alone. *objects and *rejected count what was read. */
int results_store_rebuild(const char *dir, size_t *objects, size_t *rejected, char *err,
                          size_t err_size);

/* The commands. */
void record_usage(FILE *out);
int record_main(int argc, char **argv);
void report_usage(FILE *out);
int report_main(int argc, char **argv);
void results_usage(FILE *out);
int results_main(int argc, char **argv);

#endif /* LIBBENCH_RESULTS_TOOL_H */
