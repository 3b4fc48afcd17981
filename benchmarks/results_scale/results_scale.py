#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# results_scale.py: how the readers and writers of the results store scale. Generates documents of
# N rows (--bench-json schema 2 as the library writes it, `libbench run --json` schema 1, and one
# with a distinct label key per row), then times each command of the `libbench` tool on them in a
# process of its own under /usr/bin/time (wall seconds and maximum resident set size) and prints
# one table. Not a test: `meson test` never runs it (docs/explanation/performance.md, "The
# results store at scale"; figures in benchmarks/results_scale/README.md).
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def bench_doc(n, path):
    """A --bench-json document of n rows shaped as the library writes them (indented by 2)."""
    rows = []
    for i in range(n):
        failed = i % 97 == 0
        rows.append({
            "name": f"suite.case{i // 50}",
            "labels": {"size": str(1 << (i % 20)), "impl": ("fast", "slow", "ref")[i % 3],
                       "n": str(i % 50)},
            "iterations": None if failed else 1024,
            "samples": None if failed else 32,
            "medianNs": None if failed else 100.0 + (i * 7919) % 1000 / 7.0,
            "deviationNs": None if failed else 1.25,
            "minNs": None if failed else 98.5,
            "maxNs": None if failed else 412.0,
            "metrics": {} if failed else {"items/s": 1.0e7 + i, "depth": i % 9,
                                          "user.cycles": None},
            "contention": None if failed else 0.01,
            "error": "result mismatch" if failed else "",
        })
    doc = {"schema": 2,
           "meta": {"date": "2026-12-01", "hostname": "scale", "os": "linux", "arch": "x86_64",
                    "compiler": "GCC 12.2.0", "cpu": "cpu", "minSampleTimeMs": 1,
                    "sampleCount": 32, "provenance": ["allocator=libc"]},
           "columns": [{"name": k, "header": k, "format": "count", "class": "quantitative",
                        "source": "client"} for k in ("items/s", "depth", "user.cycles")],
           "rows": rows}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)


def run_doc(n, path):
    """A `libbench run --json` document of n commands, 3 runs each, shaped as `libbench run`
    writes them (one command in 50 failed in its second run)."""
    keys = ("user-ns", "sys-ns", "max-rss-bytes", "minflt", "majflt", "inblock", "oublock",
            "vol-cs", "invol-cs")
    rows = []
    for i in range(n):
        failed = i % 50 == 0
        runs = [] if failed else [
            {"run": r, "wallNs": 1.0e6 + i + r, "rusage": {k: 1000 * r + j for j, k in
                                                             enumerate(keys)}}
            for r in (1, 2, 3)]
        summary = None if failed else {k: {"median": 2000, "deviation": 1, "min": 1000,
                                           "max": 3000} for k in keys}
        rows.append({"name": f"cmd{i}", "labels": {}, "iterations": None if failed else 1,
                     "samples": None if failed else 3,
                     "medianNs": None if failed else 1.0e6 + i, "deviationNs": None,
                     "minNs": None, "maxNs": None,
                     "metrics": {} if failed else {k: 2000 for k in keys},
                     "error": "run 2 exited with status 3" if failed else "", "kind": "command",
                     "command": f"./prog --case {i}", "argv": ["./prog", "--case", str(i)],
                     "prepare": None, "completedRuns": 1 if failed else 3,
                     "failure": {"run": 2, "warmup": False, "prepare": False, "exitStatus": 3,
                                 "signal": None, "timedOut": False, "cannotStart": None,
                                 "stderrTail": None} if failed else None,
                     "regime": None, "rusage": summary, "runs": runs})
    doc = {"tool": "libbench run", "schema": 1, "version": "0.3.0",
           "meta": {"date": "2026-12-01", "hostname": "scale", "os": "linux", "arch": "x86_64",
                    "cpu": "cpu", "runs": 3, "warmup": 0},
           "columns": [], "rows": rows}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)


def labels_doc(n, path):
    """n rows, each with a label key of its own: n distinct label keys."""
    rows = [{"name": "r", "labels": {f"key{i}": "v"}, "iterations": 1, "samples": 1,
             "medianNs": 1.0, "deviationNs": None, "minNs": 1.0, "maxNs": 1.0, "metrics": {},
             "contention": None, "error": ""} for i in range(n)]
    doc = {"schema": 2, "meta": {"hostname": "scale"}, "columns": [], "rows": rows}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def timed(argv, timeout, stdout=subprocess.DEVNULL):
    """(seconds, max RSS in MB, exit status) of one run, or None on the timeout."""
    fmt = "RESULTS_SCALE %e %M"
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        start = time.monotonic()
        try:
            p = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", fmt] + argv,
                               stdout=stdout, stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        wall = time.monotonic() - start
        fields = [ln for ln in open(t.name).read().splitlines() if ln.startswith("RESULTS_SCALE")]
        if not fields:
            return wall, float("nan"), p.returncode, p.stderr.decode(errors="replace")
        _, sec, kib = fields[-1].split()
        return float(sec), int(kib) / 1024.0, p.returncode, p.stderr.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", default="build/tools/libbench", help="the libbench program")
    ap.add_argument("--rows", type=int, default=250000, help="rows per document")
    ap.add_argument("--label-rows", type=int, default=20000,
                    help="rows of the document with a label key per row")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per command")
    ap.add_argument("--work", help="keep the documents and the store here (default: a temporary "
                    "directory, removed)")
    ap.add_argument("--only", help="comma-separated command names to run")
    a = ap.parse_args()
    tool = os.path.abspath(a.tool)
    work = a.work or tempfile.mkdtemp(prefix="results-scale-")
    os.makedirs(work, exist_ok=True)
    try:
        bench, run, labels = (os.path.join(work, f) for f in ("bench.json", "run.json",
                                                               "labels.json"))
        t0 = time.monotonic()
        if not os.path.exists(bench):
            bench_doc(a.rows, bench)
            run_doc(a.rows // 10, run)
            labels_doc(a.label_rows, labels)
        print(f"documents: bench.json {a.rows} rows, {os.path.getsize(bench) >> 20} MiB; run.json "
              f"{a.rows // 10} commands of 3 runs, {os.path.getsize(run) >> 20} MiB; labels.json {a.label_rows} rows, "
              f"{a.label_rows} distinct label keys, {os.path.getsize(labels) >> 10} KiB "
              f"({time.monotonic() - t0:.1f} s)", flush=True)
        store = os.path.join(work, "store")
        shutil.rmtree(store, ignore_errors=True)
        report_json = os.path.join(work, "report.json")
        steps = [
            ("record bench", [tool, "record", "--results", store, "--timestamp",
                              "2026-12-01T00:00:00Z", "--source-revision", "", bench]),
            ("record bench again", [tool, "record", "--results", store, "--timestamp",
                                    "2026-12-02T00:00:00Z", "--source-revision", "", bench]),
            ("record run", [tool, "record", "--results", store, "--timestamp",
                            "2026-12-03T00:00:00Z", "--source-revision", "", run]),
            ("report", [tool, "report", "--results", store]),
            ("report --json", [tool, "report", "--results", store, "--json", report_json]),
            ("results rebuild", [tool, "results", "rebuild", "--results", store]),
            ("export csv bench", [tool, "export", "--format=csv", bench]),
            ("export markdown bench", [tool, "export", "--format=markdown", bench]),
            ("export csv run", [tool, "export", "--format=csv", run]),
            ("export csv labels", [tool, "export", "--format=csv", labels]),
        ]
        only = set(a.only.split(",")) if a.only else None
        print(f"{'command':<24} {'seconds':>8} {'max RSS':>10}  exit")
        for name, argv in steps:
            if only and name not in only:
                continue
            got = timed(argv, a.timeout)
            if got is None:
                print(f"{name:<24} {'> ' + str(int(a.timeout)):>8} {'?':>10}  killed at the "
                      "timeout", flush=True)
                continue
            sec, mb, rc, err = got
            last = err.strip().splitlines()[-1][:100] if rc not in (0,) and err.strip() else ""
            print(f"{name:<24} {sec:>8.2f} {mb:>7.0f} MB  {rc} {last}", flush=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
