#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# compare_power.py: the power of `libbench compare` on this machine (issue 26 point 8): A/A false
# claims and the detection of real 5% and 2% slowdowns, paired and run-level modes, quiet and beside
# two CPU hogs it starts and stops; prints one Markdown table. Never a test: it asserts no timing.
"""Measure how often `libbench compare` decides, and decides right, on this machine.

The suite is examples/workload_knob.c (three cells: mix, sum_4k, copy_16k). Its `mix` body does
LIBBENCH_EXAMPLE_EXTRA_WORK percent more rounds of a dependent chain, so a candidate with the
variable set to 5 is a real 5% slowdown of one cell of three, 2 a real 2% one, 0 no change. Both
subjects are two-line shell wrappers of the same binary (`exec` with the variable set), the
baseline's at 0, so they differ in nothing but the variable's one-digit value.

For each trial, for each load (quiet; beside HOGS busy loops started for the trial's loaded
comparisons and killed after them), for each case (A/A, 5%, 2%), for each mode (paired;
run-level), one comparison:

  libbench compare --mode=MODE [--runs=RUNS] --seed=TRIAL --json=FILE [COMPARE_ARGS] BASE CAND
                   [-- BENCH_ARGS]

The two modes alternate which goes first from one trial to the next. A comparison's wall time is
taken around the tool's process. The table's figures are counts over the trials; the goals of
the issue are printed beside them and judged on the paired mode (the default); the run-level
rows show the same goals for reference only.

Exit status: 0 every goal judged and met, 1 a goal missed, 2 a goal not judged (too few trials,
a comparison that failed) or a usage error.
"""

import argparse
import json
import math
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time

DASH = "\u2014"
KNOB_VAR = "LIBBENCH_EXAMPLE_EXTRA_WORK"
CHANGED_CELL = "workload_knob.mix"
# case -> (label, percent of extra work in the candidate's `mix`)
DETECT_MIN = 3  # the smallest --detect the tool takes (the run-level A/A floor's minimum)
CASES = {"aa": ("A/A", 0), "5": ("5% slower", 5), "2": ("2% slower", 2)}
MODES = ("paired", "runs")
LOADS = ("quiet", "hogs")
CLAIM_STATES = ("CLAIMED", "REGRESSION", "IMPROVEMENT")  # runs mode says CLAIMED + direction
# The goals of issue 26 ("Goals"): the least trials for a judgment, and the rate.
AA_MIN_TRIALS, AA_PASS_RATE = 30, 0.90
DETECT_MIN_TRIALS, DETECT_RATE = 10, 0.80
WALL_GOAL_S = 60.0
FLOOR_RATIO_GOAL = 1.0 / 3.0


class Stop(Exception):
    """SIGTERM or SIGHUP: leave through the finally blocks that stop the hogs."""


def on_signal(signum, frame):
    raise Stop("signal %d" % signum)


# ---- the machine's load --------------------------------------------------------------------


def busy_ticks():
    """All CPUs' busy time in clock ticks since boot (user, nice, system, irq, softirq, steal),
    or None when /proc/stat cannot be read."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        return None
    v = [int(x) for x in fields[1:9]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7]


def own_cpu_s():
    """CPU seconds of this script and of every child it has reaped."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


# ---- the subjects and the hogs -------------------------------------------------------------


def wrapper(directory, name, knob, percent):
    """A candidate or baseline: the knob binary with the variable set (the same length for
    every subject: one digit)."""
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n%s=%d exec '%s' \"$@\"\n" % (KNOB_VAR, percent, knob))
    os.chmod(path, 0o755)
    return path


def start_hogs(n):
    hogs = []
    for _ in range(n):
        hogs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL))
    return hogs


def stop_hogs(hogs):
    for p in hogs:
        if p.poll() is None:
            p.kill()
    for p in hogs:
        p.wait()
    hogs.clear()


# ---- one comparison ------------------------------------------------------------------------


def compare_env():
    env = {k: v for k, v in os.environ.items() if k != KNOB_VAR}
    env["NO_COLOR"] = "1"
    return env


def detect_args(a, case):
    """--detect=N for a slowdown of N%, at least the tool's 3% ("to catch a change of X, ask for a --detect of about X",
    docs/explanation/statistics.md): with the default 10% a 2% change lies inside the
    equivalence margin and is rightly NO_CHANGE. The A/A keeps the tool's default. None with
    --same-detect, or when --compare-arg gives a --detect."""
    if not a.detect_per_case or CASES[case][1] == 0:
        return []
    return ["--detect=%d" % max(DETECT_MIN, CASES[case][1])]


def run_compare(a, mode, base, cand, seed, out_json, case):
    cmd = [a.libbench, "compare", "--mode=" + mode, "--seed=%d" % seed, "--json=" + out_json]
    if mode == "runs" and a.runs:
        cmd.append("--runs=" + a.runs)
    cmd += detect_args(a, case) + a.compare_arg + [base, cand]
    if a.bench_arg:
        cmd += ["--"] + a.bench_arg
    if os.path.exists(out_json):
        os.unlink(out_json)
    ticks0, cpu0 = busy_ticks(), own_cpu_s()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=compare_env())
    timed_out = False
    try:
        out, err = p.communicate(timeout=a.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        p.terminate()  # the tool kills its subjects' group on SIGTERM
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
    except BaseException:  # stopped by a signal: the tool and its subjects go too
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        raise
    wall = time.monotonic() - t0
    ticks1, cpu1 = busy_ticks(), own_cpu_s()
    other = None
    if ticks0 is not None and ticks1 is not None and wall > 0:
        hz = os.sysconf("SC_CLK_TCK")
        other = max(0.0, ((ticks1 - ticks0) / hz - (cpu1 - cpu0)) / wall)
    doc, doc_error = None, None
    if os.path.exists(out_json):
        try:
            with open(out_json, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            doc_error = str(e)
    return {"cmd": cmd, "exit": None if timed_out else p.returncode, "timed_out": timed_out,
            "wall_s": wall, "other_load_cpus": other, "doc": doc, "doc_error": doc_error,
            "stdout": out.decode("utf-8", "replace"),
            "stderr": err.decode("utf-8", "replace")[-4000:]}


def cell_record(c):
    keys = ("name", "state", "direction", "reason", "rel_delta", "ci_lo", "ci_hi", "floor",
            "aa_ci_lo", "aa_ci_hi", "aa_rel", "ci_level", "rounds", "n_baseline", "p", "q",
            "median_baseline_ns", "median_candidate_ns")
    return {k: c.get(k) for k in keys if k in c}


def judge(r, case):
    """The trial's outcome: its verdict, whether the changed cell was claimed a regression, and
    the false claims (a claim on a cell that did not change, or an improvement of one that
    got slower)."""
    doc = r["doc"]
    if r["timed_out"] or doc is None or doc.get("verdict") not in ("PASS", "REGRESSION",
                                                                     "UNMEASURED"):
        return {"verdict": "ERROR", "detected": False, "false_claims": [], "cells": []}
    changed = CASES[case][1] > 0
    detected, false_claims = False, []
    for c in doc.get("cells", []):
        if c.get("state") not in CLAIM_STATES:
            continue
        direction = c.get("direction") or c.get("state", "").lower()
        if changed and c.get("name") == CHANGED_CELL:
            if direction == "regression":
                detected = True
            else:
                false_claims.append("%s %s" % (c.get("name"), direction))
        else:
            false_claims.append("%s %s" % (c.get("name"), direction))
    return {"verdict": doc["verdict"], "detected": detected and doc["verdict"] == "REGRESSION",
            "false_claims": false_claims,
            "cells": [cell_record(c) for c in doc.get("cells", [])]}


# ---- figures -------------------------------------------------------------------------------


def wilson(k, n):
    """The 95% Wilson interval of a rate k/n, as percentages."""
    if n == 0:
        return None
    z, p = 1.959963984540054, k / n
    d = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, mid - half) * 100, min(1.0, mid + half) * 100


def rate(k, n):
    if n == 0:
        return DASH
    w = wilson(k, n)
    return "%d/%d = %.0f%% (95%% CI %.0f\u2013%.0f%%)" % (k, n, 100.0 * k / n, w[0], w[1])


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt_s(x):
    return DASH if x is None else "%.1f s" % x


def fmt_pct(x):
    return DASH if x is None else "%.2f%%" % (100.0 * x)


def goal_of(mode, load, case, trials):
    """The issue's goal for this row, its text and its status (MET, MISSED, not judged), or
    None when the issue sets none for the row."""
    n = len(trials)
    counts = {v: sum(1 for t in trials if t["verdict"] == v) for v in
              ("PASS", "REGRESSION", "UNMEASURED", "ERROR")}
    if case == "aa" and load == "hogs":
        text = "PASS \u2265 90%% of \u2265 %d, no REGRESSION" % AA_MIN_TRIALS
        if counts["REGRESSION"] > 0:
            return text, "MISSED"
        if n < AA_MIN_TRIALS or counts["ERROR"]:
            return text, "not judged (%d trials%s)" % (
                n, ", %d failed" % counts["ERROR"] if counts["ERROR"] else "")
        return text, "MET" if counts["PASS"] >= AA_PASS_RATE * n else "MISSED"
    if (case == "5" and load == "hogs") or (case == "2" and load == "quiet"):
        text = "REGRESSION \u2265 80%% (\u2265 %d trials)" % DETECT_MIN_TRIALS
        detected = sum(1 for t in trials if t["detected"])
        if n < DETECT_MIN_TRIALS or counts["ERROR"]:
            return text, "not judged (%d trials%s)" % (
                n, ", %d failed" % counts["ERROR"] if counts["ERROR"] else "")
        return text, "MET" if detected >= DETECT_RATE * n else "MISSED"
    return None


def report(a, trials):
    """The Markdown report, and the statuses of the goals judged on the paired mode."""
    lines, statuses = [], []
    lines.append("| mode | load | case | trials | PASS | REGRESSION | UNMEASURED | failed | "
                 "false claims | detection (REGRESSION of mix) | goal | median wall (max) | "
                 "goal \u2264 60 s | other load |")
    lines.append("|" + "---|" * 14)
    for mode in a.modes:
        for load in a.loads:
            for case in a.cases:
                ts = [t for t in trials if (t["mode"], t["load"], t["case"]) == (mode, load, case)]
                if not ts:
                    continue
                n = len(ts)
                cnt = {v: sum(1 for t in ts if t["verdict"] == v) for v in
                       ("PASS", "REGRESSION", "UNMEASURED", "ERROR")}
                fc = sum(1 for t in ts if t["false_claims"])
                det = DASH if case == "aa" else rate(sum(1 for t in ts if t["detected"]), n)
                g = goal_of(mode, load, case, ts)
                if g is None:
                    goal = DASH
                else:
                    goal = "%s: **%s**" % (g[0], g[1]) if mode == "paired" else \
                        "%s: %s (reference)" % (g[0], g[1])
                    if mode == "paired":
                        statuses.append(g[1])
                walls = [t["wall_s"] for t in ts]
                mw = statistics.median(walls)
                wall_goal = "MET" if mw <= WALL_GOAL_S else "MISSED"
                if mode == "paired":
                    statuses.append(wall_goal)
                other = median_or_none([t["other_load_cpus"] for t in ts])
                lines.append("| %s | %s | %s | %d | %s | %s | %s | %d | %d | %s | %s | %s (%s) | "
                             "%s | %s |" % (
                                 mode, load, CASES[case][0], n, rate(cnt["PASS"], n),
                                 rate(cnt["REGRESSION"], n), rate(cnt["UNMEASURED"], n),
                                 cnt["ERROR"], fc, det, goal, fmt_s(mw), fmt_s(max(walls)),
                                 wall_goal, DASH if other is None else "%.2f CPUs" % other))
    lines.append("")
    # The floors: every trial's cells (the floor comes from the A/A control of each comparison).
    lines.append("| load | cell | paired floor (median, n) | run-level floor (median, n) | "
                 "ratio paired / run-level | goal \u2264 1/3 | paired A/A CI extent | "
                 "run-level A/A CI extent |")
    lines.append("|" + "---|" * 8)
    cells = []
    for t in trials:
        for c in t["cells"]:
            if c["name"] not in cells:
                cells.append(c["name"])

    def pick(mode, load, cell, key):
        out = []
        for t in trials:
            if t["mode"] != mode or t["load"] != load:
                continue
            for c in t["cells"]:
                if c["name"] != cell:
                    continue
                if key == "extent":
                    lo, hi = c.get("aa_ci_lo"), c.get("aa_ci_hi")
                    out.append(None if lo is None or hi is None else max(abs(lo), abs(hi)))
                else:
                    out.append(c.get(key))
        return [v for v in out if v is not None]

    for load in a.loads:
        for cell in cells:
            fp, fr = pick("paired", load, cell, "floor"), pick("runs", load, cell, "floor")
            if not fp and not fr:
                continue
            mp, mr = median_or_none(fp), median_or_none(fr)
            ratio = mp / mr if mp is not None and mr else None
            if ratio is None:
                status = "not judged"
            else:
                status = "MET" if ratio <= FLOOR_RATIO_GOAL else "MISSED"
            statuses.append(status)
            lines.append("| %s | %s | %s (%d) | %s (%d) | %s | %s | %s | %s |" % (
                load, cell, fmt_pct(mp), len(fp), fmt_pct(mr), len(fr),
                DASH if ratio is None else "%.2f" % ratio, status,
                fmt_pct(median_or_none(pick("paired", load, cell, "extent"))),
                fmt_pct(median_or_none(pick("runs", load, cell, "extent")))))
    return "\n".join(lines), statuses


# ---- main ----------------------------------------------------------------------------------


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="the build directory (default: build)")
    ap.add_argument("--libbench", help="the tool (default: BUILD/tools/libbench)")
    ap.add_argument("--knob", help="the suite (default: BUILD/examples/workload_knob)")
    ap.add_argument("--trials", type=int, help="trials of each A/A cell (default 30; --quick 2)")
    ap.add_argument("--trials-slow", type=int,
                    help="trials of each slowdown cell (default 10; --quick 2)")
    ap.add_argument("--runs-trials", metavar="AA,SLOW",
                    help="trials of the run-level rows, when fewer than --trials and "
                         "--trials-slow (its comparisons take about 75 s each when quiet)")
    ap.add_argument("--same-detect", action="store_true",
                    help="every comparison at the tool's --detect (default: a slowdown of N%% is "
                         "compared with --detect=N, the A/A with the tool's default)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 2 trials of every cell")
    ap.add_argument("--modes", default="paired,runs", help="of paired,runs (default both)")
    ap.add_argument("--loads", default="quiet,hogs", help="of quiet,hogs (default both)")
    ap.add_argument("--cases", default="aa,5,2", help="of aa,5,2 (default all three)")
    ap.add_argument("--hogs", type=int, default=2, help="busy loops of the loaded runs (2)")
    ap.add_argument("--runs", default="auto",
                    help="the run-level mode's --runs (default auto; '' for the tool's default)")
    ap.add_argument("--compare-arg", action="append", default=[],
                    help="one more option for every compare (repeatable), e.g. --detect=5")
    ap.add_argument("--bench-arg", action="append", default=[],
                    help="one more option for the binaries, after -- (repeatable)")
    ap.add_argument("--timeout", type=float, default=900.0,
                    help="seconds before a comparison is stopped and counted failed (900)")
    ap.add_argument("--out", help="write every trial's results as JSON to this file")
    a = ap.parse_args(argv)
    a.libbench = a.libbench or os.path.join(a.build, "tools", "libbench")
    a.knob = os.path.abspath(a.knob or os.path.join(a.build, "examples", "workload_knob"))
    default_aa, default_slow = (2, 2) if a.quick else (AA_MIN_TRIALS, DETECT_MIN_TRIALS)
    a.trials = default_aa if a.trials is None else a.trials
    a.trials_slow = default_slow if a.trials_slow is None else a.trials_slow
    for name, allowed in (("modes", MODES), ("loads", LOADS), ("cases", tuple(CASES))):
        chosen = [w for w in getattr(a, name).split(",") if w]
        bad = [w for w in chosen if w not in allowed]
        if bad or not chosen:
            ap.error("--%s: '%s' is not one of %s" % (name, ",".join(bad), ",".join(allowed)))
        setattr(a, name, [w for w in allowed if w in chosen])
    if a.trials < 0 or a.trials_slow < 0 or a.hogs < 0:
        ap.error("--trials, --trials-slow and --hogs take a whole number >= 0")
    a.detect_per_case = not a.same_detect and not any(
        x.startswith("--detect") for x in a.compare_arg)
    a.runs_aa, a.runs_slow = a.trials, a.trials_slow
    if a.runs_trials is not None:
        parts = a.runs_trials.split(",")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            ap.error("--runs-trials takes two whole numbers, AA,SLOW (e.g. 6,3)")
        a.runs_aa = min(int(parts[0]), a.trials)
        a.runs_slow = min(int(parts[1]), a.trials_slow)
    return a


def main(argv):
    a = parse_args(argv)
    for what, path in (("libbench", a.libbench), ("knob", a.knob)):
        if not os.access(path, os.X_OK):
            print("error: the %s is not built: %s (ninja -C %s tools/libbench "
                  "examples/workload_knob)" % (what, path, a.build), file=sys.stderr)
            return 2
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    trials, hogs = [], []
    started = time.time()
    ncpu = os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="compare_power.") as tmp:
        os.mkdir(os.path.join(tmp, "cb"))
        base = wrapper(os.path.join(tmp, "cb"), "base", a.knob, 0)
        cands = {}
        for case in a.cases:
            os.mkdir(os.path.join(tmp, "c" + case))
            cands[case] = wrapper(os.path.join(tmp, "c" + case), "base", a.knob, CASES[case][1])
        out_json = os.path.join(tmp, "compare.json")
        counts = {c: (a.trials if c == "aa" else a.trials_slow) for c in a.cases}
        runs_counts = {c: (a.runs_aa if c == "aa" else a.runs_slow) for c in a.cases}
        per_mode = {m: (runs_counts if m == "runs" else counts) for m in a.modes}
        total = sum(sum(per_mode[m].values()) for m in a.modes) * len(a.loads)
        done, stopped = 0, None
        try:
            for i in range(max(counts.values(), default=0)):
                for load in a.loads:
                    if load == "hogs":
                        hogs = start_hogs(a.hogs)
                        time.sleep(0.5)  # let them reach their loop
                    for case in a.cases:
                        if i >= counts[case]:
                            continue
                        modes = a.modes if i % 2 == 0 else list(reversed(a.modes))
                        for mode in modes:
                            if i >= per_mode[mode][case]:
                                continue
                            dead = [p.pid for p in hogs if p.poll() is not None]
                            r = run_compare(a, mode, base, cands[case], i, out_json, case)
                            j = judge(r, case)
                            done += 1
                            rec = {"mode": mode, "load": load, "case": case, "trial": i,
                                   "seed": i, "exit": r["exit"], "timed_out": r["timed_out"],
                                   "wall_s": r["wall_s"], "other_load_cpus": r["other_load_cpus"],
                                   "hogs_dead_before": dead, "cmd": r["cmd"],
                                   "tool_wall_s": (r["doc"] or {}).get("wall_s"),
                                   "stop": (r["doc"] or {}).get("stop"),
                                   "auto_stop": (r["doc"] or {}).get("auto_stop"),
                                   "runs": ((r["doc"] or {}).get("params") or {}).get("runs"),
                                   "reason": (r["doc"] or {}).get("reason"),
                                   "doc_error": r["doc_error"], "stdout": r["stdout"],
                                   "stderr": r["stderr"] if j["verdict"] == "ERROR" else ""}
                            rec.update(j)
                            trials.append(rec)
                            print("[%d/%d] %s %s %s trial %d: %s%s, %.1f s%s" % (
                                done, total, mode, load, CASES[case][0], i, j["verdict"],
                                " (mix detected)" if j["detected"] else "", r["wall_s"],
                                "; false claims: " + ", ".join(j["false_claims"])
                                if j["false_claims"] else ""), file=sys.stderr, flush=True)
                    stop_hogs(hogs)
        except (KeyboardInterrupt, Stop) as e:
            stopped = str(e) or "interrupt"
        finally:
            stop_hogs(hogs)
            if a.out:
                doc = {"tool": "benchmarks/compare_power/compare_power.py",
                       "started_unix": started, "cpus": ncpu, "hogs": a.hogs,
                       "libbench": a.libbench, "knob": a.knob, "runs": a.runs,
                       "runs_trials": [a.runs_aa, a.runs_slow],
                       "compare_args": a.compare_arg, "same_detect": a.same_detect, "bench_args": a.bench_arg,
                       "complete": done == total, "stopped": stopped, "trials": trials}
                tmp_out = a.out + ".tmp"
                with open(tmp_out, "w", encoding="utf-8") as f:
                    json.dump(doc, f, indent=1)
                    f.write("\n")
                os.replace(tmp_out, a.out)
    table, statuses = report(a, trials)
    if stopped:
        print("compare_power: stopped (%s) after %d of %d comparisons; the hogs were killed; "
              "the table holds the comparisons done" % (stopped, done, total))
    print("compare_power: %d comparisons on %s CPUs, %d hogs beside the loaded ones; "
          "run-level --runs=%s; trials A/A %d, slowdowns %d (run-level: %d, %d); %s%s" % (
              len(trials), ncpu, a.hogs, a.runs or "(default)", a.trials, a.trials_slow,
              a.runs_aa, a.runs_slow,
              "--detect: the tool's default" if not a.detect_per_case
              else "--detect: the A/A at the tool's default, a slowdown of N% at max(3, N)",
              " (--quick: smoke figures, not a measurement)" if a.quick else ""))
    print()
    print(table)
    print()
    print("Goals are judged on the paired mode (the default); floors are the cells' `floor` of "
          "`compare --json` (paired: max(1%, |A/A shift|); run-level: max(3%, the A/A 95% CI's "
          "extent)); the A/A CI extent is max(|aa_ci_lo|, |aa_ci_hi|) at each mode's own level.")
    if stopped:
        return 2
    if any(s == "MISSED" for s in statuses):
        return 1
    if any(s != "MET" for s in statuses) or not statuses:
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (KeyboardInterrupt, Stop) as e:
        print("compare_power: stopped (%s); the hogs were killed" % (e or "interrupt"),
              file=sys.stderr)
        sys.exit(2)
