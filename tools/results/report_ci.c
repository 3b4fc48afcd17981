/* SPDX-License-Identifier: MIT */
/* report_ci.c: owns `libbench report`'s rows for CI: --junit (a test case per row, through
 * lib/util's one JUnit writer) and --summary (Markdown appended for a job page). It judges no
 * row (report_select.c does) and sets no exit status (report_cmd.c does). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_tool.h"
#include "common/summary.h"
#include "util/alloc.h"
#include "util/format.h"
#include "util/junit.h"
#include "util/text.h"

#define EM_DASH "\xe2\x80\x94"

/* "profile/scenario {operation} [subject]": the row's cell and subject. */
static char *row_name(const struct bench__result_aggregate *a)
{
    return bench__xasprintf("%s%s%s%s [%s]", a->scenario, a->operation[0] ? " {" : "", a->operation,
                            a->operation[0] ? "}" : "", a->subject);
}

/* "+12.3% (+1.20ms) on p50": the p50's change against what decided the row; a dash unmeasured. */
static char *delta_text(const struct bench__result_row *r)
{
    if (!isfinite(r->slower_p50_pct) || !isfinite(r->delta_p50_ns))
        return bench__xstrdup(EM_DASH);
    char ns[BENCH__NUMBER_MAX];
    bench__format_ns(fabs(r->delta_p50_ns), ns, sizeof ns);
    return bench__xasprintf("%+.1f%% (%s%s)", r->slower_p50_pct, r->delta_p50_ns < 0 ? "-" : "+",
                            ns);
}

/* The rows --fail-on-regression counts: a failure in JUnit too. */
static bool gating(const struct bench__result_row *r)
{
    return r->state == BENCH__RESULT_FAIL || r->state == BENCH__RESULT_REGRESSION;
}

int report_junit_write(const struct report_rows *rows, const char *path, char *err, size_t err_size)
{
    size_t n = rows->n;
    struct bench__junit_case *cases = bench__xcalloc(n + 1, sizeof *cases);
    char **texts = bench__xcalloc(3 * n + 1, sizeof *texts);
    struct bench__junit_property(*props)[4] = bench__xcalloc(n + 1, sizeof *props);
    char(*values)[3][48] = bench__xcalloc(n + 1, sizeof *values);
    for (size_t i = 0; i < n; i++) {
        const struct bench__result_row *r = &rows->rows[i];
        const struct bench__result_aggregate *a = r->target;
        char *name = texts[3 * i] = row_name(a);
        char *delta = texts[3 * i + 1] = delta_text(r);
        const char *state = bench__result_state_name(r->state);
        struct bench__junit_case *k = &cases[i];
        *k = (struct bench__junit_case){.classname = a->profile, .name = name, .time_s = NAN};
        size_t np = 0;
        props[i][np++] = (struct bench__junit_property){"state", state};
        if (isfinite(a->p50)) {
            snprintf(values[i][0], sizeof values[i][0], "%.6g", a->p50);
            props[i][np++] = (struct bench__junit_property){"p50_ns", values[i][0]};
        }
        if (isfinite(r->slower_p50_pct)) {
            snprintf(values[i][1], sizeof values[i][1], "%.6g", r->slower_p50_pct);
            props[i][np++] = (struct bench__junit_property){"slower_p50_pct", values[i][1]};
        }
        if (r->why[0])
            props[i][np++] = (struct bench__junit_property){"why", r->why};
        k->props = props[i];
        k->n_props = np;
        if (gating(r)) {
            k->result = BENCH__JUNIT_FAILURE;
            k->type = state;
            texts[3 * i + 2] =
                bench__xasprintf("%s: p50 %s%s%s", state, delta, r->why[0] ? "; " : "", r->why);
            k->message = texts[3 * i + 2];
            k->body = k->message;
            k->body_len = strlen(k->message);
        } else if (r->state == BENCH__RESULT_UNMEASURED) {
            k->result = BENCH__JUNIT_SKIP;
            texts[3 * i + 2] =
                bench__xasprintf("unmeasured: %s", r->why[0] ? r->why : "no successful value");
            k->message = texts[3 * i + 2];
        }
    }
    int rc = bench__junit_write(path, "libbench report", cases, n, NAN);
    if (rc)
        bench__fmt(err, err_size, "cannot write: %s", bench__write_file_strerror(rc));
    for (size_t i = 0; i < 3 * n; i++)
        free(texts[i]);
    free(texts);
    free(values);
    free(props);
    free(cases);
    return rc ? -1 : 0;
}

static const char *mark(enum bench__result_state s)
{
    switch (s) {
    case BENCH__RESULT_FAIL:
    case BENCH__RESULT_REGRESSION: return TOOL_MARK_BAD;
    case BENCH__RESULT_UNMEASURED: return TOOL_MARK_UNKNOWN;
    case BENCH__RESULT_GUARDRAIL:
    case BENCH__RESULT_WATCH: return TOOL_MARK_WARN;
    case BENCH__RESULT_OK: break;
    }
    return TOOL_MARK_GOOD;
}

int report_summary_append(const struct report_rows *rows, const char *path, char *err,
                          size_t err_size)
{
    struct tool_summary summary;
    FILE *out = tool_summary_open(&summary, err, err_size);
    if (!out)
        return -1;
    size_t counts[BENCH__RESULT_OK + 1] = {0};
    for (size_t i = 0; i < rows->n; i++)
        counts[rows->rows[i].state]++;
    size_t bad = counts[BENCH__RESULT_FAIL] + counts[BENCH__RESULT_REGRESSION];
    /* the verdict the exit status follows (report_cmd.c gates with --summary) */
    fprintf(out, "### libbench report: %s %s\n\n", bad ? TOOL_MARK_BAD : TOOL_MARK_GOOD,
            bad ? "REGRESSION" : "PASS");
    fprintf(out, "Verdict **%s**: %zu row%s failed or regressed. %zu row%s:",
            bad ? "REGRESSION" : "PASS", bad, bad == 1 ? "" : "s", rows->n,
            rows->n == 1 ? "" : "s");
    for (int s = BENCH__RESULT_FAIL; s <= BENCH__RESULT_OK; s++)
        fprintf(out, "%s %zu %s", s == BENCH__RESULT_FAIL ? "" : ",", counts[s],
                bench__result_state_name((enum bench__result_state)s));
    fputs(".\n\n", out);
    /* the rows come sorted worst first (report_select.c) */
    size_t shown = rows->n < TOOL_SUMMARY_ROWS_MAX ? rows->n : TOOL_SUMMARY_ROWS_MAX;
    if (shown)
        fputs("| | row | state | p50 | Δ p50 | why |\n|---|---|---|---:|---:|---|\n", out);
    for (size_t i = 0; i < shown; i++) {
        const struct bench__result_row *r = &rows->rows[i];
        char *name = row_name(r->target), *delta = delta_text(r);
        char p50[BENCH__NUMBER_MAX];
        bench__format_ns(r->target->p50, p50, sizeof p50);
        fprintf(out, "| %s ", mark(r->state));
        tool_md_cell(out, name);
        tool_md_cell(out, bench__result_state_name(r->state));
        tool_md_cell(out, p50);
        tool_md_cell(out, delta);
        tool_md_cell(out, r->why[0] ? r->why : EM_DASH);
        fputs("|\n", out);
        free(name);
        free(delta);
    }
    tool_summary_rest(out, shown, rows->n, "row");
    err[0] = '\0';
    return tool_summary_close(&summary, path, err, err_size);
}
