#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_pg.py: end-to-end checks of the PostgreSQL results store (issue 29) with the real `libbench`
# program against a real server (LIBBENCH_TEST_PG_URL, a superuser's URL: tests/e2e/pg_cluster.sh
# starts a throwaway cluster and prints it; .ci/run does). Each case works in a database of its
# own. Cases: record (record, report, rebuild, push, LIBBENCH_RESULTS, the password never shown),
# identical (the same runs recorded into a SQLite store and into PostgreSQL give the same
# `report --json`), concurrent (8 recorders x 10 runs: all stored, none twice), kills (a recorder
# killed with SIGKILL at random moments leaves whole objects only, and a rebuild gives the index
# the reconciled one was), down (no server: one line, exit 1; the connection cut mid-record: one
# line, exit 1, nothing stored, and the retry stores the run once), retry (serialization failures
# and deadlocks injected by a trigger: retried, at most 8 tries). Skips (77) with the reason
# without a server or without the PostgreSQL store in the tool.
import glob
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

LIBBENCH = os.environ.get("RESULTS_TOOL", "")
MISSING = os.environ.get("RESULTS_MISSING", "")
PG_MISSING = os.environ.get("RESULTS_PG_MISSING", "")
ADMIN_URL = os.environ.get("LIBBENCH_TEST_PG_URL", "")
SKIP = 77
TABLES = ["uploads", "hosts", "runs", "subjects", "measurements", "aggregates", "comparisons",
          "changes"]
failures = []


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        failures.append(what)


def run(argv, env=None, timeout=300):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=dict(os.environ, **(env or {})),
                       timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def psql(url, sql):
    p = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(f"psql: {p.stderr.decode()}")
    return p.stdout.decode().strip()


def with_db(url, db):
    """url with its database name replaced by db."""
    base, q, query = url.partition("?")
    return base[:base.rindex("/")] + "/" + db + q + query


made = []  # the databases and roles a case made: dropped at its end


def fresh_db(case):
    db = f"lbt_{case}_{os.getpid()}"
    psql(ADMIN_URL, f"DROP DATABASE IF EXISTS {db}")
    psql(ADMIN_URL, f"CREATE DATABASE {db}")
    made.append("DATABASE " + db)
    return with_db(ADMIN_URL, db)


def drop_made():
    for what in reversed(made):
        try:
            psql(ADMIN_URL, f"DROP {what}" + (" WITH (FORCE)" if what.startswith("DATA") else ""))
        except RuntimeError as e:
            print(f"note: {e}")


def password():
    m = re.match(r"[^:]+://[^:@/]*:([^@/]+)@", ADMIN_URL)
    return m.group(1) if m else None


def no_password(text, what):
    pw = password()
    check(not pw or pw not in text, f"{what}: the password is shown: {text!r}")


def bench_doc(path, rows, host="h"):
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


def record(store, docs, ts, cache, *extra):
    return run([LIBBENCH, "record", "--results", store, "--timestamp", ts,
                "--source-revision", "", *extra, *docs], env={"XDG_CACHE_HOME": cache})


def week(tmp, store, cache):
    for day in [3, 0, 6, 1, 5, 2, 4]:
        rows = [("parse", 1000.0 + day, ""), ("scan", 200.0, ""),
                ("encode", 5000.0 * (2 if day == 6 else 1), ""),
                ("flaky", None if day == 2 else 50.0, "boom" if day == 2 else "")]
        doc = bench_doc(os.path.join(tmp, f"day{day}.json"), rows)
        rc, _, err = record(store, [doc, doc], f"2026-11-{10 + day:02d}T08:00:00Z", cache,
                            "--profile", "nightly")
        check(rc == 0, f"record day {day}: {rc} {err}")


def no_cache(cache):
    """Nothing of the store on the runner: its index is on the server."""
    return not glob.glob(os.path.join(cache, "libbench", "pg-*"))


def db_dump(url):
    """The index tables on the server, each row with its object's key for its upload_id (a
    rebuild gives new ids), rows sorted."""
    out = []
    for t in TABLES:
        cols = psql(url, "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM "
                         f"information_schema.columns WHERE table_name = 'libbench_index_{t}'")
        sel = ", ".join("(SELECT object_key FROM libbench_index_uploads u WHERE u.upload_id = "
                        f"x.upload_id)" if c == "upload_id" else f"x.{c}::text"
                        for c in cols.split(","))
        rows = psql(url, f"SELECT {sel} FROM libbench_index_{t} x").split("\n")
        out.append(t + "\n" + "\n".join(sorted(rows)))
    return "\n".join(out)


def indexed(url, table):
    return int(psql(url, f"SELECT count(*) FROM libbench_index_{table}"))


def whole_objects(url):
    """The objects whose bytes are not their key's (a partial write would be one)."""
    return psql(url, "SELECT count(*) FROM libbench_raw_objects WHERE sha256 <> "
                     "encode(sha256(bytes), 'hex') OR key NOT LIKE '%sha256=' || "
                     "substr(sha256, 1, 12) || '/results.jsonl'")


def case_record(tmp):
    url = fresh_db("record")
    cache = os.path.join(tmp, "cache")
    week(tmp, url, cache)
    check(psql(url, "SELECT count(*) FROM libbench_raw_objects") == "7", "7 raw objects")
    check(psql(url, "SELECT max(version) FROM libbench_schema") == "1", "schema version 1")
    # the same bytes again: already there, one more upload logged, no new object
    rc, out, err = record(url, [os.path.join(tmp, "day3.json")] * 2, "2026-11-13T08:00:00Z",
                          cache, "--profile", "nightly")
    check(rc == 0 and "(already there)" in out, f"record again: {rc} {out} {err}")
    no_password(out + err, "record")
    check(psql(url, "SELECT count(*) FROM libbench_raw_objects") == "7", "still 7 objects")
    check(psql(url, "SELECT count(*) FROM libbench_raw_uploads WHERE already") == "1",
          "the second upload logged as already there")
    # append-only: the server refuses an update, even from its owner
    try:
        psql(url, "UPDATE libbench_raw_objects SET bytes = 'x'")
        check(False, "an UPDATE of a raw object was accepted")
    except RuntimeError as e:
        check("append-only" in str(e), f"update refused: {e}")
    rc, out, err = run([LIBBENCH, "report", "--results", url, "--json", os.path.join(tmp, "r.json")],
                       env={"XDG_CACHE_HOME": cache})
    check(rc in (0, 1) and "encode" in out, f"report: {rc} {out} {err}")
    no_password(out + err, "report")
    rep = json.load(open(os.path.join(tmp, "r.json")))
    check(password() is None or password() not in json.dumps(rep), "report --json shows the password")
    check(no_cache(cache), "nothing of the store on the runner")
    check(indexed(url, "uploads") == 7 and indexed(url, "runs") == 7,
          "the index tables on the server hold the 7 objects")
    check(psql(url, "SELECT max(version) FROM libbench_index_schema") == "1",
          "index tables version 1")
    before = db_dump(url)
    # LIBBENCH_RESULTS, and a rebuild of the index tables from the raw objects
    other = os.path.join(tmp, "other")
    rc, out, err = run([LIBBENCH, "results", "rebuild"],
                       env={"XDG_CACHE_HOME": other, "LIBBENCH_RESULTS": url})
    check(rc == 0 and "from its 7 raw objects" in out, f"rebuild: {rc} {out} {err}")
    no_password(out + err, "rebuild")
    check(db_dump(url) == before, "the rebuild gives the same index")
    psql(url, "DELETE FROM libbench_index_measurements; DELETE FROM libbench_index_runs")
    rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", url],
                       env={"XDG_CACHE_HOME": cache})
    check(rc == 0 and db_dump(url) == before, f"rebuild of a damaged index: {rc} {err}")
    # the roles of the how-to: a recorder inserts and reads, a reader only reads
    db = url.rsplit("/", 1)[1]
    recorder, reader = f"lbt_recorder_{os.getpid()}", f"lbt_reader_{os.getpid()}"
    for role, pw in ((recorder, "rec"), (reader, "rea")):
        psql(ADMIN_URL, f"CREATE ROLE {role} LOGIN PASSWORD '{pw}'")
        made.insert(0, "ROLE " + role)  # dropped after the databases
    for sql in (f"GRANT CONNECT ON DATABASE {db} TO {recorder}, {reader}",
                f"GRANT USAGE ON SCHEMA public TO {recorder}, {reader}",
                f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {recorder}, {reader}",
                "GRANT INSERT ON libbench_raw_objects, libbench_raw_uploads, "
                f"libbench_ingest_errors TO {recorder}",
                f"GRANT USAGE ON SEQUENCE libbench_raw_uploads_id_seq TO {recorder}",
                "GRANT INSERT, UPDATE, DELETE ON libbench_index_uploads, libbench_index_hosts, "
                "libbench_index_runs, libbench_index_subjects, libbench_index_measurements, "
                "libbench_index_aggregates, libbench_index_comparisons, libbench_index_changes "
                f"TO {recorder}",
                "GRANT USAGE ON SEQUENCE libbench_index_uploads_upload_id_seq TO "
                f"{recorder}"):
        psql(url, sql)
    as_role = lambda role, pw: url.replace("libbench:" + (password() or ""), f"{role}:{pw}", 1)
    rec, rea = as_role(recorder, "rec"), as_role(reader, "rea")
    rc, out, err = record(rec, [os.path.join(tmp, "day3.json")], "2026-11-20T08:00:00Z",
                          os.path.join(tmp, "rec"), "--profile", "nightly")
    check(rc == 0 and "(already there)" not in out, f"record as the recorder role: {rc} {err}")
    rc, out, err = run([LIBBENCH, "report", "--results", rea], env={"XDG_CACHE_HOME": os.path.join(tmp, "rea")})
    check(rc in (0, 1) and "encode" in out, f"report as the reader role: {rc} {err}")
    rc, out, err = record(rea, [os.path.join(tmp, "day3.json")], "2026-11-21T08:00:00Z",
                          os.path.join(tmp, "rea"), "--profile", "nightly")
    check(rc == 1 and "permission denied" in err and err.count("\n") == 1 and "rea@" not in err,
          f"record as the reader role: {rc} {err!r}")
    try:
        psql(rec, "DELETE FROM libbench_raw_objects")
        check(False, "the recorder role deleted raw objects")
    except RuntimeError as e:
        check("permission denied" in str(e), f"recorder delete: {e}")
    check(psql(url, "SELECT count(*) FROM libbench_raw_objects") == "8", "8 raw objects")
    # push: a local store's objects into a second database, twice (idempotent)
    local = os.path.join(tmp, "local")
    week(tmp, local, cache)
    url2 = fresh_db("push")
    rc, out, err = run([LIBBENCH, "results", "push", local, url2])
    check(rc == 0 and out.startswith("pushed 7 raw objects") and "(0 already there)" in out,
          f"push: {rc} {out} {err}")
    no_password(out + err, "push")
    rc, out, err = run([LIBBENCH, "results", "push", local, url2])
    check(rc == 0 and out.startswith("pushed 0 raw objects") and "(7 already there)" in out,
          f"push again: {rc} {out} {err}")
    check(psql(url2, "SELECT count(*) FROM libbench_raw_objects") == "7", "pushed: 7 objects")
    # pushed objects are not indexed: the next report indexes them first
    rc, out, err = run([LIBBENCH, "report", "--results", url2])
    check(rc in (0, 1) and "7 raw objects the index lacked" in err and
          indexed(url2, "uploads") == 7, f"report after a push: {rc} {err}")
    # index tables of a newer libbench: refused in one line, never changed
    psql(url2, "UPDATE libbench_index_schema SET version = 99")
    rc, out, err = run([LIBBENCH, "report", "--results", url2])
    check(rc != 0 and "index tables are version 99" in err and err.count("\n") == 1,
          f"newer index tables: {rc} {err!r}")
    check(indexed(url2, "uploads") == 7, "newer index tables changed")
    rc, out, err = run([LIBBENCH, "results", "push", local, "postgresql://x:secretpw@127.0.0.1:1/x"])
    check(rc == 1 and "secretpw" not in out + err and err.count("\n") == 1,
          f"push to no server: {rc} {err!r}")


def case_identical(tmp):
    url = fresh_db("identical")
    local = os.path.join(tmp, "local")
    cache = os.path.join(tmp, "cache")
    week(tmp, url, cache)
    week(tmp, local, cache)
    reports = {}
    for name, store in (("sqlite", local), ("pg", url)):
        path = os.path.join(tmp, f"{name}.json")
        rc, out, err = run([LIBBENCH, "report", "--results", store, "--json", path],
                           env={"XDG_CACHE_HOME": cache})
        check(rc in (0, 1), f"report {name}: {rc} {err}")
        with open(path, "rb") as f:
            text = f.read()
        # the one field naming the store differs: its value is set aside, the rest compared
        shown = json.loads(text)["results"]
        reports[name] = text.replace(json.dumps(shown).encode(), b'"STORE"', 1)
    check(reports["sqlite"] == reports["pg"] and len(reports["pg"]) > 1000,
          "report --json differs between SQLite and PostgreSQL")
    print(f"identical: {len(reports['pg'])} bytes of report --json, "
          f"{'the same' if reports['sqlite'] == reports['pg'] else 'DIFFERENT'}")


def case_concurrent(tmp):
    url = fresh_db("concurrent")
    procs = []
    start = time.monotonic()
    for i in range(8):  # 8 runners, each with a cache of its own, 10 runs each
        doc = bench_doc(os.path.join(tmp, f"c{i}.json"),
                        [(f"row{i}", 100.0 + i, ""), ("shared", 10.0 * (i + 1), "")])
        cache = os.path.join(tmp, f"cache{i}")
        script = "; ".join(
            f'"$0" record --results "$1" --timestamp 2026-11-20T{i:02d}:{j:02d}:00Z '
            f'--source-revision "" "$2" || exit 1' for j in range(10))
        procs.append(subprocess.Popen(["sh", "-c", script, LIBBENCH, url, doc],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=dict(os.environ, XDG_CACHE_HOME=cache)))
    for p in procs:
        out, err = p.communicate(timeout=600)
        check(p.returncode == 0, f"a recorder exited {p.returncode}: {err.decode()}")
    secs = time.monotonic() - start
    n = psql(url, "SELECT count(*) FROM libbench_raw_objects")
    d = psql(url, "SELECT count(DISTINCT key) FROM libbench_raw_objects")
    u = psql(url, "SELECT count(*) FROM libbench_raw_uploads WHERE NOT already")
    check(n == "80" and d == "80" and u == "80", f"stored {n}, distinct {d}, uploads {u}")
    runs, meas = indexed(url, "runs"), indexed(url, "measurements")
    check(runs == 80 and meas == 160, f"indexed runs {runs}, measurements {meas}")
    cache = os.path.join(tmp, "reader")
    rc, out, err = run([LIBBENCH, "report", "--results", url], env={"XDG_CACHE_HOME": cache})
    check(rc in (0, 1) and err == "", f"report: {rc} {err}")
    # 8 recorders of the same bytes at the same time: one key; the losers of the race are
    # serialization failures, retried, and find it there
    same = bench_doc(os.path.join(tmp, "same.json"), [("same", 1.0, "")])
    procs = [subprocess.Popen([LIBBENCH, "record", "--results", url, "--timestamp",
                               "2026-11-25T00:00:00Z", "--source-revision", "", same],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, f"s{i}")))
             for i in range(8)]
    outs = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    check(all(rc == 0 for _, _, rc in outs), f"same-key recorders: {outs}")
    fresh = sum(1 for o, _, _ in outs if b"(already there)" not in o)
    ups = psql(url, "SELECT count(*) FILTER (WHERE NOT already) || '/' || count(*) FROM "
                    "libbench_raw_uploads WHERE key LIKE '%bench_id=20261125T000000Z%'")
    objs = psql(url, "SELECT count(*) FROM libbench_raw_objects WHERE key LIKE "
                     "'%bench_id=20261125T000000Z%'")
    check(fresh == 1 and ups == "1/8" and objs == "1",
          f"same key: {fresh} said recorded, uploads new/all {ups}, objects {objs}")
    print(f"same key: 8 recorders at once: {objs} object, {fresh} recorded and "
          f"{8 - fresh} already there; uploads new/all {ups}")
    print(f"concurrent: 8 recorders x 10 runs in {secs:.1f} s: {n} stored, {d} distinct, "
          f"{80 - int(n)} lost, {int(n) - int(d)} duplicated; indexed {runs} runs")


def case_kills(tmp):
    """After each kill: no partial object, and the index a report reconciles is the one a
    rebuild gives."""
    url = fresh_db("kills")
    cache = os.path.join(tmp, "cache")
    env = {"XDG_CACHE_HOME": cache}
    doc = bench_doc(os.path.join(tmp, "k.json"), [(f"row{r}", 100.0 + r, "") for r in range(100)])
    rnd = random.Random(int(os.environ.get("PG_KILL_SEED", "29")))
    kills = int(os.environ.get("PG_KILLS", "50"))
    killed = consistent = 0
    # how long a whole record takes here: the kills fall inside that span
    t = time.monotonic()
    rc, _, err = record(url, [doc], "2026-11-20T00:00:00Z", cache)
    check(rc == 0, f"the first record: {err}")
    span = time.monotonic() - t
    for k in range(kills):
        t = time.monotonic()
        p = subprocess.Popen([LIBBENCH, "record", "--results", url, "--timestamp",
                              f"2026-11-21T{k // 60:02d}:{k % 60:02d}:00Z", "--source-revision",
                              "", doc], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=dict(os.environ, **env))
        time.sleep(rnd.uniform(0.0, span))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed += 1
            p.wait()
        else:  # it had ended: its span, as the history grows
            span = time.monotonic() - t
        stored = int(psql(url, "SELECT count(*) FROM libbench_raw_objects"))
        ok = whole_objects(url) == "0"
        check(ok, f"kill {k}: an object whose bytes are not its key's")
        if stored:
            # the object and its index rows are one transaction: indexed before any report
            n = indexed(url, "uploads")
            ok = ok and n == stored
            check(n == stored, f"kill {k}: {n} objects indexed of the {stored} stored")
            rc, out, err = run([LIBBENCH, "report", "--results", url], env=env)
            ok = ok and rc in (0, 1)
            check(rc in (0, 1), f"kill {k}: report: {rc} {err}")
            n = indexed(url, "uploads")
            ok = ok and n == stored
            check(n == stored, f"kill {k}: the index holds {n} objects of the {stored} stored")
            before = db_dump(url)
            rc, out, err = run([LIBBENCH, "results", "rebuild", "--results", url], env=env)
            same = rc == 0 and db_dump(url) == before
            ok = ok and same
            check(same, f"kill {k}: the rebuild gives another index: {rc} {err}")
        consistent += ok
    print(f"kills: {killed} of {kills} recorders killed with SIGKILL mid-way (the others had "
          f"ended), {stored} objects stored; consistent after {consistent} of {kills} "
          f"(no partial object, every stored run indexed, rebuild = the reconciled index)")


class CutProxy:
    """A TCP proxy to the server that closes both sides once the client sent `cut_after` bytes:
    the server going away in the middle of a record."""

    def __init__(self, host, port, cut_after):
        self.target = (host, port)
        self.cut_after = cut_after
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.sent = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            s = socket.create_connection(self.target)
            threading.Thread(target=self.pipe, args=(c, s, True), daemon=True).start()
            threading.Thread(target=self.pipe, args=(s, c, False), daemon=True).start()

    def pipe(self, src, dst, upstream):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if upstream:
                    self.sent += len(data)
                    if self.sent > self.cut_after:
                        break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def case_down(tmp):
    url = fresh_db("down")
    cache = os.path.join(tmp, "cache")
    doc = bench_doc(os.path.join(tmp, "d.json"), [(f"row{r}", 100.0 + r, "") for r in range(100)])
    # no server at all
    m = re.match(r"([^:]+://[^@/]*@)?([^:/]+):(\d+)(/.*)", url)
    prefix, host, port, rest = m.group(1) or "", m.group(2), int(m.group(3)), m.group(4)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    rc, out, err = record(f"{url.split('://')[0]}://{prefix.split('://')[-1]}127.0.0.1:{closed}{rest}",
                          [doc], "2026-11-22T00:00:00Z", cache)
    check(rc == 1 and out == "" and err.count("\n") == 1 and err.startswith("error: "),
          f"no server: {rc} {out!r} {err!r}")
    no_password(err, "no server")
    print(f"down: exit {rc}: {err.strip()}")
    # the connection cut once the document is on its way (past the schema's statements)
    proxy = CutProxy(host, port, 12000)
    cut_url = f"{url.split('://')[0]}://{prefix.split('://')[-1]}127.0.0.1:{proxy.port}{rest}"
    rc, out, err = record(cut_url, [doc], "2026-11-22T00:00:00Z", cache)
    check(rc == 1 and out == "" and err.count("\n") == 1, f"cut: {rc} {out!r} {err!r}")
    no_password(err, "cut")
    print(f"cut mid-record: exit {rc}: {err.strip()}")
    check(psql(url, "SELECT count(*) FROM libbench_raw_objects") == "0", "the cut record stored")
    rc, out, err = record(url, [doc], "2026-11-22T00:00:00Z", cache)
    check(rc == 0 and "already there" not in out, f"retry: {rc} {out} {err}")
    rc, out, err = record(url, [doc], "2026-11-22T00:00:00Z", cache)
    check(rc == 0 and "already there" in out, f"retry again: {rc} {out} {err}")
    n = psql(url, "SELECT count(*) FROM libbench_raw_objects")
    check(n == "1", f"after the retries: {n} objects")
    print(f"retry: {n} object stored")


def case_retry(tmp):
    """Serialization failures (40001) and deadlocks (40P01), made by a trigger on the server:
    retried, at most 8 tries in all, then one line and exit 1 with nothing stored."""
    url = fresh_db("retry")
    cache = os.path.join(tmp, "cache")
    doc = bench_doc(os.path.join(tmp, "r.json"), [("r", 1.0, "")])
    rc, _, err = record(url, [doc], "2026-11-23T00:00:00Z", cache)  # the schema made
    check(rc == 0, f"first record: {err}")
    psql(url, "CREATE SEQUENCE lbt_fail; CREATE TABLE lbt_plan (upto int, code text); "
              "INSERT INTO lbt_plan VALUES (0, '40001'); "
              "CREATE FUNCTION lbt_fail() RETURNS trigger LANGUAGE plpgsql AS $$ "
              "DECLARE p lbt_plan; BEGIN SELECT * INTO p FROM lbt_plan; "
              "IF nextval('lbt_fail') <= p.upto THEN "
              "RAISE EXCEPTION 'injected' USING ERRCODE = p.code; END IF; RETURN NEW; END $$; "
              "CREATE TRIGGER lbt_fail BEFORE INSERT ON libbench_raw_uploads "
              "FOR EACH ROW EXECUTE FUNCTION lbt_fail()")
    for i, (upto, code, want) in enumerate([(3, "40001", 0), (5, "40P01", 0), (8, "40001", 1)]):
        psql(url, f"ALTER SEQUENCE lbt_fail RESTART; UPDATE lbt_plan SET upto = {upto}, "
                  f"code = '{code}'")
        ts = f"2026-11-23T01:00:0{i}Z"
        rc, out, err = record(url, [doc], ts, cache)
        n = psql(url, "SELECT count(*) FROM libbench_raw_objects WHERE key LIKE "
                      f"'%bench_id=20261123T01000{i}Z%'")
        check(rc == want and n == ("1" if want == 0 else "0"),
              f"{upto} x {code}: exit {rc}, {n} stored, {out!r} {err!r}")
        if want:
            check(err.count("\n") == 1 and "injected" in err, f"after 8 tries: {err!r}")
            print(f"retry: {upto} x {code}: exit {rc}, nothing stored: {err.strip()}")
        else:
            print(f"retry: {upto} x {code}: exit {rc}, stored once")


CASES_BY_NAME = {"retry": case_retry, "record": case_record, "identical": case_identical,
                 "concurrent": case_concurrent, "kills": case_kills, "down": case_down}


def main():
    if MISSING:
        print(f"skipped: {MISSING}")
        sys.exit(SKIP)
    if PG_MISSING:
        print(f"skipped: {PG_MISSING}")
        sys.exit(SKIP)
    if not ADMIN_URL:
        print("skipped: no PostgreSQL server: LIBBENCH_TEST_PG_URL is not set "
              "(tests/e2e/pg_cluster.sh start DIR prints one; .ci/run sets it)")
        sys.exit(SKIP)
    if subprocess.run(["sh", "-c", "command -v psql"], stdout=subprocess.DEVNULL).returncode:
        print("skipped: psql not found (postgresql-client)")
        sys.exit(SKIP)
    name = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="pg-e2e-") as tmp:
        try:
            CASES_BY_NAME[name](tmp)
        except Skip as e:
            print(f"skipped: {e}")
            sys.exit(SKIP)
        finally:
            drop_made()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
