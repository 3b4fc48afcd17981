#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_abi.py: the ABI rules end to end, on real binaries. `grown`: structs one field larger than
# this libbench's (grown.c) are accepted, run and measured with a zero tail and refused with a
# non-zero one. `frozen`: a program compiled only against the frozen headers of a release
# (ABI_RELEASE: 0.1 or 0.2, in v0.1/ or v0.2/) runs its tests and its --bench measurement on the
# libbench being built.
# usage: run_abi.py grown|frozen (paths come from the environment, see tests/abi/meson.build)
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(argv, **extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NO_COLOR", "TERM", "GROWN_TAIL", "GROWN_SMOKE", "ABI_SMOKE")}
    env.update(extra)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=env, timeout=120)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def bench_json(argv, **extra):
    """Run a --bench command with a temporary JSON document; (rc, out, err, doc)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.json")
        rc, out, err = run(argv + ["--bench", "--bench-min-time=1", "--bench-json=" + path],
                           **extra)
        doc = json.load(open(path, encoding="utf-8")) if os.path.exists(path) else {}
    return rc, out, err, doc


def by_name(doc, key):
    return {r["name"]: r for r in doc.get(key, [])}


def measured(row):
    return isinstance(row.get("medianNs"), (int, float)) and row.get("error") == ""


# ---- grown: one field larger than today ---------------------------------------------------

def case_grown():
    exe = os.environ["ABI_GROWN"]

    # every appended field zero: accepted; the test passes (its case ran inertly)
    rc, out, err = run([exe])
    check(rc == 0, f"grown: test mode exit {rc}\n{out}{err}")
    check("✓ grown.plain" in out, f"grown: the plain test did not pass\n{out}")
    check("Summary: 1 passed, 0 failed, 2 benchmarks (run with --bench), 1 workloads" in out,
          f"grown: summary\n{out}")

    # ... and measured
    rc, out, err, doc = bench_json([exe])
    check(rc == 0, f"grown: --bench exit {rc}\n{out}{err}")
    rows, windows = by_name(doc, "rows"), by_name(doc, "windows")
    check(set(rows) == {"grown.measured", "grown.grown_case"}, f"grown: rows {list(rows)}")
    loop = rows.get("grown.measured", {})
    check(measured(loop) and loop.get("iterations") == 64,
          f"grown: the pinned loop (64 iterations) {loop} of {list(rows)}")
    case = rows.get("grown.grown_case", {})
    # labels and metrics read through the definition's strides (elements one field larger)
    check(measured(case) and case.get("samples") == 16 and  # .iterations: pinned timed calls
          case.get("labels") == {"abi": "grown", "stride": "wide"} and
          "items/s" in case.get("metrics", {}) and case.get("metrics", {}).get("depth") == 5,
          f"grown: the case row {case}")
    step = windows.get("grown.window/step", {})
    check(step.get("reps") == 3 and isinstance(step.get("wallNs"), (int, float)) and
          not step.get("error"), f"grown: the window {step} of {list(windows)}")

    # bench_smoke runs a body once from the library's copies
    for name in ("measured", "matrix", "window"):
        rc, out, err = run([exe], GROWN_SMOKE=name)
        check(rc == 0 and out == f"bench_smoke({name}) = 0\n", f"grown: smoke {name}: {out}{err}")

    # a non-zero appended field in a descriptor or an option struct: refused at start
    start = re.compile(r"error: test '(\w+)' \(\S*grown\.c:\d+\) (.*)\n")
    for tail, name, problem in (
            ("test", "plain", r"was compiled against an incompatible <bench/shim\.h> "
                              r"\(descriptor size (\d+), this libbench knows (\d+)\)"),
            ("benchmark", "measured", r"has options from an incompatible <bench/shim\.h>"),
            ("workload", "window", r"has options from an incompatible <bench/shim\.h>")):
        for argv in ([exe], [exe, "--bench"]):
            rc, out, err = run(argv, GROWN_TAIL=tail)
            m = start.search(err)
            check(rc == 2 and m is not None and m.group(1) == name and
                  re.fullmatch(problem, m.group(2)) is not None,
                  f"grown: tail in {tail} ({' '.join(argv[1:])}): exit {rc}\n{out}{err}")
            if m and tail == "test":
                sizes = re.fullmatch(problem, m.group(2))
                check(sizes and int(sizes.group(1)) > int(sizes.group(2)),
                      f"grown: the sizes named {m.group(2)}")
        # bench_smoke returns the registry's code, whichever test is asked for
        rc, out, err = run([exe], GROWN_TAIL=tail, GROWN_SMOKE="matrix")
        check(out.endswith(" (BENCH_ESTRUCT)\n") and
              re.search(rf"^bench_smoke: test '{name}' \(\S*grown\.c:\d+\) ", err) is not None,
              f"grown: smoke with a tail in {tail}: {out}{err}")

    # a non-zero appended field in a case definition or in one of its label or metric elements:
    # bench_case returns BENCH_ESTRUCT (the test checks it), and under --bench the case is an
    # error row that fails the run
    for tail, problem in (("case", "the case definition has fields this libbench does not know"),
                          ("label", "a label has fields this libbench does not know"),
                          ("metric", "a metric has fields this libbench does not know")):
        rc, out, err = run([exe], GROWN_TAIL=tail)
        check(rc == 0 and "✓ grown.plain" in out,
              f"grown: refused {tail}, test mode {rc}\n{out}{err}")
        rc, out, err, doc = bench_json([exe], GROWN_TAIL=tail)
        rows = by_name(doc, "rows")
        case = rows.get("grown.grown_case", {})
        check(rc == 1, f"grown: refused {tail}, --bench exit {rc}\n{out}{err}")
        # no error row for the matrix body: its check that bench_case returned BENCH_ESTRUCT held
        check(set(rows) == {"grown.measured", "grown.grown_case"},
              f"grown: refused {tail}, rows {list(rows)}")
        check(case.get("error") == "registration: " + problem and
              case.get("medianNs", 0) is None, f"grown: refused {tail}, the row {case}")
        check(measured(rows.get("grown.measured", {})),
              f"grown: refused {tail}, the other benchmarks are still measured")


# ---- frozen: a program of an earlier release on this library ------------------------------

def include_paths(args, directory):
    """The directories (and forced-include files) a compile command searches, absolute."""
    flags = ("-isystem", "-iquote", "-idirafter", "-include", "-I")
    paths, i = [], 0
    while i < len(args):
        for flag in flags:
            if args[i] == flag and i + 1 < len(args):
                paths.append(args[i + 1])
                i += 1
                break
            if args[i].startswith(flag) and len(args[i]) > len(flag):
                paths.append(args[i][len(flag):])
                break
        i += 1
    return [os.path.realpath(os.path.join(directory, p)) for p in paths]


# The version nodes a program of each release may need, and the one it must need (its newest).
NODES = {"0.1": ({"LIBBENCH_0.1"}, "LIBBENCH_0.1"),
         "0.2": ({"LIBBENCH_0.1", "LIBBENCH_0.2"}, "LIBBENCH_0.2")}


def frozen_build(exe, frozen, release):
    """The consumer was compiled against the frozen headers alone and needs only its nodes."""
    build_root = os.environ["ABI_BUILD_ROOT"]
    # every include directory of its compile command is inside v0.N/ or is the target's private
    # object directory
    commands = json.load(open(os.path.join(build_root, "compile_commands.json")))
    mine = [c for c in commands if os.path.realpath(os.path.join(c["directory"], c["file"])) ==
            os.path.join(frozen, "consumer.c")]
    check(len(mine) == 1, f"frozen: {len(mine)} compile commands for consumer.c")
    for c in mine:
        args = c["arguments"] if "arguments" in c else shlex.split(c["command"])
        dirs = include_paths(args, c["directory"])
        check(any(d == os.path.join(frozen, "include") for d in dirs) and
              any(d == os.path.join(frozen, "shim") for d in dirs),
              f"frozen: the frozen include directories are missing from {dirs}")
        # a -Dplatform=posix build on a Linux host puts its guard folder first on every compile
        # command (its headers only stop a Linux-only include: no libbench header is there)
        guard = os.environ.get("ABI_POSIX_GUARD", "")
        for d in dirs:
            check(d.startswith(frozen + os.sep) or d.endswith(".p") or
                  (guard and d == os.path.realpath(guard)),
                  f"frozen: consumer.c is compiled with include directory {d}")

    # a program of release N needs only the nodes up to LIBBENCH_N
    dyn = subprocess.run(["objdump", "-T", exe], stdout=subprocess.PIPE, check=True
                         ).stdout.decode()
    needed = re.findall(r"\*UND\*\s+\S+\s+\(?([\w.]+)\)?\s+(bench_\w+)", dyn)
    allowed, newest = NODES[release]
    check(len(needed) >= 10, f"frozen: bench_ symbols the consumer needs: {needed}")
    for node, name in needed:
        check(node in allowed, f"frozen: the consumer needs {name}@{node}")
    check(any(node == newest for node, _ in needed), f"frozen: nothing @{newest} in {needed}")

    # the library loaded is the one being built, not the frozen release
    rc, out, err = run([exe, "--version"])
    check(rc == 0 and os.environ["ABI_VERSION"] in out, f"frozen: --version {rc} {out!r}")


def frozen_v01(exe, env):
    # test mode: the tests pass, the benchmarks and the workload are counted
    rc, out, err = run([exe], **env)
    check(rc == 0, f"frozen: test mode exit {rc}\n{out}{err}")
    for line in ("✓ consumer.arithmetic", "✓ consumer.runtime_version",
                 "⊘ consumer.skips (skipped on purpose)"):
        check(line in out, f"frozen: {line!r} missing\n{out}")
    check("Summary: 2 passed, 0 failed, 1 skipped, 2 benchmarks (run with --bench), 1 workloads"
          in out, f"frozen: summary\n{out}")

    # --bench: every row measured, the JSON document written, exit 0
    rc, out, err, doc = bench_json([exe], **env)
    check(rc == 0, f"frozen: --bench exit {rc}\n{out}{err}")
    rows, windows = by_name(doc, "rows"), by_name(doc, "windows")
    check(set(rows) == {"consumer.pinned_loop", "consumer.parse"}, f"frozen: rows {list(rows)}")
    loop = rows.get("consumer.pinned_loop", {})
    check(measured(loop) and loop.get("iterations") == 128, f"frozen: the pinned loop {loop}")
    parse = rows.get("consumer.parse", {})
    check(measured(parse) and parse.get("labels") == {"impl": "old", "input": "tiny"} and
          parse.get("metrics", {}).get("depth") == 2 and "items/s" in parse.get("metrics", {}),
          f"frozen: the case row {parse}")
    # the window's regime comes from the WORKLOAD's .regime, an enum field in 0.1.0
    step = windows.get("consumer.phases/step", {})
    check(step.get("reps") == 2 and isinstance(step.get("wallNs"), (int, float)) and
          not step.get("error") and step.get("regime", {}).get("requested") == "warm",
          f"frozen: the window {step} of {list(windows)}")
    check("consumer.pinned_loop" in out and "consumer.parse" in out and "consumer.phases/step" in out,
          f"frozen: the tables\n{out}")


def frozen_v02(exe, env):
    # test mode: the catalog test passes (its info structs sized by the 0.2.0 header)
    rc, out, err = run([exe], **env)
    check(rc == 0, f"frozen 0.2: test mode exit {rc}\n{out}{err}")
    check("✓ consumer.catalog_entries" in out, f"frozen 0.2: the catalog test\n{out}")
    check("Summary: 1 passed, 0 failed, 2 benchmarks (run with --bench), 1 workloads" in out,
          f"frozen 0.2: summary\n{out}")

    # bench_smoke's statuses as 0.2.0 numbered them (0 passed, 2 skipped, BENCH_ENOENT)
    rc, out, err = run([exe], ABI_SMOKE="1", **env)
    check(rc == 0 and out == "bench_smoke(codec) = 0\nbench_smoke(consumer.skipper) = 2\n"
          "bench_smoke(evicted) = 2\nbench_smoke(nope) = -2\n", f"frozen 0.2: smoke {out}{err}")

    # --bench through 0.2.0's BENCH_DISPATCH: the case row with three labels and two metrics
    # read from arrays of the 0.2.0 layout, a skip (a line: the body made no row), the windows
    # with the options' regime
    rc, out, err, doc = bench_json([exe], **env)
    check(rc == 0, f"frozen 0.2: --bench exit {rc}\n{out}{err}")
    rows, windows = by_name(doc, "rows"), by_name(doc, "windows")
    # the case row is named by the library: <file-stem>.<name>, for an old binary too
    check(set(rows) == {"consumer.encode"}, f"frozen 0.2: rows {list(rows)}")
    check("⊘ consumer.skipper (skipped on purpose)" in err, f"frozen 0.2: the skip line\n{err}")
    encode = rows.get("consumer.encode", {})
    check(measured(encode) and
          encode.get("labels") == {"codec": "rot", "width": "64", "abi": "0.2"} and
          encode.get("metrics", {}).get("bits") == 64 and "words/s" in encode.get("metrics", {}),
          f"frozen 0.2: the case row {encode}")
    fold = windows.get("consumer.evicted/fold", {})
    check(isinstance(fold.get("wallNs"), (int, float)) and not fold.get("error") and
          fold.get("regime", {}).get("requested") == "cold",
          f"frozen 0.2: the window {fold} of {list(windows)}")
    check("consumer.evicted/skip" in windows, f"frozen 0.2: the skipped window of {list(windows)}")


def case_frozen():
    exe = os.environ["ABI_CONSUMER"]
    release = os.environ["ABI_RELEASE"]
    frozen = os.path.realpath(os.environ["ABI_FROZEN_DIR"])
    frozen_build(exe, frozen, release)
    env = {"ABI_REGIME_FILE": os.path.realpath(exe)}  # a file the workload's regime applies to
    {"0.1": frozen_v01, "0.2": frozen_v02}[release](exe, env)


CASES = {"grown": case_grown, "frozen": case_frozen}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok")
    sys.exit(1 if failures else 0)
