/* SPDX-License-Identifier: MIT */
/* report.c: owns what `libbench compare` prints: the header with the sensitivity
 * reached, the warnings, the per-cell table, the skipped runs, the cells missing from an arm, the
 * verdict line, and the --json document (jansson, atomic write). No statistics. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <bench/bench.h>

#include "report/table.h"
#include "stats/compare.h"
#include "util/format.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "compare.h"
#include "common/json.h"
#include "util/text.h"

#define EM_DASH "\xe2\x80\x94"

/* ---- the table ------------------------------------------------------------------------- */

static char *percent(double v, bool sign)
{
    if (!isfinite(v))
        return bench__xstrdup(EM_DASH);
    return sign ? bench__xasprintf("%+.2f%%", v * 100.0) : bench__xasprintf("%.2f%%", v * 100.0);
}

static char *prob(double v)
{
    return isfinite(v) ? bench__xasprintf("%.3g", v) : bench__xstrdup(EM_DASH);
}

char *compare_cell_state(const struct bench__cmp_cell_out *o)
{
    const char *name = bench__cmp_state_name(o->state);
    if (o->direction && (o->state == BENCH__CMP_CLAIMED || o->state == BENCH__CMP_UNCONFIRMED))
        return bench__xasprintf("%s %s", name, o->direction);
    return bench__xstrdup(name);
}

/* A cell with no row in any document of a subject: said once, not run by run. */
static bool missing_from(const struct compare_report *rep, const struct compare_cell *c, size_t s)
{
    return !c->present[s] && rep->n_runs[s] > 0;
}

static bool missing_somewhere(const struct compare_report *rep, const struct compare_cell *c)
{
    for (size_t s = 0; s < N_SUBJECTS; s++)
        if (missing_from(rep, c, s))
            return true;
    return false;
}

static size_t cell_skips(const struct compare_report *rep, const struct compare_cell *c)
{
    size_t n = 0;
    for (size_t s = 0; s < N_SUBJECTS; s++)
        for (size_t r = 0; r < rep->n_runs[s] && !missing_from(rep, c, s); r++)
            n += c->skips[s][r] != NULL;
    return n;
}

/* "only in candidate", "missing from candidate", "missing from baseline and aa". */
static void missing_text(const struct compare_report *rep, const struct compare_cell *c, char *buf,
                         size_t size)
{
    const char *in[N_SUBJECTS], *out[N_SUBJECTS];
    size_t n_in = 0, n_out = 0;
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        if (missing_from(rep, c, s))
            out[n_out++] = compare_subject_names[s];
        else
            in[n_in++] = compare_subject_names[s];
    }
    if (n_in == 1)
        bench__fmt(buf, size, "only in %s", in[0]);
    else if (n_out == 1)
        bench__fmt(buf, size, "missing from %s", out[0]);
    else if (n_out == 2)
        bench__fmt(buf, size, "missing from %s and %s", out[0], out[1]);
    else
        bench__fmt(buf, size, "in no arm");
}

char *compare_cell_reason(const struct compare_report *rep, size_t i)
{
    const struct bench__cmp_cell_out *o = &rep->out[i];
    const char *reason = o->reason ? o->reason : "";
    char needed[48] = "";
    if (o->runs_needed > 0)
        bench__fmt(needed, sizeof needed, "runs needed: %u", o->runs_needed);
    char missing[96] = "";
    if (missing_somewhere(rep, &rep->cells[i]))
        missing_text(rep, &rep->cells[i], missing, sizeof missing);
    size_t skipped = cell_skips(rep, &rep->cells[i]);
    char skips[48] = "";
    if (skipped)
        bench__fmt(skips, sizeof skips, "%zu run%s skipped", skipped, skipped == 1 ? "" : "s");
    const char *parts[4] = {reason, needed, missing, skips};
    char *out = bench__xstrdup("");
    for (size_t k = 0; k < 4; k++) {
        if (!*parts[k])
            continue;
        char *joined = bench__xasprintf("%s%s%s", out, *out ? "; " : "", parts[k]);
        free(out);
        out = joined;
    }
    return out;
}

static char *shown_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *buf = bench__xmalloc(n);
    bench__sanitize_copy(s, buf, n);
    return buf;
}

/* --metric: two values of a metric, with two decimals (a count per iteration reads 3.00), more
 * when needed to show their difference, as bench__format_ns_pair does for times. */
static void metric_pair(double a, double b, char *abuf, char *bbuf, size_t size)
{
    int d = 2;
    double diff = fabs(a - b);
    while (isfinite(diff) && diff > 0 && d < BENCH__FORMAT_PAIR_DECIMALS_MAX &&
           pow(10.0, -d) > diff / 10.0 * (1 + 1e-9))
        d++;
    if (isfinite(a))
        bench__fmt(abuf, size, "%.*f", d, a);
    else
        bench__fmt(abuf, size, EM_DASH);
    if (isfinite(b))
        bench__fmt(bbuf, size, "%.*f", d, b);
    else
        bench__fmt(bbuf, size, EM_DASH);
}

static void print_table(FILE *out, const struct compare_report *rep)
{
    bool labels = false;
    for (size_t i = 0; i < rep->n_cells; i++)
        labels = labels || rep->cells[i].row->n_labels > 0;
    static const struct bench__column all[] = {
        {"benchmark", BENCH__LEFT},   {"labels", BENCH__LEFT},       {"runs b/c/a", BENCH__LEFT},
        {"baseline", BENCH__DECIMAL}, {"candidate", BENCH__DECIMAL}, {"delta", BENCH__DECIMAL},
        {"95% CI", BENCH__LEFT},      {"floor", BENCH__DECIMAL},     {"p", BENCH__DECIMAL},
        {"q", BENCH__DECIMAL},        {"state", BENCH__LEFT},        {"reason", BENCH__LEFT},
    };
    enum { N_ALL = sizeof all / sizeof *all };
    struct bench__column cols[N_ALL];
    size_t n_cols = 0;
    for (size_t c = 0; c < N_ALL; c++)
        if (c != 1 || labels)
            cols[n_cols++] = all[c];
    char **cells = bench__xcalloc(rep->n_cells * n_cols + 1, sizeof *cells);
    for (size_t i = 0; i < rep->n_cells; i++) {
        const struct compare_cell *c = &rep->cells[i];
        const struct bench__cmp_cell_out *o = &rep->out[i];
        char **row = cells + i * n_cols;
        size_t k = 0;
        row[k++] = shown_dup(c->row->name);
        if (labels)
            row[k++] = shown_dup(c->row->operation);
        row[k++] = bench__xasprintf("%zu/%zu/%zu", o->n_baseline, o->n_candidate, o->n_aa);
        /* one unit and enough digits that the two medians show the change (issue 26) */
        char mb[BENCH__NUMBER_MAX], mc[BENCH__NUMBER_MAX];
        if (rep->opts->metric)
            metric_pair(o->median_baseline, o->median_candidate, mb, mc, sizeof mb);
        else
            bench__format_ns_pair(o->median_baseline, o->median_candidate, mb, mc, sizeof mb);
        row[k++] = bench__xstrdup(mb);
        row[k++] = bench__xstrdup(mc);
        row[k++] = percent(o->rel_delta, true);
        if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
            row[k++] = bench__xasprintf("[%+.2f%%, %+.2f%%]", o->ci_lo * 100.0, o->ci_hi * 100.0);
        else
            row[k++] = bench__xstrdup(EM_DASH);
        row[k++] = isfinite(o->floor) ? bench__xasprintf("\xc2\xb1%.2f%%", o->floor * 100.0)
                                      : bench__xstrdup(EM_DASH);
        row[k++] = prob(o->p);
        row[k++] = prob(o->q_adjusted);
        row[k++] = compare_cell_state(o);
        row[k++] = compare_cell_reason(rep, i);
    }
    struct bench__table t = {NULL, cols, n_cols, cells, rep->n_cells, NULL};
    struct bench__table_memory memory = {0};
    bench__table_render(out, &t, &memory);
    bench__table_memory_free(&memory);
    for (size_t j = 0; j < rep->n_cells * n_cols; j++)
        free(cells[j]);
    free(cells);
}

/* The last run of subject s, from run r on, that failed as a whole for the same reason as run r
 * (r itself when the next one did not). */
static size_t same_failure_until(const struct compare_report *rep, size_t s, size_t r)
{
    size_t last = r;
    while (last + 1 < rep->n_runs[s] && rep->run_fail[s][last + 1] &&
           strcmp(rep->run_fail[s][last + 1], rep->run_fail[s][r]) == 0)
        last++;
    return last;
}

/* Every run that gave a cell no value, with its reason: a whole failed run on one line
 * (consecutive runs that failed alike on one line: "baseline runs 1–20"; even when no cell is
 * known), a failed or missing row on its cell's line. A cell that no
 * document of a subject has is listed once by print_missing instead. */
static void print_skips(FILE *out, const struct compare_report *rep)
{
    bool header = false;
    for (size_t s = 0; s < N_SUBJECTS; s++)
        for (size_t r = 0; r < rep->n_runs[s]; r++) {
            const char *whole = rep->run_fail[s][r];
            for (size_t i = 0; i < (whole ? 1 : rep->n_cells); i++) {
                const struct compare_cell *c = whole ? NULL : &rep->cells[i];
                if (c && (!c->skips[s][r] || missing_from(rep, c, s)))
                    continue;
                if (!header) {
                    fputs("skipped (these runs gave no value and are not in the statistics):\n",
                          out);
                    header = true;
                }
                char where[512], shown_where[512], why[1024], name[256], op[256];
                size_t last = whole && rep->opts->binary_mode ? same_failure_until(rep, s, r) : r;
                if (last > r)
                    bench__fmt(where, sizeof where, "%s runs %zu\u2013%zu",
                               compare_subject_names[s], r + 1, last + 1);
                else if (rep->opts->binary_mode)
                    bench__fmt(where, sizeof where, "%s run %zu", compare_subject_names[s], r + 1);
                else
                    bench__fmt(where, sizeof where, "%s run %zu (%s)", compare_subject_names[s],
                               r + 1, rep->opts->files[s][r]);
                bench__sanitize_copy(where, shown_where, sizeof shown_where);
                bench__sanitize_copy(whole ? whole : c->skips[s][r], why, sizeof why);
                if (whole) {
                    fprintf(out, "  %s, every cell: %s\n", shown_where, why);
                    r = last;
                    continue;
                }
                bench__sanitize_copy(c->row->name, name, sizeof name);
                bench__sanitize_copy(c->row->operation, op, sizeof op);
                if (*op)
                    fprintf(out, "  %s, %s {%s}: %s\n", shown_where, name, op, why);
                else
                    fprintf(out, "  %s, %s: %s\n", shown_where, name, why);
            }
        }
}

/* Cells that an arm never had (a benchmark added or removed, or lost in every run): listed
 * with their reason, UNMEASURED like any cell with too few runs. */
static void print_missing(FILE *out, const struct compare_report *rep)
{
    bool header = false;
    for (size_t i = 0; i < rep->n_cells; i++) {
        const struct compare_cell *c = &rep->cells[i];
        if (!missing_somewhere(rep, c))
            continue;
        if (!header) {
            fputs("cells not in every arm (no document of the arm has a row for them):\n", out);
            header = true;
        }
        char name[256], op[256], where[96];
        bench__sanitize_copy(c->row->name, name, sizeof name);
        bench__sanitize_copy(c->row->operation, op, sizeof op);
        missing_text(rep, c, where, sizeof where);
        const struct bench__cmp_cell_out *o = &rep->out[i];
        fprintf(out, "  %s%s%s%s: %s: %s (%s)\n", name, *op ? " {" : "", op, *op ? "}" : "", where,
                bench__cmp_state_name(o->state), o->reason ? o->reason : "");
    }
}

/* The engine leaves a PASS without a reason; the output names it like the others. */
static const char *verdict_reason(const struct bench__cmp_result *res)
{
    return res->reason ? res->reason : "no_claimed_regression";
}

/* "could detect ≥10% in 5 of 7 cells": the cells whose A/A floor is at most --detect. */
static void sensitivity_text(const struct compare_report *rep, char *buf, size_t size)
{
    bench__fmt(buf, size, "could detect \xe2\x89\xa5%g%% in %zu of %zu cell%s",
               rep->params->detect * 100.0, rep->result->detectable_cells, rep->n_cells,
               rep->n_cells == 1 ? "" : "s");
}

void compare_report_text(FILE *out, const struct compare_report *rep)
{
    const struct compare_options *o = rep->opts;
    const struct bench__cmp_params *p = rep->params;
    char runs[160], sensitivity[96];
    sensitivity_text(rep, sensitivity, sizeof sensitivity);
    if (o->binary_mode && rep->auto_stop)
        bench__fmt(runs, sizeof runs, "%zu runs per subject (--runs=auto:%u: %s)",
                   rep->n_runs[SUBJ_BASELINE], o->runs_max,
                   strcmp(rep->auto_stop, "detect_reached") == 0 ? "every A/A floor within --detect"
                                                                 : "stopped at the limit");
    else if (o->binary_mode)
        bench__fmt(runs, sizeof runs, "%zu runs per subject", rep->n_runs[SUBJ_BASELINE]);
    else
        bench__fmt(runs, sizeof runs, "%zu/%zu/%zu runs from files (baseline/candidate/aa)",
                   rep->n_runs[SUBJ_BASELINE], rep->n_runs[SUBJ_CANDIDATE], rep->n_runs[SUBJ_AA]);
    /* the floor and minimum delta of time; an exact count's floor is 0, and a metric's values
     * are not nanoseconds (its header line below says what they are) */
    char floors[96];
    if (o->metric_exact)
        bench__fmt(floors, sizeof floors, "A/A floor 0 (an exact count)");
    else if (o->metric)
        bench__fmt(floors, sizeof floors, "A/A floor \xe2\x89\xa5 %g%%", p->f_min * 100.0);
    else
        bench__fmt(floors, sizeof floors, "A/A floor \xe2\x89\xa5 %g%%, min delta %gns",
                   p->f_min * 100.0, p->min_delta);
    fprintf(out, "libbench compare: %s, seed %llu, q %g, %s; %s\n", runs,
            (unsigned long long)o->seed, p->q, floors, sensitivity);
    if (isfinite(rep->result->global_floor))
        fprintf(out, "global noise floor: \xc2\xb1%.2f%% on every cell (%s)\n",
                rep->result->global_floor * 100.0,
                o->global_floor > 0 ? "--global-noise-floor"
                                    : "the largest A/A floor of the cells");
    if (o->metric) {
        char shown[128];
        bench__sanitize_copy(o->metric, shown, sizeof shown);
        fprintf(out, "metric: %s per iteration, %s\n", shown,
                o->metric_exact ? "an exact count (floor 0: any difference is a change)"
                                : "the median of its runs (its values, not time)");
    }
    if (rep->state)
        compare_provenance_text(out, rep->state);
    for (size_t w = 0; w < rep->n_warnings; w++)
        fprintf(out, "warning: %s\n", rep->warnings[w]);
    if (rep->n_cells > 0)
        print_table(out, rep);
    else
        fputs("no cell: no document held a row\n", out);
    print_skips(out, rep);
    print_missing(out, rep);

    bool insufficient = false;
    size_t improvements = 0, above = 0;
    for (size_t i = 0; i < rep->n_cells; i++) {
        const struct bench__cmp_cell_out *c = &rep->out[i];
        insufficient = insufficient || (c->reason && !strcmp(c->reason, "insufficient_runs"));
        above += c->reason && !strcmp(c->reason, "floor_above_detect");
        improvements +=
            c->state == BENCH__CMP_CLAIMED && c->direction && !strcmp(c->direction, "improvement");
    }
    if (insufficient)
        fprintf(out,
                "note: insufficient_runs: a cell needs at least %zu measured runs per arm; 5 "
                "is the practical minimum (see docs/explanation/statistics.md)\n",
                p->min_runs);
    if (above)
        fprintf(out,
                "note: floor_above_detect: %zu cell%s claimed nothing with an A/A floor above "
                "%g%%: a change of that size could not have been seen there (more runs narrow "
                "the floor; see docs/explanation/statistics.md)\n",
                above, above == 1 ? "" : "s", p->detect * 100.0);
    const struct bench__cmp_result *res = rep->result;
    fprintf(out, "verdict: %s (%s)\n", res->verdict, verdict_reason(res));
    if (res->runs_needed > 0)
        fprintf(out, "runs needed: %u\n", res->runs_needed);
    for (size_t i = 0; improvements && i < rep->n_cells; i++) {
        const struct bench__cmp_cell_out *c = &rep->out[i];
        if (c->state != BENCH__CMP_CLAIMED || !c->direction || strcmp(c->direction, "improvement"))
            continue;
        char name[256], op[256];
        bench__sanitize_copy(rep->cells[i].row->name, name, sizeof name);
        bench__sanitize_copy(rep->cells[i].row->operation, op, sizeof op);
        fprintf(out, "claimed improvement: %s%s%s%s %+.2f%%\n", name, *op ? " {" : "", op,
                *op ? "}" : "", c->rel_delta * 100.0);
    }
}

/* ---- the --json document ------------------------------------------------------------------ */

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* Text as a JSON string, never NULL: a path, a command or a log line the file system or a child
 * gave as bytes is repaired (common/json.h). */
static json_t *text(const char *s)
{
    return tool_json_text(s);
}

static json_t *string_or_null(const char *s)
{
    return s ? text(s) : json_null();
}

static json_t *seed_string(uint64_t v)
{
    char buf[32];
    bench__fmt(buf, sizeof buf, "%llu", (unsigned long long)v);
    return text(buf);
}

/* Every insertion checked once: a failure is jansson out of memory, the one OOM policy. */
static void put(json_t *o, const char *key, json_t *v)
{
    if (!o || !v || json_object_set_new(o, key, v) != 0)
        bench__out_of_memory();
}

static json_t *append(json_t *a, json_t *v)
{
    if (!a || !v || json_array_append_new(a, v) != 0)
        bench__out_of_memory();
    return v;
}

static json_t *child(json_t *o, const char *key, json_t *v)
{
    put(o, key, v);
    return v;
}

static json_t *cell_json(const struct compare_report *rep, size_t i)
{
    const struct compare_cell *c = &rep->cells[i];
    const struct bench__cmp_cell_out *o = &rep->out[i];
    json_t *j = json_object();
    put(j, "name", text(c->row->name));
    json_t *labels = child(j, "labels", json_object());
    for (size_t k = 0; k < c->row->n_labels; k++)
        put(labels, c->row->labels[k].key, text(c->row->labels[k].value));
    char frac[64];
    bench__fmt(frac, sizeof frac, "%llu/%llu", (unsigned long long)o->p_numerator,
               (unsigned long long)o->p_denominator);
    put(j, "operation", text(c->row->operation));
    put(j, "state", text(bench__cmp_state_name(o->state)));
    put(j, "direction", string_or_null(o->direction));
    put(j, "reason", string_or_null(o->reason));
    put(j, "p", real_or_null(o->p));
    put(j, "p_method", string_or_null(o->p_method));
    put(j, "p_exact", o->p_denominator ? text(frac) : json_null());
    put(j, "q", real_or_null(o->q_adjusted));
    put(j, "bh_rejected", json_boolean(o->tested && o->bh_rejected));
    put(j, "rel_delta", real_or_null(o->rel_delta));
    put(j, "abs_delta_ns", real_or_null(o->abs_delta));
    put(j, "ci_lo", real_or_null(o->ci_lo));
    put(j, "ci_hi", real_or_null(o->ci_hi));
    put(j, "paired", json_boolean(o->paired));
    put(j, "seed", seed_string(o->seed));
    put(j, "floor", real_or_null(o->floor));
    put(j, "runs_needed", o->runs_needed ? json_integer(o->runs_needed) : json_null());
    put(j, "n_baseline", json_integer((json_int_t)o->n_baseline));
    put(j, "n_candidate", json_integer((json_int_t)o->n_candidate));
    put(j, "n_aa", json_integer((json_int_t)o->n_aa));
    put(j, "median_baseline_ns", real_or_null(o->median_baseline));
    put(j, "median_candidate_ns", real_or_null(o->median_candidate));
    put(j, "median_aa_ns", real_or_null(o->median_aa));
    put(j, "aa_ci_lo", real_or_null(o->aa_ci_lo));
    put(j, "aa_ci_hi", real_or_null(o->aa_ci_hi));
    put(j, "aa_seed", seed_string(o->aa_seed));
    put(j, "aa_p", real_or_null(o->aa_p));
    put(j, "aa_q", real_or_null(o->aa_q_adjusted));
    put(j, "aa_bh_rejected", json_boolean(o->tested && o->aa_bh_rejected));
    put(j, "aa_confirmed_change", json_boolean(o->aa_confirmed_change));
    json_t *missing = child(j, "missing_from", json_array());
    for (size_t s = 0; s < N_SUBJECTS; s++)
        if (missing_from(rep, c, s))
            append(missing, text(compare_subject_names[s]));
    json_t *runs = child(j, "runs_ns", json_object());
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        json_t *a = child(runs, compare_subject_names[s], json_array());
        for (size_t r = 0; r < rep->n_runs[s]; r++)
            append(a, real_or_null(c->values[s][r]));
    }
    json_t *skips = child(j, "skips", json_array());
    for (size_t s = 0; s < N_SUBJECTS; s++)
        for (size_t r = 0; r < rep->n_runs[s]; r++) {
            if (!c->skips[s][r])
                continue;
            json_t *k = append(skips, json_object());
            put(k, "subject", text(compare_subject_names[s]));
            put(k, "run", json_integer((json_int_t)r + 1));
            put(k, "reason", text(c->skips[s][r]));
        }
    return j;
}

static json_t *document(const struct compare_report *rep)
{
    const struct compare_options *o = rep->opts;
    const struct bench__cmp_params *p = rep->params;
    const struct bench__cmp_result *res = rep->result;
    json_t *doc = json_object();
    put(doc, "tool", text("libbench compare"));
    put(doc, "version", text(bench_version_string()));
    put(doc, "verdict", text(res->verdict));
    put(doc, "exit", json_integer(res->exit_code));
    put(doc, "reason", text(verdict_reason(res)));
    put(doc, "runs_needed", res->runs_needed ? json_integer(res->runs_needed) : json_null());
    put(doc, "family_size", json_integer((json_int_t)res->family_size));
    put(doc, "detectable_cells", json_integer((json_int_t)res->detectable_cells));
    /* the fewest cells Benjamini-Hochberg could confirm together; null: none, or no family */
    put(doc, "bh_min_cells",
        res->bh_min_cells ? json_integer((json_int_t)res->bh_min_cells) : json_null());
    json_t *warnings = child(doc, "warnings", json_array());
    put(doc, "mode", text(o->commands_mode ? "commands" : o->binary_mode ? "binaries" : "files"));
    put(doc, "auto_stop", string_or_null(rep->auto_stop));
    json_t *params = child(doc, "params", json_object());
    put(params, "runs",
        o->binary_mode ? json_integer((json_int_t)rep->n_runs[SUBJ_BASELINE]) : json_null());
    put(params, "runs_auto_max",
        o->binary_mode && o->runs_auto ? json_integer(o->runs_max) : json_null());
    put(params, "timeout_ns",
        o->commands_mode && o->timeout_ns ? json_integer(o->timeout_ns) : json_null());
    put(params, "detect", json_real(p->detect));
    /* --metric: the row metric compared (the *_ns fields then hold its values); null: time */
    /* --global-noise-floor: the floor every cell took at least; null when not asked */
    put(params, "global_noise_floor",
        isfinite(rep->result->global_floor) ? json_real(rep->result->global_floor) : json_null());
    put(params, "global_noise_floor_source",
        o->global_floor > 0   ? text("given")
        : o->global_floor < 0 ? text("worst_cell")
                              : json_null());
    put(params, "metric", o->metric ? text(o->metric) : json_null());
    put(params, "metric_exact", json_boolean(o->metric_exact));
    put(params, "min_runs", json_integer((json_int_t)p->min_runs));
    put(params, "q", json_real(p->q));
    put(params, "f_min", json_real(p->f_min));
    put(params, "min_delta_ns", json_real(p->min_delta));
    put(params, "bootstrap_resamples", json_integer(p->resamples));
    put(params, "ci_level", json_real(1.0 - p->alpha));
    put(params, "global_seed", seed_string(p->global_seed));
    json_t *subjects = child(doc, "subjects", json_object());
    for (size_t w = 0; w < rep->n_warnings; w++)
        append(warnings, text(rep->warnings[w]));
    for (size_t s = 0; s < N_SUBJECTS; s++)
        put(subjects, compare_subject_names[s],
            compare_subject_json(rep->state, s, rep->n_runs[s]));
    if (o->binary_mode) {
        json_t *schedule = child(doc, "schedule", json_array());
        for (size_t r = 0; r < rep->n_runs[SUBJ_BASELINE]; r++) {
            json_t *run = append(schedule, json_array());
            for (size_t k = 0; k < N_SUBJECTS; k++)
                append(run, text(compare_subject_names[rep->schedule[r * N_SUBJECTS + k]]));
        }
    } else {
        put(doc, "schedule", json_null());
    }
    json_t *failed = child(doc, "failed_runs", json_array());
    for (size_t s = 0; s < N_SUBJECTS; s++)
        for (size_t r = 0; r < rep->n_runs[s]; r++) {
            if (!rep->run_fail[s][r])
                continue;
            json_t *k = append(failed, json_object());
            put(k, "subject", text(compare_subject_names[s]));
            put(k, "run", json_integer((json_int_t)r + 1));
            put(k, "reason", text(rep->run_fail[s][r]));
        }
    json_t *cells = child(doc, "cells", json_array());
    for (size_t i = 0; i < rep->n_cells; i++)
        append(cells, cell_json(rep, i));
    return doc;
}

json_t *compare_report_document(const struct compare_report *rep)
{
    return document(rep);
}

int compare_report_json(const struct compare_report *rep, const char *path, char *err,
                        size_t err_size)
{
    json_t *doc = document(rep);
    int rc = tool_json_write(doc, path, err, err_size);
    json_decref(doc);
    return rc;
}
