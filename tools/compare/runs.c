/* SPDX-License-Identifier: MIT */
/* runs.c: owns the runs of binary mode and of --commands: each subject run once per run
 * in the interleaved schedule, its --bench-json document kept (or, for a command, its wall time
 * through common/spawn.c as a one-row document), or why the run gave none; the runs --runs=auto
 * adds while the engine's stopping rule asks for them (each run's rusage and the subjects'
 * provenance kept by provenance.c), and the temporary directory removed on exit or interrupt. No
 * statistics, and no process spawned here for a command. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/compare.h"
#include "compare.h"
#include "common/interrupt.h"
#include "common/spawn.h"
#include "common/tmpdir.h"
#include "util/alloc.h"
#include "util/text.h"

static void remove_tmpdir(void *data)
{
    struct compare_state *st = data;
    if (!st->tmpdir)
        return;
    for (size_t s = 0; s < N_SUBJECTS; s++)
        for (size_t r = 0; r < st->runs_cap; r++) {
            char path[4096];
            static const char *const ext[] = {"json", "log"};
            for (size_t k = 0; k < 2; k++) {
                bench__fmt(path, sizeof path, "%s/%s-%zu.%s", st->tmpdir, compare_subject_names[s],
                           r + 1, ext[k]);
                unlink(path);
            }
        }
    for (size_t c = 0; c < 2; c++) { /* provenance.c's `BIN --version` logs */
        char path[4096];
        bench__fmt(path, sizeof path, "%s/version-%zu.log", st->tmpdir, c);
        unlink(path);
    }
    rmdir(st->tmpdir);
}

static bool doc_has_error_row(const struct compare_doc *d)
{
    for (size_t i = 0; i < d->n_rows; i++)
        if (d->rows[i].skip && isnan(d->rows[i].median_ns))
            return true;
    return false;
}

/* --commands: one process of the subject's command, its wall time as a one-row document (the
 * cell COMPARE_COMMAND_CELL), or why the run gave none. */
static void run_command(struct compare_state *st, size_t s, size_t r, struct tool_child *sample)
{
    struct tool_program *prog = &st->programs[s == SUBJ_CANDIDATE ? 1 : 0];
    struct tool_spawn how = {.output = TOOL_OUTPUT_NULL, .timeout_ns = st->opts.timeout_ns};
    tool_spawn(prog, &how, sample);
    bool waited = sample->outcome == TOOL_COMPLETED || sample->outcome == TOOL_EXITED ||
                  sample->outcome == TOOL_SIGNALED;
    compare_provenance_run(st, s, r, waited ? &sample->ru : NULL);
    if (sample->outcome != TOOL_COMPLETED) {
        char why[COMPARE_ERROR_MAX];
        tool_child_describe(sample, prog, st->opts.timeout_ns, why, sizeof why);
        st->run_fail[s][r] = bench__xstrdup(why);
        fprintf(stderr, "libbench compare: %s run %zu gave no values: %s\n",
                compare_subject_names[s], r + 1, why);
        return;
    }
    struct compare_doc *d = &st->docs[s][r];
    d->rows = bench__xcalloc(1, sizeof *d->rows);
    d->n_rows = 1;
    d->rows[0].name = bench__xstrdup(COMPARE_COMMAND_CELL);
    d->rows[0].median_ns = (double)sample->wall_ns;
    compare_row_keys(&d->rows[0]);
}

/* One invocation: the document on success; otherwise the reason in run_fail. An exit
 * status of 1 with error rows in a readable document is a completed run whose failed rows
 * are skips (libbench exits 1 when a benchmark errors). */
static void run_subject(struct compare_state *st, size_t s, size_t r)
{
    char json[4096], log[4096], opt[4200], why[COMPARE_ERROR_MAX + 64], derr[COMPARE_ERROR_MAX];
    bench__fmt(json, sizeof json, "%s/%s-%zu.json", st->tmpdir, compare_subject_names[s], r + 1);
    bench__fmt(log, sizeof log, "%s/%s-%zu.log", st->tmpdir, compare_subject_names[s], r + 1);
    bench__fmt(opt, sizeof opt, "--bench-json=%s", json);
    /* --metric: the run selects the metric unless ARGS choose the metrics themselves */
    char metrics[320] = "";
    bool chosen = false;
    for (size_t a = 0; a < st->opts.n_args; a++)
        chosen |= strncmp(st->opts.args[a], "--metrics", 9) == 0;
    if (st->opts.metrics_arg[0] && !st->opts.commands_mode && !chosen)
        bench__fmt(metrics, sizeof metrics, "%s", st->opts.metrics_arg);
    size_t n = 3 + st->opts.n_args + (metrics[0] != '\0');
    const struct tool_program *bin = &st->programs[s == SUBJ_CANDIDATE ? 1 : 0];
    char **argv = bench__xcalloc(n + 1, sizeof *argv);
    argv[0] = bin->argv[0];
    argv[1] = "--bench";
    argv[2] = opt;
    for (size_t a = 0; a < st->opts.n_args; a++)
        argv[3 + a] = st->opts.args[a];
    if (metrics[0])
        argv[3 + st->opts.n_args] = metrics;
    struct tool_program run = {.argv = argv, .path = bin->path}; /* borrowed: not freed */
    why[0] = '\0';
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    int status = compare_exec(&run, log, &ru, why, sizeof why);
    compare_provenance_run(st, s, r, ru.ru_utime.tv_usec < 0 ? NULL : &ru);
    free(argv);
    struct compare_doc *d = &st->docs[s][r];
    if (status == 0 || status == 1) {
        if (compare_doc_load(json, d, derr, sizeof derr) != 0) {
            if (status == 0)
                bench__fmt(why, sizeof why, "no readable --bench-json document: %s", derr);
        } else if (status == 1 && !doc_has_error_row(d)) {
            compare_doc_free(d);
        } else {
            status = 0;
        }
    }
    unlink(json);
    unlink(log);
    if (status != 0) {
        st->run_fail[s][r] = bench__xstrdup(why[0] ? why : "failed");
        fprintf(stderr, "libbench compare: %s run %zu gave no values: %s\n",
                compare_subject_names[s], r + 1, st->run_fail[s][r]);
    }
}

/* Both programs found on PATH before anything runs (a missing one is an error): the commands'
 * (--commands), or the binaries, found once and run with each run's arguments. */
static int find_programs(struct compare_state *st, char *err, size_t err_size)
{
    st->programs = bench__xcalloc(2, sizeof *st->programs);
    /* both handed over first: the programs own (and state_free frees) both argv, also when the
     * first is not found */
    for (size_t c = 0; c < 2; c++) {
        if (st->opts.commands_mode) {
            st->programs[c].argv = st->opts.command_argv[c];
            continue;
        }
        st->programs[c].argv = bench__xcalloc(2, sizeof *st->programs[c].argv);
        st->programs[c].argv[0] = bench__xstrdup(st->opts.bin[c]);
    }
    for (size_t c = 0; c < 2; c++) {
        int e = tool_program_find(&st->programs[c]);
        if (e == 0)
            continue;
        char shown[256];
        bench__sanitize_copy(st->programs[c].argv[0], shown, sizeof shown);
        if (st->opts.commands_mode)
            bench__fmt(err, err_size, "--commands: cannot run '%s': %s", shown, strerror(e));
        else
            bench__fmt(err, err_size, "%s: cannot execute: %s", shown, strerror(e));
        return -1;
    }
    return 0;
}

int compare_run_binaries(struct compare_state *st, char *err, size_t err_size)
{
    if (find_programs(st, err, err_size) != 0)
        return -1;
    struct tool_child *sample = st->opts.commands_mode ? bench__xmalloc(sizeof *sample) : NULL;
    const char *base = tool_tmpdir_base();
    /* named with our pid: a later compare removes it if we are killed (common/tmpdir.h) */
    st->tmpdir = st->opts.commands_mode
                     ? NULL /* commands write none */
                     : bench__xasprintf("%s/libbench-compare.%ld.XXXXXX", base, (long)getpid());
    if (st->tmpdir && !mkdtemp(st->tmpdir)) {
        bench__fmt(err, err_size, "cannot create a temporary directory in %s: %s", base,
                   strerror(errno));
        free(st->tmpdir);
        st->tmpdir = NULL;
        return -1;
    }
    if (st->tmpdir)
        tool_interrupt_on(remove_tmpdir, st);
    compare_provenance_gather(st); /* binaries: `BIN --version` in the temporary directory */

    /* One stream; each run shuffles a fresh copy of the declared subject list. --runs=auto
     * continues the same schedule: its first runs are those of --runs with the same count. */
    struct bench__rng rng = {st->opts.seed ^ bench__fnv1a64("schedule", 8)};
    int rc = 0;
    bool more = true;
    size_t r = 0, usable = 0;
    for (; r < st->runs_cap && more && rc == 0; r++) {
        size_t *order = &st->schedule[r * N_SUBJECTS];
        for (size_t s = 0; s < N_SUBJECTS; s++)
            order[s] = s;
        bench__shuffle(&rng, order, N_SUBJECTS);
        if (st->opts.runs_auto)
            fprintf(stderr, "libbench compare: run %zu (auto, at most %u): %s, %s, %s\n", r + 1,
                    st->opts.runs_max, compare_subject_names[order[0]],
                    compare_subject_names[order[1]], compare_subject_names[order[2]]);
        else
            fprintf(stderr, "libbench compare: run %zu/%u: %s, %s, %s\n", r + 1, st->opts.runs,
                    compare_subject_names[order[0]], compare_subject_names[order[1]],
                    compare_subject_names[order[2]]);
        for (size_t k = 0; k < N_SUBJECTS; k++) {
            if (st->opts.commands_mode)
                run_command(st, order[k], r, sample);
            else
                run_subject(st, order[k], r);
        }
        if (!st->opts.runs_auto || r + 1 < st->opts.runs)
            continue;
        /* The stopping rule sees the baseline and A/A values and the run counts only. */
        size_t pending = 0;
        if (compare_auto_more(st, r + 1, &more, &pending, &usable, err, err_size) != 0) {
            rc = -1;
            r++;
            break;
        }
        if (more && r + 1 < st->runs_cap)
            fprintf(stderr,
                    "libbench compare: auto: after %zu runs, %zu cell%s still need%s runs (an "
                    "A/A floor above %g%% or too few runs)\n",
                    r + 1, pending, pending == 1 ? "" : "s", pending == 1 ? "s" : "",
                    st->opts.detect * 100.0);
    }
    for (size_t s = 0; s < N_SUBJECTS; s++)
        st->n_runs[s] = r; /* the runs done */
    if (st->opts.runs_auto && rc == 0) {
        st->auto_stop = more ? "runs_max_reached" : "detect_reached";
        if (more)
            fprintf(stderr,
                    "libbench compare: auto: stopped at the limit of %zu runs; some cells still "
                    "need runs\n",
                    r);
        else if (usable == 0)
            fprintf(stderr,
                    "libbench compare: auto: stopped after %zu runs: no cell has values in every "
                    "arm, and more runs of the same builds are not expected to give any\n",
                    r);
        else
            fprintf(stderr,
                    "libbench compare: auto: stopped after %zu runs: every cell's A/A floor is "
                    "at most %g%%\n",
                    r, st->opts.detect * 100.0);
    }
    remove_tmpdir(st);
    tool_interrupt_on(NULL, NULL);
    free(sample);
    return rc;
}
