/* SPDX-License-Identifier: MIT */
/* ci.c: owns `libbench compare`'s verdicts for CI: --junit (a test case per cell and one for the
 * verdict, through lib/util's one JUnit writer) and --summary (Markdown appended for a job page).
 * It decides nothing: the states, reasons and verdict are the engine's. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "compare.h"
#include "common/summary.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/format.h"
#include "util/junit.h"
#include "util/text.h"

#define EM_DASH "\xe2\x80\x94"

static bool is_regression(const struct bench__cmp_cell_out *o)
{
    return (o->state == BENCH__CMP_CLAIMED || o->state == BENCH__CMP_UNCONFIRMED) && o->direction &&
           !strcmp(o->direction, "regression");
}

/* The order a reader needs: regressions claimed, then unconfirmed, then unmeasured cells, then
 * improvements, then the cells with no change. */
static int rank(const struct bench__cmp_cell_out *o)
{
    if (is_regression(o))
        return o->state == BENCH__CMP_CLAIMED ? 0 : 1;
    if (o->state == BENCH__CMP_UNMEASURED)
        return 2;
    if (o->state == BENCH__CMP_CLAIMED || o->state == BENCH__CMP_UNCONFIRMED)
        return 3;
    return 4;
}

static char *cell_name(const struct compare_cell *c)
{
    if (*c->row->operation)
        return bench__xasprintf("%s {%s}", c->row->name, c->row->operation);
    return bench__xstrdup(c->row->name);
}

/* A cell's delta ("+12.34%"), 95% CI ("[+10.00%, +14.00%]") and A/A floor ("±3.00%") as the
 * table shows them: an em dash for what was not computed. */
struct cell_numbers {
    char delta[32], ci[64], floor[32];
};

static void cell_numbers(const struct bench__cmp_cell_out *o, struct cell_numbers *n)
{
    bench__fmt(n->delta, sizeof n->delta, EM_DASH);
    bench__fmt(n->ci, sizeof n->ci, EM_DASH);
    bench__fmt(n->floor, sizeof n->floor, EM_DASH);
    if (isfinite(o->rel_delta))
        bench__fmt(n->delta, sizeof n->delta, "%+.2f%%", o->rel_delta * 100.0);
    if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
        bench__fmt(n->ci, sizeof n->ci, "[%+.2f%%, %+.2f%%]", o->ci_lo * 100.0, o->ci_hi * 100.0);
    if (isfinite(o->floor))
        bench__fmt(n->floor, sizeof n->floor, "\xc2\xb1%.2f%%", o->floor * 100.0);
}

/* "+12.34% (95% CI [+10.00%, +14.00%], A/A floor ±3.00%)" */
static char *delta_text(const struct bench__cmp_cell_out *o)
{
    struct cell_numbers n;
    cell_numbers(o, &n);
    return bench__xasprintf("%s (95%% CI %s, A/A floor %s)", n.delta, n.ci, n.floor);
}

/* ---- --junit ---------------------------------------------------------------------------- */

struct junit_cell {
    char *name, *state, *reason, *delta, *message, *values[5];
    struct bench__junit_property props[5];
};

static void fill_cell(const struct compare_report *rep, size_t i, struct junit_cell *jc,
                      struct bench__junit_case *k)
{
    const struct bench__cmp_cell_out *o = &rep->out[i];
    jc->name = cell_name(&rep->cells[i]);
    jc->state = compare_cell_state(o);
    jc->reason = compare_cell_reason(rep, i);
    jc->delta = delta_text(o);
    *k = (struct bench__junit_case){
        .classname = "libbench compare", .name = jc->name, .time_s = NAN};
    static const char *const names[] = {"delta", "ci", "floor", "p", "q"};
    double nums[5] = {o->rel_delta, NAN, o->floor, o->p, o->q_adjusted};
    size_t np = 0;
    for (size_t k2 = 0; k2 < 5; k2++) {
        if (k2 == 1) {
            if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
                jc->values[np] = bench__xasprintf("[%.6g, %.6g]", o->ci_lo, o->ci_hi);
            else
                continue;
        } else if (isfinite(nums[k2])) {
            jc->values[np] = bench__xasprintf("%.6g", nums[k2]);
        } else {
            continue; /* not computed: no property, never 0 */
        }
        jc->props[np] = (struct bench__junit_property){names[k2], jc->values[np]};
        np++;
    }
    k->props = jc->props;
    k->n_props = np;
    if (is_regression(o) && o->state == BENCH__CMP_CLAIMED) {
        k->result = BENCH__JUNIT_FAILURE;
        k->type = jc->state;
        jc->message = bench__xasprintf("%s: %s%s%s", jc->state, jc->delta, *jc->reason ? "; " : "",
                                       jc->reason);
        k->message = jc->message;
        k->body = jc->message;
        k->body_len = strlen(jc->message);
    } else if (is_regression(o)) {
        /* unconfirmed: not claimed, and the verdict it leads to is UNMEASURED (exit status 2) */
        k->result = BENCH__JUNIT_SKIP;
        jc->message = bench__xasprintf("%s: %s%s%s", jc->state, jc->delta, *jc->reason ? "; " : "",
                                       jc->reason);
        k->message = jc->message;
    } else if (o->state == BENCH__CMP_UNMEASURED) {
        k->result = BENCH__JUNIT_SKIP;
        jc->message = bench__xasprintf("UNMEASURED: %s", *jc->reason ? jc->reason : "no reason");
        k->message = jc->message;
    }
}

int compare_report_junit(const struct compare_report *rep, const char *path, char *err,
                         size_t err_size)
{
    size_t n = rep->n_cells;
    struct junit_cell *jc = bench__xcalloc(n + 1, sizeof *jc);
    struct bench__junit_case *cases = bench__xcalloc(n + 2, sizeof *cases);
    for (size_t i = 0; i < n; i++)
        fill_cell(rep, i, &jc[i], &cases[i]);
    /* the verdict as a case of its own: REGRESSION fails, UNMEASURED is an error (never a pass,
     * as the exit status says), PASS passes */
    const struct bench__cmp_result *res = rep->result;
    char *verdict = bench__xasprintf("%s (%s)", res->verdict,
                                     res->reason ? res->reason : "no_claimed_regression");
    struct bench__junit_case *v = &cases[n];
    *v = (struct bench__junit_case){
        .classname = "libbench compare", .name = "verdict", .time_s = NAN};
    if (!strcmp(res->verdict, "REGRESSION") || !strcmp(res->verdict, "UNMEASURED")) {
        v->result = !strcmp(res->verdict, "REGRESSION") ? BENCH__JUNIT_FAILURE : BENCH__JUNIT_ERROR;
        v->type = res->verdict;
        v->message = verdict;
        v->body = verdict;
        v->body_len = strlen(verdict);
    }
    int rc = bench__junit_write(path, "libbench compare", cases, n + 1, NAN);
    if (rc)
        bench__fmt(err, err_size, "cannot write '%s': %s", path, bench__write_file_strerror(rc));
    for (size_t i = 0; i < n; i++) {
        free(jc[i].name);
        free(jc[i].state);
        free(jc[i].reason);
        free(jc[i].delta);
        free(jc[i].message);
        for (size_t k = 0; k < 5; k++)
            free(jc[i].values[k]);
    }
    free(jc);
    free(cases);
    free(verdict);
    return rc ? -1 : 0;
}

/* ---- --summary -------------------------------------------------------------------------- */

static const struct compare_report *sort_rep;

static int by_rank(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int ra = rank(&sort_rep->out[a]), rb = rank(&sort_rep->out[b]);
    return ra != rb ? ra - rb : (a > b) - (a < b);
}

static const char *mark(const struct bench__cmp_cell_out *o)
{
    switch (rank(o)) {
    case 0: return TOOL_MARK_BAD;
    case 1: return TOOL_MARK_WARN;
    case 2: return TOOL_MARK_UNKNOWN;
    default: return TOOL_MARK_GOOD;
    }
}

int compare_report_summary(const struct compare_report *rep, const char *path, char *err,
                           size_t err_size)
{
    struct tool_summary summary;
    FILE *out = tool_summary_open(&summary, err, err_size);
    if (!out)
        return -1;
    const struct bench__cmp_result *res = rep->result;
    size_t counts[5] = {0};
    for (size_t i = 0; i < rep->n_cells; i++)
        counts[rank(&rep->out[i])]++;
    fprintf(out, "### libbench compare: %s %s\n\n",
            !strcmp(res->verdict, "PASS") ? TOOL_MARK_GOOD : TOOL_MARK_BAD, res->verdict);
    fprintf(out, "Verdict **%s** (`%s`)", res->verdict,
            res->reason ? res->reason : "no_claimed_regression");
    if (res->runs_needed)
        fprintf(out, "; runs needed: %u", res->runs_needed);
    fprintf(out,
            ". %zu cell%s: %zu claimed regression%s, %zu unconfirmed regression%s, %zu "
            "unmeasured, %zu improvement%s, %zu without a claimed change; %zu/%zu/%zu runs "
            "(baseline/candidate/aa).\n\n",
            rep->n_cells, rep->n_cells == 1 ? "" : "s", counts[0], counts[0] == 1 ? "" : "s",
            counts[1], counts[1] == 1 ? "" : "s", counts[2], counts[3], counts[3] == 1 ? "" : "s",
            counts[4], rep->n_runs[SUBJ_BASELINE], rep->n_runs[SUBJ_CANDIDATE],
            rep->n_runs[SUBJ_AA]);
    size_t *order = bench__xcalloc(rep->n_cells + 1, sizeof *order);
    for (size_t i = 0; i < rep->n_cells; i++)
        order[i] = i;
    sort_rep = rep;
    qsort(order, rep->n_cells, sizeof *order, by_rank);
    size_t shown = rep->n_cells < TOOL_SUMMARY_ROWS_MAX ? rep->n_cells : TOOL_SUMMARY_ROWS_MAX;
    if (shown) {
        fputs("| | benchmark | baseline | candidate | delta | 95% CI | A/A floor | state | reason "
              "|\n|---|---|---:|---:|---:|---|---:|---|---|\n",
              out);
    }
    for (size_t j = 0; j < shown; j++) {
        size_t i = order[j];
        const struct bench__cmp_cell_out *o = &rep->out[i];
        char *name = cell_name(&rep->cells[i]), *state = compare_cell_state(o),
             *reason = compare_cell_reason(rep, i);
        char b[BENCH__NUMBER_MAX], c[BENCH__NUMBER_MAX];
        struct cell_numbers n;
        bench__format_ns_pair(o->median_baseline, o->median_candidate, b, c, sizeof b);
        cell_numbers(o, &n);
        fprintf(out, "| %s ", mark(o));
        const char *cols[] = {name, b,       c,     n.delta,
                              n.ci, n.floor, state, *reason ? reason : EM_DASH};
        for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
            tool_md_cell(out, cols[k]);
        fputs("|\n", out);
        free(name);
        free(state);
        free(reason);
    }
    tool_summary_rest(out, shown, rep->n_cells, "cell");
    free(order);
    err[0] = '\0';
    return tool_summary_close(&summary, path, err, err_size);
}
