#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_store.py: end-to-end checks that nothing breaks the results store or hangs the tool (issue
# 33), each with the real `libbench` program: documents that lack what a reader needs (no crash,
# one line each, the good ones recorded), a document whose lines would outgrow what the store
# reads (refused before a byte is written), 60 kills of `record` at random moments (every run
# whose raw object exists is reported, at most one temporary file at a time), damaged indexes
# (record stops before writing and names the fix; rebuild swaps a new index in and keeps the
# damaged one aside), --results values that are no directory, an object altered or a symbolic
# link at its key, a run number that overflows, standard output on /dev/full (the tool and a test
# binary), FIFOs (refused, never waited on), symbolic links inside the store (none followed), and
# a killed `compare` (its subject dies with it; its temporary directory is swept by the next).
import glob
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

LIBBENCH = os.environ.get("RESULTS_TOOL", "")
HISTORY = os.environ.get("RESULTS_HISTORY", "")
MISSING = os.environ.get("RESULTS_MISSING", "")
SKIP = 77
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(argv, cwd=None, timeout=120, stdout=subprocess.PIPE, env=None):
    env = dict(os.environ, **(env or {}))
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "handle_segv=0:handle_abort=0"
    p = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                       env=env, timeout=timeout, cwd=cwd)
    out = p.stdout.decode("utf-8", "replace") if p.stdout is not None else ""
    return p.returncode, out, p.stderr.decode("utf-8", "replace")


def record(store, docs, ts, *extra, cwd=None):
    return run([LIBBENCH, "record", "--results", store, "--timestamp", ts,
                "--source-revision", "", *extra, *docs], cwd=cwd)


def objects(store):
    return sorted(glob.glob(os.path.join(store, "raw", "**", "results.jsonl"), recursive=True))


def ingest_errors(store):
    return sorted(glob.glob(os.path.join(store, "ingest-errors", "**", "*.json"), recursive=True))


def bench_doc(path, n=1, name="row", median=100.0, host="h"):
    rows = [{"name": f"{name}{i}", "labels": {"k": str(i % 3)}, "iterations": 1, "samples": 32,
             "medianNs": median + i, "deviationNs": 1.0, "minNs": median, "maxNs": median + 9,
             "metrics": {"items/s": 5.0}, "contention": None, "error": ""} for i in range(n)]
    doc = {"schema": 2, "meta": {"hostname": host, "os": "linux", "arch": "x86_64", "cpu": "c",
                                 "compiler": "cc"}, "columns": [], "rows": rows}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text if isinstance(text, str) else json.dumps(text))
    return path


def one_line(err, what):
    lines = [x for x in err.splitlines() if x.strip()]
    check(len(lines) == 1, f"{what}: one line expected on stderr, got {lines!r}")


def runs_of_index(store):
    con = sqlite3.connect(os.path.join(store, "index.sqlite"))
    got = {r[0] for r in con.execute("SELECT bench_id FROM runs")}
    con.close()
    return got


def bench_ids_of_objects(store):
    return {p.split("bench_id=")[1].split("/")[0] for p in objects(store)}


def temporaries(store):
    """Files a killed process may leave: hidden files in the store, and the index's journal."""
    found = []
    for root, dirs, files in os.walk(store):
        found += [os.path.join(root, f) for f in files if f.startswith(".")]
    found += [j for j in glob.glob(os.path.join(store, "*-journal")) if hot_journal(j)]
    return found


def hot_journal(path):
    """A rollback journal SQLite would replay: its header's magic is written. A record killed
    while SQLite was creating the journal leaves an empty or headerless one, which SQLite ignores
    and the next write transaction reuses; a reader (report) has no reason to touch it."""
    try:
        with open(path, "rb") as f:
            return f.read(8) == bytes.fromhex("d9d505f920a163d7")
    except FileNotFoundError:
        return False


# ---- point 1: documents a reader must refuse, not crash on ----------------------------------

def case_missing_fields(tmp):
    store = os.path.join(tmp, "store")
    good = bench_doc(os.path.join(tmp, "good.json"), 3)
    bad = {
        "schema_only.json": {"schema": 2},
        "no_meta.json": {"schema": 2, "rows": []},
        "no_rows.json": {"schema": 2, "meta": {}},
        "run_no_meta.json": {"schema": 1, "tool": "libbench run", "rows": []},
        "run_no_rows.json": {"schema": 1, "tool": "libbench run", "meta": {"runs": 1}},
    }
    rows = {
        "row_no_name.json": {"schema": 2, "meta": {}, "rows": [{"error": ""}]},
        "row_no_error.json": {"schema": 2, "meta": {}, "rows": [{"name": "a"}]},
        "run_row_no_name.json": {"schema": 1, "tool": "libbench run", "meta": {"runs": 1},
                                 "rows": [{"command": "c", "runs": []}]},
        "run_row_no_command.json": {"schema": 1, "tool": "libbench run", "meta": {"runs": 1},
                                    "rows": [{"name": "c", "runs": []}]},
        "run_row_no_runs.json": {"schema": 1, "tool": "libbench run", "meta": {"runs": 1},
                                 "rows": [{"name": "c", "command": "c"}]},
    }
    docs = [write(os.path.join(tmp, k), v) for k, v in list(bad.items()) + list(rows.items())]
    rc, out, err = record(store, docs[:5] + [good] + docs[5:], "2026-11-01T00:00:00Z")
    check(rc == 1, f"record of documents that lack fields exited {rc} (1 expected): {err}")
    lines = err.splitlines()
    for d in docs:
        said = [x for x in lines if f"/{os.path.basename(d)}: " in x]
        check(len(said) == 1 and ("missing" in said[0] or "refused" in said[0]),
              f"{os.path.basename(d)}: one line with the reason expected, got {said}")
    check(out.startswith("recorded 3 measurements of "), f"the good document: {out!r}")
    objs = objects(store)
    check(len(objs) == 1 and len(open(objs[0]).read().splitlines()) == 3,
          f"the good document's three lines: {objs}")
    check(len(ingest_errors(store)) == len(docs), f"ingest errors: {ingest_errors(store)}")
    reasons = [json.load(open(p))["reason"] for p in ingest_errors(store)]
    check(any('"meta" is missing' in r for r in reasons), f"reasons {reasons}")


# ---- point 2: limits before anything is written ---------------------------------------------

def case_limits(tmp):
    store = os.path.join(tmp, "store")
    rows = [{"name": f"c{i}", "command": f"c{i}", "runs": [], "failure": {"run": 1,
             "exitStatus": 3}, "error": "x"} for i in range(2)]
    big = write(os.path.join(tmp, "runs.json"), {"tool": "libbench run", "schema": 1,
                                                 "meta": {"runs": 1000000}, "rows": rows})
    check(os.path.getsize(big) < 300, f"the document is {os.path.getsize(big)} bytes")
    good = bench_doc(os.path.join(tmp, "good.json"), 2)
    rc, out, err = record(store, [good, big], "2026-11-01T00:00:00Z")
    check(rc == 1 and "larger than 256 MiB" in err, f"meta.runs 1000000: exit {rc}: {err}")
    check("recorded 2 measurements of 1 document" in out, f"the other document: {out!r}")
    sizes = [os.path.getsize(p) for p in objects(store)]
    check(sizes and max(sizes) < 1 << 20, f"object sizes {sizes}")
    kept = [json.load(open(p)) for p in ingest_errors(store)]
    check(any("larger than 256 MiB" in e["reason"] and e["document"] == big for e in kept),
          f"the refused document kept with its reason: {kept}")
    # a 120 KB --source-revision over 4000 rows: 480 MB of lines, refused before any is written
    many = bench_doc(os.path.join(tmp, "many.json"), 4000)
    store2 = os.path.join(tmp, "store2")
    rc, out, err = run([LIBBENCH, "record", "--results", store2, "--timestamp",
                        "2026-11-02T00:00:00Z", "--source-revision", "r" * 120000, many])
    check(rc == 1 and "larger than 256 MiB" in err and objects(store2) == [],
          f"a 120 KB revision over 4000 rows: exit {rc}: {err[:300]}")
    # a document over the limit of every reader: refused on its size, nothing read
    huge = os.path.join(tmp, "huge.json")
    with open(huge, "wb") as f:
        f.truncate((256 << 20) + 1)
    rc, out, err = record(store, [huge], "2026-11-03T00:00:00Z")
    check(rc == 1 and "larger than 256 MiB" in err, f"a document over 256 MiB: {rc} {err}")
    rc, out, err = run([LIBBENCH, "export", "--format=csv", huge])
    check(rc == 1 and "larger than 256 MiB" in err, f"export of 256 MiB + 1: {rc} {err}")
    # the store is still whole: a rebuild reads every object
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0, f"rebuild after the refusals: {rc} {err}")


# ---- point 3: kills of record, then reconcile -----------------------------------------------

def case_kills(tmp):
    store = os.path.join(tmp, "store")
    doc = bench_doc(os.path.join(tmp, "doc.json"), 3000)
    # how long one record takes here, to spread the kills over it
    t0 = time.monotonic()
    rc, _, err = record(store, [doc], "2026-10-01T00:00:00Z")
    took = time.monotonic() - t0
    check(rc == 0, f"the first record: {rc} {err}")
    rng = random.Random(33)
    killed = 0
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":handle_segv=0").lstrip(":")
    for k in range(60):
        ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1790000000 + k * 60))
        p = subprocess.Popen([LIBBENCH, "record", "--results", store, "--timestamp", ts,
                              "--source-revision", "", doc], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env)
        time.sleep(rng.uniform(0, took * 1.2))
        p.send_signal(signal.SIGKILL)
        killed += p.wait() == -signal.SIGKILL
        left = temporaries(store)
        check(len(left) <= 1, f"kill {k}: more than one temporary file: {left}")
    check(killed > 10, f"only {killed} of 60 records were killed before their end")
    objs = bench_ids_of_objects(store)
    rep = os.path.join(tmp, "report.json")
    rc, out, err = run([LIBBENCH, "report", "--results", store, "--json", rep])
    check(rc == 0, f"report after the kills: {rc} {err}")
    got = runs_of_index(store)
    check(got == objs, f"runs with a raw object but not reported: {sorted(objs - got)}; "
                       f"reported without an object: {sorted(got - objs)}")
    rows = json.load(open(rep))["rows"]  # libbench-report/2: each row carries its history
    shown = {p["bench_id"] for r in rows for p in r["history"]["points"]}
    check(shown == objs, f"the report's history misses {sorted(objs - shown)}")
    check(temporaries(store) == [], f"temporary files after the report: {temporaries(store)}")


# ---- point 4: damaged indexes ---------------------------------------------------------------

def damage(store, how):
    path = os.path.join(store, "index.sqlite")
    data = open(path, "rb").read()
    if how == "directory":
        os.remove(path)
        os.mkdir(path)
        return
    if how == "schema":
        os.remove(path)
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE runs(x)")
        con.execute("PRAGMA user_version = 99")
        con.commit()
        con.close()
        return
    if how == "truncated":
        data = data[:len(data) // 3]
    elif how == "text":
        data = ("not a database\n" * 300).encode()
    elif how == "header":
        data = b"\x00" * 100 + data[100:]
    elif how == "pages":
        page = int.from_bytes(data[16:18], "big") or 65536
        data = bytearray(data)
        for k in range(1, len(data) // page):  # every page but the first: its schema readable
            data[k * page:k * page + 64] = os.urandom(64)
        data = bytes(data)
    with open(path, "wb") as f:
        f.write(data)


def case_damaged(tmp):
    doc = bench_doc(os.path.join(tmp, "doc.json"), 200)
    for how in ("truncated", "text", "header", "pages", "schema", "directory"):
        store = os.path.join(tmp, how)
        for day in (1, 2):
            rc, _, err = record(store, [doc], f"2026-11-0{day}T00:00:00Z")
            check(rc == 0, f"{how}: record day {day}: {err}")
        damage(store, how)
        before = objects(store)
        rc, out, err = record(store, [doc], "2026-11-03T00:00:00Z")
        fix = f"libbench results rebuild --results {store}"
        if how != "pages" or rc != 0:  # damaged pages may lie where a record never reads
            check(rc == 1 and fix in err and "recorded" not in out,
                  f"{how}: record against the damaged index: exit {rc}, {out!r}, {err!r}")
            one_line(err, f"{how}: record")
            check(objects(store) == before, f"{how}: record wrote an object before failing")
        rc, out, err = run([LIBBENCH, "report", "--results", store])
        if how != "pages" or rc != 0:
            check(rc == 2 and fix in err, f"{how}: report: exit {rc}, {err!r}")
        rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
        check(rc == 0, f"{how}: rebuild exited {rc}: {err}")
        aside = glob.glob(os.path.join(store, "index.sqlite.damaged-*"))
        aside = [a for a in aside if not a.endswith("-journal")]
        check(len(aside) == 1 and os.path.relpath(aside[0], store) in out,
              f"{how}: the damaged index kept aside and named: {aside}, {out!r}")
        con = sqlite3.connect(os.path.join(store, "index.sqlite"))
        check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", f"{how}: integrity")
        con.close()
        check(runs_of_index(store) == bench_ids_of_objects(store), f"{how}: the runs rebuilt")
        rc, out, err = record(store, [doc], "2026-11-04T00:00:00Z")
        check(rc == 0 and "recorded" in out, f"{how}: record after the rebuild: {rc} {err}")
    # a healthy index is replaced in place, nothing kept aside, the same tables
    store = os.path.join(tmp, "truncated")
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0 and "damaged" not in out, f"a rebuild over a healthy index: {rc} {out}")
    check(len(glob.glob(os.path.join(store, "index.sqlite.damaged-*"))) == 1,
          "a healthy index was kept aside")


# ---- point 5: --results values that name no directory ---------------------------------------

def case_location(tmp):
    cwd = os.path.join(tmp, "cwd")
    os.mkdir(cwd)
    doc = bench_doc(os.path.join(tmp, "doc.json"))
    for cmd in (["record", doc], ["report"], ["results", "rebuild"]):
        for value in ("--results=", "--results=postgresql://user:secret@db/bench",
                      "--results=postgres://db", "--results=s3://bucket/x",
                      "--results=file:relative"):
            rc, out, err = run([LIBBENCH, cmd[0], value] + cmd[1:], cwd=cwd)
            # a build with libpq tries the server (there is none: one line, exit 1); a build
            # without it names the package (exit 2)
            pg_try = "postgres" in value and "without libpq" not in err
            # (report's exit status for a store it cannot open is 2: 1 is a regression)
            want = 1 if pg_try and cmd[0] != "report" else 2
            check(rc == want and err.startswith("error: ") and out == "",
                  f"{cmd[0]} {value}: exit {rc}, {err!r}")
            one_line(err, f"{cmd[0]} {value}")
            check("secret" not in err, f"{cmd[0]} {value}: the URL's password echoed: {err}")
            if "postgres" in value:
                check("cannot connect" in err if pg_try else "libpq-dev" in err,
                      f"{value}: {err}")
            check(os.listdir(cwd) == [], f"{cmd[0]} {value} created {os.listdir(cwd)}")
    check(not os.path.exists("/raw"), "a record wrote at the file system's root")
    rc, out, err = run([LIBBENCH, "record", "--results", "./a:b", "--timestamp",
                        "2026-11-01T00:00:00Z", doc], cwd=cwd)
    check(rc == 0 and os.path.isdir(os.path.join(cwd, "a:b", "raw")),
          f"./a:b is a directory: {rc} {err}")


# ---- point 6: an altered object, a link at the key, a run number that overflows -------------

def case_altered(tmp):
    store = os.path.join(tmp, "store")
    doc = bench_doc(os.path.join(tmp, "doc.json"), 2)
    rc, out, err = record(store, [doc], "2026-11-01T00:00:00Z")
    check(rc == 0, f"record: {err}")
    obj = objects(store)[0]
    os.chmod(obj, 0o644)
    with open(obj, "a") as f:
        f.write("\n")
    rc, out, err = record(store, [doc], "2026-11-01T00:00:00Z")
    check(rc == 1 and "altered" in err and "recorded" not in out,
          f"an altered object at the key: exit {rc}, {out!r}, {err!r}")
    # a symbolic link at the key: refused, its target untouched
    store2 = os.path.join(tmp, "store2")
    rc, out, err = record(store2, [doc], "2026-11-01T00:00:00Z")
    obj = objects(store2)[0]
    target = os.path.join(tmp, "target")
    write(target, "")
    os.remove(obj)
    os.symlink(target, obj)
    rc, out, err = record(store2, [doc], "2026-11-01T00:00:00Z")
    check(rc == 1 and "symbolic link" in err and "recorded" not in out,
          f"a link at the key: exit {rc}, {out!r}, {err!r}")
    check(os.path.getsize(target) == 0, "the link's target was written")
    # a run number that overflows: refused, no negative run written
    store3 = os.path.join(tmp, "store3")
    run_doc = {"tool": "libbench run", "schema": 1, "meta": {"runs": 3},
               "rows": [{"name": "a", "command": "a",
                         "runs": [{"run": 1, "wallNs": 5}, {"run": 2, "wallNs": 6},
                                  {"run": 3, "wallNs": 7}]}]}
    first = write(os.path.join(tmp, "first.json"), run_doc)
    run_doc["rows"][0]["runs"] = [{"run": 9223372036854775807, "wallNs": 5}]
    second = write(os.path.join(tmp, "second.json"), run_doc)
    rc, out, err = record(store3, [second], "2026-11-01T00:00:00Z")
    check(rc == 1 and "1 row(s) refused" in err and "recorded" not in out,
          f"a run number over meta.runs alone: exit {rc}, {out!r}, {err!r}")
    kept = [json.load(open(p)) for p in ingest_errors(store3)]
    check(len(kept) == 1 and "meta.runs" in kept[0]["rows"][0]["reason"], f"the reason: {kept}")
    rc, out, err = record(store3, [first, second], "2026-11-02T00:00:00Z")
    check(rc == 1 and "1 row(s) refused" in err, f"two documents: {rc} {err}")
    for p in objects(store3):
        for line in open(p):
            check(json.loads(line)["run"] >= 0, f"a negative run written: {line}")
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store3])
    check(rc == 0 and "refused" not in out, f"the store reads its own lines: {out} {err}")


# ---- point 8: standard output that cannot be written ----------------------------------------

def case_stdout(tmp):
    if not os.path.exists("/dev/full"):
        raise Skip("no /dev/full")
    store = os.path.join(tmp, "store")
    doc = bench_doc(os.path.join(tmp, "doc.json"))
    rc, _, err = record(store, [doc], "2026-11-01T00:00:00Z")
    full = open("/dev/full", "w")
    argvs = [[LIBBENCH, "record", "--results", store, "--timestamp", "2026-11-02T00:00:00Z",
              doc],
             [LIBBENCH, "report", "--results", store],
             [LIBBENCH, "results", "rebuild", "--results", store],
             [LIBBENCH, "run", "--runs", "1", "-c", "true"],
             [LIBBENCH, "export", "--format=csv", doc]]
    if HISTORY:
        argvs += [[HISTORY], [HISTORY, "--list"], [HISTORY, "--bench", "--bench-min-time=1"]]
    for argv in argvs:
        rc, _, err = run(argv, stdout=full)
        lines = [x for x in err.splitlines() if x.startswith("error:")]
        check(rc != 0 and len(lines) == 1 and "cannot write" in lines[0],
              f"{argv[1:]} on /dev/full: exit {rc}, {err!r}")
    full.close()


# ---- point 9: FIFOs -------------------------------------------------------------------------

def case_fifo(tmp):
    fifo = os.path.join(tmp, "doc.json")
    os.mkfifo(fifo)
    store = os.path.join(tmp, "store")
    good = bench_doc(os.path.join(tmp, "good.json"))
    for argv in ([LIBBENCH, "export", "--format=csv", fifo],
                 [LIBBENCH, "compare", "--baseline", fifo, "--candidate", good],
                 [LIBBENCH, "record", "--results", store, "--timestamp",
                  "2026-11-01T00:00:00Z", fifo]):
        try:
            rc, out, err = run(argv, timeout=20)
        except subprocess.TimeoutExpired:
            check(False, f"{argv[1]} hangs on a FIFO")
            continue
        check(rc != 0 and "a FIFO, not a regular file" in err, f"{argv[1]}: {rc} {err!r}")
    rc, _, err = record(store, [good], "2026-11-02T00:00:00Z")
    check(rc == 0, f"record: {err}")
    d = os.path.dirname(objects(store)[0])
    os.mkfifo(os.path.join(d, "stray"))
    try:
        rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store], timeout=20)
        check(rc == 0 and "stray: a FIFO" in err, f"rebuild with a FIFO under raw/: {rc} {err!r}")
        rc, out, err = run([LIBBENCH, "report", "--results", store], timeout=20)
        check(rc == 0, f"report with a FIFO under raw/: {rc} {err}")
    except subprocess.TimeoutExpired:
        check(False, "a FIFO under raw/ hangs the rebuild or the report")


# ---- point 10: symbolic links inside the store ----------------------------------------------

def case_symlinks(tmp):
    doc = bench_doc(os.path.join(tmp, "doc.json"))
    # raw/v1/profile=default a link to a directory outside: refused, nothing written there
    store = os.path.join(tmp, "s1")
    outside = os.path.join(tmp, "outside")
    os.makedirs(os.path.join(store, "raw", "v1"))
    os.mkdir(outside)
    os.symlink(outside, os.path.join(store, "raw", "v1", "profile=default"))
    rc, out, err = record(store, [doc], "2026-11-01T00:00:00Z")
    check(rc == 1 and "profile=default is a symbolic link" in err and "recorded" not in out,
          f"a linked profile directory: {rc} {out!r} {err!r}")
    check(os.listdir(outside) == [], f"record wrote outside the store: {os.listdir(outside)}")
    # index.sqlite a link to an empty file: refused, the file stays empty
    store = os.path.join(tmp, "s2")
    os.mkdir(store)
    empty = os.path.join(tmp, "empty")
    write(empty, "")
    os.symlink(empty, os.path.join(store, "index.sqlite"))
    rc, out, err = record(store, [doc], "2026-11-01T00:00:00Z")
    check(rc == 1 and "index.sqlite is a symbolic link" in err and
          "libbench results rebuild" in err, f"a linked index: {rc} {err!r}")
    check(os.path.getsize(empty) == 0, "the link's target became a database")
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0 and "kept as" in out and os.path.getsize(empty) == 0,
          f"rebuild over a linked index: {rc} {out} {err}")
    check(not os.path.islink(os.path.join(store, "index.sqlite")), "the link is still the index")
    # a loop of links under raw/: each refused and named, the rebuild done
    store = os.path.join(tmp, "s3")
    rc, out, err = record(store, [doc], "2026-11-01T00:00:00Z")
    os.symlink("b", os.path.join(store, "raw", "v1", "a"))
    os.symlink("a", os.path.join(store, "raw", "v1", "b"))
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", store])
    check(rc == 0 and "raw/v1/a: a symbolic link" in err and "raw/v1/b: a symbolic link" in err,
          f"a loop of links under raw/: {rc} {out!r} {err!r}")
    check(runs_of_index(store) == {"20261101T000000Z"}, "the run rebuilt beside the links")


# ---- point 11: a killed compare -------------------------------------------------------------

def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def case_compare_kill(tmp):
    if not os.path.isdir("/proc"):
        raise Skip("no /proc to see the subject's state")
    tmpdir = os.path.join(tmp, "tmp")
    os.mkdir(tmpdir)
    pids = os.path.join(tmp, "pids")
    subject = os.path.join(tmp, "subject.sh")
    write(subject, f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 300\n")
    os.chmod(subject, 0o755)
    env = dict(os.environ, TMPDIR=tmpdir)
    p = subprocess.Popen([LIBBENCH, "compare", "--runs", "3", subject, subject],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 30
    while not os.path.exists(pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    check(os.path.exists(pids), "the subject never started")
    if not os.path.exists(pids):
        p.kill()
        return
    sub = int(open(pids).read().split()[0])
    check(alive(sub), "the subject is not running")
    dirs = glob.glob(os.path.join(tmpdir, "libbench-compare.*"))
    check(len(dirs) == 1 and f".{p.pid}." in dirs[0], f"compare's directory: {dirs}")
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 10
    while alive(sub) and time.monotonic() < deadline:
        time.sleep(0.05)
    check(not alive(sub), "the subject outlived the killed compare")
    if alive(sub):
        os.kill(sub, signal.SIGKILL)
    # the next compare sweeps what a dead one left, never what a living one holds
    mine = os.path.join(tmpdir, f"libbench-compare.{os.getpid()}.XXXXXX")
    os.mkdir(mine)
    rc, _, err = run([LIBBENCH, "compare", "--runs", "1", "/bin/false", "/bin/false"],
                     env={"TMPDIR": tmpdir})
    left = sorted(os.path.basename(d) for d in glob.glob(os.path.join(tmpdir, "libbench-*")))
    check(left == [os.path.basename(mine)], f"after the next compare: {left}")


class Skip(Exception):
    pass


CASES = {"missing_fields": case_missing_fields, "limits": case_limits, "kills": case_kills,
         "damaged": case_damaged, "location": case_location, "altered": case_altered,
         "stdout": case_stdout, "fifo": case_fifo, "symlinks": case_symlinks,
         "compare_kill": case_compare_kill}


def main():
    name = sys.argv[1]
    if MISSING and name != "compare_kill":
        print(f"skipped: {MISSING}")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory(prefix="store-e2e-") as tmp:
        try:
            CASES[name](tmp)
        except Skip as e:
            print(f"skipped: {e}")
            sys.exit(SKIP)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
