/* SPDX-License-Identifier: MIT */
/* sampler.c: owns the timing rules of benchmark mode (see sampler.h). Pure functions: no clock,
 * no I/O. */
#include <math.h>
#include <string.h>

#include "sampler.h"

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
        if (s->count >= BENCH__MAX_SCALED_ITERATIONS) {
            s->sampling = true; /* the cap: this sample is discarded too */
            return true;
        }
        if (elapsed_ns < s->budget_ns) {
            s->count *= 2; /* short, or a stop that its confirmation did not repeat */
            s->confirming = false;
            return true;
        }
        if (!s->confirming) {
            s->confirming = true; /* one slow sample may be a preemption: time this count again */
            return true;
        }
        s->confirming = false;
        s->sampling = true; /* two samples reached the budget: both are discarded */
        return true;
    }
    if (s->n >= BENCH__SAMPLE_COUNT)
        return false;
    s->samples[s->n++] = (double)elapsed_ns / (double)s->count;
    if (s->precision > 0 && s->n >= BENCH__PRECISION_MIN_SAMPLES &&
        bench__median_ci_within(s->samples, s->n, s->precision))
        return false; /* --bench-precision: the answer is known */
    return s->n < s->target && s->n < BENCH__SAMPLE_COUNT;
}

void bench__sampler_cpu(struct bench__sampler *s, size_t kept_before, int64_t cpu_ns)
{
    if (s->n <= kept_before)
        return; /* a discarded sample */
    if (cpu_ns < 0)
        s->cpu_unknown = true;
    else
        s->cpu_sum_ns += (double)cpu_ns;
}

double bench__sampler_cpu_per_iteration(const struct bench__sampler *s)
{
    if (s->n == 0 || s->cpu_unknown || s->count == 0)
        return NAN;
    return s->cpu_sum_ns / ((double)s->n * (double)s->count);
}

bool bench__median_ci_within(const double *samples, size_t n, double precision)
{
    if (n < 6 || n > BENCH__SAMPLE_COUNT || !(precision > 0))
        return false;
    double x[BENCH__SAMPLE_COUNT];
    memcpy(x, samples, n * sizeof *x);
    for (size_t i = 1; i < n; i++) /* insertion sort: n ≤ 32 */
        for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
    /* P(B ≤ k) for B ~ Binomial(n, 1/2), k = 0, 1, ...: the largest l with P(B ≤ l − 1) ≤ 2.5% */
    double term = ldexp(1.0, -(int)n), cdf = 0;
    size_t l = 0;
    for (size_t k = 0; k < n / 2; k++) {
        cdf += term;
        if (cdf > 0.025)
            break;
        l = k + 1;
        term = term * (double)(n - k) / (double)(k + 1);
    }
    if (l == 0)
        return false;
    double median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
    if (!(median > 0) || !isfinite(median))
        return false;
    return x[l - 1] >= median * (1.0 - precision) && x[n - l] <= median * (1.0 + precision);
}

bool bench__per_call_continue(size_t n, int64_t total_ns, int64_t budget_ns, uint64_t pin)
{
    if (pin)
        return n < pin;
    if (n >= BENCH__SAMPLE_COUNT && total_ns == 0)
        return false;
    return n < BENCH__PER_CALL_MIN_CALLS || total_ns < budget_ns;
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
