#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# benchmarks/callgrind_gate/run.py: the goals of --instr=callgrind (issue 27), measured on this
# machine in one run (README.md has the figures):
#   determinism  every example row counted in two invocations (each counts twice under Valgrind):
#                the largest relative difference of Ir/iter between invocations and within one
#   gate         TRIALS compares `--metric=instructions --runs 3` of e2e_callgrind against a
#                candidate with 0.5% more instructions (50 nops on 10000), and TRIALS A/A
#                compares: how many claim, and their exit statuses
#   cost         the wall time of examples/quickstart --bench with and without --instr=callgrind,
#                of every example with it, and the slowdown of one run under Valgrind against
#                the same run natively
# usage: run.py BUILD_DIR [TRIALS]      (a release build: meson setup BUILD; ninja -C BUILD)
import json
import os
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
TRIALS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
TOOL = os.path.join(BUILD, "tools", "libbench")
SUBJECT = os.path.join(BUILD, "tests", "e2e", "e2e_callgrind")
EXAMPLES = ["quickstart", "matrix", "workload_knob"]
PINNED = ["--perf-iters=10", "--perf-batch=10", "--bench-min-time=1", "--bench-precision=100"]


def wall(argv, **env):
    e = dict(os.environ, **env)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
    return time.monotonic() - t0, p


def rows_of(binary, *extra):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.json")
        seconds, p = wall([binary, "--bench", "--instr=callgrind", f"--bench-json={path}"] +
                          list(extra))
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    return seconds, {r["name"] + json.dumps(r["labels"], sort_keys=True): r["metrics"]
                     for r in doc["rows"] if not r["error"]}


def determinism():
    print("== determinism: Ir/iter of every example row, two invocations")
    worst_between = worst_within = 0.0
    n_rows = 0
    for ex in EXAMPLES:
        binary = os.path.join(BUILD, "examples", ex)
        _, a = rows_of(binary)
        _, b = rows_of(binary)
        for key, m in a.items():
            x, y = m.get("instructions"), b.get(key, {}).get("instructions")
            if x is None or y is None:
                print(f"  {ex} {key}: not counted ({x}, {y})")
                continue
            n_rows += 1
            worst_between = max(worst_between, abs(x - y) / x)
            for s in (m.get("instructions-spread"), b[key].get("instructions-spread")):
                worst_within = max(worst_within, (s or 0) / x)
    print(f"  {n_rows} rows: largest difference between invocations {worst_between * 100:.4f}%,"
          f" within one (Ir-spread) {worst_within * 100:.4f}%")


def gate():
    print(f"== gate: {TRIALS} trials each, compare --metric=instructions --runs 3")
    with tempfile.TemporaryDirectory() as d:
        cand = os.path.join(d, "candidate.sh")
        with open(cand, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\nE2E_CG_EXTRA=50 exec '{os.path.abspath(SUBJECT)}' \"$@\"\n")
        os.chmod(cand, 0o755)
        for name, candidate in (("0.5% more instructions", cand), ("A/A", SUBJECT)):
            claims, exits, seconds = 0, {}, []
            for t in range(TRIALS):
                out = os.path.join(d, "cmp.json")
                s, p = wall([TOOL, "compare", "--metric=instructions", "--runs", "3",
                             "--seed", str(t), "--json", out, SUBJECT, candidate, "--",
                             "--instr=callgrind", "-i", "env_work"])
                seconds.append(s)
                with open(out, encoding="utf-8") as f:
                    cell = json.load(f)["cells"][0]
                claims += cell["state"] == "CLAIMED"
                exits[p.returncode] = exits.get(p.returncode, 0) + 1
            seconds.sort()
            print(f"  {name}: claimed in {claims} of {TRIALS}; exit statuses {exits}; "
                  f"{seconds[len(seconds) // 2]:.1f} s per compare (median)")


def cost():
    print("== cost")
    q = os.path.join(BUILD, "examples", "quickstart")
    for label, extra in (("without", []), ("with --instr=callgrind", ["--instr=callgrind"])):
        times = sorted(wall([q, "--bench"] + extra)[0] for _ in range(3))
        print(f"  quickstart --bench {label}: {times[1]:.2f} s wall (median of 3)")
    total = 0.0
    for ex in EXAMPLES + ["capabilities"]:
        s, _ = wall([os.path.join(BUILD, "examples", ex), "--bench", "--instr=callgrind"])
        total += s
        print(f"  {ex} --bench --instr=callgrind: {s:.2f} s")
    print(f"  every example with --instr=callgrind: {total:.1f} s")
    native = sorted(wall([q, "--bench"] + PINNED)[0] for _ in range(3))[1]
    under = sorted(wall(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                         "--callgrind-out-file=/dev/null", q, "--bench"] + PINNED)[0]
                   for _ in range(3))[1]
    print(f"  one run with the pinned schedule: {native:.2f} s natively, {under:.2f} s under "
          f"valgrind --tool=callgrind: {under / native:.1f}x")


if __name__ == "__main__":
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    determinism()
    gate()
    cost()
