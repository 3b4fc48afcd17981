/* SPDX-License-Identifier: MIT */
/* bench_compare.c: times bench__compare over 1000 cells × 10 runs per arm × 10 000 resamples
 * on deterministic synthetic data. A measuring program only: it asserts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats/compare.h"

#define CELLS 1000
#define RUNS 10

static double clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A value around `center`, ±2% uniform noise, from a SplitMix64 stream. */
static double noisy(struct bench__rng *rng, double center)
{
    double u = (double)(bench__rng_next(rng) >> 11) / 9007199254740992.0; /* [0, 1) */
    return center * (0.98 + 0.04 * u);
}

int main(void)
{
    static double values[CELLS][3][RUNS];
    static uint64_t runs[RUNS];
    static char names[CELLS][32];
    static struct bench__cmp_cell_in cells[CELLS];
    static struct bench__cmp_cell_out out[CELLS];
    struct bench__rng rng = {UINT64_C(20260927)};

    for (size_t r = 0; r < RUNS; r++)
        runs[r] = r;
    for (size_t i = 0; i < CELLS; i++) {
        /* Every 100th cell is 10% slower, every 100th (offset 50) 10% faster. */
        double shift = i % 100 == 7 ? 1.10 : i % 100 == 57 ? 0.90 : 1.0;
        for (size_t r = 0; r < RUNS; r++) {
            values[i][0][r] = noisy(&rng, 100.0);
            values[i][1][r] = noisy(&rng, 100.0 * shift);
            values[i][2][r] = noisy(&rng, 100.0);
        }
        snprintf(names[i], sizeof names[i], "op.%zu", i);
        cells[i] = (struct bench__cmp_cell_in){
            .scenario = "synthetic",
            .operation = names[i],
            .base = {values[i][0], runs, RUNS},
            .cand = {values[i][1], runs, RUNS},
            .aa = {values[i][2], runs, RUNS},
        };
    }

    struct bench__cmp_params params;
    bench__cmp_defaults(&params);
    params.resamples = 10000;
    params.subj_b = "base";
    params.subj_c = "cand";
    params.subj_a = "aa";

    struct bench__cmp_result result;
    size_t bad = 0;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = bench__compare(&params, cells, CELLS, out, &result, &bad);
    double t1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    if (rc != 0) {
        fprintf(stderr, "bench_compare: bench__compare failed (%d, cell %zu)\n", rc, bad);
        return 1;
    }

    size_t states[BENCH__CMP_N_STATES] = {0};
    for (size_t i = 0; i < CELLS; i++)
        states[out[i].state]++;
    printf("cells %d, runs per arm %d, resamples %u\n", CELLS, RUNS, (unsigned)params.resamples);
    printf("engine wall time: %.3f s (CPU time, all threads: %.3f s)\n", t1 - t0, c1 - c0);
    printf("verdict %s, exit %d, reason %s, runs_needed %u\n", result.verdict, result.exit_code,
           result.reason ? result.reason : "-", result.runs_needed);
    printf("states: CLAIMED %zu, UNCONFIRMED %zu, NO_CHANGE %zu, NO_CLAIM %zu, UNMEASURED %zu\n",
           states[BENCH__CMP_CLAIMED], states[BENCH__CMP_UNCONFIRMED], states[BENCH__CMP_NO_CHANGE],
           states[BENCH__CMP_NO_CLAIM], states[BENCH__CMP_UNMEASURED]);
    return 0;
}
