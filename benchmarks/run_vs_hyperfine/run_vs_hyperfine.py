#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_vs_hyperfine.py: runs `libbench run`, `hyperfine -N` and spawn_floor on one program
# (default /bin/true), interleaved over several rounds, and prints the ratio of the medians per
# round and overall, each harness's MAD and min, the floor, and the load of other processes.
"""Compare `libbench run` with hyperfine on the cost of one whole-process sample.

Each round runs three suites, one after the other, never two at once:

  libbench:  libbench run --runs N --json FILE -- PROG [ARGS...]
  hyperfine: hyperfine -N --runs N --export-json FILE -- PROG [ARGS...]   (the command as one
             argument; -N: no shell, the program is spawned directly)
  floor:     spawn_floor --samples N --tsv -- PROG [ARGS...]

in the order libbench, hyperfine, floor on odd rounds and floor, hyperfine, libbench on even
ones, so neither harness always runs first and the floor alternates between the ends.

One sample is, in all three, the wall time of one process from just before it is spawned until
it has been reaped (see README.md for how each harness takes it). All statistics are over the
samples: median (even n: mean of the middle two), MAD (median absolute deviation from the
median) and min; no mean. "all rounds" pools every round's samples.

Exit status: 0 the goal is met (libbench's median / hyperfine's median <= 1.0 over all rounds),
1 it is missed, 2 something could not be measured (a tool missing or failing).
"""

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

GOAL = 1.0  # libbench run's median / hyperfine's median, over all rounds
BUSY_NOTE = 0.2  # other processes' CPUs during a suite above which the report says so
# The spawn_floor method that spawns and reaps as libbench run does (tools/common/spawn.c).
LIBBENCH_MECHANISM = "posix_spawn + wait4"
HARNESSES = ("libbench", "hyperfine", "floor")
DASH = "\u2014"


class Unmeasured(Exception):
    """A suite that produced no numbers; the message says why."""


# ---- statistics ------------------------------------------------------------------------------


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return math.nan
    return float(v[n // 2]) if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def mad(values):
    m = median(values)
    return median([abs(x - m) for x in values])


def summary(samples):
    """median, MAD and min (ns) of a list of samples; NaN for each when there are none."""
    if not samples:
        return {"n": 0, "median": math.nan, "mad": math.nan, "min": math.nan}
    return {"n": len(samples), "median": median(samples), "mad": mad(samples),
            "min": float(min(samples))}


def ratio(a, b):
    if a is None or b is None or math.isnan(a) or math.isnan(b) or not b > 0:
        return math.nan
    return a / b


# ---- the load of other processes -------------------------------------------------------------
# The anchor's method (benchmarks/anchor/compare.py): the machine's busy CPU time from
# /proc/stat over a suite, less the CPU time of this script and the processes it reaped (the
# suite, and the children the suite reaped), divided by the suite's wall time.


def machine_busy_seconds():
    """CPU seconds the whole machine has spent not idle (Linux /proc/stat), or None."""
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
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def run_suite(cmd):
    """Runs one suite; returns (completed process, wall seconds, other processes' CPUs)."""
    busy0, own0 = machine_busy_seconds(), own_cpu_seconds()
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    except OSError as e:
        raise Unmeasured("cannot run %s: %s" % (cmd[0], e.strerror))
    wall = time.monotonic() - t0
    busy1, own1 = machine_busy_seconds(), own_cpu_seconds()
    other = math.nan
    if busy0 is not None and busy1 is not None and wall > 0:
        other = max(0.0, (busy1 - busy0) - (own1 - own0)) / wall
    return proc, wall, other


def failure(cmd, proc):
    tail = proc.stderr.decode(errors="replace").strip().splitlines()[-5:]
    return "%s exited with status %d%s" % (
        " ".join(cmd), proc.returncode, "".join("\n    " + line for line in tail))


def read_json(path, cmd, proc):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise Unmeasured("%s wrote no %s" % (" ".join(cmd), path))
    except (OSError, ValueError) as e:
        raise Unmeasured("%s: unreadable JSON: %s" % (path, e))


# ---- the three suites: each returns a list of samples in integer ns ----------------------------


def libbench_samples(doc):
    """The per-run samples (ns) of the one row of a `libbench run --json` document."""
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or len(rows) != 1 or not isinstance(rows[0], dict):
        raise Unmeasured("libbench run --json: expected one row, found %r" % (rows,))
    row = rows[0]
    if row.get("error"):
        raise Unmeasured("libbench run: the row failed: %s" % row["error"])
    runs = row.get("runs")
    if not isinstance(runs, list) or not runs:
        raise Unmeasured("libbench run --json: the row has no per-run samples")
    samples = []
    for run in runs:
        ns = run.get("wallNs") if isinstance(run, dict) else None
        if isinstance(ns, float) and ns.is_integer():
            ns = int(ns)
        if isinstance(ns, bool) or not isinstance(ns, int) or ns < 0:
            raise Unmeasured("libbench run --json: a run without an integer wallNs: %r" % (run,))
        samples.append(ns)
    return samples


def run_libbench(args, prog, tmp):
    out = os.path.join(tmp, "libbench.json")
    if os.path.exists(out):
        os.unlink(out)
    cmd = [args.libbench, "run", "--runs", str(args.runs)]
    if args.warmup:
        cmd += ["--warmup", str(args.warmup)]
    cmd += ["--json", out, "--"] + prog
    proc, wall, other = run_suite(cmd)
    if proc.returncode != 0:
        raise Unmeasured(failure(cmd, proc))
    samples = libbench_samples(read_json(out, cmd, proc))
    return {"samples": samples, "wall_s": wall, "other_cpus": other}


def hyperfine_samples(doc):
    """hyperfine --export-json: results[0].times is every run's wall time in seconds."""
    results = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(results, list) or len(results) != 1:
        raise Unmeasured("hyperfine --export-json: expected one result, found %r" % (results,))
    times = results[0].get("times")
    codes = results[0].get("exit_codes") or []
    if not isinstance(times, list) or not times:
        raise Unmeasured("hyperfine --export-json: no per-run times")
    if any(c != 0 for c in codes):
        raise Unmeasured("hyperfine: a run exited with status %r" % [c for c in codes if c][0])
    # Seconds as a binary double: 1e-9 s is far above its resolution at these magnitudes, so
    # rounding to the nearest ns gives back hyperfine's own integer nanoseconds.
    return [int(round(t * 1e9)) for t in times]


def run_hyperfine(args, prog, tmp):
    out = os.path.join(tmp, "hyperfine.json")
    if os.path.exists(out):
        os.unlink(out)
    # hyperfine -N splits its one command argument into words itself (no shell).
    cmd = [args.hyperfine, "-N", "--runs", str(args.runs), "--warmup", str(args.warmup),
           "--style", "none", "--export-json", out, " ".join(prog)]
    proc, wall, other = run_suite(cmd)
    if proc.returncode != 0:
        raise Unmeasured(failure(cmd, proc))
    samples = hyperfine_samples(read_json(out, cmd, proc))
    return {"samples": samples, "wall_s": wall, "other_cpus": other}


def floor_samples(text):
    """spawn_floor --tsv: {method: [ns, ...]} of the methods that ran, {method: reason} of those
    that did not."""
    lines = text.splitlines()
    if not lines or lines[0] != "method\tsample_ns\terror":
        raise Unmeasured("spawn_floor --tsv: unexpected header %r" % (lines[:1],))
    by_method, failed = {}, {}
    for line in lines[1:]:
        fields = line.split("\t")
        if len(fields) != 3:
            raise Unmeasured("spawn_floor --tsv: bad line %r" % line)
        name, ns, error = fields
        if error:
            failed[name] = error
        else:
            by_method.setdefault(name, []).append(int(ns))
    return by_method, failed


def run_floor(args, prog, tmp):
    cmd = [args.floor, "--samples", str(args.floor_samples), "--tsv", "--"] + prog
    proc, wall, other = run_suite(cmd)
    if proc.returncode != 0:
        raise Unmeasured(failure(cmd, proc))
    by_method, failed = floor_samples(proc.stdout.decode())
    cheapest = min(by_method, key=lambda m: median(by_method[m]))
    return {"samples": by_method[cheapest], "method": cheapest, "methods": by_method,
            "failed": failed, "wall_s": wall, "other_cpus": other}


RUNNERS = {"libbench": run_libbench, "hyperfine": run_hyperfine, "floor": run_floor}


# ---- the report ------------------------------------------------------------------------------


def us(ns):
    return DASH if ns is None or math.isnan(ns) else "%.1f" % (ns / 1e3)


def fixed(x, digits=3):
    return DASH if x is None or math.isnan(x) else "%.*f" % (digits, x)


def load(x):
    return DASH if x is None or math.isnan(x) else "%.2f" % x


def version_of(cmd):
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=10).stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.splitlines()[0] if out else None


def find_tools(args):
    """Resolves the three programs; a missing one is reported now and measured as nothing."""
    missing = {}
    if args.hyperfine is None:
        args.hyperfine = shutil.which("hyperfine")
    if args.hyperfine is None or not os.access(args.hyperfine, os.X_OK):
        missing["hyperfine"] = ("hyperfine not found (Debian: apt-get install hyperfine; or "
                                "--hyperfine PATH): nothing to compare libbench run with")
    if not os.access(args.libbench, os.X_OK):
        missing["libbench"] = ("%s not found: build the project (meson compile -C build) or "
                               "pass --libbench PATH" % args.libbench)
    if not os.access(args.floor, os.X_OK):
        missing["floor"] = ("%s not found: it is built with the project "
                            "(benchmarks/run_vs_hyperfine/meson.build), or pass --floor PATH"
                            % args.floor)
    for reason in missing.values():
        print("run_vs_hyperfine: " + reason, file=sys.stderr)
    return missing


def gap(delta_ns):
    """A difference of medians in words: "12.3 µs above" or "4.5 µs below"."""
    return "%s \u00b5s %s" % (us(abs(delta_ns)), "below" if delta_ns < 0 else "above")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--libbench", default="build/tools/libbench", help="the libbench command")
    ap.add_argument("--hyperfine", default=None, help="hyperfine (default: from PATH)")
    ap.add_argument("--floor", default="build/benchmarks/run_vs_hyperfine/spawn_floor",
                    help="the spawn_floor program")
    ap.add_argument("--runs", type=int, default=300, help="runs per harness per round")
    ap.add_argument("--floor-samples", type=int, default=None,
                    help="samples per spawn method per round (default: --runs)")
    ap.add_argument("--rounds", type=int, default=10, help="rounds (default 10)")
    ap.add_argument("--warmup", type=int, default=0,
                    help="untimed runs before each harness's timed ones (both harnesses)")
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    ap.add_argument("prog", nargs="*", default=["/bin/true"],
                    help="the program and its arguments (default /bin/true; after --)")
    args = ap.parse_args()
    if args.runs < 2 or args.rounds < 1 or args.warmup < 0:
        ap.error("--runs must be at least 2, --rounds at least 1, --warmup at least 0")
    if args.floor_samples is None:
        args.floor_samples = args.runs
    prog = args.prog
    if any(c.isspace() for word in prog for c in word):
        ap.error("a program or argument with white space cannot be passed to hyperfine -N "
                 "unchanged")

    missing = find_tools(args)
    ncpu = os.cpu_count() or 1
    rounds = []
    with tempfile.TemporaryDirectory(prefix="run_vs_hyperfine.") as tmp:
        for r in range(args.rounds):
            order = HARNESSES if r % 2 == 0 else tuple(reversed(HARNESSES))
            rnd = {"order": list(order)}
            for h in order:
                if h in missing:
                    rnd[h] = {"error": missing[h]}
                    continue
                try:
                    rnd[h] = RUNNERS[h](args, prog, tmp)
                except Unmeasured as e:
                    rnd[h] = {"error": str(e)}
                    print("run_vs_hyperfine: round %d, %s: %s" % (r + 1, h, e), file=sys.stderr)
            rounds.append(rnd)

    # Statistics per round and over all rounds (pooled samples).
    for rnd in rounds:
        for h in HARNESSES:
            rnd[h]["stats"] = summary(rnd[h].get("samples", []))
    pooled = {h: [] for h in HARNESSES}
    for rnd in rounds:
        for h in ("libbench", "hyperfine"):
            pooled[h] += rnd[h].get("samples", [])
    methods = {}
    failed_methods = {}
    for rnd in rounds:
        for name, samples in rnd["floor"].get("methods", {}).items():
            methods.setdefault(name, []).extend(samples)
        failed_methods.update(rnd["floor"].get("failed", {}))
    cheapest = min(methods, key=lambda m: median(methods[m])) if methods else None
    pooled["floor"] = methods.get(cheapest, [])
    overall = {h: summary(pooled[h]) for h in HARNESSES}

    def other_load(h):
        walls = [rnd[h]["wall_s"] for rnd in rounds if "wall_s" in rnd[h]]
        cpus = [rnd[h]["other_cpus"] * rnd[h]["wall_s"] for rnd in rounds
                if "wall_s" in rnd[h] and not math.isnan(rnd[h]["other_cpus"])]
        return sum(cpus) / sum(walls) if walls and len(cpus) == len(walls) else math.nan

    # ---- print ----
    lb_version = version_of([args.libbench, "--version"]) if "libbench" not in missing else None
    hf_version = version_of([args.hyperfine, "--version"]) if "hyperfine" not in missing else None
    print("run_vs_hyperfine: %s; %d rounds x %d runs per harness (warm-up %d), floor %d samples "
          "per method per round; %s; %s; %d CPUs"
          % (" ".join(prog), args.rounds, args.runs, args.warmup, args.floor_samples,
             lb_version or "libbench " + DASH, hf_version or "hyperfine " + DASH, ncpu))
    print("one sample: the wall time of one process from just before its spawn until it was "
          "reaped; times in \u00b5s; other load: CPUs kept busy by other processes during the suite")
    print()
    # Right-aligned columns; every time in µs with one decimal.
    row_fmt = "%-5s %-15s | %9s %7s %9s | %9s %7s %9s | %9s | %7s %8s | %5s %5s %5s"
    head = row_fmt % ("round", "order", "median", "MAD", "min", "median", "MAD", "min", "median",
                      "lb/hf", "lb/floor", "lb", "hf", "floor")
    groups = ["", "libbench run", "hyperfine", "floor", "ratio of medians", "other load"]
    top = " | ".join(g.center(len(seg)) for g, seg in zip(groups, head.split(" | ")))
    print(top.rstrip())
    print(head)
    print("-" * len(head))
    short = {"libbench": "lb", "hyperfine": "hf", "floor": "floor"}

    def line(label, order, st, loads):
        lb, hf, fl = st["libbench"], st["hyperfine"], st["floor"]
        print(row_fmt % (label, order, us(lb["median"]), us(lb["mad"]), us(lb["min"]),
                         us(hf["median"]), us(hf["mad"]), us(hf["min"]), us(fl["median"]),
                         fixed(ratio(lb["median"], hf["median"])),
                         fixed(ratio(lb["median"], fl["median"])),
                         *(load(x) for x in loads)))

    for i, rnd in enumerate(rounds):
        line(str(i + 1), " ".join(short[h] for h in rnd["order"]),
             {h: rnd[h]["stats"] for h in HARNESSES},
             [rnd[h].get("other_cpus") for h in HARNESSES])
    print("-" * len(head))
    line("all", "(pooled)", overall, [other_load(h) for h in HARNESSES])

    print()
    print("floor: spawn_floor's methods, all rounds pooled (\u00b5s)")
    for name in sorted(methods, key=lambda m: median(methods[m])):
        st = summary(methods[name])
        print("  %-50s median %9s  MAD %7s  min %9s%s"
              % (name, us(st["median"]), us(st["mad"]), us(st["min"]),
                 "   <- the floor" if name == cheapest else ""))
    for name, reason in sorted(failed_methods.items()):
        print("  %-50s not measured: %s" % (name, reason))

    busiest = max((rnd[h].get("other_cpus", math.nan) for rnd in rounds for h in HARNESSES
                   if not math.isnan(rnd[h].get("other_cpus", math.nan))), default=math.nan)
    if busiest > BUSY_NOTE:
        print()
        print("note: other processes kept up to %.2f CPUs busy during a suite; that moves every "
              "number here (run it on an idle machine)" % busiest)

    errors = ["%s: %s" % (h, missing[h]) for h in HARNESSES if h in missing]
    for i, rnd in enumerate(rounds):
        for h in HARNESSES:
            if "error" in rnd[h] and h not in missing:
                errors.append("round %d, %s: %s" % (i + 1, h, rnd[h]["error"]))
    if errors:
        print()
        print("not measured:")
        for e in errors:
            print("  " + e)

    lb, hf, fl = (overall[h]["median"] for h in HARNESSES)
    r_hf, r_fl = ratio(lb, hf), ratio(lb, fl)
    print()
    if math.isnan(r_hf):
        print("goal libbench run / hyperfine <= %.1f: NOT MEASURED" % GOAL)
    else:
        print("goal libbench run / hyperfine <= %.1f: %s (%.3f: libbench run's median %s \u00b5s, "
              "hyperfine's %s \u00b5s)" % (GOAL, "MET" if r_hf <= GOAL else "MISSED", r_hf, us(lb),
                                      us(hf)))
    if math.isnan(r_fl):
        print("libbench run against the floor: NOT MEASURED")
    else:
        print("libbench run against the floor: %.3f x the floor (%s %s \u00b5s, the median "
              "of %s)" % (r_fl, gap(lb - fl), us(fl), cheapest))
    bare = summary(methods.get(LIBBENCH_MECHANISM, []))["median"]
    if not math.isnan(lb) and not math.isnan(bare):
        print("libbench run against its own way of spawning, bare (%s): %.3f x (%s)"
              % (LIBBENCH_MECHANISM, ratio(lb, bare), gap(lb - bare)))
    if not math.isnan(hf) and not math.isnan(fl):
        print("hyperfine against the floor: %.3f x the floor (%s)"
              % (ratio(hf, fl), gap(hf - fl)))

    if args.json:
        doc = {
            "program": prog, "runs": args.runs, "rounds": args.rounds, "warmup": args.warmup,
            "floorSamples": args.floor_samples, "cpus": ncpu,
            "libbenchVersion": lb_version, "hyperfineVersion": hf_version,
            "goal": GOAL,
            "ratioToHyperfine": None if math.isnan(r_hf) else r_hf,
            "ratioToFloor": None if math.isnan(r_fl) else r_fl,
            "ratioToOwnMechanism": None if math.isnan(ratio(lb, bare)) else ratio(lb, bare),
            "floorMethod": cheapest,
            "overall": {h: {k: (None if isinstance(v, float) and math.isnan(v) else v)
                            for k, v in overall[h].items()} for h in HARNESSES},
            "otherLoad": {h: (None if math.isnan(other_load(h)) else other_load(h))
                          for h in HARNESSES},
            "floorMethods": {m: summary(s) for m, s in methods.items()},
            "floorMethodsFailed": failed_methods,
            "rounds": [{"order": rnd["order"],
                        **{h: {"samplesNs": rnd[h].get("samples"),
                               "error": rnd[h].get("error"),
                               "wallS": rnd[h].get("wall_s"),
                               "otherCpus": (None if math.isnan(rnd[h].get("other_cpus",
                                                                           math.nan))
                                             else rnd[h]["other_cpus"])}
                           for h in HARNESSES}} for rnd in rounds],
            "errors": errors,
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")

    if errors or math.isnan(r_hf):
        return 2
    return 0 if r_hf <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
