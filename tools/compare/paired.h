/* SPDX-License-Identifier: MIT */
/* paired.h: the state of compare's paired mode shared by its driver (paired.c) and its report
 * (paired_report.c): the cells with their rounds, the engine's outputs and the run's facts. */
#ifndef LIBBENCH_TOOLS_COMPARE_PAIRED_H
#define LIBBENCH_TOOLS_COMPARE_PAIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats/paired.h"
#include "compare.h"

/* One cell of the paired mode: its rounds (values in ns per iteration, complete rounds only). */
struct paired_cell {
    char *name, *operation;
    size_t index[N_SUBJECTS]; /* in each subject's listing; SIZE_MAX: not listed */
    uint64_t count;           /* iterations per sample, calibrated on the baseline; 0: not yet */
    double *v[N_SUBJECTS];
    double *v_ab; /* --duet: the baseline's sample beside the control (v[baseline]: beside the
                     candidate); NULL otherwise */
    size_t rounds, cap;
    char *fail; /* why it is UNMEASURED whatever the engine says (a crash, a failed body) */
    long item;  /* its index in the engine's items; -1: never an item */
};

struct paired_run {
    const struct compare_options *opts;
    struct bench__paired_params params;
    struct paired_cell *cells;
    size_t n_cells;
    struct bench__paired_item *items;
    struct bench__paired_out *out, *prev;
    size_t n_items;
    struct bench__paired_result result;
    bool looked;      /* result holds a look */
    const char *stop; /* all_decided | max_rounds | budget | subject_down */
    double wall_s;    /* from the subjects' start to the last sample */
    size_t restarts[N_SUBJECTS];
    size_t processes;    /* the rounds that started fresh subjects (--processes=round) */
    int duet_cpus[2];    /* --duet: the two CPUs */
    size_t duets, late;  /* --duet: pairs timed, and those where a subject began late */
    const char *verdict; /* the engine's, made UNMEASURED by failed cells */
    const char *reason;
    int exit_code;
    const char *const *warnings;
    size_t n_warnings;
    struct compare_subject_facts facts[N_SUBJECTS]; /* provenance.c */
};

/* paired_report.c: the table and verdict (text), and the --json document. */
void paired_report_text(FILE *out, const struct paired_run *run);
int paired_report_json(const struct paired_run *run, const char *path, char *err, size_t err_size);

#endif /* LIBBENCH_TOOLS_COMPARE_PAIRED_H */
