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
struct bench_ctx {
    const struct bench__entry *entry;
    struct bench__measure *measure; /* NULL outside --bench: loops run once */
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

/* ---- protocol.c: benchmark mode ----------------------------------------------------- */

#define BENCH__SAMPLE_COUNT 32
#define BENCH__DEFAULT_MIN_TIME_MS 5
#define BENCH__MAX_SCALED_ITERATIONS (1ULL << 40)

/* Median (even n: mean of the middle two), MAD (median of absolute deviations, no scale
 * factor), min and max of n values; sorts `values`. No mean anywhere. */
struct bench__summary {
    double median, mad, min, max;
};
BENCH__HIDDEN struct bench__summary bench__summarize(double *values, size_t n);

/* The batched-timing state machine of inventory 2.1: feed it one timed sample (elapsed
 * ns at the current count); it says whether to take another and at which count. */
struct bench__sampler {
    int64_t budget_ns;
    uint64_t count; /* iterations per sample */
    bool sampling;  /* false while still doubling */
    size_t n;       /* samples kept */
    double samples[BENCH__SAMPLE_COUNT];
};
BENCH__HIDDEN void bench__sampler_start(struct bench__sampler *s, int64_t budget_ns, uint64_t pin);
BENCH__HIDDEN bool bench__sampler_step(struct bench__sampler *s, int64_t elapsed_ns);

BENCH__HIDDEN int bench__run_bench(const struct bench__config *cfg,
                                   const struct bench__suite *suite);

/* ---- runner.c: test mode ---------------------------------------------------------- */

BENCH__HIDDEN int bench__run_tests(const struct bench__config *cfg,
                                   const struct bench__suite *suite);
BENCH__HIDDEN int bench__list_tests(const struct bench__suite *suite, FILE *out);

#endif /* BENCH_INTERNAL_H */
