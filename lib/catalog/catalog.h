/* SPDX-License-Identifier: MIT */
/* catalog.h: the metric catalog of a run: which counting sources the configuration requests
 * (flags, --metrics selectors, fallbacks), the request each one receives, the sources it opened,
 * the column order and visibility rules, and the bench-header lines about absent or degraded
 * sources. The only part of the measuring layers that reads the configuration for the sources;
 * it never measures. */
#ifndef BENCH_CATALOG_CATALOG_H
#define BENCH_CATALOG_CATALOG_H

#include <stdio.h>

#include "../sources/source.h"
#include "../suite/config.h"

struct bench__open_source {
    const struct bench__source_ops *ops;
    struct bench__source_request request;
    struct bench__family configured; /* the family_for storage (empty for a static family) */
    const struct bench__column_desc *family; /* for this configuration */
    size_t n_family;
    void *state; /* NULL: not requested, or absent */
    bool requested;
    bool fallback; /* opened because the source it stands in for is absent */
    char via[40];  /* the option that asked for it: "--perf", or "--metrics" */
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
/* Is this a built-in metric name or header, or a selector a source makes columns from (so a
 * client metric must take "user.")? */
BENCH__HIDDEN bool bench__catalog_reserved(const char *name);

enum bench__column_set {
    BENCH__COLUMNS_TABLE,    /* what tables show: --metrics rules */
    BENCH__COLUMNS_DOCUMENT, /* JSON "columns": every available column plus the requested ones */
};
/* Columns in catalog order (client first, then each source's family; a lead column first).
 * `out` must hold bench__catalog_max_columns() entries. */
BENCH__HIDDEN size_t bench__catalog_columns(const struct bench__catalog *c,
                                            const struct bench__column_desc *const *client,
                                            size_t n_client, enum bench__column_set set,
                                            const struct bench__column_desc **out);
BENCH__HIDDEN size_t bench__catalog_max_columns(const struct bench__catalog *c, size_t n_client);
/* The same in a new array (the caller frees it), with room for either set. */
BENCH__HIDDEN const struct bench__column_desc **
bench__catalog_column_list(const struct bench__catalog *c,
                           const struct bench__column_desc *const *client, size_t n_client,
                           enum bench__column_set set, size_t *n);
/* The --metrics selectors that match no column. Before anything runs (no source probed or
 * opened): an "error: " line for each selector no column can ever match (a malformed form of a
 * source's own names, such as `sc:Bad`), and a note for one that is no built-in name but close
 * to one (it may still be a client metric); returns the errors. At the end of the run, against
 * the run's client columns too: an "error: " line for each, with a "did you mean"; returns how
 * many (the run then exits with 2). Each selector is said once (the command line drops
 * repeats). */
BENCH__HIDDEN size_t bench__catalog_check_selectors(const struct bench__config *cfg, FILE *err);
BENCH__HIDDEN size_t bench__catalog_report_unmatched(const struct bench__catalog *c,
                                                     const struct bench__column_desc *const *client,
                                                     size_t n_client, FILE *err);

#endif /* BENCH_CATALOG_CATALOG_H */
