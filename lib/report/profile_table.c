/* SPDX-License-Identifier: MIT */
/* profile_table.c: owns how a row's profile reads on the console: the header line (samples,
 * rate asked and reached, on-CPU time, lost samples), the harness's share, the self, inclusive and
 * hot-line tables with shares of every sample (marked as estimates under the minimum), and the
 * unsymbolised samples with their reasons. It never samples or symbolises. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "profile_table.h"
#include "table.h"

static char *share_text(const struct bench__profile *p, uint64_t samples)
{
    return bench__xasprintf("%s%.1f%%", bench__profile_estimate(p) ? "\u2248" : "",
                            bench__profile_share(p, samples));
}

/* One table of entries (functions or lines), the unsymbolised reasons after the functions. */
static void entries_table(FILE *out, const struct bench__profile *p, const char *title,
                          const struct bench__profile_entry *e, size_t n, bool functions,
                          bool with_unsymbolised)
{
    static const struct bench__column fcols[] = {{"share", BENCH__RIGHT},
                                                 {"samples", BENCH__RIGHT},
                                                 {"function", BENCH__LEFT},
                                                 {"module", BENCH__LEFT}};
    static const struct bench__column lcols[] = {
        {"share", BENCH__RIGHT}, {"samples", BENCH__RIGHT}, {"line", BENCH__LEFT}};
    size_t n_cols = functions ? 4 : 3;
    size_t extra = with_unsymbolised ? p->n_unsymbolised : 0;
    if (n + extra == 0)
        return;
    char **cells = bench__xcalloc((n + extra) * n_cols + 1, sizeof *cells);
    size_t r = 0;
    for (size_t i = 0; i < n; i++, r++) {
        char **row = cells + r * n_cols;
        row[0] = share_text(p, e[i].samples);
        row[1] = bench__xasprintf("%llu", (unsigned long long)e[i].samples);
        row[2] = bench__xstrdup(e[i].name);
        bench__sanitize(row[2]);
        if (functions) {
            row[3] = bench__xstrdup(e[i].module ? e[i].module : "\u2014");
            bench__sanitize(row[3]);
        }
    }
    for (size_t i = 0; i < extra; i++, r++) {
        const struct bench__profile_entry *u = &p->unsymbolised[i];
        char **row = cells + r * n_cols;
        row[0] = share_text(p, u->samples);
        row[1] = bench__xasprintf("%llu", (unsigned long long)u->samples);
        row[2] = bench__xasprintf("(not symbolised: %s)", u->name);
        bench__sanitize(row[2]);
        row[3] = bench__xstrdup(u->module ? u->module : "\u2014");
        bench__sanitize(row[3]);
    }
    struct bench__table t = {title, functions ? fcols : lcols, n_cols, cells, r, NULL};
    struct bench__table_memory memory = {0}; /* each table sized on its own */
    bench__table_render(out, &t, &memory);
    bench__table_memory_free(&memory);
    for (size_t i = 0; i < r * n_cols; i++)
        free(cells[i]);
    free(cells);
}

void bench__profile_table_render(FILE *out, const struct bench__row *row)
{
    const struct bench__profile *p = row->profile;
    if (!p)
        return;
    /* the row's full identity: its name and labels, as the messages write a cell (issue 32, 11) */
    char *name = bench__xstrdup(row->name ? row->name : "");
    for (size_t i = 0; i < row->n_labels; i++) {
        char *longer = bench__xasprintf("%s%s%s=%s", name, i ? "," : " {", row->labels[i].key,
                                        row->labels[i].value);
        free(name);
        name = longer;
    }
    if (row->n_labels) {
        char *closed = bench__xasprintf("%s}", name);
        free(name);
        name = closed;
    }
    bench__sanitize(name);
    if (p->unavailable) {
        fprintf(out, "profile of %s: not taken (%s)\n\n", name, p->unavailable);
        free(name);
        return;
    }
    char reached[32] = "\u2014"; /* the achieved rate: every sample of the pass, harness's too */
    if (!isnan(p->hz_reached))
        bench__fmt(reached, sizeof reached, "%.0f", p->hz_reached);
    fprintf(out,
            "profile of %s: %llu samples of %s, %s Hz reached of the %.0f Hz asked, over %.3f s on "
            "CPU, %llu iterations",
            name, (unsigned long long)p->samples, p->event ? p->event : "?", reached, p->hz,
            isnan(p->running_ns) ? NAN : p->running_ns / 1e9, (unsigned long long)p->iterations);
    if (p->lost)
        fprintf(out, ", %llu samples lost", (unsigned long long)p->lost);
    fprintf(out, "\n");
    if (bench__profile_estimate(p))
        fprintf(out, "  fewer than %d samples: shares are estimates (\u2248)\n",
                BENCH__PROFILE_MIN_SAMPLES);
    if (p->n_unsymbolised_samples)
        fprintf(out, "  %llu samples not symbolised (counted in every share)\n",
                (unsigned long long)p->n_unsymbolised_samples);
    if (p->harness_unmeasured)
        fprintf(out, "  harness (libbench's own code): \u2014 (%s)\n", p->harness_unmeasured);
    else if (p->samples + p->harness_samples)
        fprintf(out,
                "  harness (libbench's own code): %llu of %llu samples, %.1f%% of the pass, not in "
                "the tables below\n",
                (unsigned long long)p->harness_samples,
                (unsigned long long)(p->samples + p->harness_samples),
                100.0 * (double)p->harness_samples / (double)(p->samples + p->harness_samples));
    else
        fprintf(out, "  harness (libbench's own code): \u2014 (no sample in the pass)\n");
    if (p->note && *p->note)
        fprintf(out, "  %s\n", p->note);
    entries_table(out, p, "self samples", p->self, p->n_self, true, true);
    if (p->chains)
        entries_table(out, p, "inclusive samples", p->inclusive, p->n_inclusive, true, false);
    if (p->hot && p->n_lines) {
        char *title = bench__xasprintf("lines of %s", p->hot);
        bench__sanitize(title);
        entries_table(out, p, title, p->lines, p->n_lines, false, false);
        free(title);
    }
    fprintf(out, "\n");
    free(name);
}
