/* SPDX-License-Identifier: MIT */
/* test_paired.c: the arithmetic of the paired comparison (lib/stats/signed_rank.c,
 * sequential.c) against independent oracles: the vectors of paired-vectors.json (path in
 * $PAIRED_VECTORS, written by tests/data/gen_paired_vectors.py from scipy and brute force in
 * Python) and brute force written here (every Walsh average sorted, every sign pattern counted);
 * then the rules of one look (lib/stats/paired.c) on items built by hand: states, reasons, the
 * verdict, exact channels, channels_disagree, the carry of decided items, the agreement of the
 * Benjamini-Hochberg warning with the claims, and order independence. The simulations are in
 * test_paired_sim.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "stats/compare.h"
#include "stats/paired.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static json_t *root;

static json_t *get(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("paired-vectors.json: missing key \"%s\"", key);
    return v;
}

static double num(json_t *obj, const char *key)
{
    json_t *v = get(obj, key);
    if (!json_is_number(v))
        fail_msg("paired-vectors.json: \"%s\" is not a number", key);
    return json_number_value(v);
}

static double *doubles(json_t *arr, size_t *n)
{
    *n = json_array_size(arr);
    double *x = malloc((*n ? *n : 1) * sizeof *x);
    for (size_t i = 0; i < *n; i++)
        x[i] = json_number_value(json_array_get(arr, i));
    return x;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    return s;
}

static bool close_rel(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fmax(fabs(got), fabs(want)) || got == want;
}

/* ---- the interval index against scipy's exact null distribution ---------------------------- */

static void test_ci_k_vectors(void **state)
{
    (void)state;
    struct bench__sr_cache cache = {0};
    json_t *rows = get(root, "ci_k");
    size_t checked = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        size_t n = (size_t)num(r, "n");
        double alpha = num(r, "alpha");
        uint64_t k = bench__sr_ci_k(&cache, n, alpha);
        uint64_t exact = (uint64_t)num(r, "k_exact");
        if (n <= BENCH__SR_EXACT_MAX) {
            if (k != exact)
                fail_msg("ci_k n=%zu alpha=%g: got %llu, scipy %llu", n, alpha,
                         (unsigned long long)k, (unsigned long long)exact);
        } else {
            /* The normal approximation: the formula, and never a narrower interval than the
             * exact distribution gives (the signed-rank tails are lighter than the normal's). */
            uint64_t normal = (uint64_t)num(r, "k_normal");
            if (k != normal || k > exact)
                fail_msg("ci_k n=%zu alpha=%g: got %llu, normal %llu, exact %llu", n, alpha,
                         (unsigned long long)k, (unsigned long long)normal,
                         (unsigned long long)exact);
        }
        /* The same without a cache. */
        assert_int_equal(bench__sr_ci_k(NULL, n, alpha), k);
        checked++;
    }
    bench__sr_cache_free(&cache);
    printf("[ VECTORS  ] ci_k: %zu (n, alpha) pairs against scipy\n", checked);
}

/* ---- Walsh averages, Hodges-Lehmann, intervals --------------------------------------------- */

static void test_walsh_vectors(void **state)
{
    (void)state;
    json_t *rows = get(root, "walsh");
    size_t checks = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        size_t n;
        double *x = doubles(get(r, "x"), &n);
        double *s = sorted_copy(x, n);
        double hl = bench__hodges_lehmann(s, n);
        if (hl != num(r, "hl"))
            fail_msg("hl n=%zu: got %.17g, want %.17g", n, hl, num(r, "hl"));
        json_t *kth = get(r, "kth");
        for (size_t t = 0; t < json_array_size(kth); t++) {
            json_t *pair = json_array_get(kth, t);
            uint64_t k = (uint64_t)json_number_value(json_array_get(pair, 0));
            double want = json_number_value(json_array_get(pair, 1));
            double got = bench__walsh_kth(s, n, k);
            if (got != want)
                fail_msg("walsh n=%zu k=%llu: got %.17g, want %.17g", n, (unsigned long long)k, got,
                         want);
            checks++;
        }
        json_t *cis = get(r, "ci");
        for (size_t t = 0; t < json_array_size(cis); t++) {
            json_t *c = json_array_get(cis, t);
            double lo, hi;
            bool ok = bench__sr_ci(NULL, s, n, num(c, "alpha"), &lo, &hi);
            if (num(c, "k") == 0) {
                assert_false(ok);
                assert_true(isnan(lo) && isnan(hi));
            } else {
                assert_true(ok);
                if (lo != num(c, "lo") || hi != num(c, "hi"))
                    fail_msg("ci n=%zu alpha=%g: got [%.17g, %.17g], want [%.17g, %.17g]", n,
                             num(c, "alpha"), lo, hi, num(c, "lo"), num(c, "hi"));
            }
            checks++;
        }
        free(x);
        free(s);
    }
    printf("[ VECTORS  ] walsh: %zu data sets, %zu order statistics and intervals, bit-identical\n",
           json_array_size(rows), checks);
}

/* Every k of random data sets (ties included) against all Walsh averages sorted here. */
static void test_walsh_brute_force(void **state)
{
    (void)state;
    struct bench__rng g = {42};
    static const size_t sizes[] = {1, 2, 3, 4, 7, 10, 33, 70, 150};
    size_t checks = 0;
    for (size_t t = 0; t < N_OF(sizes); t++) {
        for (int ties = 0; ties < 2; ties++) {
            size_t n = sizes[t], m = n * (n + 1) / 2;
            double *x = malloc(n * sizeof *x), *w = malloc(m * sizeof *w);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = bench__rng_below(&g, ties ? 7 : 1000000);
                x[i] = ((double)r - (ties ? 3.0 : 500000.0)) / (ties ? 100.0 : 7919.0);
            }
            qsort(x, n, sizeof *x, cmp_double);
            size_t c = 0;
            for (size_t i = 0; i < n; i++)
                for (size_t j = i; j < n; j++)
                    w[c++] = (x[i] + x[j]) / 2.0;
            qsort(w, m, sizeof *w, cmp_double);
            size_t step = m > 400 ? m / 97 : 1;
            for (size_t k = 1; k <= m; k += step) {
                assert_true(bench__walsh_kth(x, n, k) == w[k - 1]);
                checks++;
            }
            assert_true(bench__walsh_kth(x, n, m) == w[m - 1]);
            double hl = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2.0;
            assert_true(bench__hodges_lehmann(x, n) == hl);
            free(x);
            free(w);
        }
    }
    assert_true(isnan(bench__walsh_kth(NULL, 0, 1)));
    assert_true(isnan(bench__hodges_lehmann(NULL, 0)));
    double one = 0.25;
    assert_true(isnan(bench__walsh_kth(&one, 1, 2)));
    printf("[ BRUTE    ] walsh: %zu order statistics equal to sorting every Walsh average\n",
           checks);
}

/* ---- the signed-rank p ---------------------------------------------------------------------- */

static void test_sr_test_vectors(void **state)
{
    (void)state;
    struct bench__sr_cache cache = {0};
    json_t *rows = get(root, "tests");
    size_t exact = 0, normal = 0, fractions = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        size_t n;
        double *x = doubles(get(r, "x"), &n);
        struct bench__sr_test t;
        bench__sr_test(&cache, x, n, &t);
        bool want_exact = json_is_true(get(r, "exact"));
        if (t.exact != want_exact)
            fail_msg("sr_test %zu (n=%zu): exact %d, want %d", i, n, t.exact, want_exact);
        if (t.t_plus != num(r, "t_plus"))
            fail_msg("sr_test %zu: T+ %g, want %g", i, t.t_plus, num(r, "t_plus"));
        double tol = want_exact ? 1e-12 : 1e-9;
        if (!close_rel(t.p, num(r, "p_scipy"), tol))
            fail_msg("sr_test %zu (n=%zu): p %.17g, scipy %.17g", i, n, t.p, num(r, "p_scipy"));
        if (json_object_get(r, "p_num")) {
            if (t.p_num != (uint64_t)num(r, "p_num") || t.p_den != (uint64_t)num(r, "p_den"))
                fail_msg("sr_test %zu: p %llu/%llu, want %.0f/%.0f", i, (unsigned long long)t.p_num,
                         (unsigned long long)t.p_den, num(r, "p_num"), num(r, "p_den"));
            fractions++;
        }
        struct bench__sr_test u;
        bench__sr_test(NULL, x, n, &u); /* no cache: the same */
        assert_true(u.p == t.p && u.p_num == t.p_num && u.p_den == t.p_den);
        exact += want_exact;
        normal += !want_exact;
        free(x);
    }
    bench__sr_cache_free(&cache);
    printf("[ VECTORS  ] signed-rank p: %zu exact (%zu as fractions), %zu normal, against "
           "scipy\n",
           exact, fractions, normal);
}

/* The exact p of small data sets with ties and zeros against every sign pattern counted here. */
static void test_sr_test_brute_force(void **state)
{
    (void)state;
    struct bench__rng g = {7};
    size_t cases = 0;
    for (int t = 0; t < 300; t++) {
        size_t n = 1 + (size_t)bench__rng_below(&g, 14);
        double x[16];
        for (size_t i = 0; i < n; i++)
            x[i] = ((double)bench__rng_below(&g, 9) - 3.0) * 0.5; /* ties and zeros */
        /* Doubled mid-ranks of |x| by counting. */
        uint64_t r2[16];
        for (size_t i = 0; i < n; i++) {
            size_t less = 0, same = 0;
            for (size_t j = 0; j < n; j++) {
                less += fabs(x[j]) < fabs(x[i]);
                same += fabs(x[j]) == fabs(x[i]);
            }
            r2[i] = 2 * less + same + 1;
        }
        uint64_t total = 0, pos = 0;
        size_t nz = 0, idx[16];
        for (size_t i = 0; i < n; i++) {
            if (x[i] == 0)
                continue;
            idx[nz++] = i;
            total += r2[i];
            if (x[i] > 0)
                pos += r2[i];
        }
        uint64_t obs = 2 * pos > total ? 2 * pos - total : total - 2 * pos, hits = 0;
        for (uint64_t mask = 0; mask < (UINT64_C(1) << nz); mask++) {
            uint64_t s = 0;
            for (size_t b = 0; b < nz; b++)
                if (mask >> b & 1)
                    s += r2[idx[b]];
            uint64_t d = 2 * s > total ? 2 * s - total : total - 2 * s;
            hits += d >= obs;
        }
        struct bench__sr_test res;
        bench__sr_test(NULL, x, n, &res);
        assert_true(res.exact);
        /* hits / 2^nz, compared crosswise */
        assert_true(res.p_num * (UINT64_C(1) << nz) == hits * res.p_den);
        assert_true(res.t_plus * 2 == (double)pos);
        assert_int_equal(res.n_nonzero, nz);
        cases++;
    }
    printf("[ BRUTE    ] signed-rank p: %zu data sets with ties and zeros, every sign pattern\n",
           cases);
}

/* ---- the looks ------------------------------------------------------------------------------ */

static void test_schedule(void **state)
{
    (void)state;
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    static const size_t want[] = {8, 12, 16, 24, 32, 48, 64, 96};
    assert_int_equal(bench__paired_looks(&p), N_OF(want));
    double total = 0, sum = 0;
    for (size_t k = 0; k < N_OF(want); k++)
        total += (double)want[k];
    for (size_t k = 0; k < N_OF(want); k++) {
        assert_int_equal(bench__paired_look_rounds(&p, k), want[k]);
        double w = bench__paired_look_share(&p, k);
        assert_true(close_rel(w, (double)want[k] / total, 1e-15));
        sum += w;
    }
    assert_true(close_rel(sum, 1.0, 1e-12)); /* the looks spend alpha and q exactly once */
    assert_int_equal(bench__paired_look_rounds(&p, N_OF(want)), 0);
    assert_true(bench__paired_look_share(&p, N_OF(want)) == 0);

    p.max_rounds = 100; /* the cap is the last look */
    assert_int_equal(bench__paired_looks(&p), 9);
    assert_int_equal(bench__paired_look_rounds(&p, 8), 100);
    p.max_rounds = 20;
    p.first_look = 20; /* one look: all of alpha and q */
    assert_int_equal(bench__paired_looks(&p), 1);
    assert_true(bench__paired_look_share(&p, 0) == 1.0);

    /* The rounds a claim needs: 2/2^n ≤ q·w/m, and not one round fewer. */
    bench__paired_defaults(&p);
    for (size_t m = 1; m <= 1000; m *= 10) {
        for (size_t k = 0; k < bench__paired_looks(&p); k++) {
            double t = p.q * bench__paired_look_share(&p, k) / (double)m;
            size_t n = bench__paired_claim_need(&p, k, m);
            assert_true(ldexp(1.0, 1 - (int)n) <= t);
            assert_true(ldexp(1.0, 2 - (int)n) > t);
        }
        size_t first = bench__paired_claim_rounds(&p, m);
        printf("[ LOOKS    ] family of %4zu: a claim is possible from %zu rounds\n", m, first);
    }
    p.max_rounds = 12;
    assert_int_equal(bench__paired_claim_rounds(&p, 1000), 0); /* never within 12 rounds */
}

/* ---- one look by hand ------------------------------------------------------------------------ */

#define ROUNDS 128

static double uniform(struct bench__rng *g)
{
    return ((double)(bench__rng_next(g) >> 11) + 0.5) / 9007199254740992.0;
}

static double gaussian(struct bench__rng *g)
{
    double u = uniform(g), v = uniform(g);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

struct rounds {
    double b[ROUNDS], c[ROUNDS], a[ROUNDS];
};

/* Rounds under a host factor common to the three samples, with per-sample noise `sigma`; the
 * candidate changed by `change`, the control by `aa_shift`. */
static void make_rounds(struct rounds *r, uint64_t seed, double change, double sigma,
                        double aa_shift)
{
    struct bench__rng g = {seed};
    for (size_t i = 0; i < ROUNDS; i++) {
        double host = exp(0.1 * gaussian(&g));
        r->b[i] = 1000.0 * host * exp(sigma * gaussian(&g));
        r->c[i] = 1000.0 * (1 + change) * host * exp(sigma * gaussian(&g));
        r->a[i] = 1000.0 * (1 + aa_shift) * host * exp(sigma * gaussian(&g));
    }
}

static const struct bench__paired_channel time_ch = {"time", false, BENCH__PAIRED_TIME_F_MIN, 0};
static const struct bench__paired_channel instr_ch = {"instructions", true, 0.01, 0};

static struct bench__paired_item item_of(const char *scenario, const struct rounds *r,
                                         size_t rounds)
{
    return (struct bench__paired_item){scenario, "", &time_ch, r->b, r->c, r->a, rounds, NULL};
}

/* One look of a single-look schedule at `rounds`. */
static void one_look(size_t rounds, const struct bench__paired_item *items, size_t n,
                     struct bench__paired_out *out, struct bench__paired_result *res)
{
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    p.first_look = p.max_rounds = rounds;
    size_t bad;
    assert_int_equal(bench__paired_look(&p, 0, items, n, NULL, out, res, &bad), 0);
}

static void test_states_by_hand(void **state)
{
    (void)state;
    static struct rounds slow, same, fast, noisy, drift, shifted;
    make_rounds(&slow, 1, 0.5, 0.02, 0);
    make_rounds(&same, 2, 0, 0.01, 0);
    make_rounds(&fast, 3, -0.3, 0.02, 0);
    make_rounds(&noisy, 4, 0, 0.4, 0);
    make_rounds(&drift, 5, 0, 0.05, 0.12);
    make_rounds(&shifted, 6, 0, 0.01, 0.5);
    struct bench__paired_out o[4];
    struct bench__paired_result res;

    struct bench__paired_item it = item_of("slow", &slow, 32);
    one_look(32, &it, 1, o, &res);
    assert_int_equal(o[0].state, BENCH__PAIRED_REGRESSION);
    assert_string_equal(o[0].direction, "regression");
    assert_true(o[0].decided && o[0].ci_lo > o[0].floor && o[0].rel_delta > 0.4);
    assert_true(o[0].bh_rejected && o[0].p < 1e-6 && strcmp(o[0].p_method, "exact") == 0);
    assert_true(o[0].p_den == UINT64_C(1) << 31 && o[0].p_num == 1); /* all 32 of one sign */
    assert_string_equal(res.verdict, "REGRESSION");
    assert_int_equal(res.exit_code, 1);

    it = item_of("same", &same, 32);
    one_look(32, &it, 1, o, &res);
    assert_int_equal(o[0].state, BENCH__PAIRED_NO_CHANGE);
    assert_true(o[0].decided && o[0].reason == NULL && o[0].ci_lo < 0.03 && o[0].ci_hi > -0.03);
    assert_true(o[0].floor == fmax(0.01, fabs(o[0].aa_rel)));
    assert_string_equal(res.verdict, "PASS");
    assert_int_equal(res.exit_code, 0);
    assert_null(res.reason);

    it = item_of("fast", &fast, 32); /* an improvement is no obstacle to PASS */
    one_look(32, &it, 1, o, &res);
    assert_int_equal(o[0].state, BENCH__PAIRED_IMPROVEMENT);
    assert_string_equal(res.verdict, "PASS");

    it = item_of("noisy", &noisy, 16);
    one_look(16, &it, 1, o, &res);
    assert_int_equal(o[0].state, BENCH__PAIRED_UNMEASURED);
    assert_string_equal(o[0].reason, "ci_wider_than_detect");
    assert_false(o[0].decided);
    assert_true(o[0].rounds_needed > 16);
    assert_string_equal(res.verdict, "UNMEASURED");
    assert_string_equal(res.reason, "unmeasured_cells");
    assert_int_equal(res.rounds_needed, o[0].rounds_needed);

    it = item_of("few", &same, 5); /* no interval at 95% from 5 rounds */
    one_look(5, &it, 1, o, &res);
    assert_string_equal(o[0].reason, "insufficient_rounds");
    assert_true(isnan(o[0].ci_lo) && isnan(o[0].p) && !isnan(o[0].median_b));
    assert_false(o[0].decided);

    it = item_of("lonely", &same, 32);
    it.a = NULL;
    one_look(32, &it, 1, o, &res);
    assert_string_equal(o[0].reason, "no_aa_floor");
    assert_true(o[0].decided && isnan(o[0].median_a));

    it = item_of("drift", &drift, 16); /* the control 12% off, not confirmed beyond 10% */
    one_look(16, &it, 1, o, &res);
    assert_string_equal(o[0].reason, "floor_above_detect");
    assert_true(o[0].floor > 0.10 && !o[0].decided);

    struct bench__paired_item two[2] = {item_of("shifted", &shifted, 32),
                                        item_of("slow", &slow, 32)};
    one_look(32, two, 2, o, &res); /* the control 50% off: nothing can be trusted */
    assert_string_equal(o[0].reason, "aa_control_changed");
    assert_true(o[0].decided && o[0].aa_bh_rejected);
    assert_int_equal(o[1].state, BENCH__PAIRED_REGRESSION);
    assert_string_equal(res.verdict, "UNMEASURED");
    assert_string_equal(res.reason, "aa_control_changed");

    one_look(32, NULL, 0, o, &res); /* nothing compared is never a pass */
    assert_string_equal(res.verdict, "UNMEASURED");
}

/* A change the interval shows that Benjamini-Hochberg does not confirm: UNCONFIRMED, and the
 * verdict says unconfirmed_regression. */
static void test_unconfirmed(void **state)
{
    (void)state;
    static struct rounds r[7];
    struct bench__paired_item items[7];
    struct bench__paired_out o[7];
    struct bench__paired_result res;
    bool seen = false;
    for (uint64_t seed = 100; seed < 400 && !seen; seed++) {
        for (size_t i = 0; i < 7; i++) {
            make_rounds(&r[i], seed * 10 + i, i == 0 ? 0.06 : 0, 0.06, 0);
            items[i] = item_of((const char *[]){"a", "b", "c", "d", "e", "f", "g"}[i], &r[i], 16);
        }
        one_look(16, items, 7, o, &res);
        if (o[0].state == BENCH__PAIRED_UNCONFIRMED) {
            seen = true;
            assert_string_equal(o[0].reason, "bh_not_confirmed");
            assert_true(o[0].ci_lo > o[0].floor && !o[0].bh_rejected && !o[0].decided);
            assert_string_equal(res.reason, "unconfirmed_regression");
        }
    }
    assert_true(seen);
}

/* The warning of too few rounds for Benjamini-Hochberg and the claims never disagree: below
 * bench__paired_claim_need no claim is made, however clear the change, and from it on one is. */
static void test_bh_warning_agrees(void **state)
{
    (void)state;
    enum { M = 300 };
    static struct rounds filler, slow;
    make_rounds(&filler, 11, 0, 0.02, 0);
    make_rounds(&slow, 12, 1.0, 0.01, 0);
    static struct bench__paired_item items[M];
    static struct bench__paired_out o[M];
    for (size_t m = 1; m <= M; m = m * 3 + 1) {
        for (size_t n = 6; n <= 20; n++) {
            struct bench__paired_params p;
            bench__paired_defaults(&p);
            p.first_look = p.max_rounds = n;
            for (size_t i = 0; i < m; i++)
                items[i] = item_of("x", i == 0 ? &slow : &filler, n);
            struct bench__paired_result res;
            assert_int_equal(bench__paired_look(&p, 0, items, m, NULL, o, &res, NULL), 0);
            size_t need = bench__paired_claim_need(&p, 0, m);
            bool can = n >= need;
            assert_int_equal(res.bh_short, !can);
            assert_int_equal(res.claim_rounds, can ? n : 0);
            if (can) {
                assert_int_equal(o[0].state, BENCH__PAIRED_REGRESSION);
            } else {
                assert_int_not_equal(o[0].state, BENCH__PAIRED_REGRESSION);
                if (o[0].state == BENCH__PAIRED_UNCONFIRMED)
                    assert_string_equal(o[0].reason, "too_few_rounds_for_bh");
                assert_string_not_equal(res.verdict, "REGRESSION");
            }
        }
    }
}

/* ---- exact channels and channels_disagree --------------------------------------------------- */

static void fill(double *v, size_t n, double x)
{
    for (size_t i = 0; i < n; i++)
        v[i] = x;
}

static void test_exact_by_hand(void **state)
{
    (void)state;
    double b[8], c[8], a[8];
    struct bench__paired_item it = {"count", "", &instr_ch, b, c, a, 8, NULL};
    struct bench__paired_out o;
    struct bench__paired_result res;

    fill(b, 8, 1001116), fill(c, 8, 1001116), fill(a, 8, 1001116);
    one_look(8, &it, 1, &o, &res);
    assert_int_equal(o.state, BENCH__PAIRED_NO_CHANGE);
    assert_true(o.deterministic && o.decided && o.floor == 0 && o.ci_lo == 0 && o.ci_hi == 0);
    assert_string_equal(res.verdict, "PASS");

    fill(c, 8, 1001117); /* one count more */
    one_look(8, &it, 1, &o, &res);
    assert_int_equal(o.state, BENCH__PAIRED_REGRESSION);
    assert_true(o.abs_delta == 1 && o.ci_lo > 0 && o.ci_lo == o.ci_hi && o.floor == 0);
    assert_true(o.p == 0 && strcmp(o.p_method, "count") == 0 && o.bh_rejected);
    assert_string_equal(res.verdict, "REGRESSION");

    struct bench__paired_channel ch = instr_ch;
    ch.min_delta = 2; /* a change under min_delta counts as none */
    it.channel = &ch;
    one_look(8, &it, 1, &o, &res);
    assert_int_equal(o.state, BENCH__PAIRED_NO_CHANGE);
    it.channel = &instr_ch;

    fill(b, 8, 0), fill(c, 8, 1), fill(a, 8, 0); /* allocations: 0 → 1 per iteration */
    one_look(8, &it, 1, &o, &res);
    assert_int_equal(o.state, BENCH__PAIRED_REGRESSION);
    assert_true(o.abs_delta == 1 && isnan(o.rel_delta) && isnan(o.ci_lo));
    fill(c, 8, 0);
    one_look(8, &it, 1, &o, &res);
    assert_int_equal(o.state, BENCH__PAIRED_NO_CHANGE);

    /* One round is no repeat. */
    it.rounds = 1;
    one_look(8, &it, 1, &o, &res);
    assert_string_equal(o.reason, "insufficient_rounds");
    it.rounds = 8;

    /* A count that moves between rounds: marked, with its spread, and judged by the timed rules. */
    fill(b, 8, 1000), fill(c, 8, 1500), fill(a, 8, 1000);
    b[3] = 1010;
    one_look(8, &it, 1, &o, &res);
    assert_true(o.nondeterministic && !o.deterministic);
    assert_true(close_rel(o.nondet_spread, 10.0 / 1010.0, 1e-12));
    assert_int_equal(o.state, BENCH__PAIRED_REGRESSION); /* 50% beyond any timed floor */
    assert_string_equal(o.p_method, "exact");
    /* The same with zero counts: no log ratio, UNMEASURED. */
    fill(b, 8, 0), fill(c, 8, 1), fill(a, 8, 0);
    a[2] = 1;
    one_look(8, &it, 1, &o, &res);
    assert_string_equal(o.reason, "nondeterministic");
    assert_true(o.decided && o.nondeterministic && o.nondet_spread == 1.0);
    /* The baseline binary counting differently in its two processes is not deterministic. */
    fill(b, 8, 1000), fill(c, 8, 1000), fill(a, 8, 1001);
    one_look(8, &it, 1, &o, &res);
    assert_true(o.nondeterministic);
}

static void test_channels_disagree(void **state)
{
    (void)state;
    static struct rounds faster, same;
    make_rounds(&faster, 21, -0.3, 0.01, 0);
    make_rounds(&same, 22, 0, 0.01, 0);
    double b[16], c[16], a[16];
    fill(b, 16, 5000), fill(c, 16, 5050), fill(a, 16, 5000); /* +1% instructions */
    struct bench__paired_item items[4] = {
        {"x", "k=1", &time_ch, faster.b, faster.c, faster.a, 16, NULL},
        {"x", "k=1", &instr_ch, b, c, a, 16, NULL},
        {"y", "", &time_ch, same.b, same.c, same.a, 16, NULL},
        {"y", "", &instr_ch, b, b, a, 16, NULL},
    };
    struct bench__paired_out o[4];
    struct bench__paired_result res;
    one_look(16, items, 4, o, &res);
    assert_int_equal(o[0].state, BENCH__PAIRED_IMPROVEMENT);
    assert_int_equal(o[1].state, BENCH__PAIRED_REGRESSION);
    assert_true(o[0].channels_disagree && o[1].channels_disagree);
    assert_false(o[2].channels_disagree || o[3].channels_disagree);
    assert_int_equal(res.disagreeing_cells, 1);
    assert_int_equal(o[0].family_size, 2); /* one Benjamini-Hochberg family per channel */
    assert_string_equal(res.verdict, "REGRESSION");

    /* One name, two kinds: refused. */
    struct bench__paired_channel other = time_ch;
    other.name = "instructions";
    items[2].channel = &other;
    size_t bad;
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    assert_int_equal(bench__paired_look(&p, 0, items, 4, NULL, o, &res, &bad), BENCH_EINVAL);
    assert_true(bad == 1 || bad == 2);
}

static void test_invalid(void **state)
{
    (void)state;
    static struct rounds r;
    make_rounds(&r, 31, 0, 0.01, 0);
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    struct bench__paired_item it = item_of("x", &r, 8);
    struct bench__paired_out o;
    struct bench__paired_result res;
    size_t bad = 0;
    assert_int_equal(bench__paired_look(&p, 8, &it, 1, NULL, &o, &res, &bad), BENCH_EINVAL);
    assert_true(bad == SIZE_MAX); /* the look is beyond the schedule */
    p.q = 0;
    assert_int_equal(bench__paired_look(&p, 0, &it, 1, NULL, &o, &res, &bad), BENCH_EINVAL);
    bench__paired_defaults(&p);
    r.c[3] = 0; /* a time of 0 */
    assert_int_equal(bench__paired_look(&p, 0, &it, 1, NULL, &o, &res, &bad), BENCH_EINVAL);
    assert_int_equal(bad, 0);
    r.c[3] = NAN;
    assert_int_equal(bench__paired_look(&p, 0, &it, 1, NULL, &o, &res, &bad), BENCH_EINVAL);
    r.c[3] = 1000;
    it.channel = NULL;
    assert_int_equal(bench__paired_look(&p, 0, &it, 1, NULL, &o, &res, &bad), BENCH_EINVAL);
}

/* ---- looks in sequence, and the order of the items ------------------------------------------- */

static void test_prev_carries(void **state)
{
    (void)state;
    static struct rounds same, noisy, later;
    make_rounds(&same, 41, 0, 0.01, 0);
    make_rounds(&noisy, 42, 0, 0.3, 0);
    make_rounds(&later, 43, 0.8, 0.01, 0);
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    struct bench__paired_item items[2] = {item_of("same", &same, 12), item_of("noisy", &noisy, 12)};
    struct bench__paired_out o0[2], o1[2];
    struct bench__paired_result res;
    assert_int_equal(bench__paired_look(&p, 2, items, 2, NULL, o0, &res, NULL), 0);
    assert_true(o0[0].decided && !o0[1].decided);
    assert_int_equal(o0[0].rounds_used, 12); /* fewer rounds than the look's 16: all of them */
    assert_true(o0[0].level == 1.0 - p.alpha * bench__paired_look_share(&p, 2));
    /* Look 3: the decided item keeps its figures whatever the caller passes for it now. */
    items[0] = item_of("same", &later, 24);
    items[1].rounds = 40;
    assert_int_equal(bench__paired_look(&p, 3, items, 2, o0, o1, &res, NULL), 0);
    assert_int_equal(o1[0].look, 2);
    assert_int_equal(o1[0].state, BENCH__PAIRED_NO_CHANGE);
    assert_true(o1[0].estimate == o0[0].estimate);
    assert_int_equal(o1[1].look, 3);
    assert_int_equal(o1[1].rounds_used, 24); /* more rounds than the look's: its 24 */
}

static void expect_same_out(const struct bench__paired_out *a, const struct bench__paired_out *b)
{
    const double x[] = {a->estimate,   a->ci_lo, a->ci_hi,         a->floor,  a->p,
                        a->q_adjusted, a->aa_p,  a->aa_q_adjusted, a->spread, a->rel_delta};
    const double y[] = {b->estimate,   b->ci_lo, b->ci_hi,         b->floor,  b->p,
                        b->q_adjusted, b->aa_p,  b->aa_q_adjusted, b->spread, b->rel_delta};
    assert_memory_equal(x, y, sizeof x);
    assert_int_equal(a->state, b->state);
    assert_ptr_equal(a->reason, b->reason);
    assert_int_equal(a->decided, b->decided);
    assert_int_equal(a->bh_rejected, b->bh_rejected);
    assert_int_equal(a->rounds_needed, b->rounds_needed);
    assert_int_equal(a->channels_disagree, b->channels_disagree);
}

static void test_order_independent(void **state)
{
    (void)state;
    enum { N = 9 };
    static struct rounds r[N];
    static const double change[N] = {0, 0.05, -0.2, 0, 0.5, 0, 0.02, 0, -0.04};
    static const double sigma[N] = {0.01, 0.03, 0.05, 0.3, 0.02, 0.08, 0.01, 0.02, 0.04};
    static const char *names[N] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    struct bench__paired_item items[N], shuffled[N];
    for (size_t i = 0; i < N; i++) {
        make_rounds(&r[i], 50 + i, change[i], sigma[i], 0);
        items[i] = item_of(names[i], &r[i], 24);
    }
    double cb[24], cc[24], ca[24];
    fill(cb, 24, 100), fill(cc, 24, 101), fill(ca, 24, 100);
    items[N - 1] = (struct bench__paired_item){"a", "", &instr_ch, cb, cc, ca, 24, NULL};
    struct bench__paired_out ref[N], out[N];
    struct bench__paired_result rref, rout;
    one_look(24, items, N, ref, &rref);
    struct bench__rng g = {3};
    for (int t = 0; t < 20; t++) {
        size_t perm[N];
        for (size_t i = 0; i < N; i++)
            perm[i] = i;
        bench__shuffle(&g, perm, N);
        for (size_t i = 0; i < N; i++)
            shuffled[i] = items[perm[i]];
        one_look(24, shuffled, N, out, &rout);
        for (size_t i = 0; i < N; i++)
            expect_same_out(&out[i], &ref[perm[i]]);
        assert_string_equal(rout.verdict, rref.verdict);
        assert_int_equal(rout.rounds_needed, rref.rounds_needed);
        assert_int_equal(rout.disagreeing_cells, rref.disagreeing_cells);
    }
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(void)
{
    const char *path = getenv("PAIRED_VECTORS");
    if (!path) {
        fprintf(stderr, "PAIRED_VECTORS is not set\n");
        return 1;
    }
    json_error_t err;
    root = json_load_file(path, 0, &err);
    if (!root) {
        fprintf(stderr, "%s: %s (line %d)\n", path, err.text, err.line);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ci_k_vectors),        cmocka_unit_test(test_walsh_vectors),
        cmocka_unit_test(test_walsh_brute_force),   cmocka_unit_test(test_sr_test_vectors),
        cmocka_unit_test(test_sr_test_brute_force), cmocka_unit_test(test_schedule),
        cmocka_unit_test(test_states_by_hand),      cmocka_unit_test(test_unconfirmed),
        cmocka_unit_test(test_bh_warning_agrees),   cmocka_unit_test(test_exact_by_hand),
        cmocka_unit_test(test_channels_disagree),   cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_prev_carries),        cmocka_unit_test(test_order_independent),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    json_decref(root);
    return rc;
}
