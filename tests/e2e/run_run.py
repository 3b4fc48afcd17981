#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_run.py: end-to-end checks of `libbench run` and `libbench compare --commands` with real
# processes: a sleep measured at least as long as it sleeps, a failing command with no numbers
# next to a measured one, a missing program, a timeout that kills a background grandchild, the
# max RSS of a program that touches 100 MiB, cold and warm reads of a file on a real
# filesystem, words split as /bin/sh splits them, the interleaved and sequential schedule,
# --prepare and --warmup, --shell, the live line on a terminal only, usage errors (one line,
# exit 2), the JSON Schema, and compare --commands claiming a regression and not an A/A.
# Nothing here asserts a timing ratio: every bound holds on a busy machine.
import hashlib
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile

from emulation import EMULATOR
import time

TOOL = os.environ.get("RUN_TOOL", "")
HELPER = os.environ.get("RUN_HELPER", "")
# RUN_PLATFORM=posix: the portable build (-Dplatform=posix, docs/reference/platforms.md).
PORTABLE = os.environ.get("RUN_PLATFORM", "linux") == "posix"
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "docs", "reference", "run-json.schema.json")
MS = 1000 * 1000
S = 1000 * MS

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    env.update(extra)
    return env


def run(args, timeout=300, **env):
    p = subprocess.run([TOOL] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=clean_env(**env), timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def run_json(args, tmp, name="doc.json", **env):
    path = os.path.join(tmp, name)
    if os.path.exists(path):
        os.unlink(path)
    rc, out, err = run(["run", "--json", path] + args, **env)
    doc = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        validate(path)
    return rc, out, err, doc


def validate(path):
    p = subprocess.run([sys.executable, os.path.join(HERE, "check_json_schema.py"), SCHEMA, path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode == 77:
        return  # no jsonschema module: said once by case_json_schema
    check(p.returncode == 0, f"schema: {path}: " + p.stdout.decode())


def rows(doc):
    return {r["name"]: r for r in (doc or {}).get("rows", [])}


def process_dead(pid):
    """The process does not exist, or is a zombie (dead, waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def process_gone(pid, within=10.0):
    """The process dies within `within` seconds. A SIGKILL is delivered when the killed process
    next runs, which on a loaded machine can be a little after kill() returned; a process that
    was never killed (a `sleep 300`) is still alive at the end."""
    deadline = time.monotonic() + within
    while not process_dead(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def measured_ok(row, runs, what):
    check(row.get("error") == "" and row.get("failure") is None, f"{what}: failed: {row.get('error')}")
    check(row.get("samples") == runs and len(row.get("runs", [])) == runs,
          f"{what}: {row.get('samples')} samples, want {runs}")
    walls = [r["wallNs"] for r in row.get("runs", [])]
    check(all(isinstance(w, int) and w > 0 for w in walls), f"{what}: walls {walls}")
    if walls:
        s = sorted(walls)
        med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
        check(row.get("minNs") == s[0] and row.get("maxNs") == s[-1] and row.get("medianNs") == med,
              f"{what}: statistics {row.get('minNs')} {row.get('medianNs')} {row.get('maxNs')} "
              f"of {walls}")


# ---- the cases ------------------------------------------------------------------------------

def case_sleep():
    """`sleep 0.05` measures at least 50 ms and below a generous bound, every run."""
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, doc = run_json(["--runs", "5", "--", "sleep", "0.05"], tmp)
        check(rc == 0, f"sleep: exit {rc}: {err}")
        check(err == "", f"sleep: stderr when piped: {err!r}")
        check("\x1b" not in out, "sleep: escape sequence in piped stdout")
        row = rows(doc).get("sleep 0.05", {})
        measured_ok(row, 5, "sleep")
        check(row.get("minNs", 0) >= 50 * MS, f"sleep: min {row.get('minNs')} ns < 50 ms")
        check(row.get("maxNs", 1e18) < 20 * S, f"sleep: max {row.get('maxNs')} ns")
        check(row.get("argv") == ["sleep", "0.05"] and row.get("iterations") == 1,
              f"sleep: row {row.get('argv')} {row.get('iterations')}")
        for r in row.get("runs", []):
            ru = r["rusage"]
            check(all(isinstance(ru[k], (int, float)) for k in ru), f"sleep: rusage {ru}")
            check(ru["inblock"] == 0 or ru["inblock"] > 0, "sleep: inblock")
        lines = out.splitlines()
        check(len(lines) >= 5 and lines[1].startswith("│ command") and "median" in lines[1],
              f"sleep: table {out}")
        # the median's digits: any number of ms (a loaded machine wakes a sleeper late)
        check(any(re.search(r"│ sleep 0\.05 +│ +5 │ +\d+\.\dms ±", l) for l in lines),
              f"sleep: row line {out}")
        check("median per run, from wait4" in out, "sleep: no resources table")


def case_failure():
    """A command that exits 3 has no numbers and says why, with its stderr; the other command is
    still measured; exit 1. Its stderr with --output=null: the message says where it went."""
    fails = "sh -c 'echo first >&2; echo oops >&2; exit 3'"
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, doc = run_json(["--runs", "4", "--output=pipe", "-c", fails,
                                      "-c", "sleep 0.01"], tmp)
        check(rc == 1, f"failure: exit {rc}, want 1")
        r = rows(doc)
        bad, good = r.get(fails, {}), r.get("sleep 0.01", {})
        check(bad.get("error") == "run 1 exited with status 3", f"failure: error {bad.get('error')!r}")
        for k in ("iterations", "samples", "medianNs", "deviationNs", "minNs", "maxNs", "rusage"):
            check(bad.get(k) is None, f"failure: {k} = {bad.get(k)!r}, want null")
        check(bad.get("metrics") == {} and bad.get("runs") == [], "failure: numbers in a failed row")
        f = bad.get("failure") or {}
        check(f.get("run") == 1 and f.get("exitStatus") == 3 and f.get("timedOut") is False,
              f"failure: {f}")
        check(f.get("stderrTail") == "first\noops", f"failure: tail {f.get('stderrTail')!r}")
        measured_ok(good, 4, "failure: the other command")
        check(err == f"libbench run: {fails}: run 1 exited with status 3\n", f"failure: stderr {err!r}")
        check(f"failed: {fails}: run 1 exited with status 3 (no numbers)\n"
              "  the end of its stderr:\n  | first\n  | oops\n" in out, f"failure: stdout {out}")
        check(re.search(r"│ sh -c 'echo first.*│ +— │ +— │ +— +│ +— +│ run 1 exited with status 3 +│",
                        out), f"failure: the table row {out}")
        # the default output: no tail, and the message says where it went
        rc, out, err = run(["run", "--runs", "2", "-c", "sh -c 'exit 3'"])
        check(rc == 1 and "its stderr went to /dev/null: --output=pipe keeps the end of it" in out,
              f"failure: null output {rc} {out}")
        # a signal, and a failure after good runs (the series ends there: no partial numbers)
        counter = os.path.join(tmp, "n")
        script = f"echo x >> {counter}; test $(wc -l < {counter}) -lt 3 || kill -SEGV $$"
        rc, out, err, doc = run_json(["--runs", "5", "--shell", "-c", script], tmp)
        row = rows(doc).get(script, {})
        check(rc == 1 and row.get("error") == "run 3 was killed by SIGSEGV (Segmentation fault)",
              f"failure: signal {rc} {row.get('error')!r}")
        check(row.get("completedRuns") == 2 and row.get("runs") == [] and row.get("medianNs") is None,
              f"failure: partial series {row.get('completedRuns')} {row.get('runs')}")
        check((row.get("failure") or {}).get("signal") == "SIGSEGV", f"failure: {row.get('failure')}")


def case_missing():
    """A missing program is a failure row, not a crash; the other command is measured."""
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, doc = run_json(["--runs", "3", "-c", "libbench-no-such-program --flag",
                                      "-c", "true"], tmp)
        check(rc == 1, f"missing: exit {rc}")
        row = rows(doc).get("libbench-no-such-program --flag", {})
        want = "cannot run 'libbench-no-such-program': No such file or directory"
        check(row.get("error") == want, f"missing: error {row.get('error')!r}")
        check((row.get("failure") or {}).get("run") is None and
              (row.get("failure") or {}).get("cannotStart") == "No such file or directory",
              f"missing: failure {row.get('failure')}")
        measured_ok(rows(doc).get("true", {}), 3, "missing: true")
        check(f"failed: libbench-no-such-program --flag: {want} (no numbers)\n" in out,
              f"missing: stdout {out}")
        rc, out, err = run(["run", "--", "/nonexistent/prog"])
        check(rc == 1 and "cannot run '/nonexistent/prog': No such file or directory" in out,
              f"missing: a path {rc} {out} {err}")
        # a file that is not executable
        path = os.path.join(tmp, "script")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        rc, out, err = run(["run", "--", path])
        check(rc == 1 and "Permission denied" in out, f"missing: not executable {rc} {out}")


def case_timeout():
    """A command that starts a background grandchild and hangs is killed at its timeout with its
    whole group: the grandchild is gone, nothing is left running, the run does not stall (also
    with --output=pipe, where the grandchild holds the pipe)."""
    with tempfile.TemporaryDirectory() as tmp:
        for output in ("null", "pipe"):
            pid_file = os.path.join(tmp, "pid-" + output)
            script = f"sleep 300 & echo $! > {pid_file}; sleep 300"
            t0 = time.monotonic()
            rc, out, err, doc = run_json(["--runs", "3", "--timeout", "0.5", "--output", output,
                                          "--shell", "-c", script, "-c", "true"], tmp)
            took = time.monotonic() - t0
            check(rc == 1, f"timeout {output}: exit {rc}")
            check(took < 60, f"timeout {output}: took {took:.1f} s")
            row = rows(doc).get(script, {})
            check(row.get("error") == "run 1 timed out after 0.5 s",
                  f"timeout {output}: error {row.get('error')!r}")
            check((row.get("failure") or {}).get("timedOut") is True, f"timeout: {row.get('failure')}")
            check(row.get("medianNs") is None and row.get("runs") == [], "timeout: numbers")
            measured_ok(rows(doc).get("true", {}), 3, f"timeout {output}: true")
            check(doc is not None and doc["meta"]["timeoutNs"] == 500 * MS, "timeout: meta")
            pid = int(open(pid_file).read().strip()) if os.path.exists(pid_file) else 0
            check(pid > 0, f"timeout {output}: no grandchild pid")
            if pid > 0:
                check(process_gone(pid), f"timeout {output}: grandchild {pid} still running")
            check(f"libbench run: {script}: run 1 timed out after 0.5 s\n" == err,
                  f"timeout: stderr {err!r}")
        # a command that finishes and leaves a background process: that is killed too, and a
        # grandchild holding the pipe does not stall the run
        pid_file = os.path.join(tmp, "bg")
        script = f"sleep 300 & echo $! > {pid_file}"
        t0 = time.monotonic()
        rc, out, err = run(["run", "--runs", "2", "--output=pipe", "--shell", "-c", script])
        check(rc == 0 and time.monotonic() - t0 < 60, f"timeout: background {rc} {err}")
        pid = int(open(pid_file).read().strip())
        check(process_gone(pid), f"timeout: background process {pid} left running")


def case_rss():
    """A child that touches 100 MiB reports a max RSS of at least 100 MiB."""
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, doc = run_json(["--runs", "3", "--", HELPER, "touch", "100"], tmp)
        row = (doc or {}).get("rows", [{}])[0]
        measured_ok(row, 3, "rss")
        rss = (row.get("rusage") or {}).get("max-rss-bytes", {})
        check(isinstance(rss.get("min"), int) and rss["min"] >= 100 * 1024 * 1024,
              f"rss: max RSS {rss}")
        check(row.get("metrics", {}).get("max-rss-bytes") == rss.get("median"), "rss: metrics")
        check(re.search(r"│ \S+run_helper touch 100 +│ .* 1\d\d\.\dMiB │", out), f"rss: table {out}")
        # the floor of a small program is this tool's own, and the JSON says what it was
        check(isinstance(doc["meta"]["harnessMaxRssBytes"], int), "rss: harnessMaxRssBytes")


def fs_type(path):
    p = subprocess.run(["stat", "-f", "-c", "%T", path], stdout=subprocess.PIPE, text=True)
    return p.stdout.strip()


def case_cold_warm():
    """Cold reads of a 64 MiB file on a real filesystem show block input and major faults, warm
    reads neither; every row states its requested and effective regime. On tmpfs cold is
    downgraded with the reason; a FIFO is refused promptly."""
    base = next((d for d in ("/var/tmp", os.environ.get("TMPDIR", ""), "/tmp", HERE)
                 if d and os.path.isdir(d) and fs_type(d) not in ("tmpfs", "ramfs")), None)
    if base is None:
        print("skipped: no directory here is on a real filesystem (all tmpfs or ramfs): a cold "
              "read cannot reach a device")
        sys.exit(77)
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        data = os.path.join(tmp, "data.bin")
        with open(data, "wb") as f:
            block = os.urandom(1 << 20)
            for _ in range(64):
                f.write(block)
            f.flush()
            os.fsync(f.fileno())
        cmd = ["--", HELPER, "map", data]
        rc, out, err, cold = run_json(["--runs", "3", "--cold", data] + cmd, tmp, "cold.json")
        rc2, out2, err2, warm = run_json(["--runs", "3", "--warm", data] + cmd, tmp, "warm.json")
        check(rc == 0 and rc2 == 0, f"regime: exit {rc} {rc2}: {err} {err2}")
        c, w = (cold or {}).get("rows", [{}])[0], (warm or {}).get("rows", [{}])[0]
        check(c.get("regime", {}).get("requested") == "cold" and
              c.get("regime", {}).get("effective") == "cold" and
              c.get("regime", {}).get("runsAtRequested") == 3, f"regime: cold {c.get('regime')}")
        check(w.get("regime", {}).get("requested") == "warm" and
              w.get("regime", {}).get("effective") == "warm", f"regime: warm {w.get('regime')}")
        for r in c.get("runs", []):
            check(r["regime"]["effective"] == "cold" and r["regime"]["residentAfter"] <= 0.1,
                  f"regime: a cold run {r['regime']}")
        cru, wru = c.get("rusage") or {}, w.get("rusage") or {}
        check(cru.get("inblock", {}).get("min", 0) >= (32 << 20) // 512,
              f"regime: cold block input {cru.get('inblock')} (want at least 32 MiB in 512-byte blocks)")
        check(cru.get("majflt", {}).get("min", 0) >= 1, f"regime: cold major faults {cru.get('majflt')}")
        # Warm means the file is resident before each run. A host short of memory (a fresh
        # machine running the suite beside sanitizer builds read 24 blocks and 1 major fault in
        # the typical warm run) still evicts pages of the helper, its libraries or the file
        # during a run, so the invariant is the file's scale: the typical warm run reads under a
        # sixteenth of the 64 MiB file and faults in under 1% of its 16384 pages, and no warm
        # run reads a quarter of it (every cold run read at least half, checked above).
        wib, wmf = wru.get("inblock") or {}, wru.get("majflt") or {}
        check((wib.get("median") if wib.get("median") is not None else 1 << 30) < (4 << 20) // 512
              and (wib.get("max") or 0) < (16 << 20) // 512,
              f"regime: warm block input {wib} (want median under 4 MiB, max under 16 MiB)")
        check((wmf.get("median") if wmf.get("median") is not None else 1 << 30) < 164,
              f"regime: warm major faults {wmf} (want median under 164)")
        check("│ regime │" in out and re.search(r"│ cold +│", out), f"regime: cold table {out}")
        check(re.search(r"│ warm +│", out2), f"regime: warm table {out2}")
    # cold is impossible on tmpfs: downgraded, with the reason, in the row and the table
    if os.path.isdir("/dev/shm") and fs_type("/dev/shm") == "tmpfs":
        with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
            data = os.path.join(tmp, "data.bin")
            with open(data, "wb") as f:
                f.write(b"x" * (1 << 20))
            rc, out, err, doc = run_json(["--runs", "2", "--cold", data, "--", "true"], tmp)
            reg = (doc or {}).get("rows", [{}])[0].get("regime", {})
            # the portable build (RUN_PLATFORM=posix) does not probe a filesystem's kind (statfs
            # is Linux's): the eviction fails instead, and the note says both
            why = ("posix_fadvise did not evict", "fs type unprobed") if PORTABLE else ("tmpfs",)
            check(rc == 0 and reg.get("requested") == "cold" and reg.get("effective") == "steadyState"
                  and reg.get("runsAtRequested") == 0 and
                  all(w in reg.get("note", "") for w in why), f"regime: tmpfs {rc} {reg}")
            said = "2 of 2 runs: posix_fadvise did not" if PORTABLE else \
                "2 of 2 runs: cold impossible on"
            check("cold→steady" in out and said in out, f"regime: tmpfs table {out}")
    # a FIFO: downgraded promptly, never opened for a blocking read
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        t0 = time.monotonic()
        rc, out, err, doc = run_json(["--runs", "2", "--warm", fifo, "--", "true"], tmp)
        reg = (doc or {}).get("rows", [{}])[0].get("regime", {})
        check(time.monotonic() - t0 < 30 and reg.get("effective") == "steadyState" and
              "not a regular file" in reg.get("note", ""), f"regime: FIFO {reg}")


# Words as a shell splits them: each is run as `true WORDS` and compared with /bin/sh's words.
SHELL_WORDS = [
    "a b", "'a b' c", "\"a b\"c'd'", "a\\ b", "''", "a '' b", "'it'\\''s'",
    "\"say \\\"hi\\\"\"", "\"\\$HOME \\\\ \\n\"", "'$HOME' '*' '|;&'", "\\$x \\* \\|", "a\\\nb",
    "\"x\\\ny\"", "a#b c~ d=e", "{a,b} ] !", "'\n' \"\t\"",
]


def case_words():
    with tempfile.TemporaryDirectory() as tmp:
        for words in SHELL_WORDS:
            rc, out, err, doc = run_json(["--runs", "1", "-c", "true " + words], tmp)
            got = (doc or {}).get("rows", [{}])[0].get("argv", [])[1:]
            p = subprocess.run(["/bin/sh", "-c", "set -f; set -- " + words +
                                "; for w in \"$@\"; do printf '%s\\0' \"$w\"; done"],
                               stdout=subprocess.PIPE)
            want = p.stdout.decode().split("\0")[:-1]
            check(rc == 0 and got == want, f"words: {words!r}: {got} but /bin/sh says {want}")


def case_schedule():
    """Several commands are interleaved run by run in a seeded order, never one after the other,
    and never two at once; the same seed gives the same order."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log")
        cmds = []
        for name in ("a", "b", "c"):
            cmds += ["--name", name, "-c",
                     f"sh -c 'echo {name} start $(date +%s%N) >> {log}; sleep 0.01; "
                     f"echo {name} end $(date +%s%N) >> {log}'"]
        rc, out, err, doc = run_json(["--runs", "8", "--seed", "7"] + cmds, tmp)
        check(rc == 0, f"schedule: exit {rc} {err}")
        sched = (doc or {}).get("meta", {}).get("schedule", [])
        check(len(sched) == 8 and all(sorted(r) == [0, 1, 2] for r in sched),
              f"schedule: {sched}")
        check(len({tuple(r) for r in sched}) > 1, f"schedule: every run in the same order {sched}")
        events = [l.split() for l in open(log).read().splitlines()]
        order = [e[0] for e in events if e[1] == "start"]
        check(order == [["a", "b", "c"][i] for r in sched for i in r],
              f"schedule: ran {order}, the JSON says {sched}")
        # sequential: each run ends before the next starts
        for (n1, k1, t1), (n2, k2, t2) in zip(events, events[1:]):
            if k1 == "start":
                check(k2 == "end" and n2 == n1, f"schedule: {n1} started, then {n2} {k2}")
            check(int(t2) >= int(t1), "schedule: time went backwards")
        rc, out, err, doc2 = run_json(["--runs", "8", "--seed", "7"] + cmds, tmp, "again.json")
        check(doc2 and doc2["meta"]["schedule"] == sched, "schedule: the same seed, another order")
        rc, out, err, doc3 = run_json(["--runs", "8", "--seed", "8"] + cmds, tmp, "other.json")
        check(doc3 and doc3["meta"]["schedule"] != sched, "schedule: --seed changes nothing")
        check(doc["meta"]["seed"] == "7", "schedule: meta.seed")


def case_prepare():
    """--prepare runs before every run (warm-ups too), untimed; --warmup runs are not reported; a
    failing --prepare or warm-up run fails its command with a message that says so."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log")
        rc, out, err, doc = run_json(["--runs", "3", "--warmup", "2", "--prepare",
                                      f"sh -c 'echo p >> {log}'", "-c", f"sh -c 'echo c >> {log}'",
                                      "-c", "true"], tmp)
        check(rc == 0, f"prepare: exit {rc} {err}")
        lines = open(log).read().split()
        check(lines.count("p") == 10 and lines.count("c") == 5, f"prepare: log {lines}")
        check(all(lines[i - 1] == "p" for i, x in enumerate(lines) if x == "c"),
              f"prepare: a run without its --prepare {lines}")
        r = rows(doc)
        measured_ok(r.get(f"sh -c 'echo c >> {log}'", {}), 3, "prepare")
        check(r.get("true", {}).get("prepare") == f"sh -c 'echo p >> {log}'", "prepare: row")
        check(doc["meta"]["warmup"] == 2, "prepare: meta.warmup")
        # a --prepare per command; one that fails
        rc, out, err, doc = run_json(["--runs", "2", "--prepare", "true", "--prepare", "false",
                                      "--name", "ok", "--name", "x", "-c", "true", "-c", "true"],
                                     tmp)
        row = rows(doc).get("x", {})
        check(rc == 1 and row.get("error") == "--prepare before run 1 exited with status 1" and
              (row.get("failure") or {}).get("prepare") is True, f"prepare: failing {row}")
        # a failing warm-up run
        rc, out, err, doc = run_json(["--runs", "2", "--warmup", "1", "-c", "false"], tmp)
        row = rows(doc).get("false", {})
        check(rc == 1 and row.get("error") == "warm-up run 1 exited with status 1" and
              (row.get("failure") or {}).get("warmup") is True, f"prepare: warm-up {row}")


def case_shell():
    """--shell runs each command through /bin/sh -c and measures the shell's own start-up beside
    them."""
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, doc = run_json(["--runs", "3", "--shell", "-c", "true | true"], tmp)
        r = rows(doc)
        check(rc == 0 and list(r) == ["true | true", "/bin/sh -c ''"], f"shell: rows {list(r)}")
        check(r.get("true | true", {}).get("argv") == ["/bin/sh", "-c", "true | true"],
              "shell: argv")
        sh = r.get("/bin/sh -c ''", {})
        check(sh.get("kind") == "shellStartup" and sh.get("argv") == ["/bin/sh", "-c", ""],
              f"shell: the start-up row {sh.get('kind')} {sh.get('argv')}")
        measured_ok(sh, 3, "shell: start-up")
        check("the shell's own start-up" in out, f"shell: note {out}")


def case_tty():
    """The live line is drawn on a terminal only (stderr); piped output has no escape sequence
    and the same shape every time."""
    master, slave = pty.openpty()
    p = subprocess.Popen([TOOL, "run", "--runs", "3", "-c", "sleep 0.02", "-c", "true"],
                         stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                         env=clean_env(TERM="xterm"))
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out = p.stdout.read().decode()
    p.wait(timeout=60)
    os.close(master)
    tty = b"".join(chunks).decode("utf-8", "replace")
    check(p.returncode == 0, f"tty: exit {p.returncode}")
    check("run 3/3: " in tty and "\x1b[2K" in tty, f"tty: no live line {tty!r}")
    check(tty.endswith("\r\x1b[2K"), f"tty: the live line is not erased at the end {tty[-40:]!r}")
    check("\x1b" not in out and "│ sleep 0.02" in out, f"tty: stdout {out!r}")
    shapes = []
    for _ in range(2):
        rc, out, err = run(["run", "--runs", "3", "-c", "sleep 0.02", "-c", "true"])
        check(err == "" and "\x1b" not in out, f"tty: piped {err!r}")
        shapes.append(re.sub(r"\d+(\.\d+)?(ns|µs|ms|s|B|KiB|MiB|GiB)?", "N", out))
    check(shapes[0].count("\n") == shapes[1].count("\n"), "tty: piped output changes shape")


USAGE_ERRORS = [
    ([], "error: nothing to run: give -- PROG [ARGS...] or -c 'CMD' (see libbench --help)"),
    (["--runs", "0", "--", "true"], "error: --runs: '0' is not a whole number from 1 to 100000"),
    (["--runs", "x", "--", "true"], "error: --runs: 'x' is not a whole number from 1 to 100000"),
    (["--runs", "--", "true"], "error: --runs needs a number"),
    (["--warmup=-1", "--", "true"], "error: --warmup: '-1' is not a whole number from 0 to 100000"),
    (["--timeout", "0", "--", "true"], "error: --timeout: '0' is not a number of seconds above 0"),
    (["--timeout", "1e3", "--", "true"], "error: --timeout: '1e3' is not a number of seconds"),
    (["--output", "file", "--", "true"], "error: --output: 'file' is not null, pipe or inherit"),
    (["--seed", "-3", "--", "true"], "error: --seed: '-3' is not a whole number from 0 to"),
    (["--seed", "--", "true"], "error: --seed needs a number"),
    (["--json", "--", "true"], "error: --json needs a file name"),
    (["--bogus", "--", "true"], "error: unknown option '--bogus'"),
    (["--warmups", "2", "--", "true"], "error: unknown option '--warmups' (did you mean '--warmup'?)"),
    (["-c"], "error: -c needs a command"),
    (["-c", "a | b"], "error: -c 'a | b': '|' is a shell operator: quote it, or use --shell"),
    (["-c", "FOO=1 prog"], "error: -c 'FOO=1 prog': 'FOO=' at its start is a shell variable"),
    (["-c", "'open"], "error: -c ''open': a single quote is not closed"),
    (["-c", ""], "error: -c '': the command is empty"),
    (["--prepare", "a >f", "-c", "true"], "error: --prepare 'a >f': '>' is a shell operator"),
    (["sleep", "1"], "error: unexpected argument 'sleep': give the command after '--', or with -c"),
    (["--"], "error: '--' needs a program after it"),
    (["-c", "true", "--", "true"], "error: give the command after '--' or with -c, not both"),
    (["--shell", "--", "true"], "error: --shell applies to -c commands"),
    (["--name", "a", "--name", "b", "--", "true"], "error: 2 --name options for 1 command"),
    (["-c", "true", "-c", "true"], "error: two commands are named 'true': give each a --name"),
    (["--prepare", "true", "--prepare", "true", "-c", "a", "-c", "b", "-c", "c"],
     "error: 2 --prepare commands for 3 commands (give one for all, or one per command)"),
    (["--cold", "--", "true"], "error: '--cold' needs at least one file"),
    (["--cold", "a", "--warm", "b", "--", "true"], "error: give --cold or --warm, not both"),
    (["--runs", "2", "--runs", "3", "--", "true"], "error: '--runs' given twice"),
    (["--json", "/nonexistent-dir/x.json", "--", "true"], "error: --json: cannot write"),
]


def case_usage():
    """Bad options are one-line usage errors on stderr, exit 2, nothing on stdout."""
    for args, want in USAGE_ERRORS:
        rc, out, err = run(["run"] + args)
        check(rc == 2 and out == "" and err.startswith(want) and err.count("\n") == 1,
              f"usage: {args}: exit {rc}, stdout {out!r}, stderr {err!r}, want {want!r}")
    rc, out, err = run(["run", "--help"])
    check(rc == 0 and out.startswith("usage: libbench run") and err == "", "usage: --help")
    rc, out, err = run(["--help"])
    check(rc == 0 and "libbench run [OPTIONS] -- PROG" in out and "--commands" in out,
          "usage: libbench --help")


def case_json_schema():
    """Documents of every kind validate against the published schema (measured, failed, timed
    out, missing, --shell, --cold on tmpfs); the schema refuses a document that breaks it."""
    p = subprocess.run([sys.executable, "-c", "import jsonschema"], stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        print("skipped: the Python module jsonschema is not installed (Debian: apt install "
              "python3-jsonschema)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        for i, args in enumerate([
                ["--runs", "2", "--", "true"],
                ["--runs", "2", "--output=pipe", "-c", "sh -c 'echo e >&2; exit 4'", "-c", "true"],
                ["--runs", "1", "--timeout", "0.2", "-c", "sleep 5"],
                ["--runs", "1", "-c", "libbench-no-such-program"],
                ["--runs", "2", "--warmup", "1", "--shell", "-c", "kill -KILL $$"],
                ["--runs", "2", "--cold", "/proc/self/status", "--", "true"]]):
            rc, out, err, doc = run_json(args, tmp, f"{i}.json")
            check(doc is not None, f"json: {args}: no document ({rc} {err})")
        # the schema can fail: a measured row without its numbers, a failed row with numbers
        path = os.path.join(tmp, "0.json")
        doc = json.load(open(path))
        for mutate in (lambda d: d["rows"][0].update(medianNs=None),
                       lambda d: d["rows"][0].update(failure={"run": 1}),
                       lambda d: d["rows"][0]["metrics"].pop("majflt"),
                       lambda d: d.update(mean=1)):
            bad = json.loads(json.dumps(doc))
            mutate(bad)
            bad_path = os.path.join(tmp, "bad.json")
            json.dump(bad, open(bad_path, "w"))
            p = subprocess.run([sys.executable, os.path.join(HERE, "check_json_schema.py"), SCHEMA,
                                bad_path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            check(p.returncode == 1, f"json: a broken document passes: {p.stdout.decode()}")


# ---- compare --commands -----------------------------------------------------------------------

def compare(args, tmp):
    path = os.path.join(tmp, "cmp.json")
    if os.path.exists(path):
        os.unlink(path)
    rc, out, err = run(["compare", "--json", path] + args, timeout=600)
    doc = json.load(open(path)) if os.path.exists(path) else {}
    return rc, out, err, doc


def case_compare_commands():
    """compare --commands claims a REGRESSION for a command doing three times the work, and no
    change for an A/A (the same command twice), with the engine, table, JSON and exit codes of
    the other modes; usage errors are one line, exit 2."""
    base = f"{HELPER} spin 10000000"
    cand = f"{HELPER} spin 30000000"
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err, doc = compare(["--runs", "20", "--commands", base, cand], tmp)
        cell = (doc.get("cells") or [{}])[0]
        claimed = (rc == 1 and doc.get("verdict") == "REGRESSION" and cell.get("state") == "CLAIMED"
                   and cell.get("direction") == "regression")
        if not claimed and cell.get("reason") == "floor_above_detect":
            # a timing effect under an emulator, or under a sanitizer on a machine loaded past
            # its CPUs, may sit below the run's own A/A floor: what is checked then is the honest
            # refusal (the floor measured above --detect), never a PASS
            where = EMULATOR or "this load"
            check(rc == 2 and doc.get("verdict") == "UNMEASURED" and
                  cell.get("state") == "UNMEASURED" and cell.get("floor", 0) > 0.05,
                  f"commands: under {where}, neither a claim nor an honest refusal: exit {rc} "
                  f"{cell}")
            print(f"note: under {where} the 3x effect was below the A/A floor "
                  f"(±{100 * cell.get('floor', 0):.0f}%): UNMEASURED")
        else:
            check(claimed, f"commands: exit {rc} cell {cell}\n{out}\n{err}")
        check(cell.get("name") == "process wall time", f"commands: cell {cell}")
        check(doc.get("mode") == "commands" and doc["subjects"]["baseline"]["command"] == base and
              doc["subjects"]["candidate"]["argv"] == [HELPER, "spin", "30000000"] and
              doc["subjects"]["aa"]["command"] == base, f"commands: subjects {doc.get('subjects')}")
        check(len(doc.get("schedule", [])) == 20 and
              all(sorted(r) == ["aa", "baseline", "candidate"] for r in doc["schedule"]),
              "commands: schedule")
        check(all(isinstance(v, (int, float)) and v > 0 for v in cell["runs_ns"]["candidate"]),
              "commands: runs_ns")
        check("│ process wall time │ 20/20/20" in out and f"verdict: {doc.get('verdict')} " in out,
              f"commands: table {out}")
        check("libbench compare: run 1/20: " in err, f"commands: progress {err}")
        # provenance: the SHA-256 of the program the first word resolves to, no version (any
        # program), no page-cache label (compare does not control it), each run's rusage
        with open(HELPER, "rb") as f:
            helper_sha = hashlib.sha256(f.read()).hexdigest()
        for s in ("baseline", "candidate", "aa"):
            j = doc["subjects"][s]
            check(j.get("binary_sha256") == helper_sha and j.get("binary_sha256_reason") is None,
                  f"commands: {s}: sha256 {j.get('binary_sha256')} != {helper_sha}")
            check(j.get("libbench_version") is None and
                  j.get("libbench_version_reason") ==
                  "--commands: a command's version is not known to compare",
                  f"commands: {s}: version {j.get('libbench_version_reason')}")
            check(j.get("page_cache_state") is None and j.get("page_cache_reason"),
                  f"commands: {s}: page cache {j.get('page_cache_reason')}")
            ru = j.get("rusage") or []
            check(j.get("rusage_source") == "wait4" and len(ru) == 20 and
                  all(v is not None and v["user-ns"] >= 0 and v["sys-ns"] >= 0 and
                      v["user-ns"] + v["sys-ns"] >= 0 and v["max-rss-bytes"] > 0 and
                      isinstance(v["vol-cs"], int) and isinstance(v["majflt"], int) for v in ru)
                  and j.get("rusage_reason") is None, f"commands: {s}: rusage {ru[:2]}")
        check(f"subjects: baseline sha256 {helper_sha[:12]}; candidate sha256 {helper_sha[:12]}; "
              "page cache not controlled\n" in out, f"commands: the subjects line\n{out}")
        # A/A: the same command twice claims nothing
        rc, out, err, doc = compare(["--runs", "12", "--commands", base, base], tmp)
        cell = (doc.get("cells") or [{}])[0]
        check(rc in (0, 2) and doc.get("verdict") != "REGRESSION" and cell.get("state") != "CLAIMED",
              f"commands: A/A claimed {cell.get('state')} {cell.get('direction')}: {out}")
        # a failing candidate: its runs are skips, the cell is UNMEASURED, exit 2
        rc, out, err, doc = compare(["--runs", "5", "--commands", "true", "false"], tmp)
        check(rc == 2 and doc.get("verdict") == "UNMEASURED" and
              "candidate runs 1\u20135, every cell: exited with status 1" in out,
              f"commands: failing candidate {rc} {out}")
        # a timeout
        rc, out, err, doc = compare(["--runs", "3", "--timeout", "0.2", "--commands", "true",
                                     "sleep 5"], tmp)
        check(rc == 2 and "candidate runs 1\u20133, every cell: timed out after 0.2 s" in out,
              f"commands: timeout {rc} {out}")
        # the options in any order: --commands is a mode, its commands the two words that are
        # not options, wherever they stand (issue 26 point 7)
        # --shell: the shell resolves the program, so compare has no hash of it
        rc, out, err, doc = compare(["--runs", "3", "--shell", "--commands", "true", "true"], tmp)
        check(all(doc.get("subjects", {}).get(s, {}).get("binary_sha256") is None and
                  "--shell" in (doc["subjects"][s].get("binary_sha256_reason") or "")
                  for s in ("baseline", "candidate", "aa")), f"commands --shell: {doc}")
        for args in (["--commands", "--shell", "true", "true", "--runs", "3"],
                     ["true", "--runs", "3", "true", "--commands"],
                     ["--runs", "3", "--commands", "true", "--timeout", "5", "true"]):
            rc, out, err, doc = compare(args, tmp)
            # 3 runs decide nothing: too few for Benjamini-Hochberg, or, when the noise of
            # `true` happens to look like a change, a regression it cannot confirm
            check(rc == 2 and doc.get("mode") == "commands" and
                  doc.get("reason") in ("too_few_runs_for_bh", "unconfirmed_regression") and
                  "│ process wall time │ 3/3/3" in out, f"commands in any order: {args}: {rc} "
                  f"{doc.get('mode')} {doc.get('reason')}\n{out}{err}")
    for args, want in [
            (["--commands", "true"], "error: --commands needs two commands"),
            (["--commands", "true", "--runs", "3"], "error: --commands needs two commands"),
            (["--commands=true", "false"], "error: --commands takes two words"),
            (["--commands", "a | b", "true"], "error: --commands 'a | b': '|' is a shell operator"),
            (["--commands", "true", "true", "a", "b"],
             "error: unexpected argument 'a': --commands takes two commands, the words that are "
             "not options"),
            (["--commands", "--baseline", "a.json", "--candidate", "b.json"],
             "error: give --commands, two binaries"),
            (["--commands", "true", "true", "--", "x"], "error: ARGS after '--' apply to binaries"),
            (["--shell", "a", "b"], "error: --shell applies to --commands"),
            (["--mode=runs", "--timeout", "1", "a", "b"], "error: --timeout applies to --commands"),
            (["--commands", "libbench-no-such-program", "true"],
             "error: --commands: cannot run 'libbench-no-such-program': No such file or directory")]:
        rc, out, err = run(["compare"] + args)
        check(rc == 2 and out == "" and err.startswith(want) and err.count("\n") == 1,
              f"commands: {args}: {rc} {out!r} {err!r}")


ALL = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ALL:
        sys.exit(f"usage: run_run.py {{{'|'.join(sorted(ALL))}}}")
    if not TOOL or not HELPER:
        sys.exit("run_run.py: RUN_TOOL and RUN_HELPER must name the built programs")
    ALL[sys.argv[1]]()
    for f in failures:
        print("FAIL:", f)
    print(f"{sys.argv[1]}: {'ok' if not failures else str(len(failures)) + ' failure(s)'}")
    sys.exit(1 if failures else 0)
