#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_alloc.py: end-to-end checks of the "alloc" source on a real test binary (alloc.c, linked
# with libbench-alloc.so): exact counts per iteration, nothing counted outside the counted body,
# another thread's calls (ignored per thread, counted with --alloc=all-threads), a body that dies
# in its counting pass, the absence and its reason in a binary without the interposer, and the
# counts carried by export and record. In a sanitizer build (E2E_SANITIZE) the source is absent
# with its reason, and every case checks that instead.
import json
import os
import subprocess
import sys
import tempfile

ALLOC = os.environ.get("E2E_ALLOC", "")
COUNTING = os.environ.get("E2E_COUNTING", "")  # a binary without the interposer
LIBBENCH = os.environ.get("E2E_LIBBENCH", "")
SANITIZE = os.environ.get("E2E_SANITIZE", "none")
SANITIZED = SANITIZE not in ("", "none")
CHARTJS_MISSING = os.environ.get("E2E_CHARTJS_MISSING", "")  # why report --html cannot run
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "reference",
                      "bench-json.schema.json")
METRICS = "--metrics=allocs,frees,alloc-bytes"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(argv, **extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "LD_PRELOAD")}
    for name in ("ASAN_OPTIONS", "TSAN_OPTIONS"):  # a crashing body dies by its signal
        given = env.get(name, "")
        env[name] = (given + ":" if given else "") + "handle_segv=0:handle_abort=0"
    env.update(extra)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=env, timeout=240)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def bench(binary, *args):
    """Run --bench with a JSON document; returns (status, stdout, stderr, document)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.json")
        rc, out, err = run([binary, "--bench", "--bench-min-time=1", f"--bench-json={path}"]
                           + list(args))
        doc = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            v = subprocess.run([sys.executable, os.path.join(os.path.dirname(
                os.path.abspath(__file__)), "check_json_schema.py"), SCHEMA, path],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            check(v.returncode in (0, 77), "schema validation: " + v.stdout.decode())
        return rc, out, err, doc


def rows(doc):
    return {r["name"]: r for r in (doc or {}).get("rows", [])}


def windows(doc):
    return {w["name"]: w for w in (doc or {}).get("windows", [])}


def expect_absent(err, doc, what):
    """A sanitizer build: every alloc value null, the reason said once."""
    check("counting unavailable (" in err and "replaces the allocator" in err
          or "does not reach libbench-alloc.so" in err, f"{what}: no reason on stderr:\n{err}")
    for name, r in rows(doc).items():
        for m in ("allocs", "frees", "alloc-bytes"):
            check(r.get("metrics", {}).get(m) is None,
                  f"{what}: {name} {m} = {r.get('metrics', {}).get(m)!r} in a sanitizer build")


def per_iter(r):
    m = r.get("metrics", {})
    return (m.get("allocs"), m.get("frees"), m.get("alloc-bytes"))


def case_exact():
    """3 mallocs of 16, 32, 64 and 3 frees read 3, 3, 112 per iteration; nothing reads a measured
    0; the setup's malloc is not counted; realloc(NULL, n) is an alloc and free(NULL) no free."""
    rc, out, err, doc = bench(ALLOC, METRICS, "-i", "three_mallocs|no_alloc|setup|realloc_null")
    check(rc == 0, f"exact: exit {rc}\n{err}")
    if SANITIZED:
        expect_absent(err, doc, "exact")
        return
    r = rows(doc)
    want = {"alloc.three_mallocs": (3, 3, 112), "alloc.no_alloc": (0, 0, 0),
            "alloc.setup_allocates": (1, 1, 8), "alloc.realloc_null": (1, 1, 40)}
    for name, values in want.items():
        check(name in r and per_iter(r[name]) == values,
              f"exact: {name}: {per_iter(r.get(name, {}))} != {values}")
    cols = {c["name"]: c for c in doc["columns"]}
    check(all(cols.get(m, {}).get("source") == "alloc" for m in ("allocs", "frees", "alloc-bytes")),
          f"exact: columns {doc['columns']}")
    # the table: two decimals, a measured 0 is 0.00 (never a dash)
    line = next((ln for ln in out.splitlines() if "alloc.three_mallocs" in ln), "")
    check([c.strip() for c in line.split("│")[-4:-1]] == ["3.00", "3.00", "112.00"],
          f"exact: table line {line!r}")
    line = next((ln for ln in out.splitlines() if "alloc.no_alloc" in ln), "")
    check([c.strip() for c in line.split("│")[-4:-1]] == ["0.00", "0.00", "0.00"],
          f"exact: table line {line!r}")


def case_threads():
    """Per thread (the default) a helper thread's calls are not counted; a window counts them
    with --alloc=all-threads."""
    rc, out, err, doc = bench(ALLOC, METRICS, "-i", "other_thread|alloc.threads")
    check(rc == 0, f"threads: exit {rc}\n{err}")
    if SANITIZED:
        expect_absent(err, doc, "threads")
        return
    r = rows(doc)
    check(per_iter(r.get("alloc.other_thread", {})) == (1, 1, 16),
          f"threads: other_thread {per_iter(r.get('alloc.other_thread', {}))}")
    w = windows(doc).get("alloc.threads/handoff", {})
    check(w.get("alloc") == {"allocs": 1, "frees": 1, "allocBytes": 10},
          f"threads: per-thread window {w}")
    rc, out, err, doc = bench(ALLOC, METRICS, "--alloc=all-threads", "-i", "alloc.threads")
    check(rc == 0, f"threads all: exit {rc}\n{err}")
    check("--alloc: alloc counts every thread" in err, f"threads all: stderr\n{err}")
    w = windows(doc).get("alloc.threads/handoff", {})
    check(w.get("alloc") == {"allocs": 6, "frees": 6, "allocBytes": 510},
          f"threads: all-threads window {w}")
    rc, out, err = run([ALLOC, "--bench", "--alloc=every"])
    check(rc == 2 and "error: option '--alloc': 'every' is not a scope" in err,
          f"threads: a bad scope: {rc} {err!r}")


def case_crash():
    """A body killed in its counting pass: its timing row stays, its counts are null (never a
    number), its body row names the signal, the run exits 1."""
    rc, out, err, doc = bench(ALLOC, METRICS, "-i", "zz_crashes|three_mallocs")
    r = rows(doc)
    if SANITIZED:  # nothing counts, so the body never dies
        check(rc == 0, f"crash: exit {rc}\n{err}")
        expect_absent(err, doc, "crash")
        return
    check(rc == 1, f"crash: exit {rc}\n{err}")
    timed = r.get("alloc.zz_crashes_counting", {})
    check(timed.get("medianNs") is not None, f"crash: timing row {timed}")
    check(per_iter(timed) == (None, None, None), f"crash: counts {per_iter(timed)}")
    body = r.get("alloc.zz_crashes_counting (body)", {})
    check("SIGSEGV" in json.dumps(body), f"crash: body row {body}")
    check(per_iter(r.get("alloc.three_mallocs", {})) == (3, 3, 112),
          f"crash: the other row {per_iter(r.get('alloc.three_mallocs', {}))}")


def case_absent():
    """A binary without the interposer: null values (— in the table), the reason on stderr and in
    --list-metrics; with LD_PRELOAD the same binary counts."""
    rc, out, err, doc = bench(COUNTING, "--metrics=allocs", "-i", "busy")
    check(rc == 0, f"absent: exit {rc}\n{err}")
    reason = "libbench-alloc.so is not loaded in this process"
    check(SANITIZED or f"--metrics: counting unavailable (the allocation interposer {reason}" in err,
          f"absent: stderr\n{err}")
    for name, r in rows(doc).items():
        check(r["metrics"].get("allocs", "missing") is None, f"absent: {name} {r['metrics']}")
    check(any(ln.rstrip().endswith("—") or "— │" in ln for ln in out.splitlines()
              if "busy_50ns" in ln), f"absent: table\n{out}")
    rc, out, err = run([COUNTING, "--list-metrics"])
    line = next((ln for ln in out.splitlines() if ln.strip().startswith("alloc ")), "")
    check(rc == 0 and "✗ counting — " in line and (SANITIZED or reason in line),
          f"absent: --list-metrics line {line!r}")


def case_export_record():
    """export (CSV, Markdown), record and the dashboard (report --html) carry the three columns
    like any other."""
    if not LIBBENCH:
        print("SKIP: no libbench tool")
        return
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.json")
        rc, out, err = run([ALLOC, "--bench", "--bench-min-time=1", METRICS, "-i",
                            "three_mallocs", f"--bench-json={path}"])
        check(rc == 0, f"export: exit {rc}\n{err}")
        rc, out, err = run([LIBBENCH, "export", "--format=csv", path])
        lines = out.splitlines()
        check(rc == 0 and lines and "allocs,frees,alloc-bytes" in lines[0], f"export csv\n{out}")
        if not SANITIZED:
            check(any(ln.startswith("alloc.three_mallocs,") and ",3,3,112," in ln for ln in lines),
                  f"export csv\n{out}")
        rc, out, err = run([LIBBENCH, "export", "--format=markdown", path])
        check(rc == 0 and "allocs/iter" in out and
              (SANITIZED or "| 3.00 | 3.00 | 112.00 |" in out), f"export markdown\n{out}")
        store = os.path.join(d, "store")
        rc, out, err = run([LIBBENCH, "record", "--results", store, path])
        check(rc == 0, f"record: {rc} {err}")
        found = []
        for root, _, files in os.walk(os.path.join(store, "raw")):
            for f in files:
                if f.startswith("results.jsonl"):
                    with open(os.path.join(root, f), encoding="utf-8") as fh:
                        found += [json.loads(ln) for ln in fh if ln.strip()]
        m = next((x["metrics"] for x in found if x.get("scenario") == "alloc.three_mallocs"), {})
        want = {"allocs": None, "frees": None, "alloc-bytes": None} if SANITIZED else \
            {"allocs": 3, "frees": 3, "alloc-bytes": 112}
        check(m == want, f"record: metrics {m}")
        # the table of report --metrics carries the metric
        rc, out, err = run([LIBBENCH, "report", "--results", store, "--metrics"])
        if not SANITIZED:
            check(any(ln.split("│")[5:7] and "allocs" in ln and " 3 " in ln
                      for ln in out.splitlines()), f"report --metrics\n{out}")
        # the dashboard carries it too: the row's details list it with its value (the page
        # inlines Debian's Chart.js: without it, report --html refuses and says so)
        if CHARTJS_MISSING:
            print(f"dashboard not checked: {CHARTJS_MISSING}")
            return
        html = os.path.join(d, "dash.html")
        rc, out, err = run([LIBBENCH, "report", "--results", store, "--metrics", "--html", html])
        check(rc in (0, 2) and os.path.exists(html), f"report --html: {rc} {err}")
        page = open(html, encoding="utf-8").read() if os.path.exists(html) else ""
        if not SANITIZED:
            check("allocs <span>3</span>" in page and "alloc-bytes <span>112</span>" in page and
                  "frees <span>3</span>" in page, "dashboard: the alloc metrics are missing")


def case_compare():
    """compare --metric=allocs (issue 31 point 5): an exact count, floor 0. A/A: NO_CHANGE, PASS;
    a candidate with one more malloc per iteration: CLAIMED regression, exit 1, whatever the
    timing; a binary without the interposer: UNMEASURED with the reason, never 0."""
    if not LIBBENCH:
        print("SKIP: no libbench tool")
        return
    args = ["--", "--bench-min-time=1", "-i", "env_allocs|no_alloc"]
    with tempfile.TemporaryDirectory() as d:
        cand = os.path.join(d, "candidate.sh")
        with open(cand, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\nE2E_ALLOC_EXTRA=1 exec '{ALLOC}' \"$@\"\n")
        os.chmod(cand, 0o755)
        out_json = os.path.join(d, "cmp.json")
        outcomes = {}
        for name, candidate in (("aa", ALLOC), ("more", cand)):
            rc, out, err = run([LIBBENCH, "compare", "--metric=allocs", "--runs", "3", "--json",
                                out_json, ALLOC, candidate] + args)
            with open(out_json, encoding="utf-8") as fh:
                doc = json.load(fh)
            cells = {c["name"]: c for c in doc["cells"]}
            outcomes[name] = (rc, out, err, doc, cells)
            print(f"--- compare --metric=allocs ({name})\n{out}")
            check(doc["params"]["metric"] == "allocs" and doc["params"]["metric_exact"] is True and
                  "metric: allocs per iteration, an exact count" in out and
                  "A/A floor 0 (an exact count);" in out and "min delta" not in out, f"{name}: header\n{out}")
        if SANITIZED:  # no counts: every cell UNMEASURED with the reason, never 0
            for name, (rc, out, err, doc, cells) in outcomes.items():
                check(rc == 2 and all(c["state"] == "UNMEASURED" for c in cells.values()) and
                      "metric 'allocs' is null in the row (not measured)" in out,
                      f"compare {name} (sanitized): {rc}\n{out}")
            return
        rc, out, err, doc, cells = outcomes["aa"]
        env = cells.get("alloc.env_allocs", {})
        check(rc == 0 and doc["verdict"] == "PASS" and env.get("state") == "NO_CHANGE" and
              env.get("median_baseline_ns") == 1 and env.get("floor") == 0 and
              cells.get("alloc.no_alloc", {}).get("median_candidate_ns") == 0 and
              cells.get("alloc.no_alloc", {}).get("state") == "NO_CHANGE",
              f"compare aa: {rc} {doc['verdict']} {cells}\n{out}{err}")
        rc, out, err, doc, cells = outcomes["more"]
        env = cells.get("alloc.env_allocs", {})
        check(rc == 1 and doc["verdict"] == "REGRESSION" and env.get("state") == "CLAIMED" and
              env.get("direction") == "regression" and env.get("median_baseline_ns") == 1 and
              env.get("median_candidate_ns") == 2 and env.get("rel_delta") == 1.0 and
              cells.get("alloc.no_alloc", {}).get("state") == "NO_CHANGE" and
              "│ CLAIMED regression │ exact_count" in out,
              f"compare more: {rc} {doc['verdict']} {cells}\n{out}{err}")
        # no interposer: null counts, each cell UNMEASURED with the reason (never 0)
        rc, out, err = run([LIBBENCH, "compare", "--metric=allocs", "--runs", "3", "--json",
                            out_json, COUNTING, COUNTING, "--", "--bench-min-time=1", "-i",
                            "busy_50ns"])
        with open(out_json, encoding="utf-8") as fh:
            doc = json.load(fh)
        check(rc == 2 and doc["verdict"] == "UNMEASURED" and doc["cells"] and
              all(c["state"] == "UNMEASURED" and c["median_baseline_ns"] is None
                  for c in doc["cells"]) and
              "metric 'allocs' is null in the row (not measured)" in out,
              f"compare without the interposer: {rc}\n{out}{err}")


CASES = {"exact": case_exact, "threads": case_threads, "crash": case_crash, "absent": case_absent,
         "export_record": case_export_record, "compare": case_compare}

if __name__ == "__main__":
    if not ALLOC:
        print("SKIP: E2E_ALLOC not set")
        sys.exit(77)
    CASES[sys.argv[1]]()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)
