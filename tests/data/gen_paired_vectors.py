#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# gen_paired_vectors.py: writes paired-vectors.json, the oracle of the paired comparison's
# arithmetic (lib/stats/signed_rank.c) and of the median interval of --bench-precision
# (lib/model/summary.c). Every number comes from scipy (1.10, Debian 12's python3-scipy) or from
# plain Python written here from the definitions (every Walsh average formed and sorted, every sign
# pattern enumerated), never from the C code. Run it with Debian's /usr/bin/python3 (scipy); it
# rewrites the file next to itself. The data sets are drawn from a seeded random.Random, so the
# file is the same on every run.
import itertools
import json
import math
import os
import random
from fractions import Fraction

import numpy as np
import scipy
import scipy.stats as st

rng = random.Random(20260926)


def walsh_sorted(x):
    """Every Walsh average (x_i + x_j) / 2, i <= j, sorted."""
    n = len(x)
    return sorted((x[i] + x[j]) / 2.0 for i in range(n) for j in range(i, n))


def hodges_lehmann(w):
    m = len(w)
    return w[m // 2] if m % 2 else (w[m // 2 - 1] + w[m // 2]) / 2.0


# ---- the null distribution of the signed-rank statistic: k of the interval -------------------

def signs_for(n, t):
    """Values +-1..+-n (rank i = |x|) whose positive ranks sum to t."""
    x = [-(i + 1.0) for i in range(n)]
    for r in range(n, 0, -1):
        if r <= t:
            x[r - 1] = float(r)
            t -= r
    assert t == 0
    return x


def cdf_scipy(n, t):
    """P(T+ <= t) for n untied values, from scipy's exact one-sided Wilcoxon test."""
    if t < 0:
        return 0.0
    return st.wilcoxon(signs_for(n, t), alternative="less", method="exact").pvalue


def ci_k_scipy(n, alpha):
    """The largest k >= 1 with P(T+ <= k - 1) <= alpha / 2; 0 when none (binary search)."""
    m = n * (n + 1) // 2
    lo, hi = 0, m // 2 + 1  # P(T+ <= lo - 1) <= a/2 holds at lo = 0; fails at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cdf_scipy(n, mid - 1) <= alpha / 2:
            lo = mid
        else:
            hi = mid
    return lo


def ci_k_normal(n, alpha):
    m = n * (n + 1) / 2.0
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
    k = math.floor(m / 2.0 + 0.5 - st.norm.isf(alpha / 2) * sd)
    return max(k, 0)


ALPHAS = [0.05, 0.01, 0.002, 0.0005]
ci_k = []
for n in range(1, 101):
    for a in ALPHAS:
        row = {"n": n, "alpha": a, "k_exact": ci_k_scipy(n, a)}
        if n > 63:
            row["k_normal"] = ci_k_normal(n, a)
        ci_k.append(row)


# ---- data sets: Walsh averages, HL, intervals -------------------------------------------------

def lognormal_ratios(n, sigma, shift, outliers=0.0):
    out = []
    for _ in range(n):
        v = rng.gauss(shift, sigma)
        if rng.random() < outliers:
            v += rng.choice([-1, 1]) * rng.uniform(0.2, 1.0)
        out.append(v)
    return out


datasets = []
for n, sigma, shift, outl in [(1, 0.05, 0.0, 0), (2, 0.05, 0.01, 0), (5, 0.05, 0.02, 0),
                              (8, 0.03, 0.0, 0), (12, 0.1, 0.05, 0.1), (16, 0.02, -0.01, 0),
                              (24, 0.05, 0.0, 0.05), (40, 0.08, 0.03, 0.05), (63, 0.05, 0.0, 0),
                              (64, 0.05, 0.01, 0), (100, 0.1, -0.02, 0.05),
                              (300, 0.05, 0.0, 0.02), (700, 0.2, 0.1, 0.0)]:
    datasets.append(lognormal_ratios(n, sigma, shift, outl))
# ties and zeros: values on a grid
for n in (10, 20, 30):
    datasets.append([rng.choice([-2, -1, 0, 0, 1, 2, 3]) * 0.01 for _ in range(n)])

walsh = []
for x in datasets:
    w = walsh_sorted(x)
    m = len(w)
    ks = sorted({1, 2, m // 7 + 1, m // 2, (m + 1) // 2, m // 2 + 1, m - m // 5, m - 1, m} -
                {0})
    ks = [k for k in ks if 1 <= k <= m]
    row = {"x": x, "hl": hodges_lehmann(w), "kth": [[k, w[k - 1]] for k in ks], "ci": []}
    n = len(x)
    for a in ALPHAS:
        if n <= 100:
            k = ci_k_scipy(n, a) if n <= 63 else ci_k_normal(n, a)
        else:
            k = ci_k_normal(n, a)
        if k >= 1:
            row["ci"].append({"alpha": a, "k": k, "lo": w[k - 1], "hi": w[m - k]})
        else:
            row["ci"].append({"alpha": a, "k": 0})
    walsh.append(row)


# ---- the signed-rank p -------------------------------------------------------------------------

def pratt_ranks(x):
    """Mid-ranks of |x| over all values (zeros included), as scipy.stats.rankdata gives them."""
    return st.rankdata(np.abs(np.asarray(x, dtype=float)))


def t_plus(x):
    r = pratt_ranks(x)
    return float(sum(ri for ri, xi in zip(r, x) if xi > 0))


def exact_p_brute(x):
    """p = P(|T+* - E| >= |T+ - E|) over every sign pattern of the non-zero values (Fraction)."""
    r = pratt_ranks(x)
    nz = [Fraction(ri).limit_denominator(4) for ri, xi in zip(r, x) if xi != 0]
    if not nz:
        return Fraction(1)
    total = sum(nz)
    obs = abs(2 * sum(ri for ri, xi in zip(r, x) if xi > 0) - total)
    obs = Fraction(obs).limit_denominator(4)
    hits = 0
    for signs in itertools.product((0, 1), repeat=len(nz)):
        s = sum(ri for ri, b in zip(nz, signs) if b)
        if abs(2 * s - total) >= obs:
            hits += 1
    return Fraction(hits, 2 ** len(nz))


def perm_p_scipy(x):
    """The same p by scipy.stats.permutation_test: sign flips of one sample, every pattern."""
    x = np.asarray(x, dtype=float)
    r = pratt_ranks(x)
    centre = r[x != 0].sum() / 2.0

    def stat(y):
        return abs(r[y > 0].sum() - centre)

    res = st.permutation_test((x,), stat, permutation_type="samples", vectorized=False,
                              n_resamples=np.inf, alternative="greater")
    return float(res.pvalue)


tests = []
# untied, no zeros: scipy's exact two-sided test
for n in (1, 2, 3, 5, 6, 8, 10, 13, 20, 30, 45, 63):
    for shift in (0.0, 0.02, 0.06):
        x = [v + 1e-9 * (i + 1) for i, v in enumerate(lognormal_ratios(n, 0.05, shift))]
        if len({abs(v) for v in x}) < n or any(v == 0 for v in x):
            continue
        row = {"x": x, "t_plus": t_plus(x), "exact": True,
               "p_scipy": float(st.wilcoxon(x, method="exact").pvalue)}
        if n <= 16:
            f = exact_p_brute(x)
            row["p_num"], row["p_den"] = f.numerator, f.denominator
        tests.append(row)
# ties and zeros: the exact sign-flip p, by brute force and by scipy's permutation test
for n in (4, 7, 10, 12, 14, 16):
    for grid in ([-2, -1, 0, 1, 2, 3], [-1, 0, 0, 1, 1, 2], [1, 1, 2, -3, 0]):
        x = [rng.choice(grid) * 0.01 for _ in range(n)]
        f = exact_p_brute(x)
        tests.append({"x": x, "t_plus": t_plus(x), "exact": True, "p_num": f.numerator,
                      "p_den": f.denominator, "p_scipy": perm_p_scipy(x)})
# all zeros
tests.append({"x": [0.0] * 5, "t_plus": 0.0, "exact": True, "p_num": 1, "p_den": 1,
              "p_scipy": 1.0})
# beyond 63 non-zero values: scipy's normal approximation (Pratt, tie variance, continuity)
for n, grid in ((80, None), (120, None), (90, [-2, -1, 0, 1, 2, 3, 4]), (200, [-1, 0, 1, 2])):
    while True:
        if grid is None:
            x = lognormal_ratios(n, 0.05, 0.005)
        else:
            x = [rng.choice(grid) * 0.01 for _ in range(n)]
        r = pratt_ranks(x)
        nz = sum(1 for v in x if v != 0)
        centre = r[np.asarray(x) != 0].sum() / 2.0
        if nz > 63 and abs(t_plus(x) - centre) >= 0.5:
            break
    p = st.wilcoxon(x, zero_method="pratt", method="approx", correction=True).pvalue
    tests.append({"x": x, "t_plus": t_plus(x), "exact": False, "p_scipy": float(p)})


# ---- the median interval of --bench-precision ---------------------------------------------------

def median_k_scipy(n, level):
    half = (1 - level) / 2
    k = 0
    while k < n and st.binom.cdf(k, n, 0.5) <= half:
        k += 1
    return k


def median_k_normal(n, level):
    z = st.norm.isf((1 - level) / 2)
    return max(math.floor(n / 2.0 + 0.5 - z * math.sqrt(n) / 2.0), 0)


median = []
for n in list(range(1, 121)) + [150, 200, 333, 500, 999, 1000, 1001, 1500, 4000, 100000]:
    for level in (0.90, 0.95, 0.99):
        row = {"n": n, "level": level, "k_exact": median_k_scipy(n, level)}
        if n > 1000:
            row["k_normal"] = median_k_normal(n, level)
        median.append(row)

doc = {
    "generator": "tests/data/gen_paired_vectors.py",
    "scipy": scipy.__version__,
    "ci_k": ci_k,
    "walsh": walsh,
    "tests": tests,
    "median_ci_k": median,
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paired-vectors.json")
with open(path, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
print("wrote", path)
