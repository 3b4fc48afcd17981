/* SPDX-License-Identifier: MIT */
/* compare.h: declarations shared by the files of `libbench compare`, listed from the bottom of the
 * folder up (a file calls only the files listed above it): the documents (doc.c), their readers
 * (bench_json.c, gbench.c, files.c), the cells (cells.c), the engine's calls (engine.c), one
 * subject's run (exec.c), the subjects' provenance (provenance.c) and the runs (runs.c), the paired
 * mode's live subjects (live.c) and its rounds (paired.c, with paired.h and paired_report.c), the
 * report (report.c), the command (cmd.c). */
#ifndef LIBBENCH_TOOLS_COMPARE_H
#define LIBBENCH_TOOLS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "stats/compare.h"

#define COMPARE_ERROR_MAX 512

/* ---- doc.c: the documents, as the readers give them --------------------------------------- */

struct compare_label {
    char *key;
    char *value;
};

/* One metric of a row ("allocs": 3.0): NaN when the document says null. */
struct compare_metric {
    char *name;
    double value;
};

/* One row of a document: the cell it measures and its value for that run. */
struct compare_row {
    char *name;                   /* the row name: the engine's scenario */
    struct compare_label *labels; /* sorted by key (byte order) */
    size_t n_labels;
    char *operation;  /* labels as "k=v,k2=v2" in key order; "" when none */
    char *key;        /* identity: name and labels, length-prefixed (unambiguous) */
    double median_ns; /* > 0 and finite when measured; NaN otherwise */
    char *skip;       /* NULL when measured; else why not (the row's error, or null medianNs) */
    struct compare_metric *metrics; /* the row's "metrics" (--bench-json; none from Google
                                       Benchmark), for compare --metric */
    size_t n_metrics;
};

struct compare_doc {
    struct compare_row *rows; /* in document order; no two with the same key */
    size_t n_rows;
};

void compare_doc_free(struct compare_doc *doc);
void compare_docs_free(struct compare_doc *docs, size_t n); /* each document, then the array */
/* Fill r->operation and r->key from r->name and r->labels (sorted by key). */
void compare_row_keys(struct compare_row *r);

/* ---- bench_json.c: one --bench-json document (schema 2), validated ------------------------ */

struct json_t;

/* Parse and validate one document held in memory (len bytes, need not be NUL-terminated).
 * On failure returns -1 and writes one line "FIELD: problem" (or "line L column C: ...")
 * into err, with control characters replaced by '?'; *doc is then empty. */
int compare_doc_parse(const char *data, size_t len, struct compare_doc *doc, char *err,
                      size_t err_size);
/* The same from a parsed root (which stays the caller's). */
int compare_doc_from_root(const struct json_t *root, struct compare_doc *doc, char *err,
                          size_t err_size);
/* Read the file at path and parse it; a read failure is reported as "cannot read: ...". */
int compare_doc_load(const char *path, struct compare_doc *doc, char *err, size_t err_size);

/* ---- gbench.c: one Google Benchmark JSON document, as runs -------------------------------- */

#define COMPARE_GBENCH_REPETITIONS_MAX 1000 /* repetitions of one benchmark in one file */

/* A Google Benchmark document: an object with "context" or "benchmarks" and no "schema". */
bool compare_gbench_is(const struct json_t *root);
/* The text parsed again with Google Benchmark's bare NaN, Infinity and -Infinity (not JSON)
 * read as null; the root only when it is then a Google Benchmark document, else NULL. */
struct json_t *compare_gbench_load_lenient(const char *data, size_t len);
/* Its runs: run r holds every benchmark's repetition r (repetition_index r), one row per cell
 * in every run, a skip with its reason where the repetition gave no value. The rules (names,
 * units, errors, aggregates) are in docs/reference/cli.md. -1 with "FIELD: problem" in err. */
int compare_gbench_runs(const struct json_t *root, struct compare_doc **docs, size_t *n_docs,
                        char *err, size_t err_size);

/* ---- files.c: file mode's documents of either kind, as runs ------------------------------- */

/* One document of either kind, recognised by its content. A --bench-json document is one run
 * (*n_docs = 1); Google Benchmark JSON is one run per repetition (gbench.c). On success *docs is
 * a malloc'd array of *n_docs documents (compare_docs_free); on failure -1, one line in err as
 * compare_doc_parse writes it, *docs NULL and *n_docs 0. */
int compare_doc_parse_runs(const char *data, size_t len, struct compare_doc **docs, size_t *n_docs,
                           char *err, size_t err_size);
int compare_doc_load_runs(const char *path, struct compare_doc **docs, size_t *n_docs, char *err,
                          size_t err_size);

/* ---- cells.c: the subjects, the options, the state and the cells -------------------------- */

enum { SUBJ_BASELINE, SUBJ_CANDIDATE, SUBJ_AA, N_SUBJECTS };
extern const char *const compare_subject_names[N_SUBJECTS]; /* baseline, candidate, aa */

/* One cell across every subject and run: values[s][r] (NaN when absent), skips[s][r] the
 * reason when a run gave no value (NULL when it did). Index r holds run r + 1: runs are
 * numbered from 1 for the user and for the engine. */
struct compare_cell {
    const struct compare_row *row; /* identity (name, labels, operation) from its first row */
    size_t first_subject, first_run;
    bool present[N_SUBJECTS]; /* some run's document of the subject has a row for it */
    double *values[N_SUBJECTS];
    char **skips[N_SUBJECTS];
};

enum compare_mode { COMPARE_MODE_AUTO, COMPARE_MODE_RUNS, COMPARE_MODE_PAIRED };

struct compare_options {
    enum compare_mode mode;   /* --mode: binaries paired when they serve (auto), or as said */
    double budget_s;          /* --budget: the paired mode's wall time for measuring */
    unsigned max_rounds;      /* --max-rounds: the paired mode's round cap */
    bool fresh;               /* --processes=round: new subjects for every round (paired) */
    bool duet;                /* --duet: a round's pairs timed at once on two CPUs (paired) */
    unsigned runs;            /* binary mode: runs per subject (with runs_auto: the first runs) */
    bool runs_auto;           /* --runs=auto[:MAX]: more runs until every floor is under detect */
    unsigned runs_max;        /* --runs=auto: the most runs per subject */
    double detect;            /* --detect as a fraction (0.10) */
    uint64_t seed;            /* the engine's global_seed */
    double q;                 /* BH false discovery rate */
    double min_delta_ns;      /* absolute materiality */
    const char *json_path;    /* NULL = no --json */
    const char *junit_path;   /* NULL = no --junit */
    const char *summary_path; /* NULL = no --summary */
    bool binary_mode;         /* the tool runs the subjects: binaries, or --commands */
    bool commands_mode;       /* --commands: each run is one process of a command, its wall time */
    const char *bin[2];       /* baseline, candidate (binary mode) */
    const char *commands[2];  /* baseline, candidate (--commands), as given */
    char **command_argv[2];   /* their words (--commands, once split) */
    bool shell;               /* --commands: each through /bin/sh -c */
    int64_t timeout_ns;       /* --commands: --timeout (0: none) */
    char **args;              /* passed to every invocation (after --) */
    size_t n_args;
    char **files[N_SUBJECTS]; /* file mode: the files given; once loaded, the file of each run */
    size_t n_files[N_SUBJECTS];
    const char *metric; /* --metric: the row metric compared instead of medianNs; NULL: time */
    bool metric_exact;  /* --metric names an exact count (allocs, frees, alloc-bytes): floor 0 */
    /* --metric=A,B: two channels judged on the same runs (channels.c), each "time" or a metric
     * name; metric/metric_exact then name the channel that decides --runs=auto (time when it
     * is one). n_channels is 0 for one --metric. */
    char *channel_list; /* the --metric value, split in place */
    const char *channels[2];
    size_t n_channels;
    char metrics_arg[320]; /* binary mode: the --metrics=... each run gets ("" for none) */
    double global_floor;   /* --global-noise-floor[=PCT]: 0 none, a fraction, or
                              BENCH__CMP_GLOBAL_FLOOR_WORST (the worst cell's A/A floor) */
};

/* cells.c: whether a metric is an exact count (integer counts that repeat exactly: allocs,
 * frees, alloc-bytes), judged by bench__cmp_exact_counts with a floor of 0. */
bool compare_metric_is_exact(const char *name);
/* The channel k of --metric=A,B as the one metric of a comparison (NULL for time). */
void compare_select_channel(struct compare_options *o, size_t k);

/* The cell of --commands: each run of a subject is one row of this name, its wall time. */
#define COMPARE_COMMAND_CELL "process wall time"

struct tool_program;

/* What compare knows of one subject besides its values (provenance.c): each NULL or "" when
 * unknown, with its *_why. */
struct compare_subject_facts {
    char sha256[65]; /* of the executable file; "" when unknown */
    char *sha256_why;
    char *version; /* the libbench version it reports */
    char *version_why;
    char *rusage_why; /* why a run has no rusage */
};

/* The state of one comparison: the options, every run's document, the cells. */
struct compare_state {
    struct compare_options opts;
    struct tool_program *programs; /* baseline, candidate (the aa runs the first): found once */
    size_t n_runs[N_SUBJECTS];
    struct compare_doc *docs[N_SUBJECTS]; /* per run; empty when the run failed */
    char **run_fail[N_SUBJECTS];          /* per run: why it gave nothing, or NULL */
    size_t *schedule;                     /* binary mode: runs × N_SUBJECTS */
    size_t runs_cap;                      /* binary mode: the runs the arrays above hold */
    const char *auto_stop;                /* --runs=auto: why it stopped; NULL otherwise */
    char *tmpdir;
    struct compare_cell *cells;
    size_t n_cells, cap_cells;
    size_t *slots; /* open-addressing hash of cell keys: index + 1, 0 = empty */
    size_t n_slots;
    struct compare_subject_facts facts[N_SUBJECTS];
    double *ru[N_SUBJECTS]; /* binary mode: per run, TOOL_RU_N values (common/rusage.h); NaN:
                               not measured */
};

/* files.c: file mode: each subject's files read in order, a file's runs appended (a Google
 * Benchmark file gives one per repetition); then n_runs, docs, run_fail and opts.files (the file
 * of each run) are indexed by run. -1 with "FILE: problem" in err. */
int compare_load_files(struct compare_state *st, char *err, size_t err_size);
/* Group every document's rows (runs 1..n_runs[s]) into cells; a cell without a row in a document
 * gets a skip for that run. */
void compare_assemble(struct compare_state *st);
/* Free the cells (the documents stay). */
void compare_cells_free(struct compare_state *st);
/* Free subject s's first n runs (their documents and reasons), its arrays, its file list and its
 * provenance (facts and rusage). */
void compare_subject_free(struct compare_state *st, size_t s, size_t n);

/* ---- engine.c: the comparison engine's calls (lib/stats/compare.h) ------------------------ */

struct bench__cmp_params;
struct bench__cmp_cell_out;
struct bench__cmp_result;

/* The engine's parameters from the options. */
void compare_engine_params(const struct compare_options *o, struct bench__cmp_params *params);
/* After `runs` runs of --runs=auto, whether to run more (the engine's stopping rule on the cells
 * of those runs); `pending` the cells that still need runs, `usable` the cells with values in
 * every arm (the ones the rule waits for). -1 with err when the engine refuses a cell. */
int compare_auto_more(struct compare_state *st, size_t runs, bool *more, size_t *pending,
                      size_t *usable, char *err, size_t err_size);
/* The comparison of st's cells (assembled): out[n_cells] and the result. -1 with err when the
 * engine refuses a cell. */
int compare_analyse(struct compare_state *st, const struct bench__cmp_params *params,
                    struct bench__cmp_cell_out *out, struct bench__cmp_result *result, char *err,
                    size_t err_size);

/* ---- exec.c: one subject invocation ------------------------------------------------------ */

/* Run prog (its path found, argv[0] as given) through common/spawn.c: its own process group,
 * stdin from /dev/null, stdout and stderr to log_path, a blocking wait, then what is left in its
 * group killed. Returns its exit status (0 = success), or -1 when it was killed by a signal or
 * could not be started; when not 0, `why` holds the reason ("exited with status 2: <last log
 * line>", "killed by SIGSEGV: Segmentation fault"). A SIGINT, SIGTERM or SIGHUP to this process
 * kills the child's group, runs the interrupt cleanup and is re-raised (common/interrupt.h).
 * ru (may be NULL) gets wait4's rusage of the child, or ru_utime.tv_usec -1 when it was not
 * waited for (never started). */
int compare_exec(struct tool_program *prog, const char *log_path, struct rusage *ru, char *why,
                 size_t why_size);

/* ---- provenance.c: each subject's SHA-256, libbench version and page cache; each run's rusage */

/* Every subject's facts (binary mode and --commands: after the programs are found and, for
 * binaries, the temporary directory made, as `BIN --version` runs there; file mode: the reasons
 * they are unknown). */
void compare_provenance_gather(struct compare_state *st);
/* The paired mode's subject run from bin (c: 0 baseline, 1 candidate, 2 the control): its file's
 * SHA-256 and `BIN --version` (its log in tmpdir) into *f; its keys into the subject's --json
 * object j (the page cache and the rusage null with their reasons); freeing *f. */
void compare_provenance_paired(const struct tool_program *bin, const char *tmpdir, size_t c,
                               struct compare_subject_facts *f);
void compare_provenance_paired_json(struct json_t *j, const struct compare_subject_facts *f);
void compare_provenance_facts_free(struct compare_subject_facts *f);
/* Run r of subject s: its rusage (NULL: not measured). */
void compare_provenance_run(struct compare_state *st, size_t s, size_t r, const struct rusage *ru);
/* Subject s's object in the --json document (its binary, command or files, then the keys above,
 * null with a reason where unknown), of n_runs runs. */
struct json_t *compare_subject_json(const struct compare_state *st, size_t s, size_t n_runs);
/* The text header's line of the subjects' hashes and versions (binary mode and --commands). */
void compare_provenance_text(FILE *out, const struct compare_state *st);

/* ---- runs.c: binary mode's and --commands' runs ------------------------------------------ */

/* Run the subjects in the schedule (binary mode), with --runs=auto until compare_auto_more says
 * stop; -1 with err. */
int compare_run_binaries(struct compare_state *st, char *err, size_t err_size);

/* ---- live.c: one live subject of the paired mode (`BIN --bench --bench-serve`) ------------ */

struct compare_live {
    char log_path[4096]; /* its stderr (set by the caller) */
    bool up;
    pid_t pid;
    int fd; /* its stdin and stdout: one socket */
    char buf[16384];
    size_t len;
    char line[8192];     /* the last line read */
    char **names, **ops; /* its listing: the cells' names and operations */
    size_t n_cells, cap, cap_ops;
};

/* Start prog (argv ending in --bench --bench-serve ...) as a live child of *group and read its
 * listing, waiting at most timeout_ns. 0; 1 when it does not speak the protocol (an older
 * libbench, or no libbench binary: `why` says what it did); -1 on another failure (why). */
int compare_live_start(struct compare_live *l, struct tool_program *prog, int64_t timeout_ns,
                       pid_t *group, char *why, size_t size);
/* Send one command line ("sample\t3\t1024\n") and read its answer: 0 with *count (calibrate)
 * or *ns (sample); 1 when the subject answered an error (the body failed or skipped: why);
 * -1 when it died or did not answer in timeout_ns (it is ended: why says how). */
int compare_live_call(struct compare_live *l, const char *command, int64_t timeout_ns,
                      uint64_t *count, double *ns, char *why, size_t size);
/* The two halves of compare_live_call, for commands to two subjects at once (--duet): send (0,
 * or -1 with the subject ended and why), then the answer as above, with *late_ns the lateness
 * a duet sample reports (0 when it reports none). */
int compare_live_send(struct compare_live *l, const char *command, char *why, size_t size);
int compare_live_answer(struct compare_live *l, int64_t timeout_ns, uint64_t *count, double *ns,
                        int64_t *late_ns, char *why, size_t size);
/* End it (quit: ask it to exit first); why (may be NULL) gets how it ended. */
void compare_live_stop(struct compare_live *l, bool quit, char *why, size_t size);
void compare_live_cells_free(struct compare_live *l);

/* ---- paired.c: the paired mode's rounds and looks (lib/stats/paired.h) ------------------- */

/* The paired mode on st->opts' binaries: 0 with *status the exit status (the report printed);
 * 1 when a binary does not serve and the mode is not forced (*fallback_why says which and why:
 * the run-level mode follows); -1 with err. */
int compare_run_paired(struct compare_state *st, int *status, char *fallback_why, size_t why_size,
                       char *err, size_t err_size);

/* ---- report.c: the table, the verdict line and the --json document ------------- */

struct compare_report {
    const struct compare_options *opts;
    const struct bench__cmp_params *params;
    const struct compare_cell *cells;
    size_t n_cells;
    const struct bench__cmp_cell_out *out; /* n_cells records */
    const struct bench__cmp_result *result;
    size_t n_runs[N_SUBJECTS];
    char **run_fail[N_SUBJECTS]; /* per run: why the whole run gave nothing, or NULL */
    const size_t *schedule;      /* binary mode: n_runs × N_SUBJECTS subject indices */
    const char *auto_stop;       /* --runs=auto: why it stopped ("detect_reached" or
                                    "runs_max_reached"); NULL otherwise */
    const char *const *warnings; /* n_warnings lines, each printed as "warning: ..." */
    size_t n_warnings;
    const struct compare_state *state; /* the subjects' provenance (provenance.c) */
};

void compare_report_text(FILE *out, const struct compare_report *rep);
/* A cell's state as the table shows it ("CLAIMED regression"), and its reason column (the
 * engine's reason, the runs needed, the arms it is missing from, its skipped runs): malloc'd. */
char *compare_cell_state(const struct bench__cmp_cell_out *o);
char *compare_cell_reason(const struct compare_report *rep, size_t i);
/* Write the --json document atomically; on failure -1 and one line in err. */
int compare_report_json(const struct compare_report *rep, const char *path, char *err,
                        size_t err_size);
struct json_t;
/* The --json document of rep (a new reference). */
struct json_t *compare_report_document(const struct compare_report *rep);

/* ---- cmd.c: one judgement of the runs (the cells of the metric st->opts selects) ---------- */

struct compare_judged {
    struct bench__cmp_params params;
    struct bench__cmp_result result;
    struct bench__cmp_cell_out *out; /* rep.n_cells records; freed by compare_judged_free */
    char bh_warning[400];
    const char *warnings[2];
    struct compare_report rep; /* its cells are st's: valid until the next compare_judge */
};

/* Assemble st's cells for the metric st->opts selects and judge them: j filled (its warnings
 * from mode_note and Benjamini-Hochberg's reach). 0, or -1 with err. j must not move after. */
int compare_judge(struct compare_state *st, const char *mode_note, struct compare_judged *j,
                  char *err, size_t err_size);
void compare_judged_free(struct compare_judged *j);

/* ---- channels.c: --metric=A,B, two channels judged on the same runs ---------------------- */

/* Judge st's runs once per channel, print each channel's report and the table of both, write
 * --json (both channels' documents and the combined cells); the exit status (a claimed
 * regression in either channel 1, else anything unmeasured 2, else 0). */
int compare_channels(struct compare_state *st, const char *mode_note);

/* ---- ci.c: the verdicts for CI: --junit and --summary ----------------------------------- */

/* --junit: every cell a test case (a claimed regression a failure with its delta, CI and floor;
 * UNMEASURED, or a regression not confirmed, a skip with its reason; the rest a pass), and one
 * case for the verdict (REGRESSION a failure, UNMEASURED an error); written atomically. -1 with
 * one line in err. */
int compare_report_junit(const struct compare_report *rep, const char *path, char *err,
                         size_t err_size);
/* --summary: the verdict, the counts and the cells that need a look first, as GitHub-flavoured
 * Markdown appended to path. -1 with one line in err. */
int compare_report_summary(const struct compare_report *rep, const char *path, char *err,
                           size_t err_size);

/* ---- cmd.c: the command: options, the order of its steps, its exit status ---------------- */

int compare_main(int argc, char **argv);
void compare_usage(FILE *out);

#endif /* LIBBENCH_TOOLS_COMPARE_H */
