#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_callgrind.py: end-to-end checks of the "callgrind" source (--instr=callgrind) on a real test
# binary (callgrind.c): a body of 1000 nops reads exactly 1000 Ir/iter more than an empty body
# (the loop's own fixed cost, docs/reference/metrics.md), a window of 1000 nops 1000 more than an
# empty window, two runs give the same counts and no
# spread, a body that calls exit() is an error row as without Valgrind, every absence has its
# reason and null values (never 0), and compare --metric=instructions: an A/A with floor 0 that
# passes, 1% more work a claimed regression with exit 1.
# A sanitizer build (E2E_SANITIZE) or a portable one (E2E_PLATFORM=posix) checks its absence
# instead; a machine without valgrind skips (exit 77) every case that needs it.
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN = os.environ.get("E2E_CALLGRIND", "")
LIBBENCH = os.environ.get("E2E_LIBBENCH", "")
SANITIZE = os.environ.get("E2E_SANITIZE", "none")
SANITIZED = SANITIZE not in ("", "none")
PORTABLE = os.environ.get("E2E_PLATFORM", "linux") != "linux"
HEADERS = os.environ.get("E2E_VALGRIND_HEADERS", "1") == "1"
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "reference",
                      "bench-json.schema.json")
COLUMNS = ("instructions", "instructions-spread")
# The loop's own fixed cost per iteration and a bench_case call's (docs/reference/metrics.md,
# "callgrind"): what an empty body reads, bounded here so that a harness that grew shows up.
LOOP_COST_MAX = 20
CALL_COST_MAX = 60

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(argv, path=None, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "LD_PRELOAD")}
    if path is not None:
        env["PATH"] = path
    env.update(extra)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=env, timeout=280)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def bench(*args, path=None, instr=True, **extra):
    """--bench (--instr=callgrind) with a JSON document: (status, stdout, stderr, rows by name)."""
    with tempfile.TemporaryDirectory() as d:
        doc_path = os.path.join(d, "doc.json")
        rc, out, err = run([BIN, "--bench", "--bench-min-time=1"] +
                           (["--instr=callgrind"] if instr else []) +
                           [f"--bench-json={doc_path}"] + list(args), path=path, **extra)
        rows = {}
        if os.path.exists(doc_path):
            with open(doc_path, encoding="utf-8") as f:
                doc = json.load(f)
            rows = {r["name"]: r for r in doc.get("rows", [])}
            cols = {c["name"]: c for c in doc.get("columns", [])}
            for name in COLUMNS:
                if name in cols:
                    check(cols[name].get("source") == "callgrind",
                          f"column {name} names its source: {cols[name]}")
            v = subprocess.run([sys.executable, os.path.join(os.path.dirname(
                os.path.abspath(__file__)), "check_json_schema.py"), SCHEMA, doc_path],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            check(v.returncode in (0, 77), "schema validation: " + v.stdout.decode())
        return rc, out, err, rows


def ir(row):
    return (row or {}).get("metrics", {}).get("instructions")


def absence_expected(path=None):
    """The reason the source is absent in this build with this PATH, or None where it can count.
    The probe's order: the platform, then valgrind on PATH, then the headers, then the rest."""
    if PORTABLE:
        return "the runs under Valgrind read /proc/self/exe"
    if not shutil.which("valgrind", path=path):
        return "valgrind is not on PATH"
    if not HEADERS:
        return "not built with valgrind headers"
    if SANITIZED:
        return "build: its runtime and Valgrind cannot share one process"
    return None


def expect_absent(rc, err, rows, reason, what):
    check(f"--instr: counting unavailable ({reason}" in err or reason in err,
          f"{what}: the reason '{reason}' is not on stderr:\n{err}")
    for name, r in rows.items():
        for m in COLUMNS:
            check(r.get("metrics", {}).get(m) is None,
                  f"{what}: {name} {m} = {r.get('metrics', {}).get(m)!r} while absent (never 0)")


def need_valgrind():
    if not shutil.which("valgrind") and not PORTABLE:
        print("skipped: valgrind is not installed (apt-get install valgrind); e2e/callgrind_absent "
              "checks the absence")
        sys.exit(77)
    reason = absence_expected()
    if reason:
        rc, out, err, rows = bench("-i", "nops_1000")
        expect_absent(rc, err, rows, reason, "absent in this build")
        check(rc == 0, f"an absent source fails the run: {rc}\n{err}")
        return False
    return True


def case_known():
    """1000 nops read 1000 Ir/iter over the empty body's, exactly; the empty body's and a
    bench_case call's fixed costs stay small; no estimate mark anywhere."""
    if not need_valgrind():
        return
    rc, out, err, rows = bench("-i", "nops_1000|empty_body|per_call")
    print(out)
    nops, empty = ir(rows.get("callgrind.nops_1000")), ir(rows.get("callgrind.empty_body"))
    call = ir(rows.get("callgrind.nops_100"))
    check(rc == 0 and "--instr: callgrind counted under Valgrind in 2 runs" in err,
          f"run: {rc}\n{err}")
    # exactly 1000 apart with gcc; the compiler may shape the two loops a little differently
    # (clang 14: 1000.10, one instruction more per 10-iteration pass)
    check(nops is not None and empty is not None and abs(nops - empty - 1000) <= 0.5,
          f"1000 nops read {nops} Ir/iter, the empty body {empty}: not 1000 apart")
    check(empty is not None and 0 < empty <= LOOP_COST_MAX,
          f"the loop's own fixed cost {empty} Ir/iter is outside (0, {LOOP_COST_MAX}]")
    check(call is not None and 100 < call <= 100 + CALL_COST_MAX,
          f"a bench_case call of 100 nops reads {call} Ir (fixed cost bound {CALL_COST_MAX})")
    check("≈" not in out and "Ir/iter" in out, f"the table marks an exact count:\n{out}")


def case_determinism():
    """Two runs: every row's count the same, and each run's two counts agree (spread 0)."""
    if not need_valgrind():
        return
    first = bench("-i", "nops_1000|empty_body|per_call|env_work")[3]
    second = bench("-i", "nops_1000|empty_body|per_call|env_work")[3]
    check(len(first) == 4, f"rows: {sorted(first)}")
    for name, r in first.items():
        m = r.get("metrics", {})
        check(m.get("instructions-spread") == 0, f"{name}: spread {m.get('instructions-spread')}")
        check(ir(r) is not None and ir(r) == ir(second.get(name)),
              f"{name}: {ir(r)} then {ir(second.get(name))} Ir/iter")


def case_exit():
    """A body that calls exit() is an error row with the same reason as without Valgrind; the
    other rows keep their counts."""
    if not need_valgrind():
        return
    rc, out, err, rows = bench("-i", "exits|nops_1000")
    rc0, out0, err0, rows0 = bench("-i", "exits|nops_1000", instr=False)
    exits, exits0 = rows.get("callgrind.exits", {}), rows0.get("callgrind.exits", {})
    check(exits.get("error", "").startswith("exited with status 3") and
          exits.get("error") == exits0.get("error") and rc == rc0,
          f"exits: {exits.get('error')!r}, status {rc}; without --instr {exits0.get('error')!r}, "
          f"status {rc0}")
    check(ir(exits) is None, f"the error row has a count: {ir(exits)}")
    check(ir(rows.get("callgrind.nops_1000")) is not None, "nops_1000 lost its count")


def case_absent():
    """Without valgrind on PATH: the reason, null values, and the run otherwise the same."""
    reason = absence_expected(path="/nonexistent")
    rc, out, err, rows = bench("-i", "nops_1000", path="/nonexistent")
    expect_absent(rc, err, rows, reason, "no valgrind on PATH")
    check(rc == 0 and "callgrind.nops_1000" in rows and rows["callgrind.nops_1000"]["medianNs"],
          f"the run failed or lost its time: {rc}\n{err}")
    rc, out, err = run([BIN, "--list-metrics"], path="/nonexistent")
    check(f"callgrind ✗ counting — {reason}" in out or reason in out,
          f"--list-metrics: the reason is missing:\n{out}")
    rc, out, err = run([BIN, "--bench", "--instr=perf"])
    check(rc == 2 and "'perf' is not an instruction counter" in err, f"--instr=perf: {rc}\n{err}")


def case_cache():
    """--instr=callgrind:cache: the cache simulation's L1 and LL misses per iteration and the
    estimated cycles Ir + 10 L1 + 100 LL, that one an estimate (estimatedMetrics, ≈ in the
    table) and the counts not; without :cache none of those columns exists."""
    if not need_valgrind():
        return
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.json")
        rc, out, err = run([BIN, "--bench", "--bench-min-time=1", "--instr=callgrind:cache",
                            f"--bench-json={path}", "-i", "nops_1000|env_work"])
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    print(out)
    names = [c["name"] for c in doc["columns"]]
    check(rc == 0 and names[-5:] == ["instructions", "instructions-spread", "l1-misses",
                                     "ll-misses", "est-cycles"], f"columns {names}: {rc}\n{err}")
    for r in doc["rows"]:
        m = r["metrics"]
        check(all(isinstance(m.get(k), (int, float)) for k in
                  ("instructions", "l1-misses", "ll-misses", "est-cycles")), f"{r['name']}: {m}")
        if isinstance(m.get("est-cycles"), (int, float)):
            check(abs(m["est-cycles"] - (m["instructions"] + 10 * m["l1-misses"] +
                                         100 * m["ll-misses"])) < 1e-6,
                  f"{r['name']}: est-cycles is not Ir + 10 L1 + 100 LL: {m}")
        check(r.get("estimatedMetrics") == ["est-cycles"],
              f"{r['name']}: estimatedMetrics {r.get('estimatedMetrics')}")
    check("≈" in out and "est-cycles/iter" in out and "L1-miss/iter" in out, f"table\n{out}")
    rows = bench("-i", "nops_1000")[3]
    check(all("l1-misses" not in r["metrics"] for r in rows.values()), f"without :cache: {rows}")


def case_windows():
    """Workload windows: the window of 1000 nops reads exactly 1000 Ir more than the empty one
    (the edges' fixed cost), both with a spread of 0; with :cache the window object lists its
    estimate."""
    if not need_valgrind():
        return
    for backend in ("callgrind", "callgrind:cache"):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "doc.json")
            rc, out, err = run([BIN, "--bench", f"--instr={backend}", f"--bench-json={path}",
                                "-i", "windows"])
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        print(out)
        wins = {w["name"]: w.get("callgrind", {}) for w in doc.get("windows", [])}
        nops, empty = wins.get("callgrind.windows/nops_1000", {}), wins.get(
            "callgrind.windows/empty", {})
        check(rc == 0 and isinstance(nops.get("instructions"), (int, float)) and
              isinstance(empty.get("instructions"), (int, float)) and
              nops["instructions"] - empty["instructions"] == 1000,
              f"{backend}: windows {wins}: {rc}\n{err}")
        check(nops.get("instructions-spread") == 0 and empty.get("instructions-spread") == 0,
              f"{backend}: spreads {wins}")
        if backend.endswith(":cache"):
            check(nops.get("estimated") == ["est-cycles"] and
                  isinstance(nops.get("l1-misses"), (int, float)), f"{backend}: {nops}")
        else:
            check("estimated" not in nops and "l1-misses" not in nops, f"{backend}: {nops}")


def case_compare():
    """compare --metric=instructions, one comparison of two rows: env_work with 1% more work in
    the candidate (100 nops on 10000) is a CLAIMED regression whose CI excludes 0, with exit 1;
    nops_1000, the same in both, is NO_CHANGE with a floor of exactly 0 (the A/A control, the
    baseline run again, reads the baseline's count). benchmarks/callgrind_gate runs the A/A
    comparisons and the 0.5% trials."""
    if not LIBBENCH:
        print("skipped: no libbench tool")
        sys.exit(77)
    if not need_valgrind():
        return
    args = ["--", "--bench-min-time=1", "--instr=callgrind", "-i", "env_work|nops_1000"]
    with tempfile.TemporaryDirectory() as d:
        cand = os.path.join(d, "candidate.sh")
        with open(cand, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\nE2E_CG_EXTRA=100 exec '{BIN}' \"$@\"\n")
        os.chmod(cand, 0o755)
        out_json = os.path.join(d, "cmp.json")
        rc, out, err = run([LIBBENCH, "compare", "--metric=instructions", "--runs", "3",
                            "--json", out_json, BIN, cand] + args)
        print(out)
        with open(out_json, encoding="utf-8") as fh:
            doc = json.load(fh)
        cells = {c["name"]: c for c in doc["cells"]}
        check(doc["params"]["metric"] == "instructions" and doc["params"]["metric_exact"] is True
              and "A/A floor 0 (an exact count);" in out, f"header\n{out}")
        work, same = cells.get("callgrind.env_work", {}), cells.get("callgrind.nops_1000", {})
        lo, hi = work.get("ci_lo"), work.get("ci_hi")
        check(rc == 1 and doc["verdict"] == "REGRESSION" and work.get("state") == "CLAIMED" and
              work.get("direction") == "regression" and work.get("rel_delta") is not None and
              0.009 < work["rel_delta"] < 0.011, f"env_work: {rc} {doc['verdict']} {work}\n{err}")
        check(lo is None or lo > 0, f"env_work: the CI [{lo}, {hi}] includes 0")
        check(same.get("state") == "NO_CHANGE" and same.get("floor") == 0 and
              same.get("median_baseline_ns") == same.get("median_aa_ns") ==
              same.get("median_candidate_ns"), f"nops_1000: {same}")


CASES = {"known": case_known, "cache": case_cache, "windows": case_windows, "determinism": case_determinism, "exit": case_exit,
         "absent": case_absent, "compare": case_compare}

if __name__ == "__main__":
    if not BIN or len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print("usage: run_callgrind.py " + "|".join(CASES) + " (with E2E_CALLGRIND set)")
        sys.exit(2)
    CASES[sys.argv[1]]()
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)
