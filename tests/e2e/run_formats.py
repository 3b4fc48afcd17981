#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_formats.py: end-to-end checks of the formats a run's results leave in: --bench-format=gbench
# read by Google Benchmark's own compare.py (Debian's libbenchmark-tools; skipped with the reason
# where it or the scipy it imports is missing), --bench-format=bmf checked against the structure
# Bencher documents, and `libbench export` (CSV and Markdown) of real documents.
import json
import os
import subprocess
import sys
import tempfile

CASES = os.environ.get("E2E_CASES", "")
LIBBENCH = os.environ.get("E2E_LIBBENCH", "")
# where Debian's libbenchmark-tools puts compare.py (GBENCH_COMPARE overrides)
COMPARE_PY = os.environ.get("GBENCH_COMPARE", "/usr/share/benchmark/compare.py")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def run(argv, **kw):
    env = dict(os.environ)
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "handle_segv=0:handle_abort=0"
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=env, timeout=120, **kw)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def bench(path, fmt, *extra):
    """A real run of the e2e cases binary writing its document in fmt; exit 1 is expected (it
    has a failing and a skipped case)."""
    argv = [CASES, "--bench", "--bench-min-time=1", "--bench-json=" + path]
    if fmt:
        argv.append("--bench-format=" + fmt)
    rc, out, err = run(argv + list(extra))
    check(rc == 1, f"{fmt}: the run exited {rc}: {err}")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# every row named <file-stem>.<name>, the cases' as the loops' (issue 32, point 17)
MEASURED = ["cases.count/dataset:small/impl:fast", "cases.pinned", "cases.two_loops",
            "cases.two_loops#2"]
UNMEASURED = {"cases.fails/dataset:small/impl:slow": ("error", "result mismatch at call 3 …"),
              "cases.skips/dataset:small": ("skipped", "fixture missing"),
              "cases.refused/impl:a?b": ("error",
                                         "registration: a label contains the 0x1F separator")}


def compare_python():
    """An interpreter that can run compare.py (it imports scipy), or None."""
    for py in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if os.access(py, os.X_OK) and subprocess.run(
                [py, "-c", "import scipy.stats, numpy"], stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def case_gbench():
    with tempfile.TemporaryDirectory() as d:
        docs = [os.path.join(d, f"run{k}.json") for k in (1, 2)]
        for path in docs:
            doc = bench(path, "gbench")
            check(list(doc) == ["context", "benchmarks"], f"gbench: top keys {list(doc)}")
            ctx = doc.get("context", {})
            for key in ("date", "host_name", "num_cpus", "library_version"):
                check(key in ctx, f"gbench: context.{key} missing: {ctx}")
            check(ctx.get("libbench_cpu_time") ==
                  "the thread's CPU time per iteration, read between samples, where measured; "
                  "else real_time repeated (not measured: a bench_case row, whose samples are "
                  "single calls; its entry's label says so)", f"gbench: cpu_time {ctx}")
            un = {u["name"]: (u["state"], u["reason"]) for u in ctx.get("libbench_unmeasured", [])}
            check(un == UNMEASURED, f"gbench: unmeasured rows {un}")
            names = [b["name"] for b in doc.get("benchmarks", [])]
            check(names == MEASURED, f"gbench: benchmarks {names}")
            for b in doc.get("benchmarks", []):
                check(b["run_type"] == "iteration" and b["time_unit"] == "ns" and
                      b["real_time"] > 0 and b["cpu_time"] > 0 and
                      b["iterations"] >= 32, f"gbench: entry {b}")
                # the bench_case rows' cpu_time is real_time repeated, and their label says so;
                # the batched rows' is the thread's CPU time, measured (issue 32, point 4)
                repeated = b["name"] in ("cases.count/dataset:small/impl:fast", "cases.pinned")
                check(("cpu_time not measured" in b.get("label", "")) == repeated and
                      (not repeated or b["cpu_time"] == b["real_time"]),
                      f"gbench: cpu_time of {b}")
            count = doc["benchmarks"][0] if doc.get("benchmarks") else {}
            check(count.get("depth") == 4 and count.get("items/s", 0) > 0,
                  f"gbench: client metrics as counters {count}")
        # with task-clock counted, cpu_time is still the thread's CPU time of the timed samples
        # (a counting pass's task-clock of a bench_case row includes its brackets)
        doc = bench(os.path.join(d, "task.json"), "gbench", "--metrics=task-clock")
        for b in doc["benchmarks"]:
            check(b["name"].startswith("cases.two_loops") == ("label" not in b),
                  f"gbench: cpu_time with task-clock {b}")

        # the real consumer: Google Benchmark's compare.py, benchmarks mode
        if not os.path.exists(COMPARE_PY):
            skip(f"{COMPARE_PY} is missing: Google Benchmark's compare.py comes with Debian's "
                 "libbenchmark-tools (.ci/run installs it)")
        py = compare_python()
        if py is None:
            skip("compare.py imports scipy and numpy, which no python3 here has "
                 "(Debian: python3-scipy; .ci/run installs it)")
        rc, out, err = run([py, COMPARE_PY, "benchmarks", docs[0], docs[1]],
                           cwd=os.path.dirname(COMPARE_PY))
        print(out)
        check(rc == 0 and err == "", f"compare.py: exit {rc}: {err}")
        check(out.startswith(f"Comparing {docs[0]} to {docs[1]}\n"), f"compare.py: header {out!r}")
        lines = out.splitlines()
        for name in MEASURED + ["OVERALL_GEOMEAN"]:
            row = [ln for ln in lines if name + " " in ln]
            check(len(row) == 1, f"compare.py: no row (or several) for {name}")
        for name in UNMEASURED:
            check(name not in out, f"compare.py: the unmeasured {name} shows as a time")


def is_bmf(doc):
    """Bencher's documented structure: {benchmark: {measure: {value, lower_value?,
    upper_value?}}}, names of 1..1024 (benchmarks) and 1..64 (measures) characters, numbers;
    libbench adds that a value lies between its bounds."""
    if not isinstance(doc, dict):
        return False
    for bname, measures in doc.items():
        if not (1 <= len(bname) <= 1024 and isinstance(measures, dict) and measures):
            return False
        for mname, m in measures.items():
            if not (1 <= len(mname) <= 64 and isinstance(m, dict) and "value" in m and
                    set(m) <= {"value", "lower_value", "upper_value"}):
                return False
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       for v in m.values()):
                return False
            if ("lower_value" in m) != ("upper_value" in m):
                return False
            if "lower_value" in m and not m["lower_value"] <= m["value"] <= m["upper_value"]:
                return False
    return True


def case_bmf():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bmf.json")
        doc = bench(path, "bmf")
        check(is_bmf(doc), f"bmf: not BMF: {json.dumps(doc)[:2000]}")
        check(list(doc) == MEASURED, f"bmf: benchmarks {list(doc)}")
        count = doc.get(MEASURED[0], {})
        check(sorted(count) == ["depth", "items/s", "latency", "user.cycles"],
              f"bmf: measures {sorted(count)}")
        check(count.get("depth") == {"value": 4}, f"bmf: depth {count.get('depth')}")
        lat = count.get("latency", {})
        check(set(lat) == {"value", "lower_value", "upper_value"}, f"bmf: latency {lat}")
        # the structure check itself refuses what BMF does not allow
        check(is_bmf({"b": {"latency": {"value": 1, "lower_value": 0, "upper_value": 2}}}),
              "bmf: the check refused a good document")
        for bad in ({"b": {"latency": {"lower_value": 1}}}, {"b": {"latency": {"value": None}}},
                    {"b": {"m" * 65: {"value": 1}}}, {"": {"latency": {"value": 1}}},
                    {"b": {"latency": {"value": 1, "median": 1}}}, {"b": {}}, [],
                    {"b": {"latency": {"value": 5, "lower_value": 6, "upper_value": 7}}},
                    {"b": {"latency": {"value": True}}}):
            check(not is_bmf(bad), f"bmf: the check took {bad}")


# ---- libbench export ------------------------------------------------------------------------

def export(fmt, path):
    return run([LIBBENCH, "export", "--format=" + fmt, path])


def md_cells(line):
    """The cells of one Markdown table line (an escaped '|' stays in its cell)."""
    check(line.startswith("| ") and line.endswith(" |"), f"markdown: line {line!r}")
    cells, cur, i = [], "", 2
    body = line[2:-2]
    while i - 2 < len(body):
        c = body[i - 2]
        if c == "\\" and i - 1 < len(body):
            cur += body[i - 1]
            i += 2
            continue
        if body.startswith(" | ", i - 2):
            cells.append(cur)
            cur = ""
            i += 3
            continue
        cur += c
        i += 1
    cells.append(cur)
    return cells


def check_export(doc, path, what):
    """CSV and Markdown of the document at path against the document itself."""
    import csv
    import io
    rc, out, err = export("csv", path)
    check(rc == 0 and err == "", f"{what}: csv exit {rc}: {err}")
    table = list(csv.reader(io.StringIO(out)))
    keys = []
    for r in doc["rows"]:
        keys += [k for k in r.get("labels", {}) if k not in keys]
    metrics = [c["name"] for c in doc["columns"]]
    header = (["name"] + keys + ["iterations", "samples", "median_ns", "deviation_ns", "min_ns",
                                 "max_ns", "cpu_ns"] + metrics + ["error", "estimated",
                                                                  "at_clock_resolution"])
    check(table and table[0] == header, f"{what}: csv header {table[:1]}")
    check(len(table) == 1 + len(doc["rows"]), f"{what}: csv has {len(table)} lines")
    fields = ["iterations", "samples", "medianNs", "deviationNs", "minNs", "maxNs", "cpuNs"]
    for r, line in zip(doc["rows"], table[1:]):
        want = ([r["name"]] + [r.get("labels", {}).get(k, "") for k in keys] +
                [r.get(f) for f in fields] + [r["metrics"].get(m) for m in metrics] + [r["error"]] +
                [" ".join(m for m in metrics if m in r.get("estimatedMetrics", []))] +
                ["true" if r.get("atClockResolution") else ""])
        check(len(line) == len(want), f"{what}: csv line {line}")
        for got, w in zip(line, want):
            if w is None:  # null: an empty field, never 0
                check(got == "", f"{what}: csv null as {got!r} in {line}")
            elif isinstance(w, (int, float)):
                check(got != "" and float(got) == float(w), f"{what}: csv {got!r} for {w!r}")
            else:
                check(got == w, f"{what}: csv {got!r} for {w!r}")

    rc, out, err = export("markdown", path)
    check(rc == 0 and err == "", f"{what}: markdown exit {rc}: {err}")
    lines = out.splitlines()
    # rows at the clock's resolution: a blank line and one note under the table
    marked = any(r.get("atClockResolution") for r in doc["rows"])
    note = lines[2 + len(doc["rows"]):]
    check(note == (["", "\u2021 median within 2\u00d7 of one clock read (meta.clockOverheadNs): "
                    "the figure is mostly the clock, and so is every rate derived from it"]
                   if marked else []), f"{what}: markdown note {note}")
    lines = lines[:2 + len(doc["rows"])]
    check(len(lines) == 2 + len(doc["rows"]), f"{what}: markdown has {len(lines)} lines")
    width = 1 + len(keys) + 5 + len(metrics) + 1
    heads = md_cells(lines[0]) if lines else []
    # a command's whole-process wall time per run is never labelled per iteration
    fixed = (["command", "runs", "median wall/run"] if doc.get("tool") == "libbench run"
             else ["benchmark", "n", "median/iter"])
    check(heads[:1] == fixed[:1] and heads[1 + len(keys):3 + len(keys)] == fixed[1:] and
          heads[-1:] == ["note"] and len(heads) == width and
          (doc.get("tool") != "libbench run" or "median/iter" not in heads),
          f"{what}: markdown header {heads}")
    check(lines[1:2] == ["|" + "|".join([":---"] * (1 + len(keys)) +
                                        ["---:"] * (5 + len(metrics)) + [":---"]) + "|"],
          f"{what}: markdown alignment {lines[1:2]}")
    for r, line in zip(doc["rows"], lines[2:]):
        cells = md_cells(line)
        check(len(cells) == width, f"{what}: markdown cells {cells}")
        check(cells[:1] == [r["name"]] and cells[-1:] == [r["error"]],
              f"{what}: markdown row {cells}")
        numbers = cells[1 + len(keys):-1]
        values = [r.get(f) for f in fields[2:6]] + [r["metrics"].get(m) for m in metrics]
        # n, then median, ±, min, max and the metrics: an em dash exactly where null
        # the median (and a rate derived from it) of a row at the clock's resolution is marked
        numbers = [x[:-2] if r.get("atClockResolution") and x.endswith(" \u2021") else x
                   for x in numbers]
        for got, w in zip(numbers[1:], values):
            check((got == "—") == (w is None), f"{what}: markdown {got!r} for {w!r}")
            check(w is None or got != "", f"{what}: markdown {got!r} for {w!r}")
            check(w in (None, 0) or got != "0", f"{what}: markdown {got!r} for {w!r}")


def case_export():
    import csv
    import io
    with tempfile.TemporaryDirectory() as d:
        # a --bench-json document of a real run: errors, skips, labels, client metrics
        path = os.path.join(d, "bench.json")
        doc = bench(path, None)
        check_export(doc, path, "export bench")
        # a libbench run --json document: a command that fails has no numbers
        rpath = os.path.join(d, "run.json")
        rc, out, err = run([LIBBENCH, "run", "--runs", "3", "--json", rpath, "-c", "true",
                            "-c", "false"])
        check(rc == 1, f"export: libbench run exited {rc}: {err}")
        with open(rpath, encoding="utf-8") as f:
            rdoc = json.load(f)
        check_export(rdoc, rpath, "export run")
        # hostile text: quotes, commas, pipes, a newline, a backslash
        hostile = {"schema": 2, "meta": {}, "columns": [
            {"name": "x,\"y\"", "header": "x|y", "format": "count", "class": "quantitative",
             "source": "client"}],
            "rows": [{"name": "a,b \"c\"|d\ne\\", "labels": {"k|1": "v,1"}, "iterations": 1,
                      "samples": 3, "medianNs": 1.5, "deviationNs": 0, "minNs": 1,
                      "maxNs": 2.25, "metrics": {"x,\"y\"": 7}, "estimatedMetrics": ["x,\"y\""],
                      "error": ""}]}
        hpath = os.path.join(d, "hostile.json")
        with open(hpath, "w", encoding="utf-8") as f:
            json.dump(hostile, f)
        rc, out, err = export("csv", hpath)
        table = list(csv.reader(io.StringIO(out)))
        check(rc == 0 and table == [
            ["name", "k|1", "iterations", "samples", "median_ns", "deviation_ns", "min_ns",
             "max_ns", "cpu_ns", "x,\"y\"", "error", "estimated", "at_clock_resolution"],
            ["a,b \"c\"|d\ne\\", "v,1", "1", "3", "1.5", "0", "1", "2.25", "", "7", "",
             "x,\"y\"", ""]],
            f"export: hostile csv {table} {err}")
        rc, out, err = export("markdown", hpath)
        lines = out.splitlines()
        check(rc == 0 and len(lines) == 3 and
              md_cells(lines[2]) == ["a,b \"c\"|d e\\", "v,1", "3", "1.50ns", "±0.00ns",
                                     "1.00ns", "2.25ns", "≈7", ""] and
              md_cells(lines[0])[1] == "k|1", f"export: hostile markdown {out!r}")
        # what export refuses, and how
        for argv, code, words in (
                ([], 2, "missing --format"), (["--format=csv"], 2, "missing the document"),
                (["--format=json", path], 2, "unknown format 'json'"),
                (["--format=csv", path, path], 2, "one document only"),
                (["--format=csv", "--format=csv", path], 2, "given more than once"),
                (["--bogus", path], 2, "unknown option '--bogus'"),
                (["--format=csv", os.path.join(d, "none.json")], 1, "cannot read"),
                (["--format=markdown", os.path.join(d, "gb.json")], 1, "not a libbench document")):
            if argv[-1:] == [os.path.join(d, "gb.json")]:
                bench(argv[-1], "gbench")
            rc, out, err = run([LIBBENCH, "export"] + argv)
            check(rc == code and out == "" and words in err and err.count("\n") == 1,
                  f"export {argv}: exit {rc} {err!r}")
        rc, out, err = run([LIBBENCH, "export", "--help"])
        check(rc == 0 and out.startswith("usage: libbench export"), f"export --help: {rc}")
        with open("/dev/full", "w") as full:
            p = subprocess.run([LIBBENCH, "export", "--format=csv", path], stdout=full,
                               stderr=subprocess.PIPE)
        check(p.returncode == 1 and b"cannot write" in p.stderr,
              f"export to /dev/full: {p.returncode} {p.stderr!r}")


ALL = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ALL:
        sys.exit(f"usage: run_formats.py {{{'|'.join(sorted(ALL))}}}")
    ALL[sys.argv[1]]()
    for f in failures:
        print("FAIL:", f)
    print(f"{sys.argv[1]}: {'ok' if not failures else str(len(failures)) + ' failure(s)'}")
    sys.exit(1 if failures else 0)
