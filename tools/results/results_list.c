/* SPDX-License-Identifier: MIT */
/* results_list.c: owns what the index's readers hand back (results_list of results_index.h):
 * its strings, each kept once, and its release. It runs no query. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results_index.h"
#include "util/alloc.h"

/* The strings of a list, each kept once: a run's bench_id, subject and host are on every one of
 * its rows, and a report of 250 000 rows reads them for each. Open addressing, FNV-1a. */
struct results_intern {
    const char **slots;
    size_t cap, n;
};

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static void intern_grow(struct results_intern *in)
{
    size_t cap = in->cap ? in->cap * 2 : 1024;
    const char **slots = bench__xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < in->cap; i++) {
        if (!in->slots[i])
            continue;
        size_t j = fnv1a(in->slots[i]) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = in->slots[i];
    }
    free(in->slots);
    in->slots = slots;
    in->cap = cap;
}

const char *results_list_keep(struct results_list *l, const unsigned char *text)
{
    if (!text)
        return NULL;
    if (!l->intern)
        l->intern = bench__xcalloc(1, sizeof *l->intern);
    struct results_intern *in = l->intern;
    if (2 * (in->n + 1) > in->cap)
        intern_grow(in);
    const char *s = (const char *)text;
    size_t j = fnv1a(s) & (in->cap - 1);
    for (; in->slots[j]; j = (j + 1) & (in->cap - 1))
        if (!strcmp(in->slots[j], s))
            return in->slots[j];
    l->strings = bench__grow(l->strings, &l->cap_strings, l->n_strings + 1, sizeof *l->strings);
    l->strings[l->n_strings] = bench__xstrdup(s);
    in->slots[j] = l->strings[l->n_strings];
    in->n++;
    return l->strings[l->n_strings++];
}

void results_list_free(struct results_list *list)
{
    for (size_t i = 0; i < list->n_strings; i++)
        free(list->strings[i]);
    free(list->strings);
    free(list->runs);
    free(list->values);
    free(list->aggs);
    free(list->changes);
    if (list->intern)
        free(list->intern->slots);
    free(list->intern);
    memset(list, 0, sizeof *list);
}
