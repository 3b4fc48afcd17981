#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# pg_store.py: the PostgreSQL results store against the SQLite one (issue 29): R concurrent
# recorders x N runs of a 100-row document (stored, lost, duplicated), then more runs up to 1000,
# a rebuild of the 1000 runs and a report over them (on PostgreSQL also from a new runner: nothing
# local, the index tables on the server). Wall-clock seconds, one measurement each (a benchmark, not a test: nothing is asserted
# on time). Uses LIBBENCH_TEST_PG_URL, or starts a throwaway cluster with
# tests/e2e/pg_cluster.sh. Figures in docs/explanation/performance.md.
#   python3 benchmarks/pg_store/pg_store.py --libbench build/tools/libbench [--recorders 8]
#       [--runs 50] [--total 1000]
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "..", "..", "tests", "e2e", "pg_cluster.sh")


def psql(url, sql):
    return subprocess.run(["psql", "-X", "-q", "-At", "-d", url, "-c", sql], check=True,
                          stdout=subprocess.PIPE).stdout.decode().strip()


def doc(path, rows=100):
    d = {"schema": 2, "meta": {"date": "2026-11-01", "hostname": "h", "os": "linux",
                               "arch": "x86_64", "compiler": "GCC 12.2.0", "cpu": "cpu"},
         "columns": [], "rows": [{"name": f"row{r}", "labels": {}, "iterations": 1,
                                  "samples": 32, "medianNs": 100.0 + r, "deviationNs": None,
                                  "minNs": 100.0 + r, "maxNs": 100.0 + r, "metrics": {},
                                  "contention": None, "error": ""} for r in range(rows)]}
    with open(path, "w") as f:
        json.dump(d, f)
    return path


def recorders(tool, store, document, n_rec, first, runs, cache_base):
    """n_rec processes, each recording `runs` runs (each with a cache directory of its own, as
    separate runners have); the seconds of the whole."""
    t = time.monotonic()
    procs = []
    for i in range(n_rec):
        script = "; ".join(
            f'"$0" record --results "$1" --timestamp '
            f'2026-{1 + (first + j) // 28 % 12:02d}-{1 + (first + j) % 28:02d}T{i:02d}:'
            f'{(first + j) // 336 % 60:02d}:00Z --source-revision "" "$2" >/dev/null || exit 1'
            for j in range(runs))
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(cache_base, f"runner{i}"))
        procs.append(subprocess.Popen(["sh", "-c", script, tool, store, document], env=env,
                                      stderr=subprocess.PIPE))
    bad = 0
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            bad += 1
            sys.stderr.write(err.decode())
    return time.monotonic() - t, bad


def timed(argv, env=None):
    t = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=dict(os.environ, **(env or {})))
    return time.monotonic() - t, p.returncode


def concurrent(tool, store, kind, document, caches, a):
    """R recorders x N runs into one store: seconds, what was stored and what failed."""
    secs, bad = recorders(tool, store, document, a.recorders, 0, a.runs, caches)
    out = {"concurrent_s": round(secs, 2), "failed_recorders": bad}
    if kind == "pg":
        out["stored"] = int(psql(store, "SELECT count(*) FROM libbench_raw_objects"))
        out["distinct"] = int(psql(store, "SELECT count(DISTINCT key) FROM libbench_raw_objects"))
    else:
        keys = [os.path.join(r, f) for r, _, fs in os.walk(os.path.join(store, "raw"))
                for f in fs if f == "results.jsonl"]
        out["stored"], out["distinct"] = len(keys), len(set(keys))
    out["lost"] = a.recorders * a.runs - out["distinct"]
    out["duplicated"] = out["stored"] - out["distinct"]
    return out


def fill(tool, sqlite_store, pg, document, tmp, a):
    """The runs up to a.total, recorded into small side stores (a record's cost grows with its
    store's history), then copied into the SQLite store's raw/ (what a sync of raw/ does) and
    pushed into PostgreSQL (`results push`)."""
    rest = a.total - a.recorders * a.runs
    per = -(-rest // a.recorders)
    side = []
    procs = []
    for i in range(a.recorders):
        store = os.path.join(tmp, f"side{i}")
        side.append(store)
        script = "; ".join(
            f'"$0" record --results "$1" --timestamp '
            f'2026-{1 + k // 28 % 12:02d}-{1 + k % 28:02d}T{i:02d}:{k // 336 % 60:02d}:00Z '
            f'--source-revision "" "$2" >/dev/null || exit 1'
            for k in range(a.recorders * a.runs + 1000, a.recorders * a.runs + 1000 + per))
        procs.append(subprocess.Popen(["sh", "-c", script, tool, store, document]))
    for p in procs:
        p.wait()
    for store in side:
        subprocess.run(["cp", "-a", "--no-clobber", os.path.join(store, "raw"), sqlite_store],
                       check=True)
        subprocess.run([tool, "results", "push", store, pg], check=True,
                       stdout=subprocess.DEVNULL)


def after(tool, store, kind, caches):
    out = {}
    env = {"XDG_CACHE_HOME": os.path.join(caches, "runner0")}
    out["rebuild_s"], out["rebuild_rc"] = timed([tool, "results", "rebuild", "--results", store],
                                                env)
    out["report_s"], out["report_rc"] = timed([tool, "report", "--results", store], env)
    if kind == "pg":  # a new runner: nothing local (the index tables are on the server)
        out["report_new_runner_s"], _ = timed([tool, "report", "--results", store],
                                              {"XDG_CACHE_HOME": os.path.join(caches, "new")})
        out["objects"] = int(psql(store, "SELECT count(*) FROM libbench_raw_objects"))
    else:
        out["objects"] = sum(1 for r, _, fs in os.walk(os.path.join(store, "raw"))
                             for f in fs if f == "results.jsonl")
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--libbench", required=True)
    ap.add_argument("--recorders", type=int, default=8)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--total", type=int, default=1000)
    a = ap.parse_args()
    tool = os.path.abspath(a.libbench)
    tmp = tempfile.mkdtemp(prefix="pg-store-bench-")
    os.chmod(tmp, 0o711)
    cluster = None
    url = os.environ.get("LIBBENCH_TEST_PG_URL")
    try:
        if not url:
            cluster = os.path.join(tmp, "cluster")
            url = subprocess.run([CLUSTER, "start", cluster], check=True,
                                 stdout=subprocess.PIPE).stdout.decode().strip()
        db = f"lbbench_{os.getpid()}"
        psql(url, f"CREATE DATABASE {db}")
        base, q, query = url.partition("?")
        pg = base[:base.rindex("/")] + "/" + db + q + query
        document = doc(os.path.join(tmp, "doc.json"))
        local = os.path.join(tmp, "store")
        res = {"sqlite": concurrent(tool, local, "sqlite", document,
                                    os.path.join(tmp, "cache-sqlite"), a),
               "pg": concurrent(tool, pg, "pg", document, os.path.join(tmp, "cache-pg"), a)}
        fill(tool, local, pg, document, tmp, a)
        res["sqlite"].update(after(tool, local, "sqlite", os.path.join(tmp, "cache-sqlite")))
        res["pg"].update(after(tool, pg, "pg", os.path.join(tmp, "cache-pg")))
        psql(url, f"DROP DATABASE {db}")
        print(json.dumps(res, indent=1))
    finally:
        if cluster:
            subprocess.run([CLUSTER, "stop", cluster])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
