/* SPDX-License-Identifier: MIT */
/* fuzz_compare_gbench.c: the libFuzzer target over `libbench compare`'s Google Benchmark reader
 * alone (compare/gbench.c): the text read as JSON, or again with Google Benchmark's bare NaN and
 * Infinity, and a document recognised as Google Benchmark's turned into runs, which must hold the
 * invariants of fuzz_compare.h. Seeds: tests/fuzz/corpus/ (its *gbench* files). */
#include <jansson.h>
#include <stdint.h>

#include "fuzz.h"
#include "fuzz_compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t jerr;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        root = compare_gbench_load_lenient((const char *)data, size);
    if (!root)
        return 0;
    if (!compare_gbench_is(root)) {
        json_decref(root);
        return 0;
    }
    struct compare_doc *docs;
    size_t n_docs;
    char err[COMPARE_ERROR_MAX];
    err[0] = '\0';
    int rc = compare_gbench_runs(root, &docs, &n_docs, err, sizeof err);
    json_decref(root);
    if (rc != 0) {
        fuzz_invariant(rc == -1, "a failure returns -1");
        fuzz_check_message(err);
        fuzz_invariant(docs == NULL && n_docs == 0, "a failure leaves no run");
        return 0;
    }
    fuzz_check_compare_runs(docs, n_docs);
    compare_docs_free(docs, n_docs);
    return 0;
}
