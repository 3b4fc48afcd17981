/* SPDX-License-Identifier: MIT */
/* judge.c: owns one judgement of a comparison's runs: the cells of the metric the options select,
 * the engine's verdict on them, the warnings of what Benjamini-Hochberg could confirm, and the
 * report they make (printed by report.c). The one-channel command (cmd.c) and the two channels
 * (channels.c) judge through it. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util/alloc.h"
#include "util/text.h"

int compare_judge(struct compare_state *st, const char *mode_note, struct compare_judged *j,
                  char *err, size_t err_size)
{
    memset(j, 0, sizeof *j);
    compare_cells_free(st);
    compare_assemble(st);
    struct bench__cmp_params *params = &j->params;
    struct bench__cmp_result *result = &j->result;
    compare_engine_params(&st->opts, params);
    result->global_floor = NAN;
    j->out = bench__xcalloc(st->n_cells ? st->n_cells : 1, sizeof *j->out);
    if (st->n_cells == 0) {
        /* nothing was measured: never a pass */
        result->verdict = "UNMEASURED";
        result->exit_code = 2;
        result->reason = "unmeasured_cells";
    } else if (compare_analyse(st, params, j->out, result, err, err_size) != 0) {
        compare_judged_free(j);
        return -1;
    }

    /* What Benjamini-Hochberg can confirm with these runs, as the engine judged it (so the
     * warning and the verdict never disagree: docs/explanation/statistics.md, "Why 5 runs is the
     * practical minimum"). None: no claim at all, the verdict is UNMEASURED. Only several cells
     * together: said, with the runs one change alone needs. */
    size_t n_warnings = 0;
    if (mode_note && mode_note[0])
        j->warnings[n_warnings++] = mode_note;
    unsigned bh_needs =
        result->family_size ? bench__runs_needed(result->family_size, params->q) : 0;
    size_t m = result->family_size;
    if (m > 0 && result->bh_min_cells == 0) {
        bench__fmt(j->bh_warning, sizeof j->bh_warning,
                   "%zu runs per arm are too few for Benjamini-Hochberg to confirm any change "
                   "in a family of %zu cell%s at q %g, so nothing is claimed, no change and no "
                   "PASS either: that needs %u runs per arm",
                   result->bh_fewest_runs, m, m == 1 ? "" : "s", params->q, bh_needs);
        j->warnings[n_warnings++] = j->bh_warning;
    } else if (result->bh_min_cells > 1) {
        bench__fmt(j->bh_warning, sizeof j->bh_warning,
                   "with %zu runs per arm Benjamini-Hochberg confirms a change in a family of "
                   "%zu cells at q %g only when at least %zu cells change together: one change "
                   "alone needs %u runs per arm",
                   result->bh_fewest_runs, m, params->q, result->bh_min_cells, bh_needs);
        j->warnings[n_warnings++] = j->bh_warning;
    }

    j->rep = (struct compare_report){
        .opts = &st->opts,
        .params = params,
        .cells = st->cells,
        .n_cells = st->n_cells,
        .out = j->out,
        .result = result,
        .schedule = st->schedule,
        .auto_stop = st->auto_stop,
        .warnings = j->warnings,
        .n_warnings = n_warnings,
        .state = st,
    };
    for (size_t s = 0; s < N_SUBJECTS; s++) {
        j->rep.n_runs[s] = st->n_runs[s];
        j->rep.run_fail[s] = st->run_fail[s];
    }
    return 0;
}

void compare_judged_free(struct compare_judged *j)
{
    free(j->out);
    j->out = NULL;
}
