/* SPDX-License-Identifier: MIT */
/* callgrind_dump.c: owns reading one Callgrind dump (callgrind_runs.h): the file of the private
 * directory whose trigger is a given tag, its events line and its totals, summed into
 * instructions, L1 misses and LL misses. */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/text.h"
#include "callgrind_runs.h"

/* The event of a dump's column name: Ir, or an L1 or LL miss; -1 for the others. */
static int event_of(const char *name)
{
    static const struct {
        const char *name;
        int event;
    } map[] = {{"Ir", BENCH__CG_IR},   {"I1mr", BENCH__CG_L1}, {"D1mr", BENCH__CG_L1},
               {"D1mw", BENCH__CG_L1}, {"ILmr", BENCH__CG_LL}, {"DLmr", BENCH__CG_LL},
               {"DLmw", BENCH__CG_LL}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(name, map[i].name) == 0)
            return map[i].event;
    return -1;
}

/* A dump's totals line summed into its events, by the names of its events line; a column the
 * line leaves out at its end (Callgrind drops trailing zeros) is 0. */
static void sum_totals(char *events, const char *totals, double out[BENCH__CG_N])
{
    char *save = NULL;
    const char *p = totals;
    for (char *name = strtok_r(events, " \t\n", &save); name;
         name = strtok_r(NULL, " \t\n", &save)) {
        char *end;
        double v = strtod(p, &end);
        if (end == p)
            v = 0;
        p = end;
        int e = event_of(name);
        if (e >= 0)
            out[e] = (isnan(out[e]) ? 0 : out[e]) + v;
    }
}

void bench__callgrind_dump_counts(const char *dir, const char *tag, double out[BENCH__CG_N])
{
    out[BENCH__CG_IR] = -1;
    out[BENCH__CG_L1] = out[BENCH__CG_LL] = NAN;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char want[160];
    bench__fmt(want, sizeof want, "desc: Trigger: Client Request: %s\n", tag);
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (strncmp(e->d_name, "cg.", 3) != 0)
            continue;
        char path[1024], line[1024], events[512] = "";
        bench__fmt(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        bool mine = false;
        while (fgets(line, sizeof line, f)) {
            if (strcmp(line, want) == 0)
                mine = true;
            else if (strncmp(line, "events:", 7) == 0) {
                if (!mine)
                    break; /* the header ended without our trigger */
                bench__fmt(events, sizeof events, "%s", line + 7);
            } else if (mine && strncmp(line, "totals:", 7) == 0) {
                out[BENCH__CG_IR] = NAN;
                sum_totals(events, line + 7, out);
                if (isnan(out[BENCH__CG_IR]))
                    out[BENCH__CG_IR] = -1;
                found = true;
                break;
            }
        }
        fclose(f);
        if (mine)
            unlink(path);
    }
    closedir(d);
}
