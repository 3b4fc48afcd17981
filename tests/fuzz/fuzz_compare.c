/* SPDX-License-Identifier: MIT */
/* fuzz_compare.c: the invariants of `libbench compare`'s documents (fuzz_compare.h). */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_compare.h"

void fuzz_check_compare_doc(const struct compare_doc *doc)
{
    for (size_t i = 0; i < doc->n_rows; i++) {
        const struct compare_row *r = &doc->rows[i];
        fuzz_invariant(r->name && r->name[0], "a row has a name");
        fuzz_invariant(r->operation && r->key, "a row has its identity");
        if (r->skip)
            fuzz_invariant(isnan(r->median_ns), "a skipped row has no value");
        else
            fuzz_invariant(isfinite(r->median_ns) && r->median_ns > 0, "a value is finite and > 0");
        for (size_t k = 1; k < r->n_labels; k++)
            fuzz_invariant(strcmp(r->labels[k - 1].key, r->labels[k].key) < 0,
                           "labels sorted, unique");
        for (size_t j = 0; j < i; j++)
            fuzz_invariant(strcmp(doc->rows[j].key, r->key) != 0, "no two rows of one cell");
    }
}

void fuzz_check_compare_runs(const struct compare_doc *docs, size_t n_docs)
{
    fuzz_invariant(n_docs >= 1 && n_docs <= COMPARE_GBENCH_REPETITIONS_MAX, "1 to 1000 runs");
    for (size_t r = 0; r < n_docs; r++) {
        fuzz_check_compare_doc(&docs[r]);
        fuzz_invariant(docs[r].n_rows == docs[0].n_rows, "every run has every cell");
        for (size_t i = 0; i < docs[r].n_rows && n_docs > 1; i++)
            fuzz_invariant(strcmp(docs[r].rows[i].key, docs[0].rows[i].key) == 0,
                           "a cell has one index in every run");
    }
}
