/* SPDX-License-Identifier: MIT */
/* grouped.c: owns --group-by: the keys in force (given, or every label for "all"), --group-by=list,
 * and the grouped run (every body first, then cases measured and tables streamed by key). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../model/grouping.h"
#include "../../util/alloc.h"
#include "group_keys.h"
#include "measure.h"

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The --group-by keys in force: the given ones, or the sorted union of the registered cases'
 * label keys for "all" (or when `all`: --group-by=list lists them). */
static char **keys_in_force(const struct bench__measure *m, bool all, size_t *n_keys)
{
    const struct bench__config *cfg = m->cfg;
    all |= bench__group_all_wanted(cfg);
    char **keys = NULL;
    size_t n = 0, cap = 0;
    if (!all) {
        for (size_t i = 0; i < cfg->n_group_by; i++) {
            keys = bench__grow(keys, &cap, n + 1, sizeof *keys);
            keys[n++] = cfg->group_by[i];
        }
        *n_keys = n;
        return keys;
    }
    for (size_t p = 0; p < m->n_pending; p++)
        for (size_t l = 0; l < m->pending[p].n_labels; l++) {
            char *k = m->pending[p].labels[l].key;
            bool seen = false;
            for (size_t i = 0; i < n && !seen; i++)
                seen = !strcmp(keys[i], k);
            if (!seen) {
                keys = bench__grow(keys, &cap, n + 1, sizeof *keys);
                keys[n++] = k;
            }
        }
    if (n > 1)
        qsort(keys, n, sizeof *keys, compare_strings);
    *n_keys = n;
    return keys;
}

int bench__group_list(struct bench__measure *m)
{
    size_t n = 0;
    char **keys = keys_in_force(m, true, &n);
    if (n == 0)
        printf("no benchmark labels to group by\n");
    for (size_t i = 0; i < n; i++)
        printf("%s\n", keys[i]);
    free(keys);
    int failures = 0;
    for (size_t r = 0; r < m->n_rows; r++)
        failures += m->rows[r].state == BENCH__ROW_ERROR;
    for (size_t p = 0; p < m->n_pending; p++)
        failures += m->pending[p].refused != NULL;
    return failures ? 1 : 0;
}

/* Is this group key one of `list`? */
static bool listed(char *const *list, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], key))
            return true;
    return false;
}

/* With --group-by: every body first, then cases measured and tables streamed by key. */
void bench__run_grouped(struct bench__measure *m, const size_t *order, size_t n_order)
{
    for (size_t i = 0; i < n_order; i++)
        bench__body_run_reported(m, &m->suite->entries[order[i]]);
    size_t n_keys = 0;
    char **keys = keys_in_force(m, false, &n_keys);
    bool resumed = m->resume && m->resume->active;
    bool say = n_keys > 0 && bench__say_once(m, "group-by"); /* once, not per worker */
    for (size_t k = 0; k < n_keys && say; k++) {
        bool found = false;
        for (size_t p = 0; p < m->n_pending && !found; p++)
            for (size_t l = 0; l < m->pending[p].n_labels && !found; l++)
                found = !strcmp(m->pending[p].labels[l].key, keys[k]);
        if (!found)
            bench__emit_note(m, "--group-by: no benchmark case has label '%s'\n", keys[k]);
    }
    bench__emit(m, group_keys, (const char *const *)keys, n_keys);
    /* the key of every row measured so far (here or by an earlier worker) and pending case */
    size_t n_earlier = resumed ? m->resume->n_group_keys : 0;
    char **distinct = bench__xcalloc(m->n_rows + n_earlier + m->n_pending + 1, sizeof *distinct);
    char **row_keys = bench__xcalloc(m->n_rows + 1, sizeof *row_keys);
    size_t n_distinct = 0, n_row_keys = 0;
    for (size_t r = 0; r < m->n_rows; r++)
        distinct[n_distinct++] = row_keys[n_row_keys++] =
            bench__group_key(&m->rows[r], keys, n_keys);
    for (size_t r = 0; r < n_earlier; r++)
        distinct[n_distinct++] = m->resume->group_keys[r];
    for (size_t p = 0; p < m->n_pending; p++) {
        struct bench__row view = {.labels = m->pending[p].labels,
                                  .n_labels = m->pending[p].n_labels};
        distinct[n_distinct++] = m->pending[p].group = bench__group_key(&view, keys, n_keys);
    }
    if (n_distinct > 1)
        qsort(distinct, n_distinct, sizeof *distinct, compare_strings);
    for (size_t d = 0; d < n_distinct; d++) {
        if (d > 0 && !strcmp(distinct[d], distinct[d - 1]))
            continue;
        if (resumed && listed(m->resume->drawn_groups, m->resume->n_drawn_groups, distinct[d]))
            continue;
        for (size_t p = 0; p < m->n_pending; p++)
            if (!strcmp(m->pending[p].group, distinct[d]) && !m->pending[p].skip) {
                size_t first = m->n_rows;
                bench__case_measure(m, &m->pending[p]);
                bench__emit_rows(m, first);
            }
        bench__emit_group_table(m, distinct[d]);
    }
    for (size_t r = 0; r < n_row_keys; r++)
        free(row_keys[r]);
    free(row_keys);
    free(distinct);
    free(keys);
}
