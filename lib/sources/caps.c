/* SPDX-License-Identifier: MIT */
/* caps.c: owns the capability vocabulary (flag names in a fixed order) and the
 * report each source fills: flags present plus ordered absences, each with its reason. */
#include <stdio.h>
#include <string.h>

#include "../util/text.h"
#include "source.h"

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

const char *bench__caps_reason(const struct bench__caps *caps, enum bench__cap cap)
{
    for (size_t i = 0; i < caps->n_absent; i++)
        if (caps->absent[i].cap == cap)
            return caps->absent[i].reason;
    return NULL;
}
