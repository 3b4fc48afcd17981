/* SPDX-License-Identifier: MIT */
/* test_summary.c: the statistics of lib/model/summary.c that --bench-precision stops on: the
 * order-statistic interval of a median against scipy's binomial (the "median_ci_k" vectors of
 * paired-vectors.json, path in $PAIRED_VECTORS, written by tests/data/gen_paired_vectors.py) and
 * against Pascal's rule computed here; the precision rule; the normal quantile; the median. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "model/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *root;

static double num(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        fail_msg("paired-vectors.json: \"%s\" is missing or not a number", key);
    return json_number_value(v);
}

/* ---- the median interval of --bench-precision ----------------------------------------------- */

/* The binomial(n, ½) distribution by Pascal's rule in long double: P(B ≤ j) for j < n. */
static size_t pascal_k(size_t n, double level)
{
    long double *row = calloc(n + 2, sizeof *row);
    row[0] = 1.0L;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = i; j >= 1; j--)
            row[j] = (row[j] + row[j - 1]) / 2.0L;
        row[0] /= 2.0L;
    }
    long double cdf = 0, half = (1.0L - (long double)level) / 2.0L;
    size_t k = 0;
    while (k < n && (cdf += row[k]) <= half)
        k++;
    free(row);
    return k;
}

static void test_median_ci(void **state)
{
    (void)state;
    enum { MAXN = 100000 };
    double *v = malloc(MAXN * sizeof *v);
    for (size_t i = 0; i < MAXN; i++)
        v[i] = (double)(i + 1); /* sorted: x(k) = k */
    json_t *rows = json_object_get(root, "median_ci_k");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        size_t n = (size_t)num(r, "n");
        double level = num(r, "level"), lo, hi;
        bool ok = bench__median_ci(v, n, level, &lo, &hi);
        size_t want = (size_t)num(r, "k_exact");
        if (n > BENCH__MEDIAN_CI_EXACT_MAX) {
            size_t normal = (size_t)num(r, "k_normal");
            assert_true(normal <= want); /* never narrower than the exact interval */
            want = normal;
        }
        if (want == 0) {
            assert_false(ok);
            continue;
        }
        if (!ok || lo != (double)want || hi != (double)(n + 1 - want))
            fail_msg("median_ci n=%zu level=%g: got [%g, %g], want k=%zu", n, level, lo, hi, want);
    }
    /* Against Pascal's rule, computed here, for every n up to 300 at 95%. */
    for (size_t n = 1; n <= 300; n++) {
        double lo, hi;
        size_t k = pascal_k(n, 0.95);
        bool ok = bench__median_ci(v, n, 0.95, &lo, &hi);
        assert_int_equal(ok, k > 0);
        if (ok)
            assert_true(lo == (double)k && hi == (double)(n + 1 - k));
    }
    double lo, hi;
    assert_false(bench__median_ci(v, 5, 0.95, &lo, &hi)); /* 2/32 > 5% */
    assert_true(bench__median_ci(v, 6, 0.95, &lo, &hi));  /* 2/64 ≤ 5%: the extremes */
    assert_true(lo == 1 && hi == 6);
    assert_false(bench__median_ci(v, 10, 1.0, &lo, &hi));
    assert_false(bench__median_ci(v, 0, 0.95, &lo, &hi));

    /* --bench-precision: at least 8 samples, and the interval within ±pct of the median. */
    double flat[40];
    for (size_t i = 0; i < 40; i++)
        flat[i] = 100.0 + 0.01 * (double)i;                   /* sorted, within ±0.2% */
    assert_false(bench__median_precise(flat, 7, 0.95, 0.01)); /* too few */
    assert_true(bench__median_precise(flat, 8, 0.95, 0.01));
    assert_true(bench__median_precise(flat, 40, 0.95, 0.01));
    assert_false(bench__median_precise(flat, 40, 0.95, 0.0001));
    double wide[12] = {50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160};
    assert_false(bench__median_precise(wide, 12, 0.95, 0.01));
    assert_true(bench__median_precise(wide, 12, 0.95, 0.9));
    free(v);
    printf("[ VECTORS  ] median interval: %zu (n, level) against scipy, n ≤ 300 against "
           "Pascal's rule\n",
           json_array_size(rows));
}

/* z against its definition, P(|Z| > z) = alpha, and a few values every table has. */
static void test_z_two_sided(void **state)
{
    (void)state;
    static const double alphas[] = {0.5, 0.1, 0.05, 0.01, 1e-3, 1e-6, 1e-12};
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++) {
        double z = bench__z_two_sided(alphas[i]);
        assert_true(fabs(erfc(z / sqrt(2.0)) - alphas[i]) <= 1e-12 * alphas[i]);
    }
    assert_true(fabs(bench__z_two_sided(0.05) - 1.959963984540054) < 1e-12);
    assert_true(fabs(bench__z_two_sided(0.01) - 2.5758293035489004) < 1e-12);
    assert_true(isinf(bench__z_two_sided(0)));
    assert_true(bench__z_two_sided(1) == 0);
}

static void test_median(void **state)
{
    (void)state;
    double v[5] = {3, 1, 2, 5, 4};
    assert_true(bench__median_of(v, 5) == 3);
    assert_true(bench__median_of(v, 4) == 2.5);
    assert_true(isnan(bench__median_of(v, 0)));
    double big[100];
    for (size_t i = 0; i < 100; i++)
        big[i] = (double)(99 - i);
    assert_true(bench__median_of(big, 100) == 49.5); /* beyond the stack copy */
    struct bench__summary s = bench__summarize(v, 5);
    assert_true(s.median == 3 && s.mad == 1 && s.min == 1 && s.max == 5);
}

int main(void)
{
    const char *path = getenv("PAIRED_VECTORS");
    json_error_t err;
    root = path ? json_load_file(path, 0, &err) : NULL;
    if (!root) {
        fprintf(stderr, "PAIRED_VECTORS: %s\n", path ? err.text : "not set");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_ci),
        cmocka_unit_test(test_z_two_sided),
        cmocka_unit_test(test_median),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    json_decref(root);
    return rc;
}
