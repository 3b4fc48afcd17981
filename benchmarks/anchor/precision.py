#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# precision.py: the --bench-precision goal of issue 26 (point 6): libbench at --bench-precision=P
# against nanobench (suite wall time) and Google Benchmark (medians) on the six anchor kernels.
"""libbench --bench-precision against nanobench and Google Benchmark on the anchor kernels.

Runs, --runs times in turn: the libbench driver with --bench --bench-precision=P, the nanobench
driver (nanobench's defaults: 11 epochs), and the gbench driver (10 repetitions, as compare.py).
Times each suite's wall clock. Two targets, the issue's:

  1. libbench's suite wall time at P (the median over runs) <= 3 x nanobench's;
  2. each deterministic kernel's fastest-run median at P within +-3% of gbench's fastest run.

Exit status: 0 both PASS, 1 a target MISSes, 2 a run failed or a driver is missing.
"""

import argparse
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare as anchor  # noqa: E402  (the drivers' runners and formatting, one copy)

WALL_LIMIT = 3.0


def nanobench_run(binary):
    wall, proc = anchor.run_timed([binary])
    kernels = {}
    for line in proc.stdout.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in anchor.KERNELS:
            kernels[parts[0]] = {"median_ns": float(parts[1]), "dispersion": math.nan,
                                 "iterations": None, "samples": int(parts[2]), "error": ""}
    missing = [k for k in anchor.KERNELS if k not in kernels]
    if missing:
        raise anchor.RunError("%s printed no line for: %s" % (binary, ", ".join(missing)))
    return wall, kernels


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="suite runs per harness (default 5)")
    ap.add_argument("--precision", default="1", help="libbench's --bench-precision (default 1)")
    ap.add_argument("--libbench", default="build/benchmarks/anchor/anchor_libbench")
    ap.add_argument("--gbench", default="build/benchmarks/anchor/anchor_gbench")
    ap.add_argument("--nanobench", default="build/benchmarks/anchor/anchor_nanobench",
                    help="the nanobench driver (built with -Dnanobench=DIR)")
    ap.add_argument("--libbench-args", default="", metavar="ARGS",
                    help="more libbench options, space-separated")
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    a = ap.parse_args(argv)
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    for what, path in (("libbench", a.libbench), ("gbench", a.gbench),
                       ("nanobench", a.nanobench)):
        if not os.access(path, os.X_OK):
            print("precision.py: the %s driver is not built: %s%s" % (
                what, path, " (meson configure BUILD -Dnanobench=DIR, DIR holding nanobench.h)"
                if what == "nanobench" else ""), file=sys.stderr)
            return 2
    lb_args = ["--bench-precision=" + a.precision] + a.libbench_args.split()
    runs = {"libbench": [], "nanobench": [], "gbench": []}
    walls = {"libbench": [], "nanobench": [], "gbench": []}
    foreign = {"libbench": [], "nanobench": [], "gbench": []}
    try:
        with tempfile.TemporaryDirectory(prefix="precision-") as tmp:
            for i in range(a.runs):
                for h in ("libbench", "nanobench", "gbench"):
                    if h == "libbench":
                        w, k, _ = anchor.libbench_run(a.libbench,
                                                      os.path.join(tmp, "lb%d.json" % i), lb_args)
                    elif h == "nanobench":
                        w, k = nanobench_run(a.nanobench)
                    else:
                        w, k, _ = anchor.gbench_run(a.gbench, os.path.join(tmp, "gb%d.json" % i))
                    runs[h].append(k)
                    walls[h].append(w)
                    foreign[h].append(anchor.FOREIGN[-1])
                print("run %d/%d: libbench %.3f s, nanobench %.3f s, gbench %.2f s; other "
                      "processes busy %.2f / %.2f / %.2f CPUs" % (
                          i + 1, a.runs, walls["libbench"][-1], walls["nanobench"][-1],
                          walls["gbench"][-1], foreign["libbench"][-1],
                          foreign["nanobench"][-1], foreign["gbench"][-1]), file=sys.stderr)
    except (anchor.RunError, OSError) as e:
        print("precision.py: %s" % e, file=sys.stderr)
        return 2

    s = {h: anchor.summarize(runs[h]) for h in runs}
    med_wall = {h: anchor.median(walls[h]) for h in walls}
    wall_ratio = anchor.relative(med_wall["libbench"], med_wall["nanobench"])
    header = ["kernel", "lb samples", "lb ns", "nb ns", "gb ns", "lb fastest", "gb fastest",
              "lb/gb fastest"]
    rows = []
    off = {}
    for k in anchor.KERNELS:
        samples = [x for x in s["libbench"][k]["samples"] if x is not None]
        f = anchor.relative(s["libbench"][k]["fastest_ns"], s["gbench"][k]["fastest_ns"])
        off[k] = f - 1.0
        rows.append([k, "%s" % anchor.median(samples) if samples else "—",
                     anchor.fmt_ns(s["libbench"][k]["median_ns"]),
                     anchor.fmt_ns(s["nanobench"][k]["median_ns"]),
                     anchor.fmt_ns(s["gbench"][k]["median_ns"]),
                     anchor.fmt_ns(s["libbench"][k]["fastest_ns"]),
                     anchor.fmt_ns(s["gbench"][k]["fastest_ns"]), anchor.fmt_ratio(f)])
    print("%d runs per harness; libbench: --bench %s; nanobench: its defaults; gbench: %d "
          "repetitions, %s; ns are medians over runs" % (
              a.runs, " ".join(lb_args), anchor.GBENCH_REPETITIONS, anchor.GBENCH_TIME_FIELD))
    print("other processes kept %s / %s / %s CPUs busy during the libbench / nanobench / gbench "
          "runs (of %d)" % (anchor.fmt_cpus(foreign["libbench"]),
                            anchor.fmt_cpus(foreign["nanobench"]),
                            anchor.fmt_cpus(foreign["gbench"]), os.cpu_count() or 0))
    print()
    print(anchor.render(header, rows, [False] + [True] * 7))
    print()
    print(anchor.render(["suite wall time", "median", "min", "max"],
                        [[h, "%.3f s" % med_wall[h], "%.3f s" % min(walls[h]),
                          "%.3f s" % max(walls[h])] for h in ("libbench", "nanobench", "gbench")]
                        + [["libbench/nanobench", anchor.fmt_ratio(wall_ratio), "", ""]],
                        [False, True, True, True]))
    print()
    outside = [k for k in anchor.AGREEMENT_KERNELS if not abs(off[k]) <= anchor.MEDIAN_TOLERANCE]
    worst = max(anchor.AGREEMENT_KERNELS,
                key=lambda k: abs(off[k]) if not math.isnan(off[k]) else math.inf)
    targets = [
        {"name": "wall_vs_nanobench", "pass": wall_ratio <= WALL_LIMIT,
         "text": "libbench suite wall time at --bench-precision=%s <= 3 x nanobench's" % a.precision,
         "detail": "ratio %s (%.3f s vs %.3f s)" % (anchor.fmt_ratio(wall_ratio),
                                                   med_wall["libbench"], med_wall["nanobench"])},
        {"name": "medians_within_3pct", "pass": not outside,
         "text": "each deterministic kernel's fastest-run median at --bench-precision=%s within "
                 "±3%% of gbench's" % a.precision,
         "detail": "worst %s %s%s" % (worst, anchor.fmt_off(off[worst]),
                                      ("; outside: " + ", ".join(
                                          "%s %s" % (k, anchor.fmt_off(off[k]))
                                          for k in outside)) if outside else "")},
    ]
    for t in targets:
        print("%s  %s: %s" % ("PASS" if t["pass"] else "MISS", t["text"], t["detail"]))
    if a.json:
        doc = {"settings": {"runs": a.runs, "libbench_args": lb_args,
                            "foreign_cpus": foreign},
               "kernels": {h: s[h] for h in s}, "wall_s": walls,
               "wall_ratio": wall_ratio,
               "targets": [{"name": t["name"], "pass": t["pass"], "detail": t["detail"]}
                           for t in targets]}
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(anchor.clean(doc), f, indent=2, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    return 0 if all(t["pass"] for t in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
