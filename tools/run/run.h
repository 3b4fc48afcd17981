/* SPDX-License-Identifier: MIT */
/* run_tool.h: declarations shared by the files of `libbench run` and by `libbench compare
 * --commands`: the word splitting of a command, one process run and timed, the statistics of a
 * command's runs, the command's state, its table and its --json document. */
#ifndef LIBBENCH_RUN_TOOL_H
#define LIBBENCH_RUN_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "stats/compare.h" /* struct bench__summary: the one median of libbench */
#include "workload/cache_regime.h"

#define RUN_ERROR_MAX 512

/* ---- run_words.c: a command line split into words, without a shell --------------------- */

/* Split cmd into words the way a POSIX shell splits the words of a simple command (blanks
 * separate words; single quotes keep everything; double quotes keep everything but a backslash
 * before $ ` " \ or a newline; a backslash outside quotes keeps the next character; a
 * backslash-newline is removed), with no expansion at all. Shell syntax whose meaning a shell
 * would give it (an operator, an expansion, a wildcard, a comment, a leading assignment) is
 * refused rather than passed on as a word: docs/reference/cli.md lists it. On success 0, with
 * *words a NULL-terminated array of *n_words malloc'd words (run_words_free); on failure -1, with
 * one line in err (no trailing period), *words NULL. */
int run_split_words(const char *cmd, char ***words, size_t *n_words, char *err, size_t err_size);
void run_words_free(char **words);

/* ---- run_proc.c: one process, spawned, waited for, timed ------------------------------- */

enum run_output { RUN_OUTPUT_NULL, RUN_OUTPUT_PIPE, RUN_OUTPUT_INHERIT };
extern const char *const run_output_names[3]; /* "null", "pipe", "inherit" */

#define RUN_TAIL_MAX 4096 /* the bytes of stderr kept for a failure message (--output=pipe) */

/* A program to run: its words, and where argv[0] was found (looked up on PATH once). */
struct run_program {
    char **argv; /* NULL-terminated; argv[0] as given */
    char *path;  /* the file run; NULL until found */
};

enum run_outcome {
    RUN_COMPLETED,      /* exited with status 0 */
    RUN_EXITED,         /* exited with another status */
    RUN_SIGNALED,       /* killed by a signal (not ours) */
    RUN_TIMED_OUT,      /* killed by us at the deadline, with its process group */
    RUN_CANNOT_START,   /* not found, not executable, posix_spawn failed */
    RUN_HARNESS_FAILED, /* a call of the harness failed (pipe2, pidfd_open, wait4) */
};

/* What one run gave. wall_ns and ru are meaningful for RUN_COMPLETED (and RUN_EXITED,
 * RUN_SIGNALED); error is the errno of RUN_CANNOT_START and RUN_HARNESS_FAILED. */
struct run_sample {
    enum run_outcome outcome;
    int status, signal, error;
    bool core_dumped;
    const char *failed_call; /* RUN_HARNESS_FAILED: "pipe2", "pidfd_open", "wait4", ... */
    int64_t wall_ns;         /* CLOCK_MONOTONIC: just before posix_spawn to wait4's return */
    struct rusage ru;        /* wait4's, of the process and its waited-for descendants */
    char tail[RUN_TAIL_MAX]; /* --output=pipe: the last bytes of stderr (not NUL-terminated) */
    size_t tail_len;
    bool tail_cut;  /* earlier bytes of stderr were dropped */
    bool pipe_held; /* a process outside the group kept a pipe open; reading stopped */
};

struct run_exec_params {
    enum run_output output;
    int64_t timeout_ns; /* 0: none */
};

/* Run prog once: posix_spawn into a new process group (stdin /dev/null, stdout and stderr by
 * params->output), a blocking wait (wait4; with a timeout or pipes, ppoll on a pidfd whose
 * timeout is the time left to the deadline), then SIGKILL to whatever is left in the group. A
 * SIGINT, SIGTERM or SIGHUP to this process kills the running group, runs the interrupt cleanup
 * and is re-raised once the child is reaped. Never fails as a call: *out says how the run went. */
void run_proc_exec(struct run_program *prog, const struct run_exec_params *params,
                   struct run_sample *out);
/* How a run that did not complete ended, without the run number: "exited with status 1",
 * "was killed by SIGSEGV (Segmentation fault)", "timed out after 5 s", "cannot run 'foo': No such
 * file or directory". */
void run_sample_describe(const struct run_sample *s, const struct run_program *prog,
                         int64_t timeout_ns, char *buf, size_t size);
/* The stderr tail as text: its last lines (at most max_lines), control characters but newlines
 * and tabs as '?', invalid UTF-8 repaired; malloc'd, "" when there is none. */
char *run_sample_tail(const struct run_sample *s, size_t max_lines);
/* Look argv[0] up on PATH (as execvp would, without running it) and keep the file in prog->path;
 * 0, or an errno (ENOENT, EACCES). A name with a '/' is taken as it is, once it is known to be an
 * executable regular file. */
int run_program_find(struct run_program *prog);
void run_program_free(struct run_program *prog);

/* ---- run_stats.c: the numbers of one command's runs ------------------------------------ */

/* The rusage fields of a run, in this order everywhere (table, JSON). */
enum run_ru_field {
    RUN_RU_USER,    /* user CPU, ns */
    RUN_RU_SYS,     /* system CPU, ns */
    RUN_RU_MAXRSS,  /* max resident set, bytes */
    RUN_RU_MINFLT,  /* minor page faults */
    RUN_RU_MAJFLT,  /* major page faults */
    RUN_RU_INBLOCK, /* block input operations */
    RUN_RU_OUBLOCK, /* block output operations */
    RUN_RU_NVCSW,   /* voluntary context switches */
    RUN_RU_NIVCSW,  /* involuntary context switches */
    RUN_RU_N
};

enum run_unit { RUN_UNIT_NS, RUN_UNIT_BYTES, RUN_UNIT_COUNT };

struct run_ru_desc {
    const char *name;   /* the JSON key: "user-ns", "majflt" */
    const char *header; /* the table header: "user", "maj-flt" */
    enum run_unit unit;
    const char *meaning; /* for the JSON columns */
};
extern const struct run_ru_desc run_ru_fields[RUN_RU_N];

/* Whether this OS reports the field in wait4's rusage (Linux: all of them). */
bool run_ru_reported(enum run_ru_field f);
/* The fields of one rusage in their units; NaN where the OS does not report the field. */
void run_ru_values(const struct rusage *ru, double values[RUN_RU_N]);
/* The summary (median: the middle value, or the mean of the middle two; MAD; min; max) of n
 * values; NaN everywhere when n is 0 or any value is NaN. values is not modified. */
struct bench__summary run_summarize(const double *values, size_t n);

/* ---- run_cmd.c: the state of `libbench run` -------------------------------------------- */

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
    struct run_sample *sample; /* how it ended (with the stderr tail) */
};

enum run_kind { RUN_KIND_COMMAND, RUN_KIND_SHELL_STARTUP };

struct run_command {
    char *name; /* --name, or the command as given */
    char *text; /* the command as given (-c), or its words shell-quoted (--) */
    enum run_kind kind;
    struct run_program prog;
    struct run_program prepare; /* argv NULL: no --prepare */
    char *prepare_text;
    size_t done;                 /* timed runs completed */
    double *wall_ns;             /* [runs] */
    double *ru;                  /* [runs][RUN_RU_N] */
    struct run_stamp *stamps;    /* [runs], NULL without --cold/--warm */
    struct run_failure *failure; /* NULL while it has not failed */
};

struct run_state {
    /* the options */
    size_t runs, warmup;
    uint64_t seed;
    int64_t timeout_ns;
    double timeout_s;
    enum run_output output;
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

/* run_stats.c: a command's page-cache regime over its timed runs: how many reached the
 * requested regime (*reached, of c->done), and the first note of a run that did not (or, when
 * all did, the first note at all; NULL when none). */
void run_regime_summary(const struct run_state *st, const struct run_command *c, size_t *reached,
                        const char **note);

/* ---- run_report.c: the tables and the failures, as the test binaries print tables -------- */

void run_report_text(FILE *out, const struct run_state *st);

/* ---- run_json.c: the --json document ---------------------------------------------------- */

/* Write the document atomically; on failure -1 and one line in err. */
int run_report_json(const struct run_state *st, const char *path, char *err, size_t err_size);

int run_main(int argc, char **argv);
void run_usage(FILE *out);

#endif /* LIBBENCH_RUN_TOOL_H */
