/* SPDX-License-Identifier: MIT */
/* results.h: the statistics of the results history (`libbench record`, `report`, `results
 * rebuild`): a recorded measurement, the aggregate of one cell of one recorded run, the row state
 * of a target against its baseline (and reference), the thresholds that decide it and the
 * dashboard's sort order (docs/explanation/results-history.md). Pure functions over numbers and
 * borrowed strings: no I/O, no SQL, no JSON. No mean anywhere: the product's rule
 * (docs/reference/results.md, "Aggregates"). */
#ifndef BENCH_STATS_RESULTS_H
#define BENCH_STATS_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"

/* One measurement: one cell's value in one repetition of one recorded run (one line of a raw
 * results.jsonl object). Strings are borrowed from whoever read the line. */
struct bench__result_measurement {
    const char *bench_id;  /* UTC YYYYMMDDTHHMMSSZ: one `libbench record` call */
    const char *subject;   /* logical name of what was measured (a build, a branch) */
    const char *profile;   /* --profile of the record call */
    const char *scenario;  /* the benchmark's name */
    const char *operation; /* its labels, or the command of a whole-process row */
    const char *host_id;   /* host identity: rows compare only within one host unless asked */
    int64_t run;           /* repetition index within the recorded run */
    int returncode;        /* 0 measured; 77 skipped; anything else a failure */
    double value_ns;       /* NaN when returncode != 0 or the value was not measured */
    bool whole_process;    /* from `libbench run --json`: the ms-scale thresholds apply */
    /* What the document said of the row behind the value (docs/reference/results.md, "The raw
     * line"): its sample count (0: not known, and then row_mad_ns is not read either) and their
     * MAD in ns (NaN: not known); its contention, read only when contention_known. */
    size_t row_samples;
    double row_mad_ns;
    bool contention_known;
    double contention;
};

#define BENCH__RESULT_SKIP 77

/* The aggregate of one group (bench_id, subject, profile, scenario, operation), over successful
 * measurements only. Strings are borrowed from the first measurement of the group. */
struct bench__result_aggregate {
    const char *bench_id, *subject, *profile, *scenario, *operation, *host_id;
    bool whole_process;
    size_t total_count;   /* measurements in the group */
    size_t sample_count;  /* returncode 0 with a finite value */
    size_t skip_count;    /* returncode 77 (also counted in failure_count) */
    size_t failure_count; /* total_count - sample_count */
    double failure_rate;  /* failure_count / total_count */
    /* ns; NaN when sample_count == 0. p50 is the median (even n: the mean of the middle two);
     * p90 and p99 are nearest rank, rank (P·n + 99) / 100 in integers, clamped to [1, n]. */
    double p50, p90, p99, min, max;
    /* The dispersion the p50 comes with, what the history's "unmistakable" rule reads
     * (lib/stats/changepoint.h): with two successful values or more, their MAD (no scale
     * factor) over mad_n = sample_count of them; with one, the MAD its row's document gave over
     * that row's samples (mad_n = row_samples), when the line carries them; otherwise NaN and
     * 0. */
    double mad;
    size_t mad_n;
    /* The largest contention of the successful lines that carry one (0 to 1); NaN when none. */
    double contention;
};

/* Sorts n finite values ascending, the order the aggregates take their percentiles in
 * (bench__sort_doubles of lib/model/summary.h, for the tool, which may not include model/). */
BENCH__HIDDEN void bench__results_sort_values(double *values, size_t n);
/* The median of n finite values (sorts them); NaN for none: what the report shows of a metric
 * over a run's repetitions. */
BENCH__HIDDEN double bench__results_median(double *values, size_t n);
/* Groups m[0..n) and aggregates each group into a malloc'd array (*out, *n_out), in the byte
 * order of (bench_id, subject, profile, scenario, operation). Returns 0, or BENCH_EINVAL for a
 * NULL argument; out of memory aborts with one line (lib/util/alloc.h). */
BENCH__HIDDEN int bench__results_aggregate(const struct bench__result_measurement *m, size_t n,
                                           struct bench__result_aggregate **out, size_t *n_out);

enum bench__result_state { /* in precedence (and sort) order */
                           BENCH__RESULT_FAIL,
                           BENCH__RESULT_UNMEASURED,
                           BENCH__RESULT_REGRESSION,
                           BENCH__RESULT_GUARDRAIL,
                           BENCH__RESULT_WATCH,
                           BENCH__RESULT_OK,
};
/* "fail", "unmeasured", "regression", "guardrail", "watch", "ok" */
BENCH__HIDDEN const char *bench__result_state_name(enum bench__result_state state);

/* One threshold: a percentile is over it when BOTH the relative slowdown is at least `pct`
 * percent AND the absolute slowdown at least `min_ns`. */
struct bench__result_threshold {
    double pct, min_ns;
};
/* Every threshold, configurable; bench__result_thresholds_default fills the defaults: for
 * whole-process rows (baseline 10% and 5 ms, reference 25% and 10 ms, p99 tail 50% and
 * 50 ms), for in-process rows the same percentages with ns-scale minimums
 * (docs/reference/results.md says which and why); fail_pp 0 (any new failure); a p90 is judged
 * from 10 samples on both sides, a p99 from 100 (below that, nearest rank reads the maximum or
 * close to it: a tail rule would judge one sample). */
struct bench__result_thresholds {
    struct bench__result_threshold baseline[2], reference[2], tail[2]; /* [0] in-process,
                                                                          [1] whole-process */
    double fail_pp;              /* failure-rate increase, in percentage points, that fails a row */
    size_t min_n_p90, min_n_p99; /* the fewest samples (each side) a p90 / p99 is judged with */
};
BENCH__HIDDEN void bench__result_thresholds_default(struct bench__result_thresholds *t);

/* One dashboard row: a target aggregate against its baseline and (optional) reference. */
struct bench__result_row {
    const struct bench__result_aggregate *target;    /* never NULL */
    const struct bench__result_aggregate *baseline;  /* NULL: no baseline recorded */
    const struct bench__result_aggregate *reference; /* NULL: no --guardrail subject */
    enum bench__result_state state;
    /* the comparison that decided the state: "baseline", "reference" or NULL (fail/unmeasured
     * without one) */
    const char *decided_by;
    /* target − decider and (target − decider) / decider · 100 per percentile; NaN when either
     * side is unmeasured */
    double delta_p50_ns, delta_p90_ns, delta_p99_ns;
    double slower_p50_pct, slower_p90_pct, slower_p99_pct;
    /* max(t_p90/b_p90, t_p99/b_p99) against the decider over the percentiles judged; NaN sorts
     * last (also when neither tail is judged) */
    double severity;
    /* Whether the p90 and the p99 were judged against the decider (enough samples on both sides:
     * thresholds min_n_p90, min_n_p99). A percentile not judged fires no rule, and its delta
     * and slower_pct are NaN (shown as an em dash). */
    bool p90_judged, p99_judged;
    /* Why not, static: "p90_few_samples,p99_few_samples", "p99_few_samples", or "" when both
     * were judged (or there was nothing to judge against). */
    const char *not_judged;
    /* why the state: reason tokens as docs/reference/results.md lists them, comma-separated, static
     */
    char why[160];
    /* Judged on the row's history (bench__result_row_judge_history): the level the p50 was judged
     * against (its delta is the target's p50 less this), else NaN. */
    double history_ref_p50;
    const void *ctx; /* the caller's, untouched: it travels with the row through the sort */
};
/* Fills row->state and every derived field from row->target/baseline/reference. */
BENCH__HIDDEN void bench__result_row_judge(struct bench__result_row *row,
                                           const struct bench__result_thresholds *t);

struct bench__hist_verdict;
/* The same row judged on its history (docs/explanation/results-history.md, "States that last"):
 * the p50's state is the verdict's (bench__history_judge of the row's series, whose last run is
 * row->target), the p50 delta is against the verdict's reference level; the failure rule, the
 * tails (p90 and p99, with their samples) against row->baseline (the run the caller compares
 * point by point: the last run of the reference segment, or the run before) and the guardrail
 * against row->reference keep bench__result_row_judge's rules. decided_by is "history" (or
 * "baseline" when a tail decided, "reference" for a guardrail); why starts with the verdict's
 * token. */
BENCH__HIDDEN void bench__result_row_judge_history(struct bench__result_row *row,
                                                   const struct bench__hist_verdict *v,
                                                   const struct bench__result_thresholds *t);

/* Priority lists for the sort (each may be NULL/0: bytewise order only). */
struct bench__result_priorities {
    const char *const *profiles;
    size_t n_profiles;
    const char *const *scenarios;
    size_t n_scenarios;
    const char *const *operation_prefixes;
    size_t n_operation_prefixes;
};
/* Sorts rows[0..n) by state rank, severity descending, p50 delta descending (NaN last), profile,
 * scenario, operation-prefix priority, then bytewise (profile, scenario, operation, subject). */
BENCH__HIDDEN void bench__result_rows_sort(struct bench__result_row *rows, size_t n,
                                           const struct bench__result_priorities *p);

#endif
