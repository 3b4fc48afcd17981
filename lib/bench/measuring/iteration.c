/* SPDX-License-Identifier: MIT */
/* iteration.c: owns the batched loop behind BENCH_ITER and bench_iter, whole-body rows, and their
 * counting passes (the body re-run with its loops bracketed instead of timed). One clock read per
 * sample, never inside the loop. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../../util/alloc.h"
#include "../../util/clock.h"
#include "measure.h"

/* ---- batched rows: BENCH_ITER, bench_iter, whole bodies --------------------------------- */

static void finish_batched_row(struct bench__measure *m, char *name)
{
    m->loop_open = false;
    struct bench__row *r = bench__row_new(m, name);
    free(name);
    if (m->loops > 0 && !m->whole_body) {
        m->loop_rows = bench__grow(m->loop_rows, &m->cap_loop_rows, m->loops, sizeof *m->loop_rows);
        while (m->n_loop_rows < m->loops)
            m->loop_rows[m->n_loop_rows++] = SIZE_MAX;
        m->loop_rows[m->loops - 1] = m->n_rows - 1;
    }
    r->iterations = m->sampler.count;
    r->samples = m->sampler.n;
    r->stats = bench__summarize(m->sampler.samples, m->sampler.n);
    r->cpu_ns = bench__sampler_cpu_per_iteration(&m->sampler);
    r->contention = bench__row_contention(m);
    r->contention_gap = bench__row_contention_gap(m);
    if (m->sampler.count >= BENCH__MAX_SCALED_ITERATIONS) /* nothing measurable was timed */
        bench__row_fail(
            r, BENCH__FAILED,
            "the iteration count reached 2^40: the timed body was optimized away or left "
            "its loop early (break)");
    bench__row_settle(m, m->n_rows - 1);
    /* its timing is measured: kept even if the body dies before its counting passes (sent
     * again with their cells after them) */
    bench__emit_rows(m, m->n_rows - 1);
    bench__emit_flush(m); /* the body goes on: the row must not die with it */
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
    uint64_t iterations = m->count.profile
                              ? bench__profile_iterations(r->stats.min)
                              : bench__count_iterations(m->cfg->perf_iters, r->iterations);
    /* the sampling pass has no bracket: its event is on throughout, its ring read between batches
     */
    bench__count_pass_begin(m, row, iterations,
                            bench__count_batch(m->cfg->perf_batch, iterations, r->stats.median));
    m->count.current = bench__count_next_batch(m);
    if (!m->count.profile)
        bench__count_bracket_begin(m);
    return m->count.current;
}

static uint64_t count_loop_next(struct bench__measure *m)
{
    if (m->count.inert) {
        m->count.inert = false;
        return 0;
    }
    if (m->count.profile)
        bench__profile_drain(m);
    else
        bench__count_bracket_end(m);
    m->count.done += m->count.current;
    if (m->count.done < m->count.iterations) {
        m->count.current = bench__count_next_batch(m);
        if (!m->count.profile)
            bench__count_bracket_begin(m);
        return m->count.current;
    }
    bench__count_pass_end(m);
    return 0;
}

uint64_t bench_iter_begin(bench_t *b)
{
    struct bench__measure *m = b ? b->measure : NULL;
    if (!m || m->whole_body || m->register_only)
        return 1;
    if (m->serve)
        return bench__serve_iter_begin(m);
    if (m->count.active)
        return count_loop_begin(m);
    m->loops++;
    m->loop_open = true;
    bench__rounds_sampler_begin(m, m->loops);
    bench__row_contention_begin(m);
    m->cpu0 = bench__clock_thread_cpu_ns(); /* between samples: never inside one */
    m->t0 = bench__clock_measure_ns();
    return m->sampler.count;
}

/* The thread CPU time of the sample that just ended (read after its closing clock read), given
 * to the sampler, which keeps it with the sample. */
static void sample_cpu(struct bench__measure *m, size_t kept_before, int64_t cpu0)
{
    int64_t cpu1 = bench__clock_thread_cpu_ns();
    bench__sampler_cpu(&m->sampler, kept_before, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0);
}

uint64_t bench_iter_next(bench_t *b)
{
    struct bench__measure *m = b ? b->measure : NULL;
    if (m && m->count.active && !m->whole_body)
        return count_loop_next(m); /* counters are enabled: no clock read here */
    int64_t t1 = bench__clock_measure_ns();
    if (!m || m->whole_body || m->register_only)
        return 0;
    if (m->serve)
        return bench__serve_iter_next(m, t1);
    size_t kept = m->sampler.n;
    bool more = bench__sampler_step(&m->sampler, t1 - m->t0);
    sample_cpu(m, kept, m->cpu0);
    if (more) {
        m->cpu0 = bench__clock_thread_cpu_ns();
        m->t0 = bench__clock_measure_ns();
        return m->sampler.count;
    }
    bench__row_contention_end(m); /* after the last sample's clock read */
    if (bench__rounds_early(m)) {
        bench__rounds_keep(m, m->loops);
        m->loop_open = false;
        return 0;
    }
    finish_batched_row(m, bench__loop_name(m->entry, m->loops));
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

void bench__whole_body_measure(struct bench__measure *m, bench_t *b)
{
    m->whole_body = true;
    bench__rounds_sampler_begin(m, 0);
    void (*fn)(bench_t *) = m->entry->test->fn;
    bench__row_contention_begin(m);
    for (;;) {
        uint64_t count = m->sampler.count;
        int64_t cpu0 = bench__clock_thread_cpu_ns();
        int64_t t0 = bench__clock_measure_ns();
        while (count--)
            fn(b);
        int64_t elapsed = bench__clock_measure_ns() - t0;
        size_t kept = m->sampler.n;
        bool more = bench__sampler_step(&m->sampler, elapsed);
        sample_cpu(m, kept, cpu0);
        if (!more)
            break;
    }
    bench__row_contention_end(m);
    if (bench__rounds_early(m))
        bench__rounds_keep(m, 0);
    else
        finish_batched_row(m, bench__xstrdup(m->entry->full_name));
}

/* One pass over a whole-body row (a counting pass, or the --profile pass): the body called
 * iterations times, in batched brackets. */
static void whole_body_pass(struct bench__measure *m, bench_t *b, size_t row, uint64_t iterations)
{
    void (*fn)(bench_t *) = m->entry->test->fn;
    bench__count_pass_begin(
        m, row, iterations,
        bench__count_batch(m->cfg->perf_batch, iterations, m->rows[row].stats.median));
    while (m->count.done < m->count.iterations) {
        uint64_t n = bench__count_next_batch(m);
        if (!m->count.profile) /* the sampling pass has no bracket: its event is on throughout */
            bench__count_bracket_begin(m);
        for (uint64_t i = 0; i < n; i++)
            fn(b);
        if (m->count.profile)
            bench__profile_drain(m);
        else
            bench__count_bracket_end(m);
        m->count.done += n;
    }
    bench__count_pass_end(m);
}

/* The counting passes of a whole-body row: the runner calls the body in brackets. */
void bench__whole_body_count(struct bench__measure *m, bench_t *b, size_t row)
{
    const struct bench__row *r = &m->rows[row];
    if (r->state != BENCH__ROW_OK)
        return;
    m->whole_body = true;
    for (size_t s = 0; s < m->catalog.n_sources; s++) {
        if (!m->catalog.sources[s].state)
            continue;
        m->count.source = s;
        uint64_t iterations = bench__count_iterations(m->cfg->perf_iters, r->iterations);
        whole_body_pass(m, b, row, iterations);
        r = &m->rows[row];
    }
    if (m->profile.wanted && !bench__profile_available(m))
        bench__profile_unavailable(m, row);
    if (bench__profile_available(m)) { /* --profile: after the counting passes */
        m->count.profile = true;
        m->profile.body = (void (*)(void))m->entry->test->fn;
        uint64_t iterations = bench__profile_iterations(r->stats.min);
        whole_body_pass(m, b, row, iterations);
        m->count.profile = false;
    }
    m->whole_body = false;
}

/* The counting passes of a body's BENCH_ITER rows: the body runs again once per source,
 * its loops bracketed instead of timed; its bench_case calls are ignored. */
void bench__loops_count(struct bench__measure *m, bench_t *b)
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
    if (m->profile.wanted && !bench__profile_available(m))
        for (size_t k = 0; k < m->n_loop_rows; k++)
            if (m->loop_rows[k] != SIZE_MAX)
                bench__profile_unavailable(m, m->loop_rows[k]);
    if (bench__profile_available(m)) { /* --profile: the body once more, after the counting */
        m->count.profile = true;
        m->profile.body = (void (*)(void))m->entry->test->fn;
        m->count.active = true;
        m->loops = 0;
        m->entry->test->fn(b);
        m->count.active = false;
        m->count.profile = false;
    }
}
