/* SPDX-License-Identifier: MIT */
/* report.h: everything a renderer needs of a run: facts about the host and the run (meta), the
 * metric columns, the rows in measurement order and the workload windows. Types only. */
#ifndef BENCH_MODEL_REPORT_H
#define BENCH_MODEL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "row.h"
#include "window.h"

/* The environment a run measured in, checked once before anything is measured (its warnings
 * went to stderr too). Unknown values are NULL / -1 / NaN / 0, each with its reason in
 * `unknown` (key: the JSON name of the value). */
struct bench__environment {
    char *governor;    /* the distinct cpufreq governors, comma-separated; NULL unknown */
    int boost;         /* 1 on, 0 off, -1 unknown */
    const char *build; /* "optimized", "unoptimized", "asserts" (NDEBUG missing) */
    int hardware_pmu;  /* 1 present, 0 absent, -1 unknown */
    int hypervisor;    /* /proc/cpuinfo's hypervisor flag: 1, 0, -1 unknown */
    double load_avg;   /* 1-minute load average at start; NaN unknown */
    unsigned cpus;     /* CPUs /proc/stat lists; 0 unknown */
    char **warnings;   /* each as said on stderr, without its "warning: " */
    size_t n_warnings;
    struct bench__kv *unknown;
    size_t n_unknown;
};

struct bench__meta {
    char date[16]; /* ISO day, local time */
    char *hostname;
    const char *os;   /* linux|macos|windows|posix|unknown */
    const char *arch; /* x86_64|aarch64|x86|unknown */
    char *compiler;   /* of the test binary, as its shim recorded it */
    char *cpu;        /* /proc/cpuinfo model name, else "" */
    long online_cpus; /* sysconf(_SC_NPROCESSORS_ONLN); <= 0 = unknown */
    uint64_t min_time_ms;
    unsigned sample_count;
    unsigned rounds;          /* --bench-rounds; written to JSON only when > 1 */
    double clock_overhead_ns; /* NaN unless per-call rows were measured */
    char **provenance;        /* deduplicated, first-seen order */
    size_t n_provenance;
    const char *incomplete; /* NULL, or why the run stopped before it measured everything */
    const struct bench__environment *environment; /* NULL: not checked (not written) */
};

/* The format of the --bench-json document (--bench-format; docs/reference/formats.md). */
enum bench__doc_format { BENCH__DOC_LIBBENCH, BENCH__DOC_GBENCH, BENCH__DOC_BMF };

/* Rows in measurement order, the metric columns in catalog order (only available ones), and
 * the workload windows (when workloads ran). */
struct bench__report {
    const struct bench__window *windows;
    size_t n_windows;
    bool has_windows; /* workloads ran: the document gets a "windows" array */
    struct bench__meta meta;
    const struct bench__column_desc *const *columns;
    size_t n_columns;
    const struct bench__row *rows;
    size_t n_rows;
};

#endif /* BENCH_MODEL_REPORT_H */
