/* SPDX-License-Identifier: MIT */
/* rusage.h: the rusage fields of a child the tool waited for (wait4's, common/spawn.c), in their
 * units and in one order, for every command that reports them (`libbench run`, `libbench
 * compare`'s runs); null where the OS does not report a field. No I/O, no statistics. */
#ifndef LIBBENCH_TOOLS_COMMON_RUSAGE_H
#define LIBBENCH_TOOLS_COMMON_RUSAGE_H

#include <stdbool.h>
#include <sys/resource.h>

/* The rusage fields of a run, in this order everywhere (table, JSON: `libbench run`, `libbench
 * compare`). */
enum tool_ru_field {
    TOOL_RU_USER,    /* user CPU, ns */
    TOOL_RU_SYS,     /* system CPU, ns */
    TOOL_RU_MAXRSS,  /* max resident set, bytes */
    TOOL_RU_MINFLT,  /* minor page faults */
    TOOL_RU_MAJFLT,  /* major page faults */
    TOOL_RU_INBLOCK, /* block input operations */
    TOOL_RU_OUBLOCK, /* block output operations */
    TOOL_RU_NVCSW,   /* voluntary context switches */
    TOOL_RU_NIVCSW,  /* involuntary context switches */
    TOOL_RU_N
};

enum tool_ru_unit { TOOL_RU_UNIT_NS, TOOL_RU_UNIT_BYTES, TOOL_RU_UNIT_COUNT };

struct tool_ru_desc {
    const char *name;   /* the JSON key: "user-ns", "majflt" */
    const char *header; /* the table header: "user", "maj-flt" */
    enum tool_ru_unit unit;
    const char *meaning; /* for the JSON columns */
};
extern const struct tool_ru_desc tool_ru_fields[TOOL_RU_N];

/* Whether this OS reports the field in wait4's rusage (Linux: all of them). */
bool tool_ru_reported(enum tool_ru_field f);
/* The fields of one rusage in their units; NaN where the OS does not report the field. */
void tool_ru_values(const struct rusage *ru, double values[TOOL_RU_N]);

#endif /* LIBBENCH_TOOLS_COMMON_RUSAGE_H */
