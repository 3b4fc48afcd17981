/* SPDX-License-Identifier: MIT */
/* counting.c: owns counting passes: the brackets around counted calls (never a clock inside one),
 * the pass's cells appended to its row, and the disclosed cost of an empty bracket. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/alloc.h"
#include "../../util/format.h"
#include "../../util/text.h"
#include "../../sources/ip_sampling.h"
#include "measure.h"

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

void bench__count_bracket_begin(struct bench__measure *m)
{
    count_ops(m)->bracket_begin(count_state(m));
    m->count.bracket_open = true;
    m->count.brackets++;
}

void bench__count_bracket_end(struct bench__measure *m)
{
    count_ops(m)->bracket_end(count_state(m));
    m->count.bracket_open = false;
}

/* After a failure escaped a counted body: counters must not stay enabled. */
void bench__count_close_bracket(struct bench__measure *m)
{
    if (m->count.profile) /* the sampling pass enabled its event once, without a bracket */
        bench__ip_sampling_disable(m->profile.sampling);
    else if (m->count.bracket_open)
        bench__count_bracket_end(m);
    m->count.active = false;
    m->count.inert = false;
    m->count.profile = false;
}

void bench__count_pass_begin(struct bench__measure *m, size_t row, uint64_t iterations,
                             uint64_t batch)
{
    m->count.row = row;
    m->count.iterations = iterations;
    m->count.batch = batch;
    m->count.done = 0;
    m->count.brackets = 0;
    if (m->count.profile) {
        bench__profile_pass_begin(m);
        return;
    }
    if (count_ops(m)->pass_row)
        count_ops(m)->pass_row(count_state(m), m->rows[row].name);
    count_ops(m)->pass_begin(count_state(m));
}

/* Read the pass and append the source's family as cells of the row. */
void bench__count_pass_end(struct bench__measure *m)
{
    if (m->count.profile) { /* --profile's pass: a profile, no cells */
        bench__profile_pass_end(m, m->count.row, m->count.done);
        return;
    }
    const struct bench__open_source *src = count_src(m);
    double *values = bench__xcalloc(src->n_family + 1, sizeof *values);
    bool *estimate = bench__xcalloc(src->n_family + 1, sizeof *estimate);
    for (size_t k = 0; k < src->n_family; k++)
        values[k] = NAN;
    struct bench__counts counts = {.values = values, .estimate = estimate, .scale = NAN};
    src->ops->pass_end(count_state(m), m->count.iterations, m->count.brackets, &counts);
    if (counts.never_enabled) {
        char key[128];
        bench__fmt(key, sizeof key, "never-enabled:%s", src->ops->name);
        if (bench__say_once(m, key))
            bench__emit_note(m,
                             "%s: the counter group was never enabled during a counting pass — "
                             "its cells are unmeasured (—), not zero\n",
                             src->ops->name);
    }
    struct bench__row *r = &m->rows[m->count.row];
    struct bench__cell *cells =
        bench__xrealloc(r->cells, (r->n_cells + src->n_family + 1) * sizeof *cells);
    r->cells = cells;
    /* one call per bracket: each value includes one empty bracket's reading, which it names */
    const double *empty =
        m->count.batch == 1 && m->empty_bracket ? m->empty_bracket[m->count.source] : NULL;
    for (size_t k = 0; k < src->n_family; k++) {
        bool counted = src->family[k].format == BENCH__FORMAT_COUNT && !isnan(values[k]);
        double bracket = empty && counted && empty[k] > 0 ? empty[k] : 0;
        r->cells[r->n_cells++] = (struct bench__cell){&src->family[k], values[k],
                                                      estimate[k] && !isnan(values[k]), bracket};
    }
    if (!r->count_iterations)
        r->count_iterations = m->count.iterations;
    free(values);
    free(estimate);
}

uint64_t bench__count_next_batch(const struct bench__measure *m)
{
    uint64_t left = m->count.iterations - m->count.done;
    return m->count.batch < left ? m->count.batch : left;
}

/* Per-call rows count one call per bracket, so their counters include the bracket itself.
 * Measure what an empty bracket reads, once per source and worker (the cells of its per-call
 * rows name it), and say so once per run (never subtracted). */
void bench__count_disclose_bracket(struct bench__measure *m, size_t s)
{
    enum { EMPTY_BRACKETS = 100 };
    const struct bench__open_source *src = &m->catalog.sources[s];
    if (!m->empty_bracket)
        m->empty_bracket = bench__xcalloc(m->catalog.n_sources + 1, sizeof *m->empty_bracket);
    if (m->empty_bracket[s])
        return;
    const struct bench__source_ops *ops = src->ops;
    void *state = src->state;
    double *values = bench__xcalloc(src->n_family + 1, sizeof *values);
    bool *estimate = bench__xcalloc(src->n_family + 1, sizeof *estimate);
    for (size_t k = 0; k < src->n_family; k++)
        values[k] = NAN;
    ops->pass_begin(state);
    for (int i = 0; i < EMPTY_BRACKETS; i++) {
        ops->bracket_begin(state);
        ops->bracket_end(state);
    }
    struct bench__counts counts = {.values = values, .estimate = estimate, .scale = NAN};
    ops->pass_end(state, EMPTY_BRACKETS, EMPTY_BRACKETS, &counts);
    m->empty_bracket[s] = values;
    char key[128];
    bench__fmt(key, sizeof key, "bracket:%s", src->ops->name);
    if (!bench__say_once(m, key)) {
        free(estimate);
        return;
    }
    char text[400] = "";
    size_t shown = 0;
    for (size_t k = 0; k < src->n_family && shown < 3; k++) {
        if (src->family[k].format != BENCH__FORMAT_COUNT || isnan(values[k]))
            continue;
        char v[BENCH__NUMBER_MAX];
        bench__format_metric(values[k], src->family[k].format, estimate[k], v, sizeof v);
        size_t len = strlen(text);
        bench__fmt(text + len, sizeof text - len, "%s%s %s", shown ? ", " : "",
                   src->family[k].header, v);
        shown++;
    }
    bool any = false; /* a source that nets its own bracket out (tier0) reads 0: say nothing */
    for (size_t k = 0; k < src->n_family; k++)
        any |= src->family[k].format == BENCH__FORMAT_COUNT && values[k] > 0;
    if (shown && any)
        bench__emit_note(
            m,
            "%s: per-call rows are counted one call per bracket; an empty bracket reads %s "
            "(included in their counts, not subtracted)\n",
            ops->name, text);
    free(estimate);
}
