/* SPDX-License-Identifier: MIT */
/* perf.c: owns the default hardware counter group (source "perf"): its events, calibration,
 * degraded status, derived metrics and capabilities. Must not touch fds or the OS directly. */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "ip_sampling.h"
#include "perf_family.h"
#include "perf_group.h"
#include "rdpmc.h"
#include "source.h"
#include "symbolize.h"

/* Events, leader first; the family (perf_family.h) is derived from them. */
enum { EV_CYCLES, EV_INSTR, EV_BRANCHES, EV_BR_MISSES, EV_LLC_REFS, EV_LLC_MISSES, EV_PGFLT, EV_N };

static const struct bench__perf_event events[EV_N] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
};

#define LLC_PAIR ((1u << EV_LLC_REFS) | (1u << EV_LLC_MISSES))
#define CALIBRATION_MIN_SCALE 0.98

struct perf_state {
    struct bench__perf_group group;
    bool cache_dropped; /* the LLC pair was dropped to avoid multiplexing */
    bool scaled_mode;   /* --perf-scaled: the full group multiplexes, values are estimates */
};

static void report_rest(const struct bench__source_request *req, struct bench__caps *caps,
                        const struct perf_state *st)
{
    if (st && st->scaled_mode)
        bench__caps_present(caps, BENCH__CAP_COUNTING_SCALED);
    else
        bench__caps_absent(caps, BENCH__CAP_COUNTING_SCALED, "opt-in: --perf-scaled");
    char reason[BENCH__REASON_MAX];
    if (!st) {
        bench__caps_absent(caps, BENCH__CAP_SELF_MONITORING,
                           "no hardware counter to map (the perf group did not open)");
    } else if (!bench__rdpmc_insn) {
        bench__rdpmc_absence(reason, sizeof reason);
        bench__caps_absent(caps, BENCH__CAP_SELF_MONITORING, "%s", reason);
    } else if (bench__perf_group_self_monitoring(&st->group, reason, sizeof reason))
        bench__caps_present(caps, BENCH__CAP_SELF_MONITORING);
    else
        bench__caps_absent(caps, BENCH__CAP_SELF_MONITORING, "%s", reason);
    if (req && req->profile) { /* probed only when asked: libdw is loaded for it */
        bench__ip_sampling_caps(caps, req->profile_hz);
        bench__symbolization_caps(caps);
    } else {
        bench__caps_absent(caps, BENCH__CAP_IP_SAMPLING, "opt-in: --profile");
    }
    bench__precise_memory_caps(caps);
}

static void *absent(const struct bench__source_request *req, struct perf_state *st,
                    struct bench__caps *caps, const char *reason)
{
    if (st) {
        bench__perf_group_close(&st->group);
        free(st);
    }
    bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", reason);
    report_rest(req, caps, NULL);
    return NULL;
}

static void perf_status(const struct perf_state *st, char *status, size_t size)
{
    status[0] = '\0';
    if (!st->group.user_only && !st->cache_dropped && !st->scaled_mode)
        return;
    bench__fmt(status, size, "%s%s%s", bench__perf_group_mode(&st->group),
               st->cache_dropped ? "; LLC events dropped (would multiplex — NMI watchdog holds a "
                                   "counter?)"
                                 : "",
               st->scaled_mode ? "; multiplexed — values are labeled estimates (--perf-scaled)"
                               : "");
}

static void *perf_open(const struct bench__source_request *req, struct bench__caps *caps,
                       char *status, size_t status_size)
{
    char reason[BENCH__REASON_MAX];
    status[0] = '\0';
    struct perf_state *st = bench__xcalloc(1, sizeof *st);
    if (bench__perf_group_open(&st->group, events, EV_N, 0, reason, sizeof reason) < 0) {
        free(st);
        return absent(req, NULL, caps, reason);
    }

    double scale = bench__perf_group_calibrate(&st->group);
    if (isnan(scale))
        return absent(req, st, caps, "reading the perf counter group failed during calibration");
    if (scale < CALIBRATION_MIN_SCALE) {
        if (req->scaled && scale > 0) {
            st->scaled_mode = true;
        } else {
            bench__perf_group_close(&st->group);
            if (bench__perf_group_open(&st->group, events, EV_N, LLC_PAIR, reason, sizeof reason) <
                0) {
                free(st);
                return absent(req, NULL, caps, reason);
            }
            st->cache_dropped = true;
            scale = bench__perf_group_calibrate(&st->group);
            if (isnan(scale))
                return absent(req, st, caps,
                              "reading the perf counter group failed during calibration");
            if (scale == 0)
                return absent(req, st, caps, "PMU busy — the group never got scheduled");
            /* a reduced group that still multiplexes stays open; its passes get ≈ labels */
        }
    }

    bench__caps_present(caps, BENCH__CAP_COUNTING);
    report_rest(req, caps, st);
    perf_status(st, status, status_size);
    return st;
}

static void perf_close(void *state)
{
    struct perf_state *st = state;
    if (!st)
        return;
    bench__perf_group_close(&st->group);
    free(st);
}

static void perf_pass_begin(void *state)
{
    bench__perf_group_pass_begin(&((struct perf_state *)state)->group);
}

static void perf_bracket_begin(void *state)
{
    bench__perf_group_enable(&((struct perf_state *)state)->group);
}

static void perf_bracket_end(void *state)
{
    bench__perf_group_disable(&((struct perf_state *)state)->group);
}

static double ratio_of(double num, double den, double factor)
{
    return den > 0 ? num / den * factor : NAN;
}

/* The family from one reading (a pass's or a window's). */
static void perf_counts(const struct bench__perf_reading *r, struct bench__counts *out)
{
    const double *v = r->values;

    out->values[M_IPC] = ratio_of(v[EV_INSTR], v[EV_CYCLES], 1);
    out->values[M_INSTR] = v[EV_INSTR];
    out->values[M_BR_MISS] = ratio_of(v[EV_BR_MISSES], v[EV_BRANCHES], 100);
    out->values[M_CACHE_MISS] = ratio_of(v[EV_LLC_MISSES], v[EV_LLC_REFS], 100);
    out->values[M_CYCLES] = v[EV_CYCLES];
    out->values[M_BRANCHES] = v[EV_BRANCHES];
    out->values[M_PGFLT] = v[EV_PGFLT];
    /* one group, one scale: every value (derived ones included) is an estimate or not */
    for (size_t i = 0; i < M_N; i++)
        out->estimate[i] = r->estimate && !isnan(out->values[i]);
    out->scale = r->scale;
    out->never_enabled = r->never_enabled;
}

static void perf_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                          struct bench__counts *out)
{
    (void)brackets;
    struct bench__perf_reading r;
    bench__perf_group_pass_end(&((struct perf_state *)state)->group, iterations, &r);
    perf_counts(&r, out);
}

static void perf_run_begin(void *state)
{
    bench__perf_group_run_begin(&((struct perf_state *)state)->group);
}

static void perf_edge_read(void *state, void *snapshot)
{
    bench__perf_group_snapshot(&((struct perf_state *)state)->group, snapshot);
}

/* A window's totals: the events' counts, and IPC for the table. */
static void perf_window_counts(void *state, const void *open, const void *close,
                               const struct bench__edge_shared shared[2], struct bench__counts *out)
{
    (void)shared;
    const struct perf_state *st = state;
    struct bench__perf_reading r;
    bench__perf_group_window(&st->group, open, close, &r);
    const double *v = r.values;
    out->values[T_INSTR] = v[EV_INSTR];
    out->values[T_CYCLES] = v[EV_CYCLES];
    out->values[T_IPC] = ratio_of(v[EV_INSTR], v[EV_CYCLES], 1);
    out->values[T_BRANCHES] = v[EV_BRANCHES];
    out->values[T_BR_MISSES] = v[EV_BR_MISSES];
    out->values[T_CACHE_REFS] = v[EV_LLC_REFS];
    out->values[T_CACHE_MISSES] = v[EV_LLC_MISSES];
    out->values[T_PGFLT] = v[EV_PGFLT];
    for (size_t i = 0; i < T_N; i++)
        out->estimate[i] = r.estimate && !isnan(out->values[i]);
    out->scale = r.scale;
    out->never_enabled = r.never_enabled;
    out->scaled_group = true;
    out->user_only = st->group.user_only;
}

static void perf_run_end(void *state)
{
    bench__perf_group_run_end(&((struct perf_state *)state)->group);
}

static void perf_edge_cost(void *state, unsigned *calls, uint64_t *bytes)
{
    *calls = 1;
    *bytes = bench__perf_group_read_size(&((struct perf_state *)state)->group);
}

const struct bench__source_ops bench__source_perf = {
    BENCH__PERF_IDENTITY,
    .open = perf_open,
    .close = perf_close,
    .pass_begin = perf_pass_begin,
    .bracket_begin = perf_bracket_begin,
    .bracket_end = perf_bracket_end,
    .pass_end = perf_pass_end,
    .edge_size = sizeof(struct bench__perf_snapshot),
    .edge_rank = 5,
    .totals = perf_totals,
    .n_totals = T_N,
    .run_begin = perf_run_begin,
    .edge_read = perf_edge_read,
    .window_counts = perf_window_counts,
    .run_end = perf_run_end,
    .edge_cost = perf_edge_cost,
};
