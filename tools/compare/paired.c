/* SPDX-License-Identifier: MIT */
/* paired.c: owns compare's paired mode: three live subjects (baseline, candidate, the baseline
 * again as the A/A control), each cell calibrated once on the baseline, rounds of one sample per
 * subject in the seeded shuffled order of lib/stats/paired.h, the looks of its schedule with
 * rounds added only to undecided cells, the budget, and a subject that dies restarted with its
 * cell made UNMEASURED. The statistics are the engine's; the report is paired_report.c's.
 * Just over 600 lines because the duet's rounds share the subjects' handling of the sequential. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paired.h"
#include "common/interrupt.h"
#include "common/spawn.h"
#include "common/tmpdir.h"
#include "util/affinity.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/text.h"

#define START_TIMEOUT_NS INT64_C(60000000000) /* a subject's listing (runs each body once) */
/* --duet: the two samples of a pair begin this long after the tool sent the two commands, time
 * for both to read it and run the body's untimed setup (a subject still in its setup then
 * begins at once, and the pair counts as late). */
#define DUET_LEAD_NS INT64_C(2000000)

struct paired_driver {
    struct compare_state *st;
    struct paired_run run;
    struct tool_program prog[N_SUBJECTS];
    struct compare_live live[N_SUBJECTS];
    char *down[N_SUBJECTS]; /* a subject that could not be restarted: why */
    pid_t group;
    char *tmpdir;
    int64_t t0, budget_end, timeout_ns;
    struct bench__paired_channel channel; /* "time": ns per iteration */
};

static void remove_files(void *data)
{
    struct paired_driver *d = data;
    for (size_t s = 0; s < N_SUBJECTS; s++)
        unlink(d->live[s].log_path);
    if (d->tmpdir)
        rmdir(d->tmpdir);
}

/* The subject's words: BIN --bench --bench-serve ARGS... (the words are borrowed). */
static void make_program(struct paired_driver *d, size_t s)
{
    const struct compare_options *o = &d->st->opts;
    char **argv = bench__xcalloc(4 + o->n_args, sizeof *argv);
    argv[0] = bench__xstrdup(o->bin[s == SUBJ_CANDIDATE ? 1 : 0]);
    argv[1] = bench__xstrdup("--bench");
    argv[2] = bench__xstrdup("--bench-serve");
    for (size_t a = 0; a < o->n_args; a++)
        argv[3 + a] = bench__xstrdup(o->args[a]);
    d->prog[s].argv = argv;
}

static size_t find_cell(const struct compare_live *l, const char *name, const char *op)
{
    for (size_t i = 0; i < l->n_cells; i++)
        if (!strcmp(l->names[i], name) && !strcmp(l->ops[i], op))
            return i;
    return SIZE_MAX;
}

/* The first reason a cell is not measured is the one it keeps. */
static void cell_fail(struct paired_cell *c, const char *why)
{
    if (!c->fail)
        c->fail = bench__xstrdup(why);
}

/* "not listed by the candidate" (the baseline's and the control's: the baseline binary). */
static void not_listed(struct paired_cell *c, size_t s, const char *when)
{
    char why[160];
    bench__fmt(why, sizeof why, "not listed by the %s%s%s", compare_subject_names[s],
               s == SUBJ_CANDIDATE ? "" : " (the baseline binary)", when);
    cell_fail(c, why);
}

/* The cells: the baseline's listing in its order, then the candidate's cells it lacks. */
static void build_cells(struct paired_driver *d)
{
    struct paired_run *r = &d->run;
    const struct compare_live *b = &d->live[SUBJ_BASELINE], *c = &d->live[SUBJ_CANDIDATE];
    r->cells = bench__xcalloc(b->n_cells + c->n_cells + 1, sizeof *r->cells);
    for (size_t i = 0; i < b->n_cells; i++) {
        struct paired_cell *p = &r->cells[r->n_cells++];
        p->name = bench__xstrdup(b->names[i]);
        p->operation = bench__xstrdup(b->ops[i]);
    }
    for (size_t i = 0; i < c->n_cells; i++) {
        if (find_cell(b, c->names[i], c->ops[i]) != SIZE_MAX)
            continue;
        struct paired_cell *p = &r->cells[r->n_cells++];
        p->name = bench__xstrdup(c->names[i]);
        p->operation = bench__xstrdup(c->ops[i]);
    }
    for (size_t i = 0; i < r->n_cells; i++) {
        r->cells[i].item = -1;
        for (size_t s = 0; s < N_SUBJECTS; s++) {
            r->cells[i].index[s] = find_cell(&d->live[s], r->cells[i].name, r->cells[i].operation);
            if (r->cells[i].index[s] == SIZE_MAX)
                not_listed(&r->cells[i], s, "");
        }
    }
}

/* Subject s died: its cells looked up again in a new process (same binary, same listing). */
static void restart(struct paired_driver *d, size_t s, const char *cell, const char *why)
{
    fprintf(stderr, "libbench compare: the %s died on %s (%s): restarting it\n",
            compare_subject_names[s], cell, why);
    char err[COMPARE_ERROR_MAX];
    d->run.restarts[s]++;
    if (compare_live_start(&d->live[s], &d->prog[s], START_TIMEOUT_NS, &d->group, err,
                           sizeof err) != 0) {
        d->down[s] =
            bench__xasprintf("the %s could not be restarted: %s", compare_subject_names[s], err);
        fprintf(stderr, "libbench compare: %s\n", d->down[s]);
        return;
    }
    for (size_t i = 0; i < d->run.n_cells; i++) {
        struct paired_cell *c = &d->run.cells[i];
        c->index[s] = find_cell(&d->live[s], c->name, c->operation);
        if (c->index[s] == SIZE_MAX)
            not_listed(c, s, " after its restart");
    }
}

/* Fresh processes for the next round, their cells looked up in the new listings: a process's
 * own offset (ASLR, its pages; sum_4k's A/A up to +36% between two processes of one binary)
 * becomes round-to-round noise. All three end, then start in an order shuffled per round: in a
 * fixed order the last started was slower (docs/explanation/statistics.md), a bias. */
static void respawn_all(struct paired_driver *d)
{
    unsigned order[N_SUBJECTS];
    bench__paired_round_order(d->run.params.global_seed, "\x01respawn", "", d->run.processes,
                              order);
    for (size_t s = 0; s < N_SUBJECTS; s++)
        if (!d->down[s])
            compare_live_stop(&d->live[s], true, NULL, 0);
    for (size_t k = 0; k < N_SUBJECTS; k++) {
        size_t s = order[k];
        if (d->down[s])
            continue;
        char err[COMPARE_ERROR_MAX];
        if (compare_live_start(&d->live[s], &d->prog[s], START_TIMEOUT_NS, &d->group, err,
                               sizeof err) != 0) {
            d->down[s] = bench__xasprintf("the %s could not be started again: %s",
                                          compare_subject_names[s], err);
            fprintf(stderr, "libbench compare: %s\n", d->down[s]);
            continue;
        }
        for (size_t i = 0; i < d->run.n_cells; i++) {
            struct paired_cell *c = &d->run.cells[i];
            c->index[s] = find_cell(&d->live[s], c->name, c->operation);
            if (c->index[s] == SIZE_MAX)
                not_listed(c, s, " when started again");
        }
    }
    d->run.processes++;
}

/* Subject s failed cell c (rc 1: it answered an error; -1: it died or hung, and is restarted):
 * the cell is UNMEASURED with why. Always -1. */
static int subject_failed(struct paired_driver *d, size_t s, struct paired_cell *c, int rc,
                          const char *why)
{
    char *full = bench__xasprintf("%s: %s", compare_subject_names[s], why);
    cell_fail(c, full);
    free(full);
    if (rc < 0)
        restart(d, s, c->name, why);
    return -1;
}

/* An answer of subject s (rc, count, ns as compare_live_answer gives them) made a value: 0 with
 * the count (calibrate) or the ns per iteration; otherwise subject_failed. */
static int take_answer(struct paired_driver *d, size_t s, struct paired_cell *c, bool calibrate,
                       int rc, uint64_t count, double ns, char *why, size_t why_size, double *value)
{
    if (rc == 0) {
        *value = calibrate ? (double)count : ns / (double)c->count;
        if (calibrate || (ns > 0 && isfinite(*value)))
            return 0;
        bench__fmt(why, why_size, "a sample of 0 ns at %" PRIu64 " iterations", c->count);
        rc = 1;
    }
    return subject_failed(d, s, c, rc, why);
}

/* One command to subject s for cell c: 0 with the value; otherwise the cell failed (and a
 * subject that died is restarted). */
static int call(struct paired_driver *d, size_t s, struct paired_cell *c, bool calibrate,
                double *value)
{
    if (d->down[s]) {
        cell_fail(c, d->down[s]);
        return -1;
    }
    char cmd[96], why[COMPARE_ERROR_MAX];
    if (calibrate)
        bench__fmt(cmd, sizeof cmd, "calibrate\t%zu\n", c->index[s]);
    else
        bench__fmt(cmd, sizeof cmd, "sample\t%zu\t%" PRIu64 "\n", c->index[s], c->count);
    uint64_t count = 0;
    double ns = NAN;
    int rc = compare_live_call(&d->live[s], cmd, d->timeout_ns, &count, &ns, why, sizeof why);
    return take_answer(d, s, c, calibrate, rc, count, ns, why, sizeof why, value);
}

/* A complete round: v per subject, and (--duet) the baseline's sample beside the control. */
static void push(struct paired_cell *c, const double v[N_SUBJECTS], const double *ab)
{
    if (c->rounds == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        for (size_t s = 0; s < N_SUBJECTS; s++)
            c->v[s] = bench__xrealloc(c->v[s], c->cap * sizeof *c->v[s]);
        if (ab)
            c->v_ab = bench__xrealloc(c->v_ab, c->cap * sizeof *c->v_ab);
    }
    for (size_t s = 0; s < N_SUBJECTS; s++)
        c->v[s][c->rounds] = v[s];
    if (ab)
        c->v_ab[c->rounds] = *ab;
    c->rounds++;
}

/* The answer of subject s to a sample command already sent: 0 with the value per iteration;
 * otherwise the cell failed (and a subject that died is restarted). *late: it began late. */
static int duet_answer(struct paired_driver *d, size_t s, struct paired_cell *c, double *value,
                       bool *late)
{
    char why[COMPARE_ERROR_MAX];
    uint64_t count = 0;
    double ns = NAN;
    int64_t late_ns = 0;
    int rc =
        compare_live_answer(&d->live[s], d->timeout_ns, &count, &ns, &late_ns, why, sizeof why);
    *late = *late || (rc == 0 && late_ns > 0);
    return take_answer(d, s, c, false, rc, count, ns, why, sizeof why, value);
}

/* One pair of a --duet round: the baseline on CPU cpu_b and `partner` on the other, both
 * commands sent before either answer is read, each sample beginning at the same instant. 0
 * with the two values per iteration; otherwise the cell failed. */
static int duet(struct paired_driver *d, struct paired_cell *c, size_t partner, int cpu_b,
                double *vb, double *vp)
{
    const size_t who[2] = {SUBJ_BASELINE, partner};
    const int cpu[2] = {cpu_b,
                        cpu_b == d->run.duet_cpus[0] ? d->run.duet_cpus[1] : d->run.duet_cpus[0]};
    for (size_t k = 0; k < 2; k++)
        if (d->down[who[k]]) {
            cell_fail(c, d->down[who[k]]);
            return -1;
        }
    int64_t at = bench__clock_deadline_ns() + DUET_LEAD_NS;
    bool sent[2] = {false, false};
    for (size_t k = 0; k < 2; k++) {
        char cmd[128], why[COMPARE_ERROR_MAX];
        bench__fmt(cmd, sizeof cmd, "sample\t%zu\t%" PRIu64 "\t%" PRId64 "\t%d\n", c->index[who[k]],
                   c->count, at, cpu[k]);
        if (compare_live_send(&d->live[who[k]], cmd, why, sizeof why) == 0) {
            sent[k] = true;
            continue;
        }
        subject_failed(d, who[k], c, -1, why);
        break;
    }
    double v[2];
    bool late = false;
    int ok = sent[0] && sent[1] ? 0 : -1;
    for (size_t k = 0; k < 2; k++) /* every answer sent for is read, whatever the other's */
        if (sent[k] && duet_answer(d, who[k], c, &v[k], &late) != 0)
            ok = -1;
    if (ok != 0)
        return -1;
    d->run.duets++;
    d->run.late += late;
    *vb = v[0];
    *vp = v[1];
    return 0;
}

/* A --duet round of cell c: the baseline beside the candidate, and the baseline beside the
 * control, the two pairs in the round's shuffled order (the candidate's place against the
 * control's), the baseline on the CPU the shuffle's parity picks, the same in both pairs. */
static void take_duet_round(struct paired_driver *d, struct paired_cell *c)
{
    unsigned order[3];
    bench__paired_round_order(d->run.params.global_seed, c->name, c->operation, c->rounds, order);
    size_t pos[N_SUBJECTS] = {0};
    for (size_t k = 0; k < N_SUBJECTS; k++)
        pos[order[k]] = k;
    unsigned inversions = (order[0] > order[1]) + (order[0] > order[2]) + (order[1] > order[2]);
    int cpu_b = d->run.duet_cpus[inversions % 2];
    double v[N_SUBJECTS], ab = NAN; /* set by the pair with the control */
    size_t first = pos[SUBJ_CANDIDATE] < pos[SUBJ_AA] ? SUBJ_CANDIDATE : SUBJ_AA;
    size_t second = first == SUBJ_CANDIDATE ? SUBJ_AA : SUBJ_CANDIDATE;
    double *b_of[N_SUBJECTS] = {NULL, &v[SUBJ_BASELINE], &ab};
    if (duet(d, c, first, cpu_b, b_of[first], &v[first]) != 0 ||
        duet(d, c, second, cpu_b, b_of[second], &v[second]) != 0)
        return; /* the round is lost with the cell */
    push(c, v, &ab);
}

/* Round c->rounds of cell c: one sample per subject, in the round's shuffled order. */
static void take_round(struct paired_driver *d, struct paired_cell *c)
{
    unsigned order[3];
    bench__paired_round_order(d->run.params.global_seed, c->name, c->operation, c->rounds, order);
    double v[N_SUBJECTS];
    for (size_t k = 0; k < N_SUBJECTS; k++)
        if (call(d, order[k], c, false, &v[order[k]]) != 0)
            return; /* the round is lost with the cell */
    push(c, v, NULL);
}

static bool over_budget(const struct paired_driver *d)
{
    return bench__clock_deadline_ns() >= d->budget_end;
}

static void make_items(struct paired_driver *d, const struct bench__paired_channel *channel)
{
    struct paired_run *r = &d->run;
    r->items = bench__xcalloc(r->n_cells + 1, sizeof *r->items);
    for (size_t i = 0; i < r->n_cells; i++) {
        struct paired_cell *c = &r->cells[i];
        if (c->fail || c->rounds == 0)
            continue;
        c->item = (long)r->n_items;
        r->items[r->n_items++] = (struct bench__paired_item){
            .scenario = c->name, .operation = c->operation, .channel = channel};
    }
    r->out = bench__xcalloc(r->n_items + 1, sizeof *r->out);
    r->prev = bench__xcalloc(r->n_items + 1, sizeof *r->prev);
}

/* The engine's look over the items, with the rounds each has now. */
static int look(struct paired_driver *d, size_t k, char *err, size_t err_size)
{
    struct paired_run *r = &d->run;
    for (size_t i = 0; i < r->n_cells; i++) {
        struct paired_cell *c = &r->cells[i];
        if (c->item < 0)
            continue;
        struct bench__paired_item *it = &r->items[c->item];
        it->b = c->v[SUBJ_BASELINE];
        it->c = c->v[SUBJ_CANDIDATE];
        it->a = c->v[SUBJ_AA];
        it->b_aa = c->v_ab;
        it->rounds = c->rounds;
    }
    if (r->looked)
        memcpy(r->prev, r->out, r->n_items * sizeof *r->out);
    size_t bad = SIZE_MAX;
    int rc = bench__paired_look(&r->params, k, r->items, r->n_items, r->looked ? r->prev : NULL,
                                r->out, &r->result, &bad);
    if (rc != 0) {
        bench__fmt(err, err_size, "the paired engine refused %s",
                   bad == SIZE_MAX ? "its parameters" : r->items[bad].scenario);
        return -1;
    }
    r->looked = true;
    return 0;
}

static bool cell_open(const struct paired_driver *d, const struct paired_cell *c)
{
    return !c->fail && c->count > 0 &&
           (c->item < 0 || !d->run.looked || !d->run.out[c->item].decided);
}

/* The rounds and looks: every open cell brought to the look's rounds, round by round across
 * the cells (a cell's rounds spread over the time of the look), then the engine's look. */
static int measure(struct paired_driver *d, char *err, size_t err_size)
{
    d->channel = (struct bench__paired_channel){.name = "time",
                                                .exact = false,
                                                .f_min = BENCH__PAIRED_TIME_F_MIN,
                                                .min_delta = d->st->opts.min_delta_ns};
    struct paired_run *r = &d->run;
    size_t looks = bench__paired_looks(&r->params);
    r->stop = "max_rounds";
    int rc = 0;
    for (size_t k = 0; k < looks && rc == 0; k++) {
        size_t target = bench__paired_look_rounds(&r->params, k);
        bool budget = false;
        for (size_t round = 0; round < target && !budget; round++) {
            bool fresh = round == 0 && k == 0; /* the first round: the processes just started */
            for (size_t i = 0; i < r->n_cells && !budget; i++) {
                struct paired_cell *c = &r->cells[i];
                if (c->rounds != round || !cell_open(d, c))
                    continue;
                budget = over_budget(d);
                if (budget)
                    break;
                if (!fresh && d->st->opts.fresh) /* once per round, before its first sample */
                    respawn_all(d);
                fresh = true;
                if (cell_open(d, c)) {
                    if (d->st->opts.duet)
                        take_duet_round(d, c);
                    else
                        take_round(d, c);
                }
            }
        }
        if (k == 0)
            make_items(d, &d->channel);
        if (r->n_items == 0) {
            r->stop = budget ? "budget" : "no_cell";
            break;
        }
        rc = look(d, k, err, err_size);
        fprintf(stderr, "libbench compare: look %zu/%zu at %zu rounds: %zu of %zu cells decided\n",
                k + 1, looks, target, r->result.decided, r->result.items);
        if (rc != 0)
            break;
        if (budget) {
            r->stop = "budget";
            break;
        }
        if (r->result.all_decided) {
            r->stop = "all_decided";
            break;
        }
    }
    r->wall_s = (double)(bench__clock_deadline_ns() - d->t0) / 1e9;
    return rc;
}

/* The verdict: the engine's, but a cell that failed or was never judged makes a PASS
 * UNMEASURED. */
static void verdict(struct paired_run *r)
{
    size_t failed = 0;
    for (size_t i = 0; i < r->n_cells; i++) /* failed, or never judged (no complete round) */
        failed += r->cells[i].fail != NULL || r->cells[i].item < 0;
    if (r->n_items == 0 || !r->looked) {
        r->verdict = "UNMEASURED";
        r->reason = "unmeasured_cells";
        r->exit_code = 2;
        return;
    }
    r->verdict = r->result.verdict;
    r->reason = r->result.reason;
    r->exit_code = r->result.exit_code;
    if (failed && r->exit_code == 0) {
        r->verdict = "UNMEASURED";
        r->reason = "unmeasured_cells";
        r->exit_code = 2;
    }
}

static void driver_free(struct paired_driver *d)
{
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        compare_live_stop(&d->live[s], true, NULL, 0);
        compare_live_cells_free(&d->live[s]);
        tool_program_free(&d->prog[s]);
        free(d->down[s]);
        compare_provenance_facts_free(&d->run.facts[s]);
    }
    tool_live_group_end(d->group);
    remove_files(d);
    tool_interrupt_on(NULL, NULL);
    free(d->tmpdir);
    struct paired_run *r = &d->run;
    for (size_t i = 0; i < r->n_cells; i++) {
        free(r->cells[i].name);
        free(r->cells[i].operation);
        free(r->cells[i].fail);
        for (size_t s = 0; s < N_SUBJECTS; s++)
            free(r->cells[i].v[s]);
        free(r->cells[i].v_ab);
    }
    free(r->cells);
    free(r->items);
    free(r->out);
    free(r->prev);
}

/* Start the three subjects; 1 (with why) when the baseline or the candidate does not serve. */
static int start_all(struct paired_driver *d, char *why, size_t why_size, char *err,
                     size_t err_size)
{
    static const size_t order[N_SUBJECTS] = {SUBJ_BASELINE, SUBJ_CANDIDATE, SUBJ_AA};
    for (size_t k = 0; k < N_SUBJECTS; k++) {
        size_t s = order[k];
        char msg[COMPARE_ERROR_MAX];
        int rc = compare_live_start(&d->live[s], &d->prog[s], START_TIMEOUT_NS, &d->group, msg,
                                    sizeof msg);
        if (rc == 0)
            continue;
        char shown[256];
        bench__sanitize_copy(d->prog[s].argv[0], shown, sizeof shown);
        if (rc > 0) {
            bench__fmt(why, why_size, "%s does not support the served mode: %s", shown, msg);
            return 1;
        }
        bench__fmt(err, err_size, "%s: %s", shown, msg);
        return -1;
    }
    return 0;
}

int compare_run_paired(struct compare_state *st, int *status, char *fallback_why, size_t why_size,
                       char *err, size_t err_size)
{
    struct paired_driver *d = bench__xcalloc(1, sizeof *d);
    d->st = st;
    struct paired_run *r = &d->run;
    r->opts = &st->opts;
    bench__paired_defaults(&r->params);
    r->params.q = st->opts.q;
    r->params.detect = st->opts.detect;
    r->params.global_seed = st->opts.seed;
    r->params.max_rounds = st->opts.max_rounds;
    d->timeout_ns = st->opts.timeout_ns ? st->opts.timeout_ns : INT64_C(30000000000);
    int rc = -1;
    tool_tmpdir_sweep("libbench-compare"); /* what compares killed before us left */
    const char *base = tool_tmpdir_base();
    d->tmpdir = bench__xasprintf("%s/libbench-compare.%ld.XXXXXX", base, (long)getpid());
    if (!mkdtemp(d->tmpdir)) {
        bench__fmt(err, err_size, "cannot create a temporary directory in %s", base);
        goto done;
    }
    tool_interrupt_on(remove_files, d);
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        make_program(d, s);
        bench__fmt(d->live[s].log_path, sizeof d->live[s].log_path, "%s/%s.log", d->tmpdir,
                   compare_subject_names[s]);
        d->live[s].fd = -1;
    }
    if (st->opts.duet) {
        int n = bench__affinity_cpus(r->duet_cpus, 2);
        if (n < 2) {
            bench__fmt(err, err_size, "--duet needs two CPUs to time a pair at once: %s",
                       n < 0 ? "this platform cannot pin a process to a CPU"
                             : "this process may run on one CPU only");
            goto done;
        }
    }
    d->t0 = bench__clock_deadline_ns();
    d->budget_end = d->t0 + (int64_t)(st->opts.budget_s * 1e9);
    rc = start_all(d, fallback_why, why_size, err, err_size);
    if (rc != 0)
        goto done;
    for (size_t s = 0; s < N_SUBJECTS; s++) /* once each serves: the file and `BIN --version` */
        compare_provenance_paired(&d->prog[s], d->tmpdir, s, &r->facts[s]);
    build_cells(d);
    fprintf(stderr,
            "libbench compare: paired mode: %zu cell%s; baseline, candidate and control live; "
            "looks at 8..%zu rounds, budget %g s\n",
            r->n_cells, r->n_cells == 1 ? "" : "s", r->params.max_rounds, st->opts.budget_s);
    for (size_t i = 0; i < r->n_cells; i++) {
        struct paired_cell *c = &r->cells[i];
        double count = 0;
        if (c->fail || call(d, SUBJ_BASELINE, c, true, &count) != 0)
            continue;
        c->count = (uint64_t)count;
    }
    if (measure(d, err, err_size) != 0) {
        rc = -1;
        goto done;
    }
    verdict(r);
    /* Too few rounds for Benjamini-Hochberg: the engine claims nothing, and says so here. */
    char bh_warning[320];
    const char *warnings[1];
    if (r->looked && r->result.bh_short) {
        bench__fmt(bh_warning, sizeof bh_warning,
                   "up to %zu rounds are too few for Benjamini-Hochberg to confirm a change in a "
                   "family of %zu cells at q %g: no change is claimed",
                   r->params.max_rounds, r->n_items, r->params.q);
        warnings[r->n_warnings++] = bh_warning;
    }
    r->warnings = warnings;
    paired_report_text(stdout, r);
    fflush(stdout);
    *status = r->exit_code;
    if (st->opts.json_path && paired_report_json(r, st->opts.json_path, err, err_size) != 0) {
        fprintf(stderr, "error: --json: %s\n", err);
        *status = 2;
    }
    rc = 0;
done:
    driver_free(d);
    free(d);
    return rc;
}
