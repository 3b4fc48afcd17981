/* SPDX-License-Identifier: MIT */
/* profile_pass.c: owns the sampling pass of --profile in the measuring process: the sampling
 * event and the symbolizer opened once per process, the pass's size (its time budget), the
 * samples of a pass symbolised and aggregated into the row's profile, and the reason a row has
 * none. Runs after a row's timing and counting passes, never during them; never draws. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../sources/ip_sampling.h"
#include "../../sources/symbolize.h"
#include "../../util/alloc.h"
#include "../../util/text.h"
#include "measure.h"

void bench__profile_open(struct bench__measure *m)
{
    struct bench__profile_state *p = &m->profile;
    memset(p, 0, sizeof *p);
    if (!m->cfg->profile || m->register_only)
        return;
    p->wanted = true;
    p->hz = m->cfg->profile_hz ? m->cfg->profile_hz : BENCH__PROFILE_HZ_DEFAULT;
    p->sampling = bench__ip_sampling_open(p->hz, p->reason, sizeof p->reason);
    if (p->sampling) {
        p->symbols = bench__symbolizer_new(p->symbols_reason, sizeof p->symbols_reason);
    }
    if (!bench__say_once(m, "profile"))
        return;
    if (!p->sampling) {
        bench__emit_note(m, "--profile: no sampling pass (%s)\n", p->reason);
        return;
    }
    const char *why = NULL;
    const char *unwinder = bench__ip_sampling_unwinder(p->sampling, &why);
    char chains[BENCH__REASON_MAX + 80];
    if (!unwinder)
        bench__fmt(chains, sizeof chains, "no call chains (self samples only)");
    else if (!why)
        bench__fmt(chains, sizeof chains, "call chains unwound from DWARF (libdw)");
    else
        bench__fmt(chains, sizeof chains, "call chains follow frame pointers (%s)", why);
    bench__emit_note(m,
                     "--profile: %s sampled at %u Hz for about %.0f ms of each benchmark's CPU "
                     "time, after its timing; %s\n",
                     bench__ip_sampling_event(p->sampling), p->hz, BENCH__PROFILE_BUDGET_NS / 1e6,
                     chains);
    if (!p->symbols)
        bench__emit_note(m, "--profile: samples are not symbolised (%s)\n", p->symbols_reason);
}

void bench__profile_close(struct bench__measure *m)
{
    bench__symbolizer_free(m->profile.symbols);
    bench__ip_sampling_close(m->profile.sampling);
    memset(&m->profile, 0, sizeof m->profile);
}

bool bench__profile_available(const struct bench__measure *m)
{
    return m->profile.sampling != NULL;
}

uint64_t bench__profile_iterations(double fastest_ns)
{
    double n = fastest_ns > 0 ? ceil(BENCH__PROFILE_BUDGET_NS / fastest_ns) : 1;
    double cap = (double)BENCH__MAX_SCALED_ITERATIONS;
    if (!(n >= 1))
        n = 1;
    return n > cap ? (uint64_t)cap : (uint64_t)n;
}

static void attach(struct bench__measure *m, size_t row, struct bench__profile *p)
{
    struct bench__row *r = &m->rows[row];
    bench__profile_free(r->profile);
    r->profile = p;
}

void bench__profile_unavailable(struct bench__measure *m, size_t row)
{
    if (!m->profile.wanted || m->rows[row].state != BENCH__ROW_OK)
        return;
    struct bench__profile *p = bench__xcalloc(1, sizeof *p);
    p->unavailable = bench__xstrdup(m->profile.reason);
    p->hz = p->hz_reached = p->running_ns = NAN;
    attach(m, row, p);
}

void bench__profile_pass_begin(struct bench__measure *m)
{
    bench__ip_sampling_begin(m->profile.sampling);
    bench__ip_sampling_enable(m->profile.sampling);
}

void bench__profile_drain(struct bench__measure *m)
{
    bench__ip_sampling_drain(m->profile.sampling);
}

void bench__profile_pass_end(struct bench__measure *m, size_t row, uint64_t iterations)
{
    struct bench__profile_state *st = &m->profile;
    struct bench__ip_sampling *s = st->sampling;
    bench__ip_sampling_disable(s);
    /* the harness's samples: their sampled address is in libbench's own code; a body sample keeps
     * its frames under the harness's call of the body (bench__profile_body_frames) */
    char harness_reason[240] = "";
    uint64_t own_lo = 0, own_hi = 0, harness = 0, fp_body = 0;
    bool own = bench__ip_sampling_own_code(st->body, &own_lo, &own_hi, harness_reason,
                                           sizeof harness_reason);
    size_t n_all = bench__ip_sampling_count(s), n = 0;
    bool chains = bench__ip_sampling_chains(s);
    /* one frame per address, borrowed from the symbolizer (or made here when there is none) */
    struct bench__profile_sample *samples = bench__xcalloc(n_all + 1, sizeof *samples);
    const struct bench__profile_frame **frames = NULL;
    size_t n_frames = 0, cap_frames = 0;
    struct bench__profile_frame none = {.reason = st->symbols_reason};
    size_t *first = bench__xcalloc(n_all + 1, sizeof *first);
    for (size_t j = 0; j < n_all; j++) {
        size_t depth;
        const uint64_t *ips = bench__ip_sampling_stack(s, j, &depth);
        if (own && bench__ip_sampling_own(s, j)) { /* taken while libbench read its ring */
            harness++;
            continue;
        }
        if (own) {
            size_t body = bench__profile_body_frames(ips, depth, own_lo, own_hi);
            if (depth && body == 0) {
                harness++;
                continue;
            }
            depth = body;
        }
        fp_body += bench__ip_sampling_fell_back(s, j);
        size_t i = n++;
        first[i] = n_frames;
        frames = bench__grow(frames, &cap_frames, n_frames + depth + 1, sizeof *frames);
        for (size_t k = 0; k < depth; k++)
            frames[n_frames++] = st->symbols ? bench__symbolize(st->symbols, ips[k], k > 0) : &none;
        samples[i].n = depth;
    }
    for (size_t i = 0; i < n; i++)
        samples[i].frames = frames + first[i];
    struct bench__profile *p = bench__xcalloc(1, sizeof *p);
    p->event = bench__xstrdup(bench__ip_sampling_event(s));
    p->hz = st->hz;
    p->running_ns = bench__ip_sampling_running_ns(s);
    p->iterations = iterations;
    p->lost = bench__ip_sampling_lost(s);
    p->chains = chains;
    p->harness_samples = harness;
    p->harness_unmeasured = own ? NULL : bench__xstrdup(harness_reason);
    const char *unwinder_reason = NULL, *fp_reason = NULL;
    const char *unwinder = bench__ip_sampling_unwinder(s, &unwinder_reason);
    p->unwinder = unwinder ? bench__xstrdup(unwinder) : NULL;
    p->unwinder_reason = unwinder_reason ? bench__xstrdup(unwinder_reason) : NULL;
    bench__ip_sampling_fp_samples(s, &fp_reason);
    bench__profile_aggregate(p, samples, n);
    p->fp_samples = !chains ? 0 : unwinder_reason ? p->samples : fp_body;
    p->hz_reached = p->running_ns > 0 ? (double)n_all * 1e9 / p->running_ns : NAN;
    char note[800] = "", part[BENCH__REASON_MAX * 2];
    if (chains && unwinder_reason) {
        bench__fmt(part, sizeof part,
                   "callers come from frame pointers (%s): code built without them "
                   "(-fomit-frame-pointer, leaf functions) loses or misnames its callers",
                   unwinder_reason);
        bench__note_append(note, sizeof note, part);
    } else if (chains) {
        bench__fmt(part, sizeof part,
                   "callers come from DWARF unwinding (libdw) of a %u KiB copy of each "
                   "sample's user stack",
                   BENCH__UNWIND_STACK_BYTES / 1024);
        bench__note_append(note, sizeof note, part);
        if (fp_body) {
            bench__fmt(part, sizeof part, "%llu samples kept frame-pointer callers (%s)",
                       (unsigned long long)fp_body, fp_reason);
            bench__note_append(note, sizeof note, part);
        }
    } else
        bench__note_append(note, sizeof note,
                           "no call chains: self samples only, no inclusive table");
    if (bench__ip_sampling_throttled(s))
        bench__note_append(note, sizeof note,
                           "the kernel throttled the rate (perf_event_max_sample_rate)");
    p->note = bench__xstrdup(note);
    attach(m, row, p);
    free(first);
    free(frames);
    free(samples);
}
