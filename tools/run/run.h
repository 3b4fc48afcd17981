/* SPDX-License-Identifier: MIT */
/* run.h: declarations shared by the files of `libbench run`: the statistics of a command's runs,
 * the command's state, its table and its --json document. Its processes are spawned by
 * common/spawn.c and its commands split by common/words.c. */
#ifndef LIBBENCH_TOOLS_RUN_H
#define LIBBENCH_TOOLS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "common/rusage.h"
#include "common/spawn.h"
#include "stats/compare.h" /* struct bench__summary: the one median of libbench */
#include "workload/cache_regime.h"

#define RUN_ERROR_MAX 512

/* The words of --output, in enum tool_output's order: "null", "pipe", "inherit" (json.c). */
extern const char *const run_output_names[3];

/* ---- stats.c: the numbers of one command's runs ------------------------------------ */

/* The summary (median: the middle value, or the mean of the middle two; MAD; min; max) of n
 * values; NaN everywhere when n is 0 or any value is NaN. values is not modified. */
struct bench__summary run_summarize(const double *values, size_t n);

/* ---- cmd.c: the state of `libbench run` -------------------------------------------- */

struct run_state;
struct run_command;

/* One run's page-cache stamp, kept small (the note only when there is one). */
struct run_stamp {
    enum bench_cache_regime effective;
    double resident_before, resident_after;
    char *note; /* NULL when none */
};

/* Why a command has no numbers. */
struct run_failure {
    char *message;             /* "run 3 exited with status 1" (one line) */
    size_t run;                /* the run (from 1) that failed; 0 for a program never started */
    bool warmup;               /* the run was a warm-up run */
    bool prepare;              /* --prepare failed, not the command */
    struct tool_child *sample; /* how it ended (with the stderr tail) */
};

enum run_kind { RUN_KIND_COMMAND, RUN_KIND_SHELL_STARTUP };

struct run_command {
    char *name; /* --name, or the command as given */
    char *text; /* the command as given (-c), or its words shell-quoted (--) */
    enum run_kind kind;
    struct tool_program prog;
    struct tool_program prepare; /* argv NULL: no --prepare */
    char *prepare_text;
    size_t done;                 /* timed runs completed */
    double *wall_ns;             /* [runs] */
    double *ru;                  /* [runs][TOOL_RU_N] */
    struct run_stamp *stamps;    /* [runs], NULL without --cold/--warm */
    struct run_failure *failure; /* NULL while it has not failed */
};

struct run_state {
    /* the options */
    size_t runs, warmup;
    uint64_t seed;
    int64_t timeout_ns;
    double timeout_s;
    enum tool_output output;
    bool shell;
    enum bench_cache_regime regime; /* BENCH_CACHE_STEADY: no --cold/--warm */
    const char **files;
    size_t n_files;
    const char *json_path;
    /* the commands, in the order given (the shell start-up row last) */
    struct run_command *cmds;
    size_t n_cmds;
    size_t *schedule; /* [runs][n_cmds]: the command indices in the order each run ran them */
    /* This process's peak RSS in bytes (VmHWM) when the runs began and when they ended: a child's
     * max RSS includes what this process had when it was spawned, somewhere in between. */
    int64_t harness_maxrss_start, harness_maxrss;
};

/* stats.c: a command's page-cache regime over its timed runs: how many reached the
 * requested regime (*reached, of c->done), and the first note of a run that did not (or, when
 * all did, the first note at all; NULL when none). */
void run_regime_summary(const struct run_state *st, const struct run_command *c, size_t *reached,
                        const char **note);

/* ---- report.c: the tables and the failures, as the test binaries print tables -------- */

void run_report_text(FILE *out, const struct run_state *st);

/* ---- json.c: the --json document ---------------------------------------------------- */

/* Write the document atomically; on failure -1 and one line in err. */
int run_report_json(const struct run_state *st, const char *path, char *err, size_t err_size);

int run_main(int argc, char **argv);
void run_usage(FILE *out);

#endif /* LIBBENCH_TOOLS_RUN_H */
