#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_results.py: end-to-end checks of the results history (`libbench record`, `libbench report`,
# `libbench results rebuild`) with the real tool, real documents of a built test binary and of
# `libbench run`, and a real SQLite file read back with python3's own sqlite3 module: the raw
# object and its lines (null never 0), ingest-errors/, a rebuild giving the same report byte for
# byte, concurrent records, the exit status of --fail-on-regression, and (case html) the HTML
# dashboard of three real recorded runs opened in headless Chromium.
import glob
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

LIBBENCH = os.environ.get("RESULTS_TOOL", "")
CASES = os.environ.get("RESULTS_CASES", "")
MISSING = os.environ.get("RESULTS_MISSING", "")
HISTORY = os.environ.get("RESULTS_HISTORY", "")
BROWSER_CHECK = os.environ.get("RESULTS_BROWSER_CHECK", "")
CHARTJS_MISSING = os.environ.get("RESULTS_CHARTJS_MISSING", "")
EM_DASH = "\u2014"
SKIP = 77

failures = []

LINE_FIELDS = ["schema_version", "bench_id", "timestamp_utc", "profile", "scenario", "operation",
               "run", "subject", "value_ns", "whole_process", "returncode", "skip_reason",
               "failure", "metrics", "source", "document", "host_id", "host", "platform",
               "machine", "cpu_model", "compiler", "library_version", "source_revision",
               "recorder_version", "provenance", "sample_count", "mad_ns", "contention",
               "estimated_metrics", "subject_role", "cache_mode_requested", "page_cache_state",
               "page_cache_reason", "cpu_user_us", "cpu_sys_us", "peak_rss_kib",
               "io_read_blocks", "io_write_blocks", "major_page_faults", "minor_page_faults",
               "vol_cs", "invol_cs", "rusage_source", "timing_contract_version",
               "binary_sha256", "sources"]
LINE_ALWAYS = LINE_FIELDS[:17] + ["timing_contract_version"]
TABLES = ["uploads", "hosts", "runs", "subjects", "measurements", "aggregates", "comparisons",
          "changes"]


def check(cond, what):
    if not cond:
        failures.append(what)


def run(argv, cwd=None, timeout=120, env=None):
    env = dict(os.environ, **(env or {}))
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "handle_segv=0:handle_abort=0"
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=env, timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def record(store, docs, ts, *extra, cwd=None):
    return run([LIBBENCH, "record", "--results", store, "--timestamp", ts, *extra, *docs],
               cwd=cwd)


def objects(store):
    return sorted(glob.glob(os.path.join(store, "raw", "**", "results.jsonl"), recursive=True))


def bench_doc(path, rows, host="h"):
    """A --bench-json document (schema 2) with the given rows: (name, median or None, error)."""
    doc = {"schema": 2,
           "meta": {"date": "2026-11-01", "hostname": host, "os": "linux", "arch": "x86_64",
                    "compiler": "GCC 12.2.0", "cpu": "cpu"},
           "columns": [], "rows": []}
    for name, median, error in rows:
        doc["rows"].append({"name": name, "labels": {}, "iterations": 1,
                            "samples": None if median is None else 32, "medianNs": median,
                            "deviationNs": None, "minNs": median, "maxNs": median,
                            "metrics": {} if error else {"instr": None, "B/s": 5},
                            "contention": None, "error": error})
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def db_dump(store):
    """Every table's rows, sorted, as text: the query results a rebuild must give again."""
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    out = []
    # an upload_id is the order objects were indexed in: the dump names each object by its key
    keys = dict(con.execute("SELECT upload_id, object_key FROM uploads").fetchall())
    for t in TABLES:
        cur = con.execute(f"SELECT * FROM {t}")
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
        if "upload_id" in names:
            i = names.index("upload_id")
            rows = [tuple(keys.get(v, v) if j == i else v for j, v in enumerate(r)) for r in rows]
        out.append(t + "\n" + "\n".join(repr(r) for r in sorted(rows, key=repr)))
    con.close()
    return "\n".join(out)


def case_record(tmp):
    """Real documents of the e2e cases binary and of `libbench run` into one raw object."""
    a = os.path.join(tmp, "a.json")
    rc, _, err = run([CASES, "--bench", "--bench-min-time=1", "--bench-json=" + a])
    check(rc == 1, f"the cases binary exited {rc} (1 expected: a failing case): {err}")
    r = os.path.join(tmp, "r.json")
    rc, _, err = run([LIBBENCH, "run", "--runs", "3", "--json", r, "-c", "true",
                      "-c", "sh -c 'exit 3'", "--name", "ok", "--name", "broken"])
    check(rc == 1, f"libbench run exited {rc}: {err}")
    # a git checkout as the working directory: its HEAD is the source revision
    repo = os.path.join(tmp, "repo")
    os.mkdir(repo)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    ok = shutil.which("git") is not None
    if ok:
        subprocess.run(git + ["init", "-q", repo], check=True)
        subprocess.run(git + ["-C", repo, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    store = os.path.join(tmp, "store")
    rc, out, err = record(store, [a, a, r], "2026-11-01T10:00:00Z", "--profile", "smoke",
                          "--subject", "main", cwd=repo)
    check(rc == 0, f"record exited {rc}: {err}")
    objs = objects(store)
    check(len(objs) == 1, f"one raw object expected, got {objs}")
    if not objs:
        return
    data = open(objs[0], "rb").read()
    sha = hashlib.sha256(data).hexdigest()
    want = (f"raw/v1/profile=smoke/date=2026-11-01/bench_id=20261101T100000Z/sha256={sha[:12]}/"
            "results.jsonl")
    check(objs[0] == os.path.join(store, want), f"object key {objs[0]}, not {want}")
    check(want in out, f"record does not name its object: {out}")
    check(os.stat(objs[0]).st_mode & 0o222 == 0, "the raw object is writable")
    lines = [json.loads(x) for x in data.decode("utf-8").splitlines()]
    bench = json.load(open(a, encoding="utf-8"))
    rundoc = json.load(open(r, encoding="utf-8"))
    want_lines = 2 * len(bench["rows"]) + 3 + 3  # `ok`: 3 runs; `broken`: a failure, 2 skips
    check(len(lines) == want_lines, f"{len(lines)} lines, not {want_lines}")
    for ln in lines:
        # the keys in the documented order; the identity always there; a key not known left
        # out (an absent key reads as null), never written as null, [] or {}
        keys = list(ln.keys())
        check(keys == [k for k in LINE_FIELDS if k in ln] and
              all(k in ln for k in LINE_ALWAYS), f"fields of a line: {keys}")
        check(all(ln[k] not in (None, [], {}) for k in keys
                  if k not in LINE_ALWAYS), f"a line writes what is not known: {ln}")
        check(ln["bench_id"] == "20261101T100000Z" and ln["subject"] == "main"
              and ln["profile"] == "smoke", f"identity of a line: {ln}")
        if ok:
            check(ln["source_revision"] == head, f"source revision {ln['source_revision']}")
        if ln["returncode"] != 0:
            check(ln["value_ns"] is None, f"a failed line has a value: {ln}")
    # every in-process row, each document a repetition (run 0 and 1), its value the median
    for row in bench["rows"]:
        op = ",".join(f"{k}={v}" for k, v in sorted(row["labels"].items()))
        mine = [ln for ln in lines if ln["scenario"] == row["name"] and ln["operation"] == op]
        check(sorted(ln["run"] for ln in mine) == [0, 1], f"runs of {row['name']}: {mine}")
        for ln in mine:
            check(ln["value_ns"] == (row["medianNs"] if not row["error"] else None),
                  f"value of {row['name']}: {ln['value_ns']} for {row['medianNs']}")
            check(ln["returncode"] == (1 if row["error"] else 0), f"returncode of {ln}")
            for k, v in row["metrics"].items():
                check(ln["metrics"].get(k, "absent") == v, f"metric {k} of {row['name']}")
            check(ln["compiler"] == bench["meta"]["compiler"], "compiler")
            check(ln["host"] == bench["meta"]["hostname"], "host")
    whole = [ln for ln in lines if ln["whole_process"]]
    check([ln["returncode"] for ln in whole if ln["scenario"] == "broken"] == [3, 77, 77],
          f"broken's lines: {[ln for ln in whole if ln['scenario'] == 'broken']}")
    check(sorted(ln["run"] for ln in whole if ln["scenario"] == "ok") == [2, 3, 4],
          "the run document's runs follow the two bench documents' repetitions")
    check(all(ln["library_version"] == rundoc["version"] for ln in whole), "library version")
    # the index, read with python's own sqlite3
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity")
    check(con.execute("SELECT count(*) FROM measurements").fetchone()[0] == len(lines),
          "measurements")
    for t in TABLES:
        con.execute(f"SELECT * FROM {t}").fetchall()
    failed = [row["name"] for row in bench["rows"] if row["error"]]
    for name in failed:
        agg = con.execute("SELECT p50_ns, p90_ns, p99_ns, sample_count, failure_rate FROM"
                          " aggregates WHERE scenario = ?", (name,)).fetchone()
        check(agg == (None, None, None, 0, 1.0), f"aggregate of failed {name}: {agg}")
    measured = con.execute("SELECT count(*) FROM aggregates WHERE sample_count > 0 AND"
                           " p50_ns IS NULL").fetchone()[0]
    check(measured == 0, "a measured aggregate without p50")
    zero = con.execute("SELECT count(*) FROM measurements WHERE returncode != 0 AND"
                       " value_ns IS NOT NULL").fetchone()[0]
    check(zero == 0, "a failed measurement stored with a value")
    con.close()
    # the same documents at the same time: the same object, not rewritten
    before = os.stat(objs[0]).st_mtime_ns
    rc, out, err = record(store, [a, a, r], "2026-11-01T10:00:00Z", "--profile", "smoke",
                          "--subject", "main", "--source-revision", head if ok else "",
                          cwd=repo)
    check(rc == 0 and "already there" in out, f"second record: {rc} {out} {err}")
    check(objects(store) == objs and os.stat(objs[0]).st_mtime_ns == before, "object rewritten")
    # the same bench_id with other bytes keeps both
    rc, _, err = record(store, [a], "2026-11-01T10:00:00Z", "--profile", "smoke", cwd=repo)
    check(rc == 0 and len(objects(store)) == 2, f"same bench_id, other bytes: {rc} {err}")
    # an estimate keeps its mark: the raw line, the index, the report's metrics, the terminal
    est = os.path.join(tmp, "est.json")
    json.dump({"schema": 2, "meta": {"hostname": "h"}, "columns": [], "rows": [
        {"name": "counted", "labels": {}, "samples": 32, "medianNs": 50.0, "deviationNs": 0.5,
         "contention": 0.125, "metrics": {"cycles": 150.0, "instr": 400.0},
         "estimatedMetrics": ["cycles"], "error": ""}]}, open(est, "w"))
    estore = os.path.join(tmp, "estore")
    rc, _, err = record(estore, [est], "2026-11-02T10:00:00Z", "--source", "lz4=abc123",
                        "--subject-role", "candidate")
    check(rc == 0, f"record of an estimate: {err}")
    ln = json.loads(open(objects(estore)[0]).read().splitlines()[0])
    check(ln["estimated_metrics"] == ["cycles"] and ln["sample_count"] == 32
          and ln["mad_ns"] == 0.5 and ln["contention"] == 0.125
          and ln["sources"] == {"lz4": "abc123"} and ln["subject_role"] == "candidate",
          f"the line of an estimate: {ln}")
    con = sqlite3.connect(os.path.join(estore, "index.sqlite"))
    row = con.execute("SELECT estimated_metrics, row_sample_count, row_mad_ns, contention"
                      " FROM measurements").fetchone()
    check(row == ('["cycles"]', 32, 0.5, 0.125), f"the index's measurement {row}")
    srcs = con.execute("SELECT sources FROM runs").fetchone()
    check(srcs == ('{"lz4":"abc123"}',), f"the run's sources {srcs}")
    con.close()
    erep = os.path.join(tmp, "est-report.json")
    rc, out, err = run([LIBBENCH, "report", "--results", estore, "--metrics", "--json", erep])
    m = json.load(open(erep))["rows"][0]["metrics"]
    check(rc == 0 and m["cycles"] == {"median": 150.0, "n": 1, "estimated": True}
          and m["instr"]["estimated"] is False, f"the report's metrics {m}")
    check(re.search(r"cycles +│ +≈150", out) and not re.search(r"≈400", out),
          f"--metrics: {out}")
    # a report of a real store draws its table, unmeasured as an em dash, never 0
    rc, out, err = run([LIBBENCH, "report", "--results", store])
    check(rc == 0, f"report exited {rc}: {err}")
    for name in failed:
        line = next((x for x in out.splitlines() if f" {name} " in x), "")
        check("fail" in line and "—" in line, f"report row of {name}: {line!r}")


def case_malformed(tmp):
    store = os.path.join(tmp, "store")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": 2, "rows": [')
    rc, out, err = record(store, [bad], "2026-11-02T00:00:00Z")
    check(rc == 1, f"a malformed document: exit {rc}")
    check(objects(store) == [], "a malformed document made a raw object")
    errs = glob.glob(os.path.join(store, "ingest-errors", "**", "*.json"), recursive=True)
    check(len(errs) == 1, f"ingest errors: {errs}")
    if errs:
        e = json.load(open(errs[0], encoding="utf-8"))
        check(e["document"] == bad and "not JSON" in e["reason"], f"ingest error: {e}")
        check(e["text"] == '{"schema": 2, "rows": [', "the refused text is kept")
        check("bench_id=20261102T000000Z" in errs[0], f"ingest error path {errs[0]}")
        check(os.path.relpath(errs[0], store) in err, f"stderr names the error file: {err}")
    # a document with one bad row: the other rows recorded, the bad one kept with its reason
    doc = bench_doc(os.path.join(tmp, "rows.json"), [("good", 10.0, ""), ("other", 5.0, "")])
    d = json.load(open(doc))
    d["rows"][1]["medianNs"] = "fast"
    json.dump(d, open(doc, "w"))
    rc, out, err = record(store, [doc], "2026-11-03T00:00:00Z")
    check(rc == 1, f"a document with a bad row: exit {rc}")
    objs = objects(store)
    check(len(objs) == 1, f"objects {objs}")
    if objs:
        lines = open(objs[0]).read().splitlines()
        check(len(lines) == 1 and '"scenario":"good"' in lines[0], f"lines {lines}")
    errs = glob.glob(os.path.join(store, "ingest-errors", "**", "*.json"), recursive=True)
    rows = [json.load(open(p)) for p in errs]
    rows = [e for e in rows if e.get("reason") == "rows refused"]
    check(len(rows) == 1 and rows[0]["rows"][0]["row"] == 1
          and rows[0]["rows"][0]["value"]["name"] == "other"
          and "medianNs" in rows[0]["rows"][0]["reason"], f"row error {rows}")
    # a raw object with a line the reader cannot accept (synced from elsewhere): rebuild keeps
    # the good lines, and the bad one lands in ingest-errors/
    text = ('{"schema_version":1}\n' + open(objs[0]).read()).encode()
    sha = hashlib.sha256(text).hexdigest()
    key = (f"raw/v1/profile=default/date=2026-11-04/bench_id=20261104T000000Z/sha256={sha[:12]}/"
           "results.jsonl")
    good = open(objs[0]).read().replace("20261103T000000Z", "20261104T000000Z").replace(
        "2026-11-03T00:00:00Z", "2026-11-04T00:00:00Z")
    text = ('{"schema_version":1}\n' + good).encode()
    sha = hashlib.sha256(text).hexdigest()
    key = key[:key.index("sha256=") + 7] + sha[:12] + "/results.jsonl"
    os.makedirs(os.path.dirname(os.path.join(store, key)))
    open(os.path.join(store, key), "wb").write(text)
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0 and "1 line refused" in out, f"rebuild: {rc} {out} {err}")
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    n = con.execute("SELECT row_count, rejected_count FROM uploads WHERE bench_id ="
                    " '20261104T000000Z'").fetchone()
    check(n == (1, 1), f"upload of the object with a bad line: {n}")
    con.close()
    errs = glob.glob(os.path.join(store, "ingest-errors", "**", "*.json"), recursive=True)
    raw_errs = [json.load(open(p)) for p in errs]
    raw_errs = [e for e in raw_errs if e.get("kind") == "raw-object"]
    check(len(raw_errs) == 1 and raw_errs[0]["lines"][0]["line"] == 1
          and "bench_id" in raw_errs[0]["lines"][0]["reason"]
          and raw_errs[0]["lines"][0]["text"] == '{"schema_version":1}', f"raw errors {raw_errs}")


def week(tmp, store, slow_day=None, fail_day=None):
    """A week of simulated history: one document a day, recorded in shuffled order."""
    days = [3, 0, 6, 1, 5, 2, 4]
    for day in days:
        rows = [("parse", 1000.0 + day, ""), ("scan", 200.0, ""),
                ("encode", 5000.0 * (2 if day == slow_day else 1), ""),
                ("flaky", None if day == fail_day else 50.0,
                 "boom" if day == fail_day else "")]
        doc = bench_doc(os.path.join(tmp, f"day{day}.json"), rows)
        rc, _, err = record(store, [doc, doc, doc], f"2026-11-{10 + day:02d}T08:00:00Z",
                            "--profile", "nightly")
        check(rc == 0, f"record day {day}: {rc} {err}")


def case_rebuild(tmp):
    store = os.path.join(tmp, "store")
    week(tmp, store, slow_day=6)
    rep = os.path.join(tmp, "before.json")
    rc, table_before, err = run([LIBBENCH, "report", "--results", store, "--json", rep])
    check(rc == 0, f"report: {rc} {err}")
    before, dump_before = open(rep, "rb").read(), db_dump(store)
    os.remove(os.path.join(store, "index.sqlite"))
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0 and "from 7 raw objects" in out, f"rebuild: {rc} {out} {err}")
    rep2 = os.path.join(tmp, "after.json")
    rc, table_after, err = run([LIBBENCH, "report", "--results", store, "--json", rep2])
    check(open(rep2, "rb").read() == before, "the report after a rebuild differs")
    check(table_after == table_before, "the table after a rebuild differs")
    check(db_dump(store) == dump_before, "the index's tables after a rebuild differ")
    # an index made by another version of libbench is rebuilt from raw/ before it is read
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    rc, table_stale, err = run([LIBBENCH, "report", "--results", store])
    check(rc == 0 and "made by another version of libbench" in err
          and table_stale == table_before, f"a stale index: {rc} {err}")
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    check(con.execute("PRAGMA user_version").fetchone() == (3,), "the index's version")
    # an index of version 2 (measurements named their object by its key) opens the same way
    con.execute("ALTER TABLE measurements RENAME COLUMN upload_id TO object_key")
    con.execute("UPDATE measurements SET object_key = (SELECT u.object_key FROM uploads u"
                " WHERE u.upload_id = measurements.object_key)")
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()
    rc, table_v2, err = run([LIBBENCH, "report", "--results", store])
    check(rc == 0 and "made by another version of libbench" in err
          and table_v2 == table_before, f"an index of version 2: {rc} {err}")
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    check(con.execute("PRAGMA user_version").fetchone() == (3,), "the index's version after 2")
    check(con.execute("SELECT typeof(upload_id) FROM measurements LIMIT 1").fetchone()
          == ("integer",), "measurements name their object by upload_id")
    con.close()
    check(db_dump(store) == dump_before, "the index's tables after version 2 differ")
    # rebuilt in place, over the index, the same again
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0 and db_dump(store) == dump_before, "a rebuild over the index differs")
    d = json.loads(before)
    check(d["selection"]["target"]["bench_id"] == "20261116T080000Z"
          and d["selection"]["baseline"]["bench_id"] == "20261115T080000Z",
          f"selection {d['selection']}")
    states = [(r["scenario"], r["state"]) for r in d["rows"]]
    check(states[0] == ("encode", "regression"), f"states {states}")
    hist = {r["scenario"]: r["history"] for r in d["rows"]}
    check([p["bench_id"][6:8] for p in hist["parse"]["points"]] ==
          ["10", "11", "12", "13", "14", "15", "16"], "history oldest first")
    # the comparisons table: every run against the one before it, the states of the
    # previous-run rule (--mode=latest-vs-previous)
    prev = os.path.join(tmp, "previous.json")
    rc, _, err = run([LIBBENCH, "report", "--results", store, "--mode=latest-vs-previous",
                      "--json", prev])
    dp = json.load(open(prev))
    check(rc == 0 and dp["selection"]["mode"] == "latest_vs_previous", f"previous: {rc} {err}")
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    comp = dict(con.execute("SELECT scenario, state FROM comparisons WHERE bench_id ="
                            " '20261116T080000Z'").fetchall())
    check(comp == {r["scenario"]: r["state"] for r in dp["rows"]}, f"comparisons {comp}")
    # the changes table: every series' change points, the same as the report's (the report
    # judged every row of the latest run over its whole history on this host)
    table = sorted(con.execute("SELECT scenario, bench_id, previous_bench_id, runs_before,"
                               " runs_after, size_rel, p FROM changes").fetchall())
    listed = sorted((r["scenario"], c["bench_id"], c["previous_bench_id"], c["runs_before"],
                     c["runs_after"], c["size_rel"], c["p"])
                    for r in d["rows"] for c in r["history"]["changes"])
    check(table == listed, f"changes table {table} vs the report's {listed}")
    # the same data gives the same document, byte for byte
    again = os.path.join(tmp, "again.json")
    run([LIBBENCH, "report", "--results", store, "--json", again])
    check(open(again, "rb").read() == before, "two reports of one store differ")
    first = con.execute("SELECT DISTINCT state, baseline_bench_id FROM comparisons WHERE"
                        " bench_id = '20261110T080000Z'").fetchall()
    check(first == [("unmeasured", None)], f"the first run's comparisons {first}")
    con.close()
    latest = {x["scenario"]: x["values_ns"] for x in d["rows"]}
    check(latest["parse"] == [1006.0, 1006.0, 1006.0], f"latest values {latest['parse']}")
    print(table_before)


def case_concurrent(tmp):
    store = os.path.join(tmp, "store")
    procs = []
    env = dict(os.environ)
    for i in range(8):
        doc = bench_doc(os.path.join(tmp, f"c{i}.json"), [(f"row{i}", 100.0 + i, ""),
                                                          ("shared", 10.0 * (i + 1), "")])
        # two processes per second: the same bench_id with different bytes too
        ts = f"2026-11-20T00:00:{i // 2:02d}Z"
        procs.append(subprocess.Popen([LIBBENCH, "record", "--results", store, "--timestamp",
                                       ts, doc], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, env=env))
    for p in procs:
        out, err = p.communicate(timeout=300)
        check(p.returncode == 0, f"a concurrent record exited {p.returncode}: {err.decode()}")
    check(len(objects(store)) == 8, f"objects {len(objects(store))}")
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity")
    check(con.execute("SELECT count(*) FROM uploads").fetchone()[0] == 8, "uploads")
    check(con.execute("SELECT count(*) FROM measurements").fetchone()[0] == 16, "measurements")
    check(con.execute("SELECT count(*) FROM runs").fetchone()[0] == 4, "runs (4 bench_ids)")
    shared = con.execute("SELECT total_count FROM aggregates WHERE scenario = 'shared'"
                         " ORDER BY bench_id").fetchall()
    check(shared == [(2,)] * 4, f"shared aggregates {shared}")
    con.close()
    dump = db_dump(store)
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0 and db_dump(store) == dump, f"rebuild after concurrent records: {err}")
    leftovers = [p for p in glob.glob(os.path.join(store, "raw", "**", ".*"), recursive=True)]
    check(leftovers == [], f"temporary files left: {leftovers}")


def case_gate(tmp):
    store = os.path.join(tmp, "store")
    base = bench_doc(os.path.join(tmp, "base.json"), [("same", 1000.0, ""), ("slow", 1000.0, ""),
                                                      ("breaks", 1000.0, "")])
    rc, _, err = record(store, [base, base, base], "2026-11-21T00:00:00Z")
    check(rc == 0, f"record base: {err}")
    ok = bench_doc(os.path.join(tmp, "ok.json"), [("same", 1000.0, ""), ("slow", 1001.0, ""),
                                                  ("breaks", 990.0, "")])
    rc, _, err = record(store, [ok, ok, ok], "2026-11-22T00:00:00Z")
    rc, _, err = record(store, [base, base, base], "2026-11-22T12:00:00Z")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--fail-on-regression"])
    check(rc == 0, f"no regression: exit {rc} {out} {err}")
    bad = bench_doc(os.path.join(tmp, "bad.json"), [("same", 1000.0, ""), ("slow", 1500.0, ""),
                                                    ("breaks", None, "it broke")])
    rc, _, err = record(store, [bad, bad, bad], "2026-11-23T00:00:00Z")
    rep = os.path.join(tmp, "rep.json")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--json", rep])
    check(rc == 0, f"without --fail-on-regression: exit {rc}")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--fail-on-regression"])
    check(rc == 1, f"with --fail-on-regression: exit {rc} {err}")
    d = json.load(open(rep))
    got = [(r["scenario"], r["state"]) for r in d["rows"]]
    check(got == [("breaks", "fail"), ("slow", "regression"), ("same", "ok")], f"rows {got}")
    brk = d["rows"][0]
    check(brk["target"]["p50_ns"] is None and brk["target"]["failure_rate"] == 1.0
          and brk["delta_ns"]["p50"] is None, f"a failed row's numbers: {brk}")
    slow = d["rows"][1]
    # one run, its three repetitions moved together, over a history without noise: unmistakable,
    # judged against the level of the runs before it
    check(slow["why"] == ["unmistakable_run"] and slow["since"]["bench_id"] == "20261123T000000Z"
          and slow["reference_level_ns"] == 1000.0 and slow["delta_ns"]["p50"] == 500.0
          and abs(slow["slower_pct"]["p50"] - 50) < 1e-9, f"slow: {slow}")
    # tails with 3 samples are not judged, and the reason says so
    check(slow["delta_ns"]["p90"] is None and slow["tails"]["p90"]["reason"] == "p90_few_samples"
          and slow["not_judged"] == ["p90_few_samples", "p99_few_samples"], f"tails {slow}")
    # the rule before change points, on demand
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--mode=latest-vs-previous",
                        "--json", rep])
    d = json.load(open(rep))
    slow = [r for r in d["rows"] if r["scenario"] == "slow"][0]
    check(rc == 0 and slow["state"] == "regression" and slow["why"] == ["baseline_p50_ms"]
          and slow["delta_ns"]["p50"] == 500.0, f"latest-vs-previous: {slow}")
    # a higher threshold, the minimum a reportable change: one run 50% slower is not one (the
    # previous-run rule reads it watch), the failure still fails
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--baseline-pct", "60",
                        "--tail-pct", "60", "--fail-on-regression"])
    check(rc == 1 and re.search(r"ok .* slow .* steady", out), f"--baseline-pct 60: {rc} {out}")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--baseline-pct", "60",
                        "--tail-pct", "60", "--mode=latest-vs-previous"])
    check(rc == 0 and re.search(r"watch .* slow ", out), f"--baseline-pct 60, previous: {out}")
    # the next run is as slow: still regressed since the 23rd, which the previous-run rule
    # forgets; --fail-on-regression follows the lasting state
    rc, _, err = record(store, [bad, bad, bad], "2026-11-23T12:00:00Z")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--fail-on-regression",
                        "--json", rep])
    d = json.load(open(rep))
    slow = [r for r in d["rows"] if r["scenario"] == "slow"][0]
    check(rc == 1 and slow["state"] == "regression"
          and slow["since"]["bench_id"] == "20261123T000000Z"
          and re.search(r"regression .* slow .* 20261123T000000Z", out), f"lasting: {rc} {slow}")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--mode", "latest-vs-previous",
                        "--json", rep])
    d = json.load(open(rep))
    check([r["state"] for r in d["rows"] if r["scenario"] == "slow"] == ["ok"],
          f"the previous-run rule forgets it: {d['rows']}")
    # against the run where it began, nothing changed; --since after it, no slower history
    for extra in (["--baseline-run", "20261123T000000Z"], ["--since", "2026-11-23"]):
        rc, out, err = run([LIBBENCH, "report", "--results", store, "--json", rep] + extra)
        d = json.load(open(rep))
        slow = [r for r in d["rows"] if r["scenario"] == "slow"][0]
        check(rc == 0 and slow["state"] != "regression", f"{extra}: {rc} {err} {slow['state']}")
    check(d["selection"]["since"] == "2026-11-23", f"since {d['selection']}")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--baseline-run",
                        "20261101T000000Z"])
    check(rc == 2 and "--baseline-run" in err, f"an unknown baseline run: {rc} {err}")
    # subjects: another subject's latest run as the baseline
    rc, _, err = record(store, [base], "2026-11-24T00:00:00Z", "--subject", "other")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--target", "local",
                        "--baseline", "other", "--json", rep])
    d = json.load(open(rep))
    check(rc == 0 and d["selection"]["mode"] == "subjects"
          and d["selection"]["baseline"]["bench_id"] == "20261124T000000Z"
          and d["selection"]["target"]["bench_id"] == "20261123T120000Z", f"subjects {d['selection']}")
    # another host: not a baseline unless --cross-host
    far = bench_doc(os.path.join(tmp, "far.json"), [("same", 1000.0, "")], host="elsewhere")
    rc, _, err = record(store, [far], "2026-11-25T00:00:00Z")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--json", rep])
    d = json.load(open(rep))
    check(d["selection"]["baseline"] is None and d["rows"][0]["state"] == "unmeasured",
          f"another host: {d['selection']} {d['rows']}")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--cross-host", "--json", rep])
    d = json.load(open(rep))
    check(d["selection"]["baseline"]["bench_id"] == "20261124T000000Z", "--cross-host")


def case_cli(tmp):
    for argv in (["record"], ["record", "--profile", "a/b", "x.json"],
                 ["record", "--timestamp", "yesterday", "x.json"], ["report", "--bogus"],
                 ["report", "--baseline", "x"], ["report", "--baseline-pct", "ten"],
                 ["report", "--mode", "weekly"], ["report", "--since", "yesterday"],
                 ["report", "--baseline-run", "x"],
                 ["report", "--baseline-run", "20261101T000000Z", "--mode=latest-vs-previous"],
                 ["record", "--source", "lz4", "x.json"],
                 ["record", "--subject-role", "boss", "x.json"],
                 ["results"], ["results", "drop"]):
        rc, out, err = run([LIBBENCH] + argv)
        check(rc == 2 and err.startswith("error: "), f"{argv}: {rc} {err}")
    rc, out, err = run([LIBBENCH, "report", "--results", os.path.join(tmp, "empty")])
    check(rc == 2 and "no run recorded" in err, f"empty store: {rc} {err}")
    check(not os.path.exists(os.path.join(tmp, "empty")), "a report created a store")
    for cmd in ("record", "report", "results"):
        rc, out, err = run([LIBBENCH, cmd, "--help"])
        check(rc == 0 and out.startswith("usage: libbench " + cmd), f"{cmd} --help")


class Skip(Exception):
    pass


# The dashboard's states, worst first (docs/reference/results.md, "The sort").
STATE_ORDER = ["fail", "unmeasured", "regression", "guardrail", "watch", "ok"]


def case_html(tmp):
    """Eight real runs of the history suite, three repetitions each, recorded on eight days:
    `sort` slowed twentyfold from day 5 on, `parse` failing its check once on day 8. `report
    --html` opened in headless Chromium at 1400 px: no console error, no request off the file, the
    rows in state order with the expected states, the open regression at the top since day 5, every
    chart drawn and painted, the change point of `sort` marked and listed, and nothing that
    scrolls sideways."""
    if CHARTJS_MISSING:
        raise Skip(CHARTJS_MISSING)
    store = os.path.join(tmp, "store")
    # four runs on each side of the step: a shared machine's load can move an untouched run by
    # half (one day's median of three against the next), and a side of three runs must hold
    # without each of its runs in turn (the detector's rule for short sides)
    for day in range(1, 9):
        docs = []
        for rep in "abc":  # three repetitions: each row's p50 is the median of three medians
            env = {}
            if day >= 5:
                env = {"HISTORY_SLOW": "sort", "HISTORY_SLOW_FACTOR": "20"}
            if day == 8 and rep == "c":
                env["HISTORY_FAIL"] = "parse"
            doc = os.path.join(tmp, f"day{day}{rep}.json")
            docs.append(doc)
            rc, _, err = run([HISTORY, "--bench", "--bench-min-time=2", "--bench-json=" + doc],
                             env=env)
            want = 1 if "HISTORY_FAIL" in env else 0
            check(rc == want, f"day {day}: the history suite exited {rc} ({want} expected): {err}")
            rows = {r["name"]: r for r in json.load(open(doc, encoding="utf-8"))["rows"]}
            check(sorted(rows) == ["history.checksum", "history.histogram", "history.parse",
                                   "history.sort"], f"day {day}: rows {sorted(rows)}")
            if want:
                check(rows["history.parse"]["error"] and rows["history.parse"]["medianNs"] is None,
                      f"the failing row is not an error row: {rows['history.parse']}")
        rc, _, err = record(store, docs, f"2026-11-0{day}T06:00:00Z", "--profile", "nightly",
                            "--subject", "main", "--source", f"history=build{min(day, 5)}")
        check(rc == 0, f"record day {day} exited {rc}: {err}")
    page = os.path.join(tmp, "report.html")
    doc = os.path.join(tmp, "report.json")
    # A twentyfold slowdown against a 300% minimum: load on a shared machine can make an
    # untouched row slower, not four times as slow in the median of three.
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--baseline-pct", "300",
                        "--tail-pct", "1000", "--json", doc, "--html", page])
    check(rc == 0, f"report --html exited {rc}: {err}")
    if rc != 0:
        return
    # --html alone makes the same page; a page that cannot be written is exit 2 with the reason
    alone = os.path.join(tmp, "alone.html")
    rc, out2, err = run([LIBBENCH, "report", "--results", store, "--baseline-pct", "300",
                         "--tail-pct", "1000", "--html", alone])
    check(rc == 0 and out2 == out, f"report --html alone: {rc} {err}")
    check(os.path.exists(alone) and open(alone, "rb").read() == open(page, "rb").read(),
          "--html without --json made another page")
    # the page made from the document by itself is the same page
    rc, _, err = run([LIBBENCH, "report", "--results", store, "--html",
                      os.path.join(tmp, "no", "such", "dir", "p.html")])
    check(rc == 2 and err.startswith("libbench report: ") and len(err.splitlines()) == 1,
          f"an unwritable page: exit {rc}, stderr {err!r}")
    rc, _, err = run([LIBBENCH, "report", "--results", store, "--html", alone, "--html", alone])
    check(rc == 2 and "--html given more than once" in err, f"--html twice: {rc} {err}")
    report = json.load(open(doc, encoding="utf-8"))
    states = [(r["scenario"], r["state"]) for r in report["rows"]]
    why = [(r["scenario"], r["why"], r["slower_pct"]) for r in report["rows"]]
    check(states[:2] == [("history.parse", "fail"), ("history.sort", "regression")],
          f"the failing row, then the slowed one, expected first: {states} {why}")
    check(all(st in ("watch", "ok") for _, st in states[2:]), f"untouched rows: {why}")
    sort = report["rows"][1]
    check(sort["since"] and sort["since"]["bench_id"] == "20261105T060000Z"
          and sort["since"]["sources"] == {"history": "build5"}, f"sort since {sort['since']}")
    cps = sort["history"]["changes"]
    check(len(cps) == 1 and cps[0]["bench_id"] == "20261105T060000Z" and cps[0]["open"]
          and cps[0]["size_rel"] > 5, f"sort's change point {cps}")
    check(all(len(r["history"]["points"]) == 8 for r in report["rows"]),
          "a history without 8 points")
    text = open(page, encoding="utf-8").read()
    check("http://" not in text.replace("http://www.w3.org", "") and "https://" not in
          text.split("<script")[0], "the page names a URL outside its scripts")
    out_json = os.path.join(tmp, "check.json")
    p = subprocess.run([sys.executable, BROWSER_CHECK, page, "--json", out_json, "--width",
                        "1400"], capture_output=True, text=True, timeout=150)
    if p.returncode == SKIP:
        raise Skip(p.stdout.strip())
    check(p.returncode == 0, f"browser_check exited {p.returncode}: {p.stderr}")
    if not os.path.exists(out_json):
        return
    seen = json.load(open(out_json, encoding="utf-8"))
    check(seen["console"] == [], f"console errors: {seen['console']}")
    check(seen["requests"] == [], f"requests off the file: {seen['requests']}")
    got = [(r["cells"][1], r["state"]) for r in seen["rows"]]
    check(len(got) == len(states), f"{len(got)} rows in the page, {len(states)} in the report")
    check([st for _, st in got] == [st for _, st in states], f"page states {got} vs {states}")
    check(all(scenario in cell for (cell, _), (scenario, _) in zip(got, states)),
          f"page rows {got} not in the report's order {states}")
    ranks = [STATE_ORDER.index(st) for _, st in got]
    check(ranks == sorted(ranks), f"the page's rows are not in state order: {got}")
    # the failing row: its two successful samples still measured, n 2, one failure of three
    check(seen["rows"] and seen["rows"][0]["cells"][2] == "2"
          and seen["rows"][0]["cells"][6].startswith("1/3"),
          f"the failing row's n and failures: {seen['rows'][:1]}")
    # at 1400 px the table does not scroll sideways, its details folded or open
    for layout in (seen["layout"], seen["layout_details_open"]):
        check(layout["window"] == 1400 and layout["doc_scroll"] <= layout["doc_client"]
              and layout["table_scroll"] <= layout["wrap_client"],
              f"the table does not fit 1400 px: {layout}")
    # the top: the open regression first
    check(seen["open_regressions"] == 1 and "regressed since 2026-11-05" in seen["text"],
          f"the top: {seen['open_regressions']} open regressions")
    # the change point of sort: marked on its chart, listed under it
    hist = [c for c in seen["charts"] if c["id"] == "history-1"]
    check(hist and hist[0]["markers"] == 1, f"sort's chart markers: {hist}")
    check(seen["change_points"] == sum(len(r["history"]["changes"]) for r in report["rows"]),
          f"listed change points {seen['change_points']}")
    # a history chart per row; no distribution chart under 10 samples (3 here), the values
    # said instead, and the failing row's missing distribution said
    charts = seen["charts"]
    check(len(charts) == len(states) and all(c["id"].startswith("history-") for c in charts),
          f"{len(charts)} charts for {len(states)} rows: {[c['id'] for c in charts]}")
    check("(no histogram under 10)" in seen["text"], "the few values are not said")
    check("No successful measurement in the latest run" not in seen["text"]
          or "parse" in seen["text"], "a missing distribution")
    for c in charts:
        check(c["drawn"] and c["painted"] > 0, f"chart not drawn or blank: {c}")


CASES_BY_NAME = {"record": case_record, "malformed": case_malformed, "rebuild": case_rebuild,
                 "concurrent": case_concurrent, "gate": case_gate, "cli": case_cli,
                 "html": case_html}


def main():
    if MISSING:
        print(f"skipped: {MISSING}")
        sys.exit(77)
    name = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="results-e2e-") as tmp:
        try:
            CASES_BY_NAME[name](tmp)
        except Skip as e:
            print(f"skipped: {e}")
            sys.exit(SKIP)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
