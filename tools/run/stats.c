/* SPDX-License-Identifier: MIT */
/* stats.c: owns the numbers of a command's runs in `libbench run`: the summary of the rusage
 * fields (common/rusage.c) with the one median of libbench (lib/model/summary.c) and the
 * page-cache regime over the runs. Pure: no I/O, and no mean anywhere. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "util/alloc.h"

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
