/* SPDX-License-Identifier: MIT */
/* serve.c: owns the served measuring mode (--bench-serve): the cells of the suite listed, then,
 * on each command read from stdin, one cell calibrated or timed for ONE sample at a given count,
 * answered on the protocol descriptor (docs/reference/cli.md, "The served measuring mode"). The
 * clock is read only around the sample; statistics and the order of samples are the tool's. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/affinity.h"
#include "../../util/alloc.h"
#include "../../util/clock.h"
#include "../../util/serve_line.h"
#include "../../util/text.h"
#include "measure.h"

/* ---- a sink that drops every event: the served mode reports on its own descriptor ---------- */

#define BENCH__EVENT(name, fields)                                                                 \
    static void quiet_##name(void *ctx, const struct bench__event_##name *event)                   \
    {                                                                                              \
        (void)ctx;                                                                                 \
        (void)event;                                                                               \
    }
#include "../events.def"
#undef BENCH__EVENT

static const struct bench__sink quiet_sink = {
    .ctx = NULL,
#define BENCH__EVENT(name, fields) .name = quiet_##name,
#include "../events.def"
#undef BENCH__EVENT
};

/* ---- the cells ---------------------------------------------------------------------------- */

enum serve_kind { SERVE_LOOP, SERVE_WHOLE, SERVE_CASE };

struct serve_cell {
    size_t entry; /* suite index */
    enum serve_kind kind;
    unsigned ordinal; /* SERVE_LOOP: the loop, 1-based; SERVE_CASE: the case, 0-based */
    char *name, *operation;
};

struct serve_cells {
    struct serve_cell *cells;
    size_t n, cap;
};

/* The operation of a case: its labels "k=v,k2=v2" in key order (they are stored sorted). */
static char *case_operation(const struct bench__pending *p)
{
    size_t len = 1;
    for (size_t i = 0; i < p->n_labels; i++)
        len += strlen(p->labels[i].key) + strlen(p->labels[i].value) + 2;
    char *s = bench__xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < p->n_labels; i++) {
        if (i)
            strcat(s, ",");
        strcat(s, p->labels[i].key);
        strcat(s, "=");
        strcat(s, p->labels[i].value);
    }
    return s;
}

static void add_cell(struct serve_cells *c, size_t entry, enum serve_kind kind, unsigned ordinal,
                     char *name, char *operation)
{
    c->cells = bench__grow(c->cells, &c->cap, c->n + 1, sizeof *c->cells);
    c->cells[c->n++] = (struct serve_cell){entry, kind, ordinal, name, operation};
}

/* ---- one body run ------------------------------------------------------------------------- */

enum serve_op { OP_LIST, OP_CALIBRATE, OP_SAMPLE };

void bench__serve_cases_clear(struct bench__measure *m)
{
    for (size_t p = 0; p < m->n_pending; p++)
        bench__pending_free(&m->pending[p]);
    m->n_pending = 0;
    bench__cells_free(m);
}

/* Time `count` calls of a case's timed function (or of a whole body): one clock read on each
 * side of the calls. */
static int64_t time_calls(void (*fn)(void *), void *arg, uint64_t count)
{
    int64_t t0 = bench__clock_measure_ns();
    for (uint64_t left = count; left != 0; --left)
        fn(arg);
    return bench__clock_measure_ns() - t0;
}

/* A duet sample (compare --duet) begins at the time the tool gave both subjects: spin until
 * then, so that the two timed loops start together on their two CPUs; a body whose untimed
 * setup ran past it starts at once, and the answer says how late. */
static void wait_start(struct bench__serve *sv)
{
    if (sv->start_ns <= 0)
        return;
    int64_t now = bench__clock_measure_ns();
    sv->late_ns = now > sv->start_ns ? now - sv->start_ns : 0;
    while (now < sv->start_ns)
        now = bench__clock_measure_ns();
}

static void call_body(void *arg)
{
    bench_t *b = arg;
    b->entry->test->fn(b);
}

/* Calibrate (the sampler's doubling until two samples in a row reach the budget) or take one
 * sample of fn at sv->count. */
static void time_fn(struct bench__measure *m, struct bench__serve *sv, void (*fn)(void *),
                    void *arg, uint64_t pin)
{
    if (sv->op == OP_SAMPLE) {
        wait_start(sv);
        sv->elapsed_ns = time_calls(fn, arg, sv->count);
        sv->done = true;
        return;
    }
    bench__sampler_start(&m->sampler, m->budget_ns, pin);
    while (!m->sampler.sampling) {
        int64_t elapsed = time_calls(fn, arg, m->sampler.count);
        if (!bench__sampler_step(&m->sampler, elapsed))
            break;
    }
    sv->count = m->sampler.count;
    sv->done = true;
}

static void time_case(struct bench__measure *m, struct bench__serve *sv, unsigned ordinal)
{
    if (ordinal >= m->n_pending) {
        bench__fmt(sv->error, sizeof sv->error, "the body registered %zu cases this time",
                   m->n_pending);
        return;
    }
    struct bench__pending *p = &m->pending[ordinal];
    if (p->refused) {
        bench__fmt(sv->error, sizeof sv->error, "%s", p->refused);
        return;
    }
    if (p->setup)
        p->setup(p->state);
    time_fn(m, sv, p->timed, p->state, p->iterations ? p->iterations : m->pin);
    const char *message = NULL;
    if (p->after && p->after(p->state, &message)) {
        char *line = bench__first_line(message, "after failed");
        bench__fmt(sv->error, sizeof sv->error, "after: %s", line);
        free(line);
    }
    if (p->teardown)
        p->teardown(p->state);
}

/* Run body e once for `op` on cell `cell` (NULL for OP_LIST); false with sv->error when the
 * body failed or skipped, or the sample could not be taken. */
static bool run_body(struct bench__measure *m, struct bench__serve *sv, size_t entry,
                     const struct serve_cell *cell)
{
    const struct bench__entry *e = &m->suite->entries[entry];
    struct bench_ctx ctx = {.entry = e, .measure = m, .result_fd = -1};
    jmp_buf escape;
    ctx.escape = &escape;
    m->entry = e;
    m->pin = e->test->benchmark->iterations;
    m->loops = 0;
    m->loop_open = false;
    m->whole_body = false;
    m->registered = false;
    sv->error[0] = '\0';
    sv->target = cell && cell->kind == SERVE_LOOP ? cell->ordinal : 0;
    sv->done = false;
    bench__serve_cases_clear(m);
    struct bench_ctx *saved = bench__current;
    bench__current = &ctx;
    if (setjmp(escape) == 0) {
        if (cell && cell->kind == SERVE_WHOLE) {
            m->whole_body = true;
            time_fn(m, sv, call_body, &ctx, m->pin);
        } else {
            e->test->fn(&ctx);
            if (m->loop_open)
                bench__fmt(sv->error, sizeof sv->error,
                           "the body left its BENCH_ITER loop early (return or goto inside it)");
            else if (cell && cell->kind == SERVE_CASE)
                time_case(m, sv, cell->ordinal);
        }
    } else if (!sv->done || sv->error[0]) {
        char *line = bench__first_line(ctx.message, "failed");
        bench__fmt(sv->error, sizeof sv->error, "%s: %s",
                   ctx.outcome == BENCH__SKIPPED ? "skipped" : "failed", line);
        free(line);
    }
    bench__current = saved;
    m->loop_open = false;
    m->whole_body = false;
    if (!sv->error[0] && cell && !sv->done)
        bench__fmt(sv->error, sizeof sv->error, "the body did not reach the cell's loop");
    return sv->error[0] == '\0';
}

/* ---- the loop hooks (iteration.c calls them when m->serve is set) ------------------------- */

uint64_t bench__serve_iter_begin(struct bench__measure *m)
{
    struct bench__serve *sv = m->serve;
    m->loops++;
    if (m->loops != sv->target || sv->done)
        return 1; /* not the cell's loop: run once, untimed */
    m->loop_open = true;
    if (sv->op == OP_CALIBRATE)
        bench__sampler_start(&m->sampler, m->budget_ns, m->pin);
    else {
        m->sampler.count = sv->count;
        wait_start(sv);
    }
    m->t0 = bench__clock_measure_ns();
    return m->sampler.count;
}

uint64_t bench__serve_iter_next(struct bench__measure *m, int64_t t1)
{
    struct bench__serve *sv = m->serve;
    if (!m->loop_open)
        return 0;
    if (sv->op == OP_CALIBRATE && !m->sampler.sampling &&
        bench__sampler_step(&m->sampler, t1 - m->t0) && !m->sampler.sampling) {
        m->t0 = bench__clock_measure_ns();
        return m->sampler.count;
    }
    if (sv->op == OP_SAMPLE)
        sv->elapsed_ns = t1 - m->t0;
    sv->count = m->sampler.count;
    sv->done = true;
    m->loop_open = false;
    return 0;
}

/* ---- the listing and the commands --------------------------------------------------------- */

static void list_cells(struct bench__measure *m, struct bench__serve *sv, struct serve_cells *c)
{
    for (size_t i = 0; i < m->suite->count; i++) {
        const struct bench__entry *e = &m->suite->entries[i];
        if (e->test->kind != BENCH_KIND_BENCHMARK)
            continue;
        sv->op = OP_LIST;
        bool ok = run_body(m, sv, i, NULL);
        if (!ok && m->loops == 0 && m->n_pending == 0) {
            fprintf(stderr, "--bench-serve: %s gives no cell: %s\n", e->full_name, sv->error);
            continue;
        }
        for (unsigned k = 1; k <= m->loops; k++)
            add_cell(c, i, SERVE_LOOP, k, bench__loop_name(e, k), bench__xstrdup(""));
        for (size_t p = 0; p < m->n_pending; p++)
            add_cell(c, i, SERVE_CASE, (unsigned)p, bench__xstrdup(m->pending[p].name),
                     case_operation(&m->pending[p]));
        if (m->loops == 0 && !m->registered)
            add_cell(c, i, SERVE_WHOLE, 0, bench__xstrdup(e->full_name), bench__xstrdup(""));
    }
    bench__serve_cases_clear(m);
}

static void say(FILE *out, const char *fmt, ...) BENCH_PRINTF(2, 3);
static void say(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fflush(out);
}

static void answer_error(FILE *out, const char *text)
{
    char esc[sizeof((struct bench__serve *)0)->error * 3];
    bench__serve_escape(text, esc, sizeof esc);
    say(out, "error\t%s\n", esc);
}

static void send_listing(FILE *out, const struct serve_cells *c)
{
    say(out, "%s\n", BENCH__SERVE_HELLO);
    for (size_t i = 0; i < c->n; i++) {
        char name[2048], op[2048];
        if (!bench__serve_escape(c->cells[i].name, name, sizeof name))
            bench__fmt(name, sizeof name, "cell%zu", i);
        bench__serve_escape(c->cells[i].operation, op, sizeof op);
        say(out, "cell\t%s\t%s\n", name, op);
    }
    say(out, "ready\t%zu\n", c->n);
}

/* One command; false on quit or end of input. */
static bool serve_command(struct bench__measure *m, struct bench__serve *sv,
                          const struct serve_cells *c, char *line, FILE *out)
{
    char *f[6];
    size_t n = bench__serve_split(line, f, 6);
    if (n == 1 && (!strcmp(f[0], "quit") || !f[0][0]))
        return strcmp(f[0], "quit") != 0;
    char *end = NULL;
    unsigned long long idx = n >= 2 ? strtoull(f[1], &end, 10) : 0;
    bool calibrate = n == 2 && !strcmp(f[0], "calibrate");
    bool duet = n == 5 && !strcmp(f[0], "sample"); /* sample IDX COUNT AT_NS CPU */
    bool sample = (n == 3 && !strcmp(f[0], "sample")) || duet;
    if ((!calibrate && !sample) || !end || *end || idx >= c->n) {
        answer_error(out, "unknown command");
        return true;
    }
    const struct serve_cell *cell = &c->cells[idx];
    sv->op = calibrate ? OP_CALIBRATE : OP_SAMPLE;
    sv->start_ns = sv->late_ns = 0;
    if (sample) {
        sv->count = strtoull(f[2], &end, 10);
        if (*end || sv->count == 0) {
            answer_error(out, "bad count");
            return true;
        }
    }
    if (duet) {
        char *end_at = NULL, *end_cpu = NULL;
        long long at = strtoll(f[3], &end_at, 10);
        long cpu = strtol(f[4], &end_cpu, 10);
        if (*end_at || at <= 0 || *end_cpu || cpu < -1 || cpu > 65535) {
            answer_error(out, "bad duet start or CPU");
            return true;
        }
        int rc = cpu >= 0 ? bench__affinity_pin((int)cpu) : 0;
        if (rc != 0) {
            char why[128];
            bench__fmt(why, sizeof why, "cannot pin to CPU %ld: %s", cpu, strerror(-rc));
            answer_error(out, why);
            return true;
        }
        sv->start_ns = (int64_t)at;
    }
    bool ok = run_body(m, sv, cell->entry, cell);
    bench__serve_cases_clear(m);
    bench__flush_output();
    if (!ok)
        answer_error(out, sv->error);
    else if (calibrate)
        say(out, "count\t%" PRIu64 "\n", sv->count);
    else if (duet)
        say(out, "ns\t%" PRId64 "\t%" PRIu64 "\t%" PRId64 "\n", sv->elapsed_ns, sv->count,
            sv->late_ns);
    else
        say(out, "ns\t%" PRId64 "\t%" PRIu64 "\n", sv->elapsed_ns, sv->count);
    return true;
}

int bench__serve(const struct bench__config *cfg, const struct bench__suite *suite)
{
    /* the protocol keeps the real stdout; what the bodies print goes to stderr */
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        fprintf(stderr, "--bench-serve: cannot set up the protocol descriptor\n");
        if (out)
            fclose(out);
        else if (fd >= 0)
            close(fd);
        return 2;
    }
    struct bench__measure *m = bench__xcalloc(1, sizeof *m);
    struct bench__serve sv = {0};
    m->cfg = cfg;
    m->suite = suite;
    m->sink = &quiet_sink;
    m->serve = &sv;
    uint64_t min_time_ms = bench__min_time_ms(cfg);
    m->budget_ns = (int64_t)(min_time_ms * 1000000u);
    m->clock_overhead_ns = NAN;
    struct serve_cells cells = {0};
    list_cells(m, &sv, &cells);
    send_listing(out, &cells);
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0 && serve_command(m, &sv, &cells, line, out))
        ;
    free(line);
    for (size_t i = 0; i < cells.n; i++) {
        free(cells.cells[i].name);
        free(cells.cells[i].operation);
    }
    free(cells.cells);
    bench__serve_cases_clear(m);
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
    for (size_t i = 0; i < m->n_said; i++)
        free(m->said[i]);
    free(m->said);
    free(m);
    fclose(out);
    return 0;
}
