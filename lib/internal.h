/* SPDX-License-Identifier: MIT */
/* internal.h: declarations shared between libbench's own files (bench__ prefix, hidden
 * visibility). Nothing here is part of the ABI. */
#ifndef BENCH_INTERNAL_H
#define BENCH_INTERNAL_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <bench/bench.h>

#define BENCH__HIDDEN __attribute__((visibility("hidden")))

/* Metric formats and classes (the catalog's vocabulary). */
enum bench__format { BENCH__FORMAT_COUNT, BENCH__FORMAT_RATIO, BENCH__FORMAT_PERCENT };
enum bench__class { BENCH__QUANTITATIVE, BENCH__DIAGNOSTIC };

/* ---- cli.c: the command line, parsed once into an immutable config ---------------- */

#define BENCH__JOBS_MAX 1024u
#define BENCH__MIN_TIME_MS_MAX 86400000u /* one day */
#define BENCH__ERROR_MAX 512

struct bench__config {
    const char *argv0;
    /* queries */
    bool help;
    bool version;
    bool list;
    /* test mode */
    bool verbose;
    bool no_colors;
    unsigned jobs;           /* 0 = online CPUs */
    const char *include_src; /* NULL when not given */
    const char *exclude_src;
    regex_t include_re;
    regex_t exclude_re;
    /* bench mode (validated here; the measurement layer reads them) */
    bool bench;
    bool perf;
    bool perf_scaled;
    bool list_metrics;
    bool metrics_help;    /* --metrics=? or --metrics=help */
    uint64_t perf_iters;  /* 0 = follow the timing pass */
    uint64_t perf_batch;  /* 0 = auto */
    uint64_t min_time_ms; /* 0 = default (5 ms) */
    unsigned rounds;      /* --bench-rounds: 0 or 1 = every row's samples in one go */
    bool syscalls;        /* --syscalls given */
    char **syscall_names; /* --syscalls=LIST, NULL-terminated; NULL for a bare flag */
    size_t n_syscall_names;
    char **metrics; /* --metrics=LIST selectors, NULL when not given */
    size_t n_metrics;
    const char *sort_by; /* NULL = median/iter */
    char **group_by;     /* accumulated --group-by keys */
    size_t n_group_by;
    const char *bench_json; /* NULL = no JSON document */
};

/* Parse argv into *cfg. On a usage error returns BENCH_EINVAL and writes the message
 * (without the "error: " prefix and the "(see --help)" suffix) into err. */
BENCH__HIDDEN int bench__config_parse(struct bench__config *cfg, int argc, char **argv, char *err,
                                      size_t err_size);
BENCH__HIDDEN void bench__config_free(struct bench__config *cfg);
/* True when argv holds a flag that selects bench mode (for bench_dispatch). */
BENCH__HIDDEN bool bench__argv_wants_bench(int argc, char **argv);
BENCH__HIDDEN void bench__print_usage(FILE *out, const char *argv0);

/* ---- registry.c: registered tests, validated and ordered -------------------------- */

struct bench__entry {
    const struct bench_test *test;
    char *full_name; /* "<file-stem>.<name>" */
};

struct bench__suite {
    struct bench__entry *entries; /* by file stem, then path, then line */
    size_t count;
};

/* Snapshot the registry (or an explicit list, for tests: `head` may be NULL for the
 * global registry). On a bad descriptor returns a negative code and a message in err. */
BENCH__HIDDEN int bench__suite_load(struct bench__suite *suite, struct bench_test *head, char *err,
                                    size_t err_size);
BENCH__HIDDEN void bench__suite_free(struct bench__suite *suite);
BENCH__HIDDEN struct bench_test *bench__registry_head(void);
/* Keep the entries whose full name matches --include and not --exclude. */
BENCH__HIDDEN void bench__suite_filter(struct bench__suite *suite, const struct bench__config *cfg);
BENCH__HIDDEN bool bench__filter_match(const struct bench__config *cfg, const char *full_name);
/* "<stem>" of a __FILE__ path: the last component without its last extension. */
BENCH__HIDDEN size_t bench__file_stem(const char *path, const char **stem);

/* ---- format.c: text shapes shared by every renderer ------------------------------- */

/* A duration in ns as "11.48ns", "1.5ms", "2.0s" (inventory 4.1). */
BENCH__HIDDEN void bench__format_ns(double ns, char *buf, size_t size);
/* A metric value in its format: count (SI-scaled: 1.25G, 118.40k, 233, 3.37), ratio
 * (%.2f), percent (%.2f%); NaN → em dash; an estimate gets a leading U+2248. */
BENCH__HIDDEN void bench__format_metric(double value, enum bench__format format, bool estimate,
                                        char *buf, size_t size);
/* Quote a word for a POSIX shell when it needs quoting. */
BENCH__HIDDEN void bench__shell_quote(const char *word, char *buf, size_t size);
/* Escape ERE metacharacters so the text matches itself. */
BENCH__HIDDEN void bench__regex_escape(const char *text, char *buf, size_t size);

/* ---- term.c: what stdout is and how we may paint it ------------------------------- */

struct bench__term {
    bool color;   /* SGR colour allowed */
    bool animate; /* live progress line allowed */
    int width;    /* columns; 80 when unknown */
};
/* The one policy: colour and animation only on a TTY, never with --no-colors, a
 * non-empty NO_COLOR or TERM=dumb. */
BENCH__HIDDEN struct bench__term bench__term_probe(int fd, const struct bench__config *cfg);

/* ---- context.c: the running test (bench_t) ---------------------------------------- */

enum bench__outcome { BENCH__PASSED = 0, BENCH__FAILED = 1, BENCH__SKIPPED = 2 };

/* How a failure or skip leaves the body: report through `result_fd` and _exit (a pool
 * worker process), or longjmp back to `escape` (in-process). */
struct bench__measure;
struct bench__wl;
struct bench_ctx {
    const struct bench__entry *entry;
    struct bench__measure *measure; /* NULL outside --bench: loops run once */
    struct bench__wl *workload;     /* a WORKLOAD under --bench: windows measure */
    int result_fd;
    void *escape; /* jmp_buf * when in-process */
    enum bench__outcome outcome;
    char message[1024];
};
BENCH__HIDDEN extern struct bench_ctx *bench__current;
/* Leave the body with an outcome (pool worker: report and _exit; in-process: longjmp). */
BENCH__HIDDEN BENCH_NORETURN void bench__finish(struct bench_ctx *ctx, enum bench__outcome outcome);
/* Serialise an outcome for the result pipe and parse it back. */
BENCH__HIDDEN size_t bench__outcome_encode(enum bench__outcome outcome, const char *message,
                                           char *buf, size_t size);
BENCH__HIDDEN int bench__outcome_decode(const char *buf, size_t len, enum bench__outcome *outcome,
                                        char *message, size_t message_size);

/* ---- table.c: console tables -------------------------------------------------------- */

enum bench__align { BENCH__LEFT, BENCH__RIGHT, BENCH__DECIMAL };

struct bench__column {
    const char *header;
    enum bench__align align;
};

struct bench__table {
    const char *title; /* spliced into the top border; NULL for none */
    const struct bench__column *columns;
    size_t n_columns;
    char **cells; /* n_rows * n_columns UTF-8 strings, row-major */
    size_t n_rows;
};

/* Column widths carried across streamed tables: they only widen, and reset when the
 * header row changes. */
struct bench__table_memory {
    char *signature;
    size_t n_columns;
    size_t *left, *right;
};

BENCH__HIDDEN void bench__table_render(FILE *out, const struct bench__table *table,
                                       struct bench__table_memory *memory);
BENCH__HIDDEN void bench__table_memory_free(struct bench__table_memory *memory);
/* Display width of a UTF-8 string (every character we print is one cell wide). */
BENCH__HIDDEN size_t bench__display_width(const char *s, size_t len);

/* ---- stats.c: summary statistics (pure functions) ------------------------------------- */

/* Median (even n: mean of the middle two), MAD (median of absolute deviations, no scale
 * factor), min and max of n values; sorts `values`. No mean anywhere. */
struct bench__summary {
    double median, mad, min, max;
};
BENCH__HIDDEN struct bench__summary bench__summarize(double *values, size_t n);

/* ---- rows: what a --bench run measured, shared by every renderer ------------------- */

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
};

struct bench__kv {
    char *key;
    char *value;
};

enum bench__row_state { BENCH__ROW_OK, BENCH__ROW_ERROR, BENCH__ROW_SKIPPED };

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
    char *error;               /* "" when ok; the reason for error and skip rows */
};

struct bench__meta {
    char date[16]; /* ISO day, local time */
    char *hostname;
    const char *os;   /* linux|macos|windows|posix|unknown */
    const char *arch; /* x86_64|aarch64|x86|unknown */
    char *compiler;   /* of the test binary, as its shim recorded it */
    char *cpu;        /* /proc/cpuinfo model name, else "" */
    uint64_t min_time_ms;
    unsigned sample_count;
    unsigned rounds;          /* --bench-rounds; written to JSON only when > 1 */
    double clock_overhead_ns; /* NaN unless per-call rows were measured */
    char **provenance;        /* deduplicated, first-seen order */
    size_t n_provenance;
};

/* Everything a renderer needs: rows in measurement order, the metric columns in catalog
 * order (only available ones), and the workload windows (when workloads ran). */
struct bench__window;
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

/* ---- report/json.c: the --bench-json document (schema 2) ------------------------------ */

/* The document as text (malloc'd, ends with a newline); NULL when out of memory. */
BENCH__HIDDEN char *bench__json_render(const struct bench__report *report);
/* Write it atomically: a temporary file in the target's directory, fsync, rename; a target
 * that exists and is not a regular file (a device, a FIFO) is written directly. On failure
 * the target is untouched, no temporary file remains, and err holds the reason. */
BENCH__HIDDEN int bench__json_write(const struct bench__report *report, const char *path, char *err,
                                    size_t err_size);

/* ---- protocol.c: benchmark mode ----------------------------------------------------- */

#define BENCH__SAMPLE_COUNT 32
#define BENCH__DEFAULT_MIN_TIME_MS 5
#define BENCH__MAX_SCALED_ITERATIONS (1ULL << 40)
#define BENCH__MAX_COUNT_ITERATIONS 100000u /* a counting pass never runs more calls */
#define BENCH__BRACKET_TARGET_NS 1e6        /* auto batch: one bracket spans about 1 ms */

/* Calls in a counting pass: --perf-iters or the timing count, capped, at least 1. */
BENCH__HIDDEN uint64_t bench__count_iterations(uint64_t pinned, uint64_t timing_count);
/* Calls per bracket for a batched row: --perf-batch (clamped to the pass), else
 * floor(1 ms / median ns per call) clamped to [1, iterations]; 1 when unknown. */
BENCH__HIDDEN uint64_t bench__count_batch(uint64_t pinned, uint64_t iterations, double median_ns);

/* The batched-timing state machine of inventory 2.1: feed it one timed sample (elapsed
 * ns at the current count); it says whether to take another and at which count. */
struct bench__sampler {
    int64_t budget_ns;
    uint64_t count; /* iterations per sample */
    bool sampling;  /* false while still doubling */
    size_t n;       /* samples kept */
    size_t target;  /* stop once n reaches it (BENCH__SAMPLE_COUNT, or a round's share) */
    bool warmup;    /* discard the next sample: a round resumed with a known count */
    double samples[BENCH__SAMPLE_COUNT];
};
BENCH__HIDDEN void bench__sampler_start(struct bench__sampler *s, int64_t budget_ns, uint64_t pin);
BENCH__HIDDEN bool bench__sampler_step(struct bench__sampler *s, int64_t elapsed_ns);

/* The clock of the timing protocol: CLOCK_MONOTONIC in integer ns. A test replaces it
 * (the fake-clock seam) to drive the protocol deterministically. */
BENCH__HIDDEN extern int64_t (*bench__clock_ns)(void);

/* The per-call stop rule of bench_case rows: after n timed calls totalling total_ns, take
 * another? Pinned: exactly `pin` calls. Otherwise at least 32 calls and at least the
 * budget, but stop once 32 calls measured no time at all (a stalled coarse clock). */
BENCH__HIDDEN bool bench__per_call_continue(size_t n, int64_t total_ns, int64_t budget_ns,
                                            uint64_t pin);

BENCH__HIDDEN int bench__run_bench(const struct bench__config *cfg,
                                   const struct bench__suite *suite);

/* ---- grouping.c: streaming keys, table titles and row order (pure) -------------------- */

/* The group of a row for --group-by keys: each value as "=<v>" or "!" when missing,
 * joined by 0x1F (malloc'd). Keys sort ascending; missing values first. */
BENCH__HIDDEN char *bench__group_key(const struct bench__row *row, char *const *keys,
                                     size_t n_keys);
/* "v1/v2" with "?" for a missing value, "(unlabeled)" when every value is missing. */
BENCH__HIDDEN void bench__group_title(const char *key, char *buf, size_t size);
/* Does a --sort-by key name something these columns can sort by (name, median/iter, a
 * metric id or its header)? */
BENCH__HIDDEN bool
bench__sort_key_known(const char *key, const struct bench__column_desc *const *cols, size_t n_cols);
/* Order rows for one table: ascending by the key (median/iter when NULL); rows without a
 * value after rows with one; error and skip rows last, by name; ties keep their order. */
BENCH__HIDDEN void bench__sort_rows(const struct bench__row **rows, size_t n, const char *key);

/* ---- report/bench_table.c: rows as a console table ------------------------------------ */

/* Render the rows of one group: flat (group_keys == NULL: label columns, then `benchmark`)
 * or grouped (title `benchmark: <title>`, stub column `implementation`). Every source
 * column of `cols` shows (em dashes where unmeasured); a client column only when some row
 * has a cell for it. */
BENCH__HIDDEN void bench__bench_table_render(FILE *out, const struct bench__row *const *rows,
                                             size_t n, const struct bench__column_desc *const *cols,
                                             size_t n_cols, char *const *group_keys,
                                             size_t n_group_keys, const char *title,
                                             struct bench__table_memory *memory);

/* ---- meta.c: facts about the host for the JSON meta ----------------------------------- */

BENCH__HIDDEN void bench__meta_collect(struct bench__meta *meta, const struct bench__suite *suite,
                                       uint64_t min_time_ms);
BENCH__HIDDEN void bench__meta_free(struct bench__meta *meta);

/* ---- runner.c: test mode ---------------------------------------------------------- */

BENCH__HIDDEN int bench__run_tests(const struct bench__config *cfg,
                                   const struct bench__suite *suite);
BENCH__HIDDEN int bench__list_tests(const struct bench__suite *suite, FILE *out);

#endif /* BENCH_INTERNAL_H */
