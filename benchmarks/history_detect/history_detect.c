/* SPDX-License-Identifier: MIT */
/* history_detect.c: prints the figures of the history rules on synthetic series (precision,
 * recall, delay, false alerts per 100 runs, for the new rule, today's previous-run rule and a
 * Perfherder-style t-test) and the scripted week. A measuring program only: it asserts nothing;
 * the goals are read from its table (README.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_sim.h"

static void usage(void)
{
    fprintf(stderr, "usage: history_detect [--series N] [--seed S] [--min-pct P] [--reps R] "
                    "[--weeks W]\n");
    exit(2);
}

static unsigned long long number(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || !*s)
        usage();
    return v;
}

static void ratio(size_t a, size_t b)
{
    if (b == 0)
        printf(" %9s |", "—");
    else
        printf(" %9.3f |", (double)a / (double)b);
}

/* What the false alerts of the step families are, per rule. */
static void false_kinds(struct hsim_score sc[HSIM_RULES][HSIM_FAMILIES])
{
    printf("\nFalse alerts of the step families by kind (before the step: noise; early / late: "
           "naming a run more than 2 before / after the step; repeat: a second alert for a step "
           "already found):\n\n");
    printf("| rule | series | false alerts | before the step | early | late | repeat |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < HSIM_RULES; r++)
        for (int f = HSIM_STEP2; f <= HSIM_STEP10; f++) {
            const struct hsim_score *s = &sc[r][f];
            printf("| %s | %s | %zu | %zu | %zu | %zu | %zu |\n", hsim_rule_name((enum hsim_rule)r),
                   hsim_family_name((enum hsim_family)f), s->false_alerts, s->false_before,
                   s->false_early, s->false_late, s->false_repeat);
        }
}

static void table(const struct hsim_config *c)
{
    static struct hsim_score sc[HSIM_RULES][HSIM_FAMILIES];
    hsim_run(c, sc);
    printf("\n%zu samples per run, run-to-run CV %.0f%%, reportable minimum %.0f%% "
           "(new and previous-run rules; Perfherder-style: its own 2%%), seed %" PRIu64 "\n\n",
           c->reps, c->cv * 100, c->min_pct, c->seed);
    printf("| rule | series | n | precision | recall | within 3 | median delay | false alerts "
           "/ 100 runs | wrongly red runs %% |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < HSIM_RULES; r++)
        for (int f = 0; f < HSIM_FAMILIES; f++) {
            const struct hsim_score *s = &sc[r][f];
            bool step = f >= HSIM_STEP2 && f <= HSIM_STEP10;
            printf("| %s | %s | %zu |", hsim_rule_name((enum hsim_rule)r),
                   hsim_family_name((enum hsim_family)f), s->series);
            if (step) {
                ratio(s->true_alerts, s->true_alerts + s->false_alerts);
                ratio(s->found, s->series);
                ratio(s->found_within3, s->series);
                if (s->found)
                    printf(" %9zu |", hsim_median_delay(s));
                else
                    printf(" %9s |", "—");
            } else {
                printf(" %9s | %9s | %9s | %9s |", "—", "—", "—", "—");
            }
            printf(" %9.2f |",
                   s->judged_runs ? 100.0 * (double)s->false_alerts / (double)s->judged_runs : 0.0);
            if (r == HSIM_PERFHERDER)
                printf(" %9s |\n", "—");
            else
                printf(" %9.2f |\n", s->red_runs_possible ? 100.0 * (double)s->red_runs_false /
                                                                (double)s->red_runs_possible
                                                          : 0.0);
        }
    if (c->min_pct < 10)
        false_kinds(sc);
}

int main(int argc, char **argv)
{
    struct hsim_config c;
    hsim_defaults(&c);
    size_t weeks = 200;
    double min_pct = -1;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            usage();
        if (!strcmp(argv[i], "--series"))
            c.per_family = number(argv[++i]);
        else if (!strcmp(argv[i], "--seed"))
            c.seed = number(argv[++i]);
        else if (!strcmp(argv[i], "--min-pct"))
            min_pct = (double)number(argv[++i]);
        else if (!strcmp(argv[i], "--reps"))
            c.reps = number(argv[++i]);
        else if (!strcmp(argv[i], "--weeks"))
            weeks = number(argv[++i]);
        else
            usage();
    }
    if (c.reps == 0 || c.per_family == 0)
        usage();
    printf("# history_detect: %zu series of %zu runs (judged from run %zu)\n",
           5 * c.per_family + c.per_family / 2 * 2, c.length, c.warmup + 1);
    if (min_pct >= 0) {
        c.min_pct = min_pct;
        table(&c);
    } else {
        table(&c);      /* the minimum the goals are read at */
        c.min_pct = 10; /* the seed's default */
        table(&c);
    }
    struct hsim_week w;
    hsim_run_week(c.seed, weeks, c.reps, c.cv, 10, &w);
    printf("\nThe week (%zu weeks of 7 daily runs, 20 rows, reportable minimum 10%%):\n\n",
           w.weeks);
    printf("| | new rule | previous run (today) |\n|---|---:|---:|\n");
    for (int d = 0; d < 3; d++)
        printf(
            "| stepped rows read regression on day %d (new: since day 5) | %zu/%zu | %zu/%zu |\n",
            d + 5, w.stepped_day[d], w.stepped, w.prev_stepped_day[d], w.stepped);
    printf("| stepped rows reading \"regressed since day 5\" on days 5, 6 and 7 | %zu/%zu | — |\n",
           w.stepped_held, w.stepped);
    printf("| disturbed day-7 rows at most watch | %zu/%zu | %zu/%zu |\n", w.noisy_at_most_watch,
           w.noisy, w.noisy - w.prev_noisy_flagged, w.noisy);
    printf("| clean-shift day-7 rows read regression (one run cannot tell) | %zu/%zu | — |\n",
           w.shifted_flagged, w.shifted);
    printf("| untouched rows read regression (days 2-7) | %zu/%zu | %zu/%zu |\n", w.plain_false,
           w.plain_runs, w.prev_plain_false, w.plain_runs);
    return 0;
}
