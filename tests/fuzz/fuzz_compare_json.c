/* SPDX-License-Identifier: MIT */
/* fuzz_compare_json.c: the libFuzzer target over `libbench compare`'s reading paths
 * (compare_doc_parse and compare_doc_parse_runs, which reads Google Benchmark JSON too, on
 * arbitrary bytes) and the invariants parsed documents must hold. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void invariant(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_compare_json: invariant broken: %s\n", what);
        abort();
    }
}

static void check_failure(int rc, const char *err)
{
    invariant(rc == -1, "a failure returns -1");
    invariant(err[0] != '\0', "a failure has a message");
    for (const char *c = err; *c; c++)
        invariant((unsigned char)*c >= 0x20 && *c != 0x7F, "the message is one clean line");
}

static void check_doc(const struct compare_doc *doc)
{
    for (size_t i = 0; i < doc->n_rows; i++) {
        const struct compare_row *r = &doc->rows[i];
        invariant(r->name && r->name[0], "a row has a name");
        invariant(r->operation && r->key, "a row has its identity");
        if (r->skip)
            invariant(isnan(r->median_ns), "a skipped row has no value");
        else
            invariant(isfinite(r->median_ns) && r->median_ns > 0, "a value is finite and > 0");
        for (size_t k = 1; k < r->n_labels; k++)
            invariant(strcmp(r->labels[k - 1].key, r->labels[k].key) < 0, "labels sorted, unique");
        for (size_t j = 0; j < i; j++)
            invariant(strcmp(doc->rows[j].key, r->key) != 0, "no two rows of one cell");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* binary mode's reader: a --bench-json document */
    struct compare_doc doc;
    char err[COMPARE_ERROR_MAX];
    err[0] = '\0';
    int rc = compare_doc_parse((const char *)data, size, &doc, err, sizeof err);
    if (rc != 0) {
        check_failure(rc, err);
        invariant(doc.rows == NULL && doc.n_rows == 0, "a failure leaves an empty document");
    } else {
        check_doc(&doc);
        compare_doc_free(&doc);
    }

    /* file mode's: either kind by content, a Google Benchmark document as runs */
    struct compare_doc *docs;
    size_t n_docs;
    err[0] = '\0';
    int rc_runs = compare_doc_parse_runs((const char *)data, size, &docs, &n_docs, err, sizeof err);
    invariant(rc != 0 || rc_runs == 0, "a --bench-json document is read in file mode too");
    if (rc_runs != 0) {
        check_failure(rc_runs, err);
        invariant(docs == NULL && n_docs == 0, "a failure leaves no run");
        return 0;
    }
    invariant(n_docs >= 1 && n_docs <= COMPARE_GBENCH_REPETITIONS_MAX, "1 to 1000 runs");
    invariant(rc != 0 || n_docs == 1, "a --bench-json document is one run");
    for (size_t r = 0; r < n_docs; r++) {
        check_doc(&docs[r]);
        invariant(docs[r].n_rows == docs[0].n_rows, "every run has every cell");
        for (size_t i = 0; i < docs[r].n_rows && n_docs > 1; i++)
            invariant(strcmp(docs[r].rows[i].key, docs[0].rows[i].key) == 0,
                      "a cell has one index in every run");
    }
    compare_docs_free(docs, n_docs);
    return 0;
}

#ifdef FUZZ_REPLAY_MAIN
#include <dirent.h>
#include <sys/stat.h>

/* Without libFuzzer (gcc builds): run each file once through the target, so the seed
 * corpus and every crash reproducer stay a regression test in the normal suite. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    static uint8_t buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                    continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                if (replay_file(path) != 0)
                    return 1;
                n++;
            }
            if (d)
                closedir(d);
        } else {
            if (replay_file(argv[i]) != 0)
                return 1;
            n++;
        }
    }
    printf("replayed %d inputs\n", n);
    return n > 0 ? 0 : 1;
}
#endif
