#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# compare.py: runs the anchor comparison (libbench vs Google Benchmark on the same six kernels),
# prints the per-kernel table, the suite wall times and one PASS/MISS line per target.
"""Compare libbench with Google Benchmark 1.7.1 on the six anchor kernels.

Runs each harness's binary --runs times, alternating (libbench, gbench, libbench, ...), times
each suite's wall clock, and reads each run's JSON output:

  libbench: --bench --bench-json=FILE           (schema 2: rows[].medianNs, .deviationNs)
  gbench:   --benchmark_repetitions=10 ... --benchmark_out=FILE --benchmark_out_format=json

gbench's per-repetition time is `real_time` (wall clock), not `cpu_time`: libbench times its
samples with CLOCK_MONOTONIC, a wall clock, so real_time is the like-for-like number. (For
these single-threaded kernels the two differ only by time the process was descheduled.)

A kernel a harness reports as an error row (libbench refuses a loop that reached 2^40
iterations, i.e. one the compiler deleted) is "not measured" in that run: its cells print "—",
the note under the table quotes the harness, and a target that needs the number is a MISS.

Exit status: 0 all targets PASS, 1 some target MISSes, 2 a run failed or its output was unusable.
"""

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

KERNELS = ["empty", "add_chain_1000", "div_chain_64", "memcpy_4k", "fnv1a_1k", "qsort_1000"]
WORK_KERNELS = KERNELS[1:]  # "empty" has its own target (≤ gbench)
# The ±3% agreement target: the deterministic kernels, each harness's fastest run (the minimum
# over runs of its median: a slow phase of the host only ever adds time). qsort_1000 is reported,
# not gated: its cost depends on the heap layout of the process.
AGREEMENT_KERNELS = ["add_chain_1000", "div_chain_64", "memcpy_4k", "fnv1a_1k"]
GBENCH_REPETITIONS = 10
GBENCH_TIME_FIELD = "real_time"
MEDIAN_TOLERANCE = 0.03
WALL_RATIO_LIMIT = 0.1
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


class RunError(Exception):
    pass


# ---- statistics ------------------------------------------------------------------------------


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return math.nan
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def mad(values):
    m = median(values)
    return median([abs(x - m) for x in values])


def relative(numerator, denominator):
    """numerator/denominator, or NaN when that is not a number (zero or NaN denominator)."""
    if denominator is None or numerator is None:
        return math.nan
    if not (denominator > 0) or math.isnan(numerator):
        return math.nan
    return numerator / denominator


def spread(values):
    """Run-to-run spread: max/min - 1 (0 for one run, NaN if min is not positive)."""
    if not values:
        return math.nan
    return relative(max(values), min(values)) - 1.0


# ---- the two harnesses -----------------------------------------------------------------------


def busy_cpu_seconds():
    """CPU time the whole machine has spent not idle, in seconds (Linux /proc/stat), or None."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
    return busy / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds():
    """CPU time of this script and the suites it ran, in seconds."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


FOREIGN = []  # per suite run: CPUs' worth of other processes' work while it ran


def run_timed(cmd, ok_status=(0,)):
    busy0, own0 = busy_cpu_seconds(), own_cpu_seconds()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    busy1, own1 = busy_cpu_seconds(), own_cpu_seconds()
    if busy0 is not None and busy1 is not None and wall > 0:
        FOREIGN.append(max(0.0, (busy1 - busy0) - (own1 - own0)) / wall)
    else:
        FOREIGN.append(math.nan)
    if proc.returncode not in ok_status:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise RunError("%s exited with status %d\n  %s"
                       % (" ".join(cmd), proc.returncode, "\n  ".join(tail)))
    return wall, proc


def load_json(path, cmd, proc):
    if not os.path.exists(path):
        err = proc.stderr.decode(errors="replace").strip()
        raise RunError("%s wrote no JSON file %s%s"
                       % (" ".join(cmd), path, ("\n  stderr: " + err) if err else ""))
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise RunError("%s: unreadable JSON: %s" % (path, e))


def unmeasured(error):
    return {"median_ns": math.nan, "dispersion": math.nan, "iterations": None,
            "samples": None, "error": error}


def libbench_run(binary, out, extra):
    cmd = [binary, "--bench", "--bench-json=" + out] + extra
    wall, proc = run_timed(cmd, ok_status=(0, 1))  # 1: some row is an error row
    doc = load_json(out, cmd, proc)
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not isinstance(rows, list):
        raise RunError("%s: no top-level \"rows\" array" % out)
    kernels = {}
    for row in rows:
        _, _, bench = str(row.get("name", "")).partition(".")
        if bench not in KERNELS:
            continue
        if row.get("error"):
            kernels[bench] = unmeasured(str(row["error"]))
            continue
        med = row.get("medianNs")
        dev = row.get("deviationNs")
        if not isinstance(med, (int, float)):
            raise RunError("libbench row %s has no medianNs" % row.get("name"))
        kernels[bench] = {
            "median_ns": float(med),
            "dispersion": relative(dev, med),
            "iterations": row.get("iterations"),
            "samples": row.get("samples"),
            "error": "",
        }
    missing = [k for k in KERNELS if k not in kernels]
    if missing:
        raise RunError("libbench JSON %s lacks rows for: %s" % (out, ", ".join(missing)))
    return wall, kernels, {"schema": doc.get("schema")}


def gbench_run(binary, out):
    cmd = [binary, "--benchmark_repetitions=%d" % GBENCH_REPETITIONS,
           "--benchmark_report_aggregates_only=false", "--benchmark_format=json",
           "--benchmark_out=" + out, "--benchmark_out_format=json"]
    wall, proc = run_timed(cmd)
    doc = load_json(out, cmd, proc)
    reps = {}
    iterations = {}
    errors = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue  # the mean/median/stddev/cv aggregates: recomputed from the repetitions
        name = b.get("run_name", b.get("name"))
        if name not in KERNELS:
            continue
        if b.get("error_occurred"):
            errors[name] = str(b.get("error_message", "error"))
            continue
        unit = UNIT_NS.get(b.get("time_unit", "ns"))
        if unit is None:
            raise RunError("gbench %s: unknown time_unit %r" % (name, b.get("time_unit")))
        reps.setdefault(name, []).append(float(b[GBENCH_TIME_FIELD]) * unit)
        iterations[name] = b.get("iterations")
    kernels = {}
    for name in KERNELS:
        times = reps.get(name)
        if name in errors:
            kernels[name] = unmeasured(errors[name])
            continue
        if not times:
            raise RunError("gbench JSON %s lacks repetitions for %s" % (out, name))
        med = median(times)
        kernels[name] = {
            "median_ns": med,
            "dispersion": relative(mad(times), med),
            "iterations": iterations[name],
            "samples": len(times),
            "error": "",
        }
    context = doc.get("context", {})
    return wall, kernels, {"library_build_type": context.get("library_build_type")}


# ---- formatting ------------------------------------------------------------------------------


def fmt_ns(x):
    if x is None or math.isnan(x):
        return "—"
    if x != 0 and abs(x) < 0.01:
        return "%.2e" % x
    if abs(x) < 100:
        return "%.3f" % x
    return "%.1f" % x


def fmt_ratio(x):
    if x is None or math.isnan(x) or math.isinf(x):
        return "—"
    if x != 0 and (abs(x) < 0.001 or abs(x) >= 1e6):
        return "%.2e" % x
    return "%.4f" % x


def fmt_pct(x):
    if x is None or math.isnan(x) or math.isinf(x):
        return "—"
    return "%.2f%%" % (100.0 * x)


def fmt_cpus(values):
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return "—"
    return "%.2f (max %.2f)" % (sum(finite) / len(finite), max(finite))


def render(header, rows, right):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    lines = []
    for r in [header] + rows:
        cells = [str(c).rjust(w) if right[i] else str(c).ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
        if r is header:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def clean(x):
    """JSON-safe: NaN and infinities become null, floats keep full precision."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return None
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x


# ---- the comparison --------------------------------------------------------------------------


def summarize(runs):
    """Per kernel across runs: median of the run medians, median of the run dispersions,
    run-to-run spread of the medians. Runs that did not measure the kernel are left out of
    the medians; the spread needs every run."""
    out = {}
    for k in KERNELS:
        medians = [r[k]["median_ns"] for r in runs]
        dispersions = [r[k]["dispersion"] for r in runs]
        measured = [m for m in medians if not math.isnan(m)]
        finite = [d for d in dispersions if not math.isnan(d)]
        errors = sorted({r[k]["error"] for r in runs if r[k]["error"]})
        out[k] = {
            "median_ns": median(measured),
            "fastest_ns": min(measured) if measured else math.nan,
            "dispersion": median(finite) if finite else math.nan,
            "spread": spread(medians) if len(measured) == len(medians) else math.nan,
            "measured_runs": len(measured),
            "errors": errors,
            "run_medians_ns": medians,
            "run_dispersions": dispersions,
            "iterations": [r[k]["iterations"] for r in runs],
            "samples": [r[k]["samples"] for r in runs],
        }
    return out


def fmt_off(x):
    return "not measured" if math.isnan(x) else "%+.2f%%" % (100.0 * x)


def evaluate(lb, gb, ratios, fastest, wall_ratio, runs):
    targets = []

    e_lb, e_gb = lb["empty"]["median_ns"], gb["empty"]["median_ns"]
    if math.isnan(e_lb) or math.isnan(e_gb):
        detail = "not measured (%s)" % "; ".join(
            "%s: %s" % (h, "; ".join(s["empty"]["errors"]) or "no number")
            for h, s in (("libbench", lb), ("gbench", gb)) if math.isnan(s["empty"]["median_ns"]))
    else:
        detail = "%s ns vs %s ns (ratio %s)" % (fmt_ns(e_lb), fmt_ns(e_gb),
                                               fmt_ratio(ratios["empty"]))
    targets.append({
        "name": "empty_cost",
        "text": "libbench empty-body cost per iteration <= gbench's",
        "pass": e_lb <= e_gb,
        "detail": detail,
    })

    off = {k: fastest[k] - 1.0 for k in AGREEMENT_KERNELS}
    worst = max(AGREEMENT_KERNELS,
                key=lambda k: abs(off[k]) if not math.isnan(off[k]) else math.inf)
    outside = [k for k in AGREEMENT_KERNELS if not abs(off[k]) <= MEDIAN_TOLERANCE]
    targets.append({
        "name": "medians_within_3pct",
        "text": "each deterministic kernel's fastest-run median within ±3% of gbench's "
                "(qsort_1000 reported, not gated)",
        "pass": not outside,
        "detail": "worst %s %s%s" % (worst, fmt_off(off[worst]),
                                     ("; outside: " + ", ".join(
                                         "%s %s" % (k, fmt_off(off[k]))
                                         for k in outside)) if outside else ""),
    })

    targets.append({
        "name": "wall_time",
        "text": "libbench suite wall time <= 0.1 x gbench (--benchmark_repetitions=10)",
        "pass": wall_ratio <= WALL_RATIO_LIMIT,
        "detail": "ratio %s" % fmt_ratio(wall_ratio),
    })

    worse = [k for k in KERNELS if not lb[k]["spread"] <= gb[k]["spread"]]
    targets.append({
        "name": "run_to_run_spread",
        "text": "run-to-run spread of each kernel's median over %d runs <= gbench's" % runs,
        "pass": not worse,
        "detail": ("worse or not measured: " + ", ".join(
            "%s %s vs %s" % (k, fmt_pct(lb[k]["spread"]), fmt_pct(gb[k]["spread"]))
            for k in worse)) if worse else
                  "all %d kernels" % len(KERNELS),
    })
    return targets


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="suite runs per harness (default 3)")
    ap.add_argument("--libbench", default="build/benchmarks/anchor/anchor_libbench",
                    help="the libbench driver binary")
    ap.add_argument("--gbench", default="build/benchmarks/anchor/anchor_gbench",
                    help="the Google Benchmark driver binary")
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON to OUT")
    ap.add_argument("--libbench-args", default="", metavar="ARGS",
                    help="more libbench options, space-separated (e.g. --bench-rounds=8)")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")

    lb_runs, gb_runs, lb_wall, gb_wall = [], [], [], []
    lb_meta, gb_meta = {}, {}
    load_before = list(os.getloadavg())
    try:
        with tempfile.TemporaryDirectory(prefix="anchor-") as tmp:
            for i in range(args.runs):
                w, k, lb_meta = libbench_run(args.libbench, os.path.join(tmp, "lb%d.json" % i),
                                             args.libbench_args.split())
                lb_runs.append(k)
                lb_wall.append(w)
                w, k, gb_meta = gbench_run(args.gbench, os.path.join(tmp, "gb%d.json" % i))
                gb_runs.append(k)
                gb_wall.append(w)
                print("run %d/%d: libbench %.2f s, gbench %.2f s; other processes busy "
                      "%.2f / %.2f CPUs" % (i + 1, args.runs, lb_wall[-1], gb_wall[-1],
                                            FOREIGN[-2], FOREIGN[-1]), file=sys.stderr)
    except (RunError, OSError) as e:
        print("compare.py: %s" % e, file=sys.stderr)
        return 2

    load_after = list(os.getloadavg())
    lb, gb = summarize(lb_runs), summarize(gb_runs)
    ratios = {k: relative(lb[k]["median_ns"], gb[k]["median_ns"]) for k in KERNELS}
    fastest = {k: relative(lb[k]["fastest_ns"], gb[k]["fastest_ns"]) for k in KERNELS}
    wall = {"libbench": median(lb_wall), "gbench": median(gb_wall)}
    wall_ratio = relative(wall["libbench"], wall["gbench"])

    header = ["kernel", "libbench ns", "gbench ns", "ratio", "lb fastest", "gb fastest",
              "ratio", "lb MAD/med", "gb MAD/med", "lb spread", "gb spread"]
    rows = [[k, fmt_ns(lb[k]["median_ns"]), fmt_ns(gb[k]["median_ns"]), fmt_ratio(ratios[k]),
             fmt_ns(lb[k]["fastest_ns"]), fmt_ns(gb[k]["fastest_ns"]), fmt_ratio(fastest[k]),
             fmt_pct(lb[k]["dispersion"]), fmt_pct(gb[k]["dispersion"]),
             fmt_pct(lb[k]["spread"]), fmt_pct(gb[k]["spread"])] for k in KERNELS]
    print("%d suite runs per harness; libbench: --bench %s; gbench: %d repetitions, %s; medians"
          " are the median over runs" % (args.runs, args.libbench_args or "(defaults)",
                                         GBENCH_REPETITIONS, GBENCH_TIME_FIELD))
    lb_foreign, gb_foreign = FOREIGN[0::2], FOREIGN[1::2]
    print("other processes kept %s CPUs busy during the libbench runs, %s during the gbench"
          " runs (of %d; anything above 0 skews the numbers below)"
          % (fmt_cpus(lb_foreign), fmt_cpus(gb_foreign), os.cpu_count() or 0))
    print()
    print(render(header, rows, [False] + [True] * 10))
    for harness, summary in (("libbench", lb), ("gbench", gb)):
        for k in KERNELS:
            for e in summary[k]["errors"]:
                print("  — %s %s not measured in %d of %d runs: %s"
                      % (harness, k, args.runs - summary[k]["measured_runs"], args.runs, e))
    print()
    print(render(["suite wall time", "median", "min", "max"],
                 [["libbench", "%.3f s" % wall["libbench"], "%.3f s" % min(lb_wall),
                   "%.3f s" % max(lb_wall)],
                  ["gbench", "%.3f s" % wall["gbench"], "%.3f s" % min(gb_wall),
                   "%.3f s" % max(gb_wall)],
                  ["libbench/gbench", fmt_ratio(wall_ratio), "", ""]],
                 [False, True, True, True]))
    print()
    targets = evaluate(lb, gb, ratios, fastest, wall_ratio, args.runs)
    for t in targets:
        print("%s  %s: %s" % ("PASS" if t["pass"] else "MISS", t["text"], t["detail"]))

    if args.json:
        doc = {
            "settings": {
                "runs": args.runs,
                "libbench": args.libbench,
                "libbench_args": args.libbench_args.split(),
                "gbench": args.gbench,
                "gbench_repetitions": GBENCH_REPETITIONS,
                "gbench_time_field": GBENCH_TIME_FIELD,
                "gbench_library_build_type": gb_meta.get("library_build_type"),
                "libbench_schema": lb_meta.get("schema"),
                "load_average_before": load_before,
                "load_average_after": load_after,
                "foreign_cpus_libbench_runs": FOREIGN[0::2],
                "foreign_cpus_gbench_runs": FOREIGN[1::2],
            },
            "kernels": [{"name": k, "ratio": ratios[k], "fastest_ratio": fastest[k],
                         "libbench": lb[k], "gbench": gb[k]} for k in KERNELS],
            "wall_s": {"libbench": wall["libbench"], "gbench": wall["gbench"],
                       "ratio": wall_ratio, "libbench_runs": lb_wall, "gbench_runs": gb_wall},
            "targets": [{"name": t["name"], "pass": t["pass"], "detail": t["detail"]}
                        for t in targets],
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(clean(doc), f, indent=2, sort_keys=True, ensure_ascii=False)
            f.write("\n")
    return 0 if all(t["pass"] for t in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
