/* SPDX-License-Identifier: MIT */
/* cli.c: owns the command line: one table of options (its own, and the flag each counting source
 * declares), parsed once into an immutable struct bench__config, with exactly one error message
 * per malformed input. It does not act on the options (runner.c and the measurement layer do).
 * Over 600 lines because the option table is one table: splitting it would split the one place
 * that lists every option. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bench/errors.h>

#include "../bench/measuring/sampler.h"
#include "../sources/ip_sampling.h"
#include "../report/formats.h"
#include "../sources/source.h"
#include "../util/alloc.h"
#include "../util/text.h"
#include "cli.h"

enum option_kind {
    OPT_FLAG,     /* no value */
    OPT_UINT,     /* unsigned decimal, value attached with '=' or as the next argument */
    OPT_STRING,   /* non-empty string, '=' or next argument; given at most once */
    OPT_LIST,     /* comma list, accumulates when repeated */
    OPT_OPTIONAL, /* value only with '=' (a bare flag is meaningful) */
};

enum option_id {
    O_HELP,
    O_VERSION,
    O_LIST,
    O_VERBOSE,
    O_NO_COLORS,
    O_JOBS,
    O_TIMEOUT,
    O_ISOLATE,
    O_INCLUDE,
    O_EXCLUDE,
    O_JUNIT,
    O_TAP,
    O_BENCH,
    O_SOURCE_FLAG, /* a flag a counting source declares (--perf, --syscalls) */
    O_PERF_SCALED,
    O_PERF_ITERS,
    O_PERF_BATCH,
    O_METRICS,
    O_LIST_METRICS,
    O_SORT_BY,
    O_GROUP_BY,
    O_BENCH_JSON,
    O_BENCH_FORMAT,
    O_MIN_TIME,
    O_ROUNDS,
    O_PRECISION,
    O_BENCH_TIMEOUT,
    O_BENCH_IN_PROCESS,
    O_BENCH_SERVE,
    O_PROFILE,
    O_PROFILE_HZ,
    O_PROFILE_FOLDED,
};

struct option_def {
    enum option_id id;
    char short_name; /* 0 = none */
    const char *long_name;
    enum option_kind kind;
    const char *value_name;
    uint64_t max; /* OPT_UINT only */
    const char *help;
    const char *implies; /* the source flag this option also gives (--perf-scaled: perf) */
    size_t source_flag;  /* O_SOURCE_FLAG: its index in bench__config.source_flags */
    const struct bench__source_ops *source; /* O_SOURCE_FLAG: the source that declared it */
};

/* An option of this table: what the CLI itself defines (no implied flag, no source). */
#define OPTION(id, short_name, long_name, kind, value_name, max, help)                             \
    {                                                                                              \
        (id), (short_name), (long_name), (kind), (value_name), (max), (help), NULL, 0, NULL        \
    }

static const struct option_def options[] = {
    OPTION(O_HELP, 'h', "help", OPT_FLAG, NULL, 0, "print this help and exit"),
    OPTION(O_VERSION, 0, "version", OPT_FLAG, NULL, 0, "print the libbench version and exit"),
    OPTION(O_LIST, 'l', "list", OPT_FLAG, NULL, 0,
           "list the (filtered) tests, one per line, and exit"),
    OPTION(O_VERBOSE, 'v', "verbose", OPT_FLAG, NULL, 0,
           "add duration and file:line to result lines; show output of passing tests"),
    OPTION(O_NO_COLORS, 0, "no-colors", OPT_FLAG, NULL, 0, "no colour and no live progress line"),
    OPTION(O_JOBS, 'j', "jobs", OPT_UINT, "N", BENCH__JOBS_MAX,
           "worker processes for tests (default: online CPUs; 0 = default)"),
    OPTION(O_TIMEOUT, 0, "timeout", OPT_UINT, "SECONDS", BENCH__TIMEOUT_MAX,
           "a test running longer is killed and fails (default 300; 0 = none)"),
    OPTION(O_ISOLATE, 0, "isolate", OPT_STRING, "MODE", 0,
           "test: a process per test (default); worker: one per job, test after test"),
    OPTION(O_INCLUDE, 'i', "include", OPT_STRING, "REGEX", 0,
           "run only tests whose <file-stem>.<name> matches (POSIX ERE)"),
    OPTION(O_EXCLUDE, 'e', "exclude", OPT_STRING, "REGEX", 0,
           "skip tests whose <file-stem>.<name> matches (POSIX ERE)"),
    OPTION(O_JUNIT, 0, "junit", OPT_STRING, "FILE", 0,
           "also write the results as JUnit XML (with --bench: one case per row)"),
    OPTION(O_TAP, 0, "tap", OPT_OPTIONAL, "VERSION", 0,
           "write TAP to stdout instead of the result lines (14, or =13 for older harnesses)"),
    OPTION(O_BENCH, 0, "bench", OPT_FLAG, NULL, 0,
           "measure BENCHMARK and WORKLOAD tests instead of running tests"),
    /* here: the counting sources' flags, in source-list order */
    {O_PERF_SCALED, 0, "perf-scaled", OPT_FLAG, NULL, 0,
     "with --bench: keep a multiplexed perf group; estimates are marked", "perf", 0, NULL},
    OPTION(O_PERF_ITERS, 0, "perf-iters", OPT_UINT, "N", UINT64_MAX,
           "with --bench: iterations of each counting pass (0 = follow timing)"),
    OPTION(O_PERF_BATCH, 0, "perf-batch", OPT_UINT, "N", UINT64_MAX,
           "with --bench: iterations per counting bracket (0 = auto, about 1 ms)"),
    OPTION(O_METRICS, 0, "metrics", OPT_LIST, "LIST", 0,
           "with --bench: metric columns (names, prefix*, all, ? for the catalog)"),
    OPTION(O_LIST_METRICS, 0, "list-metrics", OPT_FLAG, NULL, 0,
           "print the metric catalog and capabilities, then exit"),
    OPTION(O_SORT_BY, 0, "sort-by", OPT_STRING, "KEY", 0,
           "with --bench: sort rows by name, median/iter or a metric"),
    OPTION(O_GROUP_BY, 0, "group-by", OPT_LIST, "KEYS", 0,
           "with --bench: one table per label tuple (all, list)"),
    OPTION(O_BENCH_JSON, 0, "bench-json", OPT_STRING, "FILE", 0,
           "with --bench: also write the schema-2 JSON document"),
    OPTION(O_BENCH_FORMAT, 0, "bench-format", OPT_STRING, "FORMAT", 0,
           "with --bench-json: its format: libbench (default), gbench or bmf"),
    OPTION(O_MIN_TIME, 0, "bench-min-time", OPT_UINT, "MS", BENCH__MIN_TIME_MS_MAX,
           "with --bench: time budget per sample in ms (0 = 5 ms)"),
    OPTION(O_ROUNDS, 0, "bench-rounds", OPT_UINT, "N", BENCH__SAMPLE_COUNT,
           "with --bench: take each loop's samples in N rounds over all benchmarks (0 = 1)"),
    OPTION(O_PRECISION, 0, "bench-precision", OPT_STRING, "PCT", 0,
           "with --bench: end a loop once the 95% CI of its median is within +-PCT (at least 8 "
           "samples)"),
    OPTION(O_BENCH_TIMEOUT, 0, "bench-timeout", OPT_UINT, "SECONDS", BENCH__TIMEOUT_MAX,
           "with --bench: a body running longer is stopped (default 600; 0 = none)"),
    OPTION(O_BENCH_IN_PROCESS, 0, "bench-in-process", OPT_FLAG, NULL, 0,
           "with --bench: measure in this process, unsupervised (for a debugger; a crash ends "
           "the run)"),
    OPTION(O_BENCH_SERVE, 0, "bench-serve", OPT_FLAG, NULL, 0,
           "with --bench: list the cells, then measure one sample per command on stdin (the "
           "protocol of `libbench compare`'s paired mode)"),
    OPTION(O_PROFILE, 0, "profile", OPT_FLAG, NULL, 0,
           "with --bench: a sampling pass per benchmark after its timing: where the time goes"),
    OPTION(O_PROFILE_HZ, 0, "profile-hz", OPT_UINT, "N", BENCH__PROFILE_HZ_MAX,
           "with --bench: samples per second of CPU time of --profile (0 = 1000)"),
    OPTION(O_PROFILE_FOLDED, 0, "profile-folded", OPT_STRING, "FILE", 0,
           "with --bench: also write the profiles as folded stacks (implies --profile)"),
};
#define N_OPTIONS (sizeof options / sizeof options[0])
#define SOURCE_FLAGS_AFTER O_BENCH /* where the sources' flags go in the table and in --help */

/* The options in force: the table above with every source's flag spliced in. */
struct option_table {
    struct option_def defs[N_OPTIONS + BENCH__SOURCE_FLAGS_MAX];
    size_t n;
};

/* The flags the counting sources declare, each once (the first source that declares a name
 * gives its help and value check), in source order. Their names go into cfg->source_flags. */
static void build_options(struct option_table *t, struct bench__config *cfg)
{
    t->n = 0;
    for (size_t k = 0; k < N_OPTIONS; k++) {
        t->defs[t->n++] = options[k];
        if (options[k].id != SOURCE_FLAGS_AFTER)
            continue;
        for (size_t i = 0; i < bench__n_sources; i++) {
            const struct bench__source_ops *ops = bench__sources[i];
            if (!ops->flag || bench__config_flag(cfg, ops->flag) ||
                cfg->n_source_flags == BENCH__SOURCE_FLAGS_MAX)
                continue;
            cfg->source_flags[cfg->n_source_flags] = (struct bench__source_flag){.name = ops->flag};
            t->defs[t->n++] = (struct option_def){
                .id = O_SOURCE_FLAG,
                .long_name = ops->flag,
                .kind = ops->flag_value ? OPT_OPTIONAL : OPT_FLAG,
                .value_name = ops->flag_value,
                .help = ops->flag_help ? ops->flag_help : "",
                .source_flag = cfg->n_source_flags++,
                .source = ops,
            };
        }
    }
}

struct parse_state {
    char *err;
    size_t err_size;
    const struct option_table *table;
    bool seen[N_OPTIONS + BENCH__SOURCE_FLAGS_MAX];
    bool format_given; /* --bench-format, which needs --bench-json */
};

BENCH_PRINTF(2, 3) static int fail(struct parse_state *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(st->err, st->err_size, fmt, ap);
    va_end(ap);
    if (st->err_size)
        bench__sanitize(st->err); /* echoed values stay on one line */
    return BENCH_EINVAL;
}

static int unknown_option(struct parse_state *st, const char *arg, const char *name)
{
    struct bench__suggestion s;
    bench__suggest_begin(&s, name);
    for (size_t k = 0; k < st->table->n; k++)
        bench__suggest_offer(&s, st->table->defs[k].long_name);
    if (s.best)
        return fail(st, "unknown option '%s' (did you mean '--%s'?)", arg, s.best);
    return fail(st, "unknown option '%s'", arg);
}

static int parse_uint(struct parse_state *st, const char *shown, const char *value, uint64_t max,
                      uint64_t *out)
{
    if (*value == '\0')
        return fail(st, "option '%s' needs a number, got an empty value", shown);
    const char *end = value + strlen(value), *stop;
    enum bench__digits got = bench__parse_digits(value, end, max, out, &stop);
    if (got == BENCH__DIGITS_TOO_LARGE)
        return fail(st, "option '%s': '%s' is too large (at most %llu)", shown, value,
                    (unsigned long long)max);
    if (got == BENCH__DIGITS_NONE || stop != end)
        return fail(st, "option '%s' needs a non-negative integer, got '%s'", shown, value);
    return 0;
}

/* Split a comma list into a growing NULL-terminated array; every element non-empty. */
static int append_list(struct parse_state *st, const char *shown, const char *value, char ***items,
                       size_t *count)
{
    if (*value == '\0')
        return fail(st, "option '%s' needs a non-empty value", shown);
    const char *p = value;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return fail(st, "option '%s': empty element in '%s'", shown, value);
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)p[i] <= ' ' || p[i] == 0x7f)
                return fail(st, "option '%s': whitespace or control character in '%s'", shown,
                            value);
        *items = bench__xrealloc(*items, (*count + 2) * sizeof **items);
        (*items)[*count] = bench__xstrndup(p, len);
        (*items)[++*count] = NULL;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

static int compare_items(const void *pa, const void *pb, void *arg)
{
    char *const *items = arg;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int c = strcmp(items[a], items[b]);
    return c ? c : (a > b) - (a < b);
}

/* Drop the repeats of a list, keeping each element's first place: a selector given 2000 times
 * is one selector (so it is warned about, or refused, once). O(n log n) for any argv. */
static void dedupe_list(char **items, size_t *count)
{
    size_t n = *count;
    if (n < 2)
        return;
    size_t *order = bench__xmalloc(n * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, compare_items, items);
    size_t first = order[0]; /* the first place of the text in hand (the sort keeps places) */
    for (size_t i = 1; i < n; i++) {
        if (strcmp(items[order[i]], items[first]) != 0) {
            first = order[i];
            continue;
        }
        free(items[order[i]]);
        items[order[i]] = NULL;
    }
    free(order);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (items[i])
            items[kept++] = items[i];
    items[kept] = NULL;
    *count = kept;
}

/* The values a source flag just gained, each checked by the source that declared the flag. */
static int check_flag_values(struct parse_state *st, const struct option_def *def,
                             const char *shown, char *const *values, size_t n)
{
    for (size_t i = 0; i < n && def->source->flag_value_check; i++) {
        char why[BENCH__ERROR_MAX];
        if (def->source->flag_value_check(values[i], why, sizeof why) != 0)
            return fail(st, "option '%s': %s", shown, why);
    }
    return 0;
}

static int compile_regex(struct parse_state *st, const char *flag, const char *src, regex_t *re)
{
    /* a long alternation costs regcomp time and memory far beyond its length */
    size_t len = strlen(src);
    if (len > BENCH__PATTERN_MAX)
        return fail(st, "option '%s': the pattern is %zu bytes long (at most %u)", flag, len,
                    BENCH__PATTERN_MAX);
    int rc = regcomp(re, src, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char msg[200];
        regerror(rc, re, msg, sizeof msg);
        return fail(st, "invalid %s regular expression '%s': %s", flag, src, msg);
    }
    return 0;
}

/* --bench-precision=PCT: a plain decimal percentage above 0, at most 100 ("1", "0.5"). */
static int parse_precision(struct bench__config *cfg, struct parse_state *st, const char *shown,
                           const char *value)
{
    size_t digits = 0, dots = 0;
    for (const char *c = value; *c; c++) {
        if (*c >= '0' && *c <= '9')
            digits++;
        else if (*c == '.')
            dots++;
        else
            digits = 0, dots = 2; /* not a plain decimal */
        if (dots > 1)
            break;
    }
    double pct = digits && dots <= 1 && strlen(value) <= 16 ? strtod(value, NULL) : -1;
    if (!(pct > 0 && pct <= 100))
        return fail(st,
                    "option '%s' needs a percentage above 0 and at most 100 (like 1 or 0.5), "
                    "got '%s'",
                    shown, value);
    cfg->bench_precision = pct / 100.0;
    return 0;
}

static int apply(struct bench__config *cfg, struct parse_state *st, const struct option_def *def,
                 const char *shown, const char *value)
{
    uint64_t n = 0;
    size_t index = (size_t)(def - st->table->defs);
    if ((def->kind == OPT_STRING || def->kind == OPT_UINT) && st->seen[index])
        return fail(st, "option '%s' given more than once", shown);
    st->seen[index] = true;
    if (def->kind == OPT_STRING && *value == '\0')
        return fail(st, "option '%s' needs a non-empty value", shown);
    if (def->kind == OPT_UINT) {
        int rc = parse_uint(st, shown, value, def->max, &n);
        if (rc)
            return rc;
    }
    if (def->implies) {
        struct bench__source_flag *implied =
            (struct bench__source_flag *)bench__config_flag(cfg, def->implies);
        if (implied)
            implied->given = true;
    }
    switch (def->id) {
    case O_HELP: cfg->help = true; break;
    case O_VERSION: cfg->version = true; break;
    case O_LIST: cfg->list = true; break;
    case O_VERBOSE: cfg->verbose = true; break;
    case O_NO_COLORS: cfg->no_colors = true; break;
    case O_JOBS: cfg->jobs = (unsigned)n; break;
    case O_TIMEOUT: cfg->timeout = (unsigned)n; break;
    case O_BENCH_TIMEOUT: cfg->bench_timeout = (unsigned)n; break;
    case O_BENCH_IN_PROCESS: cfg->bench_in_process = true; break;
    case O_BENCH_SERVE: cfg->bench_serve = true; break;
    case O_PROFILE: cfg->profile = true; break;
    case O_PROFILE_HZ: cfg->profile_hz = (unsigned)n; break;
    case O_PROFILE_FOLDED:
        cfg->profile = true;
        cfg->profile_folded = value;
        break;
    case O_ISOLATE:
        if (!strcmp(value, "test"))
            cfg->isolate = BENCH__ISOLATE_TEST;
        else if (!strcmp(value, "worker"))
            cfg->isolate = BENCH__ISOLATE_WORKER;
        else
            return fail(st, "option '%s': unknown mode '%s' (test or worker)", shown, value);
        return 0;
    case O_INCLUDE: cfg->include_src = value; break;
    case O_EXCLUDE: cfg->exclude_src = value; break;
    case O_JUNIT: cfg->junit = value; break;
    case O_TAP:
        if (value && strcmp(value, "13") && strcmp(value, "14"))
            return fail(st, "option '%s': unknown TAP version '%s' (13 or 14)", shown, value);
        cfg->tap = value && !strcmp(value, "13") ? 13 : 14;
        return 0;
    case O_BENCH: cfg->bench = true; break;
    case O_PERF_SCALED: cfg->perf_scaled = true; break;
    case O_PERF_ITERS: cfg->perf_iters = n; break;
    case O_PERF_BATCH: cfg->perf_batch = n; break;
    case O_MIN_TIME: cfg->min_time_ms = n; break;
    case O_ROUNDS: cfg->rounds = (unsigned)n; break;
    case O_PRECISION: return parse_precision(cfg, st, shown, value);
    case O_LIST_METRICS: cfg->list_metrics = true; break;
    case O_SORT_BY: cfg->sort_by = value; break;
    case O_BENCH_JSON: cfg->bench_json = value; break;
    case O_BENCH_FORMAT:
        st->format_given = true;
        if (bench__doc_format_parse(value, &cfg->bench_format) != 0)
            return fail(st, "option '%s': unknown format '%s' (libbench, gbench or bmf)", shown,
                        value);
        return 0;
    case O_GROUP_BY: return append_list(st, shown, value, &cfg->group_by, &cfg->n_group_by);
    case O_METRICS: {
        int rc = append_list(st, shown, value, &cfg->metrics, &cfg->n_metrics);
        if (rc)
            return rc;
        for (size_t i = 0; i < cfg->n_metrics; i++)
            if (!strcmp(cfg->metrics[i], "?") || !strcmp(cfg->metrics[i], "help"))
                cfg->metrics_help = true;
        return 0;
    }
    case O_SOURCE_FLAG: {
        struct bench__source_flag *flag = &cfg->source_flags[def->source_flag];
        flag->given = true;
        if (value == NULL)
            return 0;
        size_t before = flag->n_values;
        int rc = append_list(st, shown, value, &flag->values, &flag->n_values);
        if (rc)
            return rc;
        return check_flag_values(st, def, shown, flag->values + before, flag->n_values - before);
    }
    }
    return 0;
}

static const struct option_def *find_long(const struct option_table *t, const char *name,
                                          size_t len)
{
    for (size_t k = 0; k < t->n; k++)
        if (strlen(t->defs[k].long_name) == len && !strncmp(t->defs[k].long_name, name, len))
            return &t->defs[k];
    return NULL;
}

static const struct option_def *find_short(const struct option_table *t, char c)
{
    for (size_t k = 0; k < t->n; k++)
        if (t->defs[k].short_name == c)
            return &t->defs[k];
    return NULL;
}

static int parse_args(struct bench__config *cfg, struct parse_state *st, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg == NULL)
            return fail(st, "argument %d is NULL", i);
        if (!strcmp(arg, "--")) {
            if (i + 1 < argc)
                return fail(st,
                            "unexpected argument '%s' after '--' (this program takes no "
                            "positional arguments)",
                            argv[i + 1]);
            return 0;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            /* a flag whose value is optional takes it only with '=' */
            const struct option_def *prev =
                i > 1 && !strncmp(argv[i - 1], "--", 2)
                    ? find_long(st->table, argv[i - 1] + 2, strlen(argv[i - 1] + 2))
                    : NULL;
            if (prev && prev->kind == OPT_OPTIONAL)
                return fail(st,
                            "unexpected positional argument '%s' — --%s takes its "
                            "%s only with '=' (--%s=%s)",
                            arg, prev->long_name, prev->value_name ? "list" : "value",
                            prev->long_name, arg);
            return fail(st,
                        "unexpected positional argument '%s' (this program takes options "
                        "only)",
                        arg);
        }
        const struct option_def *def;
        const char *value = NULL;
        char shown[64];
        if (arg[1] == '-') {
            const char *name = arg + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            def = find_long(st->table, name, len);
            if (!def) {
                char bare[64];
                bench__fmt(bare, sizeof bare, "%.*s", (int)(len < 60 ? len : 60), name);
                char as_given[80];
                bench__fmt(as_given, sizeof as_given, "--%s", bare);
                return unknown_option(st, as_given, bare);
            }
            bench__fmt(shown, sizeof shown, "--%s", def->long_name);
            if (eq)
                value = eq + 1;
        } else {
            const char *eq = strchr(arg + 1, '=');
            size_t len = eq ? (size_t)(eq - arg - 1) : strlen(arg + 1);
            const struct option_def *as_long = len > 1 ? find_long(st->table, arg + 1, len) : NULL;
            if (as_long)
                return fail(st, "unknown option '%s' (did you mean '--%s'?)", arg,
                            as_long->long_name);
            def = find_short(st->table, arg[1]);
            if (!def)
                return fail(st, "unknown option '%s'", arg);
            if (arg[2] == '=' && def->kind == OPT_FLAG)
                return fail(st, "option '-%c' takes no value", arg[1]);
            if (arg[2] == '=')
                return fail(st,
                            "option '-%c' takes its value as '-%c VALUE' or '-%cVALUE', "
                            "not '%s'",
                            arg[1], arg[1], arg[1], arg);
            bench__fmt(shown, sizeof shown, "-%c", def->short_name);
            if (arg[2] != '\0') {
                if (def->kind == OPT_FLAG)
                    return fail(st,
                                "unknown option '%s' (short flags do not combine; "
                                "write them separately)",
                                arg);
                value = arg + 2;
            }
        }
        if (def->kind == OPT_FLAG && value)
            return fail(st, "option '%s' takes no value", shown);
        if ((def->kind == OPT_UINT || def->kind == OPT_STRING || def->kind == OPT_LIST) && !value) {
            if (i + 1 >= argc)
                return fail(st, "option '%s' needs a value (%s)", shown, def->value_name);
            value = argv[++i];
        }
        int rc = apply(cfg, st, def, shown, value);
        if (rc)
            return rc;
    }
    return 0;
}

int bench__config_parse(struct bench__config *cfg, int argc, char **argv, char *err,
                        size_t err_size)
{
    memset(cfg, 0, sizeof *cfg);
    struct option_table table;
    build_options(&table, cfg);
    struct parse_state st = {.err = err, .err_size = err_size, .table = &table};
    cfg->argv0 = argc > 0 && argv[0] ? argv[0] : "bench";
    if (err_size)
        err[0] = '\0';
    cfg->timeout = BENCH__TIMEOUT_DEFAULT;
    cfg->bench_timeout = BENCH__BENCH_TIMEOUT_DEFAULT;
    int rc = parse_args(cfg, &st, argc, argv);
    if (rc == 0 && st.format_given && !cfg->bench_json)
        rc = fail(&st, "option '--bench-format' needs --bench-json=FILE (it chooses the format of "
                       "that document)");
    if (rc == 0) {
        dedupe_list(cfg->metrics, &cfg->n_metrics);
        dedupe_list(cfg->group_by, &cfg->n_group_by);
        for (size_t i = 0; i < cfg->n_source_flags; i++)
            dedupe_list(cfg->source_flags[i].values, &cfg->source_flags[i].n_values);
    }
    bool include_compiled = false, exclude_compiled = false;
    if (rc == 0 && cfg->include_src)
        include_compiled =
            (rc = compile_regex(&st, "--include", cfg->include_src, &cfg->include_re)) == 0;
    if (rc == 0 && cfg->exclude_src)
        exclude_compiled =
            (rc = compile_regex(&st, "--exclude", cfg->exclude_src, &cfg->exclude_re)) == 0;
    if (rc) {
        if (!include_compiled)
            cfg->include_src = NULL;
        if (!exclude_compiled)
            cfg->exclude_src = NULL;
        bench__config_free(cfg);
        return rc;
    }
    return 0;
}

static void free_list(char **items)
{
    if (!items)
        return;
    for (char **p = items; *p; p++)
        free(*p);
    free(items);
}

void bench__config_free(struct bench__config *cfg)
{
    if (cfg->include_src)
        regfree(&cfg->include_re);
    if (cfg->exclude_src)
        regfree(&cfg->exclude_re);
    for (size_t i = 0; i < cfg->n_source_flags; i++)
        free_list(cfg->source_flags[i].values);
    free_list(cfg->metrics);
    free_list(cfg->group_by);
    memset(cfg, 0, sizeof *cfg);
}

bool bench__argv_wants_bench(int argc, char **argv)
{
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    if (bench__config_parse(&cfg, argc, argv, err, sizeof err) == 0) {
        bool wants = cfg.bench || cfg.list_metrics || cfg.metrics_help;
        bench__config_free(&cfg);
        return wants;
    }
    /* Malformed: hand it to bench_main (which reports the error) only when a literal
     * --bench says the user meant libbench rather than the host framework. */
    for (int i = 1; i < argc && argv[i] && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--bench"))
            return true;
    return false;
}

void bench__print_usage(FILE *out, const char *argv0)
{
    fprintf(out, "Usage: %s [options]\n\n", argv0);
    fprintf(out, "Runs the unit tests registered in this program in parallel worker processes;\n"
                 "with --bench, measures its BENCHMARK and WORKLOAD tests instead.\n\n");
    fprintf(out, "Options:\n");
    struct bench__config names = {0};
    struct option_table table;
    build_options(&table, &names);
    for (size_t k = 0; k < table.n; k++) {
        const struct option_def *d = &table.defs[k];
        char left[64];
        const char *sep = d->kind == OPT_OPTIONAL ? "[=" : d->value_name ? "=" : "";
        const char *close = d->kind == OPT_OPTIONAL ? "]" : "";
        char shortpart[8] = "    ";
        if (d->short_name)
            bench__fmt(shortpart, sizeof shortpart, "-%c, ", d->short_name);
        bench__fmt(left, sizeof left, "%s--%s%s%s%s", shortpart, d->long_name, sep,
                   d->value_name ? d->value_name : "", close);
        fprintf(out, "  %-28s %s\n", left, d->help);
    }
    fprintf(out, "\nExit status: 0 when no test failed, 1 when one did, 2 on a usage error.\n"
                 "Colour and the progress line appear only on a terminal, and never with\n"
                 "--no-colors, a non-empty NO_COLOR or TERM=dumb.\n");
}
