/* SPDX-License-Identifier: MIT */
/* rounds.c: owns sampling rounds (--bench-rounds): each batched loop's samples taken in N
 * rounds over all benchmarks, its count and samples kept between rounds. */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>

#include "../../util/alloc.h"
#include "measure.h"

/* ---- sampling rounds (--bench-rounds) ---------------------------------------------------- */

/* An early round only samples; the last round is the ordinary run that finishes the rows. */
bool bench__rounds_early(const struct bench__measure *m)
{
    return m->round + 1 < m->rounds;
}

struct bench__round_loop *bench__rounds_loop(struct bench__measure *m, unsigned ordinal,
                                             bool create)
{
    for (size_t i = 0; i < m->n_round_loops; i++)
        if (m->round_loops[i].entry == m->entry && m->round_loops[i].ordinal == ordinal)
            return &m->round_loops[i];
    if (!create)
        return NULL;
    m->round_loops = bench__grow(m->round_loops, &m->cap_round_loops, m->n_round_loops + 1,
                                 sizeof *m->round_loops);
    struct bench__round_loop *rl = &m->round_loops[m->n_round_loops++];
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
void bench__rounds_sampler_begin(struct bench__measure *m, unsigned ordinal)
{
    bench__sampler_start(&m->sampler, m->budget_ns, m->pin);
    /* --bench-precision ends a loop early in its last (or only) round, never in an early one */
    if (m->cfg && !bench__rounds_early(m))
        m->sampler.precision = m->cfg->bench_precision;
    memset(&m->contention, 0, sizeof m->contention);
    if (m->rounds <= 1)
        return;
    const struct bench__round_loop *rl = bench__rounds_loop(m, ordinal, false);
    if (rl && rl->count) {
        m->contention = rl->contention;
        m->sampler.count = rl->count;
        m->sampler.sampling = true;
        m->sampler.warmup = true;
        memcpy(m->sampler.samples, rl->samples, rl->n * sizeof rl->samples[0]);
        m->sampler.n = rl->n;
        m->sampler.cpu_sum_ns = rl->cpu_sum_ns;
        m->sampler.cpu_unknown = rl->cpu_unknown;
    }
    if (bench__rounds_early(m)) {
        size_t upto = BENCH__SAMPLE_COUNT * (m->round + 1) / m->rounds;
        m->sampler.target = upto > m->sampler.n ? upto : m->sampler.n + 1;
    }
}

/* An early round's loop ended: keep its count and samples for the next round. */
void bench__rounds_keep(struct bench__measure *m, unsigned ordinal)
{
    struct bench__round_loop *rl = bench__rounds_loop(m, ordinal, true);
    rl->count = m->sampler.count;
    rl->n = m->sampler.n;
    rl->contention = m->contention;
    rl->cpu_sum_ns = m->sampler.cpu_sum_ns;
    rl->cpu_unknown = m->sampler.cpu_unknown;
    memcpy(rl->samples, m->sampler.samples, rl->n * sizeof rl->samples[0]);
}
