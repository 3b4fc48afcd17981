/* SPDX-License-Identifier: MIT */
/* test_paired_sim.c: the paired comparison (lib/stats/paired.c, sequential.c) proven by
 * simulation on a noise model of a shared host: a host factor per round common to the three
 * samples (lognormal, σ 10%, and 5% of rounds in a slow phase 10-30% slower), per-sample
 * lognormal noise of 1-8% by cell, and 2% of samples hit by an outlier 1.2-3× slower. Every
 * simulation has a fixed seed and reads no clock. It checks: the false claims of A/A/A families
 * under the sequential looks (with every look taken, and as the caller stops), that the same
 * looks without the spending would claim too often, the power for a 5% and a 50% slowdown, the
 * stability of rounds_needed, the exact channels, that the shuffled order of a round's samples
 * is uniform, and the error rates and power again with the pairing of --duet (the control beside
 * a baseline sample of its own, on two CPUs of unequal speed). The figures are printed on every
 * run. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "stats/compare.h"
#include "stats/paired.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 7
#define CAP 512

/* ---- the noise model ------------------------------------------------------------------------- */

static double uniform(struct bench__rng *g)
{
    return ((double)(bench__rng_next(g) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double gaussian(struct bench__rng *g)
{
    double u = uniform(g), v = uniform(g);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static double sample(struct bench__rng *g, double level, double host, double sigma)
{
    double v = level * host * exp(sigma * gaussian(g));
    if (uniform(g) < 0.02)
        v *= 1.2 + 1.8 * uniform(g); /* preempted, or a page fault storm */
    return v;
}

/* The per-sample noise of the cells of a family: a quiet loop to a noisy, memory-bound one. */
static const double cell_sigma[CELLS] = {0.01, 0.02, 0.03, 0.05, 0.08, 0.03, 0.02};

struct cell {
    double b[CAP], c[CAP], a[CAP];
    double b2[CAP]; /* --duet: the baseline sample paired with the control (b_aa) */
};

/* The pairing of the simulated rounds: sequential (the control paired with the candidate's
 * baseline sample, b) or duet (two pairs per round, each timed at one instant on two CPUs: the
 * baseline beside the candidate, then another baseline sample beside the control). */
static bool duet_pairing;

static void draw_cell(struct bench__rng *g, struct cell *c, size_t rounds, double sigma,
                      double change)
{
    for (size_t r = 0; r < rounds; r++) {
        double host = exp(0.10 * gaussian(g));
        if (uniform(g) < 0.05)
            host *= 1.1 + 0.2 * uniform(g);
        c->b[r] = sample(g, 1000.0, host, sigma);
        c->c[r] = sample(g, 1000.0 * (1.0 + change), host, sigma);
        c->a[r] = sample(g, 1000.0, host, sigma);
    }
}

/* A --duet round (tools/compare/paired.c, take_duet_round): two pairs, each of two samples taken
 * at the same instant on two CPUs. Each pair has its own host factor (the second, milliseconds
 * later, follows the first with 3% of its own); the two CPUs differ by a persistent 4% (one of
 * them also runs something else), and the baseline takes the CPU the round's shuffle picks (a
 * fair coin), the same in both pairs; 10% of the samples start late and lose the pair's instant
 * (a fresh host factor of their own). */
static double duet_host(struct bench__rng *g)
{
    double host = exp(0.10 * gaussian(g));
    return uniform(g) < 0.05 ? host * (1.1 + 0.2 * uniform(g)) : host;
}

static double duet_sample(struct bench__rng *g, double level, double host, double cpu, double sigma)
{
    if (uniform(g) < 0.10)
        host = duet_host(g); /* late: timed outside its pair's instant */
    return sample(g, level, host * cpu, sigma);
}

static void draw_cell_duet(struct bench__rng *g, struct cell *c, size_t rounds, double sigma,
                           double change)
{
    const double cpu_speed[2] = {1.0, 1.04};
    for (size_t r = 0; r < rounds; r++) {
        unsigned on = uniform(g) < 0.5;
        double kb = cpu_speed[on], kp = cpu_speed[!on];
        double h1 = duet_host(g), h2 = h1 * exp(0.03 * gaussian(g));
        c->b[r] = duet_sample(g, 1000.0, h1, kb, sigma);
        c->c[r] = duet_sample(g, 1000.0 * (1.0 + change), h1, kp, sigma);
        c->b2[r] = duet_sample(g, 1000.0, h2, kb, sigma);
        c->a[r] = duet_sample(g, 1000.0, h2, kp, sigma);
    }
}

static const char *const names[CELLS] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6"};

static bool is_claim(const struct bench__paired_out *o)
{
    return o->state == BENCH__PAIRED_REGRESSION || o->state == BENCH__PAIRED_IMPROVEMENT;
}

/* ---- running a family ------------------------------------------------------------------------ */

enum run_mode {
    RUN_STOPPING, /* as a caller: rounds only for undecided cells, stop when all are decided */
    RUN_EVERY,    /* every cell gets every look, each look judged afresh: a claim at any look
                     counts (the worst a caller's stopping could do) */
    RUN_NAIVE,    /* RUN_EVERY with each look at the full alpha and q: no spending */
};

struct outcome {
    bool claimed[CELLS]; /* at the end (RUN_STOPPING) or at any look */
    enum bench__paired_state state[CELLS];
    size_t rounds; /* rounds of all cells together */
    bool pass;
    int exit_code;
};

static struct outcome run_family(const struct bench__paired_params *p, struct cell *cells,
                                 const struct bench__paired_channel *ch, enum run_mode mode)
{
    struct bench__paired_item items[CELLS];
    struct bench__paired_out o1[CELLS], o2[CELLS], *prev = NULL, *out = o1;
    struct bench__paired_result res = {0};
    struct outcome oc = {{false}, {0}, 0, false, 0};
    for (size_t i = 0; i < CELLS; i++)
        items[i] = (struct bench__paired_item){
            names[i],   "",         ch, cells[i].b,
            cells[i].c, cells[i].a, 0,  duet_pairing ? cells[i].b2 : NULL};
    size_t looks = bench__paired_looks(p);
    for (size_t k = 0; k < looks; k++) {
        size_t n = bench__paired_look_rounds(p, k);
        for (size_t i = 0; i < CELLS; i++)
            if (!prev || !prev[i].decided)
                items[i].rounds = n;
        int rc;
        if (mode == RUN_NAIVE) {
            struct bench__paired_params one = *p;
            one.first_look = one.max_rounds = n;
            rc = bench__paired_look(&one, 0, items, CELLS, NULL, out, &res, NULL);
        } else {
            rc = bench__paired_look(p, k, items, CELLS, mode == RUN_STOPPING ? prev : NULL, out,
                                    &res, NULL);
        }
        assert_int_equal(rc, 0);
        if (mode != RUN_STOPPING) {
            for (size_t i = 0; i < CELLS; i++)
                oc.claimed[i] |= is_claim(&out[i]);
            continue;
        }
        if (res.all_decided)
            break;
        prev = out;
        out = out == o1 ? o2 : o1;
    }
    for (size_t i = 0; i < CELLS; i++) {
        if (mode == RUN_STOPPING)
            oc.claimed[i] = is_claim(&out[i]);
        oc.state[i] = out[i].state;
        oc.rounds += out[i].rounds_used;
    }
    oc.pass = res.exit_code == 0;
    oc.exit_code = res.exit_code;
    return oc;
}

static struct cell family[CELLS];

static void draw_family(struct bench__rng *g, size_t rounds, size_t changed, double change,
                        double changed_sigma)
{
    for (size_t i = 0; i < CELLS; i++)
        (duet_pairing ? draw_cell_duet : draw_cell)(g, &family[i], rounds,
                                                    i == changed ? changed_sigma : cell_sigma[i],
                                                    i == changed ? change : 0.0);
}

static const struct bench__paired_channel time_ch = {"time", false, BENCH__PAIRED_TIME_F_MIN, 0};

/* ---- (b) A/A/A: false claims under the sequential looks ---------------------------------------
 */

#define FAMILIES 1000

/* The share of A/A/A families (three arms of one distribution) with any claim. */
static double aaa_rate(enum run_mode mode, double f_min, uint64_t seed, double *pass_share,
                       double *mean_rounds)
{
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    struct bench__paired_channel ch = time_ch;
    ch.f_min = f_min;
    struct bench__rng g = {seed};
    unsigned claimed = 0, passed = 0;
    double rounds = 0;
    for (unsigned f = 0; f < FAMILIES; f++) {
        draw_family(&g, p.max_rounds, CELLS, 0, 0);
        struct outcome oc = run_family(&p, family, &ch, mode);
        bool any = false;
        for (size_t i = 0; i < CELLS; i++)
            any |= oc.claimed[i];
        claimed += any;
        passed += oc.pass;
        rounds += (double)oc.rounds / CELLS;
    }
    if (pass_share)
        *pass_share = (double)passed / FAMILIES;
    if (mean_rounds)
        *mean_rounds = rounds / FAMILIES;
    return (double)claimed / FAMILIES;
}

static void test_aaa_false_claims(void **state)
{
    (void)state;
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    double pass, rounds;
    double stop = aaa_rate(RUN_STOPPING, BENCH__PAIRED_TIME_F_MIN, 1001, &pass, &rounds);
    printf("[ SIM      ] A/A/A, %d families of %d cells, looks at 8..%zu rounds, stopping as a "
           "caller: %.1f%% claimed a change (q %.0f%%), %.1f%% PASS, %.1f rounds per cell\n",
           FAMILIES, CELLS, p.max_rounds, 100 * stop, 100 * p.q, 100 * pass, rounds);
    double every = aaa_rate(RUN_EVERY, BENCH__PAIRED_TIME_F_MIN, 1002, NULL, NULL);
    printf("[ SIM      ] A/A/A, every look taken, a claim at any look counted: %.1f%%\n",
           100 * every);
    double bare = aaa_rate(RUN_EVERY, 0.0, 1003, NULL, NULL);
    printf("[ SIM      ] the same with f_min 0 (the statistics alone): %.1f%%\n", 100 * bare);
    double naive = aaa_rate(RUN_NAIVE, 0.0, 1003, NULL, NULL);
    printf("[ SIM      ] the same looks, each at the full alpha and q (no spending): %.1f%%\n",
           100 * naive);
    fflush(stdout);
    assert_true(stop <= p.q);
    assert_true(every <= p.q);
    assert_true(bare <= p.q);
    /* The harness sees optional stopping when there is some: without the spending, looking
     * after every schedule point claims more often than q. */
    assert_true(naive > p.q);
    assert_true(pass >= 0.9);
}

/* ---- (c) power ------------------------------------------------------------------------------- */

/* Families with cell 0 made `change` slower (its noise `sigma`), stopping as a caller: how many
 * claimed it a regression with exit 1; the claims among the other cells added to *null_claims
 * of *null_cells when given. */
static unsigned claimed_first(const struct bench__paired_params *p, struct bench__rng *g,
                              unsigned trials, double change, double sigma, unsigned *null_claims,
                              unsigned *null_cells)
{
    unsigned hits = 0;
    for (unsigned t = 0; t < trials; t++) {
        draw_family(g, p->max_rounds, 0, change, sigma);
        struct outcome oc = run_family(p, family, &time_ch, RUN_STOPPING);
        hits += oc.state[0] == BENCH__PAIRED_REGRESSION && oc.exit_code == 1;
        if (!null_claims)
            continue;
        for (size_t i = 1; i < CELLS; i++)
            *null_claims += oc.claimed[i];
        *null_cells += CELLS - 1;
    }
    return hits;
}

static void test_power(void **state)
{
    (void)state;
    enum { TRIALS = 300 };
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    p.detect = 0.05; /* to catch a change of 5%, ask for 5% */
    struct bench__rng g = {2002};
    unsigned null_claims = 0, null_cells = 0;
    unsigned hit5 = claimed_first(&p, &g, TRIALS, 0.05, 0.05, &null_claims, &null_cells);
    bench__paired_defaults(&p); /* detect 10%: a 5% change is inside the equivalence margin */
    unsigned equal5 = 0;
    for (unsigned t = 0; t < TRIALS; t++) {
        draw_family(&g, p.max_rounds, 0, 0.05, 0.05);
        struct outcome oc = run_family(&p, family, &time_ch, RUN_STOPPING);
        equal5 += oc.state[0] == BENCH__PAIRED_NO_CHANGE;
    }
    unsigned hit50 = claimed_first(&p, &g, TRIALS, 0.50, 0.08, NULL, NULL);
    printf("[ SIM      ] power, one cell of %d slower (per-sample noise 5%%, cap %zu rounds, "
           "detect 5%%): 5%% slower claimed in %u of %d; false claims in the other cells %u of "
           "%u\n",
           CELLS, p.max_rounds, hit5, TRIALS, null_claims, null_cells);
    printf("[ SIM      ] the same 5%% slower with detect 10%%: NO_CHANGE (within the margin) "
           "in %u of %d\n",
           equal5, TRIALS);
    printf("[ SIM      ] power, 50%% slower (noise 8%%, detect 10%%): claimed in %u of %d\n", hit50,
           TRIALS);
    fflush(stdout);
    assert_true(hit5 >= TRIALS * 8 / 10);
    assert_int_equal(hit50, TRIALS);
    assert_true(null_claims <= null_cells / 20);
}

/* ---- rounds_needed: two runs of one comparison -------------------------------------------------
 */

/* One undecided cell's rounds_needed at the end of a comparison (0 when it was decided). */
static unsigned needed_of(const struct bench__paired_params *p, struct bench__rng *g, double sigma,
                          double change)
{
    draw_cell(g, &family[0], p->max_rounds, sigma, change);
    struct bench__paired_item it = {"x",         "",          &time_ch, family[0].b,
                                    family[0].c, family[0].a, 0,        NULL};
    struct bench__paired_out o1, o2, *prev = NULL, *out = &o1;
    struct bench__paired_result res;
    size_t looks = bench__paired_looks(p);
    for (size_t k = 0; k < looks; k++) {
        if (!prev || !prev->decided)
            it.rounds = bench__paired_look_rounds(p, k);
        assert_int_equal(bench__paired_look(p, k, &it, 1, prev, out, &res, NULL), 0);
        if (res.all_decided)
            return 0;
        prev = out;
        out = out == &o1 ? &o2 : &o1;
    }
    return prev->rounds_needed;
}

/* Two runs of one comparison: their rounds_needed within 2x of each other in at least `share`
 * of the pairs where both ended undecided. */
static void stability(double detect, size_t cap, double sigma, double change, double share,
                      uint64_t seed)
{
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    p.detect = detect;
    p.max_rounds = cap;
    struct bench__rng g = {seed};
    unsigned pairs = 0, within = 0, worst_a = 0, worst_b = 0;
    double worst = 1;
    for (int t = 0; t < 200; t++) {
        unsigned a = needed_of(&p, &g, sigma, change), b = needed_of(&p, &g, sigma, change);
        if (!a || !b)
            continue; /* one of the two runs decided: nothing to compare */
        pairs++;
        double r = a > b ? (double)a / b : (double)b / a;
        within += r <= 2.0;
        if (r > worst)
            worst = r, worst_a = a, worst_b = b;
    }
    printf("[ SIM      ] rounds_needed, %.0f%% slower, noise %.0f%%, detect %.0f%%, cap %zu: "
           "within 2x in %u of %u pairs (widest %u vs %u)\n",
           100 * change, 100 * sigma, 100 * detect, cap, within, pairs, worst_a, worst_b);
    fflush(stdout);
    assert_true(pairs >= 50);
    assert_true(within >= share * pairs);
}

/* "Likely": an A/A comparison measured again with the rounds it asked for is decided more often
 * than not. */
static void likely(double detect, size_t cap, double sigma, uint64_t seed)
{
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    p.detect = detect;
    p.max_rounds = cap;
    struct bench__rng g = {seed};
    unsigned tried = 0, decided = 0;
    for (int t = 0; t < 100; t++) {
        unsigned a = needed_of(&p, &g, sigma, 0);
        if (!a || a > CAP)
            continue;
        struct bench__paired_params q = p;
        q.max_rounds = a;
        tried++;
        decided += needed_of(&q, &g, sigma, 0) == 0;
    }
    printf("[ SIM      ] rounds_needed, A/A, noise %.0f%%, detect %.0f%%, cap %zu: measured "
           "again with the rounds asked for, decided in %u of %u\n",
           100 * sigma, 100 * detect, cap, decided, tried);
    fflush(stdout);
    assert_true(tried >= 50);
    assert_true(2 * decided > tried);
}

static void test_rounds_needed_stable(void **state)
{
    (void)state;
    stability(0.03, 64, 0.10, 0, 0.9, 3003);
    stability(0.03, 96, 0.10, 0.01, 0.9, 3004);
    /* A real change sits nearer a boundary (its floor, or detect): less stable. */
    stability(0.05, 96, 0.20, 0.10, 0.85, 3005);
    likely(0.05, 32, 0.10, 3006);
}

/* ---- (d) exact channels ---------------------------------------------------------------------- */

static void test_exact_channels(void **state)
{
    (void)state;
    static const struct bench__paired_channel instr = {"instructions", true, 0.01, 0};
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    struct bench__rng g = {4004};
    unsigned aa_claims = 0, aa_nonzero_floor = 0, hits = 0, marked = 0;
    for (int t = 0; t < 200; t++) { /* A/A: one count per binary, whatever its size */
        double count = (double)(1000 + bench__rng_below(&g, 100000000));
        for (size_t i = 0; i < CELLS; i++)
            for (size_t r = 0; r < p.max_rounds; r++)
                family[i].b[r] = family[i].c[r] = family[i].a[r] = count + (double)i;
        struct outcome oc = run_family(&p, family, &instr, RUN_STOPPING);
        for (size_t i = 0; i < CELLS; i++) {
            aa_claims += oc.claimed[i];
            aa_nonzero_floor += oc.state[i] != BENCH__PAIRED_NO_CHANGE;
        }
    }
    for (int t = 0; t < 20; t++) { /* 0.5% more instructions in one cell of 7 */
        double count = (double)(10000 + bench__rng_below(&g, 10000000));
        struct bench__paired_item items[CELLS];
        for (size_t i = 0; i < CELLS; i++) {
            for (size_t r = 0; r < 3; r++) {
                family[i].b[r] = family[i].a[r] = count * (double)(i + 1);
                family[i].c[r] = i == 0 ? round(count * 1.005) : count * (double)(i + 1);
            }
            items[i] = (struct bench__paired_item){names[i],    "",          &instr, family[i].b,
                                                   family[i].c, family[i].a, 3,      NULL};
        }
        struct bench__paired_out out[CELLS];
        struct bench__paired_result res;
        assert_int_equal(bench__paired_look(&p, 0, items, CELLS, NULL, out, &res, NULL), 0);
        hits += out[0].state == BENCH__PAIRED_REGRESSION && out[0].ci_lo > 0 && out[0].floor == 0 &&
                res.exit_code == 1;
        for (size_t i = 1; i < CELLS; i++)
            assert_int_equal(out[i].state, BENCH__PAIRED_NO_CHANGE);
    }
    for (int t = 0; t < 20; t++) { /* a row whose count depends on the run (ASLR, time) */
        double b[16], c[16], a[16];
        for (size_t r = 0; r < 16; r++) {
            b[r] = 50000 + (double)bench__rng_below(&g, 40);
            c[r] = 50000 + (double)bench__rng_below(&g, 40);
            a[r] = 50000 + (double)bench__rng_below(&g, 40);
        }
        struct bench__paired_item it = {"nd", "", &instr, b, c, a, 16, NULL};
        struct bench__paired_out out;
        struct bench__paired_result res;
        assert_int_equal(bench__paired_look(&p, 2, &it, 1, NULL, &out, &res, NULL), 0);
        marked +=
            out.nondeterministic && out.nondet_spread > 0 && !out.deterministic && !is_claim(&out);
    }
    printf("[ SIM      ] exact channel: A/A %d comparisons of %d cells: %u claims, %u with a "
           "floor other than 0; 0.5%% more instructions claimed (interval > 0) in %u of 20; "
           "nondeterministic rows marked in %u of 20\n",
           200, CELLS, aa_claims, aa_nonzero_floor, hits, marked);
    fflush(stdout);
    assert_int_equal(aa_claims, 0);
    assert_int_equal(aa_nonzero_floor, 0);
    assert_int_equal(hits, 20);
    assert_int_equal(marked, 20);
}

/* ---- (e) the --duet pairing ------------------------------------------------------------------
 */

/* The control paired with a baseline sample of its own (b_aa): the error rates and the power of
 * (b) and (c) hold under the duet's noise model too. */
static void test_duet_pairing(void **state)
{
    (void)state;
    enum { TRIALS = 300 };
    duet_pairing = true;
    struct bench__paired_params p;
    bench__paired_defaults(&p);
    double pass, rounds;
    double stop = aaa_rate(RUN_STOPPING, BENCH__PAIRED_TIME_F_MIN, 5001, &pass, &rounds);
    double every = aaa_rate(RUN_EVERY, BENCH__PAIRED_TIME_F_MIN, 5002, NULL, NULL);
    double bare = aaa_rate(RUN_EVERY, 0.0, 5003, NULL, NULL);
    p.detect = 0.05;
    struct bench__rng g = {5004};
    unsigned null_claims = 0, null_cells = 0;
    unsigned hit5 = claimed_first(&p, &g, TRIALS, 0.05, 0.05, &null_claims, &null_cells);
    bench__paired_defaults(&p);
    unsigned hit50 = claimed_first(&p, &g, TRIALS, 0.50, 0.08, NULL, NULL);
    duet_pairing = false;
    printf("[ SIM      ] duet pairing (the control beside a baseline sample of its own; CPUs 4%% "
           "apart, 10%% of samples late), A/A/A %d families of %d cells: stopping as a caller "
           "%.1f%% claimed (q %.0f%%), %.1f%% PASS, %.1f rounds per cell; every look %.1f%%; "
           "f_min 0 %.1f%%\n",
           FAMILIES, CELLS, 100 * stop, 100 * p.q, 100 * pass, rounds, 100 * every, 100 * bare);
    printf("[ SIM      ] duet pairing, power: 5%% slower (detect 5%%) claimed in %u of %d, false "
           "claims in the other cells %u of %u; 50%% slower claimed in %u of %d\n",
           hit5, TRIALS, null_claims, null_cells, hit50, TRIALS);
    fflush(stdout);
    assert_true(stop <= p.q);
    assert_true(every <= p.q);
    assert_true(bare <= p.q);
    assert_true(pass >= 0.9);
    /* The power depends on the noise model: the late samples (a host factor of their own) make
     * the duet's pairs noisier than (c)'s sequential rounds, and 5% at detect 5% is claimed in
     * 176 of 300 (59%) here. Only the error rates above are the rule's promise; the power is
     * held to this model's figure less a margin, so a change that loses power shows. */
    assert_true(hit5 >= TRIALS / 2);
    assert_true(null_claims <= null_cells / 20);
    assert_int_equal(hit50, TRIALS);
}

/* ---- the order of a round's samples -----------------------------------------------------------
 */

static void test_round_order(void **state)
{
    (void)state;
    unsigned count[3][3] = {{0}};
    unsigned o[3], again[3];
    for (uint64_t r = 0; r < 6000; r++) {
        bench__paired_round_order(9, "hash", "size=64", r, o);
        bench__paired_round_order(9, "hash", "size=64", r, again);
        assert_memory_equal(o, again, sizeof o);
        assert_true(o[0] != o[1] && o[1] != o[2] && o[0] != o[2] && o[0] < 3 && o[1] < 3 &&
                    o[2] < 3);
        for (size_t pos = 0; pos < 3; pos++)
            count[pos][o[pos]]++;
    }
    for (size_t pos = 0; pos < 3; pos++)
        for (size_t s = 0; s < 3; s++)
            assert_true(count[pos][s] > 1800 && count[pos][s] < 2200); /* 2000 ± 4.5 σ */
    /* Another cell or seed draws other orders. */
    unsigned differ = 0;
    for (uint64_t r = 0; r < 100; r++) {
        bench__paired_round_order(9, "hash", "size=64", r, o);
        bench__paired_round_order(9, "hash", "size=128", r, again);
        differ += memcmp(o, again, sizeof o) != 0;
    }
    assert_true(differ > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aaa_false_claims),     cmocka_unit_test(test_power),
        cmocka_unit_test(test_rounds_needed_stable), cmocka_unit_test(test_exact_channels),
        cmocka_unit_test(test_round_order),          cmocka_unit_test(test_duet_pairing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
