/* SPDX-License-Identifier: MIT */
/* rusage.c: owns the rusage fields of a waited-for child (rusage.h): their JSON keys, table
 * headers, units and meanings, which ones this OS reports, and their values. Pure: no I/O. */
#include <math.h>

#include "rusage.h"

const struct tool_ru_desc tool_ru_fields[TOOL_RU_N] = {
    [TOOL_RU_USER] = {"user-ns", "user", TOOL_RU_UNIT_NS, "user CPU time (ru_utime)"},
    [TOOL_RU_SYS] = {"sys-ns", "sys", TOOL_RU_UNIT_NS, "system CPU time (ru_stime)"},
    [TOOL_RU_MAXRSS] = {"max-rss-bytes", "max RSS", TOOL_RU_UNIT_BYTES,
                        "largest resident set size (ru_maxrss)"},
    [TOOL_RU_MINFLT] = {"minflt", "min-flt", TOOL_RU_UNIT_COUNT,
                        "page faults served without I/O (ru_minflt)"},
    [TOOL_RU_MAJFLT] = {"majflt", "maj-flt", TOOL_RU_UNIT_COUNT,
                        "page faults that needed I/O (ru_majflt)"},
    [TOOL_RU_INBLOCK] = {"inblock", "blk-in", TOOL_RU_UNIT_COUNT,
                         "block input operations: reads from a device (ru_inblock)"},
    [TOOL_RU_OUBLOCK] = {"oublock", "blk-out", TOOL_RU_UNIT_COUNT,
                         "block output operations: writes to a device (ru_oublock)"},
    [TOOL_RU_NVCSW] = {"vol-cs", "vol-cs", TOOL_RU_UNIT_COUNT,
                       "voluntary context switches: waits (ru_nvcsw)"},
    [TOOL_RU_NIVCSW] = {"invol-cs", "invol-cs", TOOL_RU_UNIT_COUNT,
                        "involuntary context switches: preemptions (ru_nivcsw)"},
};

bool tool_ru_reported(enum tool_ru_field f)
{
#if defined(__linux__)
    /* Linux fills every one of these in wait4's rusage (and leaves ru_ixrss, ru_idrss, ru_isrss,
     * ru_nswap, ru_msgsnd, ru_msgrcv and ru_nsignals at 0: they are not reported at all). */
    return f < TOOL_RU_N;
#else
    /* Elsewhere only the CPU times are taken for granted; the rest is null until a port says
     * which fields its kernel fills in. */
    return f == TOOL_RU_USER || f == TOOL_RU_SYS;
#endif
}

static double timeval_ns(struct timeval tv)
{
    return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

void tool_ru_values(const struct rusage *ru, double values[TOOL_RU_N])
{
    values[TOOL_RU_USER] = timeval_ns(ru->ru_utime);
    values[TOOL_RU_SYS] = timeval_ns(ru->ru_stime);
#if defined(__APPLE__)
    values[TOOL_RU_MAXRSS] = (double)ru->ru_maxrss; /* bytes there */
#else
    values[TOOL_RU_MAXRSS] = (double)ru->ru_maxrss * 1024.0; /* KiB on Linux */
#endif
    values[TOOL_RU_MINFLT] = (double)ru->ru_minflt;
    values[TOOL_RU_MAJFLT] = (double)ru->ru_majflt;
    values[TOOL_RU_INBLOCK] = (double)ru->ru_inblock;
    values[TOOL_RU_OUBLOCK] = (double)ru->ru_oublock;
    values[TOOL_RU_NVCSW] = (double)ru->ru_nvcsw;
    values[TOOL_RU_NIVCSW] = (double)ru->ru_nivcsw;
    for (int f = 0; f < TOOL_RU_N; f++)
        if (!tool_ru_reported((enum tool_ru_field)f))
            values[f] = NAN;
}
