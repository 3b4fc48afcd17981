/* SPDX-License-Identifier: MIT */
/* catalog.h: the run's catalog: requested and open sources, column order and visibility,
 * bench-header lines, --list-metrics. */
#ifndef BENCH_CATALOG_H
#define BENCH_CATALOG_H

#include <stdlib.h>

#include "sources/source.h"

#define BENCH__MAX_SOURCES 16

struct bench__open_source {
    const struct bench__source_ops *ops;
    const struct bench__column_desc *family; /* for this configuration */
    size_t n_family;
    void *state; /* NULL: not requested, or absent */
    bool requested;
    bool fallback;   /* opened because the source it stands in for is absent */
    const char *via; /* the option that asked for it: its flag, or "--metrics" */
    struct bench__caps caps;
    char status[256];
};

struct bench__catalog {
    const struct bench__config *cfg;
    struct bench__open_source sources[BENCH__MAX_SOURCES]; /* counting-pass order */
    size_t n_sources;
    bool all; /* --metrics=all */
};

/* Open what the config requests (probe_all: every source, for --list-metrics). */
BENCH__HIDDEN void bench__catalog_open(struct bench__catalog *c, const struct bench__config *cfg,
                                       bool probe_all);
BENCH__HIDDEN void bench__catalog_close(struct bench__catalog *c);
/* Bench-header lines on stderr: absent-but-requested, fallbacks, degraded status. */
BENCH__HIDDEN void bench__catalog_announce(const struct bench__catalog *c, FILE *err);
/* Is this a built-in metric name or header (so a client metric must take "user.")? */
BENCH__HIDDEN bool bench__catalog_reserved(const char *name);
enum bench__column_set {
    BENCH__COLUMNS_TABLE,    /* what tables show: --metrics rules */
    BENCH__COLUMNS_DOCUMENT, /* JSON "columns": every available column plus the requested ones */
};
/* Columns in catalog order (client first, then each source's family; instr hoisted).
 * `out` must hold bench__catalog_max_columns() entries. */
BENCH__HIDDEN size_t bench__catalog_columns(const struct bench__catalog *c,
                                            const struct bench__column_desc *const *client,
                                            size_t n_client, enum bench__column_set set,
                                            const struct bench__column_desc **out);
BENCH__HIDDEN size_t bench__catalog_max_columns(const struct bench__catalog *c, size_t n_client);
BENCH__HIDDEN void bench__catalog_warn_unmatched(const struct bench__catalog *c,
                                                 const struct bench__column_desc *const *client,
                                                 size_t n_client, FILE *err);
BENCH__HIDDEN void bench__caps_render(FILE *out, const struct bench__catalog *c);
/* --list-metrics: probe every source, print the catalog and the capability block. */
BENCH__HIDDEN int bench__catalog_list(const struct bench__config *cfg, FILE *out);

#endif /* BENCH_CATALOG_H */
