/* SPDX-License-Identifier: MIT */
/* preflight.c: owns the checks a run makes once the suite is loaded and before anything runs: the
 * filter selects something the mode runs, no --metrics selector names a column that cannot exist,
 * and the --bench-json destination can take the document. Each failure is one "error: " line and
 * exit status 2. It runs, probes and opens nothing (docs/reference/cli.md, "What a run does"). */
#include <stdio.h>
#include <string.h>

#include "../catalog/catalog.h"
#include "../util/atomic_file.h"
#include "../util/text.h"
#include "preflight.h"

/* Does this configuration run bench mode's measurement (not a catalog or label query)? */
static bool measures(const struct bench__config *cfg)
{
    if (cfg->list || cfg->list_metrics || cfg->metrics_help || !cfg->bench)
        return false;
    for (size_t i = 0; i < cfg->n_group_by; i++)
        if (!strcmp(cfg->group_by[i], "list") || !strcmp(cfg->group_by[i], "help") ||
            !strcmp(cfg->group_by[i], "?"))
            return false;
    return true;
}

int bench__preflight(const struct bench__config *cfg, const struct bench__suite *suite, FILE *err)
{
    char why[BENCH__ERROR_MAX];
    bool bench_mode = cfg->bench || cfg->list_metrics || cfg->metrics_help;
    bool catalog_only = !cfg->list && (cfg->list_metrics || cfg->metrics_help);
    if (!catalog_only) {
        enum bench__filter_mode mode = cfg->list    ? BENCH__FILTER_LIST
                                       : bench_mode ? BENCH__FILTER_BENCH
                                                    : BENCH__FILTER_TEST;
        if (bench__filter_check(suite, cfg, mode, why, sizeof why) != 0) {
            fprintf(err, "error: %s\n", why);
            return 2;
        }
    }
    bool runs_tests = !cfg->list && !bench_mode;
    if ((runs_tests || measures(cfg)) && cfg->junit &&
        bench__write_file_check(cfg->junit, why, sizeof why) != 0) {
        char shown[1024];
        bench__sanitize_copy(cfg->junit, shown, sizeof shown);
        fprintf(err, "error: --junit: cannot write '%s': %s\n", shown, why);
        return 2;
    }
    if (!measures(cfg))
        return 0;
    if (bench__catalog_check_selectors(cfg, err) > 0)
        return 2;
    if (cfg->bench_json && bench__write_file_check(cfg->bench_json, why, sizeof why) != 0) {
        char shown[1024]; /* one line; a longer path is cut, and marked */
        bench__sanitize_copy(cfg->bench_json, shown, sizeof shown);
        fprintf(err, "error: --bench-json: cannot write '%s': %s\n", shown, why);
        return 2;
    }
    if (cfg->profile_folded && bench__write_file_check(cfg->profile_folded, why, sizeof why) != 0) {
        char shown[1024];
        bench__sanitize_copy(cfg->profile_folded, shown, sizeof shown);
        fprintf(err, "error: --profile-folded: cannot write '%s': %s\n", shown, why);
        return 2;
    }
    return 0;
}
