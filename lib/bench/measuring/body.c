/* SPDX-License-Identifier: MIT */
/* body.c: owns running one BENCHMARK body under --bench (its loops, cases or the whole body
 * measured, a failure or skip turned into a row, early sampling rounds) and bench_provenance. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/alloc.h"
#include "../../util/text.h"
#include "measure.h"

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

/* Has the body registered a case whose row takes its own name (bench__case_clash allows it)? */
static bool body_has_case(const struct bench__measure *m, const struct bench__entry *e)
{
    for (size_t i = 0; i < m->n_pending; i++)
        if (m->pending[i].entry == e && !m->pending[i].measured &&
            !strcmp(m->pending[i].name, e->full_name))
            return true;
    return false;
}

/* The name of a row for a failure of the body: the open loop's, else the test's (marked
 * " (body)" when a finished loop or a registered case already took that name). */
static char *failure_name(const struct bench__measure *m, const struct bench__entry *e,
                          size_t first_row)
{
    if (m->loop_open)
        return bench__loop_name(e, m->loops);
    if (!body_has_row(m, first_row, e->full_name) && !body_has_case(m, e))
        return bench__xstrdup(e->full_name);
    return bench__xasprintf("%s (body)", e->full_name);
}

/* An early round's failure is said once per body in the run. */
static bool say_round_failure(struct bench__measure *m, const struct bench__entry *e)
{
    char *key = bench__xasprintf("round-failure:%s", e->full_name);
    bool say = bench__say_once(m, key);
    free(key);
    return say;
}

/* Run one BENCHMARK body: BENCH_ITER loops measure inside it and bench_case rows queue;
 * a body that did neither is measured whole. A failure or skip becomes a row, except a skip
 * before any loop or case: that is the skip line on stderr and no row. */
void bench__body_run(struct bench__measure *m, const struct bench__entry *e)
{
    enum bench__item item = bench__rounds_early(m) ? BENCH__ITEM_ROUND
                            : m->register_only     ? BENCH__ITEM_REGISTER
                                                   : BENCH__ITEM_BODY;
    bench__emit_begin(m, item, e, e->full_name, NULL, 0);
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
    if (bench__rounds_early(m)) {
        /* a sampling round: samples only, no rows; a failure is said here, and the loops
         * keep the samples of their other rounds */
        if (setjmp(escape) == 0) {
            e->test->fn(&ctx);
            if (!m->loop_open && m->loops == 0 && !m->registered)
                bench__whole_body_measure(m, &ctx);
        } else if (ctx.outcome == BENCH__FAILED && say_round_failure(m, e)) {
            char *line = bench__first_line(ctx.message, "failed");
            bench__emit_note(
                m,
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
            struct bench__row *r = bench__row_new(m, "");
            free(r->name);
            r->name = bench__loop_name(e, m->loops);
            bench__row_fail(r, BENCH__FAILED,
                            "the body left its BENCH_ITER loop early (return or goto inside it)");
            bench__row_settle(m, m->n_rows - 1);
            m->loop_open = false;
        } else if (m->loops == 0 && !m->registered && !m->register_only) {
            bench__whole_body_measure(m, &ctx);
            bench__whole_body_count(m, &ctx, m->n_rows - 1);
        } else if (!m->register_only) {
            bench__loops_count(m, &ctx);
        }
    } else if (ctx.outcome == BENCH__SKIPPED && !m->loop_open && m->loops == 0 && !m->registered &&
               m->n_rows == first_row) {
        /* a skip before any loop or case: the skip line, no row, not a failure */
        char *line = bench__first_line(ctx.message, "skipped");
        bench__emit_note(m, " \xe2\x8a\x98 %s (%s)\n", e->full_name, line);
        free(line);
    } else {
        bench__count_close_bracket(m);
        char *name = failure_name(m, e, first_row); /* before the row exists */
        struct bench__row *r = bench__row_new(m, name);
        free(name);
        bench__row_fail(r, ctx.outcome, ctx.message);
        bench__row_settle(m, m->n_rows - 1);
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
    char *line = bench__first_line(fact, "");
    for (size_t i = 0; i < m->n_provenance; i++)
        if (!strcmp(m->provenance[i], line)) {
            free(line);
            return;
        }
    size_t cap = m->n_provenance;
    m->provenance = bench__grow(m->provenance, &cap, m->n_provenance + 1, sizeof *m->provenance);
    m->provenance[m->n_provenance++] = line;
    bench__sink_emit(m->sink, provenance, line);
    bench__emit_note(m, "provenance: %s\n", line);
}
