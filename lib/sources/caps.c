/* SPDX-License-Identifier: MIT */
/* caps.c: owns the capability vocabulary (flag names in a fixed order), the report each source
 * fills (flags present plus ordered absences, each with its reason) and the host probes that
 * reasons name (a PMU's type, the core PMU's precise levels). It opens no counter. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../platform/os.h"
#include "../util/text.h"
#include "source.h"

#define PMU_DIR "/sys/bus/event_source/devices/"

const char *bench__cap_name(enum bench__cap cap)
{
    static const char *const names[BENCH__CAP_COUNT] = {
        "counting",      "countingRaw",   "countingScaled", "selfMonitoring",  "ipSampling",
        "preciseMemory", "symbolization", "eventTracing",   "numaAttribution", "eventNaming",
    };
    return (unsigned)cap < BENCH__CAP_COUNT ? names[cap] : "unknown";
}

void bench__caps_present(struct bench__caps *caps, enum bench__cap cap)
{
    caps->present |= 1u << cap;
    /* a capability found present after an earlier failed probe is no longer absent */
    for (size_t i = 0; i < caps->n_absent; i++)
        if (caps->absent[i].cap == cap) {
            memmove(&caps->absent[i], &caps->absent[i + 1],
                    (caps->n_absent - i - 1) * sizeof caps->absent[0]);
            caps->n_absent--;
            break;
        }
}

void bench__caps_absent(struct bench__caps *caps, enum bench__cap cap, const char *fmt, ...)
{
    caps->present &= ~(1u << cap);
    size_t i = 0;
    while (i < caps->n_absent && caps->absent[i].cap != cap)
        i++;
    if (i == caps->n_absent) {
        if (caps->n_absent == BENCH__CAP_COUNT)
            return;
        caps->n_absent++;
    }
    caps->absent[i].cap = cap;
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(caps->absent[i].reason, sizeof caps->absent[i].reason, fmt, ap);
    va_end(ap);
}

void bench__caps_off_platform(struct bench__caps *caps, enum bench__cap cap, const char *why)
{
    bench__caps_absent(caps, cap, BENCH__OFF_PLATFORM " (%s)", why);
}

const char *bench__caps_reason(const struct bench__caps *caps, enum bench__cap cap)
{
    for (size_t i = 0; i < caps->n_absent; i++)
        if (caps->absent[i].cap == cap)
            return caps->absent[i].reason;
    return NULL;
}

void bench__caps_block(struct bench__caps *caps, enum bench__cap cap, const char *block)
{
    if ((unsigned)cap < BENCH__CAP_COUNT)
        caps->block[cap] = block;
}

enum bench__cap bench__caps_defining_absence(const struct bench__caps *caps)
{
    static const enum bench__cap order[] = {BENCH__CAP_EVENT_TRACING, BENCH__CAP_COUNTING_RAW,
                                            BENCH__CAP_COUNTING};
    if (!bench__caps_reason(caps, BENCH__CAP_COUNTING))
        return BENCH__CAP_COUNT; /* it had nothing to count: a probe, not an absence */
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (bench__caps_reason(caps, order[i]))
            return order[i];
    return BENCH__CAP_COUNT;
}

/* ---- host probes ---------------------------------------------------------------------- */

int bench__host_parse_number(const char *text, size_t len, long *out)
{
    const char *p = text, *end = text + len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    bool negative = p < end && *p == '-';
    if (negative)
        p++;
    long value = 0;
    const char *digits = p;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (value > (LONG_MAX - (*p - '0')) / 10)
            return -1;
        value = value * 10 + (*p - '0');
    }
    if (p == digits || (p < end && *p != '\n' && *p != ' ' && *p != '\0'))
        return -1;
    *out = negative ? -value : value;
    return 0;
}

/* Read a sysfs number file: its value, or -1 with `why` ("<path>: <errno>" or "unparsable"). */
static long read_number(const char *path, char *why, size_t why_size)
{
    char text[64];
    ssize_t n = bench__os_read_file(path, text, sizeof text);
    long value;
    if (n < 0) {
        bench__fmt(why, why_size, "%s: %s", path, strerror((int)-n));
        return -1;
    }
    if (bench__host_parse_number(text, (size_t)n, &value) != 0 || value < 0) {
        bench__fmt(why, why_size, "%s: unparsable", path);
        return -1;
    }
    return value;
}

long bench__host_pmu_type(const char *pmu, char *why, size_t why_size)
{
    char path[160];
    bench__fmt(path, sizeof path, PMU_DIR "%s/type", pmu);
    return read_number(path, why, why_size);
}

long bench__host_max_precise(char *why, size_t why_size)
{
    return read_number(PMU_DIR "cpu/caps/max_precise", why, why_size);
}

void bench__precise_memory_caps(struct bench__caps *caps)
{
    char why_ibs[200], why_pebs[200];
    long ibs = bench__host_pmu_type("ibs_op", why_ibs, sizeof why_ibs);
    long precise = bench__host_max_precise(why_pebs, sizeof why_pebs);
    if (ibs >= 0)
        bench__caps_absent(caps, BENCH__CAP_PRECISE_MEMORY,
                           "hardware present (ibs_op PMU, type %ld) — data-source sampling is "
                           "not implemented",
                           ibs);
    else if (precise > 0)
        bench__caps_absent(caps, BENCH__CAP_PRECISE_MEMORY,
                           "hardware present (PEBS, cpu/caps/max_precise=%ld) — data-source "
                           "sampling is not implemented",
                           precise);
    else if (precise == 0)
        bench__caps_absent(caps, BENCH__CAP_PRECISE_MEMORY,
                           "looked for an IBS op PMU (%s) and PEBS precise levels "
                           "(cpu/caps/max_precise=0): neither found",
                           why_ibs);
    else
        bench__caps_absent(caps, BENCH__CAP_PRECISE_MEMORY,
                           "looked for an IBS op PMU (%s) and PEBS precise levels (%s): neither "
                           "found",
                           why_ibs, why_pebs);
}
