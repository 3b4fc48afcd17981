/* SPDX-License-Identifier: MIT */
/* results_index_impl.h: the two implementations of results_index.h, each call of that header
 * once per database: results_sqlite_* (results_sqlite.c, a store's index.sqlite) and
 * results_pgix_* (results_index_pg.c, the index tables of a PostgreSQL store, in a build with
 * libpq). Only results_index.c, which chooses between them, calls them. */
#ifndef LIBBENCH_RESULTS_INDEX_IMPL_H
#define LIBBENCH_RESULTS_INDEX_IMPL_H

#include "results_index.h"

#define RESULTS_INDEX_OPS(impl, T)                                                                 \
    void results_##impl##_close(T *ix);                                                            \
    void results_##impl##_reader_cache(T *ix);                                                     \
    bool results_##impl##_damaged(const T *ix);                                                    \
    bool results_##impl##_stale(const T *ix);                                                      \
    int results_##impl##_begin(T *ix, char *err, size_t err_size);                                 \
    int results_##impl##_commit(T *ix, char *err, size_t err_size);                                \
    void results_##impl##_rollback(T *ix);                                                         \
    int results_##impl##_reset(T *ix, char *err, size_t err_size);                                 \
    int results_##impl##_has_upload(T *ix, const char *object_key, bool *has, char *err,           \
                                    size_t err_size);                                              \
    int results_##impl##_add_upload(T *ix, const struct results_upload *u,                         \
                                    const struct results_line *lines, size_t n, char *err,         \
                                    size_t err_size);                                              \
    int results_##impl##_runs(T *ix, struct results_list *out, char *err, size_t err_size);        \
    int results_##impl##_measurements(T *ix, const char *bench_id, struct results_list *out,       \
                                      char *err, size_t err_size);                                 \
    int results_##impl##_set_aggregates(T *ix, const char *bench_id,                               \
                                        const struct bench__result_aggregate *a, size_t n,         \
                                        char *err, size_t err_size);                               \
    int results_##impl##_aggregates(T *ix, struct results_list *out, char *err, size_t err_size);  \
    int results_##impl##_clear_comparisons(T *ix, char *err, size_t err_size);                     \
    int results_##impl##_add_comparisons(T *ix, const struct bench__result_row *rows, size_t n,    \
                                         char *err, size_t err_size);                              \
    int results_##impl##_upload_keys(T *ix, char ***keys, size_t *n, char *err, size_t err_size);  \
    int results_##impl##_set_changes(T *ix, const struct results_change *c, size_t n, char *err,   \
                                     size_t err_size);                                             \
    int results_##impl##_changes(T *ix, struct results_list *out, char *err, size_t err_size);

/* SQLite: a file, opened by its path; its health checked and its content replaced by a file's. */
struct results_sqlite;
RESULTS_INDEX_OPS(sqlite, struct results_sqlite)
int results_sqlite_open(const char *path, struct results_sqlite **out, char *err, size_t err_size);
int results_sqlite_health(const char *path, char *why, size_t why_size);
int results_sqlite_replace(struct results_sqlite *ix, const char *source_path, char *err,
                           size_t err_size);

/* PostgreSQL: tables on the server, on the connection of the store's raw objects, so that one
 * record is one transaction of both. */
struct results_pgix;
RESULTS_INDEX_OPS(pgix, struct results_pgix)
int results_pgix_open(struct results_pg *pg, struct results_pgix **out, char *err, size_t err_size);
bool results_pgix_retryable(const struct results_pgix *ix);

#endif /* LIBBENCH_RESULTS_INDEX_IMPL_H */
