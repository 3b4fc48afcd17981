/* SPDX-License-Identifier: MIT */
/* files.c: owns file mode of `libbench compare`: each file read and recognised by its content (a
 * --bench-json document is one run, Google Benchmark JSON one run per repetition), each subject's
 * files' runs appended in order. It parses no document itself (bench_json.c, gbench.c). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare.h"
#include "common/file.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/text.h"

int compare_doc_parse_runs(const char *data, size_t len, struct compare_doc **docs, size_t *n_docs,
                           char *err, size_t err_size)
{
    *docs = NULL;
    *n_docs = 0;
    json_error_t jerr;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        root = compare_gbench_load_lenient(data, len);
    if (!root)
        return tool_json_error(err, err_size, "line %d column %d: invalid JSON: %s", jerr.line,
                               jerr.column, jerr.text);
    int rc;
    if (compare_gbench_is(root)) {
        rc = compare_gbench_runs(root, docs, n_docs, err, err_size);
    } else {
        *docs = bench__xcalloc(1, sizeof **docs);
        if ((rc = compare_doc_from_root(root, *docs, err, err_size)) == 0) {
            *n_docs = 1;
        } else {
            free(*docs);
            *docs = NULL;
        }
    }
    json_decref(root);
    return rc;
}

int compare_doc_load_runs(const char *path, struct compare_doc **docs, size_t *n_docs, char *err,
                          size_t err_size)
{
    *docs = NULL;
    *n_docs = 0;
    char *data;
    size_t len;
    if (tool_read_file(path, TOOL_FILE_MAX_BYTES, &data, &len, err, err_size) != 0)
        return -1;
    int rc = compare_doc_parse_runs(data, len, docs, n_docs, err, err_size);
    free(data);
    return rc;
}

#define FILE_RUNS_MAX 1000u /* runs per subject in file mode, as --runs allows in binary mode */

/* One subject's files in order: every file's runs appended to *docs, its path to *files. */
static int load_subject(char *const *paths, size_t n_paths, struct compare_doc **docs_out,
                        char ***files_out, size_t *n_out, char *err, size_t err_size)
{
    struct compare_doc *docs = NULL;
    char **files = NULL;
    size_t n = 0;
    for (size_t f = 0; f < n_paths; f++) {
        struct compare_doc *got;
        size_t k;
        char derr[COMPARE_ERROR_MAX], file[256];
        bench__sanitize_copy(paths[f], file, sizeof file);
        if (compare_doc_load_runs(paths[f], &got, &k, derr, sizeof derr) != 0) {
            tool_json_error(err, err_size, "%s: %s", file, derr);
            goto fail;
        }
        if (k > FILE_RUNS_MAX - n) {
            compare_docs_free(got, k);
            tool_json_error(err, err_size,
                            "%s: more than %u runs in all for one subject (files and their "
                            "repetitions)",
                            file, FILE_RUNS_MAX);
            goto fail;
        }
        docs = bench__xrealloc(docs, (n + k + 1) * sizeof *docs);
        files = bench__xrealloc(files, (n + k + 1) * sizeof *files);
        for (size_t r = 0; r < k; r++) {
            docs[n + r] = got[r];
            files[n + r] = paths[f];
        }
        n += k;
        free(got); /* the array only: its documents moved */
    }
    *docs_out = docs;
    *files_out = files;
    *n_out = n;
    return 0;
fail:
    compare_docs_free(docs, n);
    free(files);
    return -1;
}

int compare_load_files(struct compare_state *st, char *err, size_t err_size)
{
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        struct compare_doc *docs;
        char **files;
        size_t n;
        if (load_subject(st->opts.files[s], st->opts.n_files[s], &docs, &files, &n, err,
                         err_size) != 0)
            return -1;
        char **run_fail = bench__xcalloc(n + 1, sizeof *run_fail);
        compare_subject_free(st, s, st->n_runs[s]);
        st->docs[s] = docs;
        st->run_fail[s] = run_fail;
        st->opts.files[s] = files;
        st->opts.n_files[s] = n;
        st->n_runs[s] = n;
    }
    return 0;
}
