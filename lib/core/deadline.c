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
    if (d->limit_ns == 0)
        return false;
    int64_t ran = d->now_ns - start_ns;
    if (ran >= d->limit_ns)
        return true;
    if (d->nearest < 0 || d->limit_ns - ran < d->nearest)
        d->nearest = d->limit_ns - ran;
    return false;
}

int bench__deadlines_ms(const struct bench__deadlines *d)
{
    if (d->nearest < 0)
        return -1;
    int64_t ms = (d->nearest + 999999) / 1000000;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}
