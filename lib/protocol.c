/* SPDX-License-Identifier: MIT */
/* protocol.c: owns benchmark mode: running BENCHMARK bodies serially in this process,
 * the batched timing protocol (BENCH_ITER and whole-body rows), the summary statistics,
 * error and skip rows, and the exit status of a --bench run. It never runs in the pool
 * and never reads a clock inside a timed loop. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static int64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- statistics ----------------------------------------------------------------------- */

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double sorted_median(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

struct bench__summary bench__summarize(double *values, size_t n)
{
    struct bench__summary s = {NAN, NAN, NAN, NAN};
    if (n == 0)
        return s;
    qsort(values, n, sizeof *values, compare_doubles);
    s.median = sorted_median(values, n);
    s.min = values[0];
    s.max = values[n - 1];
    double *dev = malloc(n * sizeof *dev);
    if (!dev)
        return s;
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(values[i] - s.median);
    qsort(dev, n, sizeof *dev, compare_doubles);
    s.mad = sorted_median(dev, n);
    free(dev);
    return s;
}

/* ---- the sampler ---------------------------------------------------------------------- */

void bench__sampler_start(struct bench__sampler *s, int64_t budget_ns, uint64_t pin)
{
    memset(s, 0, sizeof *s);
    s->budget_ns = budget_ns;
    s->count = pin ? pin : 1;
    s->sampling = pin != 0; /* a pinned count is never scaled */
}

bool bench__sampler_step(struct bench__sampler *s, int64_t elapsed_ns)
{
    if (!s->sampling) {
        if (elapsed_ns < s->budget_ns && s->count < BENCH__MAX_SCALED_ITERATIONS) {
            s->count *= 2;
            return true;
        }
        s->sampling = true; /* this scaling sample is discarded too */
        return true;
    }
    s->samples[s->n++] = (double)elapsed_ns / (double)s->count;
    return s->n < BENCH__SAMPLE_COUNT;
}

/* ---- rows ----------------------------------------------------------------------------- */

enum row_state { ROW_OK, ROW_ERROR, ROW_SKIPPED };

struct row {
    char *name;
    enum row_state state;
    uint64_t iterations;
    size_t samples;
    struct bench__summary stats;
    char note[256];
};

struct bench__measure {
    const struct bench__config *cfg;
    int64_t budget_ns;
    uint64_t pin;
    bool whole_body; /* the runner times whole calls: loops inside are inert */
    unsigned loops;  /* BENCH_ITER loops begun by this body */
    struct bench__sampler sampler;
    int64_t t0;
    struct row *rows;
    size_t n_rows, cap_rows;
    const struct bench__entry *entry;
};

static struct row *add_row(struct bench__measure *m, unsigned ordinal)
{
    if (m->n_rows == m->cap_rows) {
        size_t cap = m->cap_rows ? 2 * m->cap_rows : 8;
        struct row *grown = realloc(m->rows, cap * sizeof *grown);
        if (!grown)
            return NULL;
        m->rows = grown;
        m->cap_rows = cap;
    }
    struct row *r = &m->rows[m->n_rows++];
    memset(r, 0, sizeof *r);
    if (ordinal <= 1)
        r->name = strdup(m->entry->full_name);
    else if (asprintf(&r->name, "%s#%u", m->entry->full_name, ordinal) < 0)
        r->name = NULL;
    r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
    return r;
}

static void finish_row(struct row *r, struct bench__sampler *s)
{
    r->iterations = s->count;
    r->samples = s->n;
    r->stats = bench__summarize(s->samples, s->n);
}

uint64_t bench_iter_begin(bench_t *b)
{
    struct bench__measure *m = b ? b->measure : NULL;
    if (!m || m->whole_body)
        return 1;
    m->loops++;
    bench__sampler_start(&m->sampler, m->budget_ns, m->pin);
    m->t0 = clock_ns();
    return m->sampler.count;
}

uint64_t bench_iter_next(bench_t *b)
{
    int64_t t1 = clock_ns();
    struct bench__measure *m = b ? b->measure : NULL;
    if (!m || m->whole_body)
        return 0;
    if (bench__sampler_step(&m->sampler, t1 - m->t0)) {
        m->t0 = clock_ns();
        return m->sampler.count;
    }
    struct row *r = add_row(m, m->loops);
    if (r)
        finish_row(r, &m->sampler);
    return 0;
}

/* Time whole calls of the body (a BENCHMARK without BENCH_ITER). */
static void measure_whole_body(struct bench__measure *m, bench_t *b)
{
    m->whole_body = true;
    bench__sampler_start(&m->sampler, m->budget_ns, m->pin);
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
    struct row *r = add_row(m, 1);
    if (r)
        finish_row(r, &m->sampler);
}

/* Run one BENCHMARK: its body once (BENCH_ITER loops measure inside it), then, if it
 * ran no loop, its whole body. A failure or skip becomes a row with a note. */
static void run_benchmark(struct bench__measure *m, const struct bench__entry *e)
{
    struct bench_ctx ctx = {.entry = e, .measure = m, .result_fd = -1};
    jmp_buf escape;
    m->entry = e;
    m->loops = 0;
    m->whole_body = false;
    m->pin = e->test->benchmark->iterations;
    ctx.escape = &escape;
    struct bench_ctx *saved = bench__current;
    bench__current = &ctx;
    if (setjmp(escape) == 0) {
        e->test->fn(&ctx);
        if (m->loops == 0)
            measure_whole_body(m, &ctx);
    } else {
        struct row *r = add_row(m, m->loops ? m->loops : 1);
        if (r) {
            r->state = ctx.outcome == BENCH__SKIPPED ? ROW_SKIPPED : ROW_ERROR;
            size_t len = strcspn(ctx.message, "\n");
            snprintf(r->note, sizeof r->note, "%.*s%s", (int)len, ctx.message,
                     ctx.message[len] ? " …" : "");
            if (!r->note[0])
                snprintf(r->note, sizeof r->note, "%s",
                         r->state == ROW_SKIPPED ? "skipped" : "failed");
        }
    }
    bench__current = saved;
}

/* ---- the table ------------------------------------------------------------------------ */

static const struct bench__column timing_columns[] = {
    {"benchmark", BENCH__LEFT}, {"n", BENCH__RIGHT},     {"median/iter", BENCH__RIGHT},
    {"min", BENCH__DECIMAL},    {"max", BENCH__DECIMAL}, {"notes", BENCH__LEFT},
};

static char *cell_printf(const char *fmt, const char *a, const char *b)
{
    char *s = NULL;
    if (asprintf(&s, fmt, a, b) < 0)
        return NULL;
    return s;
}

/* Error and skip rows last (by name among themselves); the rest keep measurement order. */
static int compare_rows(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    bool fa = a->state != ROW_OK, fb = b->state != ROW_OK;
    if (fa != fb)
        return fa ? 1 : -1;
    if (fa)
        return strcmp(a->name ? a->name : "", b->name ? b->name : "");
    return 0;
}

static void render_rows(FILE *out, struct row *rows, size_t n, struct bench__table_memory *memory)
{
    /* stable: insertion sort keeps measurement order among ok rows */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && compare_rows(&rows[j - 1], &rows[j]) > 0; j--) {
            struct row t = rows[j - 1];
            rows[j - 1] = rows[j];
            rows[j] = t;
        }
    bool notes = false;
    for (size_t i = 0; i < n; i++)
        notes |= rows[i].state != ROW_OK;
    size_t n_cols = notes ? 6 : 5;
    char **cells = calloc(n * n_cols, sizeof *cells);
    if (!cells)
        return;
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        char **c = cells + i * n_cols;
        c[0] = strdup(r->name ? r->name : "?");
        if (r->state != ROW_OK) {
            for (size_t k = 1; k < 5; k++)
                c[k] = strdup("\xe2\x80\x94");
            c[5] = strdup(r->note);
            continue;
        }
        char med[32], mad[32], mn[32], mx[32], count[48];
        bench__format_ns(r->stats.median, med, sizeof med);
        bench__format_ns(r->stats.mad, mad, sizeof mad);
        bench__format_ns(r->stats.min, mn, sizeof mn);
        bench__format_ns(r->stats.max, mx, sizeof mx);
        if (r->iterations > 1)
            snprintf(count, sizeof count, "%zu\xc3\x97%llu", r->samples,
                     (unsigned long long)r->iterations);
        else if (r->samples)
            snprintf(count, sizeof count, "%zu", r->samples);
        else
            snprintf(count, sizeof count, "\xe2\x80\x94");
        c[1] = strdup(count);
        c[2] = cell_printf("%s \xc2\xb1%s", med, mad);
        c[3] = strdup(mn);
        c[4] = strdup(mx);
        if (notes)
            c[5] = strdup("");
    }
    struct bench__table table = {
        .columns = timing_columns, .n_columns = n_cols, .cells = cells, .n_rows = n};
    bench__table_render(out, &table, memory);
    for (size_t i = 0; i < n * n_cols; i++)
        free(cells[i]);
    free(cells);
}

/* ---- the run -------------------------------------------------------------------------- */

static void warn_debug_build(const struct bench__suite *suite)
{
    for (size_t i = 0; i < suite->count; i++) {
        const struct bench_test *t = suite->entries[i].test;
        if (t->kind == BENCH_KIND_TEST)
            continue;
        unsigned want = BENCH_BUILD_NDEBUG | BENCH_BUILD_OPTIMIZED;
        if ((t->build & want) != want) {
            fprintf(stderr,
                    "warning: %s was compiled %s — benchmark numbers may be "
                    "meaningless; build with optimization and -DNDEBUG (e.g. meson "
                    "--buildtype=release)\n",
                    t->file,
                    !(t->build & BENCH_BUILD_OPTIMIZED) ? "without optimization"
                                                        : "without NDEBUG (asserts enabled)");
            return;
        }
    }
}

static int list_metrics(void)
{
    printf("metric       column        class         source  available\n");
    printf("(timing)     median/iter   quantitative  clock   yes\n");
    printf("\ncapabilities:\n");
    printf("  clock   \xe2\x9c\x93 CLOCK_MONOTONIC\n");
    printf("\nThis libbench has no counting source yet: rows report time only. Client metrics\n"
           "appear per benchmark.\n");
    return 0;
}

int bench__run_bench(const struct bench__config *cfg, const struct bench__suite *suite)
{
    if (cfg->list_metrics || cfg->metrics_help)
        return list_metrics();
    size_t benchmarks = 0, workloads = 0;
    for (size_t i = 0; i < suite->count; i++) {
        benchmarks += suite->entries[i].test->kind == BENCH_KIND_BENCHMARK;
        workloads += suite->entries[i].test->kind == BENCH_KIND_WORKLOAD;
    }
    if (benchmarks + workloads == 0) {
        printf("no BENCHMARK or WORKLOAD tests found\n");
        return 0;
    }
    warn_debug_build(suite);
    if (workloads)
        fprintf(stderr,
                "--bench: %zu workload%s not measured (this libbench has no workload "
                "windows yet)\n",
                workloads, workloads == 1 ? "" : "s");
    uint64_t min_time_ms = cfg->min_time_ms ? cfg->min_time_ms : BENCH__DEFAULT_MIN_TIME_MS;
    struct bench__measure m = {.cfg = cfg, .budget_ns = (int64_t)min_time_ms * 1000000};
    struct bench__table_memory memory = {0};
    size_t executed = 0, passed = 0;
    for (size_t i = 0; i < suite->count; i++) {
        const struct bench__entry *e = &suite->entries[i];
        if (e->test->kind != BENCH_KIND_BENCHMARK)
            continue;
        m.n_rows = 0;
        run_benchmark(&m, e);
        fflush(stderr);
        render_rows(stdout, m.rows, m.n_rows, &memory);
        fflush(stdout);
        for (size_t k = 0; k < m.n_rows; k++) {
            executed++;
            passed += m.rows[k].state != ROW_ERROR;
            free(m.rows[k].name);
        }
    }
    free(m.rows);
    bench__table_memory_free(&memory);
    return executed == passed ? 0 : 1;
}
