#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# test_mode.py: generates N trivial tests and N printing tests as libbench and as cmocka
# programs, builds them, and times test mode (each --isolate mode, each job count) against the
# host's fork floor and cmocka, over several interleaved rounds; prints the medians and ratios.
"""Measure what test mode costs per test, against the host's floor and cmocka.

Generated (in --workdir, default a temporary directory):

  trivial.c   N tests  BENCH_TEST(tI) { g += I; BENCH_CHECK(g >= 0); }    (libbench + shim)
  printing.c  N tests  the same, each also printing one line with printf
  cmocka_trivial.c, cmocka_printing.c: the same bodies as cmocka tests in one cmocka_run_group_tests

Each round runs, one after another, never two at once: fork_floor (the host's bare fork + _exit
+ waitpid and vfork, medians of --floor-samples), then every libbench program under every
isolation mode the library accepts and every job count, then the cmocka programs. Standard output
goes to a pipe read to its end (as under CI or `meson test`), standard error too. A run is timed
from just before it is spawned until it has been reaped (so it includes the program's exec and
dynamic linking, a few hundred microseconds once per run); per test is that time / N.

Every figure printed is the median over the rounds (statistics.median). No mean.

Exit status: 0 every run passed and was measured, 2 something could not be built or a run failed.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
MODES = ("test", "worker")  # --isolate values tried; the ones the library accepts are measured
GOAL_FLOOR = 1.5  # per-test-process mode, -j 1: per test / fork floor, at most
GOAL_SCALING = 1.8  # per-test-process mode: throughput with -j 2 / with -j 1, at least
GOAL_CMOCKA = 4.0  # worker mode: time / cmocka's time, at most


def generate(workdir, n):
    bodies = {
        "trivial": "g += {i}; ",
        "printing": 'g += {i}; printf("test {i} prints a line\\n"); ',
    }
    for kind, body in bodies.items():
        with open(os.path.join(workdir, kind + ".c"), "w") as f:
            f.write("#include <stdio.h>\n#include <bench/shim.h>\nstatic volatile long g;\n")
            for i in range(n):
                f.write("BENCH_TEST(t%d) { %sBENCH_CHECK(g >= 0); }\n" % (i, body.format(i=i)))
            f.write("BENCH_MAIN()\n")
        with open(os.path.join(workdir, "cmocka_" + kind + ".c"), "w") as f:
            f.write(
                "#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n"
                "#include <setjmp.h>\n#include <stdio.h>\n#include <cmocka.h>\n"
                "static volatile long g;\n"
            )
            for i in range(n):
                f.write(
                    "static void t%d(void **state) { (void)state; %sassert_true(g >= 0); }\n"
                    % (i, body.format(i=i))
                )
            f.write("int main(void)\n{\n    const struct CMUnitTest tests[] = {\n")
            for i in range(n):
                f.write("        cmocka_unit_test(t%d),\n" % i)
            f.write("    };\n    return cmocka_run_group_tests(tests, NULL, NULL);\n}\n")


def build(args, workdir):
    build_dir = os.path.abspath(args.build)
    lib_dir = os.path.join(build_dir, "lib")
    if not os.path.exists(os.path.join(lib_dir, "libbench.so")):
        sys.exit("test_mode: no %s/libbench.so (build the project first, or --build DIR)" % lib_dir)
    common = [args.cc, "-std=gnu11", "-O2", "-w"]
    for kind in ("trivial", "printing"):
        src = os.path.join(workdir, kind + ".c")
        cmd = common + [
            "-I" + os.path.join(SOURCE_ROOT, "include"),
            "-I" + os.path.join(build_dir, "include"),
            "-I" + os.path.join(SOURCE_ROOT, "shim"),
            src, "-o", os.path.join(workdir, kind),
            "-L" + lib_dir, "-Wl,-rpath," + lib_dir, "-lbench",
        ]
        subprocess.run(cmd, check=True)
        src = os.path.join(workdir, "cmocka_" + kind + ".c")
        subprocess.run(common + [src, "-o", os.path.join(workdir, "cmocka_" + kind), "-lcmocka"],
                       check=True)
    floor = os.path.join(build_dir, "benchmarks", "test_mode", "fork_floor")
    if not os.path.exists(floor):  # a build without benchmarks: compile it here
        floor = os.path.join(workdir, "fork_floor")
        subprocess.run(common + [os.path.join(HERE, "fork_floor.c"), "-o", floor], check=True)
    return floor


def busy_seconds():
    """CPU time all CPUs have spent busy since boot (/proc/stat), in s; None without it."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal: busy is all but idle and iowait; steal is
    # time the hypervisor gave to another guest, which this run did not get either
    v = [int(x) for x in fields[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def timed_run(cmd):
    """(wall time in ns from before the spawn until reaped, CPUs that other processes kept busy
    meanwhile) of one run; None if it failed."""
    b0 = busy_seconds()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic_ns()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out, _ = proc.communicate()
    t1 = time.monotonic_ns()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    b1 = busy_seconds()
    if proc.returncode != 0:
        sys.stderr.write("test_mode: %s exited with %d:\n%s\n" % (
            " ".join(cmd), proc.returncode, out.decode(errors="replace")[-2000:]))
        return None
    other = None
    if b0 is not None and b1 is not None:
        ours = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        other = max(0.0, (b1 - b0) - ours) / ((t1 - t0) / 1e9)
    return t1 - t0, other


def accepted_modes(workdir):
    prog = os.path.join(workdir, "trivial")
    modes = []
    for mode in MODES:
        r = subprocess.run([prog, "--isolate=" + mode, "-i", "^trivial\\.t0$"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            modes.append(mode)
    return modes


def fmt_us(ns):
    return "%.1f µs" % (ns / 1000.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="the project's build directory (default build)")
    ap.add_argument("--tests", type=int, default=2000, help="tests per program (default 2000)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--jobs", default="1,2", help="job counts, comma-separated (default 1,2)")
    ap.add_argument("--floor-samples", type=int, default=500,
                    help="fork_floor samples per method per round (default 500)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="C compiler (default $CC or cc)")
    ap.add_argument("--workdir", help="where to generate and build (default: a temporary directory)")
    ap.add_argument("--only", help="measure only the kind 'trivial' or 'printing'")
    args = ap.parse_args()
    n = args.tests
    jobs = [int(j) for j in args.jobs.split(",") if j]
    kinds = [args.only] if args.only else ["trivial", "printing"]

    tmp = None
    workdir = args.workdir
    if not workdir:
        tmp = tempfile.mkdtemp(prefix="libbench-test-mode-")
        workdir = tmp
    os.makedirs(workdir, exist_ok=True)
    try:
        generate(workdir, n)
        floor_prog = build(args, workdir)
        modes = accepted_modes(workdir)
        mode_names = modes if modes else ["(no --isolate)"]

        floor = {"fork": [], "vfork": []}
        runs = {}  # (kind, mode, jobs) or (kind, "cmocka", 1) -> [ns per run]
        others = {}  # the same keys -> [CPUs other processes kept busy during each run]
        failed = False
        for rnd in range(args.rounds):
            out = subprocess.run([floor_prog, "--samples", str(args.floor_samples)],
                                 check=True, stdout=subprocess.PIPE, text=True).stdout
            for line in out.splitlines():
                name, ns = line.split("\t")
                floor[name].append(int(ns))
            for kind in kinds:
                prog = os.path.join(workdir, kind)
                for mode in mode_names:
                    for j in jobs:
                        cmd = [prog, "-j", str(j)]
                        if modes:
                            cmd.append("--isolate=" + mode)
                        t = timed_run(cmd)
                        if t is None:
                            failed = True
                        else:
                            runs.setdefault((kind, mode, j), []).append(t[0])
                            if t[1] is not None:
                                others.setdefault((kind, mode, j), []).append(t[1])
                t = timed_run([os.path.join(workdir, "cmocka_" + kind)])
                if t is None:
                    failed = True
                else:
                    runs.setdefault((kind, "cmocka", 1), []).append(t[0])

        fork_ns = statistics.median(floor["fork"])
        vfork_ns = statistics.median(floor["vfork"])
        print("test mode: %d tests per program, %d rounds, %d online CPUs, load average %s"
              % (n, args.rounds, os.cpu_count() or 0, " ".join(
                  "%.2f" % x for x in os.getloadavg())))
        print("floor: fork + _exit + waitpid %s, vfork %s (medians of %d rounds of %d samples)"
              % (fmt_us(fork_ns), fmt_us(vfork_ns), args.rounds, args.floor_samples))
        print()
        print("| tests | mode | -j | whole run | per test | per test / fork floor "
              "| throughput / -j 1 | time / cmocka | other processes |")
        print("|---|---|---|---|---|---|---|---|---|")
        for kind in kinds:
            cm = runs.get((kind, "cmocka", 1))
            cm_ns = statistics.median(cm) if cm else None
            for mode in mode_names:
                one = runs.get((kind, mode, 1))
                one_ns = statistics.median(one) if one else None
                for j in jobs:
                    r = runs.get((kind, mode, j))
                    if not r:
                        print("| %s | %s | %d | — | — | — | — | — | — |" % (kind, mode, j))
                        continue
                    t = statistics.median(r)
                    o = others.get((kind, mode, j))
                    print("| %s | %s | %d | %.3f s | %s | %.2f | %s | %s | %s |" % (
                        kind, mode, j, t / 1e9, fmt_us(t / n), t / n / fork_ns,
                        "%.2f" % (one_ns / t) if one_ns else "—",
                        "%.1f" % (t / cm_ns) if cm_ns else "—",
                        "%.2f CPUs" % statistics.median(o) if o else "—"))
            if cm_ns:
                print("| %s | cmocka | 1 | %.3f s | %s | %.3f | — | 1.0 | — |" % (
                    kind, cm_ns / 1e9, fmt_us(cm_ns / n), cm_ns / n / fork_ns))
        print()
        per_test = "test" if "test" in modes else (mode_names[0] if not modes else None)
        if per_test and 1 in jobs and "trivial" in kinds:
            one = runs.get(("trivial", per_test, 1))
            if one:
                ratio = statistics.median(one) / n / fork_ns
                print("goal, per-test processes, -j 1: per test / fork floor %.2f (at most %.1f): %s"
                      % (ratio, GOAL_FLOOR, "met" if ratio <= GOAL_FLOOR else "missed"))
            two = runs.get(("trivial", per_test, 2))
            if one and two:
                ratio = statistics.median(one) / statistics.median(two)
                print("goal, per-test processes: throughput -j 2 / -j 1 %.2f (at least %.1f): %s"
                      % (ratio, GOAL_SCALING, "met" if ratio >= GOAL_SCALING else "missed"))
        if "worker" in modes and "trivial" in kinds:
            cm = runs.get(("trivial", "cmocka", 1))
            for j in jobs:
                w = runs.get(("trivial", "worker", j))
                if w and cm:
                    ratio = statistics.median(w) / statistics.median(cm)
                    print("goal, worker mode, -j %d: time / cmocka %.1f (at most %.1f): %s"
                          % (j, ratio, GOAL_CMOCKA, "met" if ratio <= GOAL_CMOCKA else "missed"))
        return 2 if failed else 0
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
