/* SPDX-License-Identifier: MIT */
/* source.h: the one shape every counting source has (perf, perf-sw, tier0, syscall, raw and
 * pfm): a metric family, a probe that reports capabilities with reasons, a counting bracket
 * (benchmark passes) and cumulative edge reads (workload windows). A source receives a small
 * request (what to count, how), never the run configuration. Adding a source is one file in
 * lib/sources/ plus one line in lib/sources/list.h; no renderer, JSON, CLI or build code
 * changes. */
#ifndef BENCH_SOURCES_SOURCE_H
#define BENCH_SOURCES_SOURCE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "../model/row.h"
#include "../model/window.h"
#include "../util/hidden.h"

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
    /* The block a capability is reported under when it is not the source's own (raw reports
     * eventNaming for "pfm": libpfm naming is apart from raw counting); NULL: the source's. */
    const char *block[BENCH__CAP_COUNT];
};

BENCH__HIDDEN const char *bench__cap_name(enum bench__cap cap); /* "counting", "countingRaw", ... */
BENCH__HIDDEN void bench__caps_present(struct bench__caps *caps, enum bench__cap cap);
BENCH__HIDDEN BENCH_PRINTF(3, 4) void bench__caps_absent(struct bench__caps *caps,
                                                         enum bench__cap cap, const char *fmt, ...);
/* The reason recorded for an absent capability, or NULL. */
BENCH__HIDDEN const char *bench__caps_reason(const struct bench__caps *caps, enum bench__cap cap);
/* Report `cap` under the block `block` (static storage) instead of the source's own. */
BENCH__HIDDEN void bench__caps_block(struct bench__caps *caps, enum bench__cap cap,
                                     const char *block);
/* The capability whose absence makes a source unavailable, as its one-line notice names it: when
 * counting is absent (the source had something to count), the most specific of eventTracing,
 * countingRaw and counting that is absent; BENCH__CAP_COUNT when counting is not absent. */
BENCH__HIDDEN enum bench__cap bench__caps_defining_absence(const struct bench__caps *caps);

/* The reason every capability a non-Linux build lacks begins with (docs/reference/platforms.md). */
#define BENCH__OFF_PLATFORM "not available on this platform"
/* Record `cap` absent because this build has no such OS interface: "not available on this platform
 * (<why>)", e.g. why = "perf_event_open is Linux's". */
BENCH__HIDDEN void bench__caps_off_platform(struct bench__caps *caps, enum bench__cap cap,
                                            const char *why);

/* ---- host probes ------------------------------------------------------------------------- */

/* The `type` of the PMU named `pmu` (/sys/bus/event_source/devices/<pmu>/type), or -1 with
 * `why` saying what was found instead. */
BENCH__HIDDEN long bench__host_pmu_type(const char *pmu, char *why, size_t why_size);
/* The core PMU's precise levels (/sys/bus/event_source/devices/cpu/caps/max_precise: leading
 * spaces, an optional '-', digits), or -1 with `why`. */
BENCH__HIDDEN long bench__host_max_precise(char *why, size_t why_size);
/* Parse the text of a sysfs number file (len bytes): leading spaces or tabs, an optional '-',
 * then digits ended by a newline, a space or the end. 0 and *out, or -1. */
BENCH__HIDDEN int bench__host_parse_number(const char *text, size_t len, long *out);
/* Record preciseMemory: absent (no backend delivers data-source sampling), its reason naming
 * what the probe looked for (an IBS op PMU, PEBS precise levels) and what it found. */
BENCH__HIDDEN void bench__precise_memory_caps(struct bench__caps *caps);

/* ---- what a source is asked ------------------------------------------------------------ */

/* What to count and how, made by the catalog from the run configuration. */
struct bench__source_request {
    bool flag;                /* the source's own flag was given (--perf, --syscalls) */
    char *const *flag_values; /* the flag's values (--syscalls=futex,write) */
    size_t n_flag_values;
    char *const *selectors; /* every --metrics selector, in order: a source takes its own */
    size_t n_selectors;
    bool scaled;  /* --perf-scaled: keep a multiplexed group, its values labelled estimates */
    bool profile; /* --profile: probe sampling and symbolization (their capabilities) */
    unsigned profile_hz; /* --profile-hz, 0 = the default */
};

/* A family made for one request: the columns and the text they point to, owned by the caller
 * (free(columns), free(strings)). */
struct bench__family {
    struct bench__column_desc *columns;
    size_t n;
    char *strings;
};

/* ---- what a source reports ------------------------------------------------------------- */

/* What one counting pass produces: one value per family entry (per iteration; NaN = not
 * measured, never 0) and whether it is a multiplex-scaled estimate. */
struct bench__counts {
    double *values;
    bool *estimate;
    /* A perf-backed source's running/enabled ratio (0 = never scheduled); NaN otherwise or
     * when unread. Workload windows turn 0 and "unreliable" into notes. */
    double scale;
    /* A perf group whose enabled time did not advance (scale 0, every value NaN). */
    bool never_enabled;
    /* Set by a perf-backed source: a window reports its scale (null when unread). */
    bool scaled_group;
    /* A perf-backed source that says so: 1 when it counts user space only, 0 when kernel and
     * user; -1 (leave it) when not reported. */
    int user_only;
};

/* What a workload window edge reads once for every source that wants it: the wall reading's
 * getrusage(RUSAGE_SELF), whose process-wide fault and context-switch fields tier-0 reuses
 * instead of a second system call. */
struct bench__edge_shared {
    bool self_ok;
    struct rusage self;
};

/* What a source makes of a selector (see bench__source_ops.claim). */
enum bench__claim { BENCH__CLAIM_NONE, BENCH__CLAIM_RESERVED, BENCH__CLAIM_COUNTED };

/* ---- the source shape -------------------------------------------------------------- */

struct bench__source_ops {
    const char *name; /* "perf", "perf-sw", "tier0": the capability block label */
    /* The long option that asks for it ("perf" for --perf), or NULL when only naming one of its
     * metrics in --metrics does. Sources may share a flag (a fallback shares its primary's);
     * the command line takes it from the first source that declares it. */
    const char *flag;
    const char *flag_value; /* "LIST": --flag=LIST adds values; NULL: a bare flag */
    const char *flag_help;  /* its line in --help */
    /* One value of the flag checked: 0, or -1 with the reason in err. NULL: any value. */
    int (*flag_value_check)(const char *value, char *err, size_t err_size);
    /* Open only when this source was requested and `fallback_for` (if set) is absent. */
    const char *fallback_for;
    /* The column of its family shown before every other metric column ("instr"), or NULL. */
    const char *lead;
    /* The metric family in catalog order (static storage)... */
    const struct bench__column_desc *family;
    size_t n_family;
    /* ...or, for a source whose columns depend on the request (syscalls:<name>, raw:r<hex>,
     * pfm:<name>), the family made for it: no side effects (no output, no probe, no state).
     * Returns the number of columns; 0 when the request asks for none. */
    size_t (*family_for)(const struct bench__source_request *req, struct bench__family *out);
    /* What this source makes of a --metrics selector or a metric name: NONE, a name of its form
     * it cannot use (reserved, and warned as unknown), or one it makes a column from or says
     * itself why not (counted). NULL: it claims nothing beyond its static family. */
    enum bench__claim (*claim)(const char *selector);
    /* Probe and open. Records every capability present or absent (with a reason naming the
     * probe, the errno and what it likely means), and in `status` a degraded-but-available note
     * for the bench header ("" when none). Returns the source state, or NULL when counting is
     * unavailable. Never fails the run. */
    void *(*open)(const struct bench__source_request *req, struct bench__caps *caps, char *status,
                  size_t status_size);
    void (*close)(void *state);
    /* Why column `k` of its family is never measured although the source opened (a field the
     * host does not have: tier-0's /proc/self/io fields off Linux), or NULL when it is measured.
     * NULL op: every column of an open source is. The catalog lists such a metric unavailable
     * with this reason. */
    const char *(*column_absent)(const void *state, size_t k);
    /* Whether column `k` of its family_for family was dropped by the open (a pfm: name libpfm4
     * could not resolve, said on stderr with its reason): asked of an open source right after
     * open. The catalog removes such columns from the family (no table, JSON or export has
     * them), the source's counts fill the remaining columns in order, and a source left with no
     * column is closed. NULL: none is dropped. */
    bool (*column_dropped)(const void *state, size_t k);
    /* A counting pass: pass_begin once, then bracket_begin/bracket_end around each batch of
     * counted calls, then pass_end with the number of counted calls and brackets. */
    void (*pass_begin)(void *state);
    /* The row the next counting pass is for (its name), said just before pass_begin; a pass
     * with no row said (the empty-bracket disclosure) has none. NULL op: not needed. A source
     * that counts in another process (callgrind) matches that process's passes by it. */
    void (*pass_row)(void *state, const char *row);
    void (*bracket_begin)(void *state);
    void (*bracket_end)(void *state);
    void (*pass_end)(void *state, uint64_t iterations, uint64_t brackets,
                     struct bench__counts *out);
    /* Workload windows: the body is never re-run, so a source counts for a whole workload test
     * (run_begin before it, run_end after: a perf group is reset and enabled once) and is read
     * cumulatively at each window edge into a snapshot of edge_size bytes. window_counts turns
     * a window's two snapshots (and the shared readings of its opening and closing edges) into
     * totals, in the order of its window totals (below). */
    size_t edge_size;
    /* Where its edges sit among the other sources' (docs/explanation/workload-time.md, "The
     * order of the edges"): a larger rank is read nearer the window's code; equal ranks keep
     * the table's order, later ones inside. */
    unsigned edge_rank;
    /* A window's totals (what window_counts fills, in its order), each under its own name:
     * `totals` for a fixed set; otherwise one per family column, named by window_total when
     * set, else under the source's name with the column's id and header. */
    const struct bench__total_desc *totals;
    size_t n_totals;
    void (*window_total)(const struct bench__column_desc *column, struct bench__total_desc *out);
    /* The workload test the next run_begin is for (its full name), said just before it. NULL
     * op: not needed. A source that counts in another process (callgrind) matches that
     * process's windows by it. */
    void (*run_name)(void *state, const char *test);
    void (*run_begin)(void *state);
    void (*edge_read)(void *state, void *snapshot);
    void (*window_counts)(void *state, const void *open, const void *close,
                          const struct bench__edge_shared shared[2], struct bench__counts *out);
    void (*run_end)(void *state);
    /* The floor a window discloses (its apparatus cost, disclosed and never netted out).
     * edge_cost: the system calls one edge_read makes and the bytes it reads with them.
     * window_floor: the sentence for what this source's window totals include of the readings
     * nested inside its edges (`calls` and `bytes` of both edges together), "" when it counts
     * none of it. Either may be NULL. */
    void (*edge_cost)(void *state, unsigned *calls, uint64_t *bytes);
    void (*window_floor)(void *state, unsigned calls, uint64_t bytes, char *text, size_t size);
};

/* ---- the sources ---------------------------------------------------------------------- */

#define BENCH__MAX_SOURCES 16

/* One declaration per line of list.h. */
#define BENCH__SOURCE(id) BENCH__HIDDEN extern const struct bench__source_ops bench__source_##id;
#include "list.h"
#undef BENCH__SOURCE

/* Every source of list.h, in its order (counting-pass and column order). */
BENCH__HIDDEN extern const struct bench__source_ops *const bench__source_list[];
BENCH__HIDDEN extern const size_t bench__source_list_count;

/* The sources a run opens: bench__source_list, unless a test points these at its own table. */
BENCH__HIDDEN extern const struct bench__source_ops *const *bench__sources;
BENCH__HIDDEN extern size_t bench__n_sources;

#endif /* BENCH_SOURCES_SOURCE_H */
