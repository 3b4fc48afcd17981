/* SPDX-License-Identifier: MIT */
/* fuzz_compare_json.c: the libFuzzer target over `libbench compare`'s reading paths
 * (compare_doc_parse, binary mode's --bench-json reader, and compare_doc_parse_runs, file mode's,
 * which reads Google Benchmark JSON too, on arbitrary bytes) and the invariants parsed documents
 * must hold. Seeds: tests/fuzz/corpus/. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz.h"
#include "fuzz_compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* binary mode's reader: a --bench-json document */
    struct compare_doc doc;
    char err[COMPARE_ERROR_MAX];
    err[0] = '\0';
    int rc = compare_doc_parse((const char *)data, size, &doc, err, sizeof err);
    if (rc != 0) {
        fuzz_invariant(rc == -1, "a failure returns -1");
        fuzz_check_message(err);
        fuzz_invariant(doc.rows == NULL && doc.n_rows == 0, "a failure leaves an empty document");
    } else {
        fuzz_check_compare_doc(&doc);
        compare_doc_free(&doc);
    }

    /* file mode's: either kind by content, a Google Benchmark document as runs */
    struct compare_doc *docs;
    size_t n_docs;
    err[0] = '\0';
    int rc_runs = compare_doc_parse_runs((const char *)data, size, &docs, &n_docs, err, sizeof err);
    fuzz_invariant(rc != 0 || rc_runs == 0, "a --bench-json document is read in file mode too");
    if (rc_runs != 0) {
        fuzz_invariant(rc_runs == -1, "a failure returns -1");
        fuzz_check_message(err);
        fuzz_invariant(docs == NULL && n_docs == 0, "a failure leaves no run");
        return 0;
    }
    fuzz_invariant(rc != 0 || n_docs == 1, "a --bench-json document is one run");
    fuzz_check_compare_runs(docs, n_docs);
    compare_docs_free(docs, n_docs);
    return 0;
}
