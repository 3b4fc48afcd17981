/* SPDX-License-Identifier: MIT */
/* channels.c: owns `libbench compare --metric=A,B`: two channels (time and instructions, say)
 * judged on the same runs, each by its own rule and floor, a state per channel per cell, the
 * cells where the channels move in opposite directions beyond their floors (channels_disagree),
 * and the one exit status the two channels give (docs/reference/cli.md, "Two channels"). */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "compare.h"
#include "report/table.h"
#include "util/alloc.h"
#include "util/text.h"

#define EM_DASH "\xe2\x80\x94"

/* One cell as one channel judged it. */
struct channel_cell {
    char *key, *name, *operation;
    char *state; /* as the table shows it */
    const char *direction;
    double rel_delta, floor;
    bool measured;
};

struct channel {
    const char *name;
    struct channel_cell *cells;
    size_t n_cells;
    const char *verdict;
    int exit_code;
    json_t *doc;
};

/* -1 (down), +1 (up) beyond the floor, 0 within it; 2 when not measured. */
static int movement(const struct channel_cell *c)
{
    if (!c || !c->measured || !isfinite(c->rel_delta))
        return 2;
    double floor = isfinite(c->floor) ? c->floor : 0;
    return c->rel_delta > floor ? 1 : c->rel_delta < -floor ? -1 : 0;
}

static const struct channel_cell *find(const struct channel *ch, const char *key)
{
    for (size_t i = 0; i < ch->n_cells; i++)
        if (strcmp(ch->cells[i].key, key) == 0)
            return &ch->cells[i];
    return NULL;
}

/* Both channels measured the cell: whether they moved in opposite directions beyond their
 * floors; -1 when one of them did not measure it. */
static int disagree(const struct channel_cell *a, const struct channel_cell *b)
{
    int ma = movement(a), mb = movement(b);
    if (ma == 2 || mb == 2)
        return -1;
    return ma * mb < 0;
}

static void take(struct channel *ch, const struct compare_judged *j)
{
    const struct compare_report *rep = &j->rep;
    ch->n_cells = rep->n_cells;
    ch->cells = bench__xcalloc(rep->n_cells ? rep->n_cells : 1, sizeof *ch->cells);
    for (size_t i = 0; i < rep->n_cells; i++) {
        const struct bench__cmp_cell_out *o = &rep->out[i];
        struct channel_cell *c = &ch->cells[i];
        c->key = bench__xstrdup(rep->cells[i].row->key);
        c->name = bench__xstrdup(rep->cells[i].row->name);
        c->operation = bench__xstrdup(rep->cells[i].row->operation);
        c->state = compare_cell_state(o);
        c->direction = o->direction;
        c->rel_delta = o->rel_delta;
        c->floor = o->floor;
        c->measured = o->state != BENCH__CMP_UNMEASURED;
    }
    ch->verdict = j->result.verdict;
    ch->exit_code = j->result.exit_code;
}

static void channel_free(struct channel *ch)
{
    for (size_t i = 0; i < ch->n_cells; i++) {
        free(ch->cells[i].key);
        free(ch->cells[i].name);
        free(ch->cells[i].operation);
        free(ch->cells[i].state);
    }
    free(ch->cells);
    json_decref(ch->doc);
}

/* A channel's state of a cell with its delta: "CLAIMED regression (+1.00%)". */
static char *shown_state(const struct channel_cell *c)
{
    if (!c)
        return bench__xstrdup(EM_DASH);
    if (!isfinite(c->rel_delta))
        return bench__xstrdup(c->state);
    return bench__xasprintf("%s (%+.2f%%)", c->state, c->rel_delta * 100.0);
}

static void print_both(FILE *out, const struct channel ch[2])
{
    bool labels = false;
    for (size_t i = 0; i < ch[0].n_cells; i++)
        labels = labels || ch[0].cells[i].operation[0];
    char h0[64], h1[64];
    bench__sanitize_copy(ch[0].name, h0, sizeof h0);
    bench__sanitize_copy(ch[1].name, h1, sizeof h1);
    struct bench__column all[] = {{"benchmark", BENCH__LEFT},
                                  {"labels", BENCH__LEFT},
                                  {h0, BENCH__LEFT},
                                  {h1, BENCH__LEFT},
                                  {"channels disagree", BENCH__LEFT}};
    enum { N_ALL = sizeof all / sizeof *all };
    struct bench__column cols[N_ALL];
    size_t n_cols = 0;
    for (size_t c = 0; c < N_ALL; c++)
        if (c != 1 || labels)
            cols[n_cols++] = all[c];
    size_t n = ch[0].n_cells;
    char **cells = bench__xcalloc(n * n_cols + 1, sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        const struct channel_cell *a = &ch[0].cells[i], *b = find(&ch[1], a->key);
        char **row = cells + i * n_cols;
        size_t k = 0;
        char shown[512];
        bench__sanitize_copy(a->name, shown, sizeof shown);
        row[k++] = bench__xstrdup(shown);
        if (labels) {
            bench__sanitize_copy(a->operation, shown, sizeof shown);
            row[k++] = bench__xstrdup(shown);
        }
        row[k++] = shown_state(a);
        row[k++] = shown_state(b);
        int d = disagree(a, b);
        row[k++] = bench__xstrdup(d < 0 ? EM_DASH : d ? "yes" : "no");
    }
    struct bench__table t = {NULL, cols, n_cols, cells, n, NULL};
    struct bench__table_memory memory = {0};
    bench__table_render(out, &t, &memory);
    bench__table_memory_free(&memory);
    for (size_t i = 0; i < n * n_cols; i++)
        free(cells[i]);
    free(cells);
}

/* The exit status of the two channels: a claimed regression in either wins (1), then anything
 * either could not measure or decide (2), else 0. */
static int both_exit(const struct channel ch[2])
{
    if (ch[0].exit_code == 1 || ch[1].exit_code == 1)
        return 1;
    return ch[0].exit_code || ch[1].exit_code ? 2 : 0;
}

static const char *verdict_of(int exit_code)
{
    return exit_code == 1 ? "REGRESSION" : exit_code == 0 ? "PASS" : "UNMEASURED";
}

static json_t *both_json(const struct channel ch[2], int exit_code)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "tool", json_string("libbench compare"));
    json_object_set_new(doc, "verdict", json_string(verdict_of(exit_code)));
    json_object_set_new(doc, "exit", json_integer(exit_code));
    json_t *names = json_array(), *channels = json_object(), *cells = json_array();
    for (size_t k = 0; k < 2; k++) {
        json_array_append_new(names, json_string(ch[k].name));
        json_object_set(channels, ch[k].name, ch[k].doc);
    }
    json_object_set_new(doc, "channels", names);
    json_object_set_new(doc, "reports", channels);
    for (size_t i = 0; i < ch[0].n_cells; i++) {
        const struct channel_cell *c[2] = {&ch[0].cells[i], find(&ch[1], ch[0].cells[i].key)};
        json_t *cell = json_object(), *states = json_object(), *deltas = json_object();
        json_object_set_new(cell, "name", json_string(c[0]->name));
        json_object_set_new(cell, "operation", json_string(c[0]->operation));
        for (size_t k = 0; k < 2; k++) {
            json_object_set_new(states, ch[k].name, c[k] ? json_string(c[k]->state) : json_null());
            json_object_set_new(deltas, ch[k].name,
                                c[k] && isfinite(c[k]->rel_delta) ? json_real(c[k]->rel_delta)
                                                                  : json_null());
        }
        json_object_set_new(cell, "states", states);
        json_object_set_new(cell, "rel_delta", deltas);
        int d = disagree(c[0], c[1]);
        json_object_set_new(cell, "channels_disagree", d < 0 ? json_null() : json_boolean(d));
        json_array_append_new(cells, cell);
    }
    json_object_set_new(doc, "cells", cells);
    return doc;
}

int compare_channels(struct compare_state *st, const char *mode_note)
{
    struct channel ch[2];
    memset(ch, 0, sizeof ch);
    char err[COMPARE_ERROR_MAX + 300];
    int status = 2;
    for (size_t k = 0; k < 2; k++) {
        ch[k].name = st->opts.channels[k];
        compare_select_channel(&st->opts, k);
        struct compare_judged j;
        if (compare_judge(st, mode_note, &j, err, sizeof err) != 0) {
            fprintf(stderr, "error: %s\n", err);
            goto done;
        }
        char shown[64];
        bench__sanitize_copy(ch[k].name, shown, sizeof shown);
        printf("== channel %zu of 2: %s\n", k + 1, shown);
        compare_report_text(stdout, &j.rep);
        putchar('\n');
        take(&ch[k], &j);
        if (st->opts.json_path)
            ch[k].doc = compare_report_document(&j.rep);
        compare_judged_free(&j);
    }
    status = both_exit(ch);
    printf("== both channels: a state per channel per cell (each judged by its own floor)\n");
    print_both(stdout, ch);
    char c0[64], c1[64];
    bench__sanitize_copy(ch[0].name, c0, sizeof c0);
    bench__sanitize_copy(ch[1].name, c1, sizeof c1);
    printf("verdict: %s (%s: %s, %s: %s)\n", verdict_of(status), c0, ch[0].verdict, c1,
           ch[1].verdict);
    fflush(stdout);
    if (st->opts.json_path) {
        json_t *doc = both_json(ch, status);
        if (tool_json_write(doc, st->opts.json_path, err, sizeof err) != 0) {
            fprintf(stderr, "error: --json: %s\n", err);
            status = 2;
        }
        json_decref(doc);
    }
done:
    for (size_t k = 0; k < 2; k++)
        channel_free(&ch[k]);
    return status;
}
