/* SPDX-License-Identifier: MIT */
/* environment.h: the check of the environment a --bench run measures in, made once per run
 * before anything is measured: CPU frequency governor, boost, a debug or unoptimised build, a
 * hardware PMU, the load at start (docs/reference/bench-json.md, "environment"). */
#ifndef BENCH_BENCH_HOST_ENVIRONMENT_H
#define BENCH_BENCH_HOST_ENVIRONMENT_H

#include <stdio.h>

#include "../../model/report.h"
#include "../../suite/registry.h"

/* The 1-minute load average at start is warned about from this many times the CPUs on. */
#define BENCH__LOAD_WARNING_PER_CPU 0.5

/* Check the environment through the fault-injection seam; each warning is one line on `err`
 * that names the setting and what to do. Never fails, never stops the run. */
BENCH__HIDDEN void bench__environment_check(struct bench__environment *env,
                                            const struct bench__suite *suite, FILE *err);
BENCH__HIDDEN void bench__environment_free(struct bench__environment *env);

/* The parsers (pure): the first number of /proc/loadavg (NaN when there is none); the
 * hypervisor flag of /proc/cpuinfo's first "flags" line (1, 0; -1 without such a line). */
BENCH__HIDDEN double bench__loadavg_parse(const char *text);
BENCH__HIDDEN int bench__cpuinfo_hypervisor(const char *text);

#endif /* BENCH_BENCH_HOST_ENVIRONMENT_H */
