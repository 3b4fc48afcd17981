/* SPDX-License-Identifier: MIT */
/* protocol.c: owns benchmark mode: running BENCHMARK bodies serially in this process,
 * registering and measuring bench_case rows (deferred, one timed call per sample), the
 * batched protocol behind BENCH_ITER, bench_iter and whole-body rows, error and skip rows,
 * scheduling by streaming key, and the exit status of a --bench run. It never runs in the
 * pool, never reads a clock inside a timed loop, and leaves rendering to report/. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "internal.h"
#include "workload.h"

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t (*bench__clock_ns)(void) = monotonic_ns;

static inline int64_t clock_ns(void)
{
    return bench__clock_ns();
}

/* ---- the timing rules (pure) ------------------------------------------------------------ */

void bench__sampler_start(struct bench__sampler *s, int64_t budget_ns, uint64_t pin)
{
    memset(s, 0, sizeof *s);
    s->budget_ns = budget_ns;
    s->count = pin ? pin : 1;
    s->sampling = pin != 0; /* a pinned count is never scaled */
    s->target = BENCH__SAMPLE_COUNT;
}

bool bench__sampler_step(struct bench__sampler *s, int64_t elapsed_ns)
{
    if (s->warmup) {
        s->warmup = false;
        return s->n < s->target; /* a round with nothing left to take stops here */
    }
    if (!s->sampling) {
        if (elapsed_ns < s->budget_ns && s->count < BENCH__MAX_SCALED_ITERATIONS) {
            s->count *= 2;
            return true;
        }
        s->sampling = true; /* this scaling sample is discarded too */
        return true;
    }
    if (s->n >= BENCH__SAMPLE_COUNT)
        return false;
    s->samples[s->n++] = (double)elapsed_ns / (double)s->count;
    return s->n < s->target && s->n < BENCH__SAMPLE_COUNT;
}

bool bench__per_call_continue(size_t n, int64_t total_ns, int64_t budget_ns, uint64_t pin)
{
    if (pin)
        return n < pin;
    if (n >= BENCH__SAMPLE_COUNT && total_ns == 0)
        return false;
    return n < BENCH__SAMPLE_COUNT || total_ns < budget_ns;
}

uint64_t bench__count_iterations(uint64_t pinned, uint64_t timing_count)
{
    uint64_t n = pinned ? pinned : timing_count;
    if (n > BENCH__MAX_COUNT_ITERATIONS)
        n = BENCH__MAX_COUNT_ITERATIONS;
    return n ? n : 1;
}

uint64_t bench__count_batch(uint64_t pinned, uint64_t iterations, double median_ns)
{
    if (pinned)
        return pinned < iterations ? pinned : iterations;
    if (!(median_ns > 0) || isnan(median_ns))
        return 1;
    double b = floor(BENCH__BRACKET_TARGET_NS / median_ns);
    if (b < 1)
        return 1;
    return b >= (double)iterations ? iterations : (uint64_t)b;
}

/* ---- the state of a --bench run --------------------------------------------------------- */

struct metric_def {
    const struct bench__column_desc *column;
    double amount;
    enum bench_metric_mode mode;
};

/* What the earlier sampling rounds (--bench-rounds) left for one batched loop of a body: the
 * iteration count found by doubling in the first round, and the samples taken so far. */
struct round_loop {
    const struct bench__entry *entry;
    unsigned ordinal; /* the loop's place in its body, 1-based; 0 = the whole body */
    uint64_t count;
    size_t n;
    double samples[BENCH__SAMPLE_COUNT];
};

/* A bench_case registered by a body, measured after the body returns. */
struct pending {
    char *name;
    struct bench__kv *labels;
    size_t n_labels;
    void *state;
    void (*setup)(void *);
    void (*timed)(void *);
    int (*after)(void *, const char **);
    void (*teardown)(void *);
    struct metric_def *metrics;
    size_t n_metrics;
    uint64_t iterations;
    const struct bench__entry *entry;
    char *refused; /* a registration error: becomes an error row */
    char *group;   /* --group-by key */
};

struct bench__measure {
    const struct bench__config *cfg;
    int64_t budget_ns;
    bool register_only; /* --group-by=list: loops run once, nothing is measured */
    /* sampling rounds: rounds 0 .. rounds-2 only take samples of batched loops (no rows, no
     * cases, no counting); the last round is the ordinary run that finishes every row */
    unsigned rounds, round;
    struct round_loop *round_loops;
    size_t n_round_loops, cap_round_loops;
    /* the body being run */
    const struct bench__entry *entry;
    uint64_t pin;
    bool whole_body;
    unsigned loops;
    bool registered;
    struct bench__sampler sampler;
    int64_t t0;
    bool loop_open;           /* a BENCH_ITER loop began and has not finished its row */
    double clock_overhead_ns; /* NaN until the first per-call case */
    /* results */
    struct bench__row *rows;
    size_t n_rows, cap_rows;
    struct pending *pending;
    size_t n_pending, cap_pending;
    struct bench__column_desc **columns; /* the catalog of this run: client columns */
    size_t n_columns;
    char **provenance;
    size_t n_provenance;
    /* per-call samples of the case being measured */
    double *samples;
    size_t n_samples, cap_samples;
    /* counting passes */
    struct bench__catalog catalog;
    struct bench__workloads workloads;
    struct {
        bool active;   /* a body re-runs for a counting pass */
        size_t source; /* index in catalog.sources */
        bool inert;    /* this loop is not counted (its row failed): it runs once */
        bool bracket_open;
        size_t row;
        uint64_t iterations, batch, done, current, brackets;
    } count;
    bool bracket_disclosed[BENCH__MAX_SOURCES]; /* the empty-bracket cost was reported */
    size_t *loop_rows; /* row index of each BENCH_ITER loop of the current body */
    size_t n_loop_rows, cap_loop_rows;
    /* the live ticker: a stderr line redrawn at case boundaries, only on a terminal */
    struct bench__term ticker;
    bool ticker_shown;
    size_t ticks;
    int64_t start_ns;
};

/* Redraw the ticker with the name of what is measured next. Never runs while a clock does:
 * it is called between cases only. */
static void ticker_show(struct bench__measure *m, const char *name)
{
    if (!m->ticker.animate)
        return;
    static const char *const frames[] = {
        "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
        "\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f"};
    char elapsed[32];
    bench__format_ns((double)(clock_ns() - m->start_ns), elapsed, sizeof elapsed);
    int room = m->ticker.width - 30;
    if (m->rounds > 1)
        fprintf(stderr, "\033[?2026h\r\033[2K%s round %u/%u (%s) %.*s\033[?2026l",
                frames[m->ticks % 10], m->round + 1, m->rounds, elapsed, room > 8 ? room : 8, name);
    else
        fprintf(stderr, "\033[?2026h\r\033[2K%s %zu measured (%s) %.*s\033[?2026l",
                frames[m->ticks % 10], m->ticks, elapsed, room > 8 ? room : 8, name);
    fflush(stderr);
    m->ticks++;
    m->ticker_shown = true;
}

static void ticker_clear(struct bench__measure *m)
{
    if (m->ticker_shown) {
        fputs("\r\033[2K", stderr);
        fflush(stderr);
        m->ticker_shown = false;
    }
}

/* Every stderr line of a --bench run goes through here, so the ticker never shares a line. */
BENCH_PRINTF(2, 3) static void note(struct bench__measure *m, const char *fmt, ...)
{
    ticker_clear(m);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static void *grow(void *array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return array;
    size_t cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *p = realloc(array, cap2 * elem);
    if (!p) {
        fputs("libbench: out of memory\n", stderr);
        abort();
    }
    *cap = cap2;
    return p;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fputs("libbench: out of memory\n", stderr);
        abort();
    }
    return d;
}

/* The first line of a message, with " …" when more followed. */
static char *first_line(const char *message, const char *fallback)
{
    if (!message || !*message)
        return xstrdup(fallback);
    size_t len = strcspn(message, "\n");
    char *s = NULL;
    if (asprintf(&s, "%.*s%s", (int)len, message, message[len] ? " \xe2\x80\xa6" : "") < 0)
        return xstrdup(fallback);
    return s;
}

static struct bench__row *new_row(struct bench__measure *m, const char *name)
{
    m->rows = grow(m->rows, &m->cap_rows, m->n_rows + 1, sizeof *m->rows);
    struct bench__row *r = &m->rows[m->n_rows++];
    memset(r, 0, sizeof *r);
    r->name = xstrdup(name);
    r->source = xstrdup(m->entry->full_name);
    r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
    r->error = xstrdup("");
    return r;
}

static void fail_row(struct bench__row *r, enum bench__outcome outcome, const char *message)
{
    r->state = outcome == BENCH__SKIPPED ? BENCH__ROW_SKIPPED : BENCH__ROW_ERROR;
    free(r->error);
    r->error = first_line(message, outcome == BENCH__SKIPPED ? "skipped" : "failed");
    r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
    r->iterations = 0;
    r->samples = 0;
    free(r->cells);
    r->cells = NULL;
    r->n_cells = 0;
}

/* Row name of the k-th loop of a body: the test's name, then "#2", "#3", ... */
static char *loop_name(const struct bench__entry *e, unsigned ordinal)
{
    char *s = NULL;
    if (ordinal <= 1)
        return xstrdup(e->full_name);
    if (asprintf(&s, "%s#%u", e->full_name, ordinal) < 0)
        return xstrdup(e->full_name);
    return s;
}

/* ---- client metrics: the catalog's "client" family -------------------------------------- */

/* Names a client metric may not take: the built-in catalog (every source's family and the
 * syscalls:/sc:/raw:/pfm: prefixes) and the table's own columns. */
static bool reserved_name(const char *name)
{
    static const char *const table_words[] = {"name", "median/iter", "n",         "min",
                                              "max",  "notes",       "benchmark", "implementation"};
    for (size_t i = 0; i < sizeof table_words / sizeof table_words[0]; i++)
        if (!strcmp(name, table_words[i]))
            return true;
    return bench__catalog_reserved(name);
}

static const struct bench__column_desc *client_column(struct bench__measure *m, const char *unit,
                                                      enum bench_metric_mode mode)
{
    char *name = NULL;
    if (asprintf(&name, "%s%s", unit, mode == BENCH_RATE ? "/s" : "") < 0)
        abort();
    if (reserved_name(name)) {
        char *prefixed = NULL;
        if (asprintf(&prefixed, "user.%s", name) < 0)
            abort();
        free(name);
        name = prefixed;
    }
    for (size_t i = 0; i < m->n_columns; i++)
        if (!strcmp(m->columns[i]->name, name)) {
            free(name);
            return m->columns[i];
        }
    size_t cap = m->n_columns;
    m->columns = grow(m->columns, &cap, m->n_columns + 1, sizeof *m->columns);
    struct bench__column_desc *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->name = name;
    c->header = xstrdup(name);
    c->format = BENCH__FORMAT_COUNT;
    c->cls = BENCH__QUANTITATIVE;
    c->source = "client";
    c->is_default = true;
    m->columns[m->n_columns++] = c;
    return c;
}

/* ---- counting passes ------------------------------------------------------------------- */

static const struct bench__source_ops *count_ops(const struct bench__measure *m)
{
    return m->catalog.sources[m->count.source].ops;
}

static const struct bench__open_source *count_src(const struct bench__measure *m)
{
    return &m->catalog.sources[m->count.source];
}

static void *count_state(const struct bench__measure *m)
{
    return m->catalog.sources[m->count.source].state;
}

static void bracket_begin(struct bench__measure *m)
{
    count_ops(m)->bracket_begin(count_state(m));
    m->count.bracket_open = true;
    m->count.brackets++;
}

static void bracket_end(struct bench__measure *m)
{
    count_ops(m)->bracket_end(count_state(m));
    m->count.bracket_open = false;
}

/* After a failure escaped a counted body: counters must not stay enabled. */
static void close_open_bracket(struct bench__measure *m)
{
    if (m->count.bracket_open)
        bracket_end(m);
    m->count.active = false;
    m->count.inert = false;
}

static void pass_begin(struct bench__measure *m, size_t row, uint64_t iterations, uint64_t batch)
{
    m->count.row = row;
    m->count.iterations = iterations;
    m->count.batch = batch;
    m->count.done = 0;
    m->count.brackets = 0;
    count_ops(m)->pass_begin(count_state(m));
}

/* Read the pass and append the source's family as cells of the row. */
static void pass_end(struct bench__measure *m)
{
    const struct bench__open_source *src = count_src(m);
    double *values = calloc(src->n_family + 1, sizeof *values);
    bool *estimate = calloc(src->n_family + 1, sizeof *estimate);
    if (!values || !estimate)
        abort();
    for (size_t k = 0; k < src->n_family; k++)
        values[k] = NAN;
    struct bench__counts counts = {.values = values, .estimate = estimate, .scale = NAN};
    src->ops->pass_end(count_state(m), m->count.iterations, m->count.brackets, &counts);
    struct bench__row *r = &m->rows[m->count.row];
    struct bench__cell *cells = realloc(r->cells, (r->n_cells + src->n_family + 1) * sizeof *cells);
    if (!cells)
        abort();
    r->cells = cells;
    for (size_t k = 0; k < src->n_family; k++)
        r->cells[r->n_cells++] =
            (struct bench__cell){&src->family[k], values[k], estimate[k] && !isnan(values[k])};
    if (!r->count_iterations)
        r->count_iterations = m->count.iterations;
    free(values);
    free(estimate);
}

static uint64_t next_batch(const struct bench__measure *m)
{
    uint64_t left = m->count.iterations - m->count.done;
    return m->count.batch < left ? m->count.batch : left;
}

/* ---- sampling rounds (--bench-rounds) ---------------------------------------------------- */

/* An early round only samples; the last round is the ordinary run that finishes the rows. */
static bool early_round(const struct bench__measure *m)
{
    return m->round + 1 < m->rounds;
}

/* The ordinal of a body's marker "an early-round failure was said" (no loop has it). */
#define FAILURE_NOTED UINT_MAX

static struct round_loop *round_loop(struct bench__measure *m, unsigned ordinal, bool create)
{
    for (size_t i = 0; i < m->n_round_loops; i++)
        if (m->round_loops[i].entry == m->entry && m->round_loops[i].ordinal == ordinal)
            return &m->round_loops[i];
    if (!create)
        return NULL;
    m->round_loops =
        grow(m->round_loops, &m->cap_round_loops, m->n_round_loops + 1, sizeof *m->round_loops);
    struct round_loop *rl = &m->round_loops[m->n_round_loops++];
    memset(rl, 0, sizeof *rl);
    rl->entry = m->entry;
    rl->ordinal = ordinal;
    return rl;
}

/* Start the sampler of a batched loop (ordinal 0: the whole body). The first round doubles
 * the count as usual; a later round resumes with that count and the samples taken so far,
 * after one discarded warm-up sample (the loop comes back to caches other bodies used). An
 * early round takes the samples up to its even share of the total, 32 × (round + 1) ÷ N
 * (rounded down), so shares differ by at most one; the last one fills them up. */
static void sampler_begin(struct bench__measure *m, unsigned ordinal)
{
    bench__sampler_start(&m->sampler, m->budget_ns, m->pin);
    if (m->rounds <= 1)
        return;
    const struct round_loop *rl = round_loop(m, ordinal, false);
    if (rl && rl->count) {
        m->sampler.count = rl->count;
        m->sampler.sampling = true;
        m->sampler.warmup = true;
        memcpy(m->sampler.samples, rl->samples, rl->n * sizeof rl->samples[0]);
        m->sampler.n = rl->n;
    }
    if (early_round(m)) {
        size_t upto = BENCH__SAMPLE_COUNT * (m->round + 1) / m->rounds;
        m->sampler.target = upto > m->sampler.n ? upto : m->sampler.n + 1;
    }
}

/* An early round's loop ended: keep its count and samples for the next round. */
static void keep_round(struct bench__measure *m, unsigned ordinal)
{
    struct round_loop *rl = round_loop(m, ordinal, true);
    rl->count = m->sampler.count;
    rl->n = m->sampler.n;
    memcpy(rl->samples, m->sampler.samples, rl->n * sizeof rl->samples[0]);
}

/* ---- batched rows: BENCH_ITER, bench_iter, whole bodies --------------------------------- */

static void finish_batched_row(struct bench__measure *m, char *name)
{
    m->loop_open = false;
    struct bench__row *r = new_row(m, name);
    free(name);
    if (m->loops > 0 && !m->whole_body) {
        m->loop_rows = grow(m->loop_rows, &m->cap_loop_rows, m->loops, sizeof *m->loop_rows);
        while (m->n_loop_rows < m->loops)
            m->loop_rows[m->n_loop_rows++] = SIZE_MAX;
        m->loop_rows[m->loops - 1] = m->n_rows - 1;
    }
    r->iterations = m->sampler.count;
    r->samples = m->sampler.n;
    r->stats = bench__summarize(m->sampler.samples, m->sampler.n);
    if (m->sampler.count >= BENCH__MAX_SCALED_ITERATIONS) /* nothing measurable was timed */
        fail_row(r, BENCH__FAILED,
                 "the iteration count reached 2^40: the timed body was optimized away or left "
                 "its loop early (break)");
}

/* A loop of a body re-run for a counting pass: count the calls of the loop's row. */
static uint64_t count_loop_begin(struct bench__measure *m)
{
    m->loops++;
    size_t row = m->loops <= m->n_loop_rows ? m->loop_rows[m->loops - 1] : SIZE_MAX;
    if (row == SIZE_MAX || m->rows[row].state != BENCH__ROW_OK) {
        m->count.inert = true; /* not measured: run the body once, count nothing */
        return 1;
    }
    const struct bench__row *r = &m->rows[row];
    uint64_t iterations = bench__count_iterations(m->cfg->perf_iters, r->iterations);
    pass_begin(m, row, iterations,
               bench__count_batch(m->cfg->perf_batch, iterations, r->stats.median));
    m->count.current = next_batch(m);
    bracket_begin(m);
    return m->count.current;
}

static uint64_t count_loop_next(struct bench__measure *m)
{
    if (m->count.inert) {
        m->count.inert = false;
        return 0;
    }
    bracket_end(m);
    m->count.done += m->count.current;
    if (m->count.done < m->count.iterations) {
        m->count.current = next_batch(m);
        bracket_begin(m);
        return m->count.current;
    }
    pass_end(m);
    return 0;
}

uint64_t bench_iter_begin(bench_t *b)
{
    struct bench__measure *m = b ? b->measure : NULL;
    if (!m || m->whole_body || m->register_only)
        return 1;
    if (m->count.active)
        return count_loop_begin(m);
    m->loops++;
    m->loop_open = true;
    sampler_begin(m, m->loops);
    m->t0 = clock_ns();
    return m->sampler.count;
}

uint64_t bench_iter_next(bench_t *b)
{
    struct bench__measure *m = b ? b->measure : NULL;
    if (m && m->count.active && !m->whole_body)
        return count_loop_next(m); /* counters are enabled: no clock read here */
    int64_t t1 = clock_ns();
    if (!m || m->whole_body || m->register_only)
        return 0;
    if (bench__sampler_step(&m->sampler, t1 - m->t0)) {
        m->t0 = clock_ns();
        return m->sampler.count;
    }
    if (early_round(m)) {
        keep_round(m, m->loops);
        m->loop_open = false;
        return 0;
    }
    finish_batched_row(m, loop_name(m->entry, m->loops));
    return 0;
}

void bench_iter(bench_t *b, void (*fn)(void *state), void *state)
{
    if (!b)
        b = bench__current;
    for (uint64_t count = bench_iter_begin(b); count != 0; count = bench_iter_next(b))
        for (uint64_t left = count; left != 0; --left)
            fn(state);
}

static void measure_whole_body(struct bench__measure *m, bench_t *b)
{
    m->whole_body = true;
    sampler_begin(m, 0);
    void (*fn)(bench_t *) = m->entry->test->fn;
    for (;;) {
        uint64_t count = m->sampler.count;
        int64_t t0 = clock_ns();
        while (count--)
            fn(b);
        int64_t elapsed = clock_ns() - t0;
        if (!bench__sampler_step(&m->sampler, elapsed))
            break;
    }
    if (early_round(m))
        keep_round(m, 0);
    else
        finish_batched_row(m, xstrdup(m->entry->full_name));
}

/* The counting passes of a whole-body row: the runner calls the body in brackets. */
static void count_whole_body(struct bench__measure *m, bench_t *b, size_t row)
{
    void (*fn)(bench_t *) = m->entry->test->fn;
    const struct bench__row *r = &m->rows[row];
    if (r->state != BENCH__ROW_OK)
        return;
    m->whole_body = true;
    for (size_t s = 0; s < m->catalog.n_sources; s++) {
        if (!m->catalog.sources[s].state)
            continue;
        m->count.source = s;
        uint64_t iterations = bench__count_iterations(m->cfg->perf_iters, r->iterations);
        pass_begin(m, row, iterations,
                   bench__count_batch(m->cfg->perf_batch, iterations, r->stats.median));
        while (m->count.done < m->count.iterations) {
            uint64_t n = next_batch(m);
            bracket_begin(m);
            for (uint64_t i = 0; i < n; i++)
                fn(b);
            bracket_end(m);
            m->count.done += n;
        }
        pass_end(m);
        r = &m->rows[row];
    }
    m->whole_body = false;
}

/* The counting passes of a body's BENCH_ITER rows: the body runs again once per source,
 * its loops bracketed instead of timed; its bench_case calls are ignored. */
static void count_loops(struct bench__measure *m, bench_t *b)
{
    bool any = false;
    for (size_t k = 0; k < m->n_loop_rows; k++)
        any |= m->loop_rows[k] != SIZE_MAX;
    if (!any)
        return;
    for (size_t s = 0; s < m->catalog.n_sources; s++) {
        if (!m->catalog.sources[s].state)
            continue;
        m->count.source = s;
        m->count.active = true;
        m->loops = 0;
        m->entry->test->fn(b);
        m->count.active = false;
    }
}

/* ---- bench_case ------------------------------------------------------------------------- */

static bool has_separator(const char *s)
{
    return s && strchr(s, '\x1f') != NULL;
}

static int compare_kv(const void *a, const void *b)
{
    return strcmp(((const struct bench__kv *)a)->key, ((const struct bench__kv *)b)->key);
}

/* Why a definition is refused, or NULL. */
static const char *check_case(const struct bench_case_def *def, int *code)
{
    *code = BENCH_ESTRUCT;
    if (def->size < sizeof(struct bench_case_def))
        return "the case definition is smaller than this libbench's (use BENCH_CASE_DEF)";
    for (size_t i = sizeof(struct bench_case_def); i < def->size; i++)
        if (((const unsigned char *)def)[i])
            return "the case definition has fields this libbench does not know";
    *code = BENCH_ENAME;
    if (!def->name || !*def->name)
        return "a case needs a non-empty name";
    if (has_separator(def->name))
        return "the case name contains the 0x1F separator";
    *code = BENCH_EINVAL;
    if (!def->timed)
        return "a case needs a timed function";
    if ((def->n_labels && !def->labels) || (def->n_metrics && !def->metrics) ||
        (def->state_size && !def->state))
        return "a count is given with a NULL array";
    *code = BENCH_ENAME;
    for (size_t i = 0; i < def->n_labels; i++) {
        const struct bench_label *l = &def->labels[i];
        if (!l->key || !*l->key || !l->value)
            return "a label has no key or no value";
        if (has_separator(l->key) || has_separator(l->value))
            return "a label contains the 0x1F separator";
    }
    *code = BENCH_EINVAL;
    for (size_t i = 0; i < def->n_metrics; i++)
        if (!def->metrics[i].unit || !*def->metrics[i].unit ||
            (def->metrics[i].mode != BENCH_RATE && def->metrics[i].mode != BENCH_LEVEL))
            return "a metric has no unit or an unknown mode";
    *code = 0;
    return NULL;
}

/* Outside --bench: setup, timed once, after, teardown, now; a failing after fails. */
static int run_case_inert(bench_t *b, const struct bench_case_def *def)
{
    void *state = def->state_size ? malloc(def->state_size) : NULL;
    if (def->state_size && !state)
        return BENCH_ENOMEM;
    if (state)
        memcpy(state, def->state, def->state_size);
    if (def->setup)
        def->setup(state);
    def->timed(state);
    const char *message = NULL;
    int failed = def->after ? def->after(state, &message) : 0;
    if (def->teardown)
        def->teardown(state);
    free(state);
    if (failed) {
        char *line = first_line(message, "after failed");
        char text[512];
        snprintf(text, sizeof text, "%s: %s", def->name, line);
        free(line);
        bench_fail(b, "%s", text);
    }
    return 0;
}

int bench_case(bench_t *b, const struct bench_case_def *def)
{
    if (!b)
        b = bench__current; /* like bench_fail and bench_skip: NULL is the running test */
    struct bench__measure *m = b ? b->measure : NULL;
    if (m && m->count.active)
        return 0; /* a counting re-run of the body: the case is registered already */
    int code = BENCH_EINVAL;
    const char *problem = def ? check_case(def, &code) : "the case definition is NULL";
    if (m && early_round(m)) { /* per-call rows are measured in the last round only */
        m->registered = true;
        return problem ? code : 0;
    }
    if (!m) {
        if (problem)
            return code;
        return run_case_inert(b, def);
    }
    m->registered = true;
    m->pending = grow(m->pending, &m->cap_pending, m->n_pending + 1, sizeof *m->pending);
    struct pending *p = &m->pending[m->n_pending++];
    memset(p, 0, sizeof *p);
    p->entry = m->entry;
    if (problem) {
        /* keep the row visible: the name with separators made printable */
        p->name = xstrdup(def && def->name && *def->name ? def->name : m->entry->full_name);
        for (char *c = p->name; *c; c++)
            if (*c == '\x1f')
                *c = '?';
        if (asprintf(&p->refused, "registration: %s", problem) < 0)
            p->refused = xstrdup("registration failed");
        if (def && def->size >= sizeof(struct bench_case_def) && def->labels) {
            p->labels = calloc(def->n_labels + 1, sizeof *p->labels);
            if (!p->labels)
                abort();
            for (size_t i = 0; i < def->n_labels; i++) {
                if (!def->labels[i].key || !def->labels[i].value)
                    continue;
                struct bench__kv *kv = &p->labels[p->n_labels++];
                kv->key = xstrdup(def->labels[i].key);
                kv->value = xstrdup(def->labels[i].value);
                for (char *c = kv->key; *c; c++)
                    *c = *c == '\x1f' ? '?' : *c;
                for (char *c = kv->value; *c; c++)
                    *c = *c == '\x1f' ? '?' : *c;
            }
            qsort(p->labels, p->n_labels, sizeof *p->labels, compare_kv);
        }
        return code;
    }
    p->name = xstrdup(def->name);
    p->labels = calloc(def->n_labels + 1, sizeof *p->labels);
    p->metrics = calloc(def->n_metrics + 1, sizeof *p->metrics);
    p->state = def->state_size ? malloc(def->state_size) : NULL;
    if (!p->labels || !p->metrics || (def->state_size && !p->state))
        abort();
    if (def->state_size)
        memcpy(p->state, def->state, def->state_size);
    for (size_t i = 0; i < def->n_labels; i++) {
        p->labels[i].key = xstrdup(def->labels[i].key);
        p->labels[i].value = xstrdup(def->labels[i].value);
    }
    p->n_labels = def->n_labels;
    qsort(p->labels, p->n_labels, sizeof *p->labels, compare_kv);
    for (size_t i = 0; i < def->n_metrics; i++)
        p->metrics[i] =
            (struct metric_def){client_column(m, def->metrics[i].unit, def->metrics[i].mode),
                                def->metrics[i].amount, def->metrics[i].mode};
    p->n_metrics = def->n_metrics;
    p->setup = def->setup;
    p->timed = def->timed;
    p->after = def->after;
    p->teardown = def->teardown;
    p->iterations = def->iterations;
    return 0;
}

static void free_labels(struct bench__kv *labels, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(labels[i].key);
        free(labels[i].value);
    }
    free(labels);
}

static void free_pending(struct pending *p)
{
    free(p->name);
    free_labels(p->labels, p->n_labels);
    free(p->metrics);
    free(p->state);
    free(p->refused);
    free(p->group);
}

static void push_sample(struct bench__measure *m, double ns)
{
    m->samples = grow(m->samples, &m->cap_samples, m->n_samples + 1, sizeof *m->samples);
    m->samples[m->n_samples++] = ns;
}

/* The stages of a case, kept outside the stack frame that setjmp returns to. */
enum stage { STAGE_START, STAGE_SET_UP, STAGE_TORN_DOWN };

struct case_run {
    enum stage stage;
    char *after_error;
};

static void per_call_loop(struct bench__measure *m, struct pending *p, struct case_run *run)
{
    uint64_t pin = p->iterations ? p->iterations : m->pin;
    const char *message = NULL;
    if (!pin) { /* the untimed probe call */
        p->timed(p->state);
        if (p->after && p->after(p->state, &message)) {
            run->after_error = first_line(message, "after failed");
            return;
        }
    }
    int64_t total = 0;
    while (bench__per_call_continue(m->n_samples, total, m->budget_ns, pin)) {
        int64_t t0 = clock_ns();
        p->timed(p->state);
        int64_t t1 = clock_ns();
        push_sample(m, (double)(t1 - t0));
        total += t1 - t0;
        if (p->after && p->after(p->state, &message)) {
            run->after_error = first_line(message, "after failed");
            return;
        }
    }
}

/* The cost of one clock read, which every per-call sample includes: the median of 1000
 * back-to-back read pairs. Measured once, disclosed on stderr and in the JSON meta; never
 * subtracted. */
static void measure_clock_overhead(struct bench__measure *m)
{
    if (!isnan(m->clock_overhead_ns))
        return;
    enum { PAIRS = 1000 };
    double *d = malloc(PAIRS * sizeof *d);
    if (!d)
        abort();
    for (int i = 0; i < PAIRS; i++) {
        int64_t a = clock_ns();
        int64_t b = clock_ns();
        d[i] = (double)(b - a);
    }
    m->clock_overhead_ns = bench__summarize(d, PAIRS).median;
    free(d);
    char cost[32];
    bench__format_ns(m->clock_overhead_ns, cost, sizeof cost);
    ticker_clear(m);
    fprintf(stderr,
            "clock: a per-call sample includes one clock read (%s, median of %d; not "
            "subtracted)\n",
            cost, PAIRS);
}

/* Per-call rows count one call per bracket, so their counters include the bracket itself.
 * Measure what an empty bracket reads, once per source, and say so (never subtracted). */
static void disclose_bracket_cost(struct bench__measure *m, size_t s)
{
    if (m->bracket_disclosed[s])
        return;
    m->bracket_disclosed[s] = true;
    enum { EMPTY_BRACKETS = 100 };
    const struct bench__open_source *src = &m->catalog.sources[s];
    const struct bench__source_ops *ops = src->ops;
    void *state = src->state;
    double *values = calloc(src->n_family + 1, sizeof *values);
    bool *estimate = calloc(src->n_family + 1, sizeof *estimate);
    if (!values || !estimate)
        abort();
    for (size_t k = 0; k < src->n_family; k++)
        values[k] = NAN;
    ops->pass_begin(state);
    for (int i = 0; i < EMPTY_BRACKETS; i++) {
        ops->bracket_begin(state);
        ops->bracket_end(state);
    }
    struct bench__counts counts = {.values = values, .estimate = estimate, .scale = NAN};
    ops->pass_end(state, EMPTY_BRACKETS, EMPTY_BRACKETS, &counts);
    char text[400] = "";
    size_t len = 0, shown = 0;
    for (size_t k = 0; k < src->n_family && shown < 3; k++) {
        if (src->family[k].format != BENCH__FORMAT_COUNT || isnan(values[k]))
            continue;
        char v[32];
        bench__format_metric(values[k], src->family[k].format, estimate[k], v, sizeof v);
        int n = snprintf(text + len, sizeof text - len, "%s%s %s", shown ? ", " : "",
                         src->family[k].header, v);
        if (n > 0 && (size_t)n < sizeof text - len)
            len += (size_t)n;
        shown++;
    }
    bool any = false; /* a source that nets its own bracket out (tier0) reads 0: say nothing */
    for (size_t k = 0; k < src->n_family; k++)
        any |= src->family[k].format == BENCH__FORMAT_COUNT && values[k] > 0;
    if (shown && any)
        note(m,
             "%s: per-call rows are counted one call per bracket; an empty bracket reads %s "
             "(included in their counts, not subtracted)\n",
             ops->name, text);
    free(values);
    free(estimate);
}

/* The counting passes of a per-call row: one call per bracket, after outside every bracket.
 * Runs after timing and before teardown (setup and teardown bracket both). */
static void count_case(struct bench__measure *m, struct pending *p, struct case_run *run,
                       size_t row)
{
    const char *message = NULL;
    for (size_t s = 0; s < m->catalog.n_sources && !run->after_error; s++) {
        if (!m->catalog.sources[s].state)
            continue;
        disclose_bracket_cost(m, s);
        m->count.source = s;
        pass_begin(m, row, bench__count_iterations(m->cfg->perf_iters, m->n_samples), 1);
        while (m->count.done < m->count.iterations) {
            bracket_begin(m);
            p->timed(p->state);
            bracket_end(m);
            m->count.done++;
            if (p->after && p->after(p->state, &message)) {
                run->after_error = first_line(message, "after failed");
                break;
            }
        }
        if (!run->after_error)
            pass_end(m);
    }
}

static void measure_case(struct bench__measure *m, struct pending *p)
{
    if (!p->refused)
        measure_clock_overhead(m);
    ticker_show(m, p->name);
    m->entry = p->entry;
    m->pin = p->entry->test->benchmark->iterations;
    struct bench__row *r = new_row(m, p->name);
    size_t index = m->n_rows - 1;
    r->labels = p->labels;
    r->n_labels = p->n_labels;
    p->labels = NULL;
    p->n_labels = 0;
    if (p->refused) {
        fail_row(r, BENCH__FAILED, p->refused);
        return;
    }
    struct case_run run = {STAGE_START, NULL};
    struct bench_ctx ctx = {.entry = p->entry, .measure = m, .result_fd = -1};
    jmp_buf escape;
    ctx.escape = &escape;
    struct bench_ctx *saved = bench__current;
    bench__current = &ctx;
    m->n_samples = 0;
    bool escaped = false;
    if (setjmp(escape) == 0) {
        if (p->setup)
            p->setup(p->state);
        run.stage = STAGE_SET_UP;
        per_call_loop(m, p, &run);
        if (!run.after_error)
            count_case(m, p, &run, index);
    } else {
        close_open_bracket(m);
        escaped = true;
    }
    /* teardown runs whenever setup completed, also after a failure */
    if (run.stage == STAGE_SET_UP) {
        run.stage = STAGE_TORN_DOWN;
        if (p->teardown && setjmp(escape) == 0)
            p->teardown(p->state);
        else if (p->teardown)
            escaped = true;
    }
    bench__current = saved;
    r = &m->rows[index];
    if (escaped) {
        fail_row(r, ctx.outcome, ctx.message);
    } else if (run.after_error) {
        fail_row(r, BENCH__FAILED, run.after_error);
    } else {
        r->iterations = 1;
        r->samples = m->n_samples;
        r->stats = bench__summarize(m->samples, m->n_samples);
        /* client cells first (row-cell order), then what the counting passes appended */
        struct bench__cell *cells = calloc(p->n_metrics + r->n_cells + 1, sizeof *cells);
        if (!cells)
            abort();
        for (size_t i = 0; i < p->n_metrics; i++) {
            const struct metric_def *d = &p->metrics[i];
            double v = d->amount;
            if (d->mode == BENCH_RATE)
                v = r->stats.median > 0 ? d->amount * 1e9 / r->stats.median : NAN;
            cells[i] = (struct bench__cell){d->column, v, false};
        }
        if (r->n_cells)
            memcpy(cells + p->n_metrics, r->cells, r->n_cells * sizeof *cells);
        free(r->cells);
        r->cells = cells;
        r->n_cells += p->n_metrics;
    }
    free(run.after_error);
}

/* ---- bodies ----------------------------------------------------------------------------- */

/* Run one BENCHMARK body: BENCH_ITER loops measure inside it and bench_case rows queue;
 * a body that did neither is measured whole. A failure or skip becomes a row. */
static bool body_has_row(const struct bench__measure *m, size_t first_row, const char *name)
{
    for (size_t r = first_row; r < m->n_rows; r++)
        if (!strcmp(m->rows[r].name, name))
            return true;
    return false;
}

/* The name of a row for a failure of the body: the open loop's, else the test's (marked
 * " (body)" when a finished loop already took that name). */
static char *failure_name(const struct bench__measure *m, const struct bench__entry *e,
                          size_t first_row)
{
    if (m->loop_open)
        return loop_name(e, m->loops);
    if (!body_has_row(m, first_row, e->full_name))
        return xstrdup(e->full_name);
    char *s = NULL;
    if (asprintf(&s, "%s (body)", e->full_name) < 0)
        return xstrdup(e->full_name);
    return s;
}

/* Run one BENCHMARK body: BENCH_ITER loops measure inside it and bench_case rows queue;
 * a body that did neither is measured whole. A failure or skip becomes a row. */
static void run_body(struct bench__measure *m, const struct bench__entry *e)
{
    ticker_show(m, e->full_name);
    struct bench_ctx ctx = {.entry = e, .measure = m, .result_fd = -1};
    jmp_buf escape;
    size_t first_row = m->n_rows;
    m->entry = e;
    m->pin = e->test->benchmark->iterations;
    m->loops = 0;
    m->loop_open = false;
    m->whole_body = false;
    m->registered = false;
    m->n_loop_rows = 0;
    ctx.escape = &escape;
    struct bench_ctx *saved = bench__current;
    bench__current = &ctx;
    if (early_round(m)) {
        /* a sampling round: samples only, no rows; a failure is said here, and the loops
         * keep the samples of their other rounds */
        if (setjmp(escape) == 0) {
            e->test->fn(&ctx);
            if (!m->loop_open && m->loops == 0 && !m->registered)
                measure_whole_body(m, &ctx);
        } else if (ctx.outcome == BENCH__FAILED && !round_loop(m, FAILURE_NOTED, false)) {
            round_loop(m, FAILURE_NOTED, true); /* said once per body */
            char *line = first_line(ctx.message, "failed");
            note(m,
                 "--bench-rounds: %s failed in round %u of %u: %s — its rows keep the samples "
                 "of the other rounds\n",
                 e->full_name, m->round + 1, m->rounds, line);
            free(line);
        }
        m->loop_open = false;
        m->whole_body = false;
        bench__current = saved;
        return;
    }
    if (setjmp(escape) == 0) {
        e->test->fn(&ctx);
        if (m->loop_open) { /* return or goto out of the timed loop: no honest row */
            struct bench__row *r = new_row(m, "");
            free(r->name);
            r->name = loop_name(e, m->loops);
            fail_row(r, BENCH__FAILED,
                     "the body left its BENCH_ITER loop early (return or goto inside it)");
            m->loop_open = false;
        } else if (m->loops == 0 && !m->registered && !m->register_only) {
            measure_whole_body(m, &ctx);
            count_whole_body(m, &ctx, m->n_rows - 1);
        } else if (!m->register_only) {
            count_loops(m, &ctx);
        }
    } else {
        close_open_bracket(m);
        char *name = failure_name(m, e, first_row); /* before the row exists */
        struct bench__row *r = new_row(m, name);
        free(name);
        fail_row(r, ctx.outcome, ctx.message);
        m->loop_open = false;
    }
    m->whole_body = false;
    bench__current = saved;
}

void bench_provenance(bench_t *b, const char *fact)
{
    struct bench__measure *m = b ? b->measure : bench__current ? bench__current->measure : NULL;
    if (!m || !fact || !*fact)
        return;
    char *line = first_line(fact, "");
    for (size_t i = 0; i < m->n_provenance; i++)
        if (!strcmp(m->provenance[i], line)) {
            free(line);
            return;
        }
    size_t cap = m->n_provenance;
    m->provenance = grow(m->provenance, &cap, m->n_provenance + 1, sizeof *m->provenance);
    m->provenance[m->n_provenance++] = line;
    note(m, "provenance: %s\n", m->provenance[m->n_provenance - 1]);
}

/* ---- scheduling and output -------------------------------------------------------------- */

/* Does some row of this table have a value for a metric sort key? */
static bool table_has_key(const struct bench__row *const *rows, size_t n, const char *key)
{
    if (!strcmp(key, "name") || !strcmp(key, "median/iter"))
        return true;
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c < rows[r]->n_cells; c++)
            if (!strcmp(rows[r]->cells[c].column->name, key) ||
                !strcmp(rows[r]->cells[c].column->header, key))
                return true;
    return false;
}

/* The run's columns in `set` (client columns, then the catalog's), in a new array the caller
 * frees; it has room for either set, so it can be refilled with the other. */
static const struct bench__column_desc **run_columns(const struct bench__measure *m,
                                                     enum bench__column_set set, size_t *n)
{
    const struct bench__column_desc **cols =
        calloc(bench__catalog_max_columns(&m->catalog, m->n_columns) + 1, sizeof *cols);
    if (!cols)
        abort();
    *n = bench__catalog_columns(&m->catalog, (const struct bench__column_desc *const *)m->columns,
                                m->n_columns, set, cols);
    return cols;
}

static void render(struct bench__measure *m, size_t *indices, size_t n, char *const *keys,
                   size_t n_keys, const char *title, struct bench__table_memory *memory)
{
    if (n == 0)
        return;
    const struct bench__row **rows = calloc(n, sizeof *rows);
    if (!rows)
        abort();
    for (size_t i = 0; i < n; i++)
        rows[i] = &m->rows[indices[i]];
    size_t n_all;
    const struct bench__column_desc **cols = run_columns(m, BENCH__COLUMNS_DOCUMENT, &n_all);
    const char *key = m->cfg->sort_by;
    if (!key || !bench__sort_key_known(key, cols, n_all) || !table_has_key(rows, n, key))
        key = "median/iter"; /* the default order; an unknown key is warned about once */
    bench__sort_rows(rows, n, key);
    size_t n_cols =
        bench__catalog_columns(&m->catalog, (const struct bench__column_desc *const *)m->columns,
                               m->n_columns, BENCH__COLUMNS_TABLE, cols);
    ticker_clear(m);
    bench__bench_table_render(stdout, rows, n, cols, n_cols, keys, n_keys, title, memory);
    free(cols);
    fflush(stdout);
    free(rows);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The --group-by keys in force: the given ones, or the sorted union for "all". */
static char **group_keys(struct bench__measure *m, size_t *n_keys)
{
    const struct bench__config *cfg = m->cfg;
    bool all = false;
    for (size_t i = 0; i < cfg->n_group_by; i++)
        all |= !strcmp(cfg->group_by[i], "all");
    char **keys = NULL;
    size_t n = 0, cap = 0;
    if (!all) {
        for (size_t i = 0; i < cfg->n_group_by; i++) {
            keys = grow(keys, &cap, n + 1, sizeof *keys);
            keys[n++] = cfg->group_by[i];
        }
        *n_keys = n;
        return keys;
    }
    for (size_t p = 0; p < m->n_pending; p++)
        for (size_t l = 0; l < m->pending[p].n_labels; l++) {
            char *k = m->pending[p].labels[l].key;
            bool seen = false;
            for (size_t i = 0; i < n && !seen; i++)
                seen = !strcmp(keys[i], k);
            if (!seen) {
                keys = grow(keys, &cap, n + 1, sizeof *keys);
                keys[n++] = k;
            }
        }
    qsort(keys, n, sizeof *keys, compare_strings);
    *n_keys = n;
    return keys;
}

static bool wants_group_list(const struct bench__config *cfg)
{
    for (size_t i = 0; i < cfg->n_group_by; i++)
        if (!strcmp(cfg->group_by[i], "list") || !strcmp(cfg->group_by[i], "help") ||
            !strcmp(cfg->group_by[i], "?"))
            return true;
    return false;
}

static int list_group_keys(struct bench__measure *m)
{
    size_t n = 0;
    const struct bench__config saved = *m->cfg;
    struct bench__config all = saved;
    char *all_word[] = {(char *)"all", NULL};
    all.group_by = all_word;
    all.n_group_by = 1;
    m->cfg = &all;
    char **keys = group_keys(m, &n);
    m->cfg = &saved;
    if (n == 0)
        printf("no benchmark labels to group by\n");
    for (size_t i = 0; i < n; i++)
        printf("%s\n", keys[i]);
    free(keys);
    int failures = 0;
    for (size_t r = 0; r < m->n_rows; r++)
        failures += m->rows[r].state == BENCH__ROW_ERROR;
    for (size_t p = 0; p < m->n_pending; p++)
        failures += m->pending[p].refused != NULL;
    return failures ? 1 : 0;
}

/* With --group-by: every body first, then cases measured and tables streamed by key. */
static void run_grouped(struct bench__measure *m, const struct bench__suite *suite,
                        const size_t *order, size_t n_order, struct bench__table_memory *memory)
{
    for (size_t i = 0; i < n_order; i++)
        run_body(m, &suite->entries[order[i]]);
    size_t n_keys = 0;
    char **keys = group_keys(m, &n_keys);
    for (size_t k = 0; k < n_keys; k++) {
        bool found = false;
        for (size_t p = 0; p < m->n_pending && !found; p++)
            for (size_t l = 0; l < m->pending[p].n_labels && !found; l++)
                found = !strcmp(m->pending[p].labels[l].key, keys[k]);
        if (!found)
            note(m, "--group-by: no benchmark case has label '%s'\n", keys[k]);
    }
    /* the key of every measured row and pending case */
    size_t n_body_rows = m->n_rows;
    char **row_keys = calloc(n_body_rows + 1, sizeof *row_keys);
    char **distinct = calloc(n_body_rows + m->n_pending + 1, sizeof *distinct);
    size_t n_distinct = 0;
    if (!row_keys || !distinct)
        abort();
    for (size_t r = 0; r < n_body_rows; r++)
        distinct[n_distinct++] = row_keys[r] = bench__group_key(&m->rows[r], keys, n_keys);
    for (size_t p = 0; p < m->n_pending; p++) {
        struct bench__row view = {.labels = m->pending[p].labels,
                                  .n_labels = m->pending[p].n_labels};
        distinct[n_distinct++] = m->pending[p].group = bench__group_key(&view, keys, n_keys);
    }
    qsort(distinct, n_distinct, sizeof *distinct, compare_strings);
    size_t *indices = calloc(n_body_rows + m->n_pending + 1, sizeof *indices);
    if (!indices)
        abort();
    for (size_t d = 0; d < n_distinct; d++) {
        if (d > 0 && !strcmp(distinct[d], distinct[d - 1]))
            continue;
        size_t n = 0;
        for (size_t r = 0; r < n_body_rows; r++)
            if (!strcmp(row_keys[r], distinct[d]))
                indices[n++] = r;
        for (size_t p = 0; p < m->n_pending; p++)
            if (!strcmp(m->pending[p].group, distinct[d])) {
                measure_case(m, &m->pending[p]);
                indices[n++] = m->n_rows - 1;
            }
        char title[512];
        bench__group_title(distinct[d], title, sizeof title);
        render(m, indices, n, keys, n_keys, title, memory);
    }
    free(indices);
    for (size_t r = 0; r < n_body_rows; r++)
        free(row_keys[r]);
    free(row_keys);
    free(distinct);
    free(keys);
}

/* Without --group-by: one table per BENCHMARK, streamed as soon as it is measured. */
static void run_streamed(struct bench__measure *m, const struct bench__suite *suite,
                         const size_t *order, size_t n_order, struct bench__table_memory *memory)
{
    size_t *indices = NULL, cap = 0;
    for (size_t i = 0; i < n_order; i++) {
        size_t first_row = m->n_rows;
        size_t first_pending = m->n_pending;
        run_body(m, &suite->entries[order[i]]);
        for (size_t p = first_pending; p < m->n_pending; p++)
            measure_case(m, &m->pending[p]);
        size_t n = m->n_rows - first_row;
        indices = grow(indices, &cap, n + 1, sizeof *indices);
        for (size_t k = 0; k < n; k++)
            indices[k] = first_row + k;
        render(m, indices, n, NULL, 0, NULL, memory);
    }
    free(indices);
}

static void warn_debug_build(const struct bench__suite *suite)
{
    for (size_t i = 0; i < suite->count; i++) {
        const struct bench_test *t = suite->entries[i].test;
        unsigned want = BENCH_BUILD_NDEBUG | BENCH_BUILD_OPTIMIZED;
        if (t->kind == BENCH_KIND_TEST || (t->build & want) == want)
            continue;
        fprintf(stderr,
                "warning: %s was compiled %s — benchmark numbers may be meaningless; build with "
                "optimization and -DNDEBUG (e.g. meson --buildtype=release)\n",
                t->file,
                !(t->build & BENCH_BUILD_OPTIMIZED) ? "without optimization"
                                                    : "without NDEBUG (asserts enabled)");
        return;
    }
}

static int compare_entries_by_name(const void *a, const void *b, void *arg)
{
    const struct bench__suite *suite = arg;
    return strcmp(suite->entries[*(const size_t *)a].full_name,
                  suite->entries[*(const size_t *)b].full_name);
}

/* A measured row gets a null cell for every document column it has no value for (a
 * requested source that is absent): the document says "not measured", never 0. */
static void fill_unmeasured(struct bench__measure *m, const struct bench__column_desc *const *cols,
                            size_t n_cols)
{
    for (size_t r = 0; r < m->n_rows; r++) {
        struct bench__row *row = &m->rows[r];
        if (row->state != BENCH__ROW_OK)
            continue;
        for (size_t c = 0; c < n_cols; c++) {
            if (!strcmp(cols[c]->source, "client"))
                continue;
            bool has = false;
            for (size_t k = 0; k < row->n_cells && !has; k++)
                has = row->cells[k].column == cols[c];
            if (has)
                continue;
            struct bench__cell *cells = realloc(row->cells, (row->n_cells + 1) * sizeof *cells);
            if (!cells)
                abort();
            row->cells = cells;
            row->cells[row->n_cells++] = (struct bench__cell){cols[c], NAN, false};
        }
    }
}

static int write_json(struct bench__measure *m, const struct bench__suite *suite,
                      uint64_t min_time_ms)
{
    size_t n_cols;
    const struct bench__column_desc **cols = run_columns(m, BENCH__COLUMNS_DOCUMENT, &n_cols);
    fill_unmeasured(m, cols, n_cols);
    struct bench__report report = {
        .columns = cols,
        .n_columns = n_cols,
        .rows = m->rows,
        .n_rows = m->n_rows,
        .windows = m->workloads.windows,
        .n_windows = m->workloads.n,
        .has_windows = m->workloads.ran,
    };
    bench__meta_collect(&report.meta, suite, min_time_ms);
    report.meta.clock_overhead_ns = m->clock_overhead_ns;
    report.meta.rounds = m->rounds;
    report.meta.provenance = m->provenance;
    report.meta.n_provenance = m->n_provenance;
    char err[BENCH__ERROR_MAX];
    int rc = bench__json_write(&report, m->cfg->bench_json, err, sizeof err);
    if (rc)
        fprintf(stderr, "--bench-json: %s\n", err);
    report.meta.provenance = NULL;
    report.meta.n_provenance = 0;
    bench__meta_free(&report.meta);
    free(cols);
    return rc;
}

static void free_measure(struct bench__measure *m)
{
    free(m->round_loops);
    for (size_t r = 0; r < m->n_rows; r++) {
        struct bench__row *row = &m->rows[r];
        free(row->name);
        free(row->source);
        free(row->error);
        free(row->cells);
        free_labels(row->labels, row->n_labels);
    }
    free(m->rows);
    for (size_t p = 0; p < m->n_pending; p++)
        free_pending(&m->pending[p]);
    free(m->pending);
    for (size_t c = 0; c < m->n_columns; c++) {
        free((char *)m->columns[c]->name);
        free((char *)m->columns[c]->header);
        free(m->columns[c]);
    }
    free(m->columns);
    for (size_t i = 0; i < m->n_provenance; i++)
        free(m->provenance[i]);
    free(m->provenance);
    free(m->samples);
    free(m->loop_rows);
}

int bench__run_bench(const struct bench__config *cfg, const struct bench__suite *suite)
{
    if (cfg->list_metrics || cfg->metrics_help)
        return bench__catalog_list(cfg, stdout);
    size_t *order = calloc(suite->count + 1, sizeof *order);
    size_t n_order = 0, workloads = 0;
    if (!order)
        abort();
    for (size_t i = 0; i < suite->count; i++) {
        if (suite->entries[i].test->kind == BENCH_KIND_BENCHMARK)
            order[n_order++] = i;
        workloads += suite->entries[i].test->kind == BENCH_KIND_WORKLOAD;
    }
    /* the default streaming key is the test's full name, ascending */
    qsort_r(order, n_order, sizeof *order, compare_entries_by_name, (void *)suite);
    bool list_groups = wants_group_list(cfg);
    if (n_order + workloads == 0 && !list_groups) {
        free(order);
        printf("no BENCHMARK or WORKLOAD tests found\n");
        return 0;
    }
    uint64_t min_time_ms = cfg->min_time_ms ? cfg->min_time_ms : BENCH__DEFAULT_MIN_TIME_MS;
    struct bench__measure m = {.cfg = cfg,
                               .budget_ns = (int64_t)min_time_ms * 1000000,
                               .ticker = bench__term_probe(STDERR_FILENO, cfg),
                               .clock_overhead_ns = NAN,
                               .start_ns = clock_ns()};
    struct bench__table_memory memory = {0};
    int status = 0;
    if (list_groups) {
        m.register_only = true;
        for (size_t i = 0; i < n_order; i++)
            run_body(&m, &suite->entries[order[i]]);
        status = list_group_keys(&m);
        goto done;
    }
    warn_debug_build(suite);
    if (cfg->perf_iters > BENCH__MAX_COUNT_ITERATIONS)
        fprintf(stderr, "--perf-iters: capped at %u (%llu requested)\n",
                BENCH__MAX_COUNT_ITERATIONS, (unsigned long long)cfg->perf_iters);
    bench__catalog_open(&m.catalog, cfg, false);
    bench__catalog_announce(&m.catalog, stderr);
    /* the early sampling rounds: every body in turn, each loop taking its share of samples */
    m.rounds = cfg->rounds > BENCH__SAMPLE_COUNT ? BENCH__SAMPLE_COUNT
               : cfg->rounds > 1                 ? cfg->rounds
                                                 : 1;
    for (m.round = 0; early_round(&m); m.round++)
        for (size_t i = 0; i < n_order; i++)
            run_body(&m, &suite->entries[order[i]]);
    if (cfg->n_group_by)
        run_grouped(&m, suite, order, n_order, &memory);
    else
        run_streamed(&m, suite, order, n_order, &memory);
    ticker_clear(&m);
    /* then the workloads, each window read at its edges, and their table */
    size_t *wl_order = calloc(suite->count + 1, sizeof *wl_order);
    size_t n_wl = 0;
    if (!wl_order)
        abort();
    for (size_t i = 0; i < suite->count; i++)
        if (suite->entries[i].test->kind == BENCH_KIND_WORKLOAD)
            wl_order[n_wl++] = i;
    qsort_r(wl_order, n_wl, sizeof *wl_order, compare_entries_by_name, (void *)suite);
    bench__workloads_run(cfg, suite, wl_order, n_wl, &m.catalog, &m.workloads, stderr);
    free(wl_order);
    bench__workloads_render(stdout, &m.workloads, &m.catalog, &memory);
    fflush(stdout);
    size_t n_all;
    const struct bench__column_desc **all_cols = run_columns(&m, BENCH__COLUMNS_DOCUMENT, &n_all);
    bool sort_key_unknown = cfg->sort_by && !bench__sort_key_known(cfg->sort_by, all_cols, n_all) &&
                            !bench__catalog_reserved(cfg->sort_by);
    free(all_cols);
    bench__catalog_warn_unmatched(&m.catalog, (const struct bench__column_desc *const *)m.columns,
                                  m.n_columns, stderr);
    if (sort_key_unknown)
        fprintf(stderr, "--sort-by: no metric column named '%s' — rows keep their default order\n",
                cfg->sort_by);
    size_t errors = m.workloads.failures;
    for (size_t r = 0; r < m.n_rows; r++)
        errors += m.rows[r].state == BENCH__ROW_ERROR;
    for (size_t i = 0; i < m.workloads.n; i++)
        errors += m.workloads.windows[i].state == BENCH__ROW_ERROR;
    if (cfg->bench_json && write_json(&m, suite, min_time_ms) != 0)
        errors++;
    status = errors ? 1 : 0;
done:
    bench__workloads_free(&m.workloads);
    bench__catalog_close(&m.catalog);
    free_measure(&m);
    bench__table_memory_free(&memory);
    free(order);
    return status;
}
