/* SPDX-License-Identifier: MIT */
/* contention.c: owns the contention of a row (see contention.h): the /proc/stat parser, the two
 * edge readings around a row's timing and their sum over sampling rounds. It reads only between
 * samples (timing and counting never overlap with it; measuring/rows.c calls it at a row's
 * edges) and never turns an unread edge into 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../platform/os.h"
#include "../../util/alloc.h"
#include "../../util/text.h"
#include "contention.h"

#define STAT_FIELDS 8      /* user nice system idle iowait irq softirq steal */
#define STAT_SMALL 1024    /* the "cpu " line: ten numbers of up to 20 digits */
#define STAT_BIG (1 << 16) /* every "cpuN" line of a large machine */

/* ---- the parser (pure) ------------------------------------------------------------------ */

int bench__cpu_stat_parse(const char *text, struct bench__cpu_stat *out)
{
    memset(out, 0, sizeof *out);
    if (!text || strncmp(text, "cpu ", 4) != 0)
        return -1;
    const char *nl = strchr(text, '\n');
    if (!nl)
        return -1; /* cut by the end of the read: a torn line */
    const char *p = text + 4;
    uint64_t field[STAT_FIELDS] = {0};
    size_t n = 0;
    while (p < nl) {
        while (p < nl && (*p == ' ' || *p == '\t'))
            p++;
        if (p == nl)
            break;
        uint64_t v;
        const char *stop;
        if (bench__parse_digits(p, nl, UINT64_MAX / 16, &v, &stop) != BENCH__DIGITS_OK ||
            (stop < nl && *stop != ' ' && *stop != '\t'))
            return -1; /* not a number, glued, or absurdly large */
        if (n < STAT_FIELDS)
            field[n] = v;
        n++; /* guest and guest_nice (fields 9, 10) are inside user and nice already */
        p = stop;
    }
    if (n < 4)
        return -1;
    for (size_t i = 0; i < STAT_FIELDS; i++)
        out->total += field[i];
    out->idle = field[3] + field[4];
    for (const char *line = nl + 1; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            break; /* a torn last line is not counted */
        if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9')
            out->cpus++;
        line = end + 1;
    }
    return 0;
}

int bench__cpu_stat_read(struct bench__cpu_stat *out, bool big)
{
    char small[STAT_SMALL];
    char *buf = small;
    size_t size = sizeof small;
    char *heap = NULL;
    if (big) {
        heap = bench__xmalloc(STAT_BIG);
        buf = heap;
        size = STAT_BIG;
    }
    ssize_t n = bench__os_read_file("/proc/stat", buf, size);
    int rc = n < 0 ? (int)n : bench__cpu_stat_parse(buf, out) == 0 ? 0 : -EINVAL;
    free(heap);
    return rc;
}

/* ---- edges and spans ---------------------------------------------------------------------- */

static int64_t tv_ns(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

void bench__contention_edge_read(struct bench__contention_edge *e)
{
    memset(e, 0, sizeof *e);
    struct rusage ru;
    if (bench__os.getrusage(RUSAGE_SELF, &ru) != 0) {
        e->err = -errno;
        return;
    }
    e->own_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
    e->err = bench__cpu_stat_read(&e->stat, false);
}

void bench__contention_add(struct bench__contention *acc,
                           const struct bench__contention_edge *begin,
                           const struct bench__contention_edge *end)
{
    if (acc->err)
        return;
    if (begin->err || end->err) {
        acc->err = begin->err ? begin->err : end->err;
        return;
    }
    uint64_t busy0 = begin->stat.total - begin->stat.idle, busy1 = end->stat.total - end->stat.idle;
    if (end->stat.total < begin->stat.total || busy1 < busy0 || end->own_ns < begin->own_ns) {
        acc->err = -ERANGE; /* a counter ran backwards: nothing honest to say */
        return;
    }
    acc->total += end->stat.total - begin->stat.total;
    acc->busy += busy1 - busy0;
    acc->own_ns += end->own_ns - begin->own_ns;
}

double bench__contention_value(const struct bench__contention *acc, long ticks_per_s)
{
    if (acc->err || acc->total < BENCH__CONTENTION_MIN_TICKS || ticks_per_s <= 0)
        return NAN;
    double own = (double)acc->own_ns * (double)ticks_per_s / 1e9;
    double others = (double)acc->busy - own;
    /* the kernel samples busy time per tick and this process's time more finely: a quiet
     * machine can read a little below zero */
    if (others < 0)
        others = 0;
    double v = others / (double)acc->total;
    return v > 1 ? 1 : v;
}

int bench__contention_gap(const struct bench__contention *acc, long ticks_per_s)
{
    if (acc->err || ticks_per_s <= 0)
        return BENCH__CONTENTION_UNREADABLE;
    return acc->total < BENCH__CONTENTION_MIN_TICKS ? BENCH__CONTENTION_SHORT : 0;
}

long bench__ticks_per_s(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? hz : 100;
}
