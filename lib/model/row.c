/* SPDX-License-Identifier: MIT */
/* row.c: owns what belongs to a row as a value: the words of a metric column's class in JSON and
 * the catalog, a row's identity in a run, its name in the other tools' documents, whether it is
 * at the clock's resolution, and the release of what a row owns (see row.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/atomic_file.h"
#include "row.h"

const char *bench__class_name(enum bench__class cls)
{
    return cls == BENCH__DIAGNOSTIC ? "diagnostic" : "quantitative";
}

char *bench__row_identity(const char *name, const struct bench__kv *labels, size_t n_labels)
{
    size_t len = strlen(name) + 1;
    for (size_t i = 0; i < n_labels; i++)
        len += strlen(labels[i].key) + strlen(labels[i].value) + 2;
    char *key = bench__xmalloc(len);
    char *p = stpcpy(key, name);
    for (size_t i = 0; i < n_labels; i++) {
        *p++ = '\x1f';
        p = stpcpy(p, labels[i].key);
        *p++ = '=';
        p = stpcpy(p, labels[i].value);
    }
    *p = '\0';
    return key;
}

char *bench__case_identity(const char *body, const char *name, const struct bench__kv *labels,
                           size_t n_labels)
{
    char *row = bench__row_identity(name, labels, n_labels);
    char *identity = bench__xasprintf("%s\x1e%s", body, row);
    free(row);
    return identity;
}

bool bench__row_at_clock_resolution(const struct bench__row *row, double clock_overhead_ns)
{
    return row->state == BENCH__ROW_OK && row->iterations == 1 && clock_overhead_ns > 0 &&
           row->stats.median <= BENCH__CLOCK_RESOLUTION_FACTOR * clock_overhead_ns;
}

bool bench__column_is_rate(const struct bench__column_desc *column)
{
    size_t len = strlen(column->name);
    return !strcmp(column->source, "client") && len > 2 && !strcmp(column->name + len - 2, "/s");
}

double bench__row_cpu_ns(const struct bench__row *row)
{
    return row->state == BENCH__ROW_OK && isfinite(row->cpu_ns) && row->cpu_ns > 0 ? row->cpu_ns
                                                                                   : NAN;
}

void bench__row_release(struct bench__row *row)
{
    free(row->name);
    free(row->source);
    free(row->error);
    free(row->cells);
    for (size_t i = 0; i < row->n_labels; i++) {
        free(row->labels[i].key);
        free(row->labels[i].value);
    }
    free(row->labels);
    bench__profile_free(row->profile);
    row->profile = NULL;
}

char *bench__doc_row_name(const struct bench__row *row)
{
    struct bench__text t = {0};
    const char *name = row->name ? row->name : "";
    bench__text_append(name, strlen(name), &t); /* never empty: t.data is set */
    for (size_t i = 0; i < row->n_labels; i++) {
        const char *k = row->labels[i].key ? row->labels[i].key : "";
        const char *v = row->labels[i].value ? row->labels[i].value : "";
        bench__text_append("/", 1, &t);
        bench__text_append(k, strlen(k), &t);
        bench__text_append(":", 1, &t);
        bench__text_append(v, strlen(v), &t);
    }
    return t.data;
}
