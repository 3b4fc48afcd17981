/* SPDX-License-Identifier: MIT */
/* fuzz_export_doc.c: the libFuzzer target over `libbench export`'s reader (export/doc.c), the
 * tool's reader of `libbench run --json` documents (and of --bench-json ones): any bytes are read
 * into the table shape or refused with one clean line, and a table read is written as CSV and as
 * Markdown (to /dev/null) without a fault. Seeds: tests/fuzz/corpus-run/ and tests/fuzz/corpus/. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "export/export.h"
#include "fuzz.h"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    fuzz_invariant(sink != NULL, "/dev/null opens");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct export_doc doc;
    char err[512];
    err[0] = '\0';
    int rc = export_doc_parse((const char *)data, size, &doc, err, sizeof err);
    if (rc != 0) {
        fuzz_invariant(rc == -1, "a failure returns -1");
        fuzz_check_message(err);
        export_doc_free(&doc);
        return 0;
    }
    fuzz_invariant(doc.kind != NULL, "a document read has its kind");
    for (size_t i = 0; i < doc.n_rows; i++) {
        fuzz_invariant(doc.rows[i].name != NULL && doc.rows[i].error != NULL,
                       "a row has a name and an error text");
        for (size_t k = 0; k < doc.n_label_keys; k++)
            fuzz_invariant(doc.label_keys[k] != NULL, "every label key is named");
    }
    export_csv(&doc, sink);
    export_markdown(&doc, sink);
    export_doc_free(&doc);
    return 0;
}
