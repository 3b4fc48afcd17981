/* SPDX-License-Identifier: MIT */
/* perf_sw.c: owns the software counter group (source "perf-sw", the fallback when no
 * hardware PMU opens): its events, family and capabilities. Must not touch the OS directly. */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "perf_group.h"
#include "perf_sw_family.h"
#include "source.h"

/* Events, leader first, in the family's order (perf_sw_family.h). */
static const struct bench__perf_event events[EV_N] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

static void *sw_open(const struct bench__source_request *req, struct bench__caps *caps,
                     char *status, size_t status_size)
{
    (void)req;
    char reason[BENCH__REASON_MAX];
    status[0] = '\0';
    struct bench__perf_group *g = bench__xcalloc(1, sizeof *g);
    if (bench__perf_group_open(g, events, EV_N, 0, reason, sizeof reason) < 0) {
        free(g);
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", reason);
        return NULL;
    }
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    if (g->user_only)
        bench__fmt(status, status_size, "%s", bench__perf_group_mode(g));
    return g;
}

static void sw_close(void *state)
{
    if (!state)
        return;
    bench__perf_group_close(state);
    free(state);
}

static void sw_pass_begin(void *state)
{
    bench__perf_group_pass_begin(state);
}

static void sw_bracket_begin(void *state)
{
    bench__perf_group_enable(state);
}

static void sw_bracket_end(void *state)
{
    bench__perf_group_disable(state);
}

static void sw_counts(const struct bench__perf_reading *r, struct bench__counts *out)
{
    for (size_t i = 0; i < EV_N; i++) {
        out->values[i] = r->values[i];
        out->estimate[i] = r->estimate && !isnan(r->values[i]);
    }
    out->scale = r->scale;
    out->never_enabled = r->never_enabled;
}

static void sw_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                        struct bench__counts *out)
{
    (void)brackets;
    struct bench__perf_reading r;
    bench__perf_group_pass_end(state, iterations, &r);
    sw_counts(&r, out);
}

static void sw_run_begin(void *state)
{
    bench__perf_group_run_begin(state);
}

static void sw_edge_read(void *state, void *snapshot)
{
    bench__perf_group_snapshot(state, snapshot);
}

static void sw_window_counts(void *state, const void *open, const void *close,
                             const struct bench__edge_shared shared[2], struct bench__counts *out)
{
    (void)shared;
    struct bench__perf_reading r;
    bench__perf_group_window(state, open, close, &r);
    sw_counts(&r, out);
    out->scaled_group = true;
    out->user_only = ((const struct bench__perf_group *)state)->user_only;
}

static void sw_run_end(void *state)
{
    bench__perf_group_run_end(state);
}

static void sw_edge_cost(void *state, unsigned *calls, uint64_t *bytes)
{
    *calls = 1;
    *bytes = bench__perf_group_read_size(state);
}

const struct bench__source_ops bench__source_perf_sw = {
    BENCH__PERF_SW_IDENTITY,
    .open = sw_open,
    .close = sw_close,
    .pass_begin = sw_pass_begin,
    .bracket_begin = sw_bracket_begin,
    .bracket_end = sw_bracket_end,
    .pass_end = sw_pass_end,
    .edge_size = sizeof(struct bench__perf_snapshot),
    .edge_rank = 4,
    .totals = sw_totals,
    .n_totals = EV_N,
    .run_begin = sw_run_begin,
    .edge_read = sw_edge_read,
    .window_counts = sw_window_counts,
    .run_end = sw_run_end,
    .edge_cost = sw_edge_cost,
};
