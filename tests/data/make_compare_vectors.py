#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# make_compare_vectors.py: writes compare-vectors.json, the golden vectors of what libbench adds
# to the spec's comparison (stats-vectors.json): the sensitivity requirement (--detect, the state
# UNMEASURED floor_above_detect, its runs_needed, the verdict and the "could detect" count) and
# lost runs (rows missing from documents, error rows, cells missing from an arm). It computes
# every number in plain Python from the words of docs/explanation/statistics.md, without the C
# engine: naive bootstrap (sort every delta), exact p by enumerating every split, BH by its
# definition. Run it from anywhere; it rewrites the file next to itself.
#
# A value of null in an arm is an error row in that run's document; a run index that is absent
# means the document has no row for the cell.
import itertools
import json
import math
import os
from fractions import Fraction

MASK = (1 << 64) - 1
SUBJECTS = {"baseline": "baseline", "candidate": "candidate", "aa_control": "aa"}
RESAMPLES = 10000
ALPHA = 0.05
F_MIN = 0.03
MIN_RUNS = 3


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


class Rng:
    def __init__(self, seed):
        self.state = seed

    def below(self, n):
        t = ((1 << 64) - n) % n
        while True:
            self.state, x = splitmix64(self.state)
            if x >= t:
                return x % n


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & MASK
    return h


def stream_seed(global_seed, x, scenario, operation):
    text = "\x1f".join([SUBJECTS["baseline"], x, scenario, operation]).encode("utf-8")
    return global_seed ^ fnv1a64(text)


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def bootstrap(base, cand, seed):
    """base, cand: [(run, value)] ascending by run. Returns (lo, hi, paired)."""
    paired = [r for r, _ in base] == [r for r, _ in cand]
    b = [v for _, v in base]
    c = [v for _, v in cand]
    rng = Rng(seed)
    deltas = []
    for _ in range(RESAMPLES):
        if paired:
            idx = [rng.below(len(b)) for _ in b]
            xb = [b[i] for i in idx]
            xc = [c[i] for i in idx]
        else:
            xb = [b[rng.below(len(b))] for _ in b]
            xc = [c[rng.below(len(c))] for _ in c]
        mb, mc = median(xb), median(xc)
        deltas.append((mc - mb) / mb)
    deltas.sort()
    k = RESAMPLES * 5 // 200  # floor(B * 0.05 / 2)
    return deltas[k], deltas[RESAMPLES - 1 - k], paired


def two_u(b, c):
    return sum(2 if y > x else 1 if y == x else 0 for y in c for x in b)


def exact_p(b, c):
    """Every split of the pooled values into arms of len(b) and len(c)."""
    pooled = b + c
    nb, nc = len(b), len(c)
    center = nb * nc
    obs = abs(two_u(b, c) - center)
    hits = total = 0
    for pick in itertools.combinations(range(len(pooled)), nc):
        chosen = set(pick)
        cc = [pooled[i] for i in pick]
        bb = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        total += 1
        hits += abs(two_u(bb, cc) - center) >= obs
    return Fraction(hits, total)


def bh(ps, q):
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    k_star = 0
    for k in range(m, 0, -1):
        if ps[order[k - 1]] <= k * q / m:
            k_star = k
            break
    cut = ps[order[k_star - 1]] if k_star else -math.inf
    adjusted = [0.0] * m
    run = 1.0
    for j in range(m, 0, -1):
        v = m * ps[order[j - 1]] / j
        run = min(run, v)
        adjusted[order[j - 1]] = run
    return [k_star > 0 and p <= cut for p in ps], adjusted


def runs_needed_bh(m, q):
    n = 3
    while not 2 * m <= q * math.comb(2 * n, n):
        n += 1
    return n


def floor_runs_needed(base, aa, detect):
    """docs/explanation/statistics.md: s = 1.4826 * the median over both arms of
    |ln v - median(ln v of its arm)|; n = ceil((7 s / detect)^2), at least min(n) + 1."""
    dev = []
    for arm in (base, aa):
        logs = [math.log(v) for v in arm]
        mid = median(logs)
        dev += [abs(x - mid) for x in logs]
    s = 1.4826 * median(dev)
    want = math.ceil((7.0 * s / detect) ** 2)
    return min(max(want, min(len(base), len(aa)) + 1), 1000000)


def bh_min_cells(tested, q):
    """The fewest cells BH could confirm together, each at its smallest possible exact p
    (complete separation: 2 / C(nb + nc, nc)); 0 when not even all of them could be."""
    m = len(tested)
    pmins = sorted(Fraction(2, math.comb(o["n_baseline"] + o["n_candidate"], o["n_candidate"]))
                   for o in tested)
    qf = Fraction(q).limit_denominator(10 ** 9)
    for k in range(1, m + 1):
        if pmins[k - 1] <= k * qf / m:
            return k
    return 0


def ci_runs_needed(n, d, lo, hi, detect):
    """The runs that would likely bring the CI inside +-detect: its half width shrinks like
    1/sqrt(n) around the delta; at least n + 1; none when |delta| >= detect."""
    if abs(d) >= detect:
        return None
    want = math.ceil(n * ((hi - lo) / 2 / (detect - abs(d))) ** 2)
    return min(max(want, n + 1), 1000000)


def arm_values(cell, arm):
    """[(run, value)] of the measured runs, ascending by run."""
    return sorted((int(r), v) for r, v in cell[arm].items() if v is not None)


def judge(cells, params):
    q, detect, min_delta, seed = (params["q"], params["detect"], params["min_delta"],
                                  params["global_seed"])
    out = []
    for cell in cells:
        b, c, a = (arm_values(cell, arm) for arm in ("baseline", "candidate", "aa"))
        o = {"name": cell["name"], "operation": cell["operation"],
             "n_baseline": len(b), "n_candidate": len(c), "n_aa": len(a)}
        if len(b) < MIN_RUNS or len(c) < MIN_RUNS:
            o.update(state="UNMEASURED", reason="insufficient_runs", tested=False)
        elif len(a) < MIN_RUNS:
            o.update(state="UNMEASURED", reason="no_aa_floor", tested=False)
        else:
            bv, cv, av = [v for _, v in b], [v for _, v in c], [v for _, v in a]
            mb, mc, ma = median(bv), median(cv), median(av)
            o.update(tested=True, median_baseline=mb, median_candidate=mc, median_aa=ma,
                     rel_delta=(mc - mb) / mb, abs_delta=mc - mb)
            o["seed"] = stream_seed(seed, SUBJECTS["candidate"], cell["name"], cell["operation"])
            o["ci_lo"], o["ci_hi"], o["paired"] = bootstrap(b, c, o["seed"])
            o["aa_seed"] = stream_seed(seed, SUBJECTS["aa_control"], cell["name"],
                                       cell["operation"])
            o["aa_ci_lo"], o["aa_ci_hi"], _ = bootstrap(b, a, o["aa_seed"])
            o["floor"] = max(F_MIN, abs(o["aa_ci_lo"]), abs(o["aa_ci_hi"]))
            p = exact_p(bv, cv)
            o["p"], o["p_exact"] = float(p), f"{p.numerator}/{p.denominator}"
            aa_p = exact_p(bv, av)
            o["aa_p"] = float(aa_p)
            o["_aa_abs"] = ma - mb
        out.append(o)
    tested = [o for o in out if o["tested"]]
    m = len(tested)
    rej, adj = bh([o["p"] for o in tested], q)
    aa_rej, aa_adj = bh([o["aa_p"] for o in tested], q)
    need_bh = runs_needed_bh(m, q) if m else 0
    aa_changed = claimed = unconfirmed = above = wide = False
    floor_runs = ci_runs = 0
    min_cells = bh_min_cells(tested, q)
    equivalence = math.isfinite(detect)
    bh_none = m > 0 and min_cells == 0
    for o, r, qa, ar, aqa in zip(tested, rej, adj, aa_rej, aa_adj):
        o.update(bh_rejected=r, q_adjusted=qa, aa_bh_rejected=ar, aa_q_adjusted=aqa)
        excl0 = o["ci_lo"] > 0 or o["ci_hi"] < 0
        beyond = o["ci_lo"] > o["floor"] or o["ci_hi"] < -o["floor"]
        absok = abs(o["abs_delta"]) >= min_delta
        inside = -detect <= o["ci_lo"] and o["ci_hi"] <= detect
        direction = "regression" if o["rel_delta"] > 0 else "improvement"
        if excl0 and beyond and absok:
            o["direction"] = direction
            if r:
                o["state"] = "CLAIMED"
                claimed |= direction == "regression"
            else:
                o["state"] = "UNCONFIRMED"
                o["runs_needed"] = need_bh
                unconfirmed |= direction == "regression"
        else:
            o["state"] = "NO_CLAIM"
            o["reason"] = ("ci_includes_zero" if not excl0 else
                           "ci_within_floor" if not beyond else "below_min_delta")
            if o["floor"] > detect:
                cell = next(x for x in cells if x["name"] == o["name"] and
                            x["operation"] == o["operation"])
                o["state"] = "UNMEASURED"
                o["reason"] = "floor_above_detect"
                o["runs_needed"] = floor_runs_needed(
                    [v for _, v in arm_values(cell, "baseline")],
                    [v for _, v in arm_values(cell, "aa")], detect)
                above = True
                floor_runs = max(floor_runs, o["runs_needed"])
            elif equivalence and not inside and not (excl0 and beyond):
                # PASS is an equivalence claim: a CI over a bound of +-detect is not one.
                o["state"] = "UNMEASURED"
                o["reason"] = "ci_wider_than_detect"
                o["runs_needed"] = ci_runs_needed(min(o["n_baseline"], o["n_candidate"]),
                                                  o["rel_delta"], o["ci_lo"], o["ci_hi"], detect)
                wide = True
                ci_runs = max(ci_runs, o["runs_needed"] or 0)
            elif equivalence and bh_none:
                o["state"] = "UNMEASURED"
                o["reason"] = "too_few_runs_for_bh"
                o["runs_needed"] = need_bh
            elif equivalence and inside:
                o["state"] = "NO_CHANGE"
        aa_excl0 = o["aa_ci_lo"] > 0 or o["aa_ci_hi"] < 0
        aa_beyond = o["aa_ci_lo"] > F_MIN or o["aa_ci_hi"] < -F_MIN
        o["aa_confirmed_change"] = (ar and aa_excl0 and aa_beyond and
                                    abs(o.pop("_aa_abs")) >= min_delta)
        aa_changed |= o["aa_confirmed_change"]
    for o in out:
        o.setdefault("direction", None)
        o.setdefault("reason", None)
        o.setdefault("runs_needed", None)
    res = {"family_size": m, "bh_min_cells": min_cells,
           "detectable_cells": sum(1 for o in tested if o["floor"] <= detect)}
    if aa_changed:
        res.update(verdict="UNMEASURED", exit_code=2, reason="aa_control_changed")
    elif claimed:
        res.update(verdict="REGRESSION", exit_code=1, reason="claimed_regression")
    elif unconfirmed:
        res.update(verdict="UNMEASURED", exit_code=2, reason="unconfirmed_regression",
                   runs_needed=need_bh)
    elif bh_none and equivalence:
        res.update(verdict="UNMEASURED", exit_code=2, reason="too_few_runs_for_bh",
                   runs_needed=need_bh)
    elif m < len(out) or not out:
        res.update(verdict="UNMEASURED", exit_code=2, reason="unmeasured_cells")
    elif above or wide:
        res.update(verdict="UNMEASURED", exit_code=2,
                   reason="floor_above_detect" if above else "ci_wider_than_detect",
                   runs_needed=max(floor_runs, ci_runs, need_bh))
    else:
        res.update(verdict="PASS", exit_code=0, reason="no_claimed_regression")
    res.setdefault("runs_needed", None)
    for o in out:
        for key in ("seed", "aa_seed"):
            if key in o:
                o[key] = str(o[key])
    res["cells"] = out
    pct = f"{detect * 100:g}"
    res["text"] = {
        "sensitivity": f"could detect \u2265{pct}% in {res['detectable_cells']} of {len(out)} "
                       "cells",
        "verdict": f"verdict: {res['verdict']} ({res['reason']})",
        "runs_needed": f"runs needed: {res['runs_needed']}" if res["runs_needed"] else None,
    }
    return res


def cell(name, labels, baseline, candidate, aa):
    """Arms as lists by run (index 0 is run 1); None = an error row, "-" = no row."""
    def arm(values):
        return {str(i + 1): v for i, v in enumerate(values) if v != "-"}
    return {"name": name, "labels": labels,
            "operation": ",".join(f"{k}={v}" for k, v in sorted(labels.items())),
            "baseline": arm(baseline), "candidate": arm(candidate), "aa": arm(aa)}


QUIET_B = [100.0, 101.0, 99.0, 100.5, 99.5]
QUIET_A = [100.2, 99.8, 100.6, 99.4, 100.1]
# A burst of load: the A/A control alone moves by tens of percent.
NOISY_B = [100.0, 118.0, 95.0, 131.0, 104.0]
NOISY_A = [127.0, 97.0, 112.0, 101.0, 138.0]
NOISY_C = [124.0, 103.0, 139.0, 108.0, 117.0]  # the 10% slower candidate, as noisy


def scaled(values, factor):
    return [round(v * factor, 6) for v in values]


FAMILIES = {}


def family(name, about, cells, detect=0.10, q=0.05, min_delta=0.0, without_detect=False):
    params = {"q": q, "f_min": F_MIN, "min_delta": min_delta, "bootstrap_resamples": RESAMPLES,
              "ci_level": 1 - ALPHA, "global_seed": 0, "detect": detect, "min_runs": MIN_RUNS}
    fam = {"about": about, "params": params, "cells": cells, "result": judge(cells, params)}
    if without_detect:
        off = dict(params, detect=math.inf)
        r = judge(cells, off)
        fam["without_detect"] = {k: r[k] for k in ("verdict", "exit_code", "reason")}
    FAMILIES[name] = fam


family("noisy_now_unmeasured",
       "A real 10% slowdown of `hash` measured during a burst of load: its A/A floor is far above "
       "10%, so it claims nothing. Without --detect the verdict was PASS; now the two noisy cells "
       "are UNMEASURED (floor_above_detect) with the runs that would likely bring their floors "
       "under 10%.",
       [cell("parse", {"size": "small"}, QUIET_B, scaled(QUIET_B, 1.01), QUIET_A),
        cell("hash", {"size": "small"}, NOISY_B, NOISY_C, NOISY_A),
        cell("copy", {}, scaled(NOISY_A, 0.5), scaled(NOISY_C, 0.5), scaled(NOISY_B, 0.5))],
       without_detect=True)

family("quiet_regression",
       "The same comparison on a quiet machine: every floor is under 10% and the 10% slowdown of "
       "`hash` is CLAIMED.",
       [cell("parse", {"size": "small"}, QUIET_B, scaled(QUIET_B, 1.01), QUIET_A),
        cell("hash", {"size": "small"}, QUIET_B, scaled(QUIET_B, 1.10), QUIET_A),
        cell("copy", {}, scaled(QUIET_A, 0.5), scaled(QUIET_B, 0.505), scaled(QUIET_B, 0.5))])

family("claim_beyond_wide_floor",
       "A cell whose floor is far above 10% still claims a change that lies beyond it: the "
       "change was seen all the same, and REGRESSION wins over the cells that could not see "
       "10%.",
       [cell("parse", {"size": "small"}, QUIET_B, scaled(QUIET_B, 1.01), QUIET_A),
        cell("hash", {"size": "small"}, NOISY_B, scaled(NOISY_B, 3.0), NOISY_A),
        cell("copy", {}, scaled(NOISY_A, 0.5), scaled(NOISY_B, 0.5), scaled(NOISY_B, 0.5))])

MID_B = [100.0, 106.0, 96.0, 109.0, 102.0]
MID_A = [107.0, 99.0, 104.0, 95.0, 111.0]
family("detect_25",
       "Floors between 10% and 25%: UNMEASURED at the default --detect=10, PASS at "
       "--detect=25.",
       [cell("parse", {"size": "small"}, QUIET_B, scaled(QUIET_B, 1.01), QUIET_A),
        cell("mid", {}, MID_B, scaled(MID_B, 1.02), MID_A)],
       detect=0.25)
family("detect_10_same_inputs",
       "detect_25's inputs at the default --detect=10.",
       FAMILIES["detect_25"]["cells"])

family("lost_runs",
       "Lost runs: `crashy` lost three baseline runs (no row in their documents), `flaky` has "
       "error rows in two candidate runs (judged on the three left, unpaired), `new` is only in "
       "the candidate, `aa_lost` kept two A/A runs. Each is judged alone; the verdict is "
       "UNMEASURED (unmeasured_cells) because a cell that could not be measured is never a "
       "pass.",
       [cell("steady", {}, QUIET_B, scaled(QUIET_B, 1.01), QUIET_A),
        cell("crashy", {}, [20.0, 21.0, "-", "-", "-"], [20.5, 20.9, 19.8, 20.2, 20.4],
             [20.1, 20.8, 20.0, 19.9, 20.6]),
        cell("flaky", {"op": "read"}, QUIET_B, [101.0, None, 99.5, None, 100.0], QUIET_A),
        cell("new", {}, ["-"] * 5, [50.0, 51.0, 49.0, 50.5, 49.5], ["-"] * 5),
        cell("aa_lost", {}, QUIET_B, scaled(QUIET_B, 0.99), [100.0, "-", None, "-", 101.0])])

family("lost_runs_regression",
       "The lost runs of lost_runs with a 20% slowdown of `steady`: the cells that can be judged "
       "are, and the CLAIMED regression decides the verdict.",
       [cell("steady", {}, QUIET_B, scaled(QUIET_B, 1.20), QUIET_A)] +
       FAMILIES["lost_runs"]["cells"][1:])

family("ci_straddles_detect",
       "A cell whose A/A floor is under 10% but whose own CI reaches past +10%: the candidate's "
       "runs swing while the baseline's are quiet. Before, PASS (the power gate read only the "
       "floor); now UNMEASURED (ci_wider_than_detect) with the runs that would likely bring its "
       "CI inside +-10%.",
       [cell("parse", {"size": "small"}, QUIET_B, scaled(QUIET_B, 1.01), QUIET_A),
        cell("swing", {}, QUIET_B, [96.0, 104.0, 101.0, 118.0, 94.0], QUIET_A)])

family("three_runs",
       "Three runs per arm: no change can be confirmed by Benjamini-Hochberg, whatever the data "
       "(p is at least 0.1). No claim at all: the quiet cells are UNMEASURED (too_few_runs_for_bh) "
       "and so is the verdict, never PASS.",
       [cell("parse", {"size": "small"}, QUIET_B[:3], scaled(QUIET_B[:3], 1.01), QUIET_A[:3]),
        cell("copy", {}, scaled(QUIET_A[:3], 0.5), scaled(QUIET_B[:3], 0.5),
             scaled(QUIET_B[:3], 0.5))])

SEVEN = [cell(f"op{i}", {}, QUIET_B, scaled(QUIET_B, 1.25 if i < 2 else 1.0 + i / 1000),
              QUIET_A) for i in range(7)]
family("bh_two_cells_of_seven",
       "Five runs, seven cells: one change alone cannot be confirmed (6 runs needed), but two "
       "that change together can (bh_min_cells 2): both regressions are CLAIMED, and the tool "
       "says so instead of \"too few to confirm a change\".",
       SEVEN)


def main():
    doc = {
        "about": "Golden vectors of libbench's additions to the comparison of "
                 "stats-vectors.json: the sensitivity requirement (--detect) and lost runs. "
                 "Written by tests/data/make_compare_vectors.py, a plain-Python reference of "
                 "docs/explanation/statistics.md. In an arm, a run index maps to the run's "
                 "value; null is an error row; an absent index is a document without a row for "
                 "the cell.",
        "subjects": SUBJECTS,
        "families": FAMILIES,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare-vectors.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()
