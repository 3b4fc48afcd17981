/* SPDX-License-Identifier: MIT */
/* doc.c: owns the documents of `libbench compare` as its readers give them (compare.h): a row's
 * identity (its operation and its unambiguous key) and freeing what a reader built. It reads,
 * runs and compares nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util/alloc.h"

void compare_doc_free(struct compare_doc *doc)
{
    for (size_t i = 0; i < doc->n_rows; i++) {
        struct compare_row *r = &doc->rows[i];
        free(r->name);
        for (size_t k = 0; k < r->n_labels; k++) {
            free(r->labels[k].key);
            free(r->labels[k].value);
        }
        free(r->labels);
        free(r->operation);
        free(r->key);
        free(r->skip);
        for (size_t k = 0; k < r->n_metrics; k++)
            free(r->metrics[k].name);
        free(r->metrics);
    }
    free(doc->rows);
    doc->rows = NULL;
    doc->n_rows = 0;
}

void compare_docs_free(struct compare_doc *docs, size_t n)
{
    for (size_t i = 0; docs && i < n; i++)
        compare_doc_free(&docs[i]);
    free(docs);
}

/* "k=v,k2=v2" and the length-prefixed identity "<len>:name<len>:k<len>:v...". */
void compare_row_keys(struct compare_row *r)
{
    size_t op_len = 1, key_len = strlen(r->name) + 24;
    for (size_t k = 0; k < r->n_labels; k++) {
        size_t kl = strlen(r->labels[k].key), vl = strlen(r->labels[k].value);
        op_len += kl + vl + 2;
        key_len += kl + vl + 48;
    }
    r->operation = bench__xmalloc(op_len);
    r->key = bench__xmalloc(key_len);
    /* the sizes above are exact upper bounds; snprintf keeps every write inside them */
    size_t op_used = 0, key_used = 0;
    r->operation[0] = '\0';
    key_used += (size_t)snprintf(r->key, key_len, "%zu:%s", strlen(r->name), r->name);
    for (size_t k = 0; k < r->n_labels && op_used < op_len && key_used < key_len; k++) {
        const struct compare_label *l = &r->labels[k];
        op_used += (size_t)snprintf(r->operation + op_used, op_len - op_used, "%s%s=%s",
                                    k ? "," : "", l->key, l->value);
        key_used += (size_t)snprintf(r->key + key_used, key_len - key_used, "%zu:%s%zu:%s",
                                     strlen(l->key), l->key, strlen(l->value), l->value);
    }
}
