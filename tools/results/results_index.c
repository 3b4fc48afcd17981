/* SPDX-License-Identifier: MIT */
/* results_index.c: owns the choice of the index's implementation (results_index_impl.h): SQLite
 * for a store's index.sqlite, PostgreSQL for a postgresql:// store's tables, fixed when the index
 * is opened, and every call of results_index.h passed to it. It holds no SQL. */
#include <stdlib.h>

#include "results_index_impl.h"
#include "common/json.h"
#include "util/alloc.h"

struct results_index {
    struct results_sqlite *sq; /* one of the two */
    struct results_pgix *pg;
};

#ifdef LIBBENCH_HAVE_PG
#define CALL(fn, ...)                                                                              \
    (ix->pg ? results_pgix_##fn(ix->pg, __VA_ARGS__) : results_sqlite_##fn(ix->sq, __VA_ARGS__))
#define CALL0(fn) (ix->pg ? results_pgix_##fn(ix->pg) : results_sqlite_##fn(ix->sq))
#else
#define CALL(fn, ...) results_sqlite_##fn(ix->sq, __VA_ARGS__)
#define CALL0(fn) results_sqlite_##fn(ix->sq)
#endif

int results_index_open(const char *path, struct results_index **out, char *err, size_t err_size)
{
    struct results_sqlite *sq = NULL;
    *out = NULL;
    int rc = results_sqlite_open(path, &sq, err, err_size);
    if (rc != 0)
        return rc;
    *out = bench__xcalloc(1, sizeof **out);
    (*out)->sq = sq;
    return 0;
}

int results_index_open_pg(struct results_pg *pg, struct results_index **out, char *err,
                          size_t err_size)
{
    *out = NULL;
#ifdef LIBBENCH_HAVE_PG
    struct results_pgix *ix = NULL;
    if (results_pgix_open(pg, &ix, err, err_size) != 0)
        return -1;
    *out = bench__xcalloc(1, sizeof **out);
    (*out)->pg = ix;
    return 0;
#else
    (void)pg;
    return tool_json_error(err, err_size, "this libbench was built without libpq (libpq-dev)");
#endif
}

void results_index_close(struct results_index *ix)
{
    if (!ix)
        return;
    CALL0(close);
    free(ix);
}

void results_index_reader_cache(struct results_index *ix)
{
    CALL0(reader_cache);
}

bool results_index_damaged(const struct results_index *ix)
{
    return ix && CALL0(damaged);
}

bool results_index_stale(const struct results_index *ix)
{
    return CALL0(stale);
}

bool results_index_retryable(const struct results_index *ix)
{
#ifdef LIBBENCH_HAVE_PG
    return ix->pg && results_pgix_retryable(ix->pg);
#else
    (void)ix;
    return false;
#endif
}

int results_index_health(const char *path, char *why, size_t why_size)
{
    return results_sqlite_health(path, why, why_size);
}

int results_index_replace(struct results_index *ix, const char *source_path, char *err,
                          size_t err_size)
{
    if (!ix->sq) /* a server's index is rebuilt in place, in one transaction */
        return tool_json_error(err, err_size, "an index on a server is not replaced by a file");
    return results_sqlite_replace(ix->sq, source_path, err, err_size);
}

int results_index_begin(struct results_index *ix, char *err, size_t err_size)
{
    return CALL(begin, err, err_size);
}

int results_index_commit(struct results_index *ix, char *err, size_t err_size)
{
    return CALL(commit, err, err_size);
}

void results_index_rollback(struct results_index *ix)
{
    CALL0(rollback);
}

int results_index_reset(struct results_index *ix, char *err, size_t err_size)
{
    return CALL(reset, err, err_size);
}

int results_index_has_upload(struct results_index *ix, const char *object_key, bool *has, char *err,
                             size_t err_size)
{
    return CALL(has_upload, object_key, has, err, err_size);
}

int results_index_add_upload(struct results_index *ix, const struct results_upload *u,
                             const struct results_line *lines, size_t n, char *err, size_t err_size)
{
    return CALL(add_upload, u, lines, n, err, err_size);
}

int results_index_runs(struct results_index *ix, struct results_list *out, char *err,
                       size_t err_size)
{
    return CALL(runs, out, err, err_size);
}

int results_index_measurements(struct results_index *ix, const char *bench_id,
                               struct results_list *out, char *err, size_t err_size)
{
    return CALL(measurements, bench_id, out, err, err_size);
}

int results_index_set_aggregates(struct results_index *ix, const char *bench_id,
                                 const struct bench__result_aggregate *a, size_t n, char *err,
                                 size_t err_size)
{
    return CALL(set_aggregates, bench_id, a, n, err, err_size);
}

int results_index_aggregates(struct results_index *ix, struct results_list *out, char *err,
                             size_t err_size)
{
    return CALL(aggregates, out, err, err_size);
}

int results_index_clear_comparisons(struct results_index *ix, char *err, size_t err_size)
{
    return CALL(clear_comparisons, err, err_size);
}

int results_index_add_comparisons(struct results_index *ix, const struct bench__result_row *rows,
                                  size_t n, char *err, size_t err_size)
{
    return CALL(add_comparisons, rows, n, err, err_size);
}

int results_index_upload_keys(struct results_index *ix, char ***keys, size_t *n, char *err,
                              size_t err_size)
{
    return CALL(upload_keys, keys, n, err, err_size);
}

int results_index_set_changes(struct results_index *ix, const struct results_change *c, size_t n,
                              char *err, size_t err_size)
{
    return CALL(set_changes, c, n, err, err_size);
}

int results_index_changes(struct results_index *ix, struct results_list *out, char *err,
                          size_t err_size)
{
    return CALL(changes, out, err, err_size);
}
