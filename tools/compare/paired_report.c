/* SPDX-License-Identifier: MIT */
/* paired_report.c: owns what compare's paired mode prints: its header (the design, the rounds,
 * why it stopped), the warnings, the per-cell table (rounds, medians, the Hodges-Lehmann delta
 * with its interval, the A/A floor, p, q, the state and its reason), the verdict line, and the
 * --json document. No statistics: every figure is the engine's (lib/stats/paired.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <bench/bench.h>

#include "report/table.h"
#include "util/alloc.h"
#include "util/format.h"
#include "util/text.h"
#include "common/json.h"
#include "paired.h"

#define EM_DASH "\xe2\x80\x94"

static const struct bench__paired_out *out_of(const struct paired_run *r, size_t i)
{
    const struct paired_cell *c = &r->cells[i];
    return c->item >= 0 && r->looked ? &r->out[c->item] : NULL;
}

static char *ns_text(double v)
{
    if (!isfinite(v))
        return bench__xstrdup(EM_DASH);
    char buf[64];
    bench__format_ns(v, buf, sizeof buf);
    return bench__xstrdup(buf);
}

/* The two medians in one unit, with the digits that show the delta the row reports (the median
 * of the per-round ratios, which the two medians may hide). */
static void medians_text(const struct bench__paired_out *o, char **row)
{
    double b = o ? o->median_b : NAN, c = o ? o->median_c : NAN;
    if (!isfinite(b) || !isfinite(c)) {
        row[0] = ns_text(b);
        row[1] = ns_text(c);
        return;
    }
    double apart = fabs(b - c),
           moved = isfinite(o->rel_delta) ? fabs(o->rel_delta) * fmin(b, c) : 0;
    double step = apart > 0 && moved > 0 ? fmin(apart, moved) : fmax(apart, moved);
    char bb[64], cb[64];
    bench__format_ns_pair_step(b, c, step, bb, cb, sizeof bb);
    row[0] = bench__xstrdup(bb);
    row[1] = bench__xstrdup(cb);
}

static char *pct(double v)
{
    return isfinite(v) ? bench__xasprintf("%+.2f%%", v * 100.0) : bench__xstrdup(EM_DASH);
}

static char *prob(double v)
{
    return isfinite(v) ? bench__xasprintf("%.3g", v) : bench__xstrdup(EM_DASH);
}

static char *shown(const char *s)
{
    size_t n = strlen(s) + 1;
    char *buf = bench__xmalloc(n);
    bench__sanitize_copy(s, buf, n);
    return buf;
}

/* The state as the table shows it: UNMEASURED for a failed cell, the direction of a claim. */
static char *state_text(const struct paired_run *r, size_t i)
{
    const struct bench__paired_out *o = out_of(r, i);
    if (r->cells[i].fail || !o)
        return bench__xstrdup("UNMEASURED");
    const char *name = bench__paired_state_name(o->state);
    if (o->direction && o->state == BENCH__PAIRED_UNCONFIRMED)
        return bench__xasprintf("%s %s", name, o->direction);
    return bench__xstrdup(name);
}

static char *reason_text(const struct paired_run *r, size_t i)
{
    const struct paired_cell *c = &r->cells[i];
    const struct bench__paired_out *o = out_of(r, i);
    if (c->fail)
        return shown(c->fail);
    if (!o)
        return bench__xstrdup(c->count ? "no_complete_round" : "not_calibrated");
    char buf[200] = "";
    if (o->reason)
        bench__note_append(buf, sizeof buf, o->reason);
    if (o->reason && !strcmp(o->reason, "ci_wider_than_detect") && isfinite(o->ci_lo) &&
        isfinite(o->ci_hi) && isfinite(o->aa_rel)) {
        /* the engine's equivalence test: the interval moved out by the control's shift */
        char reach[96];
        bench__fmt(reach, sizeof reach, "CI + A/A shift reach \xc2\xb1%.2f%%",
                   (fmax(fabs(o->ci_lo), fabs(o->ci_hi)) + fabs(o->aa_rel)) * 100.0);
        bench__note_append(buf, sizeof buf, reach);
    }
    if (!o->decided && o->rounds_needed > 0) {
        char need[64];
        bench__fmt(need, sizeof need, "rounds needed %u", o->rounds_needed);
        bench__note_append(buf, sizeof buf, need);
    }
    return bench__xstrdup(buf);
}

static void print_table(FILE *out, const struct paired_run *r)
{
    bool labels = false;
    for (size_t i = 0; i < r->n_cells; i++)
        labels = labels || r->cells[i].operation[0];
    static const struct bench__column all[] = {
        {"benchmark", BENCH__LEFT},   {"labels", BENCH__LEFT},       {"rounds", BENCH__RIGHT},
        {"baseline", BENCH__DECIMAL}, {"candidate", BENCH__DECIMAL}, {"delta", BENCH__DECIMAL},
        {"CI", BENCH__LEFT},          {"floor", BENCH__DECIMAL},     {"p", BENCH__DECIMAL},
        {"q", BENCH__DECIMAL},        {"state", BENCH__LEFT},        {"reason", BENCH__LEFT},
    };
    enum { N_ALL = sizeof all / sizeof *all };
    struct bench__column cols[N_ALL];
    size_t n_cols = 0;
    for (size_t k = 0; k < N_ALL; k++)
        if (k != 1 || labels)
            cols[n_cols++] = all[k];
    char **cells = bench__xcalloc(r->n_cells * n_cols + 1, sizeof *cells);
    for (size_t i = 0; i < r->n_cells; i++) {
        const struct paired_cell *c = &r->cells[i];
        const struct bench__paired_out *o = out_of(r, i);
        char **row = cells + i * n_cols;
        size_t k = 0;
        row[k++] = shown(c->name);
        if (labels)
            row[k++] = shown(c->operation);
        row[k++] = bench__xasprintf("%zu", c->rounds);
        medians_text(o, row + k);
        k += 2;
        row[k++] = pct(o ? o->rel_delta : NAN);
        if (o && isfinite(o->ci_lo) && isfinite(o->ci_hi))
            row[k++] = bench__xasprintf("[%+.2f%%, %+.2f%%] %.4g%%", o->ci_lo * 100.0,
                                        o->ci_hi * 100.0, o->level * 100.0);
        else
            row[k++] = bench__xstrdup(EM_DASH);
        row[k++] = o && isfinite(o->floor) ? bench__xasprintf("\xc2\xb1%.2f%%", o->floor * 100.0)
                                           : bench__xstrdup(EM_DASH);
        row[k++] = prob(o ? o->p : NAN);
        row[k++] = prob(o ? o->q_adjusted : NAN);
        row[k++] = state_text(r, i);
        row[k++] = reason_text(r, i);
    }
    struct bench__table t = {NULL, cols, n_cols, cells, r->n_cells, NULL};
    struct bench__table_memory memory = {0};
    bench__table_render(out, &t, &memory);
    bench__table_memory_free(&memory);
    for (size_t j = 0; j < r->n_cells * n_cols; j++)
        free(cells[j]);
    free(cells);
}

static const char *stop_text(const char *stop)
{
    if (!strcmp(stop, "all_decided"))
        return "every cell decided";
    if (!strcmp(stop, "budget"))
        return "the --budget was spent";
    if (!strcmp(stop, "no_cell"))
        return "no cell could be measured";
    return "the round cap";
}

static const char *verdict_reason(const struct paired_run *r)
{
    return r->reason ? r->reason : "no_claimed_regression";
}

void paired_report_text(FILE *out, const struct paired_run *r)
{
    const struct bench__paired_params *p = &r->params;
    size_t most = 0;
    for (size_t i = 0; i < r->n_cells; i++)
        most = r->cells[i].rounds > most ? r->cells[i].rounds : most;
    fprintf(out,
            "libbench compare: paired mode (%s; %s), seed %" PRIu64 ", q %g, detect \xc2\xb1%g%%, "
            "A/A floor \xe2\x89\xa5 %g%%; %zu cell%s, up to %zu rounds (cap %zu); stopped after "
            "%.1f s: "
            "%s\n",
            r->opts->duet ? "duet: baseline beside candidate, then beside control, each pair at "
                            "once on two CPUs"
                          : "baseline, candidate and control sampled in turn, one sample each "
                            "per round, shuffled",
            r->opts->fresh ? "new processes every round" : "the same processes throughout",
            p->global_seed, p->q, p->detect * 100.0, BENCH__PAIRED_TIME_F_MIN * 100.0, r->n_cells,
            r->n_cells == 1 ? "" : "s", most, p->max_rounds, r->wall_s, stop_text(r->stop));
    if (r->opts->duet)
        fprintf(out, "duet: CPUs %d and %d; %zu of %zu pairs began late (a setup past the start)\n",
                r->duet_cpus[0], r->duet_cpus[1], r->late, r->duets);
    for (size_t w = 0; w < r->n_warnings; w++)
        fprintf(out, "warning: %s\n", r->warnings[w]);
    for (size_t s = 0; s < N_SUBJECTS; s++)
        if (r->restarts[s])
            fprintf(out,
                    "note: the %s was restarted %zu time%s (its cells at the time are "
                    "UNMEASURED)\n",
                    compare_subject_names[s], r->restarts[s], r->restarts[s] == 1 ? "" : "s");
    if (r->n_cells > 0)
        print_table(out, r);
    else
        fputs("no cell: the baseline listed none\n", out);
    fprintf(out, "verdict: %s (%s)\n", r->verdict, verdict_reason(r));
    if (r->looked && r->result.rounds_needed > 0 && r->exit_code != 1)
        fprintf(out, "rounds needed: %u\n", r->result.rounds_needed);
}

/* ---- the --json document ------------------------------------------------------------------ */

static void put(json_t *o, const char *key, json_t *v)
{
    if (!o || !v || json_object_set_new(o, key, v) != 0)
        bench__out_of_memory();
}

static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *string_or_null(const char *s)
{
    return s ? tool_json_text(s) : json_null();
}

static json_t *values_json(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        if (!a || json_array_append_new(a, json_real(v[i])) != 0)
            bench__out_of_memory();
    return a;
}

static json_t *cell_json(const struct paired_run *r, size_t i)
{
    const struct paired_cell *c = &r->cells[i];
    const struct bench__paired_out *o = out_of(r, i);
    json_t *j = json_object();
    put(j, "name", tool_json_text(c->name));
    put(j, "operation", tool_json_text(c->operation));
    put(j, "iterations", c->count ? json_integer((json_int_t)c->count) : json_null());
    put(j, "rounds", json_integer((json_int_t)c->rounds));
    char *state = state_text(r, i);
    put(j, "state", tool_json_text(state));
    free(state);
    put(j, "direction", string_or_null(o && !c->fail ? o->direction : NULL));
    if (o && !c->fail) { /* the engine's reason */
        put(j, "reason", string_or_null(o->reason));
    } else { /* why the cell was not measured, or not judged */
        char *reason = reason_text(r, i);
        put(j, "reason", tool_json_text(reason));
        free(reason);
    }
    put(j, "decided", json_boolean(o && !c->fail && o->decided));
    put(j, "look", o ? json_integer((json_int_t)o->look) : json_null());
    put(j, "rounds_used", o ? json_integer((json_int_t)o->rounds_used) : json_null());
    put(j, "ci_level", real_or_null(o ? o->level : NAN));
    put(j, "median_baseline_ns", real_or_null(o ? o->median_b : NAN));
    put(j, "median_candidate_ns", real_or_null(o ? o->median_c : NAN));
    put(j, "median_aa_ns", real_or_null(o ? o->median_a : NAN));
    put(j, "rel_delta", real_or_null(o ? o->rel_delta : NAN));
    put(j, "abs_delta_ns", real_or_null(o ? o->abs_delta : NAN));
    put(j, "ci_lo", real_or_null(o ? o->ci_lo : NAN));
    put(j, "ci_hi", real_or_null(o ? o->ci_hi : NAN));
    put(j, "aa_rel", real_or_null(o ? o->aa_rel : NAN));
    put(j, "aa_ci_lo", real_or_null(o ? o->aa_ci_lo : NAN));
    put(j, "aa_ci_hi", real_or_null(o ? o->aa_ci_hi : NAN));
    put(j, "floor", real_or_null(o ? o->floor : NAN));
    put(j, "p", real_or_null(o ? o->p : NAN));
    put(j, "p_method", string_or_null(o ? o->p_method : NULL));
    if (o && o->p_den) {
        char frac[64];
        bench__fmt(frac, sizeof frac, "%" PRIu64 "/%" PRIu64, o->p_num, o->p_den);
        put(j, "p_exact", tool_json_text(frac));
    } else {
        put(j, "p_exact", json_null());
    }
    put(j, "q", real_or_null(o ? o->q_adjusted : NAN));
    put(j, "bh_rejected", json_boolean(o && o->bh_rejected));
    put(j, "rounds_needed",
        o && !o->decided && o->rounds_needed ? json_integer(o->rounds_needed) : json_null());
    json_t *values = json_object();
    put(j, "values_ns", values);
    for (size_t s = 0; s < N_SUBJECTS; s++)
        put(values, compare_subject_names[s], values_json(c->v[s], c->rounds));
    return j;
}

int paired_report_json(const struct paired_run *r, const char *path, char *err, size_t err_size)
{
    const struct compare_options *o = r->opts;
    const struct bench__paired_params *p = &r->params;
    json_t *doc = json_object();
    put(doc, "tool", tool_json_text("libbench compare"));
    put(doc, "version", tool_json_text(bench_version_string()));
    put(doc, "mode", tool_json_text("paired"));
    put(doc, "verdict", tool_json_text(r->verdict));
    put(doc, "exit", json_integer(r->exit_code));
    put(doc, "reason", tool_json_text(verdict_reason(r)));
    put(doc, "rounds_needed",
        r->looked && r->result.rounds_needed ? json_integer(r->result.rounds_needed) : json_null());
    put(doc, "stop", tool_json_text(r->stop));
    put(doc, "wall_s", json_real(r->wall_s));
    put(doc, "process_starts", json_integer((json_int_t)r->processes));
    json_t *warnings = json_array();
    put(doc, "warnings", warnings);
    for (size_t w = 0; w < r->n_warnings; w++)
        if (json_array_append_new(warnings, tool_json_text(r->warnings[w])) != 0)
            bench__out_of_memory();
    json_t *params = json_object();
    put(doc, "params", params);
    char seed[32];
    bench__fmt(seed, sizeof seed, "%" PRIu64, p->global_seed);
    put(params, "global_seed", tool_json_text(seed));
    put(params, "detect", json_real(p->detect));
    put(params, "q", json_real(p->q));
    put(params, "alpha", json_real(p->alpha));
    put(params, "f_min", json_real(BENCH__PAIRED_TIME_F_MIN));
    put(params, "min_delta_ns", json_real(o->min_delta_ns));
    put(params, "first_look", json_integer((json_int_t)p->first_look));
    put(params, "max_rounds", json_integer((json_int_t)p->max_rounds));
    put(params, "budget_s", json_real(o->budget_s));
    put(params, "processes", tool_json_text(o->fresh ? "round" : "once"));
    if (o->duet) {
        json_t *duet = json_object();
        put(duet, "cpus", json_pack("[ii]", r->duet_cpus[0], r->duet_cpus[1]));
        put(duet, "pairs", json_integer((json_int_t)r->duets));
        put(duet, "late", json_integer((json_int_t)r->late));
        put(doc, "duet", duet);
    } else {
        put(doc, "duet", json_null());
    }
    json_t *subjects = json_object();
    put(doc, "subjects", subjects);
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        json_t *k = json_object();
        put(subjects, compare_subject_names[s], k);
        put(k, "binary", tool_json_text(o->bin[s == SUBJ_CANDIDATE ? 1 : 0]));
        put(k, "restarts", json_integer((json_int_t)r->restarts[s]));
        compare_provenance_paired_json(k, &r->facts[s]);
    }
    json_t *cells = json_array();
    put(doc, "cells", cells);
    for (size_t i = 0; i < r->n_cells; i++)
        if (json_array_append_new(cells, cell_json(r, i)) != 0)
            bench__out_of_memory();
    int rc = tool_json_write(doc, path, err, err_size);
    json_decref(doc);
    return rc;
}
