/* SPDX-License-Identifier: MIT */
/* sampler.h: the timing rules of benchmark mode (pure): the batched sampler behind BENCH_ITER,
 * the per-call stop rule of bench_case rows, and the size of counting passes and brackets. */
#ifndef BENCH_BENCH_MEASURING_SAMPLER_H
#define BENCH_BENCH_MEASURING_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../util/hidden.h"

#define BENCH__SAMPLE_COUNT 32
/* The fewest timed calls of an unpinned bench_case row, whatever the time they take: one
 * preempted call cannot use up the budget and leave the row a few hundred calls. */
#define BENCH__PER_CALL_MIN_CALLS 1000
#define BENCH__MAX_SCALED_ITERATIONS (1ULL << 40)
#define BENCH__MAX_COUNT_ITERATIONS 100000u /* a counting pass never runs more calls */
#define BENCH__BRACKET_TARGET_NS 1e6        /* auto batch: one bracket spans about 1 ms */

/* Calls in a counting pass: --perf-iters or the timing count, capped, at least 1. */
BENCH__HIDDEN uint64_t bench__count_iterations(uint64_t pinned, uint64_t timing_count);
/* Calls per bracket for a batched row: --perf-batch (clamped to the pass), else
 * floor(1 ms / median ns per call) clamped to [1, iterations]; 1 when unknown. */
BENCH__HIDDEN uint64_t bench__count_batch(uint64_t pinned, uint64_t iterations, double median_ns);

/* The batched-timing state machine: feed it one timed sample (elapsed ns at the current
 * count); it says whether to take another and at which count. The count doubles until two
 * samples in a row at one count reach the budget (one slow sample alone, e.g. a preemption, only
 * costs a second sample at that count: if that one is short, the doubling goes on), or until the
 * count is 2^40; every sample so far is discarded; then BENCH__SAMPLE_COUNT samples are kept
 * (docs/explanation/design.md, "Finding the iteration count"). */
struct bench__sampler {
    int64_t budget_ns;
    uint64_t count;   /* iterations per sample */
    bool sampling;    /* false while still doubling */
    bool confirming;  /* the last sample reached the budget: this one confirms the stop */
    size_t n;         /* samples kept */
    size_t target;    /* stop once n reaches it (BENCH__SAMPLE_COUNT, or a round's share) */
    bool warmup;      /* discard the next sample: a round resumed with a known count */
    double precision; /* --bench-precision as a fraction (0.01); 0 = off: stop once the 95% CI
                         of the median lies within ±precision of it, after
                         BENCH__PRECISION_MIN_SAMPLES samples (bench__median_ci_within) */
    double samples[BENCH__SAMPLE_COUNT];
    /* the thread CPU time of the kept samples (bench__sampler_cpu); cpu_unknown once one of
     * them could not be read */
    double cpu_sum_ns;
    bool cpu_unknown;
};
#define BENCH__PRECISION_MIN_SAMPLES 8

/* Whether the distribution-free 95% CI of the median of samples[0..n) (order statistics
 * x(l) and x(n+1-l), l the largest rank with P(Binomial(n, 1/2) < l) ≤ 2.5%) lies within
 * ±precision × the median. False when n is too small for such an interval (n < 6) or the median
 * is not > 0. */
BENCH__HIDDEN bool bench__median_ci_within(const double *samples, size_t n, double precision);
BENCH__HIDDEN void bench__sampler_start(struct bench__sampler *s, int64_t budget_ns, uint64_t pin);
BENCH__HIDDEN bool bench__sampler_step(struct bench__sampler *s, int64_t elapsed_ns);
/* After a step: the thread CPU time the sample took (read before and after it, -1 unknown),
 * kept when the step kept the sample (the sampler had kept_before samples before it). */
BENCH__HIDDEN void bench__sampler_cpu(struct bench__sampler *s, size_t kept_before, int64_t cpu_ns);
/* The CPU time per iteration of the kept samples; NaN when none was kept or one was unknown. */
BENCH__HIDDEN double bench__sampler_cpu_per_iteration(const struct bench__sampler *s);

/* The per-call stop rule of bench_case rows: after n timed calls totalling total_ns, take
 * another? Pinned: exactly `pin` calls. Otherwise at least BENCH__PER_CALL_MIN_CALLS calls and
 * at least the budget, but stop once 32 calls measured no time at all (a stalled coarse clock
 * measures nothing, however many calls it times). */
BENCH__HIDDEN bool bench__per_call_continue(size_t n, int64_t total_ns, int64_t budget_ns,
                                            uint64_t pin);

#endif /* BENCH_BENCH_MEASURING_SAMPLER_H */
