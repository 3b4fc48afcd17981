/* SPDX-License-Identifier: MIT */
/* snapshot.c: owns the public catalog (bench_catalog_t and its accessors): every counting source
 * probed once, its metrics and capabilities copied into storage the catalog owns, with the
 * window sources' blocks its caller probed and the harness block, and the size-prefixed info
 * structs filled up to the caller's size. Nothing stays open. bench_catalog_open itself lives
 * with the window sources (lib/workload/capabilities.c), the lowest layer that knows them all. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <bench/errors.h>

#include "../util/abi.h"
#include "../util/alloc.h"
#include "catalog.h"
#include "snapshot.h"
#include "../util/alloc.h"

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
        char **grown = bench__try_realloc(cat->strings, cap * sizeof *grown);
        if (!grown)
            return NULL;
        cat->strings = grown;
        cat->cap_strings = cap;
    }
    char *copy = bench__try_strdup(s);
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

/* One capability entry; `detail` only for a present one. Returns 0 or BENCH_ENOMEM. */
static int add_cap(struct bench_catalog *cat, const char *block, enum bench__cap cap, bool present,
                   const char *reason, const char *detail)
{
    struct bench_capability_info *ci = &cat->caps[cat->n_caps++];
    *ci = (struct bench_capability_info){
        .size = sizeof *ci,
        .source = keep(cat, block),
        .name = bench__cap_name(cap),
        .present = present,
        .reason = present ? NULL : keep(cat, reason),
        .detail = present && detail && *detail ? keep(cat, detail) : NULL,
    };
    if (!ci->source || (!present && !ci->reason) || (present && detail && *detail && !ci->detail))
        return BENCH_ENOMEM;
    return 0;
}

/* The entries of one report: those under `block` (NULL: the source's own, i.e. no block set),
 * labelled `label` (NULL: the block's name). Counting carries `detail`. */
static int add_caps(struct bench_catalog *cat, const struct bench__caps *caps, const char *name,
                    const char *block, const char *detail)
{
    for (unsigned cap = 0; cap < BENCH__CAP_COUNT; cap++) {
        const char *own = caps->block[cap];
        if (block ? !own || strcmp(own, block) != 0 : own != NULL)
            continue;
        const char *reason = bench__caps_reason(caps, (enum bench__cap)cap);
        bool present = caps->present & (1u << cap);
        if (!present && !reason)
            continue;
        int rc = add_cap(cat, block ? block : name, (enum bench__cap)cap, present, reason,
                         cap == BENCH__CAP_COUNTING ? detail : NULL);
        if (rc)
            return rc;
    }
    return 0;
}

/* Was this capability reported by some block already? */
static bool reported(const struct bench_catalog *cat, enum bench__cap cap)
{
    for (size_t i = 0; i < cat->n_caps; i++)
        if (!strcmp(cat->caps[i].name, bench__cap_name(cap)))
            return true;
    return false;
}

/* The harness block: what no backend delivers, so the vocabulary is complete. */
static int add_harness(struct bench_catalog *cat)
{
    int rc = 0;
    if (!reported(cat, BENCH__CAP_SYMBOLIZATION))
        rc = add_cap(cat, "harness", BENCH__CAP_SYMBOLIZATION, false,
                     "opt-in: --profile (probed with the perf source)", NULL);
    if (!rc && !reported(cat, BENCH__CAP_NUMA_ATTRIBUTION))
        rc = add_cap(cat, "harness", BENCH__CAP_NUMA_ATTRIBUTION, false,
                     "not implemented (no page-to-node classification)", NULL);
    return rc;
}

static int fill(struct bench_catalog *cat, const struct bench__catalog *c,
                const struct bench__catalog_block *window, size_t n_window)
{
    size_t n_metrics = 0, n_caps = (n_window + 1) * BENCH__CAP_COUNT;
    for (size_t i = 0; i < c->n_sources; i++) {
        n_metrics += c->sources[i].n_family;
        n_caps += BENCH__CAP_COUNT;
    }
    cat->metrics = bench__try_calloc(n_metrics + 1, sizeof *cat->metrics);
    cat->caps = bench__try_calloc(n_caps + 1, sizeof *cat->caps);
    if (!cat->metrics || !cat->caps)
        return BENCH_ENOMEM;
    for (size_t i = 0; i < c->n_sources; i++) {
        const struct bench__open_source *s = &c->sources[i];
        for (size_t k = 0; k < s->n_family; k++) {
            const struct bench__column_desc *d = &s->family[k];
            /* an open source may still lack a column (tier-0's I/O fields off Linux) */
            const char *column_why =
                s->state && s->ops->column_absent ? s->ops->column_absent(s->state, k) : NULL;
            bool available = s->state != NULL && column_why == NULL;
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
                .reason = available ? NULL : keep(cat, column_why ? column_why : absence_reason(s)),
            };
            if (!m->name || !m->column || !m->source || (!available && !m->reason))
                return BENCH_ENOMEM;
        }
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < c->n_sources; i++)
        if (c->sources[i].requested)
            rc = add_caps(cat, &c->sources[i].caps, c->sources[i].ops->name, NULL,
                          c->sources[i].status);
    for (size_t i = 0; !rc && i < n_window; i++)
        rc = add_caps(cat, &window[i].caps, window[i].name, NULL, window[i].detail);
    /* the blocks sources report apart, each once, in the order they first appear */
    for (size_t i = 0; !rc && i < c->n_sources; i++) {
        const struct bench__open_source *s = &c->sources[i];
        for (unsigned cap = 0; !rc && s->requested && cap < BENCH__CAP_COUNT; cap++) {
            const char *block = s->caps.block[cap];
            bool seen = false;
            for (size_t j = 0; block && j < cat->n_caps; j++)
                seen = seen || !strcmp(cat->caps[j].source, block);
            if (block && !seen)
                for (size_t j = i; !rc && j < c->n_sources; j++)
                    if (c->sources[j].requested)
                        rc = add_caps(cat, &c->sources[j].caps, NULL, block, NULL);
        }
    }
    if (!rc)
        rc = add_harness(cat);
    return rc;
}

int bench__catalog_snapshot(const struct bench__config *cfg,
                            const struct bench__catalog_block *window, size_t n_window,
                            bench_catalog_t **out)
{
    static const struct bench__config none;
    struct bench_catalog *cat = bench__try_calloc(1, sizeof *cat);
    if (!cat)
        return BENCH_ENOMEM;
    struct bench__catalog c;
    bench__catalog_open(&c, cfg ? cfg : &none, true);
    int rc = fill(cat, &c, window, n_window);
    bench__catalog_close(&c);
    if (rc) {
        bench_catalog_close(cat);
        return rc;
    }
    *out = cat;
    return 0;
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

void bench__catalog_infos(const bench_catalog_t *cat, const struct bench_metric_info **metrics,
                          size_t *n_metrics, const struct bench_capability_info **caps,
                          size_t *n_caps)
{
    *metrics = cat->metrics;
    *n_metrics = cat->n_metrics;
    *caps = cat->caps;
    *n_caps = cat->n_caps;
}

/* Copy a record into the caller's struct up to the caller's size (which stays as it was); a
 * size below the first released one or above BENCH__ABI_MAX_SIZE is refused. */
static int give(void *info, const void *record, size_t record_size, uint32_t first_size)
{
    uint32_t size = *(const uint32_t *)info;
    if (bench__abi_check_size(size, first_size) != BENCH__ABI_ACCEPTED)
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
