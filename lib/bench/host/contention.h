/* SPDX-License-Identifier: MIT */
/* contention.h: how much CPU time the rest of the machine used while a row was measured: the
 * machine's busy time from /proc/stat less this process's own CPU time, over the machine's CPU
 * time, read at the edges of a row's timing and never inside a sample
 * (docs/explanation/contention.md). */
#ifndef BENCH_BENCH_HOST_CONTENTION_H
#define BENCH_BENCH_HOST_CONTENTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../model/row.h"
#include "../../util/hidden.h"

/* A row measured over less machine CPU time than this (in /proc/stat clock ticks, summed over
 * the CPUs) has no contention: one tick would move it by more than 5 %. */
#define BENCH__CONTENTION_MIN_TICKS 20

/* The first line of /proc/stat: the machine's CPU time so far in clock ticks (USER_HZ), summed
 * over its CPUs; `cpus` counts the "cpuN" lines the text holds (0 when it was cut before them). */
struct bench__cpu_stat {
    uint64_t total; /* user nice system idle iowait irq softirq steal */
    uint64_t idle;  /* idle iowait */
    unsigned cpus;
};

/* Parse /proc/stat text (NUL-terminated): 0, or -1 when the "cpu " line is missing, torn (cut
 * by the end of the text) or holds fewer than the four fields every kernel prints. Guest time
 * is already inside user and nice, so it is not added again. */
BENCH__HIDDEN int bench__cpu_stat_parse(const char *text, struct bench__cpu_stat *out);
/* Read /proc/stat through the fault-injection seam and parse it: 0, or -errno (-EINVAL when
 * the text does not parse). `big` also counts every CPU line (a larger read). */
BENCH__HIDDEN int bench__cpu_stat_read(struct bench__cpu_stat *out, bool big);

/* One edge of a row's timing: the machine's ticks and this process's CPU time. */
struct bench__contention_edge {
    int err; /* 0, or why the edge was not read (-errno) */
    struct bench__cpu_stat stat;
    int64_t own_ns; /* user + system time of this process (all its threads), getrusage */
};

/* What a row's timing spans added up (sampling rounds add theirs): ticks of the machine, its
 * busy ticks, this process's CPU time. */
struct bench__contention {
    uint64_t total, busy;
    int64_t own_ns;
    int err; /* an edge failed: the row has no contention */
};

BENCH__HIDDEN void bench__contention_edge_read(struct bench__contention_edge *e);
/* Add the span from `begin` to `end` to `acc`. A failed edge, or a clock that ran backwards,
 * marks acc failed. */
BENCH__HIDDEN void bench__contention_add(struct bench__contention *acc,
                                         const struct bench__contention_edge *begin,
                                         const struct bench__contention_edge *end);
/* The share of the machine's CPU time that other processes used, in [0, 1]: (busy − own) ÷
 * total, own converted to ticks at `ticks_per_s` (USER_HZ); NaN when an edge failed or the span
 * is under BENCH__CONTENTION_MIN_TICKS. */
BENCH__HIDDEN double bench__contention_value(const struct bench__contention *acc, long ticks_per_s);
/* Why bench__contention_value is NaN: BENCH__CONTENTION_UNREADABLE when an edge failed,
 * BENCH__CONTENTION_SHORT when the span is under BENCH__CONTENTION_MIN_TICKS, else 0. */
BENCH__HIDDEN int bench__contention_gap(const struct bench__contention *acc, long ticks_per_s);
/* The clock ticks per second of /proc/stat (sysconf(_SC_CLK_TCK), 100 when unknown). */
BENCH__HIDDEN long bench__ticks_per_s(void);

#endif /* BENCH_BENCH_HOST_CONTENTION_H */
