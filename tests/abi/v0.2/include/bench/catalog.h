/* SPDX-License-Identifier: MIT */
/* catalog.h: what this host can measure, for programs: every metric of the counting sources
 * (available or not, and why not) and every capability each source probed (present or absent,
 * with the reason). The same data --list-metrics prints. Probed once when the catalog is opened;
 * its strings belong to the catalog until it is closed. */
#ifndef BENCH_CATALOG_H
#define BENCH_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <bench/export.h>

BENCH_BEGIN_DECLS

typedef struct bench_catalog bench_catalog_t;

/* One metric of the catalog. Size-prefixed: the caller sets `size` to sizeof *info before the
 * call (BENCH_METRIC_INFO_INIT); the library writes only the fields inside that size. */
struct bench_metric_info {
    uint32_t size;
    const char *name;   /* selector name, e.g. "task-clock" */
    const char *column; /* table heading, e.g. "task-clock/iter" */
    const char *format; /* "count" | "ratio" | "percent" | "ns" */
    const char *klass;  /* "quantitative" | "diagnostic" */
    const char *source; /* "perf", "perf-sw", "tier0", "syscall", "raw", "pfm" */
    bool available;     /* measurable on this host, in this process */
    bool is_default;    /* shown without --metrics */
    const char *reason; /* why not, when !available; NULL otherwise */
};

/* One capability of one source. Size-prefixed like bench_metric_info. */
struct bench_capability_info {
    uint32_t size;
    const char *source; /* "perf" */
    const char *name;   /* "counting", "ipSampling", ... */
    bool present;
    const char
        *reason; /* why absent (the probe that failed, errno, the setting); NULL if present */
    /* Since 0.2.0, after the first released size: what a present `counting` found beyond
     * "present" (a degraded mode, the wall source's run-queue reading); NULL when nothing. */
    const char *detail;
};

/* The first released sizes: the library accepts any size from these up. */
#define BENCH_METRIC_INFO_SIZE_V1                                                                  \
    ((uint32_t)(offsetof(struct bench_metric_info, reason) + sizeof(const char *)))
#define BENCH_CAPABILITY_INFO_SIZE_V1                                                              \
    ((uint32_t)(offsetof(struct bench_capability_info, reason) + sizeof(const char *)))

#define BENCH_METRIC_INFO_INIT                                                                     \
    {                                                                                              \
        sizeof(struct bench_metric_info), NULL, NULL, NULL, NULL, NULL, false, false, NULL         \
    }
#define BENCH_CAPABILITY_INFO_INIT                                                                 \
    {                                                                                              \
        sizeof(struct bench_capability_info), NULL, NULL, false, NULL, NULL                        \
    }

/* Probe every counting source and the workload window sources (wall, psi) once (nothing is
 * left open) and keep what was found. Returns 0, BENCH_EINVAL (out is NULL) or BENCH_ENOMEM. */
BENCH_API int bench_catalog_open(bench_catalog_t **out);
/* Free the catalog and its strings; NULL is ignored. */
BENCH_API void bench_catalog_close(bench_catalog_t *cat);
/* The metrics, in catalog order (source by source, each in its family's order). */
BENCH_API size_t bench_catalog_metric_count(const bench_catalog_t *cat);
/* Fill *info with metric i. Returns 0, BENCH_EINVAL (cat or info NULL, i out of range) or
 * BENCH_ESTRUCT (info->size below BENCH_METRIC_INFO_SIZE_V1). */
BENCH_API int bench_catalog_metric(const bench_catalog_t *cat, size_t i,
                                   struct bench_metric_info *info);
/* The capabilities, block by block (each counting source, then the window sources "wall" and
 * "psi", then "pfm" (event naming, apart from raw counting), then "harness" for what no source
 * delivers), each block's in a fixed order; a capability a block neither has nor could report
 * is not listed. */
BENCH_API size_t bench_catalog_capability_count(const bench_catalog_t *cat);
BENCH_API int bench_catalog_capability(const bench_catalog_t *cat, size_t i,
                                       struct bench_capability_info *info);

BENCH_END_DECLS

#endif /* BENCH_CATALOG_H */
