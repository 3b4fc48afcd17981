/* SPDX-License-Identifier: MIT */
/* stats.c: owns the numbers of a command's runs in `libbench run`: the rusage fields of
 * wait4 in their units (null where the OS does not report one) and their summary with the one
 * median of libbench (lib/model/summary.c). Pure: no I/O, and no mean anywhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "util/alloc.h"

const struct run_ru_desc run_ru_fields[RUN_RU_N] = {
    [RUN_RU_USER] = {"user-ns", "user", RUN_UNIT_NS, "user CPU time (ru_utime)"},
    [RUN_RU_SYS] = {"sys-ns", "sys", RUN_UNIT_NS, "system CPU time (ru_stime)"},
    [RUN_RU_MAXRSS] = {"max-rss-bytes", "max RSS", RUN_UNIT_BYTES,
                       "largest resident set size (ru_maxrss)"},
    [RUN_RU_MINFLT] = {"minflt", "min-flt", RUN_UNIT_COUNT,
                       "page faults served without I/O (ru_minflt)"},
    [RUN_RU_MAJFLT] = {"majflt", "maj-flt", RUN_UNIT_COUNT,
                       "page faults that needed I/O (ru_majflt)"},
    [RUN_RU_INBLOCK] = {"inblock", "blk-in", RUN_UNIT_COUNT,
                        "block input operations: reads from a device (ru_inblock)"},
    [RUN_RU_OUBLOCK] = {"oublock", "blk-out", RUN_UNIT_COUNT,
                        "block output operations: writes to a device (ru_oublock)"},
    [RUN_RU_NVCSW] = {"vol-cs", "vol-cs", RUN_UNIT_COUNT,
                      "voluntary context switches: waits (ru_nvcsw)"},
    [RUN_RU_NIVCSW] = {"invol-cs", "invol-cs", RUN_UNIT_COUNT,
                       "involuntary context switches: preemptions (ru_nivcsw)"},
};

bool run_ru_reported(enum run_ru_field f)
{
#if defined(__linux__)
    /* Linux fills every one of these in wait4's rusage (and leaves ru_ixrss, ru_idrss, ru_isrss,
     * ru_nswap, ru_msgsnd, ru_msgrcv and ru_nsignals at 0: they are not reported at all). */
    return f < RUN_RU_N;
#else
    /* Elsewhere only the CPU times are taken for granted; the rest is null until a port says
     * which fields its kernel fills in. */
    return f == RUN_RU_USER || f == RUN_RU_SYS;
#endif
}

static double timeval_ns(struct timeval tv)
{
    return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

void run_ru_values(const struct rusage *ru, double values[RUN_RU_N])
{
    values[RUN_RU_USER] = timeval_ns(ru->ru_utime);
    values[RUN_RU_SYS] = timeval_ns(ru->ru_stime);
#if defined(__APPLE__)
    values[RUN_RU_MAXRSS] = (double)ru->ru_maxrss; /* bytes there */
#else
    values[RUN_RU_MAXRSS] = (double)ru->ru_maxrss * 1024.0; /* KiB on Linux */
#endif
    values[RUN_RU_MINFLT] = (double)ru->ru_minflt;
    values[RUN_RU_MAJFLT] = (double)ru->ru_majflt;
    values[RUN_RU_INBLOCK] = (double)ru->ru_inblock;
    values[RUN_RU_OUBLOCK] = (double)ru->ru_oublock;
    values[RUN_RU_NVCSW] = (double)ru->ru_nvcsw;
    values[RUN_RU_NIVCSW] = (double)ru->ru_nivcsw;
    for (int f = 0; f < RUN_RU_N; f++)
        if (!run_ru_reported((enum run_ru_field)f))
            values[f] = NAN;
}

struct bench__summary run_summarize(const double *values, size_t n)
{
    struct bench__summary none = {NAN, NAN, NAN, NAN};
    if (n == 0)
        return none;
    for (size_t i = 0; i < n; i++)
        if (isnan(values[i]))
            return none;
    double *copy = bench__xmalloc(n * sizeof *copy);
    memcpy(copy, values, n * sizeof *copy);
    struct bench__summary s = bench__summarize(copy, n);
    free(copy);
    return s;
}

void run_regime_summary(const struct run_state *st, const struct run_command *c, size_t *reached,
                        const char **note)
{
    *reached = 0;
    *note = NULL;
    const char *first_any = NULL;
    for (size_t r = 0; c->stamps && r < c->done; r++) {
        const struct run_stamp *s = &c->stamps[r];
        if (s->effective == st->regime)
            (*reached)++;
        else if (!*note)
            *note = s->note ? s->note : "";
        if (!first_any && s->note)
            first_any = s->note;
    }
    if (!*note)
        *note = first_any;
}
