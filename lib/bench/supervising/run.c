/* SPDX-License-Identifier: MIT */
/* run.c: owns the start of a --bench run: --list-metrics, what is checked and said before
 * anything is measured, and who takes the measuring side's events: a collector sink in this
 * process (--bench-in-process, white-box tests), or worker processes the supervisor watches,
 * whose events reach the same collector through the wire. It measures nothing itself. */
#define _GNU_SOURCE
#include <stdio.h>

#include "../../workload/capabilities.h"
#include "../../report/metric_listing.h"
#include "../host/environment.h"
#include "../measuring/group_keys.h"
#include "../measuring/run.h"
#include "../measuring/sampler.h"
#include "collector.h"
#include "run.h"
#include "supervisor.h"

/* --list-metrics: the public catalog made for this configuration, and its listing. */
static int list_metrics(const struct bench__config *cfg)
{
    bench_catalog_t *cat = NULL;
    int rc = bench__catalog_open_all(cfg, &cat);
    if (rc != 0) {
        fprintf(stderr, "--list-metrics: %s\n", bench_strerror(rc));
        return 1;
    }
    const struct bench_metric_info *metrics;
    const struct bench_capability_info *caps;
    size_t n_metrics, n_caps;
    bench__catalog_infos(cat, &metrics, &n_metrics, &caps, &n_caps);
    bench__metric_listing(stdout, metrics, n_metrics, caps, n_caps);
    bench_catalog_close(cat);
    return 0;
}

/* Everything before measuring; returns -1 to go on, else the exit status. The environment is
 * checked (env->build set) only when benchmarks or workloads are measured. */
static int before_measuring(const struct bench__config *cfg, const struct bench__suite *suite,
                            struct bench__environment *env)
{
    if (cfg->list_metrics || cfg->metrics_help)
        return list_metrics(cfg);
    size_t measured = 0;
    for (size_t i = 0; i < suite->count; i++)
        measured += suite->entries[i].test->kind != BENCH_KIND_TEST;
    bool list_groups = bench__group_list_wanted(cfg);
    if (measured == 0 && !list_groups) {
        printf("no BENCHMARK or WORKLOAD tests found\n");
        return 0;
    }
    if (!list_groups) {
        bench__environment_check(env, suite, stderr);
        if (cfg->perf_iters > BENCH__MAX_COUNT_ITERATIONS)
            fprintf(stderr, "--perf-iters: capped at %u (%llu requested)\n",
                    BENCH__MAX_COUNT_ITERATIONS, (unsigned long long)cfg->perf_iters);
    }
    fflush(stdout);
    fflush(stderr);
    return -1;
}

bool bench__bench_in_process = false;

int bench__run_bench(const struct bench__config *cfg, const struct bench__suite *suite)
{
    struct bench__environment env = {0};
    int status = before_measuring(cfg, suite, &env);
    if (status >= 0) {
        bench__environment_free(&env);
        return status;
    }
    uint64_t min_time_ms = bench__min_time_ms(cfg);
    bool in_process = bench__bench_in_process || cfg->bench_in_process;
    struct bench__collector *c = bench__collector_new(cfg, suite, min_time_ms, in_process);
    if (env.build) /* checked: the document records it */
        bench__collector_environment(c, &env);
    if (in_process) {
        struct bench__sink sink = bench__collector_sink(c);
        bench__measure_suite(cfg, suite, &sink, NULL);
    } else {
        bench__supervise(cfg, suite, c);
    }
    status = bench__collector_finish(c);
    bench__collector_free(c);
    bench__environment_free(&env);
    return status;
}
