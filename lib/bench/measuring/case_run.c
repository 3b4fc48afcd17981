/* SPDX-License-Identifier: MIT */
/* case_run.c: owns measuring one bench_case row: setup, one timed call per sample with its
 * untimed after, the disclosed clock cost, the counting passes, teardown, and the row's cells. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/alloc.h"
#include "../../util/clock.h"
#include "../../util/format.h"
#include "../../util/text.h"
#include "measure.h"

static void push_sample(struct bench__measure *m, double ns)
{
    m->samples = bench__grow(m->samples, &m->cap_samples, m->n_samples + 1, sizeof *m->samples);
    m->samples[m->n_samples++] = ns;
}

/* The stages of a case, kept outside the stack frame that setjmp returns to. */
enum stage { STAGE_START, STAGE_SET_UP, STAGE_TORN_DOWN };

struct case_run {
    enum stage stage;
    char *after_error;
};

static void per_call_loop(struct bench__measure *m, struct bench__pending *p, struct case_run *run)
{
    uint64_t pin = p->iterations ? p->iterations : m->pin;
    const char *message = NULL;
    if (!pin) { /* the untimed probe call */
        p->timed(p->state);
        if (p->after && p->after(p->state, &message)) {
            run->after_error = bench__first_line(message, "after failed");
            return;
        }
    }
    int64_t total = 0;
    memset(&m->contention, 0, sizeof m->contention);
    bench__row_contention_begin(m);
    while (bench__per_call_continue(m->n_samples, total, m->budget_ns, pin)) {
        int64_t t0 = bench__clock_measure_ns();
        p->timed(p->state);
        int64_t t1 = bench__clock_measure_ns();
        push_sample(m, (double)(t1 - t0));
        total += t1 - t0;
        if (p->after && p->after(p->state, &message)) {
            run->after_error = bench__first_line(message, "after failed");
            return;
        }
    }
    bench__row_contention_end(m);
}

/* The cost of one clock read, which every per-call sample includes: the median of 1000
 * back-to-back read pairs. Measured once, disclosed on stderr and in the JSON meta; never
 * subtracted. */
static void measure_clock_overhead(struct bench__measure *m)
{
    if (!isnan(m->clock_overhead_ns))
        return;
    enum { PAIRS = 1000 };
    double *d = bench__xmalloc(PAIRS * sizeof *d);
    for (int i = 0; i < PAIRS; i++) {
        int64_t a = bench__clock_measure_ns();
        int64_t b = bench__clock_measure_ns();
        d[i] = (double)(b - a);
    }
    m->clock_overhead_ns = bench__summarize(d, PAIRS).median;
    free(d);
    char cost[32];
    bench__format_ns(m->clock_overhead_ns, cost, sizeof cost);
    bench__sink_emit(m->sink, clock, m->clock_overhead_ns);
    bench__emit_note(m,
                     "clock: a per-call sample includes one clock read (%s, median of %d; not "
                     "subtracted)\n",
                     cost, PAIRS);
}

/* The counting passes of a per-call row: one call per bracket, after outside every bracket.
 * Runs after timing and before teardown (setup and teardown bracket both). */
static void count_case(struct bench__measure *m, struct bench__pending *p, struct case_run *run,
                       size_t row)
{
    const char *message = NULL;
    for (size_t s = 0; s < m->catalog.n_sources && !run->after_error; s++) {
        if (!m->catalog.sources[s].state)
            continue;
        bench__count_disclose_bracket(m, s);
        m->count.source = s;
        bench__count_pass_begin(m, row, bench__count_iterations(m->cfg->perf_iters, m->n_samples),
                                1);
        while (m->count.done < m->count.iterations) {
            bench__count_bracket_begin(m);
            p->timed(p->state);
            bench__count_bracket_end(m);
            m->count.done++;
            if (p->after && p->after(p->state, &message)) {
                run->after_error = bench__first_line(message, "after failed");
                break;
            }
        }
        if (!run->after_error)
            bench__count_pass_end(m);
    }
    if (m->profile.wanted && !bench__profile_available(m))
        bench__profile_unavailable(m, row);
    if (!bench__profile_available(m) || run->after_error)
        return;
    /* --profile: the calls one after another, the sampling event on for the whole pass: no
     * counting bracket, no ioctl per call (issue 32, point 13); its ring is read every 1024 calls.
     * A case's `after` runs in the pass: its samples are the benchmark's code, under its name. */
    m->count.profile = true;
    m->profile.body = (void (*)(void))p->timed;
    double fastest = bench__summarize(m->samples, m->n_samples).min; /* the row's, to be */
    bench__count_pass_begin(m, row, bench__profile_iterations(fastest), 1);
    while (m->count.done < m->count.iterations) {
        p->timed(p->state);
        m->count.done++;
        if (!(m->count.done & 1023))
            bench__profile_drain(m);
        if (p->after && p->after(p->state, &message)) {
            run->after_error = bench__first_line(message, "after failed");
            break;
        }
    }
    if (!run->after_error)
        bench__count_pass_end(m);
    else
        bench__count_close_bracket(m); /* the event off: no sample after the pass */
    m->count.profile = false;
}

void bench__case_measure(struct bench__measure *m, struct bench__pending *p)
{
    if (!p->refused)
        measure_clock_overhead(m);
    bench__emit_begin(m, BENCH__ITEM_CASE, p->entry, p->name, p->labels, p->n_labels);
    m->entry = p->entry;
    m->pin = p->entry->test->benchmark->iterations;
    struct bench__row *r = bench__row_new(m, p->name);
    size_t index = m->n_rows - 1;
    r->labels = p->labels;
    r->n_labels = p->n_labels;
    p->labels = NULL;
    p->n_labels = 0;
    p->measured = true;
    if (p->refused) {
        bench__row_fail(r, BENCH__FAILED, p->refused);
        bench__row_settle(m, index);
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
        bench__count_close_bracket(m);
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
        bench__row_fail(r, ctx.outcome, ctx.message);
    } else if (run.after_error) {
        bench__row_fail(r, BENCH__FAILED, run.after_error);
    } else {
        r->iterations = 1;
        r->samples = m->n_samples;
        r->stats = bench__summarize(m->samples, m->n_samples);
        r->contention = bench__row_contention(m);
        r->contention_gap = bench__row_contention_gap(m);
        /* client cells first (row-cell order), then what the counting passes appended */
        struct bench__cell *cells = bench__xcalloc(p->n_metrics + r->n_cells + 1, sizeof *cells);
        for (size_t i = 0; i < p->n_metrics; i++) {
            const struct bench__metric_def *d = &p->metrics[i];
            double v = d->amount;
            if (d->mode == BENCH_RATE)
                v = r->stats.median > 0 ? d->amount * 1e9 / r->stats.median : NAN;
            cells[i] = (struct bench__cell){d->column, v, false, 0};
        }
        if (r->n_cells)
            memcpy(cells + p->n_metrics, r->cells, r->n_cells * sizeof *cells);
        free(r->cells);
        r->cells = cells;
        r->n_cells += p->n_metrics;
    }
    free(run.after_error);
    bench__row_settle(m, index);
}
