/* SPDX-License-Identifier: MIT */
/* row.h: what a --bench run measured, in the shape every renderer reads: metric columns, the
 * cells of a row, labels, and the row itself. "Not measured" is a NaN cell or a row state, never
 * a zero. Types only. */
#ifndef BENCH_MODEL_ROW_H
#define BENCH_MODEL_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/format.h"
#include "profile.h"
#include "summary.h"

/* The classes of a metric (the catalog's vocabulary). */
enum bench__class { BENCH__QUANTITATIVE, BENCH__DIAGNOSTIC };

/* The class's word in JSON and the catalog: "quantitative" or "diagnostic". */
BENCH__HIDDEN const char *bench__class_name(enum bench__class cls);

/* One metric column: what the JSON "columns" array and the table headers describe. */
struct bench__column_desc {
    const char *name;   /* id: "B/s", "ipc", "user.items" */
    const char *header; /* table header */
    enum bench__format format;
    enum bench__class cls;
    const char *source; /* "client", "perf", ... (static string) */
    bool is_default;    /* shown without --metrics when available */
};

/* One metric value of one row. NaN = not measured (em dash / null), never 0. */
struct bench__cell {
    const struct bench__column_desc *column;
    double value;
    bool estimate; /* multiplex-scaled: rendered with a leading U+2248 */
    /* What an empty counting bracket read per call, included in `value` (never subtracted): set
     * on a count column of a row counted one call per bracket when that source's empty bracket
     * read more than 0; 0 (or NaN) otherwise. The table marks such cells, the JSON lists them. */
    double bracket;
};

struct bench__kv {
    char *key;
    char *value;
};

/* A row whose contention is at least this is marked in the table (a note under it says so). */
#define BENCH__CONTENTION_MARK 0.25

/* A row of one call per sample whose median is at most this many times the cost of one clock
 * read (meta's clockOverheadNs) is at the clock's resolution: its figure is mostly the clock
 * read, and so is every rate derived from it. The table, the JSON and the exports mark it. */
#define BENCH__CLOCK_RESOLUTION_FACTOR 2.0

enum bench__row_state { BENCH__ROW_OK, BENCH__ROW_ERROR, BENCH__ROW_SKIPPED };

/* Why a measured row's contention is NaN (0: it was measured, or the row was not): its timing
 * spanned under BENCH__CONTENTION_MIN_TICKS of the machine's CPU time, or /proc/stat or this
 * process's CPU time could not be read. The table marks such a row (§) and says why. */
enum { BENCH__CONTENTION_SHORT = 1, BENCH__CONTENTION_UNREADABLE = 2 };

struct bench__row {
    char *name;   /* case name, or the test's full name for BENCH_ITER/whole-body rows */
    char *source; /* full name of the registering test (the default streaming key) */
    struct bench__kv *labels; /* sorted by key */
    size_t n_labels;
    enum bench__row_state state;
    uint64_t iterations; /* per sample (1 for per-call rows) */
    size_t samples;
    struct bench__summary stats; /* ns per iteration; all NaN unless state == OK */
    struct bench__cell *cells;   /* row-cell order */
    size_t n_cells;
    uint64_t count_iterations; /* 0 = no counting pass ran */
    /* the thread's CPU time per iteration over the kept samples of a batched row, read between
     * samples (never inside one); NaN or 0 = not measured (a bench_case row: see formats.md) */
    double cpu_ns;
    /* the share of the machine's CPU time other processes used while the row was timed, in
     * [0, 1]; NaN = not measured (docs/explanation/contention.md) */
    double contention;
    int contention_gap;       /* why contention is NaN: BENCH__CONTENTION_SHORT, ... (0: none) */
    bool at_clock_resolution; /* see BENCH__CLOCK_RESOLUTION_FACTOR */
    char *error;              /* "" when ok; the reason for error and skip rows */
    struct bench__profile *profile; /* --profile: the row's sampling pass (owned), or NULL */
};

/* The identity of a row in a run: its name and its labels (sorted by key), joined by 0x1F
 * (malloc'd). Two rows with the same identity are one cell twice. */
BENCH__HIDDEN char *bench__row_identity(const char *name, const struct bench__kv *labels,
                                        size_t n_labels);
/* The identity of a case of a body in a run: the body's full name, then the row identity, joined
 * by 0x1E (malloc'd). */
BENCH__HIDDEN char *bench__case_identity(const char *body, const char *name,
                                         const struct bench__kv *labels, size_t n_labels);
/* Is this measured row of one call per sample (iterations 1) at the clock's resolution: its
 * median at most BENCH__CLOCK_RESOLUTION_FACTOR clock reads of clock_overhead_ns (false when
 * that cost is unknown, NaN)? */
BENCH__HIDDEN bool bench__row_at_clock_resolution(const struct bench__row *row,
                                                  double clock_overhead_ns);
/* Is this column a rate derived from the row's median (a client rate metric: its name ends in
 * "/s")? */
BENCH__HIDDEN bool bench__column_is_rate(const struct bench__column_desc *column);
/* The row's measured thread CPU time per iteration (row->cpu_ns), or NaN when it was not. */
BENCH__HIDDEN double bench__row_cpu_ns(const struct bench__row *row);
/* Free what a row owns (name, source, labels, cells, error, profile); the row itself is the
 * caller's. */
BENCH__HIDDEN void bench__row_release(struct bench__row *row);

/* A row's name in the foreign formats: its name, then "/key:value" for each label in key order
 * (Google Benchmark's way of naming arguments), malloc'd (row.c). */
BENCH__HIDDEN char *bench__doc_row_name(const struct bench__row *row);

#endif /* BENCH_MODEL_ROW_H */
