/* SPDX-License-Identifier: MIT */
/* document.c: owns what a --bench run leaves (see collector.h): the tables, streamed as they
 * complete (a body's, a group's, the workloads'), the ones still due when a run stopped early, the
 * JSON document (--bench-json), the folded stacks (--profile-folded) and the exit status. It
 * keeps no event of its own: it reads what store.c kept. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/grouping.h"
#include "../../report/bench_junit.h"
#include "../../report/bench_table.h"
#include "../../report/formats.h"
#include "../../report/json.h"
#include "../../report/profile_table.h"
#include "../../report/workload_table.h"
#include "../../util/alloc.h"
#include "../../util/atomic_file.h"
#include "../host/meta.h"
#include "../measuring/sampler.h"
#include "collector_parts.h"

void bench__document_free(struct bench__collector *c)
{
    bench__strings_free(c->drawn_groups, c->n_drawn_groups);
    bench__table_memory_free(&c->memory);
}

/* Does some row of this table have a value for a metric sort key? */
static bool table_has_key(const struct bench__row *const *rows, size_t n, const char *key)
{
    if (!strcmp(key, "name") || !strcmp(key, "median/iter"))
        return true;
    for (size_t r = 0; r < n; r++)
        for (size_t k = 0; k < rows[r]->n_cells; k++)
            if (!strcmp(rows[r]->cells[k].column->name, key) ||
                !strcmp(rows[r]->cells[k].column->header, key))
                return true;
    return false;
}

/* One table of rows (flat, or a group's under `title`), sorted by --sort-by. */
static void draw(struct bench__collector *c, const struct bench__row **rows, size_t n,
                 char *const *keys, size_t n_keys, const char *title)
{
    if (n == 0)
        return;
    const char *key = c->cfg->sort_by;
    if (!key || !bench__sort_key_known(key, c->doc, c->n_doc) || !table_has_key(rows, n, key))
        key = "median/iter"; /* the default order; an unknown key is warned about once */
    bench__sort_rows(rows, n, key);
    bench__live_quiet(c);
    struct bench__table_paint paint = {.color = true};
    bench__bench_table_paint(stdout, rows, n, c->table, c->n_table, keys, n_keys, title, &c->memory,
                             c->out.color ? &paint : NULL);
    for (size_t i = 0; i < n; i++) /* --profile: each row's profile under its table */
        bench__profile_table_render(stdout, rows[i]);
    fflush(stdout);
}

void bench__document_body_table(struct bench__collector *c, size_t entry)
{
    c->item = BENCH__ITEM_NONE;
    if (entry >= c->suite->count || c->drawn[entry])
        return;
    c->drawn[entry] = true;
    const char *source = c->suite->entries[entry].full_name;
    const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].source, source))
            rows[n++] = &c->rows[i];
    draw(c, rows, n, NULL, 0, NULL);
    free(rows);
}

void bench__collect_body_table(void *ctx, const struct bench__event_body_table *e)
{
    bench__document_body_table(ctx, e->entry);
}

/* Grouped mode: the table of a group's rows, once. */
static void group_table(struct bench__collector *c, const char *group)
{
    c->item = BENCH__ITEM_NONE;
    for (size_t i = 0; i < c->n_drawn_groups; i++)
        if (!strcmp(c->drawn_groups[i], group))
            return; /* drawn before a worker died: a later worker sends it again */
    c->drawn_groups =
        bench__xrealloc(c->drawn_groups, (c->n_drawn_groups + 1) * sizeof *c->drawn_groups);
    c->drawn_groups[c->n_drawn_groups++] = bench__xstrdup(group);
    const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < c->n_rows; i++) {
        char *key = bench__group_key(&c->rows[i], c->group_keys, c->n_group_keys);
        if (!strcmp(key, group))
            rows[n++] = &c->rows[i];
        free(key);
    }
    char *title = bench__group_title(group);
    draw(c, rows, n, c->group_keys, c->n_group_keys, title);
    free(title);
    free(rows);
}

void bench__collect_group_table(void *ctx, const struct bench__event_group_table *e)
{
    group_table(ctx, e->group);
}

/* The workloads' table, once. */
static void workloads_table(struct bench__collector *c)
{
    if (c->workloads.n == 0 || c->workloads_drawn)
        return;
    c->workloads_drawn = true;
    bench__live_quiet(c);
    const char **selected = bench__xcalloc(c->n_wl + 1, sizeof *selected);
    for (size_t i = 0; i < c->n_wl; i++)
        selected[i] = c->wl[i]->name;
    bench__workloads_render(stdout, &c->workloads, selected, c->n_wl, &c->memory);
    free(selected);
    fflush(stdout);
}

void bench__collect_workloads_done(void *ctx, const struct bench__event_workloads_done *e)
{
    (void)e;
    workloads_table(ctx);
}

/* A measured row gets a null cell for every document column it has no value for (a requested
 * source that is absent): the document says "not measured", never 0. */
static void fill_unmeasured(struct bench__collector *c)
{
    for (size_t r = 0; r < c->n_rows; r++) {
        struct bench__row *row = &c->rows[r];
        if (row->state != BENCH__ROW_OK)
            continue;
        for (size_t k = 0; k < c->n_doc; k++) {
            if (!strcmp(c->doc[k]->source, "client"))
                continue;
            bool has = false;
            for (size_t i = 0; i < row->n_cells && !has; i++)
                has = row->cells[i].column == c->doc[k];
            if (has)
                continue;
            row->cells = bench__xrealloc(row->cells, (row->n_cells + 1) * sizeof *row->cells);
            row->cells[row->n_cells++] = (struct bench__cell){c->doc[k], NAN, false, 0};
        }
    }
}

static int write_json(struct bench__collector *c)
{
    fill_unmeasured(c);
    struct bench__report report = {
        .columns = c->doc,
        .n_columns = c->n_doc,
        .rows = c->rows,
        .n_rows = c->n_rows,
        .windows = c->workloads.windows,
        .n_windows = c->workloads.n,
        .has_windows = c->workloads.ran,
    };
    bench__meta_collect(&report.meta, c->suite, c->min_time_ms);
    report.meta.sample_count = BENCH__SAMPLE_COUNT;
    report.meta.clock_overhead_ns = c->clock_overhead_ns;
    report.meta.rounds = c->rounds;
    report.meta.provenance = c->provenance;
    report.meta.n_provenance = c->n_provenance;
    report.meta.incomplete = c->lost_reason;
    report.meta.environment = c->environment;
    char err[BENCH__ERROR_MAX];
    int rc =
        bench__document_write(&report, c->cfg->bench_format, c->cfg->bench_json, err, sizeof err);
    if (rc)
        fprintf(stderr, "--bench-json: %s\n", err);
    report.meta.provenance = NULL;
    report.meta.n_provenance = 0;
    bench__meta_free(&report.meta);
    return rc;
}

/* --profile-folded: every row's stacks under the row's name (its labels after it), one
 * "frames count" line each, written atomically. */
static int write_folded(const struct bench__collector *c)
{
    char *all = bench__xstrdup("");
    size_t len = 0, cap = 1;
    for (size_t r = 0; r < c->n_rows; r++) {
        const struct bench__row *row = &c->rows[r];
        if (!row->profile || row->profile->unavailable)
            continue;
        char *root = bench__xstrdup(row->name);
        for (size_t i = 0; i < row->n_labels; i++) {
            char *longer =
                bench__xasprintf("%s %s=%s", root, row->labels[i].key, row->labels[i].value);
            free(root);
            root = longer;
        }
        char *text = bench__profile_folded(row->profile, root);
        size_t n = strlen(text);
        all = bench__grow(all, &cap, len + n + 1, 1);
        memcpy(all + len, text, n + 1);
        len += n;
        free(text);
        free(root);
    }
    int rc = bench__write_file(c->cfg->profile_folded, all, len);
    if (rc)
        fprintf(stderr, "--profile-folded: cannot write '%s': %s\n", c->cfg->profile_folded,
                bench__write_file_strerror(rc));
    free(all);
    return rc;
}

/* --junit: a test case per row (report/bench_junit.c), the suite named after the program. */
static int write_junit(const struct bench__collector *c)
{
    const char *slash = strrchr(c->cfg->argv0, '/');
    int rc = bench__bench_junit_write(c->cfg->junit, slash ? slash + 1 : c->cfg->argv0, c->rows,
                                      c->n_rows);
    if (rc)
        fprintf(stderr, "--junit: cannot write '%s': %s\n", c->cfg->junit,
                bench__write_file_strerror(rc));
    return rc;
}

/* --group-by=list prints no table: a body that died while registering its cases is said here. */
static int listing_status(const struct bench__collector *c)
{
    bool failed = c->worker_status != 0 || c->lost;
    for (size_t r = 0; r < c->n_rows; r++)
        if (c->rows[r].state == BENCH__ROW_ERROR) {
            fprintf(stderr, "%s: %s\n", c->rows[r].name, c->rows[r].error);
            failed = true;
        }
    return failed ? 1 : 0;
}

/* A run that stopped incomplete still shows every row it has: the tables not drawn yet. */
static void draw_the_rest(struct bench__collector *c)
{
    if (c->cfg->n_group_by == 0) {
        for (size_t i = 0; i < c->suite->count; i++)
            bench__document_body_table(c, i);
    } else if (c->group_keys) {
        for (size_t r = 0; r < c->n_rows; r++) {
            char *key = bench__group_key(&c->rows[r], c->group_keys, c->n_group_keys);
            group_table(c, key); /* once per group: drawn groups are skipped */
            free(key);
        }
    } else { /* the keys never came: the rows in one table */
        const struct bench__row **rows = bench__xcalloc(c->n_rows + 1, sizeof *rows);
        for (size_t r = 0; r < c->n_rows; r++)
            rows[r] = &c->rows[r];
        draw(c, rows, c->n_rows, NULL, 0, NULL);
        free(rows);
    }
    workloads_table(c);
}

int bench__collector_finish(struct bench__collector *c)
{
    bench__live_quiet(c);
    if (c->listing)
        return listing_status(c);
    if (!c->done)
        draw_the_rest(c);
    size_t errors = c->workloads.failures;
    for (size_t r = 0; r < c->n_rows; r++)
        errors += c->rows[r].state == BENCH__ROW_ERROR;
    for (size_t i = 0; i < c->workloads.n; i++)
        errors += c->workloads.windows[i].state == BENCH__ROW_ERROR;
    if (c->cfg->bench_json && write_json(c) != 0)
        errors++;
    if (c->cfg->profile_folded && write_folded(c) != 0)
        errors++;
    if (c->cfg->junit && write_junit(c) != 0)
        errors++;
    if (c->worker_status == 2)
        return 2; /* a usage error found at the end (an unknown --metrics name) beats a failure */
    return errors || c->worker_status || c->lost ? 1 : 0;
}
