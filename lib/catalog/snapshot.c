/* SPDX-License-Identifier: MIT */
/* snapshot.c: owns the public catalog API (bench_catalog_*): every source probed once, its
 * metrics and capabilities copied into storage the catalog owns, and the size-prefixed info
 * structs filled up to the caller's size. Nothing stays open. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <bench/errors.h>

#include "catalog.h"
#include "snapshot.h"

struct bench_catalog {
    struct bench_metric_info *metrics;
    size_t n_metrics;
    struct bench_capability_info *caps;
    size_t n_caps;
    char **strings; /* every string the infos point to */
    size_t n_strings, cap_strings;
};

/* A copy the catalog owns; NULL when out of memory. */
static const char *keep(struct bench_catalog *cat, const char *s)
{
    if (!s)
        return NULL;
    if (cat->n_strings == cat->cap_strings) {
        size_t cap = cat->cap_strings ? 2 * cat->cap_strings : 32;
        char **grown = realloc(cat->strings, cap * sizeof *grown);
        if (!grown)
            return NULL;
        cat->strings = grown;
        cat->cap_strings = cap;
    }
    char *copy = strdup(s);
    if (copy)
        cat->strings[cat->n_strings++] = copy;
    return copy;
}

/* Why a source's metrics are not measurable: its counting (or raw counting) absence, else the
 * first absence it reported. */
static const char *absence_reason(const struct bench__open_source *s)
{
    const char *reason = bench__caps_reason(&s->caps, BENCH__CAP_COUNTING);
    if (!reason)
        reason = bench__caps_reason(&s->caps, BENCH__CAP_COUNTING_RAW);
    if (!reason && s->caps.n_absent)
        reason = s->caps.absent[0].reason;
    if (!reason)
        reason = s->requested ? "the source did not open" : "not requested";
    return reason;
}

static int fill(struct bench_catalog *cat, const struct bench__catalog *c)
{
    size_t n_metrics = 0, n_caps = 0;
    for (size_t i = 0; i < c->n_sources; i++) {
        n_metrics += c->sources[i].n_family;
        n_caps += BENCH__CAP_COUNT;
    }
    cat->metrics = calloc(n_metrics + 1, sizeof *cat->metrics);
    cat->caps = calloc(n_caps + 1, sizeof *cat->caps);
    if (!cat->metrics || !cat->caps)
        return BENCH_ENOMEM;
    for (size_t i = 0; i < c->n_sources; i++) {
        const struct bench__open_source *s = &c->sources[i];
        bool available = s->state != NULL;
        for (size_t k = 0; k < s->n_family; k++) {
            const struct bench__column_desc *d = &s->family[k];
            struct bench_metric_info *m = &cat->metrics[cat->n_metrics++];
            *m = (struct bench_metric_info){
                .size = sizeof *m,
                .name = keep(cat, d->name),
                .column = keep(cat, d->header),
                .format = bench__format_name(d->format),
                .klass = bench__class_name(d->cls),
                .source = keep(cat, d->source),
                .available = available,
                .is_default = d->is_default,
                .reason = available ? NULL : keep(cat, absence_reason(s)),
            };
            if (!m->name || !m->column || !m->source || (!available && !m->reason))
                return BENCH_ENOMEM;
        }
        if (!s->requested)
            continue;
        for (unsigned cap = 0; cap < BENCH__CAP_COUNT; cap++) {
            const char *reason = bench__caps_reason(&s->caps, (enum bench__cap)cap);
            bool present = s->caps.present & (1u << cap);
            if (!present && !reason)
                continue;
            struct bench_capability_info *ci = &cat->caps[cat->n_caps++];
            *ci = (struct bench_capability_info){
                .size = sizeof *ci,
                .source = keep(cat, s->ops->name),
                .name = bench__cap_name((enum bench__cap)cap),
                .present = present,
                .reason = present ? NULL : keep(cat, reason),
            };
            if (!ci->source || (!present && !ci->reason))
                return BENCH_ENOMEM;
        }
    }
    return 0;
}

int bench__catalog_snapshot(const struct bench__config *cfg, bench_catalog_t **out)
{
    static const struct bench__config none;
    struct bench_catalog *cat = calloc(1, sizeof *cat);
    if (!cat)
        return BENCH_ENOMEM;
    struct bench__catalog c;
    bench__catalog_open(&c, cfg ? cfg : &none, true);
    int rc = fill(cat, &c);
    bench__catalog_close(&c);
    if (rc) {
        bench_catalog_close(cat);
        return rc;
    }
    *out = cat;
    return 0;
}

int bench_catalog_open(bench_catalog_t **out)
{
    if (!out)
        return BENCH_EINVAL;
    *out = NULL;
    return bench__catalog_snapshot(NULL, out);
}

void bench_catalog_close(bench_catalog_t *cat)
{
    if (!cat)
        return;
    for (size_t i = 0; i < cat->n_strings; i++)
        free(cat->strings[i]);
    free(cat->strings);
    free(cat->metrics);
    free(cat->caps);
    free(cat);
}

size_t bench_catalog_metric_count(const bench_catalog_t *cat)
{
    return cat ? cat->n_metrics : 0;
}

size_t bench_catalog_capability_count(const bench_catalog_t *cat)
{
    return cat ? cat->n_caps : 0;
}

/* Copy a record into the caller's struct up to the caller's size (which stays as it was). */
static int give(void *info, const void *record, size_t record_size, uint32_t first_size)
{
    uint32_t size = *(const uint32_t *)info;
    if (size < first_size)
        return BENCH_ESTRUCT;
    size_t n = size < record_size ? size : record_size;
    memcpy((char *)info + sizeof size, (const char *)record + sizeof size, n - sizeof size);
    return 0;
}

int bench_catalog_metric(const bench_catalog_t *cat, size_t i, struct bench_metric_info *info)
{
    if (!cat || !info || i >= cat->n_metrics)
        return BENCH_EINVAL;
    return give(info, &cat->metrics[i], sizeof cat->metrics[i], BENCH_METRIC_INFO_SIZE_V1);
}

int bench_catalog_capability(const bench_catalog_t *cat, size_t i,
                             struct bench_capability_info *info)
{
    if (!cat || !info || i >= cat->n_caps)
        return BENCH_EINVAL;
    return give(info, &cat->caps[i], sizeof cat->caps[i], BENCH_CAPABILITY_INFO_SIZE_V1);
}
