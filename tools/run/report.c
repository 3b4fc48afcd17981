/* SPDX-License-Identifier: MIT */
/* report.c: owns what `libbench run` prints on stdout: the wall-time table and the resources
 * table, drawn like the test binaries' tables (lib/report/table.h), the note on max RSS, and the
 * failures with their stderr tails. No statistics of its own (stats.c), no colour, no
 * escape sequences: the same results give the same bytes. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/table.h"
#include "run.h"
#include "util/alloc.h"
#include "util/format.h"
#include "util/text.h"

#define EM_DASH "\xe2\x80\x94"
#define TAIL_LINES 10 /* lines of a failed run's stderr shown under its failure */

static char *dup_ns(double ns)
{
    char buf[BENCH__NUMBER_MAX];
    bench__format_ns(ns, buf, sizeof buf);
    return bench__xstrdup(buf);
}

/* Bytes in binary units: "812B", "3.1KiB", "104.6MiB", "2.05GiB"; NaN is an em dash. */
static char *dup_bytes(double b)
{
    if (!isfinite(b) || b < 0)
        return bench__xstrdup(EM_DASH);
    if (b < 1024.0)
        return bench__xasprintf("%.0fB", b);
    if (b < 1024.0 * 1024.0)
        return bench__xasprintf("%.1fKiB", b / 1024.0);
    if (b < 1024.0 * 1024.0 * 1024.0)
        return bench__xasprintf("%.1fMiB", b / (1024.0 * 1024.0));
    return bench__xasprintf("%.2fGiB", b / (1024.0 * 1024.0 * 1024.0));
}

static char *dup_value(double v, enum tool_ru_unit unit)
{
    char buf[BENCH__NUMBER_MAX];
    switch (unit) {
    case TOOL_RU_UNIT_NS: return dup_ns(v);
    case TOOL_RU_UNIT_BYTES: return dup_bytes(v);
    case TOOL_RU_UNIT_COUNT: break;
    }
    bench__format_metric(v, BENCH__FORMAT_COUNT, false, buf, sizeof buf);
    return bench__xstrdup(buf);
}

static char *dup_shown(const char *s)
{
    size_t n = strlen(s) + 1;
    char *buf = bench__xmalloc(n);
    bench__sanitize_copy(s, buf, n);
    return buf;
}

static bool measured(const struct run_command *c)
{
    return !c->failure && c->done > 0;
}

/* The summary of one rusage field of a command's timed runs. */
static struct bench__summary field_summary(const struct run_state *st, const struct run_command *c,
                                           enum tool_ru_field f)
{
    double *v = bench__xcalloc(c->done ? c->done : 1, sizeof *v);
    for (size_t r = 0; r < c->done; r++)
        v[r] = c->ru[r * TOOL_RU_N + f];
    struct bench__summary s = run_summarize(v, c->done);
    free(v);
    (void)st;
    return s;
}

static char *regime_cell(const struct run_state *st, const struct run_command *c)
{
    if (!measured(c))
        return bench__xstrdup(EM_DASH);
    size_t reached;
    const char *note;
    run_regime_summary(st, c, &reached, &note);
    const char *word = bench__regime_word(st->regime);
    if (reached == c->done)
        return bench__xstrdup(word);
    return bench__xasprintf("%s\xe2\x86\x92%s", word, bench__regime_word(BENCH_CACHE_STEADY));
}

static char *notes_cell(const struct run_state *st, const struct run_command *c)
{
    if (c->failure)
        return dup_shown(c->failure->message);
    char buf[600] = "";
    if (c->kind == RUN_KIND_SHELL_STARTUP)
        bench__note_append(buf, sizeof buf,
                           "the shell's own start-up: part of every other row (--shell)");
    if (st->n_files) {
        size_t reached;
        const char *note;
        run_regime_summary(st, c, &reached, &note);
        char text[500];
        if (reached < c->done) {
            bench__fmt(text, sizeof text, "%zu of %zu runs: %s", c->done - reached, c->done,
                       note && *note ? note : "ran steady-state");
            bench__note_append(buf, sizeof buf, text);
        } else if (note) {
            bench__note_append(buf, sizeof buf, note);
        }
    }
    return dup_shown(buf);
}

static bool any_notes(const struct run_state *st)
{
    for (size_t i = 0; i < st->n_cmds; i++) {
        char *n = notes_cell(st, &st->cmds[i]);
        bool some = *n != '\0';
        free(n);
        if (some)
            return true;
    }
    return false;
}

static void render(FILE *out, const char *title, const struct bench__column *cols, size_t n_cols,
                   char **cells, size_t n_rows)
{
    struct bench__table t = {title, cols, n_cols, cells, n_rows, NULL};
    struct bench__table_memory memory = {0};
    bench__table_render(out, &t, &memory);
    bench__table_memory_free(&memory);
    for (size_t i = 0; i < n_rows * n_cols; i++)
        free(cells[i]);
    free(cells);
}

static void wall_table(FILE *out, const struct run_state *st)
{
    bool regime = st->n_files > 0, notes = any_notes(st);
    struct bench__column cols[7] = {
        {"command", BENCH__LEFT}, {"runs", BENCH__RIGHT},  {"median", BENCH__RIGHT},
        {"min", BENCH__DECIMAL},  {"max", BENCH__DECIMAL},
    };
    size_t n_cols = 5;
    if (regime)
        cols[n_cols++] = (struct bench__column){"regime", BENCH__LEFT};
    if (notes)
        cols[n_cols++] = (struct bench__column){"notes", BENCH__LEFT};
    char **cells = bench__xcalloc(st->n_cmds * n_cols, sizeof *cells);
    for (size_t i = 0; i < st->n_cmds; i++) {
        const struct run_command *c = &st->cmds[i];
        char **row = cells + i * n_cols;
        size_t k = 0;
        row[k++] = dup_shown(c->name);
        if (measured(c)) {
            struct bench__summary s = run_summarize(c->wall_ns, c->done);
            char med[BENCH__NUMBER_MAX], mad[BENCH__NUMBER_MAX];
            bench__format_ns(s.median, med, sizeof med);
            bench__format_ns(s.mad, mad, sizeof mad);
            row[k++] = bench__xasprintf("%zu", c->done);
            row[k++] = bench__xasprintf("%s \xc2\xb1%s", med, mad);
            row[k++] = dup_ns(s.min);
            row[k++] = dup_ns(s.max);
        } else {
            for (int j = 0; j < 4; j++)
                row[k++] = bench__xstrdup(EM_DASH);
        }
        if (regime)
            row[k++] = regime_cell(st, c);
        if (notes)
            row[k++] = notes_cell(st, c);
    }
    render(out, NULL, cols, n_cols, cells, st->n_cmds);
}

static void resources_table(FILE *out, const struct run_state *st)
{
    struct bench__column cols[1 + TOOL_RU_N];
    cols[0] = (struct bench__column){"command", BENCH__LEFT};
    for (int f = 0; f < TOOL_RU_N; f++)
        cols[1 + f] = (struct bench__column){tool_ru_fields[f].header, BENCH__DECIMAL};
    size_t n_cols = 1 + TOOL_RU_N;
    char **cells = bench__xcalloc(st->n_cmds * n_cols, sizeof *cells);
    for (size_t i = 0; i < st->n_cmds; i++) {
        const struct run_command *c = &st->cmds[i];
        char **row = cells + i * n_cols;
        row[0] = dup_shown(c->name);
        for (int f = 0; f < TOOL_RU_N; f++) {
            double v = NAN;
            if (measured(c))
                v = field_summary(st, c, (enum tool_ru_field)f).median;
            row[1 + f] = dup_value(v, tool_ru_fields[f].unit);
        }
    }
    render(out, "median per run, from wait4", cols, n_cols, cells, st->n_cmds);
}

/* A max RSS at or below this tool's own: Linux gives a child the larger of the memory it had
 * before exec (this process's when it was spawned, shared or copied) and its own peak after.
 * This process's peak grows a little during the runs (the spawns' stacks), so the floor is a
 * range: at least the peak when the runs began, at most the peak when they ended. */
static void rss_note(FILE *out, const struct run_state *st)
{
    if (st->harness_maxrss <= 0 || st->harness_maxrss_start <= 0)
        return;
    bool low = false;
    for (size_t i = 0; i < st->n_cmds && !low; i++) {
        const struct run_command *c = &st->cmds[i];
        if (measured(c))
            low = field_summary(st, c, TOOL_RU_MAXRSS).min <= (double)st->harness_maxrss;
    }
    if (!low)
        return;
    char *first = dup_bytes((double)st->harness_maxrss_start);
    char *last = dup_bytes((double)st->harness_maxrss);
    if (st->harness_maxrss_start == st->harness_maxrss)
        fprintf(out,
                "note: max RSS counts the memory a process had before its exec, this tool's "
                "(%s): no run shows less, and one at or below it may have used less\n",
                first);
    else
        fprintf(out,
                "note: max RSS counts the memory a process had before its exec, this tool's "
                "(%s when the runs began, %s when they ended): no run shows less than the "
                "first, and one at or below the second may have used less\n",
                first, last);
    free(first);
    free(last);
}

static void failures(FILE *out, const struct run_state *st)
{
    for (size_t i = 0; i < st->n_cmds; i++) {
        const struct run_command *c = &st->cmds[i];
        if (!c->failure)
            continue;
        char name[300], msg[RUN_ERROR_MAX + 80];
        bench__sanitize_copy(c->name, name, sizeof name);
        bench__sanitize_copy(c->failure->message, msg, sizeof msg);
        fprintf(out, "failed: %s: %s (no numbers)\n", name, msg);
        const struct tool_child *s = c->failure->sample;
        if (s->outcome == TOOL_CANNOT_START)
            continue;
        switch (st->output) {
        case TOOL_OUTPUT_NULL:
            fputs("  its stderr went to /dev/null: --output=pipe keeps the end of it for this "
                  "message\n",
                  out);
            break;
        case TOOL_OUTPUT_INHERIT:
            fputs("  its stderr went to this tool's stderr (--output=inherit)\n", out);
            break;
        case TOOL_OUTPUT_PIPE: {
            char *tail = tool_child_tail(s, TAIL_LINES);
            if (!*tail) {
                fputs("  it wrote nothing on stderr\n", out);
            } else {
                fprintf(out, "  the end of its stderr%s:\n", s->tail_cut ? " (cut)" : "");
                for (char *line = tail; line;) {
                    char *nl = strchr(line, '\n');
                    if (nl)
                        *nl = '\0';
                    fprintf(out, "  | %s\n", line);
                    line = nl ? nl + 1 : NULL;
                }
            }
            free(tail);
            if (s->pipe_held)
                fputs("  (a process outside its process group kept its output open: reading "
                      "stopped 1 s after it ended)\n",
                      out);
            break;
        }
        case TOOL_OUTPUT_FILE: break; /* never an option of run */
        }
    }
}

void run_report_text(FILE *out, const struct run_state *st)
{
    wall_table(out, st);
    resources_table(out, st);
    rss_note(out, st);
    failures(out, st);
}
