/* SPDX-License-Identifier: MIT */
/* resume.c: owns what a worker that continues a --bench run (after a crash or a timeout) skips,
 * and running one body with its report (rows, end) under that rule; run.c and grouped.c both
 * run bodies through it. It orders no work: that is run.c's. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "run.h"

bool bench__measure_resumed(const struct bench__measure *m)
{
    return m->resume && m->resume->active;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Was this case begun (measured, refused, or crashed on) by an earlier worker of this run? */
static bool case_done_before(const struct bench__measure *m, const struct bench__pending *p)
{
    if (!bench__measure_resumed(m))
        return false;
    char *identity = bench__case_identity(p->entry->full_name, p->name, p->labels, p->n_labels);
    bool found = bsearch(&identity, m->resume->skip_case, m->resume->n_skip_case,
                         sizeof *m->resume->skip_case, compare_strings) != NULL;
    free(identity);
    return found;
}

void bench__body_run_reported(struct bench__measure *m, const struct bench__entry *e)
{
    size_t first_row = m->n_rows, first_pending = m->n_pending;
    /* an earlier worker ran this body: run it again only to register its cases */
    bool again = bench__measure_resumed(m) && m->resume->register_only[bench__entry_index(m, e)];
    bool register_only = m->register_only;
    m->register_only |= again;
    bench__body_run(m, e);
    m->register_only = register_only;
    if (!again) /* a re-run's rows (its failure) were sent by the earlier worker: kept unsent */
        bench__emit_rows(m, first_row);
    for (size_t p = first_pending; p < m->n_pending; p++)
        m->pending[p].skip = case_done_before(m, &m->pending[p]);
    bench__emit(m, body_end, bench__entry_index(m, e));
}
