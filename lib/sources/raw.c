/* SPDX-License-Identifier: MIT */
/* raw.c: owns the raw:r<hex>/pfm:<name> source "raw": its family, its own perf group, countingRaw
 * and eventNaming. Must not touch the OS or the default group, nor parse selectors itself. */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "event_naming.h"
#include "perf_group.h"
#include "source.h"

#define RAW_MAX 16                       /* raw + pfm events counted */
#define ID_MAX (BENCH__PFM_NAME_MAX + 8) /* "pfm:" + name + NUL */

/* The raw and pfm selectors of a request, deduplicated as written, in selector order, at most
 * RAW_MAX of them: the family. Pure: nothing is resolved or opened. */
struct raw_plan {
    size_t n;
    size_t requested; /* distinct raw/pfm selectors asked for (> n when capped) */
    const char *ids[RAW_MAX];
    enum bench__selector_kind kind[RAW_MAX];
    uint64_t config[RAW_MAX]; /* raw: the code */
    bool any_pfm;             /* some pfm: selector was given (eventNaming is reported) */
};

/* Was this selector seen earlier in the list (deduplicated by id as written)? */
static bool seen_before(const struct bench__source_request *req, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (!strcmp(req->selectors[j], req->selectors[i]))
            return true;
    return false;
}

static void make_plan(const struct bench__source_request *req, struct raw_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    for (size_t i = 0; i < req->n_selectors; i++) {
        const char *sel = req->selectors[i];
        uint64_t config = 0;
        enum bench__selector_kind kind = bench__selector_parse(sel, &config);
        if (kind != BENCH__SELECTOR_RAW && kind != BENCH__SELECTOR_PFM)
            continue; /* another source's, or malformed (the unknown-selector warning) */
        plan->any_pfm |= kind == BENCH__SELECTOR_PFM;
        if (seen_before(req, i))
            continue;
        plan->requested++;
        if (plan->n == RAW_MAX)
            continue;
        plan->ids[plan->n] = sel;
        plan->kind[plan->n] = kind;
        plan->config[plan->n] = config;
        plan->n++;
    }
}

/* Well-formed raw/pfm selectors are counted, or said at open why not (over the cap,
 * unresolved); a malformed one is left to the unknown-selector warning. */
static enum bench__claim raw_claim(const char *selector)
{
    switch (bench__selector_parse(selector, NULL)) {
    case BENCH__SELECTOR_RAW:
    case BENCH__SELECTOR_PFM: return BENCH__CLAIM_COUNTED;
    case BENCH__SELECTOR_MALFORMED: return BENCH__CLAIM_RESERVED;
    case BENCH__SELECTOR_OTHER: break;
    }
    return BENCH__CLAIM_NONE;
}

static size_t raw_family_for(const struct bench__source_request *req, struct bench__family *out)
{
    struct raw_plan plan;
    make_plan(req, &plan);
    memset(out, 0, sizeof *out);
    if (plan.n == 0)
        return 0;
    size_t bytes = 0;
    for (size_t i = 0; i < plan.n; i++)
        bytes += strlen(plan.ids[i]) + 1;
    out->columns = bench__xcalloc(plan.n, sizeof *out->columns);
    out->strings = bench__xmalloc(bytes);
    char *p = out->strings;
    for (size_t i = 0; i < plan.n; i++) {
        char *id = strcpy(p, plan.ids[i]);
        p += strlen(id) + 1;
        out->columns[i] = (struct bench__column_desc){
            .name = id,
            .header = bench__selector_header(id),
            .format = BENCH__FORMAT_COUNT,
            .cls = BENCH__DIAGNOSTIC,
            .source = plan.kind[i] == BENCH__SELECTOR_RAW ? "raw" : "pfm",
            .is_default = true,
        };
    }
    out->n = plan.n;
    return out->n;
}

/* ---- the group ----------------------------------------------------------------------- */

struct raw_state {
    struct bench__perf_group group;
    bool open; /* the group is open (some event was accepted) */
    size_t n;  /* the family as family_for made it: every event of the plan */
    char ids[RAW_MAX][ID_MAX];
    /* the events that resolved, in plan order, and where each sits in the plan; the catalog
     * drops the others' columns (raw_column_dropped), so event e fills column e */
    size_t n_events;
    size_t plan_of[RAW_MAX];
    bool dropped[RAW_MAX]; /* per plan entry: a pfm: name that did not resolve */
    struct bench__perf_event resolved[RAW_MAX];
    uint8_t resolved_exclude[RAW_MAX]; /* BENCH__PERF_EXCLUDE_* from :u / :k */
    uint64_t resolved_config12[RAW_MAX][2];
    size_t first;               /* resolved index of the leader: events before it were refused */
    int refused_errno[RAW_MAX]; /* per resolved event: why it is not counted (0: it is) */
    /* the group's events: the resolved ones from `first` (they outlive the group) */
    struct bench__perf_event events[RAW_MAX];
    uint8_t exclude[RAW_MAX];
    uint64_t config12[RAW_MAX][2];
};

/* Resolve the plan's events (pfm names through libpfm4); an unresolved name is said on stderr
 * with its reason, and its column is dropped. */
static void resolve_plan(struct raw_state *st, const struct raw_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++) {
        bench__fmt(st->ids[i], ID_MAX, "%s", plan->ids[i]);
        struct bench__perf_event *ev = &st->resolved[st->n_events];
        uint8_t exclude = 0;
        if (plan->kind[i] == BENCH__SELECTOR_RAW) {
            ev->type = PERF_TYPE_RAW;
            ev->config = plan->config[i];
            st->resolved_config12[st->n_events][0] = st->resolved_config12[st->n_events][1] = 0;
        } else {
            struct bench__event_encoding enc;
            char reason[BENCH__REASON_MAX];
            if (bench__pfm_resolve(bench__selector_header(plan->ids[i]), &enc, reason,
                                   sizeof reason) < 0) {
                fprintf(stderr, "--metrics: %s \xe2\x80\x94 %s; its column is dropped\n",
                        plan->ids[i], reason);
                st->dropped[i] = true;
                continue;
            }
            ev->type = enc.type;
            ev->config = enc.config;
            st->resolved_config12[st->n_events][0] = enc.config1;
            st->resolved_config12[st->n_events][1] = enc.config2;
            exclude = (uint8_t)((enc.exclude_user ? BENCH__PERF_EXCLUDE_USER : 0) |
                                (enc.exclude_kernel ? BENCH__PERF_EXCLUDE_KERNEL : 0));
        }
        ev->name = st->ids[i];
        st->resolved_exclude[st->n_events] = exclude;
        st->plan_of[st->n_events] = i;
        st->n_events++;
    }
}

/* Open the resolved events as one group: the first event the kernel accepts leads; events
 * refused as leaders stay out (NaN). `first_reason` gets the first refusal. */
static void open_group(struct raw_state *st, char *first_reason, size_t size)
{
    first_reason[0] = '\0';
    for (size_t lead = 0; lead < st->n_events; lead++) {
        size_t n = st->n_events - lead;
        memcpy(st->events, &st->resolved[lead], n * sizeof st->events[0]);
        memcpy(st->exclude, &st->resolved_exclude[lead], n);
        memcpy(st->config12, &st->resolved_config12[lead], n * sizeof st->config12[0]);
        struct bench__perf_group_options options = {.exclude = st->exclude,
                                                    .config12 = (const uint64_t(*)[2])st->config12};
        char reason[BENCH__REASON_MAX];
        int rc = bench__perf_group_open_with(&st->group, st->events, n, 0, &options, reason,
                                             sizeof reason);
        if (rc == 0) {
            st->open = true;
            st->first = lead;
            for (size_t k = 1; k < n; k++)
                if (st->group.fd[k] < 0)
                    st->refused_errno[lead + k] =
                        st->group.open_errno[k] ? st->group.open_errno[k] : EINVAL;
            return;
        }
        st->refused_errno[lead] = -rc;
        if (!first_reason[0])
            bench__fmt(first_reason, size, "%s", reason);
    }
    st->first = st->n_events;
}

/* "raw:r00c0 (ENOENT), pfm:cycles (EINVAL)" of the events that did not open. */
static size_t refused_list(const struct raw_state *st, char *buf, size_t size)
{
    size_t refused = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < st->n_events; i++) {
        int err = st->refused_errno[i];
        if (!err)
            continue;
        const char *name = bench__perf_errno_name(err);
        char code[24];
        if (name)
            bench__fmt(code, sizeof code, "%s", name);
        else
            bench__fmt(code, sizeof code, "errno %d", err);
        size_t len = strlen(buf);
        bench__fmt(buf + len, size - len, "%s%s (%s)", refused ? ", " : "", st->ids[st->plan_of[i]],
                   code);
        refused++;
    }
    return refused;
}

static void report_naming(struct bench__caps *caps)
{
    char reason[BENCH__REASON_MAX];
    bench__caps_block(caps, BENCH__CAP_EVENT_NAMING, "pfm"); /* libpfm naming, apart from raw */
    if (bench__pfm_load(reason, sizeof reason))
        bench__caps_present(caps, BENCH__CAP_EVENT_NAMING);
    else
        bench__caps_absent(caps, BENCH__CAP_EVENT_NAMING, "%s", reason);
}

/* No events but a capability query: open and close a config-0 raw event. */
static void *probe_only(struct bench__caps *caps)
{
    static const struct bench__perf_event probe = {.name = "raw:r0", .type = PERF_TYPE_RAW};
    struct bench__perf_group g;
    char reason[BENCH__REASON_MAX];
    if (bench__perf_group_open(&g, &probe, 1, 0, reason, sizeof reason) == 0) {
        bench__caps_present(caps, BENCH__CAP_COUNTING_RAW);
        bench__perf_group_close(&g);
    } else {
        bench__caps_absent(caps, BENCH__CAP_COUNTING_RAW, "%s", reason);
    }
    report_naming(caps);
    return NULL;
}

static void *raw_open(const struct bench__source_request *req, struct bench__caps *caps,
                      char *status, size_t status_size)
{
    status[0] = '\0';
    struct raw_plan plan;
    make_plan(req, &plan);
    if (plan.requested > RAW_MAX)
        fprintf(stderr, "--metrics: only the first %d raw/pfm events are counted (%zu requested)\n",
                RAW_MAX, plan.requested);
    if (plan.n == 0)
        return probe_only(caps);
    struct raw_state *st = bench__xcalloc(1, sizeof *st);
    st->n = plan.n;
    resolve_plan(st, &plan);
    if (st->n_events == 0) { /* nothing resolved: each name was said, each column is dropped */
        probe_only(caps);
        return st;
    }
    char first_reason[BENCH__REASON_MAX];
    open_group(st, first_reason, sizeof first_reason);

    char refused[512];
    size_t n_refused = refused_list(st, refused, sizeof refused);
    if (st->open)
        bench__caps_present(caps, BENCH__CAP_COUNTING_RAW);
    else
        bench__caps_absent(caps, BENCH__CAP_COUNTING_RAW, "%s", first_reason);
    if (plan.any_pfm)
        report_naming(caps);

    /* requested columns stay in every row (all NaN when nothing opened) */
    if (n_refused == st->n_events)
        bench__fmt(status, status_size, "events: none of %zu opened, their columns stay empty: %s",
                   st->n_events, first_reason);
    else if (n_refused)
        bench__fmt(status, status_size, "events: %zu of %zu refused, their columns stay empty: %s",
                   n_refused, st->n_events, refused);
    if (st->open && st->group.user_only) {
        char mode[64];
        bench__fmt(mode, sizeof mode, "events: %s", bench__perf_group_mode(&st->group));
        bench__note_append(status, status_size, mode);
    }
    return st;
}

static void raw_close(void *state)
{
    struct raw_state *st = state;
    if (!st)
        return;
    if (st->open)
        bench__perf_group_close(&st->group);
    free(st);
}

static void raw_pass_begin(void *state)
{
    struct raw_state *st = state;
    if (st->open)
        bench__perf_group_pass_begin(&st->group);
}

static void raw_bracket_begin(void *state)
{
    struct raw_state *st = state;
    if (st->open)
        bench__perf_group_enable(&st->group);
}

static void raw_bracket_end(void *state)
{
    struct raw_state *st = state;
    if (st->open)
        bench__perf_group_disable(&st->group);
}

static bool raw_column_dropped(const void *state, size_t k)
{
    const struct raw_state *st = state;
    return k < st->n && st->dropped[k];
}

/* The family (its resolved events: the catalog dropped the others) from one reading; NULL when
 * the group is not open (every column NaN). */
static void raw_counts(const struct raw_state *st, const struct bench__perf_reading *r,
                       struct bench__counts *out)
{
    for (size_t e = 0; e < st->n_events; e++) {
        out->values[e] = NAN;
        out->estimate[e] = false;
    }
    if (!r)
        return;
    for (size_t e = st->first; e < st->n_events; e++) {
        out->values[e] = r->values[e - st->first];
        out->estimate[e] = r->estimate && !isnan(out->values[e]);
    }
    out->scale = r->scale;
    out->never_enabled = r->never_enabled;
}

static void raw_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                         struct bench__counts *out)
{
    (void)brackets;
    struct raw_state *st = state;
    struct bench__perf_reading r;
    if (st->open)
        bench__perf_group_pass_end(&st->group, iterations, &r);
    raw_counts(st, st->open ? &r : NULL, out);
}

static void raw_run_begin(void *state)
{
    struct raw_state *st = state;
    if (st->open)
        bench__perf_group_run_begin(&st->group);
}

static void raw_edge_read(void *state, void *snapshot)
{
    struct raw_state *st = state;
    if (st->open)
        bench__perf_group_snapshot(&st->group, snapshot);
}

static void raw_window_counts(void *state, const void *open, const void *close,
                              const struct bench__edge_shared shared[2], struct bench__counts *out)
{
    (void)shared;
    struct raw_state *st = state;
    struct bench__perf_reading r;
    if (st->open)
        bench__perf_group_window(&st->group, open, close, &r);
    raw_counts(st, st->open ? &r : NULL, out);
    out->scaled_group = true; /* null when no event opened */
}

/* A window's totals: each event under `events`, keyed by its selector as written. */
static void raw_window_total(const struct bench__column_desc *column, struct bench__total_desc *out)
{
    *out = (struct bench__total_desc){
        "raw", "events", column->name, column->header, column->name, BENCH__FORMAT_COUNT, true};
}

static void raw_run_end(void *state)
{
    struct raw_state *st = state;
    if (st->open)
        bench__perf_group_run_end(&st->group);
}

static void raw_edge_cost(void *state, unsigned *calls, uint64_t *bytes)
{
    struct raw_state *st = state;
    *calls = st->open ? 1 : 0;
    *bytes = st->open ? bench__perf_group_read_size(&st->group) : 0;
}

const struct bench__source_ops bench__source_raw = {
    .name = "raw",
    .family_for = raw_family_for,
    .claim = raw_claim,
    .open = raw_open,
    .close = raw_close,
    .column_dropped = raw_column_dropped,
    .pass_begin = raw_pass_begin,
    .bracket_begin = raw_bracket_begin,
    .bracket_end = raw_bracket_end,
    .pass_end = raw_pass_end,
    .edge_size = sizeof(struct bench__perf_snapshot),
    .edge_rank = 2,
    .window_total = raw_window_total,
    .run_begin = raw_run_begin,
    .edge_read = raw_edge_read,
    .window_counts = raw_window_counts,
    .run_end = raw_run_end,
    .edge_cost = raw_edge_cost,
};
