/* SPDX-License-Identifier: MIT */
/* config.h: the run configuration: what the command line asked for, parsed once (by
 * entry/cli.c) and immutable afterwards. The measuring layers read it; the counting sources never
 * do (the catalog turns it into a small request per source). */
#ifndef BENCH_SUITE_CONFIG_H
#define BENCH_SUITE_CONFIG_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/report.h"
#include "../util/hidden.h"

#define BENCH__JOBS_MAX 1024u
#define BENCH__MIN_TIME_MS_MAX 86400000u /* one day */
#define BENCH__ERROR_MAX 512
#define BENCH__PATTERN_MAX 4096u /* bytes of an --include or --exclude pattern */
/* --timeout and --bench-timeout: seconds, 0 = none (docs/reference/cli.md says why these). */
#define BENCH__TIMEOUT_DEFAULT 300u
#define BENCH__BENCH_TIMEOUT_DEFAULT 600u
#define BENCH__TIMEOUT_MAX 86400u /* one day */
#define BENCH__SOURCE_FLAGS_MAX 8 /* distinct flags the counting sources may declare */

/* One flag a counting source declared (--perf, --syscalls[=LIST]), as given. */
struct bench__source_flag {
    const char *name; /* the long option without "--": the source's own string */
    bool given;
    char **values; /* --syscalls=futex,write: NULL-terminated; NULL for a bare flag */
    size_t n_values;
};

/* --isolate: what a test mode worker process holds (docs/reference/cli.md says why the default). */
enum bench__isolate {
    BENCH__ISOLATE_TEST = 0, /* a process per test */
    BENCH__ISOLATE_WORKER,   /* a process per job, running test after test */
};

struct bench__config {
    const char *argv0;
    /* queries */
    bool help;
    bool version;
    bool list;
    /* test mode */
    bool verbose;
    bool no_colors;
    unsigned jobs;               /* 0 = online CPUs */
    unsigned timeout;            /* --timeout: seconds per test, 0 = none */
    enum bench__isolate isolate; /* --isolate */
    const char *include_src;     /* NULL when not given */
    const char *exclude_src;
    const char *junit; /* --junit=FILE (tests, and --bench's rows); NULL when not given */
    unsigned tap;      /* --tap[=13]: TAP on stdout instead of the result lines: 0 (none), 13,
                          14 (the same stream; only the version line differs) */
    regex_t include_re;
    regex_t exclude_re;
    /* bench mode (validated here; the measurement layer reads them) */
    bool bench;
    bool perf_scaled; /* --perf-scaled: multiplexed counts kept as labelled estimates */
    bool list_metrics;
    bool metrics_help;      /* --metrics=? or --metrics=help */
    uint64_t perf_iters;    /* 0 = follow the timing pass */
    uint64_t perf_batch;    /* 0 = auto */
    uint64_t min_time_ms;   /* 0 = default (5 ms) */
    unsigned rounds;        /* --bench-rounds: 0 or 1 = every row's samples in one go */
    double bench_precision; /* --bench-precision=PCT as a fraction; 0 = off */
    struct bench__source_flag source_flags[BENCH__SOURCE_FLAGS_MAX]; /* in source-list order */
    size_t n_source_flags;
    char **metrics; /* --metrics=LIST selectors, NULL when not given */
    size_t n_metrics;
    const char *sort_by; /* NULL = median/iter */
    char **group_by;     /* accumulated --group-by keys */
    size_t n_group_by;
    const char *bench_json;              /* NULL = no JSON document */
    enum bench__doc_format bench_format; /* --bench-format: the document's format */
    /* --bench-timeout: seconds a body may run in the supervised bench mode, 0 = none */
    unsigned bench_timeout;
    bool bench_in_process; /* --bench-in-process: no worker, no supervision */
    bool bench_serve;      /* --bench-serve: the served measuring mode (bench/measuring/serve.c) */
    /* --profile: a sampling pass per benchmark row after its timing and counting passes */
    bool profile;               /* also set by --profile-folded */
    unsigned profile_hz;        /* --profile-hz: 0 = the default rate */
    const char *profile_folded; /* --profile-folded: NULL when not given */
};

/* The flag named `name` ("perf"), or NULL when no source declares it. */
BENCH__HIDDEN const struct bench__source_flag *bench__config_flag(const struct bench__config *cfg,
                                                                  const char *name);

/* The least time of a batched sample, in ms: --bench-min-time, else 5; with --bench-precision
 * and no --bench-min-time, 1 (the interval of the median decides when a row has enough, so the
 * samples need only be long against the clock's reading cost: 1 ms is above 10^4 of it). */
#define BENCH__DEFAULT_MIN_TIME_MS 5
#define BENCH__PRECISION_MIN_TIME_MS 1
static inline uint64_t bench__min_time_ms(const struct bench__config *cfg)
{
    if (cfg->min_time_ms)
        return cfg->min_time_ms;
    return cfg->bench_precision > 0 ? BENCH__PRECISION_MIN_TIME_MS : BENCH__DEFAULT_MIN_TIME_MS;
}

#endif /* BENCH_SUITE_CONFIG_H */
