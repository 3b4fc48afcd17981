#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_compare_paired.py: end-to-end checks of `libbench compare`'s paired mode on served_knob.c:
# an A/A comparison never claims a regression (PASS or an honest UNMEASURED), a 50% slower cell
# is always a REGRESSION, a candidate body that fails, crashes or hangs makes its cell UNMEASURED
# with the reason while the other cells go on, the served mode answers its protocol, and a binary that does not serve falls back to the
# run-level mode, said in the output. No check reads a timing.
import hashlib
import json
import os
import re
import signal
import time
import subprocess
import sys
import tempfile

TOOL = os.environ.get("COMPARE_TOOL", "")
KNOB = os.environ.get("SERVED_KNOB", "")
FAST = ["--", "--bench-min-time=1"]
CELLS = ["served_knob.work", "served_knob.steady", "served_knob.table{size=0}",
         "served_knob.table{size=1}",
         "served_knob.whole", "served_knob.zz_fragile"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(args, timeout=600):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SERVED_") and k not in ("NO_COLOR", "TERM")}
    # a crashing body must die by its signal even in a sanitizer build
    for name in ("ASAN_OPTIONS", "TSAN_OPTIONS"):
        given = env.get(name, "")
        env[name] = (given + ":" if given else "") + "handle_segv=0:handle_abort=0"
    p = subprocess.run([TOOL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=env, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def wrapper(tmp, name, env):
    """A candidate: the same binary with environment variables set."""
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n%s exec '%s' \"$@\"\n" % (env, KNOB))
    os.chmod(path, 0o755)
    return path


def compare(tmp, base, cand, extra=()):
    out_json = os.path.join(tmp, "out.json")
    if os.path.exists(out_json):
        os.unlink(out_json)
    rc, out, err = run(["compare", "--json", out_json] + list(extra) + [base, cand] + FAST)
    doc = None
    if os.path.exists(out_json):
        with open(out_json, encoding="utf-8") as f:
            doc = json.load(f)
    return rc, out, err, doc


def cells(doc):
    return {c["name"] + ("{" + c["operation"] + "}" if c["operation"] else ""): c
            for c in doc["cells"]}


def common(rc, out, err, doc, what):
    check(doc is not None, f"{what}: no --json document (rc {rc}, stderr {err[-400:]!r})")
    if doc is None:
        return {}
    check(doc["mode"] == "paired", f"{what}: mode {doc['mode']!r}")
    check(doc["exit"] == rc, f"{what}: exit {doc['exit']} in the document, {rc} returned")
    check(f"verdict: {doc['verdict']}" in out, f"{what}: the verdict line is missing:\n{out}")
    check("paired mode" in out, f"{what}: the header does not name the paired mode:\n{out}")
    check(doc["params"]["processes"] == "round" and "new processes every round" in out,
          f"{what}: not a new process per round by default")
    check(doc["process_starts"] >= 0, f"{what}: process_starts {doc['process_starts']}")
    by = cells(doc)
    check(sorted(by) == sorted(CELLS), f"{what}: cells {sorted(by)}")
    for name, c in by.items():
        for s in ("baseline", "candidate", "aa"):
            check(len(c["values_ns"][s]) == c["rounds"],
                  f"{what}: {name}: {len(c['values_ns'][s])} {s} values for {c['rounds']} rounds")
        check(c["rounds"] <= doc["params"]["max_rounds"], f"{what}: {name}: over the round cap")
        if c["state"] == "UNMEASURED":
            check(bool(c["reason"]), f"{what}: {name}: UNMEASURED without a reason")
    return by


def case_aa():
    with tempfile.TemporaryDirectory() as tmp:
        for seed in ("1", "2"):
            rc, out, err, doc = compare(tmp, KNOB, KNOB, ["--seed", seed])
            by = common(rc, out, err, doc, f"A/A seed {seed}")
            check(rc in (0, 2), f"A/A seed {seed}: exit {rc}:\n{out}")
            for name, c in by.items():
                check(c["state"] not in ("REGRESSION", "IMPROVEMENT"),
                      f"A/A seed {seed}: {name} claimed {c['state']}:\n{out}")
                check(c["rounds"] >= 8 or c["state"] == "UNMEASURED",
                      f"A/A seed {seed}: {name}: {c['rounds']} rounds")


def check_provenance(doc, what, files):
    """Each subject's provenance: the SHA-256 of the file it runs (hashlib's), the version its
    --version reports, the page cache and the rusage null with their reasons (a live subject is
    not one run)."""
    for s in ("baseline", "candidate", "aa"):
        j = doc.get("subjects", {}).get(s, {})
        with open(files[s], "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        check(j.get("binary_sha256") == want and j.get("binary_sha256_reason") is None,
              f"{what}: {s}: sha256 {j.get('binary_sha256')} != {want}")
        check(re.fullmatch(r"\d+\.\d+\.\d+.*", j.get("libbench_version") or "") is not None and
              j.get("libbench_version_reason") is None,
              f"{what}: {s}: version {j.get('libbench_version')} {j.get('libbench_version_reason')}")
        check(j.get("page_cache_state") is None and j.get("page_cache_reason") and
              j.get("rusage") is None and j.get("rusage_source") is None and
              "paired mode" in (j.get("rusage_reason") or ""),
              f"{what}: {s}: page cache and rusage {j}")


def case_regression():
    with tempfile.TemporaryDirectory() as tmp:
        cand = wrapper(tmp, "slower", "SERVED_EXTRA=50")
        rc, out, err, doc = compare(tmp, KNOB, cand)
        by = common(rc, out, err, doc, "50% knob")
        check_provenance(doc, "50% knob", {"baseline": KNOB, "candidate": cand, "aa": KNOB})
        check(rc == 1, f"50% knob: exit {rc}:\n{out}")
        work = by.get("served_knob.work", {})
        check(work.get("state") == "REGRESSION", f"50% knob: work is {work.get('state')}:\n{out}")
        check(work.get("decided") is True, "50% knob: the claim is not decided")


def failing(mode):
    with tempfile.TemporaryDirectory() as tmp:
        env = "SERVED_EXTRA=50 SERVED_%s=1" % mode.upper()
        cand = wrapper(tmp, mode, env)
        extra = ["--timeout", "2"] if mode == "hang" else []
        rc, out, err, doc = compare(tmp, KNOB, cand, extra)
        by = common(rc, out, err, doc, mode)
        frag = by.get("served_knob.zz_fragile", {})
        check(frag.get("state") == "UNMEASURED", f"{mode}: zz_fragile is {frag.get('state')}")
        want = {"crash": "killed by SIGSEGV", "hang": "no answer in 2 s",
                "fail": "failed: told to fail on call 2"}[mode]
        check(frag.get("reason", "").startswith("candidate: ") and want in frag.get("reason", ""),
              f"{mode}: zz_fragile's reason {frag.get('reason')!r}")
        check(want in out, f"{mode}: the table does not say {want!r}:\n{out}")
        restarts = doc["subjects"]["candidate"]["restarts"] if doc else -1
        check(restarts >= 1 if mode != "fail" else restarts == 0, f"{mode}: {restarts} restarts")
        for name, c in by.items():
            if name == "served_knob.zz_fragile":
                continue
            check(c["rounds"] >= 8 and not (c["reason"] or "").startswith("candidate:"),
                  f"{mode}: {name} did not go on: {c['rounds']} rounds, {c['reason']!r}")
        check(by.get("served_knob.work", {}).get("state") == "REGRESSION",
              f"{mode}: the 50% cell beside the {mode} is not a REGRESSION:\n{out}")
        check(rc == 1, f"{mode}: exit {rc}")


def case_crash():
    failing("crash")


def case_hang():
    failing("hang")


def case_fail():
    failing("fail")


def case_fallback():
    with tempfile.TemporaryDirectory() as tmp:
        old = os.path.join(tmp, "old")
        with open(old, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\necho \"error: unknown option '--bench-serve'\" >&2\nexit 2\n")
        os.chmod(old, 0o755)
        rc, out, err = run(["compare", "--runs", "3", KNOB, old] + FAST)
        check("paired mode" not in out, "--runs: the paired mode ran")
        rc, out, err = run(["compare", KNOB, old] + FAST)
        check("warning: the run-level mode: " in out and "does not support the served mode" in out
              and "unknown option" in out, f"fallback: not said in the output:\n{out}")
        check(rc == 2, f"fallback: exit {rc}")
        rc, out, err = run(["compare", "--mode=paired", KNOB, old] + FAST)
        check(rc == 2 and "error: --mode=paired: " in err and "does not support the served mode"
              in err, f"--mode=paired with an old binary: exit {rc}, {err!r}")
        rc, out, err = run(["compare", "--mode=fast", KNOB, KNOB])
        check(rc == 2 and "--mode: 'fast' is not 'runs' or 'paired'" in err, f"--mode=fast: {err!r}")
        rc, out, err = run(["compare", "--mode=paired", "--runs", "3", KNOB, KNOB])
        check(rc == 2 and "--runs applies to the run-level mode" in err, f"--mode + --runs: {err!r}")


def case_serve():
    """The served mode itself, driven by hand: the listing, calibrate, sample, errors; what a
    body prints goes to stderr, never into the protocol."""
    script = ("calibrate\t0\nsample\t0\t16\nsample\t2\t4\ncalibrate\t4\nsample\t4\t3\n"
              "bogus\nsample\t99\t1\nsample\t1\t0\nsample\t5\t2\nsample\t1\t2\nquit\n")
    env = dict(os.environ, SERVED_FAIL="1", SERVED_SAY="1")
    p = subprocess.run([KNOB, "--bench", "--bench-serve", "--bench-min-time=1"],
                       input=script.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=120)
    lines = p.stdout.decode("utf-8").split("\n")
    err = p.stderr.decode("utf-8")
    check(p.returncode == 0, f"serve: exit {p.returncode}: {err[-400:]!r}")
    want_head = ["libbench-serve 1", "cell\tserved_knob.work\t", "cell\tserved_knob.steady\t",
                 "cell\tserved_knob.table\tsize=0", "cell\tserved_knob.table\tsize=1",
                 "cell\tserved_knob.whole\t",
                 "cell\tserved_knob.zz_fragile\t", "ready\t6"]
    check(lines[:8] == want_head, f"serve: the listing {lines[:8]!r}")
    rest = lines[8:]
    check(len(rest) == 11 and rest[-1] == "", f"serve: answers {rest!r}")
    if len(rest) != 11:
        return
    f = [r.split("\t") for r in rest[:10]]
    check(f[0][0] == "count" and int(f[0][1]) > 0, f"serve: calibrate {rest[0]!r}")
    check(f[1][0] == "ns" and int(f[1][1]) > 0 and f[1][2] == "16", f"serve: sample {rest[1]!r}")
    check(f[2][0] == "ns" and int(f[2][1]) > 0 and f[2][2] == "4", f"serve: a case {rest[2]!r}")
    check(f[3][0] == "count" and int(f[3][1]) > 0, f"serve: calibrate whole {rest[3]!r}")
    check(f[4][0] == "ns" and int(f[4][1]) > 0 and f[4][2] == "3", f"serve: whole {rest[4]!r}")
    check(rest[5] == "error\tunknown command", f"serve: bogus {rest[5]!r}")
    check(rest[6] == "error\tunknown command", f"serve: cell 99 {rest[6]!r}")
    check(rest[7] == "error\tbad count", f"serve: count 0 {rest[7]!r}")
    check(rest[8] == "error\tfailed: told to fail on call 2", f"serve: a failing body {rest[8]!r}")
    check(f[9][0] == "ns" and f[9][2] == "2", f"serve: after a failure {rest[9]!r}")
    check("a line of the body on its stdout" in err and "a line of the body" not in
          p.stdout.decode("utf-8"), "serve: the body's stdout is not on stderr alone")


def served_pids():
    """The processes of this served_knob in the served mode (these tests run alone)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
        except OSError:
            continue
        if b"--bench-serve" in words and os.path.basename(words[0]) == b"served_knob":
            pids.append(int(entry))
    return pids


def case_interrupt():
    """SIGTERM in the middle of the rounds: the subjects die with the tool, which removes its
    temporary directory and dies by the same signal."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SERVED_")}
        env["TMPDIR"] = tmp
        p = subprocess.Popen([TOOL, "compare", "--max-rounds", "100000", "--budget", "60", KNOB,
                              KNOB], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 60
        seen = b""
        while b"look 1/" not in seen and time.monotonic() < deadline:
            line = p.stderr.readline()
            if not line:
                break
            seen += line
        check(b"look 1/" in seen, f"interrupt: no first look: {seen[-300:]!r}")
        # three, or fewer between two rounds: a respawn ends all three, then starts them again
        alive = served_pids()
        for _ in range(500):
            if alive:
                break
            time.sleep(0.01)
            alive = served_pids()
        check(1 <= len(alive) <= 3, f"interrupt: {len(alive)} subjects alive")
        p.send_signal(signal.SIGTERM)
        p.stderr.read()
        rc = p.wait(timeout=60)
        check(rc == -signal.SIGTERM, f"interrupt: exit {rc}")
        check(os.listdir(tmp) == [], f"interrupt: left {os.listdir(tmp)}")
        left = served_pids()
        for _ in range(50):
            if not left:
                break
            time.sleep(0.1)
            left = served_pids()
        check(left == [], f"interrupt: subjects outlived the tool: {left}")


def case_duet():
    """--duet: the served mode's timed start and CPU (the protocol by hand), then an A/A that
    never claims and a 50% knob claimed, each pair timed at once on two CPUs; and its usage."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        rc, out, err, doc = compare(tempfile.gettempdir(), KNOB, KNOB, ["--duet"])
        check(rc == 2 and "--duet needs two CPUs" in err, f"duet on one CPU: {rc} {err[-300:]!r}")
        return
    probe = subprocess.run([KNOB, "--bench", "--bench-serve", "--bench-min-time=1"],
                           input=f"sample\t0\t1\t1\t{cpus[0]}\nquit\n".encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if b"Function not implemented" in probe.stdout:  # a build without CPU pinning (portable)
        rc, out, err, doc = compare(tempfile.gettempdir(), KNOB, KNOB, ["--duet"])
        check(rc == 2 and "cannot pin a process to a CPU" in err,
              f"duet without pinning: {rc} {err[-300:]!r}")
        return
    at = time.clock_gettime_ns(time.CLOCK_MONOTONIC) + 300_000_000  # 0.3 s ahead
    script = (f"sample\t0\t16\t{at}\t{cpus[1]}\nsample\t0\t16\t0\t-1\n"
              f"sample\t0\t16\t{at}\tx\nsample\t0\t16\t1\t-1\nquit\n")
    p = subprocess.run([KNOB, "--bench", "--bench-serve", "--bench-min-time=1"],
                       input=script.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    rest = [r for r in p.stdout.decode("utf-8").split("\n")[8:] if r]
    check(len(rest) == 4, f"duet serve: answers {rest!r}")
    if len(rest) == 4:
        f = rest[0].split("\t")
        check(len(f) == 4 and f[0] == "ns" and int(f[1]) > 0 and f[2] == "16" and int(f[3]) >= 0,
              f"duet serve: a timed start {rest[0]!r}")
        check(after >= at, "duet serve: answered before the start it was given")
        check(rest[1] == "error\tbad duet start or CPU", f"duet serve: start 0 {rest[1]!r}")
        check(rest[2] == "error\tbad duet start or CPU", f"duet serve: CPU x {rest[2]!r}")
        f = rest[3].split("\t")
        check(len(f) == 4 and f[0] == "ns" and int(f[3]) > 0,
              f"duet serve: a start long past is late {rest[3]!r}")
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, doc = compare(tmp, KNOB, KNOB, ["--duet", "--seed", "3"])
        by = common(rc, out, err, doc, "duet A/A")
        check(rc in (0, 2), f"duet A/A: exit {rc}:\n{out}")
        for name, c in by.items():
            check(c["state"] not in ("REGRESSION", "IMPROVEMENT"),
                  f"duet A/A: {name} claimed {c['state']}:\n{out}")
        duet = (doc or {}).get("duet") or {}
        check(duet.get("cpus") == cpus[:2] and duet.get("pairs", 0) > 0 and
              0 <= duet.get("late", -1) <= duet.get("pairs", 0) and "duet: CPUs" in out,
              f"duet A/A: the duet facts {duet} / header:\n{out[:600]}")
        cand = wrapper(tmp, "slower", "SERVED_EXTRA=50")
        rc, out, err, doc = compare(tmp, KNOB, cand, ["--duet"])
        by = common(rc, out, err, doc, "duet 50% knob")
        check(rc == 1, f"duet 50% knob: exit {rc}:\n{out}")
        work = by.get("served_knob.work", {})
        check(work.get("state") == "REGRESSION",
              f"duet 50% knob: work is {work.get('state')}:\n{out}")
        for extra, want in ((["--runs", "5"], "--duet applies to the paired mode"),
                            (["--mode", "runs"], "--duet applies to the paired mode")):
            rc, out, err, doc = compare(tmp, KNOB, KNOB, ["--duet"] + extra)
            check(rc == 2 and want in err, f"duet {extra}: exit {rc} {err[-300:]!r}")


def case_start_order():
    """The three subjects start again every round in a shuffled order: each wrapper logs its
    start, and the candidate's place among a round's three starts varies (in a fixed order it
    was always the second; the one started last was systematically slower). Deterministic for
    a seed: the order comes from the seeded shuffle, not from timing."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "starts.log")
        base = os.path.join(tmp, "base")
        cand = os.path.join(tmp, "cand")
        for path, role in ((base, "b"), (cand, "c")):
            with open(path, "w", encoding="utf-8") as f:
                f.write("#!/bin/sh\necho %s >> '%s'\nexec '%s' \"$@\"\n" % (role, log, KNOB))
            os.chmod(path, 0o755)
        rc, out, err, doc = compare(tmp, base, cand, ["--seed", "5", "--max-rounds", "16"])
        check(rc in (0, 2) and doc is not None, "start order: exit %d, a document: %s" % (
            rc, err[-400:]))
        with open(log, encoding="utf-8") as f:
            starts = f.read().split()
        rounds = [starts[i:i + 3] for i in range(3, len(starts) - 2, 3)]
        places = sorted({r.index("c") for r in rounds if r.count("c") == 1 and len(r) == 3})
        print("start order: %d starts, %d restarts of all three; the candidate started at "
              "places %s" % (len(starts), len(rounds), places))
        check(len(rounds) >= 7, "start order: %d restarts of all three (>= 7 expected)"
              % len(rounds))
        check(len(places) == 3, "start order: the candidate's place among a round's starts "
              "took only %s" % places)


CASES = {"start_order": case_start_order, "duet": case_duet, "serve": case_serve, "interrupt": case_interrupt, "aa": case_aa, "regression": case_regression, "crash": case_crash, "hang": case_hang, "fail": case_fail,
         "fallback": case_fallback}

if __name__ == "__main__":
    if not KNOB:
        print("skipped: served_knob is not built")
        sys.exit(77)
    CASES[sys.argv[1]]()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)
