/* SPDX-License-Identifier: MIT */
/* deadline.c: owns the arithmetic of --timeout for test mode: a running test's deadline on the
 * clock that leaves out the time the runner was stopped, and the poll timeout to the nearest
 * one. It kills nothing (the callers do, through workers.c). */
#include <stdint.h>

#include "../platform/workers.h"
#include "deadline.h"

void bench__deadlines_begin(struct bench__deadlines *d, unsigned timeout_s)
{
    d->limit_ns = (int64_t)timeout_s * 1000000000LL;
    d->now_ns = timeout_s ? bench__workers_clock_ns() : 0;
    d->nearest = -1;
}

bool bench__deadline_passed(struct bench__deadlines *d, int64_t start_ns)
{
    return d->limit_ns != 0 && bench__deadline_due(d, start_ns + d->limit_ns);
}

bool bench__deadline_due(struct bench__deadlines *d, int64_t due_ns)
{
    if (d->now_ns >= due_ns)
        return true;
    if (d->nearest < 0 || due_ns - d->now_ns < d->nearest)
        d->nearest = due_ns - d->now_ns;
    return false;
}

int bench__deadlines_ms(const struct bench__deadlines *d)
{
    if (d->nearest < 0)
        return -1;
    int64_t ms = (d->nearest + 999999) / 1000000;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}
