/* SPDX-License-Identifier: MIT */
/* source.h: the one shape every counting source has (perf, perf-sw, tier0, syscall, raw
 * and pfm): a metric family, a probe that reports capabilities with reasons, a counting
 * bracket (benchmark passes) and cumulative edge reads (workload windows). Adding a source is one
 * file in lib/sources/ plus one line in the table in catalog.c; no renderer, JSON or CLI code
 * changes. */
#ifndef BENCH_SOURCES_SOURCE_H
#define BENCH_SOURCES_SOURCE_H

#include <stdarg.h>

#include "../internal.h"
#include "../wall.h"

/* ---- capabilities: flags plus ordered, reasoned absences --------------------------- */

enum bench__cap {
    BENCH__CAP_COUNTING,
    BENCH__CAP_COUNTING_RAW,
    BENCH__CAP_COUNTING_SCALED,
    BENCH__CAP_SELF_MONITORING,
    BENCH__CAP_IP_SAMPLING,
    BENCH__CAP_PRECISE_MEMORY,
    BENCH__CAP_SYMBOLIZATION,
    BENCH__CAP_EVENT_TRACING,
    BENCH__CAP_NUMA_ATTRIBUTION,
    BENCH__CAP_EVENT_NAMING,
    BENCH__CAP_COUNT
};

#define BENCH__REASON_MAX 240

struct bench__caps {
    unsigned present; /* bit (1u << cap) */
    struct {
        enum bench__cap cap;
        char reason[BENCH__REASON_MAX];
    } absent[BENCH__CAP_COUNT];
    size_t n_absent;
};

BENCH__HIDDEN const char *bench__cap_name(enum bench__cap cap); /* "counting", "countingRaw", ... */
BENCH__HIDDEN void bench__caps_present(struct bench__caps *caps, enum bench__cap cap);
BENCH__HIDDEN BENCH_PRINTF(3, 4) void bench__caps_absent(struct bench__caps *caps,
                                                         enum bench__cap cap, const char *fmt, ...);
/* The reason recorded for an absent capability, or NULL. */
BENCH__HIDDEN const char *bench__caps_reason(const struct bench__caps *caps, enum bench__cap cap);

/* ---- the source shape -------------------------------------------------------------- */

/* What one counting pass produces: one value per family entry (per iteration; NaN = not
 * measured, never 0) and whether it is a multiplex-scaled estimate. */
struct bench__counts {
    double *values;
    bool *estimate;
    /* A perf-backed source's running/enabled ratio (0 = never scheduled); NaN otherwise or
     * when unread. Workload windows turn 0 and "unreliable" into notes. */
    double scale;
};

struct bench__source_ops {
    const char *name;         /* "perf", "perf-sw", "tier0": the capability block label */
    const char *request_flag; /* the option that asks for it: "--perf", "--syscalls",
                                 "--metrics" (only by naming its metrics) */
    /* Open only when this source was requested and `fallback_for` (if set) is absent. */
    const char *fallback_for;
    /* The metric family in catalog order (static storage)... */
    const struct bench__column_desc *family;
    size_t n_family;
    /* ...or, for a source whose columns depend on the command line (syscalls:<name>,
     * raw:r<hex>, pfm:<name>), the family for this configuration: storage owned by the
     * source, valid until the next call. NULL when the family is static. */
    const struct bench__column_desc *(*family_for)(const struct bench__config *cfg, size_t *n);
    /* Probe and open. Records every capability present or absent (with a reason naming
     * the probe, the errno and what it likely means), and in `status` a degraded-but-
     * available note for the bench header ("" when none). Returns the source state, or
     * NULL when counting is unavailable. Never fails the run. */
    void *(*open)(const struct bench__config *cfg, struct bench__caps *caps, char *status,
                  size_t status_size);
    void (*close)(void *state);
    /* A counting pass: pass_begin once, then bracket_begin/bracket_end around each batch
     * of counted calls, then pass_end with the number of counted calls and brackets. */
    void (*pass_begin)(void *state);
    void (*bracket_begin)(void *state);
    void (*bracket_end)(void *state);
    void (*pass_end)(void *state, uint64_t iterations, uint64_t brackets,
                     struct bench__counts *out);
    /* Workload windows (inventory 2.7): the body is never re-run, so a source counts for a
     * whole workload test (run_begin before it, run_end after: a perf group is reset and
     * enabled once) and is read cumulatively at each window edge into a snapshot of
     * edge_size bytes. window_counts turns a window's two snapshots (and the shared readings
     * of its opening and closing edges) into totals. */
    size_t edge_size;
    void (*run_begin)(void *state);
    void (*edge_read)(void *state, void *snapshot);
    void (*window_counts)(void *state, const void *open, const void *close,
                          const struct bench__edge_shared shared[2], struct bench__counts *out);
    void (*run_end)(void *state);
    /* The floor a window discloses (inventory 2.7: "apparatus floor disclosed, never netted
     * out"). edge_cost: the system calls one edge_read makes and the bytes it reads with them.
     * window_floor: the sentence for what this source's window totals include of the readings
     * nested inside its edges (`calls` and `bytes` of both edges together), "" when it counts
     * none of it. Either may be NULL. */
    void (*edge_cost)(void *state, unsigned *calls, uint64_t *bytes);
    void (*window_floor)(void *state, unsigned calls, uint64_t bytes, char *text, size_t size);
};

/* The sources in counting-pass order (perf, perf-sw, tier0, ...); a test may point this
 * at its own table of fake sources. */
BENCH__HIDDEN extern const struct bench__source_ops *const *bench__sources;
BENCH__HIDDEN extern size_t bench__n_sources;

BENCH__HIDDEN extern const struct bench__source_ops bench__source_perf;
BENCH__HIDDEN extern const struct bench__source_ops bench__source_perf_sw;
BENCH__HIDDEN extern const struct bench__source_ops bench__source_syscalls;
BENCH__HIDDEN extern const struct bench__source_ops bench__source_raw;
BENCH__HIDDEN extern const struct bench__source_ops bench__source_tier0;

#endif /* BENCH_SOURCES_SOURCE_H */
