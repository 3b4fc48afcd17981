/* SPDX-License-Identifier: MIT */
/* fake.c: owns the fake counting source "fake" (--fake[=EVENTS]), the worked example of
 * docs/how-to/add-a-counting-source.md: a complete source written only against
 * lib/sources/source.h and added to a test build by the one line of list_extra.h. It counts
 * the events the test's bodies advance (fake.h) inside the library's brackets and windows, and
 * tallies every call the library makes into it. It must never be linked into libbench. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"
#include "sources/source.h"
#include "util/alloc.h"

uint64_t bench__fake_ticks;
uint64_t bench__fake_tocks;
const char *bench__fake_refusal;
struct bench__fake_tally bench__fake_tally;

/* ---- the flag and the family ------------------------------------------------------------- */

enum { EVENT_TICK = 1u, EVENT_TOCK = 2u };

static unsigned event_bit(const char *name)
{
    if (!strcmp(name, "tick"))
        return EVENT_TICK;
    if (!strcmp(name, "tock"))
        return EVENT_TOCK;
    return 0;
}

/* One value of --fake=EVENTS: an event the fake knows, or the reason it is refused. */
static int fake_flag_value_check(const char *value, char *err, size_t err_size)
{
    if (event_bit(value))
        return 0;
    snprintf(err, err_size, "'%s' is not a fake event (tick, tock)", value);
    return -1;
}

/* The family, in catalog order: a count shown by default, a diagnostic ratio shown on request. */
enum { F_CALLS, F_RATIO, F_COUNT };
static const struct bench__column_desc fake_family[F_COUNT] = {
    {"fake-calls", "fake-calls", BENCH__FORMAT_COUNT, BENCH__QUANTITATIVE, "fake", true},
    {"fake-ratio", "fake-ratio", BENCH__FORMAT_RATIO, BENCH__DIAGNOSTIC, "fake", false},
};

/* ---- the state ---------------------------------------------------------------------------- */

struct fake {
    unsigned mask; /* the events counted */
    /* the pass */
    uint64_t begin;    /* the reading at the open bracket's begin edge */
    uint64_t counted;  /* events inside brackets */
    uint64_t brackets; /* brackets closed */
    bool open;         /* a bracket is open */
    bool broken;       /* a bracket began twice or ended unopened: the pass is not measured */
};

/* The cumulative reading of the counted events (what a hardware counter would give). */
static uint64_t read_events(const struct fake *f)
{
    uint64_t v = 0;
    if (f->mask & EVENT_TICK)
        v += bench__fake_ticks;
    if (f->mask & EVENT_TOCK)
        v += bench__fake_tocks;
    return v;
}

/* Probe and open: the request's flag values choose the events (ticks when none is named). A
 * refusal is an absence with its reason, never a source that reads 0. */
static void *fake_open(const struct bench__source_request *req, struct bench__caps *caps,
                       char *status, size_t status_size)
{
    status[0] = '\0';
    if (bench__fake_refusal) {
        bench__fake_tally.refusals++;
        bench__caps_absent(caps, BENCH__CAP_COUNTING, "%s", bench__fake_refusal);
        return NULL;
    }
    struct fake *f = bench__xcalloc(1, sizeof *f); /* out of memory aborts (util/alloc.h) */
    for (size_t i = 0; i < req->n_flag_values; i++)
        f->mask |= event_bit(req->flag_values[i]); /* the command line checked each value */
    if (!f->mask)
        f->mask = EVENT_TICK;
    if (f->mask == (EVENT_TICK | EVENT_TOCK))
        snprintf(status, status_size, "counts ticks and tocks together");
    bench__caps_present(caps, BENCH__CAP_COUNTING);
    bench__caps_absent(caps, BENCH__CAP_COUNTING_SCALED, "the fake never multiplexes");
    bench__fake_tally.opens++;
    bench__fake_tally.last_mask = f->mask;
    return f;
}

static void fake_close(void *state)
{
    bench__fake_tally.closes++;
    free(state);
}

/* ---- a counting pass ---------------------------------------------------------------------- */

static void fake_pass_begin(void *state)
{
    struct fake *f = state;
    f->counted = f->brackets = 0;
    f->open = f->broken = false;
}

static void fake_bracket_begin(void *state)
{
    struct fake *f = state;
    if (f->open)
        f->broken = true;
    f->open = true;
    bench__fake_tally.in_bracket = true;
    f->begin = read_events(f);
}

static void fake_bracket_end(void *state)
{
    struct fake *f = state;
    uint64_t end = read_events(f);
    if (!f->open || end < f->begin)
        f->broken = true;
    else
        f->counted += end - f->begin;
    f->open = false;
    f->brackets++;
    bench__fake_tally.in_bracket = false;
    bench__fake_tally.brackets++;
}

/* Per iteration: the events counted inside the brackets, and the calls per bracket. A pass the
 * fake cannot vouch for (no calls, unbalanced brackets, or a bracket count other than the
 * library's) is not measured: NaN, never 0. */
static void fake_pass_end(void *state, uint64_t iterations, uint64_t brackets,
                          struct bench__counts *out)
{
    struct fake *f = state;
    bench__fake_tally.passes++;
    bench__fake_tally.iterations += iterations;
    for (size_t k = 0; k < F_COUNT; k++) {
        out->values[k] = NAN;
        out->estimate[k] = false;
    }
    if (iterations == 0 || f->brackets == 0 || f->broken || f->open || f->brackets != brackets)
        return;
    out->values[F_CALLS] = (double)f->counted / (double)iterations;
    out->values[F_RATIO] = (double)iterations / (double)f->brackets;
}

/* ---- workload windows: cumulative readings, one per edge ---------------------------------- */

static void fake_run_begin(void *state)
{
    (void)state; /* cumulative by nature: nothing to reset or enable */
    bench__fake_tally.runs_begun++;
}

static void fake_edge_read(void *state, void *snapshot)
{
    uint64_t v = read_events(state);
    memcpy(snapshot, &v, sizeof v);
    bench__fake_tally.edges_read++;
}

/* A window's totals: the events between its edges; no brackets, so no calls per bracket. */
static void fake_window_counts(void *state, const void *open, const void *close,
                               const struct bench__edge_shared shared[2], struct bench__counts *out)
{
    (void)state;
    (void)shared;
    uint64_t a, b;
    memcpy(&a, open, sizeof a);
    memcpy(&b, close, sizeof b);
    out->values[F_CALLS] = b >= a ? (double)(b - a) : NAN;
    out->values[F_RATIO] = NAN;
    out->estimate[F_CALLS] = out->estimate[F_RATIO] = false;
}

static void fake_run_end(void *state)
{
    (void)state;
    bench__fake_tally.runs_ended++;
}

/* Its edges make no system call and read no bytes, so it leaves edge_cost and window_floor NULL:
 * there is no floor to disclose. */
const struct bench__source_ops bench__source_fake = {
    .name = "fake",
    .flag = "fake",
    .flag_value = "EVENTS",
    .flag_help = "with --bench: count the fake events of the one-source test (=tick,tock)",
    .flag_value_check = fake_flag_value_check,
    .family = fake_family,
    .n_family = F_COUNT,
    .open = fake_open,
    .close = fake_close,
    .pass_begin = fake_pass_begin,
    .bracket_begin = fake_bracket_begin,
    .bracket_end = fake_bracket_end,
    .pass_end = fake_pass_end,
    .edge_size = sizeof(uint64_t),
    .run_begin = fake_run_begin,
    .edge_read = fake_edge_read,
    .window_counts = fake_window_counts,
    .run_end = fake_run_end,
};
