/* SPDX-License-Identifier: MIT */
/* event_naming.h: the raw:r<hex> / pfm:<name> selector grammar (pure) and the resolution of
 * pfm names through libpfm4, loaded with dlopen at first use. It opens no counters. */
#ifndef BENCH_SOURCES_EVENT_NAMING_H
#define BENCH_SOURCES_EVENT_NAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"

#define BENCH__PFM_SONAME "libpfm.so.4"
#define BENCH__PFM_NAME_MAX 255 /* longest pfm:<name> name resolved */

enum bench__selector_kind {
    BENCH__SELECTOR_OTHER,     /* not raw: or pfm: (another source's selector) */
    BENCH__SELECTOR_RAW,       /* raw:r<1-16 hex digits> */
    BENCH__SELECTOR_PFM,       /* pfm:<non-empty name> */
    BENCH__SELECTOR_MALFORMED, /* raw:/pfm: prefix, bad rest: skipped, then reported as an
                                  unknown selector */
};

/* Classify one --metrics selector. For a raw selector, *config (if not NULL) receives the
 * hex value: "raw:" + a lowercase 'r' + 1-16 hex digits of either case, nothing else. */
BENCH__HIDDEN enum bench__selector_kind bench__selector_parse(const char *selector,
                                                              uint64_t *config);
/* The column header of a raw/pfm selector: the text after its first ':'. */
BENCH__HIDDEN const char *bench__selector_header(const char *selector);

/* An event as perf_event_open wants it. */
struct bench__event_encoding {
    uint32_t type; /* PERF_TYPE_* or a dynamic PMU type */
    uint64_t config, config1, config2;
    bool exclude_user, exclude_kernel; /* the :k / :u modifiers */
    char fstr[256];                    /* libpfm's fully qualified name ("" for raw) */
};

/* The libpfm4 table a bare name is retried with ("<table>::<name>"), from /proc/cpuinfo
 * text: AMD families 23, 25, 26 only; NULL otherwise. */
BENCH__HIDDEN const char *bench__pfm_cpu_table(const char *cpuinfo);

/* Load libpfm4 (once per process: dlopen libpfm.so.4, then libpfm.so; every symbol at once;
 * LIBPFM_ENCODE_INACTIVE=1 before pfm_initialize). True when usable; otherwise `reason`
 * names the soname and the dlopen error (and a later call retries). */
BENCH__HIDDEN bool bench__pfm_load(char *reason, size_t reason_size);
/* Resolve a pfm name (":u"/":k" modifiers allowed; a bare name that fails is retried with the
 * CPU's table prefix). Returns 0, or -1 with the reason. Loads libpfm4 when needed. */
BENCH__HIDDEN int bench__pfm_resolve(const char *name, struct bench__event_encoding *out,
                                     char *reason, size_t reason_size);
/* Forget the library (pfm_terminate, dlclose through the seam); for tests. */
BENCH__HIDDEN void bench__pfm_unload(void);

#endif /* BENCH_SOURCES_EVENT_NAMING_H */
