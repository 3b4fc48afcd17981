/* SPDX-License-Identifier: MIT */
/* run.h: the measuring side's entry: measure a suite's BENCHMARK and WORKLOAD tests, reporting
 * every event through a sink (events.h), and what a worker that continues a run must know of
 * the earlier workers (the resume state, built by the collector in supervising/). */
#ifndef BENCH_BENCH_MEASURING_RUN_H
#define BENCH_BENCH_MEASURING_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "../../suite/registry.h"
#include "../events.h"

/* What a later worker must know of the run so far: what not to run again, and the disclosures
 * already made. */
struct bench__resume {
    bool active;         /* this worker continues a run */
    bool *skip_entry;    /* per suite entry: not run (crashed, or its table was drawn) */
    bool *register_only; /* per suite entry: run once to register its cases only */
    char **skip_case;    /* identities (bench__case_identity) of the cases begun already, sorted */
    size_t n_skip_case;
    char **group_keys; /* grouped mode: the group of every row the collector holds */
    size_t n_group_keys;
    char **drawn_groups; /* grouped mode: the groups whose table was drawn */
    size_t n_drawn_groups;
    double clock_overhead_ns; /* NaN: not measured yet */
    char **provenance;        /* facts already said */
    size_t n_provenance;
    char **client_columns; /* client metric columns already made: name, header */
    size_t n_client_columns;
    char **said; /* the keys of once-per-run disclosures already made */
    size_t n_said;
};

/* Measure the suite's BENCHMARK and WORKLOAD tests, reporting through `sink`; `resume` (NULL in
 * a fresh run) says what earlier workers did. Ends with the done event. */
BENCH__HIDDEN void bench__measure_suite(const struct bench__config *cfg,
                                        const struct bench__suite *suite,
                                        const struct bench__sink *sink,
                                        const struct bench__resume *resume);

/* --bench-serve: list the suite's BENCHMARK cells on stdout, then calibrate a cell or take one
 * sample of it per command read from stdin, until "quit" or the end of input (serve.c;
 * docs/reference/cli.md, "The served measuring mode"). What the bodies print goes to stderr.
 * Returns the exit status. */
BENCH__HIDDEN int bench__serve(const struct bench__config *cfg, const struct bench__suite *suite);

#endif /* BENCH_BENCH_MEASURING_RUN_H */
