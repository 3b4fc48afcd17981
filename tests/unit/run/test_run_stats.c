/* SPDX-License-Identifier: MIT */
/* test_run_stats.c: the numbers of `libbench run` (tools/run/stats.c): the summary of a
 * command's runs (median with the mean of the middle two, MAD, min, max; no numbers from an
 * empty or partial series), the whole-process vectors of the spec, wait4's fields in their units
 * (a measured 0 stays 0), and a command's page-cache regime over its runs. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The vectors of the whole-process contract (stats-vectors.json, "whole_process"), in ns: the
 * median of an even count is the mean of the middle two (1145 here; 1001.5 below, where the
 * spec's integer floor would say 1001: libbench keeps the exact mean, as for every median). */
static void spec_vectors(void **state)
{
    (void)state;
    const double a[] = {1180, 1020, 1150, 1310, 990, 1100, 20000, 1160, 1140, 1125};
    double copy[N_OF(a)];
    memcpy(copy, a, sizeof a);
    struct bench__summary s = run_summarize(a, N_OF(a));
    assert_true(s.min == 990 && s.median == 1145 && s.max == 20000);
    /* |x - 1145| sorted: 5 5 15 20 35 45 125 155 165 18855 -> (35 + 45) / 2 */
    assert_true(s.mad == 40);
    assert_memory_equal(copy, a, sizeof a); /* the input is not reordered */
    const double b[] = {1002, 1001};
    s = run_summarize(b, 2);
    assert_true(s.min == 1001 && s.median == 1001.5 && s.max == 1002 && s.mad == 0.5);
    const double one[] = {50123456};
    s = run_summarize(one, 1);
    assert_true(s.min == 50123456 && s.median == 50123456 && s.max == 50123456 && s.mad == 0);
    const double odd[] = {3, 1, 2};
    s = run_summarize(odd, 3);
    assert_true(s.median == 2 && s.mad == 1);
}

/* No numbers at all rather than numbers of a part: none, or a NaN among them. */
static void no_partial_numbers(void **state)
{
    (void)state;
    struct bench__summary s = run_summarize(NULL, 0);
    assert_true(isnan(s.min) && isnan(s.median) && isnan(s.max) && isnan(s.mad));
    const double v[] = {1, NAN, 3};
    s = run_summarize(v, 3);
    assert_true(isnan(s.min) && isnan(s.median) && isnan(s.max) && isnan(s.mad));
}

static void rusage_units(void **state)
{
    (void)state;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    ru.ru_utime.tv_sec = 1;
    ru.ru_utime.tv_usec = 5;
    ru.ru_stime.tv_usec = 999999;
    ru.ru_maxrss = 102400; /* KiB */
    ru.ru_minflt = 25000;
    ru.ru_majflt = 3;
    ru.ru_inblock = 0; /* a warm run: a measured zero */
    ru.ru_oublock = 8;
    ru.ru_nvcsw = 2;
    ru.ru_nivcsw = 1;
    double v[TOOL_RU_N];
    tool_ru_values(&ru, v);
    assert_true(v[TOOL_RU_USER] == 1000005000.0);
    assert_true(v[TOOL_RU_SYS] == 999999000.0);
    assert_true(v[TOOL_RU_MAXRSS] == 100.0 * 1024 * 1024);
    assert_true(v[TOOL_RU_MINFLT] == 25000 && v[TOOL_RU_MAJFLT] == 3);
    assert_true(v[TOOL_RU_INBLOCK] == 0 && !isnan(v[TOOL_RU_INBLOCK]));
    assert_true(v[TOOL_RU_OUBLOCK] == 8 && v[TOOL_RU_NVCSW] == 2 && v[TOOL_RU_NIVCSW] == 1);
    for (int f = 0; f < TOOL_RU_N; f++) {
        assert_true(tool_ru_reported((enum tool_ru_field)f)); /* Linux reports every field */
        assert_non_null(tool_ru_fields[f].name);
        assert_non_null(tool_ru_fields[f].header);
        for (int g = 0; g < f; g++)
            assert_string_not_equal(tool_ru_fields[f].name, tool_ru_fields[g].name);
    }
}

static void regime_over_runs(void **state)
{
    (void)state;
    struct run_stamp stamps[4] = {
        {BENCH_CACHE_COLD, 1.0, 0.0, NULL},
        {BENCH_CACHE_STEADY, 1.0, 0.5, (char *)"posix_fadvise did not evict"},
        {BENCH_CACHE_COLD, 1.0, 0.0, (char *)"fs type unprobed"},
        {BENCH_CACHE_STEADY, 1.0, 0.5, (char *)"not counted: run 4 is not done"},
    };
    struct run_state st;
    memset(&st, 0, sizeof st);
    st.regime = BENCH_CACHE_COLD;
    struct run_command c;
    memset(&c, 0, sizeof c);
    c.stamps = stamps;
    c.done = 3;
    size_t reached;
    const char *note;
    run_regime_summary(&st, &c, &reached, &note);
    assert_int_equal(reached, 2);
    assert_string_equal(note, "posix_fadvise did not evict");
    /* every run reached it: the first note at all, or none */
    stamps[1].effective = BENCH_CACHE_COLD;
    run_regime_summary(&st, &c, &reached, &note);
    assert_int_equal(reached, 3);
    assert_string_equal(note, "posix_fadvise did not evict");
    stamps[1].note = NULL;
    stamps[2].note = NULL;
    run_regime_summary(&st, &c, &reached, &note);
    assert_int_equal(reached, 3);
    assert_null(note);
    /* no stamps (no --cold/--warm): nothing reached, no note */
    c.stamps = NULL;
    run_regime_summary(&st, &c, &reached, &note);
    assert_int_equal(reached, 0);
    assert_null(note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_vectors),
        cmocka_unit_test(no_partial_numbers),
        cmocka_unit_test(rusage_units),
        cmocka_unit_test(regime_over_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
