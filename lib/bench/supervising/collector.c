/* SPDX-License-Identifier: MIT */
/* collector.c: owns the collector's life (see collector.h), its sink (the table of handlers
 * events.def makes), and the item in progress: what began, what ended, and the measuring side's
 * end. What is kept (store.c), shown live (live.c), charged to a dead worker (abandoned.c) and
 * written at the end (document.c) are its parts. It never runs a body. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/alloc.h"
#include "../../util/clock.h"
#include "../measuring/group_keys.h"
#include "collector_parts.h"

struct bench__collector *bench__collector_new(const struct bench__config *cfg,
                                              const struct bench__suite *suite,
                                              uint64_t min_time_ms, bool in_process)
{
    struct bench__collector *c = bench__xcalloc(1, sizeof *c);
    c->cfg = cfg;
    c->suite = suite;
    c->min_time_ms = min_time_ms;
    c->in_process = in_process;
    c->ticker = (struct bench__ticker){.term = bench__term_probe(STDERR_FILENO, cfg->no_colors),
                                       .start_ns = bench__clock_measure_ns()};
    c->out = bench__term_probe(STDOUT_FILENO, cfg->no_colors);
    for (size_t i = 0; i < suite->count; i++)
        c->total += suite->entries[i].test->kind != BENCH_KIND_TEST;
    c->ended = bench__xcalloc(suite->count + 1, sizeof *c->ended);
    c->drawn = bench__xcalloc(suite->count + 1, sizeof *c->drawn);
    c->abandoned = bench__xcalloc(suite->count + 1, sizeof *c->abandoned);
    c->clock_overhead_ns = NAN;
    c->rounds = 1;
    c->item = BENCH__ITEM_NONE;
    c->listing = bench__group_list_wanted(cfg);
    return c;
}

void bench__collector_environment(struct bench__collector *c, const struct bench__environment *env)
{
    c->environment = env;
}

void bench__collector_free(struct bench__collector *c)
{
    if (!c)
        return;
    bench__store_free(c);
    bench__document_free(c);
    free(c->ended);
    free(c->drawn);
    free(c->abandoned);
    bench__strings_free(c->begun_cases, c->n_begun_cases);
    free(c->item_name);
    free(c->lost_reason);
    bench__store_free_labels(c->item_labels, c->item_n_labels);
    bench__resume_free(&c->resume);
    free(c);
}

struct bench__sink bench__collector_sink(struct bench__collector *c)
{
    return (struct bench__sink){
        .ctx = c,
#define BENCH__EVENT(name, fields) .name = bench__collect_##name,
#include "../events.def"
#undef BENCH__EVENT
    };
}

/* ---- the item in progress ----------------------------------------------------------------- */

void bench__collect_begin(void *ctx, const struct bench__event_begin *e)
{
    struct bench__collector *c = ctx;
    c->item = e->item;
    c->item_since = bench__clock_deadline_ns(); /* timeouts: never the measuring clock */
    c->item_entry = e->entry;
    free(c->item_name);
    c->item_name = bench__xstrdup(e->name);
    bench__store_free_labels(c->item_labels, c->item_n_labels);
    c->item_labels = bench__store_copy_labels(e->labels, e->n_labels);
    c->item_n_labels = e->n_labels;
    c->tail[0].len = c->tail[1].len = 0;
    if (e->item == BENCH__ITEM_CASE && e->entry < c->suite->count) {
        c->begun_cases = bench__grow(c->begun_cases, &c->cap_begun_cases, c->n_begun_cases + 1,
                                     sizeof *c->begun_cases);
        c->begun_cases[c->n_begun_cases++] = bench__case_identity(
            c->suite->entries[e->entry].full_name, e->name, e->labels, e->n_labels);
    }
    if (e->item == BENCH__ITEM_WORKLOAD)
        c->workloads.ran = true;
    bench__live_begin(c, e->round, e->rounds);
}

void bench__collect_sync(void *ctx, const struct bench__event_sync *e)
{
    (void)ctx; /* in this process every event was taken as it came */
    (void)e;
}

void bench__collect_body_end(void *ctx, const struct bench__event_body_end *e)
{
    struct bench__collector *c = ctx;
    if (e->entry < c->suite->count)
        c->ended[e->entry] = true;
    c->item = BENCH__ITEM_NONE;
}

void bench__collect_workload_end(void *ctx, const struct bench__event_workload_end *e)
{
    struct bench__collector *c = ctx;
    if (e->entry < c->suite->count)
        c->ended[e->entry] = true;
    c->workloads.failures += e->failures;
    c->item = BENCH__ITEM_NONE;
}

void bench__collect_done(void *ctx, const struct bench__event_done *e)
{
    struct bench__collector *c = ctx;
    c->done = true;
    c->worker_status = e->status;
    c->item = BENCH__ITEM_NONE;
}

bool bench__collector_finished(const struct bench__collector *c)
{
    return c->done;
}

int64_t bench__collector_item_since(const struct bench__collector *c)
{
    return c->item == BENCH__ITEM_NONE ? -1 : c->item_since;
}

const char *bench__collector_item_word(const struct bench__collector *c)
{
    if (c->item == BENCH__ITEM_NONE)
        return NULL;
    return c->item == BENCH__ITEM_WORKLOAD ? "workload" : "benchmark";
}
