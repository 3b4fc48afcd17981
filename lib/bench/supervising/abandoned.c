/* SPDX-License-Identifier: MIT */
/* abandoned.c: owns what the collector does for a worker that died or hung (see collector.h):
 * the item it left becomes an error row (an error window for a workload) saying how it ended and
 * the last line it printed; a worker lost between items makes the run incomplete; and the resume
 * state tells the next worker what not to run again and what was said already. It starts and
 * kills no process (supervisor.c does). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/grouping.h"
#include "../../util/alloc.h"
#include "../../util/text.h"
#include "collector_parts.h"

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void bench__resume_free(struct bench__resume *r)
{
    free(r->skip_entry);
    free(r->register_only);
    free(r->skip_case); /* the collector's strings */
    bench__strings_free(r->group_keys, r->n_group_keys);
    free(r->provenance); /* borrowed strings; drawn_groups and said are the collector's lists */
    free(r->client_columns);
    memset(r, 0, sizeof *r);
}

/* The last non-empty line of a tail: [*start, end), false when there is none. */
static bool last_line(const struct bench__tail *t, size_t *start, size_t *end)
{
    size_t e = t->len;
    while (e > 0 && (t->text[e - 1] == '\n' || t->text[e - 1] == '\r'))
        e--;
    size_t s = e;
    while (s > 0 && t->text[s - 1] != '\n')
        s--;
    *start = s;
    *end = e;
    return s < e;
}

/* `what`, and the last line the item printed, if any: on stderr (where a failing check, an
 * assertion or a sanitizer writes), else on stdout. */
static char *abandon_reason(const struct bench__collector *c, const char *what)
{
    size_t start, end;
    const struct bench__tail *t = &c->tail[1];
    if (!last_line(t, &start, &end)) {
        t = &c->tail[0];
        if (!last_line(t, &start, &end))
            return bench__xstrdup(what);
    }
    char line[200];
    char *text = bench__xasprintf("%.*s", (int)(end - start), t->text + start);
    bench__sanitize_copy(text, line, sizeof line);
    free(text);
    return bench__xasprintf("%s; last output: %s", what, line);
}

/* The name of a body's error row: the test's, marked " (body)" when a row of the body (a loop
 * measured before it died) has it already, as a body's failure row is named in one process. */
static char *body_row_name(const struct bench__collector *c, const struct bench__entry *e)
{
    for (size_t i = 0; i < c->n_rows; i++)
        if (!strcmp(c->rows[i].source, e->full_name) && !strcmp(c->rows[i].name, e->full_name))
            return bench__xasprintf("%s (body)", e->full_name);
    return bench__xstrdup(e->full_name);
}

/* A line on stderr for each item a dead or hung worker left: a CI log that keeps only stderr
 * still names it (--group-by=list says them at the end, with its other failures). */
static void say_abandoned(struct bench__collector *c, const char *name, const char *error)
{
    if (c->listing)
        return;
    bench__live_quiet(c);
    fprintf(stderr, "libbench: %s: %s\n", name, error);
    fflush(stderr);
}

bool bench__collector_abandon(struct bench__collector *c, const char *what)
{
    if (c->item == BENCH__ITEM_NONE || c->item_entry >= c->suite->count)
        return false;
    const struct bench__entry *e = &c->suite->entries[c->item_entry];
    char *reason = abandon_reason(c, what);
    if (c->item == BENCH__ITEM_WORKLOAD) {
        struct bench__window *win = bench__store_new_window(c);
        win->name = bench__xstrdup(e->full_name);
        win->reps = e->test->workload->reps ? e->test->workload->reps : 1;
        win->state = BENCH__ROW_ERROR;
        win->error = reason;
        win->wall = (struct bench__window_time){NAN, NAN, NAN, NAN, NAN, NAN, NULL};
        for (int i = 0; i < 5; i++)
            win->psi[i] = NAN;
        win->note = bench__xstrdup("");
        c->ended[c->item_entry] = true;
        c->abandoned[c->item_entry] = true;
        say_abandoned(c, win->name, win->error);
    } else {
        bool a_case = c->item == BENCH__ITEM_CASE;
        char *name = a_case ? bench__xstrdup(c->item_name) : body_row_name(c, e);
        struct bench__row *r = bench__store_new_row(c);
        r->name = name;
        r->source = bench__xstrdup(e->full_name);
        r->labels = a_case ? bench__store_copy_labels(c->item_labels, c->item_n_labels)
                           : bench__xcalloc(1, sizeof *r->labels);
        r->n_labels = a_case ? c->item_n_labels : 0;
        r->state = BENCH__ROW_ERROR;
        r->stats = (struct bench__summary){NAN, NAN, NAN, NAN};
        r->error = reason;
        bench__store_admit_row(c);
        say_abandoned(c, c->rows[c->n_rows - 1].name, c->rows[c->n_rows - 1].error);
        if (!a_case) {
            c->abandoned[c->item_entry] = true;
            if (!c->cfg->n_group_by) /* streamed: the body's table is due now */
                bench__document_body_table(c, c->item_entry);
        }
    }
    c->item = BENCH__ITEM_NONE;
    return true;
}

void bench__collector_lost(struct bench__collector *c, const char *sentence)
{
    bench__live_quiet(c);
    fprintf(stderr, "libbench: %s; the run stops here, incomplete\n", sentence);
    free(c->lost_reason);
    c->lost_reason = bench__xasprintf("%s; the run stopped there", sentence);
    c->lost = true;
}

const struct bench__resume *bench__collector_resume(struct bench__collector *c)
{
    struct bench__resume *r = &c->resume;
    bench__resume_free(r);
    c->n_slots = 0; /* the next worker's slots start again */
    r->active = true;
    size_t n = c->suite->count;
    r->skip_entry = bench__xcalloc(n + 1, sizeof *r->skip_entry);
    r->register_only = bench__xcalloc(n + 1, sizeof *r->register_only);
    bool grouped = c->cfg->n_group_by > 0;
    for (size_t i = 0; i < n; i++) {
        bool workload = c->suite->entries[i].test->kind == BENCH_KIND_WORKLOAD;
        r->skip_entry[i] = c->abandoned[i] || c->drawn[i] || (workload && c->ended[i]);
        r->register_only[i] = !r->skip_entry[i] && !workload && c->ended[i];
    }
    /* the cases begun so far, as their worker named them (a row the collector renamed keeps
     * the identity it was begun with), sorted for bsearch */
    r->skip_case = bench__xcalloc(c->n_begun_cases + 1, sizeof *r->skip_case);
    memcpy(r->skip_case, c->begun_cases, c->n_begun_cases * sizeof *r->skip_case);
    r->n_skip_case = c->n_begun_cases;
    if (r->n_skip_case > 1)
        qsort(r->skip_case, r->n_skip_case, sizeof *r->skip_case, compare_strings);
    if (grouped && c->group_keys) {
        r->group_keys = bench__xcalloc(c->n_rows + 1, sizeof *r->group_keys);
        for (size_t i = 0; i < c->n_rows; i++)
            r->group_keys[r->n_group_keys++] =
                bench__group_key(&c->rows[i], c->group_keys, c->n_group_keys);
    }
    r->drawn_groups = c->drawn_groups;
    r->n_drawn_groups = c->n_drawn_groups;
    r->said = c->said;
    r->n_said = c->n_said;
    r->clock_overhead_ns = c->clock_overhead_ns;
    r->provenance = bench__xcalloc(c->n_provenance + 1, sizeof *r->provenance);
    for (size_t i = 0; i < c->n_provenance; i++)
        r->provenance[r->n_provenance++] = c->provenance[i];
    r->client_columns = bench__xcalloc(c->n_cols + 1, sizeof *r->client_columns);
    for (size_t i = 0; i < c->n_cols; i++)
        if (!strcmp(c->cols[i]->source, "client"))
            r->client_columns[r->n_client_columns++] = (char *)c->cols[i]->name;
    return r;
}
