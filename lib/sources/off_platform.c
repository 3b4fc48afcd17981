/* SPDX-License-Identifier: MIT */
/* off_platform.c: owns what a build without Linux (-Dplatform=posix) has in place of the
 * perf_event interface: the "perf", "perf-sw" and "raw" sources with their names, flags and
 * families, each absent "not available on this platform", and the --profile sampler and
 * symbolizer that never open. It must not include a Linux header or measure anything
 * (docs/reference/platforms.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "ip_sampling.h"
#include "perf_family.h"
#include "perf_sw_family.h"
#include "source.h"
#include "symbolize.h"

#define NO_PERF_EVENT "perf_event_open is Linux's"

/* ---- perf and perf-sw ---------------------------------------------------------------------- */

static void *perf_open(const struct bench__source_request *req, struct bench__caps *caps,
                       char *status, size_t status_size)
{
    (void)status_size;
    status[0] = '\0';
    bench__caps_off_platform(caps, BENCH__CAP_COUNTING, NO_PERF_EVENT);
    bench__caps_absent(caps, BENCH__CAP_COUNTING_SCALED, "opt-in: --perf-scaled");
    bench__caps_off_platform(caps, BENCH__CAP_SELF_MONITORING, NO_PERF_EVENT);
    if (req && req->profile) {
        bench__ip_sampling_caps(caps, req->profile_hz);
        bench__symbolization_caps(caps);
    } else {
        bench__caps_absent(caps, BENCH__CAP_IP_SAMPLING, "opt-in: --profile");
    }
    bench__caps_off_platform(caps, BENCH__CAP_PRECISE_MEMORY, NO_PERF_EVENT);
    return NULL;
}

static void *sw_open(const struct bench__source_request *req, struct bench__caps *caps,
                     char *status, size_t status_size)
{
    (void)req;
    (void)status_size;
    status[0] = '\0';
    bench__caps_off_platform(caps, BENCH__CAP_COUNTING, NO_PERF_EVENT);
    return NULL;
}

const struct bench__source_ops bench__source_perf = {
    BENCH__PERF_IDENTITY,
    .open = perf_open,
    .totals = perf_totals,
    .n_totals = T_N,
};

const struct bench__source_ops bench__source_perf_sw = {
    BENCH__PERF_SW_IDENTITY,
    .open = sw_open,
    .totals = sw_totals,
    .n_totals = EV_N,
};

/* ---- raw --------------------------------------------------------------------------------- */

/* raw:<event> and pfm:<name> selectors: counted (their columns are listed, and the open says
 * why they hold no value); the syntax itself is the Linux build's (event_naming.c). */
static bool raw_selector(const char *s)
{
    return (!strncmp(s, "raw:", 4) && s[4]) || (!strncmp(s, "pfm:", 4) && s[4]);
}

static enum bench__claim raw_claim(const char *selector)
{
    return raw_selector(selector) ? BENCH__CLAIM_COUNTED : BENCH__CLAIM_NONE;
}

static size_t raw_family_for(const struct bench__source_request *req, struct bench__family *out)
{
    memset(out, 0, sizeof *out);
    size_t n = 0, bytes = 0;
    for (size_t i = 0; i < req->n_selectors; i++)
        if (raw_selector(req->selectors[i]))
            n++, bytes += strlen(req->selectors[i]) + 1;
    if (n == 0)
        return 0;
    out->columns = bench__xcalloc(n, sizeof *out->columns);
    out->strings = bench__xmalloc(bytes);
    char *p = out->strings;
    for (size_t i = 0; i < req->n_selectors; i++) {
        const char *s = req->selectors[i];
        if (!raw_selector(s))
            continue;
        char *id = strcpy(p, s);
        p += strlen(id) + 1;
        out->columns[out->n++] = (struct bench__column_desc){
            .name = id,
            .header = id,
            .format = BENCH__FORMAT_COUNT,
            .cls = BENCH__DIAGNOSTIC,
            .source = s[0] == 'r' ? "raw" : "pfm",
            .is_default = true,
        };
    }
    return out->n;
}

static void *raw_open(const struct bench__source_request *req, struct bench__caps *caps,
                      char *status, size_t status_size)
{
    (void)req;
    (void)status_size;
    status[0] = '\0';
    bench__caps_off_platform(caps, BENCH__CAP_COUNTING, NO_PERF_EVENT);
    bench__caps_off_platform(caps, BENCH__CAP_COUNTING_RAW, NO_PERF_EVENT);
    bench__caps_block(caps, BENCH__CAP_EVENT_NAMING, "pfm");
    bench__caps_off_platform(caps, BENCH__CAP_EVENT_NAMING,
                             "libpfm4 names perf_event encodings, which are Linux's");
    return NULL;
}

const struct bench__source_ops bench__source_raw = {
    .name = "raw",
    .family_for = raw_family_for,
    .claim = raw_claim,
    .open = raw_open,
};

/* ---- --profile: the sampler and the symbolizer ---------------------------------------------- */

struct bench__ip_sampling *bench__ip_sampling_open(unsigned hz, char *reason, size_t reason_size)
{
    (void)hz;
    bench__fmt(reason, reason_size, BENCH__OFF_PLATFORM " (" NO_PERF_EVENT ")");
    return NULL;
}

void bench__ip_sampling_close(struct bench__ip_sampling *s)
{
    (void)s;
}

const char *bench__ip_sampling_event(const struct bench__ip_sampling *s)
{
    (void)s;
    return "none";
}

bool bench__ip_sampling_chains(const struct bench__ip_sampling *s)
{
    (void)s;
    return false;
}

bool bench__ip_sampling_own_code(void (*body)(void), uint64_t *lo, uint64_t *hi, char *reason,
                                 size_t reason_size)
{
    (void)body;
    (void)lo;
    (void)hi;
    bench__fmt(reason, reason_size, "no sampling pass");
    return false;
}

const char *bench__ip_sampling_unwinder(struct bench__ip_sampling *s, const char **reason)
{
    (void)s;
    *reason = NULL;
    return NULL;
}

uint64_t bench__ip_sampling_fp_samples(const struct bench__ip_sampling *s, const char **reason)
{
    (void)s;
    *reason = NULL;
    return 0;
}

bool bench__ip_sampling_fell_back(const struct bench__ip_sampling *s, size_t i)
{
    (void)s;
    (void)i;
    return false;
}

void bench__ip_sampling_begin(struct bench__ip_sampling *s)
{
    (void)s;
}

void bench__ip_sampling_enable(struct bench__ip_sampling *s)
{
    (void)s;
}

void bench__ip_sampling_disable(struct bench__ip_sampling *s)
{
    (void)s;
}

void bench__ip_sampling_drain(struct bench__ip_sampling *s)
{
    (void)s;
}

bool bench__ip_sampling_own(const struct bench__ip_sampling *s, size_t i)
{
    (void)s;
    (void)i;
    return false;
}

size_t bench__ip_sampling_count(const struct bench__ip_sampling *s)
{
    (void)s;
    return 0;
}

const uint64_t *bench__ip_sampling_stack(const struct bench__ip_sampling *s, size_t i, size_t *n)
{
    (void)s;
    (void)i;
    *n = 0;
    return NULL;
}

uint64_t bench__ip_sampling_lost(const struct bench__ip_sampling *s)
{
    (void)s;
    return 0;
}

bool bench__ip_sampling_throttled(const struct bench__ip_sampling *s)
{
    (void)s;
    return false;
}

double bench__ip_sampling_running_ns(const struct bench__ip_sampling *s)
{
    (void)s;
    return NAN;
}

void bench__ip_sampling_caps(struct bench__caps *caps, unsigned hz)
{
    (void)hz;
    bench__caps_off_platform(caps, BENCH__CAP_IP_SAMPLING, NO_PERF_EVENT);
}

struct bench__symbolizer *bench__symbolizer_new(char *reason, size_t reason_size)
{
    bench__fmt(reason, reason_size, BENCH__OFF_PLATFORM " (no sampling pass: " NO_PERF_EVENT ")");
    return NULL;
}

void bench__symbolizer_free(struct bench__symbolizer *z)
{
    (void)z;
}

const struct bench__profile_frame *bench__symbolize(struct bench__symbolizer *z, uint64_t address,
                                                    bool caller)
{
    (void)z;
    (void)address;
    (void)caller;
    return NULL;
}

void bench__symbolization_caps(struct bench__caps *caps)
{
    bench__caps_off_platform(caps, BENCH__CAP_SYMBOLIZATION,
                             "no sampling pass to symbolize: " NO_PERF_EVENT);
}
