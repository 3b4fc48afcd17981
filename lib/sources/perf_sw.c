/* SPDX-License-Identifier: MIT */
/* perf_sw.c: owns the software counter groups (source "perf-sw", the fallback when no
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

/* Two groups, never one: task-clock alone, and the three events of the "software" PMU led by
 * page-faults. Members of another PMU than their leader's (the software events under a
 * task-clock leader) count nothing after a DISABLE and ENABLE of the group until the thread is
 * next switched in: a kernel 6.18 lost every bracket's page faults and the first context switch
 * of every window that way (issue 32, point 2). Within one PMU a re-enabled group counts at
 * once. The family keeps its order (perf_sw_family.h); `slot` maps it onto the groups. */
static const struct bench__perf_event clock_events[1] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
};
static const struct bench__perf_event sw_events[EV_N - 1] = {
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

struct sw_state {
    struct bench__perf_group clock; /* task-clock: the family's EV_TASK_CLOCK */
    struct bench__perf_group sw;    /* EV_PGFLT, EV_CTX_SW, EV_MIGRATIONS, in that order */
};

struct sw_snapshot {
    struct bench__perf_snapshot clock, sw;
};

static void *sw_open(const struct bench__source_request *req, struct bench__caps *caps,
                     char *status, size_t status_size)
{
    (void)req;
    char reason[BENCH__REASON_MAX];
    status[0] = '\0';
    struct sw_state *s = bench__xcalloc(1, sizeof *s);
    if (bench__perf_group_open(&s->clock, clock_events, 1, 0, reason, sizeof reason) < 0) {
        free(s);
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", reason);
        return NULL;
    }
    if (bench__perf_group_open(&s->sw, sw_events, EV_N - 1, 0, reason, sizeof reason) < 0) {
        bench__perf_group_close(&s->clock);
        free(s);
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", reason);
        return NULL;
    }
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    if (s->clock.user_only || s->sw.user_only)
        bench__fmt(status, status_size, "%s", "user-space only");
    return s;
}

static void sw_close(void *state)
{
    struct sw_state *s = state;
    if (!s)
        return;
    bench__perf_group_close(&s->sw);
    bench__perf_group_close(&s->clock);
    free(s);
}

static void sw_pass_begin(void *state)
{
    struct sw_state *s = state;
    bench__perf_group_pass_begin(&s->clock);
    bench__perf_group_pass_begin(&s->sw);
}

/* The clock's edges are the inner ones: its bracket holds the other group's ioctls least. */
static void sw_bracket_begin(void *state)
{
    struct sw_state *s = state;
    bench__perf_group_enable(&s->sw);
    bench__perf_group_enable(&s->clock);
}

static void sw_bracket_end(void *state)
{
    struct sw_state *s = state;
    bench__perf_group_disable(&s->clock);
    bench__perf_group_disable(&s->sw);
}

/* The two readings in the family's order; the scale is the lower of the two (each group's
 * gate has already made its own values NaN), never-enabled when either was. */
static void sw_counts(const struct bench__perf_reading *clock, const struct bench__perf_reading *sw,
                      struct bench__counts *out)
{
    const struct bench__perf_reading *from[EV_N] = {clock, sw, sw, sw};
    const size_t slot[EV_N] = {0, 0, 1, 2};
    for (size_t i = 0; i < EV_N; i++) {
        out->values[i] = from[i]->values[slot[i]];
        out->estimate[i] = from[i]->estimate && !isnan(out->values[i]);
    }
    if (isnan(clock->scale) || isnan(sw->scale))
        out->scale = NAN;
    else
        out->scale = clock->scale < sw->scale ? clock->scale : sw->scale;
    out->never_enabled = clock->never_enabled || sw->never_enabled;
}

static void sw_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                        struct bench__counts *out)
{
    (void)brackets;
    struct sw_state *s = state;
    struct bench__perf_reading clock, sw;
    bench__perf_group_pass_end(&s->sw, iterations, &sw);
    bench__perf_group_pass_end(&s->clock, iterations, &clock);
    sw_counts(&clock, &sw, out);
}

static void sw_run_begin(void *state)
{
    struct sw_state *s = state;
    bench__perf_group_run_begin(&s->sw);
    bench__perf_group_run_begin(&s->clock);
}

/* Called at both edges of a window: the clock group is read first (the opening edge's inner
 * read is the other group's, a read(2) the clock then holds, as it holds the other sources'). */
static void sw_edge_read(void *state, void *snapshot)
{
    struct sw_state *s = state;
    struct sw_snapshot *snap = snapshot;
    bench__perf_group_snapshot(&s->clock, &snap->clock);
    bench__perf_group_snapshot(&s->sw, &snap->sw);
}

static void sw_window_counts(void *state, const void *open, const void *close,
                             const struct bench__edge_shared shared[2], struct bench__counts *out)
{
    (void)shared;
    const struct sw_state *s = state;
    const struct sw_snapshot *a = open, *b = close;
    struct bench__perf_reading clock, sw;
    bench__perf_group_window(&s->clock, &a->clock, &b->clock, &clock);
    bench__perf_group_window(&s->sw, &a->sw, &b->sw, &sw);
    sw_counts(&clock, &sw, out);
    out->scaled_group = true;
    out->user_only = s->clock.user_only || s->sw.user_only;
}

static void sw_run_end(void *state)
{
    struct sw_state *s = state;
    bench__perf_group_run_end(&s->clock);
    bench__perf_group_run_end(&s->sw);
}

static void sw_edge_cost(void *state, unsigned *calls, uint64_t *bytes)
{
    const struct sw_state *s = state;
    *calls = 2;
    *bytes = bench__perf_group_read_size(&s->clock) + bench__perf_group_read_size(&s->sw);
}

const struct bench__source_ops bench__source_perf_sw = {
    BENCH__PERF_SW_IDENTITY,
    .open = sw_open,
    .close = sw_close,
    .pass_begin = sw_pass_begin,
    .bracket_begin = sw_bracket_begin,
    .bracket_end = sw_bracket_end,
    .pass_end = sw_pass_end,
    .edge_size = sizeof(struct sw_snapshot),
    .edge_rank = 4,
    .totals = sw_totals,
    .n_totals = EV_N,
    .run_begin = sw_run_begin,
    .edge_read = sw_edge_read,
    .window_counts = sw_window_counts,
    .run_end = sw_run_end,
    .edge_cost = sw_edge_cost,
};
