/* SPDX-License-Identifier: MIT */
/* test_compare.c: the comparison engine (compare.h) against every golden vector of
 * stats-vectors.json (path in $STATS_VECTORS) that §B.1 covers, against libbench's own vectors of
 * compare-vectors.json (path in $COMPARE_VECTORS: --detect and lost runs), plus oracles built
 * here. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "mw_oracle.h"
#include "stats/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define REL_TOL 1e-12
#define MAX_RUNS 64

static json_t *root;
static json_t *own_root; /* compare-vectors.json */

/* ---- checking: every mismatch is printed with its values, then the test fails ----------- */

static unsigned mismatches; /* in the current section */
static unsigned n_doubles;  /* doubles compared in the current section */
static unsigned n_bit_identical;
static char where[256]; /* the vector being checked */

static void mismatch(const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("MISMATCH %s: %s: ", where, field);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    mismatches++;
}

static void expect_u64(const char *field, uint64_t got, uint64_t want)
{
    if (got != want)
        mismatch(field, "got %" PRIu64 ", want %" PRIu64, got, want);
}

static void expect_int(const char *field, long long got, long long want)
{
    if (got != want)
        mismatch(field, "got %lld, want %lld", got, want);
}

static void expect_bool(const char *field, bool got, bool want)
{
    if (got != want)
        mismatch(field, "got %s, want %s", got ? "true" : "false", want ? "true" : "false");
}

static void expect_str(const char *field, const char *got, const char *want)
{
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0))
        mismatch(field, "got %s, want %s", got ? got : "(null)", want ? want : "(null)");
}

/* Doubles: within 1e-12 relative (§C); counted as bit-identical when they are. */
static void expect_dbl(const char *field, double got, double want)
{
    n_doubles++;
    if (memcmp(&got, &want, sizeof got) == 0) {
        n_bit_identical++;
        return;
    }
    double scale = fmax(fabs(got), fabs(want));
    if (!(fabs(got - want) <= REL_TOL * scale))
        mismatch(field, "got %.17g, want %.17g", got, want);
}

static void section_begin(void)
{
    mismatches = 0;
    n_doubles = 0;
    n_bit_identical = 0;
}

static void section_end(const char *name, unsigned vectors, unsigned checks)
{
    printf("[ VECTORS  ] %-32s %3u vectors, %4u checks, %u doubles (%u bit-identical)\n", name,
           vectors, checks, n_doubles, n_bit_identical);
    fflush(stdout);
    assert_int_equal(mismatches, 0);
}

/* ---- JSON access ---------------------------------------------------------------------- */

static json_t *get(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("stats-vectors.json: missing key \"%s\" (%s)", key, where);
    return v;
}

static double jnum(json_t *v)
{
    if (!json_is_number(v))
        fail_msg("stats-vectors.json: expected a number (%s)", where);
    return json_number_value(v);
}

static double get_num(json_t *obj, const char *key)
{
    return jnum(get(obj, key));
}

/* uint64 values are decimal strings; small ones may be plain integers. */
static uint64_t u64(json_t *v)
{
    if (json_is_string(v)) {
        char *end;
        uint64_t x = strtoull(json_string_value(v), &end, 10);
        if (*end)
            fail_msg("stats-vectors.json: bad uint64 \"%s\" (%s)", json_string_value(v), where);
        return x;
    }
    if (json_is_integer(v) && json_integer_value(v) >= 0)
        return (uint64_t)json_integer_value(v);
    fail_msg("stats-vectors.json: expected a uint64 (%s)", where);
    return 0;
}

static uint64_t get_u64(json_t *obj, const char *key)
{
    return u64(get(obj, key));
}

static size_t doubles_of(json_t *arr, double *out, size_t cap)
{
    if (!json_is_array(arr) || json_array_size(arr) > cap)
        fail_msg("stats-vectors.json: expected an array of at most %zu numbers (%s)", cap, where);
    for (size_t i = 0; i < json_array_size(arr); i++)
        out[i] = jnum(json_array_get(arr, i));
    return json_array_size(arr);
}

/* A per-run arm: an object keyed by the decimal run index, read in ascending run order. */
struct arm_buf {
    double values[MAX_RUNS];
    uint64_t runs[MAX_RUNS];
    size_t n;
};

static void arm_of(json_t *obj, struct arm_buf *a)
{
    const char *key;
    json_t *val;
    a->n = 0;
    if (!json_is_object(obj) || json_object_size(obj) > MAX_RUNS)
        fail_msg("stats-vectors.json: expected an object of runs (%s)", where);
    json_object_foreach(obj, key, val)
    {
        a->runs[a->n] = strtoull(key, NULL, 10);
        a->values[a->n] = jnum(val);
        a->n++;
    }
    for (size_t i = 1; i < a->n; i++) /* ascending run index */
        for (size_t j = i; j > 0 && a->runs[j - 1] > a->runs[j]; j--) {
            uint64_t r = a->runs[j];
            double v = a->values[j];
            a->runs[j] = a->runs[j - 1];
            a->values[j] = a->values[j - 1];
            a->runs[j - 1] = r;
            a->values[j - 1] = v;
        }
}

/* An arm of compare-vectors.json: null values are error rows, left out like the tool does. */
static void measured_arm_of(json_t *obj, struct arm_buf *a)
{
    json_t *copy = json_object();
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val)
    {
        if (!json_is_null(val))
            json_object_set(copy, key, val);
    }
    arm_of(copy, a);
    json_decref(copy);
}

static struct bench__arm arm_view(const struct arm_buf *a)
{
    return (struct bench__arm){a->values, a->runs, a->n};
}

/* ---- oracles built here from the spec's words ----------------------------------------- */

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 big_uint;
#else
typedef uint64_t big_uint;
#endif

static big_uint binomial(unsigned n, unsigned k)
{
    big_uint c = 1;
    for (unsigned i = 1; i <= k; i++)
        c = c * (n - k + i) / i;
    return c;
}

static void big_to_decimal(big_uint x, char *buf, size_t size)
{
    char tmp[64];
    size_t len = 0;
    do {
        tmp[len++] = (char)('0' + (int)(x % 10));
        x /= 10;
    } while (x && len < sizeof tmp);
    size_t i = 0;
    for (; i < len && i + 1 < size; i++)
        buf[i] = tmp[len - 1 - i];
    buf[i] = '\0';
}

static int compare_doubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The bootstrap exactly as Step 3 words it: draw the indices, copy the selected values, take
 * bench__median_of of each arm, sort all B deltas with qsort. Returns d sorted. */
static double *reference_bootstrap(const struct bench__arm *b, const struct bench__arm *c,
                                   uint64_t seed, uint32_t resamples, bool paired)
{
    double *d = malloc(resamples * sizeof *d);
    assert_non_null(d);
    struct bench__rng rng = {seed};
    double xb[MAX_RUNS], xc[MAX_RUNS];
    for (uint32_t t = 0; t < resamples; t++) {
        if (paired) {
            for (size_t i = 0; i < b->n; i++) {
                uint64_t j = bench__rng_below(&rng, b->n);
                xb[i] = b->values[j];
                xc[i] = c->values[j];
            }
        } else {
            for (size_t i = 0; i < b->n; i++)
                xb[i] = b->values[bench__rng_below(&rng, b->n)];
            for (size_t i = 0; i < c->n; i++)
                xc[i] = c->values[bench__rng_below(&rng, c->n)];
        }
        double mb = bench__median_of(xb, b->n), mc = bench__median_of(xc, c->n);
        d[t] = (mc - mb) / mb;
    }
    qsort(d, resamples, sizeof *d, compare_doubles);
    return d;
}

/* Every one of the n^n paired resamples of n runs, sorted: the exact bootstrap distribution. */
static double *enumerate_paired(const struct bench__arm *b, const struct bench__arm *c,
                                size_t *count)
{
    size_t n = b->n, total = 1;
    for (size_t i = 0; i < n; i++)
        total *= n;
    double *d = malloc(total * sizeof *d);
    assert_non_null(d);
    size_t idx[MAX_RUNS] = {0};
    double xb[MAX_RUNS], xc[MAX_RUNS];
    for (size_t t = 0; t < total; t++) {
        for (size_t i = 0; i < n; i++) {
            xb[i] = b->values[idx[i]];
            xc[i] = c->values[idx[i]];
        }
        double mb = bench__median_of(xb, n), mc = bench__median_of(xc, n);
        d[t] = (mc - mb) / mb;
        for (size_t i = n; i-- > 0;) { /* next index vector, odometer order */
            if (++idx[i] < n)
                break;
            idx[i] = 0;
        }
    }
    qsort(d, total, sizeof *d, compare_doubles);
    *count = total;
    return d;
}

/* Completely separated arms of n runs each: baseline 1..n, candidate n+1..2n. */
static void separated(size_t n, double *b, double *c)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = (double)(i + 1);
        c[i] = (double)(n + i + 1);
    }
}

/* ---- prng ----------------------------------------------------------------------------- */

static void expect_stream(json_t *arr, uint64_t seed, const char *name, unsigned *checks)
{
    struct bench__rng rng = {seed};
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char field[64];
        snprintf(field, sizeof field, "%s[%zu]", name, i);
        expect_u64(field, bench__rng_next(&rng), u64(json_array_get(arr, i)));
        (*checks)++;
    }
}

static void test_prng(void **state)
{
    (void)state;
    section_begin();
    json_t *s = get(root, "prng");
    unsigned vectors = 0, checks = 0;

    snprintf(where, sizeof where, "prng");
    expect_stream(get(s, "splitmix64_seed0_first5"), 0, "splitmix64_seed0", &checks);
    expect_stream(get(s, "splitmix64_seed1234567_first5"), 1234567, "splitmix64_seed1234567",
                  &checks);
    vectors += 2;

    json_t *below5 = get(s, "below5_seed42_first20");
    struct bench__rng rng = {42};
    for (size_t i = 0; i < json_array_size(below5); i++, checks++)
        expect_u64("below5_seed42", bench__rng_below(&rng, 5), u64(json_array_get(below5, i)));
    vectors++;

    json_t *rej = get(s, "below_n_2pow63plus1_seed7_first3");
    uint64_t n = get_u64(rej, "n");
    expect_u64("rejection threshold (0-n) mod n", (0 - n) % n, get_u64(rej, "threshold"));
    expect_stream(get(rej, "raw_first8"), 7, "below_2^63+1 raw", &checks);
    /* below(n) returns x mod n for the raw draws x ≥ threshold, skipping the others, and
     * consumes exactly the draws up to the accepted one (checked while raw_first8 lasts). */
    json_t *raw = get(rej, "raw_first8"), *res = get(rej, "result");
    uint64_t t = get_u64(rej, "threshold");
    rng.state = 7;
    size_t next_raw = 0;
    for (size_t i = 0; i < json_array_size(res); i++, checks++) {
        expect_u64("below_2^63+1 result", bench__rng_below(&rng, n), u64(json_array_get(res, i)));
        while (next_raw < json_array_size(raw) && u64(json_array_get(raw, next_raw)) < t)
            next_raw++;
        if (next_raw == json_array_size(raw))
            continue; /* accepted beyond the listed raw draws */
        expect_u64("below_2^63+1 result = accepted raw mod n",
                   u64(json_array_get(raw, next_raw++)) % n, u64(json_array_get(res, i)));
        expect_u64("below_2^63+1 draws consumed", rng.state,
                   7 + UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)next_raw);
        checks += 2;
    }
    checks++;
    vectors++;

    json_t *fnv = get(s, "fnv1a64");
    const char *key;
    json_t *val;
    json_object_foreach(fnv, key, val)
    {
        char field[64];
        snprintf(field, sizeof field, "fnv1a64(\"%s\")", key);
        uint64_t want = strtoull(json_string_value(val), NULL, 16);
        expect_u64(field, bench__fnv1a64(key, strlen(key)), want);
        checks++;
        vectors++;
    }

    json_t *ex = get(s, "stream_seed_example");
    json_t *k = get(ex, "key");
    expect_u64("stream_seed_example",
               bench__stream_seed(
                   get_u64(ex, "global_seed"), json_string_value(json_array_get(k, 0)),
                   json_string_value(json_array_get(k, 1)), json_string_value(json_array_get(k, 2)),
                   json_string_value(json_array_get(k, 3))),
               get_u64(ex, "seed"));
    checks++;
    vectors++;
    section_end("prng", vectors, checks);
}

/* ---- schedule (Step 10) --------------------------------------------------------------- */

static void test_schedule(void **state)
{
    (void)state;
    section_begin();
    json_t *s = get(root, "schedule");
    snprintf(where, sizeof where, "schedule");
    unsigned vectors = 0, checks = 0;
    uint64_t seed = get_u64(s, "global_seed") ^ bench__fnv1a64("schedule", 8);
    expect_u64("seed", seed, get_u64(s, "seed"));
    checks++;
    json_t *declared = get(s, "subjects_declared");
    size_t n = json_array_size(declared);
    assert_true(n <= 16);
    struct bench__rng rng = {seed};
    json_t *runs = get(s, "runs");
    for (size_t r = 0; r < json_array_size(runs); r++) {
        json_t *run = json_array_get(runs, r);
        json_t *want = get(run, "order");
        snprintf(where, sizeof where, "schedule run %lld",
                 (long long)json_integer_value(get(run, "run")));
        size_t order[16];
        for (size_t i = 0; i < n; i++)
            order[i] = i; /* a fresh copy of the declared list for every run */
        bench__shuffle(&rng, order, n);
        for (size_t i = 0; i < n; i++, checks++)
            expect_str("order", json_string_value(json_array_get(declared, order[i])),
                       json_string_value(json_array_get(want, i)));
        vectors++;
    }
    section_end("schedule", vectors, checks);
}

/* ---- Mann–Whitney (Step 5) ------------------------------------------------------------ */

static void expect_fraction(const char *field, uint64_t num_got, uint64_t den_got, json_t *want)
{
    char f[96];
    snprintf(f, sizeof f, "%s.num", field);
    expect_u64(f, num_got, u64(get(want, "num")));
    snprintf(f, sizeof f, "%s.den", field);
    expect_u64(f, den_got, u64(get(want, "den")));
    snprintf(f, sizeof f, "%s.float", field);
    expect_dbl(f, (double)num_got / (double)den_got, get_num(want, "float"));
}

static void test_mann_whitney(void **state)
{
    (void)state;
    section_begin();
    json_t *mw = get(root, "mann_whitney");
    json_t *cases = get(mw, "exact");
    unsigned vectors = 0, checks = 0;
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *v = json_array_get(cases, i);
        snprintf(where, sizeof where, "mann_whitney.exact[%s]", json_string_value(get(v, "name")));
        double b[MAX_RUNS], c[MAX_RUNS];
        size_t nb = doubles_of(get(v, "baseline"), b, MAX_RUNS);
        size_t nc = doubles_of(get(v, "candidate"), c, MAX_RUNS);
        expect_u64("n_baseline", nb, get_u64(v, "n_baseline"));
        expect_u64("n_candidate", nc, get_u64(v, "n_candidate"));
        char lab[64];
        big_to_decimal(binomial((unsigned)(nb + nc), (unsigned)nc), lab, sizeof lab);
        char want_lab[64];
        snprintf(want_lab, sizeof want_lab, "%" PRIu64, get_u64(v, "labelings"));
        expect_str("labelings C(N, nc)", lab, want_lab);

        uint64_t two_u = bench__mw_two_u(b, nb, c, nc);
        expect_u64("two_u", two_u, get_u64(v, "two_u"));
        expect_dbl("u", (double)two_u / 2.0, get_num(v, "u"));

        uint64_t num = 0, den = 0, enum_num = 0, enum_den = 0;
        bool dp = bench__mw_exact(b, nb, c, nc, &num, &den);
        bool en = mw_enumerate(b, nb, c, nc, &enum_num, &enum_den);
        expect_bool("DP is exact", dp, true);
        expect_bool("enumeration ran", en, true);
        expect_fraction("p_exact (DP)", num, den, get(v, "p_exact"));
        expect_fraction("p_exact (enumeration)", enum_num, enum_den, get(v, "p_exact"));
        /* The arms swapped give the same two-sided p (the DP counts the smaller arm). */
        uint64_t swap_num = 0, swap_den = 0;
        bench__mw_exact(c, nc, b, nb, &swap_num, &swap_den);
        expect_fraction("p_exact (arms swapped)", swap_num, swap_den, get(v, "p_exact"));
        checks += 11;

        json_t *pmin = json_object_get(v, "p_min_possible");
        if (pmin) {
            double sb[MAX_RUNS], sc[MAX_RUNS];
            for (size_t t = 0; t < nb; t++)
                sb[t] = (double)(t + 1);
            for (size_t t = 0; t < nc; t++)
                sc[t] = (double)(nb + t + 1);
            uint64_t pn = 0, pd = 0;
            bench__mw_exact(sb, nb, sc, nc, &pn, &pd);
            expect_fraction("p_min_possible", pn, pd, pmin);
            checks++;
        }
        json_t *not_spec = json_object_get(v, "p_doubled_one_sided_NOT_spec");
        if (not_spec) { /* the discriminator: the spec's p must differ from 2·min(one-sided) */
            if (num == u64(get(not_spec, "num")) && den == u64(get(not_spec, "den")))
                mismatch("p_exact", "equals the doubled one-sided p, which is not the spec's");
            checks++;
        }
        json_t *perm = json_object_get(v, "scipy_permutation_test_p");
        if (perm) {
            expect_dbl("scipy_permutation_test_p", (double)num / (double)den, jnum(perm));
            checks++;
        }
        json_t *sp = json_object_get(v, "scipy_mannwhitneyu_exact");
        if (sp) {
            expect_dbl("scipy_mannwhitneyu_exact.U", (double)two_u / 2.0, get_num(sp, "U"));
            expect_dbl("scipy_mannwhitneyu_exact.p", (double)num / (double)den, get_num(sp, "p"));
            checks += 2;
        }
        json_t *ign = json_object_get(v, "scipy_mannwhitneyu_exact_ignores_ties");
        if (ign) {
            expect_dbl("scipy (ties ignored).U", (double)two_u / 2.0, get_num(ign, "U"));
            checks++;
        }
        vectors++;
    }

    json_t *na = get(mw, "normal_approximation");
    snprintf(where, sizeof where, "mann_whitney.normal_approximation");
    double b[MAX_RUNS], c[MAX_RUNS];
    size_t nb = doubles_of(get(na, "baseline"), b, MAX_RUNS);
    size_t nc = doubles_of(get(na, "candidate"), c, MAX_RUNS);
    expect_u64("two_u", bench__mw_two_u(b, nb, c, nc), get_u64(na, "two_u"));
    char lab[64];
    big_to_decimal(binomial((unsigned)(nb + nc), (unsigned)nc), lab, sizeof lab);
    expect_str("labelings", lab, json_string_value(get(na, "labelings")));
    uint64_t num = 0, den = 0;
    expect_bool("exact refused (C(N, n_small) > 2^63)", bench__mw_exact(b, nb, c, nc, &num, &den),
                false);
    double p = bench__mw_normal(b, nb, c, nc);
    expect_dbl("p_normal", p, get_num(na, "p_normal"));
    expect_dbl("scipy_mannwhitneyu_asymptotic_continuity", p,
               get_num(na, "scipy_mannwhitneyu_asymptotic_continuity"));
    expect_dbl("p_normal (arms swapped)", bench__mw_normal(c, nc, b, nb), get_num(na, "p_normal"));
    checks += 6;
    vectors++;
    section_end("mann_whitney", vectors, checks);
}

/* ---- p_min, runs_needed, BH limits (Steps 5, 6, 9) ----------------------------------- */

static void test_p_min_table(void **state)
{
    (void)state;
    section_begin();
    json_t *rows = get(get(root, "p_min_table"), "rows");
    unsigned vectors = 0, checks = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        size_t n = (size_t)get_u64(row, "n_per_arm");
        snprintf(where, sizeof where, "p_min_table[n=%zu]", n);
        double b[MAX_RUNS], c[MAX_RUNS];
        separated(n, b, c);
        uint64_t num = 0, den = 0;
        expect_bool("exact", bench__mw_exact(b, n, c, n, &num, &den), true);
        expect_fraction("p_min", num, den, get(row, "p_min"));
        expect_u64("labelings", (uint64_t)binomial((unsigned)(2 * n), (unsigned)n),
                   get_u64(row, "labelings"));
        expect_u64("p_min = 2 / labelings", 2 * den / num, get_u64(row, "labelings"));
        checks += 4;
        if (n <= 10) { /* the oracle too, while enumeration is quick */
            uint64_t en = 0, ed = 0;
            expect_bool("enumeration ran", mw_enumerate(b, n, c, n, &en, &ed), true);
            expect_fraction("p_min (enumeration)", en, ed, get(row, "p_min"));
            checks += 2;
        }
        vectors++;
    }
    section_end("p_min_table", vectors, checks);
}

static void test_runs_needed(void **state)
{
    (void)state;
    section_begin();
    json_t *rows = get(get(root, "runs_needed"), "rows");
    unsigned vectors = 0, checks = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        size_t m = (size_t)get_u64(row, "family_size");
        double q = get_num(row, "q");
        snprintf(where, sizeof where, "runs_needed[m=%zu]", m);
        expect_u64("runs_needed_per_arm", bench__runs_needed(m, q),
                   get_u64(row, "runs_needed_per_arm"));
        expect_dbl("bh_rank1_threshold q/m", q / (double)m, get_num(row, "bh_rank1_threshold"));
        checks += 2;
        vectors++;
    }
    section_end("runs_needed", vectors, checks);
}

/* The largest m in which a lone completely separated cell survives BH, found with the same
 * functions the engine uses: p from the DP, rejection from bench__bh. */
static void test_bh_max_family(void **state)
{
    (void)state;
    section_begin();
    json_t *rows = get(get(root, "bh_max_family_for_single_pmin"), "rows");
    unsigned vectors = 0, checks = 0;
    enum { M_MAX = 4096 };
    double *p = malloc(M_MAX * sizeof *p), *qa = malloc(M_MAX * sizeof *qa);
    bool *rej = malloc(M_MAX * sizeof *rej);
    assert_true(p && qa && rej);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        size_t n = (size_t)get_u64(row, "n_per_arm");
        snprintf(where, sizeof where, "bh_max_family_for_single_pmin[n=%zu]", n);
        double b[MAX_RUNS], c[MAX_RUNS];
        separated(n, b, c);
        uint64_t num = 0, den = 0;
        assert_true(bench__mw_exact(b, n, c, n, &num, &den));
        size_t largest = 0;
        for (size_t m = 1; m < M_MAX; m++) {
            p[0] = (double)num / (double)den;
            for (size_t t = 1; t < m; t++)
                p[t] = 1.0; /* the other cells show nothing */
            bench__bh(p, m, 0.05, rej, qa);
            if (!rej[0])
                break;
            largest = m;
        }
        expect_u64("max_family_size", largest, get_u64(row, "max_family_size"));
        checks++;
        vectors++;
    }
    free(p);
    free(qa);
    free(rej);
    section_end("bh_max_family_for_single_pmin", vectors, checks);
}

static void test_benjamini_hochberg(void **state)
{
    (void)state;
    section_begin();
    json_t *cases = get(root, "benjamini_hochberg");
    unsigned vectors = 0, checks = 0;
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *v = json_array_get(cases, i);
        snprintf(where, sizeof where, "benjamini_hochberg[%s]", json_string_value(get(v, "name")));
        double p[64], qa[64];
        bool rej[64];
        size_t m = doubles_of(get(v, "p"), p, 64);
        size_t k = bench__bh(p, m, get_num(v, "q"), rej, qa);
        expect_u64("k_star", k, get_u64(v, "k_star"));
        json_t *wr = get(v, "reject"), *wq = get(v, "q_adjusted");
        for (size_t t = 0; t < m; t++) {
            char f[64];
            snprintf(f, sizeof f, "reject[%zu]", t);
            expect_bool(f, rej[t], json_is_true(json_array_get(wr, t)));
            snprintf(f, sizeof f, "q_adjusted[%zu]", t);
            expect_dbl(f, qa[t], jnum(json_array_get(wq, t)));
            /* rejected iff the adjusted q is within q */
            snprintf(f, sizeof f, "reject[%zu] == (q_adj <= q)", t);
            expect_bool(f, rej[t], qa[t] <= get_num(v, "q"));
            checks += 3;
        }
        checks++;
        vectors++;
    }
    section_end("benjamini_hochberg", vectors, checks);
}

/* ---- bootstrap (Step 3) --------------------------------------------------------------- */

static uint64_t seed_of(json_t *v, const char *name)
{
    json_t *s = json_object_get(v, "seed");
    if (s)
        return u64(s);
    const char *at = strstr(name, "seed"); /* "traceable_B40_seed5" names its seed */
    if (!at)
        fail_msg("stats-vectors.json: no seed for %s", name);
    return strtoull(at + 4, NULL, 10);
}

static void expect_ci(const char *field, double lo, double hi, json_t *ci)
{
    char f[96];
    snprintf(f, sizeof f, "%s lo", field);
    expect_dbl(f, lo, jnum(json_array_get(ci, 0)));
    snprintf(f, sizeof f, "%s hi", field);
    expect_dbl(f, hi, jnum(json_array_get(ci, 1)));
}

static void test_bootstrap(void **state)
{
    (void)state;
    section_begin();
    json_t *bs = get(root, "bootstrap");
    unsigned vectors = 0, checks = 0;
    const char *name;
    json_t *v;
    struct arm_buf last_b = {0}, last_c = {0}; /* paired_5's arms, for its oracles */
    json_object_foreach(bs, name, v)
    {
        if (!json_is_object(v) || !json_object_get(v, "baseline"))
            continue;
        snprintf(where, sizeof where, "bootstrap.%s", name);
        struct arm_buf ab, ac;
        arm_of(get(v, "baseline"), &ab);
        arm_of(get(v, "candidate"), &ac);
        struct bench__arm b = arm_view(&ab), c = arm_view(&ac);
        uint64_t seed = seed_of(v, name);
        uint32_t resamples = (uint32_t)get_u64(v, "B");
        size_t k = json_object_get(v, "k_lo") ? (size_t)get_u64(v, "k_lo") : resamples / 40;
        expect_u64("k = floor(B*alpha/2)", k, (uint64_t)resamples * 5 / 200);
        double lo, hi;
        bool paired;
        bench__bootstrap_ci(&b, &c, seed, resamples, 0.05, &lo, &hi, &paired);
        expect_ci("ci", lo, hi, get(v, "ci"));
        checks += 3;
        if (json_object_get(v, "paired")) {
            expect_bool("paired", paired, json_is_true(get(v, "paired")));
            checks++;
        }
        if (json_object_get(v, "point_rel_delta")) {
            double mb = bench__median_of(ab.values, ab.n), mc = bench__median_of(ac.values, ac.n);
            expect_dbl("point_rel_delta", (mc - mb) / mb, get_num(v, "point_rel_delta"));
            checks++;
        }

        /* The spec's words, done naively here: the same d[k] and d[B-1-k]. */
        double *d = reference_bootstrap(&b, &c, seed, resamples, paired);
        expect_ci("ci (naive reference bootstrap)", d[k], d[resamples - 1 - k], get(v, "ci"));
        free(d);
        checks += 2;

        json_t *vecs = json_object_get(v, "first4_index_vectors");
        if (vecs) { /* the traceable case: its first index vectors and deltas */
            json_t *deltas = get(v, "first4_deltas");
            struct bench__rng rng = {seed};
            for (size_t t = 0; t < json_array_size(vecs); t++) {
                json_t *iv = json_array_get(vecs, t);
                double xb[MAX_RUNS], xc[MAX_RUNS];
                for (size_t i = 0; i < ab.n; i++) {
                    uint64_t j = bench__rng_below(&rng, ab.n);
                    char f[64];
                    snprintf(f, sizeof f, "index_vector[%zu][%zu]", t, i);
                    expect_u64(f, j, u64(json_array_get(iv, i)));
                    xb[i] = ab.values[j];
                    xc[i] = ac.values[j];
                    checks++;
                }
                double mb = bench__median_of(xb, ab.n), mc = bench__median_of(xc, ac.n);
                char f[64];
                snprintf(f, sizeof f, "delta[%zu]", t);
                expect_dbl(f, (mc - mb) / mb, jnum(json_array_get(deltas, t)));
                checks++;
            }
        }
        json_t *oracle = json_object_get(v, "exact_enumeration_oracle");
        if (oracle) {
            size_t total;
            double *e = enumerate_paired(&b, &c, &total);
            expect_u64("enumeration resamples", total, get_u64(oracle, "resamples"));
            size_t ke = total * 5 / 200;
            expect_ci("exact enumeration oracle", e[ke], e[total - 1 - ke], get(oracle, "ci"));
            free(e);
            checks += 3;
        }
        if (strcmp(name, "paired_5") == 0) {
            last_b = ab;
            last_c = ac;
        }
        vectors++;
    }

    /* paired_5's oracles: all 5^5 resamples, and B = 200 000 with another seed. */
    json_t *en = json_object_get(bs, "paired_5_exact_enumeration_oracle");
    if (en) {
        snprintf(where, sizeof where, "bootstrap.paired_5_exact_enumeration_oracle");
        assert_true(last_b.n > 0);
        struct bench__arm b = arm_view(&last_b), c = arm_view(&last_c);
        size_t total;
        double *e = enumerate_paired(&b, &c, &total);
        size_t k = (size_t)get_u64(en, "k_lo");
        expect_u64("resamples", total, get_u64(en, "resamples"));
        expect_u64("k_lo = floor(5^5 * alpha / 2)", total * 5 / 200, k);
        expect_ci("ci", e[k], e[total - 1 - k], get(en, "ci"));
        free(e);
        checks += 4;
        vectors++;
    }
    json_t *big = json_object_get(bs, "paired_5_B200000_seed12345");
    if (big) {
        snprintf(where, sizeof where, "bootstrap.paired_5_B200000_seed12345");
        struct bench__arm b = arm_view(&last_b), c = arm_view(&last_c);
        double lo, hi;
        bool paired;
        bench__bootstrap_ci(&b, &c, 12345, 200000, 0.05, &lo, &hi, &paired);
        /* Same RNG as the reference, so held to 1e-12, not to the ±0.005 for other RNGs. */
        expect_ci("ci", lo, hi, get(big, "ci"));
        checks += 2;
        vectors++;
    }
    section_end("bootstrap", vectors, checks);
}

/* ---- engine (Steps 1–9) --------------------------------------------------------------- */

#define MAX_CELLS 32

struct family {
    size_t n;
    struct bench__cmp_cell_in in[MAX_CELLS];
    struct arm_buf arms[MAX_CELLS][3];
    char scenario[MAX_CELLS][64], operation[MAX_CELLS][64];
};

static void family_add_json(struct family *f, json_t *cell)
{
    assert_true(f->n < MAX_CELLS);
    size_t i = f->n++;
    snprintf(f->scenario[i], sizeof f->scenario[i], "%s", json_string_value(get(cell, "scenario")));
    snprintf(f->operation[i], sizeof f->operation[i], "%s",
             json_string_value(get(cell, "operation")));
    arm_of(get(cell, "baseline"), &f->arms[i][0]);
    arm_of(get(cell, "candidate"), &f->arms[i][1]);
    arm_of(get(cell, "aa"), &f->arms[i][2]);
    f->in[i] =
        (struct bench__cmp_cell_in){f->scenario[i], f->operation[i], arm_view(&f->arms[i][0]),
                                    arm_view(&f->arms[i][1]), arm_view(&f->arms[i][2])};
}

static void family_add_values(struct family *f, const char *scenario, const char *operation,
                              const double *b, const double *c, const double *a, size_t n)
{
    assert_true(f->n < MAX_CELLS && n <= MAX_RUNS);
    size_t i = f->n++;
    snprintf(f->scenario[i], sizeof f->scenario[i], "%s", scenario);
    snprintf(f->operation[i], sizeof f->operation[i], "%s", operation);
    const double *src[3] = {b, c, a};
    for (size_t arm = 0; arm < 3; arm++) {
        f->arms[i][arm].n = n;
        for (size_t r = 0; r < n; r++) {
            f->arms[i][arm].values[r] = src[arm][r];
            f->arms[i][arm].runs[r] = r + 1;
        }
    }
    f->in[i] =
        (struct bench__cmp_cell_in){f->scenario[i], f->operation[i], arm_view(&f->arms[i][0]),
                                    arm_view(&f->arms[i][1]), arm_view(&f->arms[i][2])};
}

/* "cells 2, 3 and 5 of family_a_small ...": the 1-based cell numbers named in the text. */
static void family_add_described(struct family *f, const char *text, json_t *source)
{
    const char *end = strstr(text, "of family_a_small");
    assert_non_null(end);
    for (const char *s = text; s < end; s++) {
        if (*s < '0' || *s > '9')
            continue;
        char *after;
        unsigned long cell = strtoul(s, &after, 10);
        assert_true(cell >= 1 && cell <= json_array_size(source));
        family_add_json(f, json_array_get(source, cell - 1));
        s = after - 1;
    }
}

static const char *opt_str(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static unsigned check_cell(json_t *want, const struct bench__cmp_cell_out *o,
                           const struct bench__cmp_cell_in *in, const struct bench__cmp_params *pp)
{
    unsigned checks = 0;
    expect_u64("n_baseline", o->n_baseline, get_u64(want, "n_baseline"));
    expect_u64("n_candidate", o->n_candidate, get_u64(want, "n_candidate"));
    expect_u64("n_aa", o->n_aa, get_u64(want, "n_aa"));
    expect_str("state", bench__cmp_state_name(o->state), opt_str(want, "state"));
    expect_str("reason", o->reason, opt_str(want, "reason"));
    expect_str("direction", o->direction, opt_str(want, "direction"));
    json_t *rn = json_object_get(want, "runs_needed");
    expect_u64("runs_needed", o->runs_needed, rn && !json_is_null(rn) ? u64(rn) : 0);
    checks += 7;
    if (o->state == BENCH__CMP_UNMEASURED) {
        /* Nothing is claimed: the vector has no numbers, and neither do we. */
        if (json_object_get(want, "median_baseline") || json_object_get(want, "p"))
            mismatch("UNMEASURED", "the vector reports numbers for an UNMEASURED cell");
        if (!isnan(o->median_baseline) || !isnan(o->rel_delta) || !isnan(o->ci_lo) ||
            !isnan(o->p) || !isnan(o->floor) || o->p_method)
            mismatch("UNMEASURED", "numbers were computed for an UNMEASURED cell");
        return checks + 2;
    }
    expect_dbl("median_baseline", o->median_baseline, get_num(want, "median_baseline"));
    expect_dbl("median_candidate", o->median_candidate, get_num(want, "median_candidate"));
    expect_dbl("median_aa", o->median_aa, get_num(want, "median_aa"));
    expect_dbl("rel_delta", o->rel_delta, get_num(want, "rel_delta"));
    expect_dbl("abs_delta", o->abs_delta, get_num(want, "abs_delta"));
    expect_dbl("ci_lo", o->ci_lo, get_num(want, "ci_lo"));
    expect_dbl("ci_hi", o->ci_hi, get_num(want, "ci_hi"));
    expect_bool("paired", o->paired, json_is_true(get(want, "paired")));
    expect_u64("seed", o->seed, get_u64(want, "seed"));
    expect_u64("aa_seed", o->aa_seed, get_u64(want, "aa_seed"));
    expect_dbl("aa_ci_lo", o->aa_ci_lo, get_num(want, "aa_ci_lo"));
    expect_dbl("aa_ci_hi", o->aa_ci_hi, get_num(want, "aa_ci_hi"));
    expect_dbl("floor", o->floor, get_num(want, "floor"));
    expect_dbl("p", o->p, get_num(want, "p"));
    expect_str("p_method", o->p_method, opt_str(want, "p_method"));
    if (o->p_method && strcmp(o->p_method, "exact") == 0)
        expect_dbl("p = p_numerator / p_denominator",
                   (double)o->p_numerator / (double)o->p_denominator, get_num(want, "p"));
    expect_bool("bh_rejected", o->bh_rejected, json_is_true(get(want, "bh_rejected")));
    expect_dbl("q_adjusted", o->q_adjusted, get_num(want, "q_adjusted"));
    expect_dbl("aa_p", o->aa_p, get_num(want, "aa_p"));
    expect_bool("aa_bh_rejected", o->aa_bh_rejected, json_is_true(get(want, "aa_bh_rejected")));
    expect_dbl("aa_q_adjusted", o->aa_q_adjusted, get_num(want, "aa_q_adjusted"));
    expect_bool("aa_confirmed_change", o->aa_confirmed_change,
                json_is_true(get(want, "aa_confirmed_change")));
    checks += 22;

    /* Fields of the reference record that compare.h derives rather than stores. */
    expect_dbl("aa_rel_delta", (o->median_aa - o->median_baseline) / o->median_baseline,
               get_num(want, "aa_rel_delta"));
    expect_dbl("aa_abs_delta", o->median_aa - o->median_baseline, get_num(want, "aa_abs_delta"));
    expect_bool("ci_excludes_zero", o->ci_lo > 0 || o->ci_hi < 0,
                json_is_true(get(want, "ci_excludes_zero")));
    expect_bool("ci_beyond_floor", o->ci_lo > o->floor || o->ci_hi < -o->floor,
                json_is_true(get(want, "ci_beyond_floor")));
    expect_bool("abs_delta_ok", fabs(o->abs_delta) >= pp->min_delta,
                json_is_true(get(want, "abs_delta_ok")));
    double lo, hi;
    bool aa_paired;
    bench__bootstrap_ci(&in->base, &in->aa, o->aa_seed, pp->resamples, pp->alpha, &lo, &hi,
                        &aa_paired);
    expect_bool("aa_paired", aa_paired, json_is_true(get(want, "aa_paired")));
    expect_dbl("aa_ci_lo (standalone bootstrap)", lo, o->aa_ci_lo);
    expect_dbl("aa_ci_hi (standalone bootstrap)", hi, o->aa_ci_hi);
    return checks + 8;
}

static unsigned run_family(const char *name, struct family *f, unsigned *cells_checked)
{
    json_t *engine = get(root, "engine");
    json_t *want = get(get(get(engine, name), "result"), "cells");
    json_t *res = get(get(engine, name), "result");
    json_t *subjects = get(engine, "subjects");
    struct bench__cmp_params pp;
    bench__cmp_defaults(&pp);
    pp.q = get_num(res, "q");
    pp.f_min = get_num(res, "f_min");
    pp.min_delta = get_num(res, "min_delta");
    pp.resamples = (uint32_t)get_u64(res, "bootstrap_resamples");
    pp.global_seed = get_u64(res, "global_seed");
    /* The spec's vectors predate the sensitivity requirement (--detect): they are checked with
     * none, so every floor is enough. compare-vectors.json covers --detect. */
    pp.detect = INFINITY;
    pp.subj_b = json_string_value(get(subjects, "baseline"));
    pp.subj_c = json_string_value(get(subjects, "candidate"));
    pp.subj_a = json_string_value(get(subjects, "aa_control"));

    snprintf(where, sizeof where, "engine.%s", name);
    expect_u64("cell count", f->n, json_array_size(want));
    struct bench__cmp_cell_out out[MAX_CELLS];
    struct bench__cmp_result r;
    size_t bad = 0;
    expect_int("bench__compare", bench__compare(&pp, f->in, f->n, out, &r, &bad), 0);
    unsigned checks = 2;
    for (size_t i = 0; i < f->n && i < json_array_size(want); i++) {
        json_t *w = json_array_get(want, i);
        snprintf(where, sizeof where, "engine.%s[%s/%s]", name,
                 json_string_value(get(w, "scenario")), json_string_value(get(w, "operation")));
        expect_str("scenario", f->in[i].scenario, json_string_value(get(w, "scenario")));
        expect_str("operation", f->in[i].operation, json_string_value(get(w, "operation")));
        checks += 2 + check_cell(w, &out[i], &f->in[i], &pp);
        (*cells_checked)++;
    }
    snprintf(where, sizeof where, "engine.%s result", name);
    expect_u64("family_size", r.family_size, get_u64(res, "family_size"));
    expect_str("verdict", r.verdict, json_string_value(get(res, "verdict")));
    expect_int("exit_code", r.exit_code, json_integer_value(get(res, "exit_code")));
    /* compare.h gives PASS no reason; the reference's record names it no_claimed_regression. */
    const char *want_reason = opt_str(res, "reason");
    if (want_reason && strcmp(want_reason, "no_claimed_regression") == 0)
        want_reason = NULL;
    expect_str("reason", r.reason, want_reason);
    json_t *rn = get(res, "runs_needed");
    expect_u64("runs_needed", r.runs_needed, json_is_null(rn) ? 0 : u64(rn));
    return checks + 5;
}

/* Family C ships only its result. Its inputs are rebuilt here from that result:
 * - baselines: family A's cells of the same names (the medians, seeds and A/A intervals
 *   match only those);
 * - A/A of status.clean: baseline + 10 per run, the only arms giving the reported
 *   A/A CI [10/102, 10/98] and aa_p = 1/126; A/A of diff.worktree: family A's;
 * - candidates: the one half-integer fill (status.clean) and a one-decimal fill
 *   (diff.worktree) reproducing the reported median, CI and p = 1 exactly.
 * Every reported field is then checked like the other families'. */
static void family_c(struct family *f)
{
    static const double b1[] = {100, 102, 98, 101, 99}, c1[] = {100, 101.5, 98.5, 100, 99.5},
                        a1[] = {110, 112, 108, 111, 109};
    static const double b2[] = {50, 51, 49, 50.5, 49.5}, c2[] = {50.1, 50.9, 49.2, 50.4, 49.6},
                        a2[] = {50.2, 49.8, 50.6, 49.4, 50.1};
    family_add_values(f, "many_files", "status.clean", b1, c1, a1, 5);
    family_add_values(f, "many_files", "diff.worktree", b2, c2, a2, 5);
}

static void test_engine(void **state)
{
    (void)state;
    section_begin();
    json_t *engine = get(root, "engine");
    json_t *a_inputs = get(get(engine, "family_a_small"), "inputs");
    unsigned families = 0, cells = 0, checks = 0;
    static struct family f;

    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < json_array_size(a_inputs); i++)
        family_add_json(&f, json_array_get(a_inputs, i));
    checks += run_family("family_a_small", &f, &cells);
    families++;

    memset(&f, 0, sizeof f);
    json_t *b_inputs = get(get(engine, "family_b_large"), "inputs");
    for (size_t i = 0; i < json_array_size(b_inputs); i++)
        family_add_json(&f, json_array_get(b_inputs, i));
    checks += run_family("family_b_large", &f, &cells);
    families++;

    memset(&f, 0, sizeof f);
    assert_null(json_object_get(get(engine, "family_c_broken_aa"), "inputs"));
    family_c(&f);
    checks += run_family("family_c_broken_aa", &f, &cells);
    families++;

    memset(&f, 0, sizeof f);
    family_add_described(&f, json_string_value(get(get(engine, "family_d_pass"), "inputs")),
                         a_inputs);
    checks += run_family("family_d_pass", &f, &cells);
    families++;

    memset(&f, 0, sizeof f);
    json_t *e = get(engine, "family_e_unmeasured_cell");
    family_add_described(&f, json_string_value(get(e, "inputs")), a_inputs);
    json_t *extra = get(e, "extra_cell");
    for (size_t i = 0; i < json_array_size(extra); i++)
        family_add_json(&f, json_array_get(extra, i));
    checks += run_family("family_e_unmeasured_cell", &f, &cells);
    families++;

    printf("[ VECTORS  ] engine: %u families, %u cells\n", families, cells);
    section_end("engine", families + cells, checks);
}

/* ---- compare-vectors.json: --detect and lost runs --------------------------------------- */

static void check_own_cell(json_t *w, const struct bench__cmp_cell_out *o, unsigned *checks)
{
    expect_u64("n_baseline", o->n_baseline, get_u64(w, "n_baseline"));
    expect_u64("n_candidate", o->n_candidate, get_u64(w, "n_candidate"));
    expect_u64("n_aa", o->n_aa, get_u64(w, "n_aa"));
    expect_str("state", bench__cmp_state_name(o->state), opt_str(w, "state"));
    expect_str("reason", o->reason, opt_str(w, "reason"));
    expect_str("direction", o->direction, opt_str(w, "direction"));
    json_t *rn = get(w, "runs_needed");
    expect_u64("runs_needed", o->runs_needed, json_is_null(rn) ? 0 : u64(rn));
    expect_bool("tested", o->tested, json_is_true(get(w, "tested")));
    *checks += 8;
    if (!o->tested) { /* nothing was computed: NaN, never 0 */
        if (!isnan(o->median_baseline) || !isnan(o->rel_delta) || !isnan(o->ci_lo) ||
            !isnan(o->p) || !isnan(o->floor) || !isnan(o->q_adjusted) || o->p_method)
            mismatch("untested", "numbers were computed for a cell outside the family");
        (*checks)++;
        return;
    }
    /* A tested cell keeps its numbers, UNMEASURED floor_above_detect included. */
    static const char *const dbl[] = {"median_baseline",
                                      "median_candidate",
                                      "median_aa",
                                      "rel_delta",
                                      "abs_delta",
                                      "ci_lo",
                                      "ci_hi",
                                      "aa_ci_lo",
                                      "aa_ci_hi",
                                      "floor",
                                      "p",
                                      "q_adjusted",
                                      "aa_p",
                                      "aa_q_adjusted"};
    const double got[] = {o->median_baseline,
                          o->median_candidate,
                          o->median_aa,
                          o->rel_delta,
                          o->abs_delta,
                          o->ci_lo,
                          o->ci_hi,
                          o->aa_ci_lo,
                          o->aa_ci_hi,
                          o->floor,
                          o->p,
                          o->q_adjusted,
                          o->aa_p,
                          o->aa_q_adjusted};
    for (size_t k = 0; k < N_OF(dbl); k++)
        expect_dbl(dbl[k], got[k], get_num(w, dbl[k]));
    char frac[64];
    snprintf(frac, sizeof frac, "%" PRIu64 "/%" PRIu64, o->p_numerator, o->p_denominator);
    expect_str("p_exact", frac, opt_str(w, "p_exact"));
    expect_bool("paired", o->paired, json_is_true(get(w, "paired")));
    expect_u64("seed", o->seed, get_u64(w, "seed"));
    expect_u64("aa_seed", o->aa_seed, get_u64(w, "aa_seed"));
    expect_bool("bh_rejected", o->bh_rejected, json_is_true(get(w, "bh_rejected")));
    expect_bool("aa_bh_rejected", o->aa_bh_rejected, json_is_true(get(w, "aa_bh_rejected")));
    expect_bool("aa_confirmed_change", o->aa_confirmed_change,
                json_is_true(get(w, "aa_confirmed_change")));
    *checks += (unsigned)N_OF(dbl) + 7;
}

static void own_params(json_t *params, json_t *subjects, struct bench__cmp_params *pp)
{
    bench__cmp_defaults(pp);
    pp->q = get_num(params, "q");
    pp->f_min = get_num(params, "f_min");
    pp->min_delta = get_num(params, "min_delta");
    pp->resamples = (uint32_t)get_u64(params, "bootstrap_resamples");
    pp->alpha = 1.0 - get_num(params, "ci_level");
    pp->global_seed = get_u64(params, "global_seed");
    pp->detect = get_num(params, "detect");
    pp->min_runs = (size_t)get_u64(params, "min_runs");
    pp->subj_b = json_string_value(get(subjects, "baseline"));
    pp->subj_c = json_string_value(get(subjects, "candidate"));
    pp->subj_a = json_string_value(get(subjects, "aa_control"));
}

static void test_own_vectors(void **state)
{
    (void)state;
    section_begin();
    json_t *families = get(own_root, "families"), *subjects = get(own_root, "subjects");
    unsigned vectors = 0, checks = 0;
    const char *name;
    json_t *fam;
    static struct family f;
    json_object_foreach(families, name, fam)
    {
        memset(&f, 0, sizeof f);
        json_t *cells = get(fam, "cells"), *res = get(fam, "result");
        for (size_t i = 0; i < json_array_size(cells); i++) {
            json_t *c = json_array_get(cells, i);
            assert_true(f.n < MAX_CELLS);
            size_t k = f.n++;
            snprintf(f.scenario[k], sizeof f.scenario[k], "%s", json_string_value(get(c, "name")));
            snprintf(f.operation[k], sizeof f.operation[k], "%s",
                     json_string_value(get(c, "operation")));
            measured_arm_of(get(c, "baseline"), &f.arms[k][0]);
            measured_arm_of(get(c, "candidate"), &f.arms[k][1]);
            measured_arm_of(get(c, "aa"), &f.arms[k][2]);
            f.in[k] =
                (struct bench__cmp_cell_in){f.scenario[k], f.operation[k], arm_view(&f.arms[k][0]),
                                            arm_view(&f.arms[k][1]), arm_view(&f.arms[k][2])};
        }
        struct bench__cmp_params pp;
        own_params(get(fam, "params"), subjects, &pp);
        struct bench__cmp_cell_out out[MAX_CELLS];
        struct bench__cmp_result r;
        size_t bad = 0;
        snprintf(where, sizeof where, "compare-vectors.%s", name);
        expect_int("bench__compare", bench__compare(&pp, f.in, f.n, out, &r, &bad), 0);
        json_t *want = get(res, "cells");
        expect_u64("cell count", f.n, json_array_size(want));
        for (size_t i = 0; i < f.n && i < json_array_size(want); i++) {
            json_t *w = json_array_get(want, i);
            snprintf(where, sizeof where, "compare-vectors.%s[%s {%s}]", name,
                     json_string_value(get(w, "name")), json_string_value(get(w, "operation")));
            check_own_cell(w, &out[i], &checks);
        }
        snprintf(where, sizeof where, "compare-vectors.%s result", name);
        expect_u64("family_size", r.family_size, get_u64(res, "family_size"));
        expect_u64("detectable_cells", r.detectable_cells, get_u64(res, "detectable_cells"));
        expect_u64("bh_min_cells", r.bh_min_cells, get_u64(res, "bh_min_cells"));
        expect_str("verdict", r.verdict, json_string_value(get(res, "verdict")));
        expect_int("exit_code", r.exit_code, json_integer_value(get(res, "exit_code")));
        const char *want_reason = opt_str(res, "reason");
        if (want_reason && strcmp(want_reason, "no_claimed_regression") == 0)
            want_reason = NULL;
        expect_str("reason", r.reason, want_reason);
        json_t *rn = get(res, "runs_needed");
        expect_u64("runs_needed", r.runs_needed, json_is_null(rn) ? 0 : u64(rn));
        checks += 9;
        json_t *off = json_object_get(fam, "without_detect");
        if (off) { /* what the verdict was before --detect */
            pp.detect = INFINITY;
            expect_int("bench__compare (no detect)", bench__compare(&pp, f.in, f.n, out, &r, &bad),
                       0);
            expect_str("verdict without detect", r.verdict, json_string_value(get(off, "verdict")));
            expect_int("exit without detect", r.exit_code,
                       json_integer_value(get(off, "exit_code")));
            checks += 3;
        }
        vectors++;
    }
    section_end("compare-vectors.json", vectors, checks);
}

/* ---- beyond the vectors: input validation and the bootstrap's fast paths --------------- */

static void test_validation(void **state)
{
    (void)state;
    section_begin();
    snprintf(where, sizeof where, "validation");
    double good[] = {1, 2, 3}, bad_value[] = {1, NAN, 3}, zero[] = {1, 0, 3};
    uint64_t runs[] = {1, 2, 3}, dup[] = {1, 1, 3}, desc[] = {3, 2, 1};
    struct bench__cmp_params pp;
    bench__cmp_defaults(&pp);
    pp.resamples = 100;
    struct bench__cmp_cell_in cells[2] = {
        {"s", "op", {good, runs, 3}, {good, runs, 3}, {good, runs, 3}},
        {"s", "op2", {good, runs, 3}, {good, runs, 3}, {good, runs, 3}},
    };
    struct bench__cmp_cell_out out[2];
    struct bench__cmp_result r;
    size_t bad = 99;
    expect_int("valid", bench__compare(&pp, cells, 2, out, &r, &bad), 0);
    const struct {
        const double *v;
        const uint64_t *runs;
        const char *what;
    } cases[] = {{bad_value, runs, "NaN value"},
                 {zero, runs, "zero value"},
                 {good, dup, "duplicate run"},
                 {good, desc, "descending runs"}};
    for (size_t i = 0; i < N_OF(cases); i++) {
        cells[1].cand = (struct bench__arm){cases[i].v, cases[i].runs, 3};
        bad = 99;
        expect_int(cases[i].what, bench__compare(&pp, cells, 2, out, &r, &bad), BENCH_EINVAL);
        expect_u64(cases[i].what, bad, 1);
    }
    cells[1].cand = (struct bench__arm){good, runs, 3};
    expect_int("no cells", bench__compare(&pp, cells, 0, out, &r, &bad), 0);
    expect_str("no cells: verdict", r.verdict, "UNMEASURED");
    section_end("validation (not vectors)", 0, 12);
}

/* The exact limit: C(66, 33) ≤ 2^63 < C(67, 33). Counts stay within uint64 up to it. */
static void test_exact_limit(void **state)
{
    (void)state;
    section_begin();
    snprintf(where, sizeof where, "exact limit");
    double b[40], c[40];
    separated(34, b, c);
    uint64_t num = 0, den = 0;
    expect_bool("33 v 33 exact", bench__mw_exact(b, 33, c, 33, &num, &den), true);
    expect_u64("33 v 33 p_min num", num, 1);
    expect_u64("33 v 33 p_min den", den, (uint64_t)(binomial(66, 33) / 2));
    expect_bool("33 v 34 refused", bench__mw_exact(b, 33, c, 34, &num, &den), false);
    expect_bool("34 v 33 refused", bench__mw_exact(b, 34, c, 33, &num, &den), false);
    /* Unbalanced arms: the DP counts the smaller one. */
    double many[1000], few[3] = {500.5, 600.5, 700.5};
    for (size_t i = 0; i < 1000; i++)
        many[i] = (double)i;
    expect_bool("1000 v 3 exact", bench__mw_exact(many, 1000, few, 3, &num, &den), true);
    uint64_t sn = 0, sd = 0;
    expect_bool("3 v 1000 exact", bench__mw_exact(few, 3, many, 1000, &sn, &sd), true);
    expect_u64("swapped num", sn, num);
    expect_u64("swapped den", sd, den);
    section_end("exact limit (not vectors)", 0, 8);
}

/* The engine keeps resamples of up to 15 values in registers and larger ones as count
 * arrays, and selects d[k] with heaps: both must equal the naive sort-everything form. */
static void test_bootstrap_paths(void **state)
{
    (void)state;
    section_begin();
    static const size_t sizes[][2] = {{3, 3}, {4, 4},   {15, 15}, {16, 16}, {20, 20},
                                      {5, 4}, {15, 16}, {33, 7},  {1, 2}};
    struct bench__rng gen = {99};
    unsigned checks = 0;
    for (size_t s = 0; s < N_OF(sizes); s++) {
        for (int tied = 0; tied < 2; tied++) {
            struct arm_buf ab = {.n = sizes[s][0]}, ac = {.n = sizes[s][1]};
            for (size_t i = 0; i < ab.n; i++) {
                ab.runs[i] = i;
                ab.values[i] = tied ? (double)(10 + bench__rng_below(&gen, 4))
                                    : 100.0 + (double)bench__rng_below(&gen, 1000) / 100.0;
            }
            bool pair = ab.n == ac.n;
            for (size_t i = 0; i < ac.n; i++) {
                ac.runs[i] = pair ? i : i * 2;
                ac.values[i] = tied ? (double)(10 + bench__rng_below(&gen, 4))
                                    : 103.0 + (double)bench__rng_below(&gen, 1000) / 100.0;
            }
            struct bench__arm b = arm_view(&ab), c = arm_view(&ac);
            snprintf(where, sizeof where, "bootstrap path %zu v %zu%s", ab.n, ac.n,
                     tied ? " (ties)" : "");
            uint32_t resamples = 2001;
            size_t k = resamples * 5 / 200;
            double lo, hi;
            bool paired;
            bench__bootstrap_ci(&b, &c, 7 + s, resamples, 0.05, &lo, &hi, &paired);
            expect_bool("paired", paired, pair);
            double *d = reference_bootstrap(&b, &c, 7 + s, resamples, paired);
            expect_dbl("lo", lo, d[k]);
            expect_dbl("hi", hi, d[resamples - 1 - k]);
            free(d);
            checks += 3;
        }
    }
    section_end("bootstrap fast paths (not vectors)", 0, checks);
}

/* Cells are computed on several threads when the work is large; each has its own streams,
 * so a cell's numbers must not depend on its neighbours or on the threads. */
static void test_engine_cells_independent(void **state)
{
    (void)state;
    section_begin();
    enum { CELLS = 24, RUNS = 7 };
    static struct family f;
    memset(&f, 0, sizeof f);
    struct bench__rng gen = {2026};
    for (size_t i = 0; i < CELLS; i++) {
        double b[RUNS], c[RUNS], a[RUNS];
        double shift = i % 6 == 0 ? 1.2 : 1.0;
        for (size_t r = 0; r < RUNS; r++) {
            b[r] = 100.0 + (double)bench__rng_below(&gen, 400) / 100.0;
            c[r] = shift * (100.0 + (double)bench__rng_below(&gen, 400) / 100.0);
            a[r] = 100.0 + (double)bench__rng_below(&gen, 400) / 100.0;
        }
        char op[32];
        snprintf(op, sizeof op, "op.%zu", i);
        family_add_values(&f, "independence", op, b, c, a, RUNS);
    }
    struct bench__cmp_params pp;
    bench__cmp_defaults(&pp);
    pp.subj_b = "base";
    pp.subj_c = "cand";
    pp.subj_a = "aa";
    struct bench__cmp_cell_out all[CELLS], one;
    struct bench__cmp_result r;
    size_t bad;
    assert_int_equal(bench__compare(&pp, f.in, CELLS, all, &r, &bad), 0);
    unsigned checks = 0;
    for (size_t i = 0; i < CELLS; i++) {
        snprintf(where, sizeof where, "independence cell %zu", i);
        assert_int_equal(bench__compare(&pp, &f.in[i], 1, &one, &r, &bad), 0);
        expect_u64("seed", all[i].seed, one.seed);
        expect_u64("aa_seed", all[i].aa_seed, one.aa_seed);
        expect_dbl("ci_lo", all[i].ci_lo, one.ci_lo);
        expect_dbl("ci_hi", all[i].ci_hi, one.ci_hi);
        expect_dbl("aa_ci_lo", all[i].aa_ci_lo, one.aa_ci_lo);
        expect_dbl("aa_ci_hi", all[i].aa_ci_hi, one.aa_ci_hi);
        expect_dbl("floor", all[i].floor, one.floor);
        expect_dbl("p", all[i].p, one.p);
        expect_dbl("aa_p", all[i].aa_p, one.aa_p);
        expect_dbl("rel_delta", all[i].rel_delta, one.rel_delta);
        checks += 10;
    }
    section_end("engine cell independence (not vectors)", 0, checks);
}

/* ---- main ----------------------------------------------------------------------------- */

static json_t *load_json(const char *variable, const char *file)
{
    const char *path = getenv(variable);
    if (!path || !*path) {
        fprintf(stderr, "test_compare: %s is not set; it must name %s\n", variable, file);
        return NULL;
    }
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (!doc)
        fprintf(stderr, "test_compare: cannot load %s: %s (line %d)\n", path, err.text, err.line);
    return doc;
}

static int load_vectors(void **state)
{
    (void)state;
    root = load_json("STATS_VECTORS", "stats-vectors.json");
    own_root = load_json("COMPARE_VECTORS", "compare-vectors.json");
    return root && own_root ? 0 : -1;
}

static int free_vectors(void **state)
{
    (void)state;
    json_decref(root);
    json_decref(own_root);
    return 0;
}

int main(void)
{
    if (!getenv("STATS_VECTORS") || !getenv("COMPARE_VECTORS")) {
        fprintf(stderr, "test_compare: STATS_VECTORS and COMPARE_VECTORS must name "
                        "stats-vectors.json and compare-vectors.json\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prng),
        cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_mann_whitney),
        cmocka_unit_test(test_p_min_table),
        cmocka_unit_test(test_runs_needed),
        cmocka_unit_test(test_bh_max_family),
        cmocka_unit_test(test_benjamini_hochberg),
        cmocka_unit_test(test_bootstrap),
        cmocka_unit_test(test_engine),
        cmocka_unit_test(test_own_vectors),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_exact_limit),
        cmocka_unit_test(test_bootstrap_paths),
        cmocka_unit_test(test_engine_cells_independent),
    };
    return cmocka_run_group_tests(tests, load_vectors, free_vectors);
}
