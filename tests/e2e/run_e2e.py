#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_e2e.py: end-to-end checks of real test binaries built with the shim. Each case runs
# a binary piped or under a pseudo-terminal (script(1)) and compares stdout, stderr and
# the exit status exactly, after masking the only varying parts (durations, paths).
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

from emulation import EMULATOR, crash_reason, without_emulator

SAMPLE = os.environ.get("E2E_SAMPLE", "")
EMPTY = os.environ.get("E2E_EMPTY", "")
HANG = os.environ.get("E2E_HANG", "")
HOLD_FSYNC_LIB = os.environ.get("E2E_HOLD_FSYNC_LIB", "")
BENCH_ONLY = os.environ.get("E2E_BENCH_ONLY", "")
CMOCKA = os.environ.get("E2E_CMOCKA", "")
QUICKSTART = os.environ.get("E2E_QUICKSTART", "")
CAPABILITIES = os.environ.get("E2E_CAPABILITIES", "")
CASES = os.environ.get("E2E_CASES", "")
COUNTING = os.environ.get("E2E_COUNTING", "")
WORKLOADS = os.environ.get("E2E_WORKLOADS", "")
CRASHING = os.environ.get("E2E_CRASHING", "")
DUPLICATES = os.environ.get("E2E_DUPLICATES", "")
LIBBENCH = os.environ.get("E2E_LIBBENCH", "")
PROFILE = os.environ.get("E2E_PROFILE", "")
PROFILE_STRIPPED = os.environ.get("E2E_PROFILE_STRIPPED", "")
PROFILE_NO_ARANGES = os.environ.get("E2E_PROFILE_NO_ARANGES", "")
PROFILE_LEAF = os.environ.get("E2E_PROFILE_LEAF", "")
HIDE_LIBDW_LIB = os.environ.get("E2E_HIDE_LIBDW_LIB", "")
ISOLATE_BIN = os.environ.get("E2E_ISOLATE_BIN", "")
# E2E_ISOLATE=worker runs the runner's cases again with --isolate=worker: every test-mode run of
# these binaries gets the option first, and everything else must hold unchanged.
ISOLATE = os.environ.get("E2E_ISOLATE", "")
# E2E_PLATFORM=posix: the portable build (-Dplatform=posix, docs/reference/platforms.md). Its
# Linux-only sources and readings are absent "not available on this platform": the cases that
# check them assert that absence (and what still works) instead.
PORTABLE = os.environ.get("E2E_PLATFORM", "linux") == "posix"
OFF_PLATFORM = "not available on this platform"
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "reference",
                      "bench-json.schema.json")
EXPECT_DEBUG_WARNING = os.environ.get("E2E_EXPECT_DEBUG_WARNING", "0") == "1"
DEBUG_WARNING = re.compile(r"warning: \S*sample\.c was compiled without (optimization|NDEBUG "
                           r"\(asserts enabled\)) — benchmark numbers may be meaningless; build "
                           r"with optimization and -DNDEBUG \(e\.g\. meson --buildtype=release\)\n")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    # A segfaulting test must die by the signal even in a sanitizer build.
    for name in ("ASAN_OPTIONS", "TSAN_OPTIONS"):
        given = env.get(name, "")
        env[name] = (given + ":" if given else "") + "handle_segv=0:handle_abort=0"
    env.update(extra)
    return env


# The environment check's warnings (the governor, boost, no PMU, the load at start) depend on the
# host: run() drops them, and case_environment checks them.
ENVIRONMENT_WARNING = re.compile(r"^warning: environment: [^\n]*\n", re.M)


def isolated(argv):
    """argv with E2E_ISOLATE's --isolate=MODE first, for the binaries the runner's cases run."""
    runner_binaries = {b for b in (SAMPLE, EMPTY, HANG, BENCH_ONLY, QUICKSTART) if b}
    if ISOLATE and argv and argv[0] in runner_binaries:
        return [argv[0], "--isolate=" + ISOLATE] + list(argv[1:])
    return argv


def run(argv, preexec_fn=None, keep_environment=False, cwd=None, **env):
    argv = isolated(argv)
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=clean_env(**env), timeout=90,
                       preexec_fn=preexec_fn, cwd=cwd)
    err = without_emulator(p.stderr.decode("utf-8"))
    if not keep_environment:
        err = ENVIRONMENT_WARNING.sub("", err)
    return p.returncode, without_emulator(p.stdout.decode("utf-8")), err


def run_pty(argv, **env):
    """Run under a pseudo-terminal; returns (status, terminal text)."""
    env.setdefault("TERM", "xterm-256color")
    cmd = " ".join(shlex.quote(a) for a in isolated(argv))
    p = subprocess.run(["script", "-qfec", cmd, "/dev/null"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                       env=clean_env(**env), timeout=90)
    return p.returncode, without_emulator(p.stdout.decode("utf-8").replace("\r\n", "\n"))


def mask(text, binary=None):
    text = re.sub(r"(Summary: .*) in \S+$", r"\1 in <T>", text, flags=re.M)
    text = re.sub(r"\S*tests/e2e/(\w+\.c)", r"\1", text)
    if binary:
        text = text.replace(binary, "<bin>")
    return text


SAMPLE_PIPED = """\
 ✓ sample.passes
 ✗ sample.fails_check
    sample.c:18: check failed: 1 + 1 == 3
    --- output ---
    output before the failure
 ✗ sample.fails_with_message
    expected 3 items, got 2
 ✗ sample.segfaults (killed by SIGSEGV: Segmentation fault)
 ✗ sample.aborts (killed by SIGABRT: Aborted)
 ⊘ sample.skipped (needs a GPU)
 ✗ sample.exits_early (exited with status 3 before the test finished)

Summary: 1 passed, 5 failed, 1 skipped, 2 benchmarks (run with --bench), 1 workloads (run with --bench) in <T>

Failed tests (5):
 ✗ sample.aborts (killed by SIGABRT: Aborted)
 ✗ sample.exits_early (exited with status 3 before the test finished)
 ✗ sample.fails_check
    sample.c:18: check failed: 1 + 1 == 3
 ✗ sample.fails_with_message
    expected 3 items, got 2
 ✗ sample.segfaults (killed by SIGSEGV: Segmentation fault)

To rerun:
  <bin> -i '^sample\\.aborts$'
  <bin> -i '^sample\\.exits_early$'
  <bin> -i '^sample\\.fails_check$'
  <bin> -i '^sample\\.fails_with_message$'
  <bin> -i '^sample\\.segfaults$'
"""


def case_piped():
    rc, out, err = run([SAMPLE, "-j", "2"])
    check(rc == 1, f"piped: exit status {rc}, want 1")
    check(err == "", f"piped: stderr not empty: {err!r}")
    check("\x1b" not in out, "piped: escape sequence in piped stdout")
    got = mask(out, SAMPLE)
    check(got == SAMPLE_PIPED, "piped: stdout differs:\n" + got)
    # byte-stable: a second run gives the same bytes apart from the duration
    rc2, out2, _ = run([SAMPLE, "-j", "2"])
    check(mask(out2, SAMPLE) == got, "piped: second run differs")


def case_no_pidfd():
    # Without pidfd_open (a kernel before 5.3, or a seccomp filter that refuses it) the runner
    # sees a worker's exit by the end of its output pipe and polls for it: the same output, and
    # the same timeouts. strace injects ENOSYS into every pidfd_open of the runner.
    import shutil
    import tempfile
    if PORTABLE:
        no_pidfd_portable(shutil.which("strace"))
        return
    strace = shutil.which("strace")
    if EMULATOR:
        print(f"no_pidfd: skipped: under {EMULATOR}, strace sees the emulator's system calls, "
              "not the program's: it cannot refuse the program's pidfd_open")
        sys.exit(77)
    if not strace or subprocess.run([strace, "-o", "/dev/null", "true"],
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL).returncode != 0:
        print("no_pidfd: skipped: strace is missing or cannot trace here")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "strace.log")
        inject = [strace, "-qq", "-o", log, "-e", "trace=pidfd_open",
                  "-e", "inject=pidfd_open:error=ENOSYS"]
        # LeakSanitizer cannot run under ptrace (a sanitizer build): the other cases check leaks
        asan = clean_env()["ASAN_OPTIONS"] + ":detect_leaks=0"
        for jobs in ("1", "2"):
            rc, out, err = run(inject + [SAMPLE, "-j", jobs], ASAN_OPTIONS=asan)
            check(rc == 1 and err == "" and mask(out, SAMPLE) == SAMPLE_PIPED,
                  f"no_pidfd -j{jobs}: {rc} {err!r}\n{mask(out, SAMPLE)}")
            with open(log) as f:
                refused = f.read().count("(INJECTED)")
            check(refused > 0, f"no_pidfd -j{jobs}: no pidfd_open was refused")
        rc, out, err = run(inject + [HANG, "--timeout=1", "-j", "4"], ASAN_OPTIONS=asan)
        got = mask(re.sub(r"helper \d+", "helper <pid>", out), HANG)
        check(rc == 1 and err == "" and got == HANG_PIPED, f"no_pidfd timeout: {rc} {err!r}\n{got}")


def no_pidfd_portable(strace):
    """The portable build never calls pidfd_open: the no-pidfd path is its only one. The same
    output and timeouts, and (where strace can trace) not one pidfd_open attempted."""
    print("no_pidfd: portable build: pidfd_open is never called here; the polling path is "
          "checked as the build's only one")
    traced = strace and subprocess.run([strace, "-o", "/dev/null", "true"],
                                       stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL).returncode == 0
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "strace.log")
        trace = [strace, "-qq", "-f", "-o", log, "-e", "trace=pidfd_open"] if traced else []
        asan = clean_env()["ASAN_OPTIONS"] + ":detect_leaks=0"
        for jobs in ("1", "2"):
            rc, out, err = run(trace + [SAMPLE, "-j", jobs], ASAN_OPTIONS=asan)
            check(rc == 1 and err == "" and mask(out, SAMPLE) == SAMPLE_PIPED,
                  f"no_pidfd -j{jobs}: {rc} {err!r}\n{mask(out, SAMPLE)}")
            if traced:
                with open(log) as f:
                    calls = f.read().count("pidfd_open(")
                check(calls == 0, f"no_pidfd -j{jobs}: the portable build called pidfd_open "
                                  f"{calls} times")
        if not traced:
            print("no_pidfd: strace is missing or cannot trace here: the absence of pidfd_open "
                  "calls is not checked, the output and timeouts are")
        rc, out, err = run(trace + [HANG, "--timeout=1", "-j", "4"], ASAN_OPTIONS=asan)
        got = mask(re.sub(r"helper \d+", "helper <pid>", out), HANG)
        check(rc == 1 and err == "" and got == HANG_PIPED, f"no_pidfd timeout: {rc} {err!r}\n{got}")


def case_jobs():
    outs = []
    for j in ("1", "3", "0"):
        rc, out, err = run([SAMPLE, "--jobs=" + j])
        check(rc == 1, f"jobs {j}: exit {rc}")
        outs.append(mask(out, SAMPLE))
    check(outs[0] == outs[1] == outs[2] == SAMPLE_PIPED, "jobs: output depends on --jobs")


def case_verbose():
    rc, out, err = run([SAMPLE, "-v", "-i", "passes|skipped"])
    check(rc == 0, f"verbose: exit {rc}")
    lines = out.splitlines()
    check(re.fullmatch(r" ✓ sample\.passes \(\d+\.\d+(ns|µs|ms|s)\) \[\S*sample\.c:10\]", lines[0])
          is not None, f"verbose: pass line {lines[0]!r}")
    check(re.fullmatch(r" ⊘ sample\.skipped \(needs a GPU\) \(\S+\) \[\S*sample\.c:\d+\]", lines[1])
          is not None, f"verbose: skip line {lines[1]!r}")
    check(mask(out).endswith("Summary: 1 passed, 0 failed, 1 skipped in <T>\n"),
          "verbose: summary " + out)


def case_filters():
    rc, out, _ = run([SAMPLE, "-i", "^sample\\.(passes|skipped)$"])
    check(rc == 0 and mask(out) == " ✓ sample.passes\n ⊘ sample.skipped (needs a GPU)\n\n"
          "Summary: 1 passed, 0 failed, 1 skipped in <T>\n", "filters: include " + out)
    rc, out, _ = run([SAMPLE, "-e", "fail|segv|segfaults|aborts|exits|sum_loop|pinned|ingest"])
    check(rc == 0 and mask(out) == " ✓ sample.passes\n ⊘ sample.skipped (needs a GPU)\n\n"
          "Summary: 1 passed, 0 failed, 1 skipped in <T>\n", "filters: exclude " + out)
    rc, out, _ = run([SAMPLE, "-i", "sample", "-e", "s$|check|message|early|aborts|ingest"])
    check(rc == 0 and mask(out) == " ⊘ sample.skipped (needs a GPU)\n\nSummary: 0 passed, "
          "0 failed, 1 skipped, 2 benchmarks (run with --bench) in <T>\n", "filters: both " + out)
    # a filter that selects nothing the mode runs is a usage error, naming the pattern(s)
    for argv, want in FILTER_ERRORS:
        rc, out, err = run([SAMPLE] + argv)
        check(rc == 2 and out == "" and err == want, f"filters: {argv}: {rc} {out!r} {err!r}")
    # no filter: an empty program, or an empty mode, is not an error
    rc, out, err = run([BENCH_ONLY])
    check(rc == 0 and err == "" and "Summary: 0 passed, 0 failed, 3 benchmarks" in out,
          f"filters: benchmarks only, test mode: {rc} {out!r} {err!r}")
    # the pattern length cap, one byte over and at it
    rc, out, err = run([SAMPLE, "-i", "a" * 4097])
    check(rc == 2 and out == "" and err == "error: option '--include': the pattern is 4097 bytes "
          "long (at most 4096) (see --help)\n", f"filters: long pattern {rc} {err!r}")
    rc, out, err = run([SAMPLE, "-e", "x" * 4096, "-i", "passes"])
    check(rc == 0 and " ✓ sample.passes" in out, f"filters: pattern at the cap {rc} {err!r}")
    # 100 KB of alternation is refused at once (it once ran for minutes and took gigabytes)
    big = "|".join(f"^sample\\.test_{i}$" for i in range(5000))
    rc, out, err = run([SAMPLE, "--list", "-i", big])
    check(rc == 2 and err.startswith("error: option '--include': the pattern is "),
          f"filters: 100 KB pattern {rc} {err[:200]!r}")
    rc, out, err = run([SAMPLE, "-i", "a(b"])
    check(rc == 2 and out == "" and err.count("\n") == 1 and
          err.startswith("error: invalid --include regular expression 'a(b': ") and
          err.endswith(" (see --help)\n"), f"filters: bad regex {rc} {err!r}")


FILTER_ERRORS = [
    (["-i", "nothing-matches"], "error: --include 'nothing-matches' selects no test (of 7; --list "
                                "shows every name)\n"),
    (["-i", "sum_loop|ingest"], "error: --include 'sum_loop|ingest' selects no test (of 7), only "
                                "benchmarks or workloads (run them with --bench)\n"),
    (["-e", "."], "error: --exclude '.' selects no test (of 7; --list shows every name)\n"),
    (["-i", "pass", "-e", "es$"], "error: --include 'pass' with --exclude 'es$' selects no test "
                                  "(of 7; --list shows every name)\n"),
    (["--bench", "-i", "passes"], "error: --include 'passes' selects no benchmark or workload (of "
                                  "3), only tests (run them without --bench)\n"),
    (["--bench", "-i", "zzz"], "error: --include 'zzz' selects no benchmark or workload (of 3; "
                               "--list shows every name)\n"),
    (["--bench", "--group-by=list", "-i", "zzz"], "error: --include 'zzz' selects no benchmark or "
                                                  "workload (of 3; --list shows every name)\n"),
    (["--list", "-i", "zzz"], "error: --include 'zzz' selects no test, benchmark or workload (of "
                              "10)\n"),
    (["--list", "--bench", "-i", "zz\x1bz"], "error: --include 'zz?z' selects no test, benchmark or "
                                             "workload (of 10)\n"),
]


def case_list():
    rc, out, err = run([SAMPLE, "--list"])
    want = ("sample.passes\nsample.fails_check\nsample.fails_with_message\nsample.segfaults\n"
            "sample.aborts\nsample.skipped\nsample.exits_early\nsample.sum_loop @benchmark\n"
            "sample.pinned @benchmark\nsample.ingest @workload\n")
    check(rc == 0 and out == want and err == "", f"list: {rc} {out!r} {err!r}")
    rc, out, err = run([SAMPLE, "-l", "-i", "pinned|ingest"])
    check(rc == 0 and out == "sample.pinned @benchmark\nsample.ingest @workload\n", "list -i " + out)


def case_pty_color():
    rc, text = run_pty([SAMPLE, "-i", "passes|fails_check|skipped"])
    check(rc == 1, f"pty: exit {rc}")
    check("\x1b[32m✓\x1b[0m" in text.replace("\x1b[32m✓ sample.passes\x1b[0m", "\x1b[32m✓\x1b[0m")
          or "\x1b[32m✓ sample.passes" in text, "pty: no green pass mark: " + repr(text))
    check("\x1b[1;31m✗ sample.fails_check" in text, "pty: no red failure: " + repr(text))
    check("\x1b[33m⊘ sample.skipped (needs a GPU)" in text, "pty: no yellow skip")
    check("Summary: 1 passed, 1 failed, 1 skipped" in text, "pty: summary missing")
    check("\x1b[2K" not in text.split("Summary:")[1], "pty: progress line after the summary")


def case_pty_no_color():
    for label, argv, env in (("NO_COLOR", [SAMPLE], {"NO_COLOR": "1"}),
                             ("TERM=dumb", [SAMPLE], {"TERM": "dumb"}),
                             ("--no-colors", [SAMPLE, "--no-colors"], {})):
        rc, text = run_pty(argv + ["-j", "2"], **env)
        check(rc == 1, f"{label}: exit {rc}")
        check("\x1b" not in text, f"{label}: escape sequence on a terminal: {text!r}")
        check(mask(text, SAMPLE) == SAMPLE_PIPED, f"{label}: output differs from piped:\n" + text)
    # an empty NO_COLOR does not disable colour
    rc, text = run_pty([SAMPLE, "-i", "passes"], NO_COLOR="")
    check("\x1b[32m" in text, "NO_COLOR='' disabled colour")


def run_pty_sized(argv, cols, rows, **env):
    """run_pty on a terminal of cols x rows."""
    env.setdefault("TERM", "xterm-256color")
    cmd = f"stty cols {cols} rows {rows}; " + " ".join(shlex.quote(a) for a in argv)
    p = subprocess.run(["script", "-qfec", cmd, "/dev/null"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                       env=clean_env(**env), timeout=120)
    return p.returncode, without_emulator(p.stdout.decode("utf-8").replace("\r\n", "\n"))


SPINNER = "[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]"


def case_pty_live_table():
    # --bench on a terminal: the body's table drawn in place (synchronized), the case in flight
    # its dim last row saying measuring, a done/total count under it; each frame taken back
    # (cursor up over its lines, erase below) before the next or the final table
    rc, text = run_pty_sized([CASES, "--bench", "-i", "matrix"], 200, 60)
    check(rc == 1, f"live table: exit {rc}")
    frame = re.search("\x1b\\[2m│ small +│ fast +│ " + SPINNER + " cases\\.count +│ measuring… │",
                      text)
    check(frame is not None, "live table: no dim in-flight row for count: " + repr(text))
    check(re.search(r"^0/1 \(\S+\)$", text, re.M) is not None and "1/1 (" not in text,
          "live table: no done/total count under the frame: " + repr(text))
    check(re.search("\x1b\\[\\?2026h\r\x1b\\[\\d+A\x1b\\[J", text) is not None,
          "live table: a frame is not taken back inside synchronized output: " + repr(text))
    # the final table stays, its error row red and its skipped row yellow
    final = text[text.rindex("╭"):]
    check("measuring…" not in final, "live table: the final table has an in-flight row")
    check(re.search("\x1b\\[31m│ small +│ slow +│ cases\\.fails ", final) is not None,
          "live table: the error row is not red: " + repr(final))
    check(re.search("\x1b\\[33m│ small +│ +│ cases\\.skips ", final) is not None,
          "live table: the skipped row is not yellow: " + repr(final))
    check(re.search("^│ small +│ fast +│ cases\\.count ", final, re.M) is not None,
          "live table: a measured row is painted: " + repr(final))
    # stdout redirected, stderr a terminal: stdout has no escape at all and no frame; the
    # stderr ticker counts instead
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "out.txt")
        cmd = f"stty cols 200 rows 60; {shlex.quote(CASES)} --bench -i matrix > {out_path}"
        p = subprocess.run(["script", "-qfec", cmd, "/dev/null"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           env=clean_env(TERM="xterm-256color"), timeout=120)
        terminal = p.stdout.decode("utf-8")
        with open(out_path, encoding="utf-8") as f:
            out = f.read()
        check("\x1b" not in out and "measuring" not in out and "│ cases.count " in out,
              "redirected stdout: " + repr(out))
        check(re.search("\x1b\\[2K" + SPINNER + r" 0/1 \([^)]*\) cases\.matrix", terminal),
              "redirected stdout: no ticker with the count on stderr: " + repr(terminal))
    # the policy: no live table, no colour with NO_COLOR, TERM=dumb or --no-colors
    for label, argv, env in (("NO_COLOR", [], {"NO_COLOR": "1"}),
                             ("TERM=dumb", [], {"TERM": "dumb"}),
                             ("--no-colors", ["--no-colors"], {})):
        rc, text = run_pty_sized([CASES, "--bench", "-i", "matrix"] + argv, 200, 60, **env)
        check(rc == 1 and "\x1b" not in text and "measuring" not in text,
              f"live table {label}: {rc} {text!r}")


def case_pty_live_narrow():
    # a frame that does not fit the terminal is never drawn (it could not be taken back): the
    # stderr spinner says the case instead, its name cut from the left to fit the line
    rc, text = run_pty_sized([CASES, "--bench", "-i", "two_loops"], 26, 60)
    check("measuring" not in text, "narrow: a frame wider than the terminal was drawn")
    spins = re.findall("\x1b\\[2K(" + SPINNER + r" \d+/\d+ \([^)]*\) [^\x1b]*)\x1b\[\?2026l",
                       text)
    check(spins, "narrow: no spinner line: " + repr(text))
    for line in spins:
        check(len(line) <= 25, f"narrow: spinner line wider than the terminal: {line!r}")
    check(any(re.search(r" …\S*loops$", line) for line in spins),
          f"narrow: no name cut: {spins!r}")


def case_pty_workload_spinner():
    # workloads: the stderr spinner with the count while a window runs, never a live table
    rc, text = run_pty_sized([WORKLOADS, "--bench", "-i", "spin|sleep"], 200, 60)
    check(rc == 0, f"workload spinner: exit {rc}: {text!r}")
    for name in ("workloads.sleep", "workloads.spin"):
        check(re.search("\x1b\\[2K" + SPINNER + r" \d/2 \([^)]*\) " + re.escape(name), text),
              f"workload spinner: none for {name}: {text!r}")
    check("measuring" not in text, "workload spinner: a live table for workloads")


def case_pty_cut_names():
    # test mode on a narrow terminal: a result line's name is cut from the left to fit; never
    # with -v
    rc, text = run_pty_sized([SAMPLE, "-i", "passes|skipped"], 30, 40)
    check("\x1b[33m⊘ …skipped (needs a GPU)\x1b[0m" in text, "cut: skipped line: " + repr(text))
    check("sample.passes" in text, "cut: a line that fits was cut: " + repr(text))
    rc, text = run_pty_sized([SAMPLE, "-i", "passes|skipped", "-v"], 30, 40)
    check("⊘ sample.skipped (needs a GPU)" in text, "cut: -v cut a name: " + repr(text))


CLI_ERRORS = [
    (["--bogus"], "error: unknown option '--bogus' (see --help)\n"),
    (["--bnech"], "error: unknown option '--bnech' (did you mean '--bench'?) (see --help)\n"),
    (["-j", "abc"], "error: option '-j' needs a non-negative integer, got 'abc' (see --help)\n"),
    (["--jobs=-1"], "error: option '--jobs' needs a non-negative integer, got '-1' (see --help)\n"),
    (["stray"], "error: unexpected positional argument 'stray' (this program takes options "
                "only) (see --help)\n"),
    (["-v", "--syscalls=futex", "read"], "error: unexpected positional argument 'read' (this "
                                         "program takes options only) (see --help)\n"),
    (["--syscalls", "futex"], "error: unexpected positional argument 'futex' — --syscalls takes "
                              "its list only with '=' (--syscalls=futex) (see --help)\n"),
    # a long option spelled with one dash
    (["-bench"], "error: unknown option '-bench' (did you mean '--bench'?) (see --help)\n"),
    (["-include=foo"], "error: unknown option '-include=foo' (did you mean '--include'?) "
                       "(see --help)\n"),
    (["-verbose"], "error: unknown option '-verbose' (did you mean '--verbose'?) (see --help)\n"),
    (["-help"], "error: unknown option '-help' (did you mean '--help'?) (see --help)\n"),
    (["-jobs=4"], "error: unknown option '-jobs=4' (did you mean '--jobs'?) (see --help)\n"),
    # a short option's value is never attached with '='
    (["-j=4"], "error: option '-j' takes its value as '-j VALUE' or '-jVALUE', not '-j=4' "
               "(see --help)\n"),
    # single-valued options given twice (numbers too)
    (["-j", "1", "-j", "2"], "error: option '-j' given more than once (see --help)\n"),
    (["--perf-iters=1", "--perf-iters=1"], "error: option '--perf-iters' given more than once "
                                           "(see --help)\n"),
    (["-i", "a", "--include=b"], "error: option '--include' given more than once (see --help)\n"),
    # control characters from a value become '?': still one line
    (["--metrics=a\nb"], "error: option '--metrics': whitespace or control character in 'a?b' "
                         "(see --help)\n"),
    (["bad\x1b[2Jarg"], "error: unexpected positional argument 'bad?[2Jarg' (this program takes "
                        "options only) (see --help)\n"),
    (["--", "x\ny"], "error: unexpected argument 'x?y' after '--' (this program takes no "
                     "positional arguments) (see --help)\n"),
    (["-i", "(\n"], None),
    (["--verbose=1"], "error: option '--verbose' takes no value (see --help)\n"),
    (["-i"], "error: option '-i' needs a value (REGEX) (see --help)\n"),
    (["-e", "("], None),
    (["--bench-min-time=1e3"], None),
    (["--perf-iters=99999999999999999999999"], None),
    (["--metrics=a,,b"], None),
    (["--bench-json="], None),
    (["-vl"], None),
]


def case_cli_errors():
    for argv, want in CLI_ERRORS:
        rc, out, err = run([SAMPLE] + argv)
        check(rc == 2, f"cli {argv}: exit {rc}")
        check(out == "", f"cli {argv}: stdout {out!r}")
        check(err.count("\n") == 1 and err.startswith("error: ") and err.endswith(" (see --help)\n"),
              f"cli {argv}: stderr is not one error line: {err!r}")
        if want is not None:
            check(err == want, f"cli {argv}: {err!r} != {want!r}")


def case_help_version():
    rc, out, err = run([SAMPLE, "--help"])
    check(rc == 0 and out.startswith("Usage: ") and "--jobs=N" in out and "--bench-json=FILE" in out
          and err == "", "help: " + out)
    rc, out, err = run([SAMPLE, "--version"])
    check(rc == 0 and re.fullmatch(r"libbench \d+\.\d+\.\d+\n", out) is not None, "version " + out)


def case_empty():
    rc, out, err = run([EMPTY])
    check(rc == 0 and mask(out) == "\nSummary: 0 passed, 0 failed in <T>\n" and err == "",
          f"empty: {rc} {out!r} {err!r}")
    rc, out, err = run([EMPTY, "--bench"])
    check(rc == 0 and out == "no BENCHMARK or WORKLOAD tests found\n", f"empty bench: {out!r}")
    rc, out, err = run([EMPTY, "--list"])
    check(rc == 0 and out == "" and err == "", f"empty list: {rc} {out!r} {err!r}")
    # with a filter, an empty program selects nothing: a usage error
    rc, out, err = run([EMPTY, "-e", "slow"])
    check(rc == 2 and out == "" and err == "error: --exclude 'slow' selects no test: the program "
          "has none\n", f"empty filtered: {rc} {out!r} {err!r}")


# A median may carry the contention mark (" †"), the mark of a contention not measured (" §"), or
# their blank place in a table with marked rows.
ROW = r"│ (\S+) +│ +(\d+(?:×\d+)?) │ +(\S+) ±(\S+)(?: †| §|  )? │ +(\S+) │ +(\S+) │"


def case_bench():
    rc, out, err = run([SAMPLE, "--bench"])
    check(rc == 0, f"bench: exit {rc} {err}")
    check("\x1b" not in out, "bench: escape sequence in piped output")
    rows = re.findall(ROW, out)
    names = [r[0] for r in rows]
    # one table per BENCHMARK, in the order of their full names
    check(names == ["sample.pinned", "sample.sum_loop"], f"bench: rows {names}")
    if len(rows) == 2:
        check(rows[0][1] == "32×10", f"bench: pinned n {rows[0][1]}")
        check(rows[1][1].startswith("32×"), f"bench: auto-scaled n {rows[1][1]}")
    warning = DEBUG_WARNING.match(err)
    check(bool(warning) == EXPECT_DEBUG_WARNING, f"bench: debug-build warning {err!r}")
    if warning:
        err = err[warning.end():]
    check(err == "" or err.startswith("workload: runqueue wait unattributable"),
          f"bench stderr: {err!r}")
    check("╼ workloads ╾" in out and "│ sample.ingest " in out, "bench: the workloads table")
    check(out.startswith("╭") and "┝" in out and out.rstrip().endswith("╯"), "bench: box drawing")
    # a measured row whose contention is null in the JSON carries § in the table, with the
    # reason under it; so a row without † or § had its contention measured (issue 32, point 6)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "b.json")
        rc, out, err = run([SAMPLE, "--bench", "--bench-json=" + path])
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for r in doc["rows"]:
            if r["error"]:
                continue
            m = re.search(r"│ " + re.escape(r["name"]) + r" +│ [^│]*│ [^│]*?( †| §)? │", out)
            mark = m.group(1) if m else None
            check(m is not None and (mark == " §") == (r["contention"] is None),
                  f"bench: contention mark {mark!r} for {r['name']} ({r['contention']})\n{out}")
        unknown = any(r["contention"] is None and not r["error"] for r in doc["rows"])
        check(("\n§ contention not measured (docs/explanation/contention.md): " in out) == unknown,
              f"bench: the § note\n{out}")
    rc, out, err = run([BENCH_ONLY, "--bench"])
    check(rc == 1, f"bench_only: exit {rc}")
    check(re.search(r"│ bench_only\.whole_body +│ +32×\d+ │", out) is not None, "bench_only: whole")
    check(out.find("bench_only.checks_and_fails") > 0, "bench_only: the error row")
    # a skip before any loop or case: the skip line on stderr, no row
    check("bench_only.skips" not in out, "bench_only: a skip before registering has no row")
    check(" \u2298 bench_only.skips (no fixture here)\n" in err,
          f"bench_only: the skip line {err!r}")
    # the notes column wraps at 48 cells: read the cells' text without the table's breaks
    flat = " ".join(re.sub(r"[│╭╮╰╯┝┥┿┬┴─━]", " ", out).split())
    check("check failed:" in flat, "bench_only: notes " + out)
    check(re.search(r"bench_only\.checks_and_fails │ — │ +— │ +— │ +— │", out) is not None,
          "bench_only: error row cells are em dashes")


def case_cmocka_dispatch():
    rc, out, err = run([CMOCKA])
    check(rc == 0 and "[  PASSED  ] 2 test(s)." in out + err, f"cmocka: {rc} {out!r} {err!r}")
    check("╭" not in out, "cmocka: libbench took over without a bench flag")
    rc, out, err = run([CMOCKA, "--bench"])
    check(rc == 0 and re.search(r"│ cmocka_dispatch\.xor_shift +│ +32×\d+ │", out) is not None,
          f"cmocka --bench: {rc} {out!r}")
    check("[==========]" not in out, "cmocka ran under --bench")


def case_quickstart():
    if not QUICKSTART:
        print("SKIP: examples are not built")
        sys.exit(77)
    rc, out, err = run([QUICKSTART])
    check(rc == 0 and mask(out) == " ✓ quickstart.fnv1a_empty_is_offset_basis\n"
          " ✓ quickstart.fnv1a_known_vector\n ✓ quickstart.fnv1a_depends_on_every_byte\n\n"
          "Summary: 3 passed, 0 failed, 1 benchmarks (run with --bench) in <T>\n",
          f"quickstart: {rc} {out!r}")
    rc, out, err = run([QUICKSTART, "--bench"])
    check(rc == 0 and re.search(r"│ quickstart\.fnv1a_1k +│ +32×\d+ │", out) is not None,
          f"quickstart --bench: {rc} {out!r} {err!r}")


def case_bench_precision():
    """--bench-precision: a row stops between 8 and 32 samples, and without --bench-min-time the
    samples are 1 ms (meta.minSampleTimeMs 1); --bench-min-time still wins; without the option
    the default stays 5 ms. Sample counts bounded, no timing asserted."""
    if not QUICKSTART:
        print("SKIP: examples are not built")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        out_json = os.path.join(tmp, "p.json")
        for args, want_ms in ((["--bench-precision=1"], 1),
                              (["--bench-precision=1", "--bench-min-time=5"], 5),
                              ([], 5)):
            rc, out, err = run([QUICKSTART, "--bench", "--bench-json=" + out_json] + args)
            check(rc == 0, f"bench_precision {args}: exit {rc} {err!r}")
            with open(out_json, encoding="utf-8") as f:
                doc = json.load(f)
            meta_ms = doc["meta"].get("minSampleTimeMs")
            check(meta_ms == want_ms, f"bench_precision {args}: minSampleTimeMs {meta_ms}, "
                  f"{want_ms} expected")
            for row in doc["rows"]:
                n = row.get("samples")
                if args:
                    check(isinstance(n, int) and 8 <= n <= 32,
                          f"bench_precision {args}: {row['name']} took {n} samples")
                else:
                    check(n == 32, f"bench_precision: {row['name']} took {n} samples without it")


def list_metrics_catalog():
    """--list-metrics of the counting binary: {metric: available} and the capability lines as
    (source, name, present, reason or None), in order."""
    rc, out, err = run([COUNTING, "--list-metrics"])
    check(rc == 0 and err == "", f"capabilities: --list-metrics {rc} {err!r}")
    rows = table_rows(out)
    metrics = {r[0]: r[4] == "yes" for r in rows[1:] if len(r) == 5}
    caps, source = [], None
    block = out.split("\ncapabilities:\n", 1)[1] if "\ncapabilities:\n" in out else ""
    for line in block.split("\n\n", 1)[0].splitlines():
        m = re.match(r"^  (\S*) +([✓✗]) (\S+)(?: — (.*))?$", line)
        check(m is not None, f"capabilities: unparsed --list-metrics line {line!r}")
        if m:
            source = m.group(1) or source
            caps.append((source, m.group(3), m.group(2) == "✓", m.group(4)))
    return metrics, caps


def case_capabilities():
    """examples/capabilities.c against --list-metrics: the same metrics, the same verdicts,
    the same capabilities, and a reason on every line about something absent. perf is absent
    on a VM, tracefs may or may not be there: both are fine, as long as the two agree."""
    if not CAPABILITIES:
        print("SKIP: examples are not built")
        sys.exit(77)
    rc, out, err = run([CAPABILITIES])
    check(rc == 0, f"capabilities: exit {rc}")
    check(err == "", f"capabilities: stderr not empty: {err!r}")
    sections, current = {}, None
    for line in out.splitlines():
        if not line.startswith("  "):
            check(line in ("measurable on this host:", "not measurable on this host:",
                           "capabilities:"), f"capabilities: unexpected heading {line!r}")
            current = line.rstrip(":")
            sections[current] = []
        elif current is not None and line != "  (none)":
            sections[current].append(line)
    measurable = {}
    for line in sections.get("measurable on this host", []):
        m = re.match(r"^  (\S+) +(\S+) +(\S+) +(default|on request)$", line)
        check(m is not None, f"capabilities: measurable line {line!r}")
        if m:
            measurable[m.group(1)] = True
    for line in sections.get("not measurable on this host", []):
        m = re.match(r"^  (\S+) +(\S+) +(\S+) +— (\S.*)$", line)
        check(m is not None, f"capabilities: absent metric without a reason {line!r}")
        if m:
            measurable[m.group(1)] = False
    caps = []
    for line in sections.get("capabilities", []):
        m = re.match(r"^  (\S+) +(\S+) +(present|absent — (\S.*))$", line)
        check(m is not None, f"capabilities: capability line {line!r}")
        if m:
            caps.append((m.group(1), m.group(2), m.group(3) == "present", m.group(4)))
    listed, listed_caps = list_metrics_catalog()
    check(len(listed) > 0 and len(listed_caps) > 0, "capabilities: --list-metrics parsed empty")
    for name, available in listed.items():
        check(name in measurable, f"capabilities: {name} of --list-metrics missing")
        check(measurable.get(name, available) == available,
              f"capabilities: {name} available={measurable.get(name)}, --list-metrics says "
              f"{available}")
    check(set(measurable) == set(listed),
          f"capabilities: metrics not in --list-metrics {sorted(set(measurable) - set(listed))}")
    check(caps == listed_caps, f"capabilities: {caps} != --list-metrics {listed_caps}")
    # what every host has: tier0 counts; on these VMs perf has no PMU, which must say why
    check(("tier0", "counting", True, None) in caps, f"capabilities: tier0 counting {caps}")
    perf = [c for c in caps if c[:2] == ("perf", "counting")]
    check(len(perf) == 1 and (perf[0][2] or perf[0][3]), f"capabilities: perf counting {perf}")


def without_debug_warning(err):
    """stderr less the debug-build warning, which a sanitizer build rightly prints."""
    return re.sub(r"^warning: \S+ was compiled without [^\n]*\n", "", err)


def table_rows(out):
    """The data rows of box tables: lists of stripped cells."""
    rows = []
    for line in out.splitlines():
        if line.startswith("│") and "━" not in line:
            rows.append([c.strip() for c in line.strip("│").split("│")])
    return rows


def case_cases():
    rc, out, err = run([CASES, "--bench"])
    check(rc == 1, f"cases: exit {rc} (error rows must fail the run)")
    check(err.count("provenance: allocator=libc\n") == 1, f"cases: provenance {err!r}")
    rows = table_rows(out)
    header = rows[0] if rows else []
    check(header[:3] == ["dataset", "impl", "benchmark"], f"cases: label columns {header}")
    for col in ("items/s", "depth", "user.cycles", "notes"):
        check(col in header, f"cases: column {col} missing from {header}")
    names = [r[2] for r in rows[1:] if len(r) > 2 and r[2]]
    # ok rows by median (count and pinned cost about the same), then failures by name
    check(sorted(names[:2]) == ["cases.count", "cases.pinned"] and
          names[2:5] == ["cases.fails", "cases.refused", "cases.skips"],
          f"cases: row order (ok rows by median, then error and skip rows by name) {names}")
    by_name = {r[2]: r for r in rows[1:] if len(r) > 2 and r[2]}
    if "cases.pinned" in by_name:
        check(by_name["cases.pinned"][3] == "50", f"cases: pinned n {by_name['cases.pinned']}")
    if "cases.count" in by_name:
        r = by_name["cases.count"]
        check(r[header.index("depth")] == "4" and r[header.index("user.cycles")] == "1",
              f"cases: level metrics {r}")
        check(re.fullmatch(r"\d+(\.\d+)?[kMG]?( \u2021)?", r[header.index("items/s")]) is not None,
              f"cases: rate metric {r}")
        # a rate derived from a median at the clock's resolution carries the median's mark
        check(r[header.index("items/s")].endswith("\u2021") ==
              r[header.index("median/iter")].endswith("\u2021"), f"cases: rate mark {r}")
    check("result mismatch at call 3 …" in out, "cases: after error note (first line only)")
    check("second line is not shown" not in out, "cases: second line of a message shown")
    check("registration: a label contains the 0x1F" in out, "cases: refused registration")
    check("fixture missing" in out, "cases: skip in setup")
    for name in ("cases.fails", "cases.refused", "cases.skips"):
        if name in by_name:
            check(by_name[name][3:7] == ["—", "—", "—", "—"], f"cases: {name} numeric cells")
    check("cases.two_loops " in out and "cases.two_loops#2" in out, "cases: two loops, two rows")

    rc, out, err = run([CASES, "--bench", "--group-by=impl", "--bench-min-time=1"])
    titles = re.findall(r"╼ benchmark: (.*?) ╾", out)
    # the refused case keeps its labels (the separator shown as ?), so it has its own group
    check(titles == ["(unlabeled)", "a?b", "fast", "slow"], f"group-by: titles {titles}")
    check("│ implementation │" in out and "│ dataset │" in out, "group-by: stub and label column")
    rc, out, err = run([CASES, "--bench", "--group-by=list"])
    check(out == "dataset\nimpl\n" and rc == 1, f"group-by=list: {rc} {out!r}")
    # no labelled row at all (once qsort(NULL, 0, ...), which UBSan reports)
    for argv in (["--group-by=list"], ["--group-by=all", "--bench-min-time=1", "-e", "ingest"]):
        rc, out, err = run([SAMPLE, "--bench"] + argv)
        check(rc == 0 and "runtime error" not in err and "Sanitizer" not in err and
              (out == "no benchmark labels to group by\n" or argv[0] != "--group-by=list"),
              f"group-by {argv} without labels: {rc} {out!r} {err!r}")
    rc, out, err = run([CASES, "--bench", "--group-by=nope", "--bench-min-time=1"])
    check("--group-by: no benchmark case has label 'nope'\n" in err, f"group-by unknown: {err!r}")
    rc, out, err = run([CASES, "--bench", "--sort-by=name", "--bench-min-time=1"])
    names = [r[2] for r in table_rows(out)[1:] if len(r) > 2 and r[2]]
    check(names[:2] == ["cases.count", "cases.pinned"], f"sort-by=name: {names}")
    rc, out, err = run([CASES, "--bench", "--sort-by=bogus", "--bench-min-time=1"])
    check("--sort-by: no metric column named 'bogus' — rows keep their default order\n" in err,
          f"sort-by unknown: {err!r}")


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def case_json():
    import resource
    import signal
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        doc_path = os.path.join(d, "doc.json")
        rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "--bench-json=" + doc_path])
        check(rc == 1, f"json: exit {rc}")
        check(os.listdir(d) == ["doc.json"], f"json: files left {os.listdir(d)}")
        doc = load_json(doc_path)
        text = open(doc_path, encoding="utf-8").read()
        check(list(doc) == ["schema", "meta", "columns", "rows"], f"json: top keys {list(doc)}")
        check(doc["schema"] == 2, "json: schema")
        check(doc["meta"]["provenance"] == ["allocator=libc"], "json: provenance")
        check(doc["meta"]["minSampleTimeMs"] == 1 and doc["meta"]["sampleCount"] == 32, "json: meta")
        check(isinstance(doc["meta"].get("clockOverheadNs"), (int, float)),
              "json: the clock overhead of per-call rows is disclosed")
        # a row of one call per sample whose median is within 2x the clock read is marked, in
        # the JSON and the table, and only such a row (issue 32, point 1): an invariant of the
        # document, whichever rows this host's timings mark
        clock = doc["meta"].get("clockOverheadNs")
        factor = doc["meta"].get("clockResolutionFactor")
        check(factor == 2, f"json: clockResolutionFactor {factor}")
        marked = 0
        for r in doc["rows"]:
            want = (r.get("iterations") == 1 and r.get("medianNs") is not None
                    and r["medianNs"] <= factor * clock)
            check(r.get("atClockResolution") is (True if want else None),
                  f"json: {r['name']} atClockResolution {r.get('atClockResolution')}, want {want}")
            marked += bool(want)
        note = "\u2021 the marked row" in out
        check(note == (marked > 0), f"json: {marked} rows at the clock's resolution, note {note}")
        names = [r["name"] for r in doc["rows"]]
        check(names == ["cases.count", "cases.fails", "cases.skips", "cases.refused",
                        "cases.pinned", "cases.two_loops",
                        "cases.two_loops#2"], f"json: rows in measurement order {names}")
        rows = {r["name"]: r for r in doc["rows"]}
        count = rows.get("cases.count", {})
        check(list(count.get("labels", {})) == ["dataset", "impl"], "json: labels sorted")
        check(count.get("metrics", {}).get("depth") == 4 and '"depth": 4' in text,
              "json: integral metric printed as an integer")
        check(count.get("error") == "" and count.get("iterations") == 1, "json: ok row")
        for name in ("cases.fails", "cases.refused"):
            r = rows.get(name, {})
            check(all(r.get(k, 0) is None for k in ("medianNs", "deviationNs", "minNs", "maxNs")),
                  f"json: {name} timing not null")
            check(r.get("metrics") == {} and "countIterations" not in r and
                  "estimatedMetrics" not in r, f"json: {name} optional keys")
        check(rows.get("cases.fails", {}).get("error") == "result mismatch at call 3 …",
              "json: error")
        check(rows.get("cases.skips", {}).get("error") == "fixture missing", "json: skip reason")
        check(isinstance(rows.get("cases.two_loops", {}).get("medianNs"), (int, float)),
              "json: batched row timing")
        cols = [c["name"] for c in doc["columns"]]
        check(cols == ["items/s", "depth", "user.cycles"], f"json: columns {cols}")
        v = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__),
                                                         "check_json_schema.py"), SCHEMA, doc_path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        check(v.returncode == 0, "json: schema validation: " + v.stdout.decode())
        check("rounds" not in doc["meta"], "json: meta.rounds without --bench-rounds")

        # --bench-rounds: the same rows, each loop's 32 samples in 4 rounds, meta.rounds
        rounds_path = os.path.join(d, "rounds.json")
        rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "--bench-rounds=4",
                            "--bench-json=" + rounds_path])
        check(rc == 1, f"json rounds: exit {rc}")
        rdoc = load_json(rounds_path)
        check(rdoc["meta"].get("rounds") == 4 and rdoc["meta"]["sampleCount"] == 32,
              f"json rounds: meta {rdoc['meta']}")
        check([r["name"] for r in rdoc["rows"]] == names, "json rounds: rows in measurement order "
              f"{[r['name'] for r in rdoc['rows']]}")
        rrows = {r["name"]: r for r in rdoc["rows"]}
        for name in ("cases.two_loops", "cases.two_loops#2"):
            r = rrows.get(name, {})
            check(r.get("samples") == 32 and r.get("error") == "" and
                  isinstance(r.get("iterations"), int) and r["iterations"] >= 1,
                  f"json rounds: {name} {r}")
        check(rrows.get("cases.pinned", {}).get("samples") == 50,
              "json rounds: pinned case sampled once")
        check(rrows.get("cases.fails", {}).get("error") == "result mismatch at call 3 …",
              "json rounds: the failing case fails once, in the last round")
        check(err.count("provenance: allocator=libc\n") == 1, f"json rounds: provenance {err!r}")
        v = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__),
                                                         "check_json_schema.py"), SCHEMA,
                            rounds_path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        check(v.returncode == 0, "json rounds: schema validation: " + v.stdout.decode())
        os.unlink(rounds_path)

        # /dev/full: one line, the run fails, the device is still a device
        rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "-i", "two_loops",
                            "--bench-json=/dev/full"])
        err = without_debug_warning(err)
        check(rc == 1 and err == "--bench-json: cannot write '/dev/full': No space left on "
              "device\n", f"json /dev/full: {rc} {err!r}")
        check(os.path.exists("/dev/full") and not os.path.isfile("/dev/full"),
              "json: /dev/full was replaced by a file")

        # a directory nobody may write to: /proc for root, a 0555 directory otherwise
        if os.geteuid() == 0:
            target = "/proc/libbench-e2e.json"
        else:
            ro = os.path.join(d, "ro")
            os.mkdir(ro, 0o555)
            target = os.path.join(ro, "doc.json")
        rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "-i", "two_loops",
                            "--bench-json=" + target])
        check(rc == 2 and out == "" and err.count("\n") == 1 and
              err.startswith(f"error: --bench-json: cannot write '{target}': no file can be "
                             f"created in '{os.path.dirname(target)}': "),
              f"json read-only: {rc} {err!r}")
        check(not os.path.exists(target), "json read-only: a file was left")

        # an existing document survives a failed rewrite (the new one exceeds RLIMIT_FSIZE)
        keep = os.path.join(d, "keep.json")
        with open(keep, "w") as f:
            f.write("OLD\n")

        def small_files():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
        rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "-i", "two_loops",
                            "--bench-json=" + keep], preexec_fn=small_files)
        err = without_debug_warning(err)
        check(rc == 1 and err.startswith(f"--bench-json: cannot write '{keep}': "),
              f"json rewrite: {rc} {err!r}")
        check(open(keep).read() == "OLD\n", "json rewrite: the old document was damaged")
        check(sorted(os.listdir(d)) == ["doc.json", "keep.json"] + (["ro"] if os.geteuid() else []),
              f"json rewrite: files left {os.listdir(d)}")


def bench_json(argv, **env):
    """Run a --bench command with a temporary JSON document; (rc, out, err, doc)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.json")
        rc, out, err = run(argv + ["--bench-json=" + path], **env)
        doc = load_json(path) if os.path.exists(path) else {}
    return rc, out, err, doc


def case_counting_tier0():
    if PORTABLE:
        counting_tier0_portable()
        return
    rc, out, err, doc = bench_json([COUNTING, "--bench", "-i", "read_zero_64",
                                    "--metrics=syscr,rchar,syscw,cache-hit"])
    check(rc == 0, f"tier0: exit {rc} {err!r}")
    rows = {r["name"]: r for r in doc.get("rows", [])}
    m = rows.get("counting.read_zero_64", {}).get("metrics", {})
    syscr, rchar = m.get("syscr"), m.get("rchar")
    check(isinstance(syscr, (int, float)) and abs(syscr - 1.0) <= 0.02,
          f"tier0: syscr per iteration {syscr} (want 1.00 ± 0.02)")
    check(isinstance(rchar, (int, float)) and abs(rchar - 64.0) <= 1.5,
          f"tier0: rchar per iteration {rchar} (want 64 ± 1.5)")
    check(m.get("syscw") is not None and m.get("syscw") <= 0.02, f"tier0: syscw {m.get('syscw')}")
    check("cache-hit" in m, "tier0: cache-hit cell missing")
    check(isinstance(rows.get("counting.read_zero_64", {}).get("countIterations"), int),
          "tier0: countIterations")
    header = table_rows(out)[0] if table_rows(out) else []
    check("syscr" in header and "rchar" in header, f"tier0: table columns {header}")


def counting_tier0_portable():
    """Off Linux, tier-0's I/O fields (/proc/self/io) are null with the platform's reason, never
    0; getrusage's fields are counted, and the columns asked for are still shown (em dash)."""
    rc, out, err, doc = bench_json([COUNTING, "--bench", "-i", "read_zero_64",
                                    "--metrics=syscr,rchar,syscw,cache-hit,minflt,vol-cs"])
    check(rc == 0, f"tier0: exit {rc} {err!r}")
    check(f"--metrics: tier0 {OFF_PLATFORM} (/proc/self/io is Linux's) — I/O columns are null\n"
          in err, f"tier0: the I/O columns' absence on stderr: {err!r}")
    row = {r["name"]: r for r in doc.get("rows", [])}.get("counting.read_zero_64", {})
    m = row.get("metrics", {})
    for name in ("syscr", "rchar", "syscw", "cache-hit"):
        check(name in m and m[name] is None, f"tier0: {name} must be null here: {m}")
    for name in ("minflt", "vol-cs"):
        check(isinstance(m.get(name), (int, float)), f"tier0: {name} from getrusage: {m}")
    check(isinstance(row.get("countIterations"), int), "tier0: countIterations")
    rows = table_rows(out)
    header = rows[0] if rows else []
    check("syscr" in header and "rchar" in header and len(rows) > 1 and
          rows[1][header.index("syscr")] == "—", f"tier0: table {rows}")


def case_counting_perf():
    # The machine is shared: a neighbour inflates the timed median (wall time) while task-clock
    # counts only on-CPU time, so no tight ratio between the two is asserted. task-clock is the
    # mean over a separate counting pass and the median is taken over the timing pass, so
    # neither bounds the other exactly either. What holds under any load: a body of 40
    # xorshift rounds costs some real CPU time per iteration, and not twice its timed median
    # (units or a total instead of a per-iteration value would be off by 1000 or more).
    # A row reports no other CPU time of its counting pass (each source counts in a pass of
    # its own, and tier-0 has no CPU-time metric), so task-clock is compared with the CPU time
    # of the same bracket in e2e/workloads, where a window reads both at its edges.
    rc, out, err, doc = bench_json([COUNTING, "--bench", "--perf", "-i", "busy_50ns"])
    rows = {r["name"]: r for r in doc.get("rows", [])}
    row = rows.get("counting.busy_50ns", {})
    median, m = row.get("medianNs"), row.get("metrics", {})
    check(rc == 0, f"perf: exit {rc} {err!r}")
    if PORTABLE:
        # neither perf nor its perf-sw fallback: one line says why (not one per source), the
        # row is timed and no perf metric is a number
        line = f"--perf: counting unavailable ({OFF_PLATFORM} (perf_event_open is Linux's))\n"
        check(err.count(line) == 1 and "perf-sw instead" not in err,
              f"perf: the platform's absence once on stderr: {err!r}")
        check(isinstance(median, (int, float)) and median > 0, f"perf: the row is timed: {row}")
        check(all(m.get(k) is None for k in ("instr", "cycles", "ipc", "task-clock")),
              f"perf: perf metrics must be null or absent, never 0: {m}")
    hardware = re.search(r"^--perf: counting unavailable \(perf_event_open\(cycles\)", err,
                         re.M) is None
    if PORTABLE:
        pass  # checked above: there is no fallback to take
    elif hardware and "instr" in m and m["instr"] is not None:
        print("note: this machine exposes hardware counters; the fallback path is not taken")
    elif EMULATOR:
        # no perf_event_open under qemu-user: both groups absent with their reason, every
        # perf metric null, never 0
        for event in ("cycles", "task-clock"):
            check(re.search(r"^--perf: counting unavailable \(perf_event_open\(" + event +
                            r"\) failed: ENOSYS", err, re.M) is not None,
                  f"perf: under {EMULATOR}, the absence of {event} and its reason: {err!r}")
        check(all(v is None for v in m.values()), f"perf: under {EMULATOR}, metrics {m}")
    else:
        check(re.search(r"^--perf: counting unavailable \(perf_event_open\(cycles\).+\)$", err,
                        re.M) is not None,
              f"perf: the hardware absence and its reason on stderr: {err!r}")
        check(re.search(r"^--perf: counting with perf-sw instead \(", err, re.M) is not None,
              f"perf: the software fallback on stderr: {err!r}")
        tc = m.get("task-clock")
        check(isinstance(tc, (int, float)) and isinstance(median, (int, float)) and
              5 <= tc <= 2 * median,
              f"perf: task-clock {tc} ns/iter vs timed median {median} ns "
              "(want on-CPU time per iteration between 5 ns and twice the timed median)")
        check(all(k not in m or m[k] is None for k in ("instr", "cycles", "ipc")),
              f"perf: hardware metrics must be null or absent, never 0: {m}")
    # explicitly requested hardware columns: em dash in the table, null in JSON
    rc, out, err, doc = bench_json([COUNTING, "--bench", "--metrics=instr,ipc,task-clock",
                                    "-i", "busy_50ns"])
    rows = table_rows(out)
    check(not PORTABLE or f"--metrics: counting unavailable ({OFF_PLATFORM}" in err,
          f"perf: explicit metrics off Linux: {err!r}")
    if rows and ("--metrics: counting unavailable (perf_event_open(cycles)" in err or PORTABLE):
        header = rows[0]
        body = rows[1]
        for col in ("instr/iter", "IPC"):
            check(col in header and body[header.index(col)] == "—",
                  f"perf: explicit {col} column is an em dash: {header} {body}")
        m = doc.get("rows", [{}])[0].get("metrics", {})
        check(m.get("instr", "missing") is None and m.get("ipc", "missing") is None,
              f"perf: explicit hardware metrics are null in JSON: {m}")


def case_counting_syscalls():
    argv = [COUNTING, "--bench", "--syscalls=getpid", "-i", "one_getpid"]
    # with tracefs: exactly one named getpid per iteration, the total at least that
    rc, out, err, doc = bench_json(argv)
    check(rc == 0, f"syscalls: exit {rc} {err!r}")
    if PORTABLE:
        # no tracepoints off Linux: the absent-tracefs run's outcome, with the platform's reason
        syscalls_absent(rc, out, err, doc, f"{OFF_PLATFORM} (syscall tracepoints are Linux's)")
        return
    live = "--syscalls: eventTracing unavailable (" not in err
    if live:
        rows = {r["name"]: r for r in doc.get("rows", [])}
        m = rows.get("counting.one_getpid", {}).get("metrics", {})
        getpid, total = m.get("syscalls:getpid"), m.get("syscalls")
        check(isinstance(getpid, (int, float)) and abs(getpid - 1.0) <= 0.005,
              f"syscalls: syscalls:getpid per iteration {getpid} (want 1.00 ± 0.005)")
        check(isinstance(total, (int, float)) and total >= 1.0,
              f"syscalls: syscalls per iteration {total} (want ≥ 1)")
        names = [c.get("name") for c in doc.get("columns", [])]
        check("syscalls" in names and "syscalls:getpid" in names, f"syscalls: columns {names}")
        header = table_rows(out)[0] if table_rows(out) else []
        check("sc:getpid" in header and "syscalls" in header, f"syscalls: table columns {header}")
        check(re.search(r"^--syscalls: syscall brackets each add \S+ syscalls? of their own to "
                        r"`syscalls` \(not subtracted\)$", err, re.M) is not None,
              f"syscalls: the bracket's own syscalls disclosed: {err!r}")
        print(f"note: syscalls:getpid {getpid}, syscalls {total} per iteration")
        # a header selector alone opens the tracepoint and shows just that column
        rc, out, err = run([COUNTING, "--bench", "--metrics=sc:getpid", "-i", "one_getpid"])
        header = table_rows(out)[0] if table_rows(out) else []
        check(rc == 0 and "sc:getpid" in header and "syscalls" not in header,
              f"syscalls: --metrics=sc:getpid columns {header} {err!r}")
    else:
        print(f"note: tracefs unavailable here, the live check is skipped: {err.strip()!r}")
    # without tracefs (unmounted in a private mount namespace): the run passes, the columns
    # are omitted and one line says why
    if os.geteuid() != 0:
        print("skipped: the tracefs-absent run needs root (unshare -m)")
        sys.exit(1 if failures else 77)
    script = ("umount -l /sys/kernel/tracing 2>/dev/null; "
              "umount -l /sys/kernel/debug/tracing 2>/dev/null; exec \"$0\" \"$@\"")
    rc, out, err, doc = bench_json(["unshare", "-m", "sh", "-c", script] + argv)
    if rc != 0 and err.startswith("unshare:"):
        print(f"skipped: no private mount namespace here: {err.strip()!r}")
        sys.exit(1 if failures else 77)
    syscalls_absent(rc, out, err, doc,
                    "tracefs not mounted (mount -t tracefs nodev /sys/kernel/tracing)")


def syscalls_absent(rc, out, err, doc, reason):
    """A --syscalls run without tracepoints: it passes, one line says why, no syscall column."""
    check(rc == 0, f"syscalls absent: exit {rc} {err!r}")
    lines = [l for l in err.splitlines() if l.startswith("--syscalls:")]
    check(lines == [f"--syscalls: eventTracing unavailable ({reason})"],
          f"syscalls absent: the one reason line: {err!r}")
    rows = {r["name"]: r for r in doc.get("rows", [])}
    row = rows.get("counting.one_getpid", {})
    check(row.get("medianNs") is not None, f"syscalls absent: the row is still measured {row}")
    check(not any(k == "syscalls" or k.startswith("syscalls:") for k in row.get("metrics", {})),
          f"syscalls absent: syscall metrics must be omitted: {row.get('metrics')}")
    check(not any(c.get("source") == "syscall" for c in doc.get("columns", [])),
          f"syscalls absent: columns {doc.get('columns')}")
    header = table_rows(out)[0] if table_rows(out) else []
    check(header and not any(h == "syscalls" or h.startswith("sc:") for h in header),
          f"syscalls absent: table columns {header}")


def case_list_metrics():
    rc, out, err = run([COUNTING, "--list-metrics"])
    check(rc == 0 and err == "", f"list-metrics: {rc} {err!r}")
    for name in ("instr", "ipc", "task-clock", "syscr", "cache-hit"):
        check(re.search(r"│ " + re.escape(name) + r" +│", out) is not None,
              f"list-metrics: {name} missing")
    check("\ncapabilities:\n" in out, "list-metrics: capability block")
    check(re.search(r"^  tier0 +✓ counting$", out, re.M) is not None, "list-metrics: tier0 line")
    io = ("syscr", "syscw", "rchar", "wchar", "rd-bytes", "wr-bytes", "cache-hit")
    for name in io + ("minflt", "vol-cs"):
        row = re.search(r"│ " + re.escape(name) + r" +│[^\n]*│ (yes|no) +│", out)
        want = "no" if PORTABLE and name in io else "yes"
        check(row is not None and row.group(1) == want,
              f"list-metrics: {name} available {row.group(1) if row else None}, want {want}")
    # the source column is as wide as the longest source name (callgrind)
    unmeasured = re.search(r"^  tier0 +" + re.escape(f"{', '.join(io)} — {OFF_PLATFORM} "
                                                     "(/proc/self/io is Linux's)") + "$",
                           out, re.M) is not None
    check(unmeasured == PORTABLE and
          ("unavailable metrics of a source that counts:" in out) == PORTABLE,
          f"list-metrics: the tier0 metrics it cannot measure, with why: {out}")
    rc2, out2, _ = run([COUNTING, "--metrics=?"])
    check(rc2 == 0 and out2 == out, "--metrics=? prints the same catalog")
    # a selector no column matches: a usage error at the end of the run (exit 2), after the
    # tables, said once however often it is given
    rc, out, err = run([COUNTING, "--bench", "--metrics=nosuch*", "-i", "busy_50ns",
                        "--bench-min-time=1"] + ["--metrics=nosuch*"] * 2000)
    check(rc == 2 and "╭" in out and
          err.count("error: --metrics: no metric column matches 'nosuch*' — see "
                    "--list-metrics\n") == 1 and "nosuch" not in err.replace(
                        "error: --metrics: no metric column matches 'nosuch*'", "", 1),
          f"metrics: unmatched selector {rc} {err!r}")
    # close to a built-in name: a note before the run, the error with "did you mean" at its end
    rc, out, err = run([COUNTING, "--bench", "--metrics=instrs", "-i", "busy_50ns",
                        "--bench-min-time=1"])
    note = ("--metrics: 'instrs' is no built-in metric (did you mean 'instr'?); unless a benchmark "
            "makes a client metric of that name, the run ends with exit status 2\n")
    error = ("error: --metrics: no metric column matches 'instrs' (did you mean 'instr'?) — see "
             "--list-metrics\n")
    check(rc == 2 and err.startswith(note) and err.endswith(error) and "╭" in out,
          f"metrics: a typo {rc} {err!r}")
    # a name of a source's own form that it cannot use: refused before anything runs
    rc, out, err = run([COUNTING, "--bench", "--metrics=sc:GetPid,raw:R00c0", "-i", "busy_50ns",
                        "--syscalls=getpid"])
    want = ("error: --metrics: no metric column matches 'sc:GetPid' (did you mean "
            "'sc:getpid'?) — see --list-metrics\n")
    if not PORTABLE:  # the portable build has no raw event syntax: any raw:<event> is "not
        # available on this platform" rather than malformed (docs/reference/platforms.md)
        want += "error: --metrics: no metric column matches 'raw:R00c0' — see --list-metrics\n"
    check(rc == 2 and out == "" and err == want, f"metrics: malformed {rc} {out!r} {err!r}")
    # a client metric's name is found at the end, and is no error
    rc, out, err = run([CASES, "--bench", "--metrics=items/s", "-i", "matrix",
                        "--bench-min-time=1"])
    check(rc == 1 and "error" not in without_debug_warning(err) and "items/s" in out,
          f"metrics: a client metric {rc} {err!r}")


def windows_of(doc):
    return {w["name"]: w for w in doc.get("windows", [])}


def case_workloads():
    # A neighbour on this 2-core machine can hold the CPU during the 50 ms spin (it then shows
    # as run-queue wait, correctly) or delay the wake-up after the sleep: no share of the wall
    # time is asserted for one part alone. What holds under any load is checked instead:
    # - task-clock against the CPU time of the same window. A window reads the wall source
    #   (getrusage, schedstat) outside the counting sources at both edges, so the task-clock
    #   bracket lies inside the rusage one. task-clock is the time the thread was on a CPU by
    #   the scheduler's clock: it holds all the window's on-CPU user + kernel time from
    #   getrusage (less the CPU time of the edge reads between the two brackets, microseconds)
    #   and never its run-queue wait. Interrupt time and time the hypervisor stole, which
    #   task-clock counts and getrusage does not (it lands in `other`), only make it larger.
    # - a spin's wall is explained by its time on a CPU plus its run-queue wait: a spinning
    #   thread is doing one or the other. By task-clock this is exact up to the edges: 10 ms
    #   are left for a preemption in the microseconds between the clock read and the schedstat
    #   read at an edge, wall time that no bracket sees. getrusage also misses the stolen time,
    #   so that form holds only where the host steals little; it is used only where task-clock
    #   cannot be counted.
    # - a sleep's wall is explained by its time off the CPU.
    # 1 ms of slack (2% of the 50 ms windows) covers the CPU time of the edge reads.
    rc, out, err, doc = bench_json([WORKLOADS, "--bench", "-e", "cold_read|warm_read",
                                    "--metrics=task-clock"])
    check(rc == 1, f"workloads: exit {rc} (the failing window must fail the run) {err!r}")
    w = windows_of(doc)
    spin, sleep = w.get("workloads.spin", {}), w.get("workloads.sleep", {})
    counted = any("taskClockNs" in x.get("perfSw", {}) for x in w.values())
    if not counted:
        print(f"note: task-clock cannot be counted here; getrusage stands in: {err!r}")
    for name, win in (("spin", spin), ("sleep", sleep)):
        tc = win.get("perfSw", {}).get("taskClockNs")
        wall, runq = win.get("wallNs"), win.get("offCpuRunqueueNs")
        user, kernel = win.get("onCpuUserNs"), win.get("onCpuKernelNs")
        if not all(isinstance(v, (int, float)) for v in (wall, user, kernel)) or \
                (counted and not isinstance(tc, (int, float))):
            check(False, f"workloads: {name} window lacks a figure: {win}")
            continue
        cpu = user + kernel
        if counted:
            check(tc >= cpu - 1e6,
                  f"workloads: {name} task-clock {tc} ns below its on-CPU time {cpu} ns "
                  f"(user {user} + kernel {kernel}) by more than 1 ms")
            check(tc <= wall - (runq or 0) + 1e6,
                  f"workloads: {name} task-clock {tc} ns above its wall {wall} ns less "
                  f"run-queue wait {runq} ns by more than 1 ms")
            print(f"note: {name}: task-clock {tc / 1e6:.3f} ms, on-CPU {cpu / 1e6:.3f} ms, "
                  f"run queue {(runq or 0) / 1e6:.3f} ms, wall {wall / 1e6:.3f} ms")
    if spin.get("wallNs") and spin.get("onCpuUserNs") is not None:
        runq = spin.get("offCpuRunqueueNs")
        tc = spin.get("perfSw", {}).get("taskClockNs")
        if runq is None:
            check("runqueue wait unattributable" in err,
                  f"workloads: spin run-queue wait neither measured nor disclosed {err!r}")
        elif counted:
            check(tc + runq >= spin["wallNs"] - 10e6,
                  f"workloads: spin task-clock {tc} + run-queue {runq} explain too little of "
                  f"wall {spin['wallNs']}")
        else:
            # rusage is sampled per tick (4 ms) and misses stolen time: a margin
            explained = spin["onCpuUserNs"] + spin["onCpuKernelNs"] + runq
            check(explained >= 0.8 * spin["wallNs"],
                  f"workloads: spin on-CPU {spin['onCpuUserNs']} + {spin['onCpuKernelNs']} and "
                  f"run-queue {runq} explain too little of wall {spin['wallNs']}")
        check(spin["scope"] in ("thread", "process"), f"workloads: scope {spin.get('scope')}")
    else:
        check(False, f"workloads: no spin window {list(w)}")
    if sleep.get("wallNs"):
        runq = sleep.get("offCpuRunqueueNs")
        off_cpu = sleep["offCpuOtherNs"] + (runq or 0)
        check(off_cpu >= 0.9 * sleep["wallNs"],
              f"workloads: sleep other {sleep['offCpuOtherNs']} + run-queue {runq} of wall "
              f"{sleep['wallNs']}")
        check(sleep.get("offCpuDiskNs", 0) is None, "workloads: disk time must be null")
    else:
        check(False, f"workloads: no sleep window {list(w)}")
    for name in ("workloads.phases/parse", "workloads.phases/sum", "workloads.phases/parse#2",
                 "workloads.phases/outer", "workloads.phases/skips", "workloads.phases/after"):
        check(name in w, f"workloads: window {name} missing from {list(w)}")
    check("workloads.phases/inner" not in w, "workloads: a nested window was measured")
    check("workloads.phases/inner2" not in w and "workloads.phases/outer2" in w and
          "workloads.phases/after" in w, f"workloads: nested inline blocks {list(w)}")
    early = w.get("workloads.leaves_early/x", {})
    check("left a WORKLOAD_WINDOW block early" in early.get("error", ""),
          f"workloads: a block left with break {early}")
    check(w.get("workloads.phases/parse", {}).get("reps") == 2, "workloads: reps")
    skipped = w.get("workloads.phases/skips", {})
    check(skipped.get("skipped") is True and skipped.get("wallNs", 0) is None and
          skipped.get("error") == "no input here", f"workloads: skipped window {skipped}")
    bad = w.get("workloads.fails/bad", {})
    check(bad.get("wallNs", 0) is None and "check failed" in bad.get("error", "") and
          "skipped" not in bad, f"workloads: error window {bad}")
    check("╼ workloads ╾" in out and "│ workloads.spin " in out, "workloads: the table")
    rows = [r for r in table_rows(out) if r and r[0].startswith("workloads.")]
    check(len(rows) >= 7, f"workloads: table rows {rows}")
    # a document without workloads has no "windows" key at all
    rc, out, err, doc = bench_json([SAMPLE, "--bench", "-e", "ingest", "--bench-min-time=1"])
    check("windows" not in doc, "json: windows key present without workloads")


def case_window_floor():
    # every source read at a window's edges: the floor each source's totals carry from the
    # readings nested inside its edges is said once on stderr, and an empty window shows
    # exactly that floor
    import re
    args = [WORKLOADS, "--bench", "-i", "floor", "--perf", "--metrics=all"]
    tracefs = os.geteuid() == 0 and os.path.isdir("/sys/kernel/tracing/events/raw_syscalls")
    if tracefs:
        args.append("--syscalls")
    rc, out, err, doc = bench_json(args)
    if PORTABLE:
        # no source reads /proc/self/io, tracepoints or perf counters at an edge off Linux:
        # nothing is nested, no floor is said, and the I/O totals are null (never 0)
        win = windows_of(doc).get("workloads.floor/empty", {})
        tier0 = win.get("tier0", {})
        check(rc == 0 and "workload: tier0: " not in err and "workload: syscall: " not in err,
              f"floor: no floor line off Linux: {rc} {err!r}")
        check("syscr" in tier0 and tier0.get("syscr") is None and tier0.get("rchar") is None,
              f"floor: tier0 I/O totals null off Linux: {tier0}")
        check(isinstance(tier0.get("minflt"), int), f"floor: getrusage's totals: {tier0}")
        check("perf" not in win and "perfSw" not in win and "syscalls" not in win,
              f"floor: no perf or syscall totals: {win}")
        return
    t0 = re.search(r"^workload: tier0: `syscr` and `rchar` of each window include (\d+) and (\d+) "
                   r"of the readings nested inside tier-0's edges \(not subtracted\)$", err, re.M)
    sc = re.search(r"^workload: syscall: `syscalls` \(`total`\) of each window include (\d+) system "
                   r"calls? of the edge readings \(not subtracted\)$", err, re.M)
    win = windows_of(doc).get("workloads.floor/empty", {})
    tier0 = win.get("tier0", {})
    if "perfSw" in win or "perf" in win:
        check(t0 is not None, f"floor: no tier0 line with a perf group open: {err!r}")
        if t0:
            check(tier0.get("syscr") == int(t0.group(1)) and tier0.get("rchar") == int(t0.group(2)),
                  f"floor: tier0 {tier0} against the line {t0.group(0)!r}")
    else:
        check(t0 is None and tier0.get("syscr") == 0, f"floor: no nested reading {tier0} {err!r}")
    if tracefs and EMULATOR:
        # no perf_event_open under qemu-user: the syscall source is absent, with its reason
        check(sc is None and re.search(r"^--syscalls: eventTracing unavailable \(perf_event_open"
                                       r"\(raw_syscalls:sys_enter\) failed: ENOSYS", err, re.M)
              is not None, f"floor: under {EMULATOR}, the syscall source's absence: {err!r}")
    elif tracefs:
        check(sc is not None, f"floor: no syscall line: {err!r}")
        total = win.get("syscalls", {}).get("total")
        check(sc is not None and total == int(sc.group(1)),
              f"floor: syscalls {total} against the line {sc.group(0) if sc else None!r}")
        check(err.count("workload: syscall: ") == 1, f"floor: said once {err!r}")
    else:
        print("note: no tracefs (or not root): the syscall floor is not checked here")
    check(err.count("workload: tier0: ") == (1 if t0 else 0), f"floor: said once {err!r}")


def case_workload_regime():
    import tempfile
    import time
    # a 64 MiB file on the root filesystem (not tmpfs): cold really reads the disk
    with tempfile.TemporaryDirectory(dir="/var/tmp") as d:
        path = os.path.join(d, "data.bin")
        with open(path, "wb") as f:
            block = os.urandom(1 << 20)
            for _ in range(64):
                f.write(block)
            f.flush()
            os.fsync(f.fileno())
        rc, out, err, doc = bench_json([WORKLOADS, "--bench", "-i", "cold_read|warm_read",
                                        "--metrics=rd-bytes,rchar"], E2E_DATA_FILE=path)
        w = windows_of(doc)
        cold, warm = w.get("workloads.cold_read/read", {}), w.get("workloads.warm_read/read", {})
        check(cold.get("regime", {}).get("effective") == "cold", f"regime: cold {cold.get('regime')}")
        check(warm.get("regime", {}).get("effective") == "warm", f"regime: warm {warm.get('regime')}")
        crd = cold.get("tier0", {}).get("readBytes")
        wrd = warm.get("tier0", {}).get("readBytes")
        if PORTABLE:
            # the regimes hold (posix_fadvise, mincore); the bytes read from the device come
            # from Linux's /proc/self/io: null, never 0
            check("readBytes" in cold.get("tier0", {}) and crd is None and wrd is None,
                  f"regime: read bytes null off Linux: cold {crd} warm {wrd}")
        else:
            regime_bytes(crd, wrd)
    regime_tmpfs_and_fifo()


def regime_bytes(crd, wrd):
    """The bytes a cold and a warm window read from the device (/proc/self/io's read_bytes)."""
    check(isinstance(crd, (int, float)) and crd >= 32 * (1 << 20),
          f"regime: cold read {crd} bytes from disk (want ≥ 32 MiB)")
    check(isinstance(crd, (int, float)) and isinstance(wrd, (int, float)) and crd > 10 * wrd,
          f"regime: cold {crd} vs warm {wrd} bytes (want > 10×)")


def regime_tmpfs_and_fifo():
    import tempfile
    import time
    # cold on tmpfs is impossible: it downgrades to steady with the tmpfs note (off Linux the
    # filesystem's kind is not probed: eviction fails, and the note says both)
    with tempfile.TemporaryDirectory(dir="/dev/shm") as d:
        path = os.path.join(d, "data.bin")
        with open(path, "wb") as f:
            f.write(b"x" * (1 << 20))
        rc, out, err, doc = bench_json([WORKLOADS, "--bench", "-i", "cold_read"], E2E_DATA_FILE=path)
        reg = windows_of(doc).get("workloads.cold_read/read", {}).get("regime", {})
        note = reg.get("note", "")
        said = ("did not evict" in note and "fs type unprobed" in note) if PORTABLE else \
            "tmpfs" in note
        check(reg.get("requested") == "cold" and reg.get("effective") == "steadyState" and said,
              f"regime: tmpfs downgrade {reg}")
    # a FIFO is refused promptly (never opened for a blocking read)
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        t0 = time.monotonic()
        rc, out, err, doc = bench_json([WORKLOADS, "--bench", "-i", "warm_read"], E2E_DATA_FILE=fifo)
        took = time.monotonic() - t0
        reg = windows_of(doc).get("workloads.warm_read/read", {}).get("regime", {})
        check(took < 10 and reg.get("effective") == "steadyState",
              f"regime: FIFO took {took:.1f}s, regime {reg}")


def process_gone(pid):
    """The process does not exist, or is a zombie (dead, waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def case_crashing():
    """Supervised --bench: bodies that segfault, abort, exit(0) or hang (with a child in their
    process group), a crashing case, a crashing and a hanging workload. Every other row is
    measured, each dead one names how it died, the table and the JSON are complete, exit 1."""
    import tempfile
    import time
    # the bound on one item: 3 s (the measured rows must finish inside it on a loaded machine
    # under ASan too), 6 s under an emulator (its bodies run several times slower)
    limit = 6 if EMULATOR else 3
    with tempfile.TemporaryDirectory() as d:
        pid_file = os.path.join(d, "child.pid")
        doc_path = os.path.join(d, "doc.json")
        rc, out, err = run([CRASHING, "--bench", f"--bench-timeout={limit}", "--bench-json=" + doc_path],
                           CRASHING_CHILD_PID_FILE=pid_file)
        check(rc == 1, f"crashing: exit status {rc}, want 1")
        doc = load_json(doc_path) if os.path.exists(doc_path) else {}
        v = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "check_json_schema.py"), SCHEMA, doc_path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        check(v.returncode == 0, "crashing: schema validation: " + v.stdout.decode())
        child = open(pid_file).read().strip() if os.path.exists(pid_file) else ""
    rows = {r["name"]: r for r in doc.get("rows", [])}
    # every row once, in measurement order
    want_order = ["crashing.a_measured_first", "crashing.b_segfaults", "crashing.c_aborts",
                  "crashing.c_aborts (body)", "crashing.d_exits", "crashing.e_hangs",
                  "crashing.good_before", "crashing.crashes", "crashing.good_after",
                  "crashing.g_measured_last",
                  "crashing.h_reads_terminal"]
    check([r["name"] for r in doc.get("rows", [])] == want_order,
          f"crashing: rows {[r['name'] for r in doc.get('rows', [])]}")
    for name in ["crashing.a_measured_first", "crashing.c_aborts", "crashing.good_before",
                 "crashing.good_after", "crashing.g_measured_last"]:
        r = rows.get(name, {})
        check(not r.get("error") and (r.get("medianNs") or 0) > 0,
              f"crashing: {name} measured: {r}")
    errors = {
        "crashing.b_segfaults": "killed by SIGSEGV; last output: b_segfaults: about to crash",
        "crashing.c_aborts (body)": "killed by SIGABRT; last output: c_aborts: about to abort",
        "crashing.d_exits": "exited with status 0 before the benchmark finished",
        "crashing.e_hangs": f"timed out after {limit} s; last output: e_hangs: waiting forever",
        "crashing.crashes": "killed by SIGSEGV",
    }
    for name, error in errors.items():
        r = rows.get(name, {})
        check(crash_reason(r.get("error")) == crash_reason(error) and r.get("medianNs") is None,
              f"crashing: {name}: {r.get('error')!r}, want {error!r}")
    wins = {w["name"]: w for w in doc.get("windows", [])}
    check(list(wins) == ["crashing.w_aborts/before", "crashing.w_aborts", "crashing.w_hangs",
                         "crashing.w_measured"], f"crashing: windows {list(wins)}")
    check(crash_reason(wins.get("crashing.w_aborts", {}).get("error")) == "killed by SIGABRT",
          f"crashing: w_aborts {wins.get('crashing.w_aborts')}")
    check(wins.get("crashing.w_hangs", {}).get("error") == f"timed out after {limit} s",
          f"crashing: w_hangs {wins.get('crashing.w_hangs')}")
    for name in ["crashing.w_aborts/before", "crashing.w_measured"]:
        check(not wins.get(name, {}).get("error") and
              (wins.get(name, {}).get("wallNs") or 0) > 0, f"crashing: {name} {wins.get(name)}")
    # the table names every row, each crash on its row
    table = {r[0]: r for r in table_rows(out)}
    for name in want_order + list(wins):
        check(name in table, f"crashing: no table row {name}")
    check("killed by SIGSEGV" in " ".join(table.get("crashing.b_segfaults", [])),
          f"crashing: table row {table.get('crashing.b_segfaults')}")
    check("b_segfaults: about to crash\n" in out, "crashing: the body's output was not passed on")
    check("e_hangs: waiting forever\n" in err, "crashing: the body's stderr was not passed on")
    # the hung body's child was killed with the worker's process group
    check(child != "" and process_gone(int(child)), f"crashing: child {child!r} still runs")
    # a once-per-run disclosure is made once, however many workers the run took
    def lines(argv, pattern):
        rc, out, err = run([CRASHING, "--bench", f"--bench-timeout={limit}"] + argv)
        return [l for l in err.splitlines() if re.search(pattern, l)]
    alone = lines(["-i", "w_measured", "--metrics=all", "--perf", "--syscalls"], r"^workload: ")
    after = lines(["-i", "b_segf|w_measured", "--metrics=all", "--perf", "--syscalls"],
                  r"^workload: ")
    # (under qemu-user no source with a disclosure opens: none alone, none after)
    check((EMULATOR or len(alone) > 0) and len(after) == len(alone),
          f"crashing: workload disclosures {len(after)} after a crash, {len(alone)} alone")
    said = lines(["-i", "f_cases", "--perf"], r"per-call rows are counted one call per bracket")
    # no counter opens under qemu-user (no perf_event_open) nor off Linux (perf and perf-sw are
    # absent): no bracket, nothing to disclose
    want = 0 if (PORTABLE or EMULATOR) else 1
    check(len(said) == want, f"crashing: the empty-bracket line {len(said)} times: {said}")
    if PORTABLE:
        said = lines(["-i", "f_cases", "--perf"], r"^--perf: counting unavailable \(" + OFF_PLATFORM)
        check(len(said) == 1, f"crashing: the platform's absence {len(said)} times: {said}")
    said = lines(["-i", "b_segf|a_meas", "--group-by=size"], r"^--group-by: no benchmark case")
    check(len(said) == 1, f"crashing: the --group-by note {len(said)} times")
    # a body that reads the terminal is stopped by SIGTTIN (its worker is in the background):
    # said at once, never left waiting for the timeout
    t0 = time.monotonic()
    rc, text = run_pty([CRASHING, "--bench", "--bench-timeout=0", "-i", "h_reads|g_meas"],
                       CRASHING_READ_TERMINAL="1")
    check(rc == 1 and "crashing.h_reads_terminal: stopped by SIGTTIN" in text and
          "crashing.g_measured_last" in text and time.monotonic() - t0 < 60,
          f"crashing: a terminal read: {rc}\n{text}")
    # no timeout: the same run without the hanging items ends by itself
    rc, out, err = run([CRASHING, "--bench", "--bench-timeout=0", "-e", "hangs"])
    check(rc == 1 and "crashing.g_measured_last" in out, f"crashing: --bench-timeout=0: {rc}")
HANG_PIPED = """\
 ✓ hang.before
 ✗ hang.sleeps_forever (timed out after 1 s)
    --- output ---
    going to sleep
 ✗ hang.child_holds_the_pipe (timed out after 1 s)
    --- output ---
    helper <pid>
 ✓ hang.after

Summary: 2 passed, 2 failed in <T>

Failed tests (2):
 ✗ hang.child_holds_the_pipe (timed out after 1 s)
 ✗ hang.sleeps_forever (timed out after 1 s)

To rerun:
  <bin> -i '^hang\\.child_holds_the_pipe$'
  <bin> -i '^hang\\.sleeps_forever$'
"""


def process_gone(pid):
    """True when pid has exited (a zombie nobody reaps counts as gone)."""
    import time
    for _ in range(500):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.01)
    return False


def case_timeout():
    import time
    # a hung test is killed with its process group, reported, counted as failed; the rest runs
    for jobs in ("4", "1"):
        t0 = time.monotonic()
        rc, out, err = run([HANG, "--timeout=1", "-j", jobs])
        took = time.monotonic() - t0
        helper = re.search(r"^    helper (\d+)$", out, re.M)
        got = mask(re.sub(r"helper \d+", "helper <pid>", out), HANG)
        check(rc == 1 and err == "" and got == HANG_PIPED, f"timeout -j{jobs}: {rc} {err!r}\n{got}")
        # -j1 runs the two hung tests one after the other: about 2 s, never the 90 s of run()
        check(took < 30, f"timeout -j{jobs}: the run took {took:.1f} s")
        check(helper is not None and process_gone(int(helper.group(1))),
              f"timeout -j{jobs}: the hung test's child outlived it")
    # Ctrl-Z (SIGTSTP) stops the workers with the runner, SIGCONT resumes them, and the time
    # stopped is not counted against --timeout. The runner leads a process group of its own in
    # this session (a stop is discarded in an orphaned group).
    import signal
    p = subprocess.Popen(isolated([HANG, "--timeout=2", "-j", "4"]), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=clean_env(),
                         preexec_fn=lambda: os.setpgid(0, 0))
    t0 = time.monotonic()

    def state(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "?"

    def workers():
        try:
            with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                return f.read().split()
        except OSError:
            return []
    # Two workers forked: the second, sleeps_forever's, runs until its timeout. The runner may
    # still be forking the other two (so the stop can come in the middle of a fork), and
    # hang.before's may have finished already.
    for _ in range(3000):
        if len(workers()) >= 2:
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGTSTP)

    # stopped: the runner and every live worker, at least sleeps_forever's (a finished one stays
    # a zombie until the runner is resumed and reaps it)
    def all_stopped(states):
        return (len(states) >= 3 and states[0] == "T" and "T" in states[1:] and
                all(st in "TZ" for st in states))
    states = []
    for _ in range(500):
        states = [state(p.pid)] + [state(w) for w in workers()]
        if all_stopped(states):
            break
        time.sleep(0.01)
    check(all_stopped(states),
          f"timeout: SIGTSTP did not stop the runner and its workers: {states}")
    time.sleep(3)
    p.send_signal(signal.SIGCONT)
    out, err = p.communicate(timeout=60)
    took = time.monotonic() - t0
    out = mask(re.sub(r"helper \d+", "helper <pid>", out.decode()), HANG)
    check(p.returncode == 1 and out == HANG_PIPED.replace("after 1 s", "after 2 s"),
          f"timeout after a stop: {p.returncode} {err!r}\n{out}")
    check(took >= 5, f"timeout after a stop: done in {took:.1f} s, so the 3 s stopped counted")
    # the option: checked like every number, 0 = none
    for value, want in (("x", "error: option '--timeout' needs a non-negative integer, got 'x' "
                              "(see --help)\n"),
                        ("86401", "error: option '--timeout': '86401' is too large (at most "
                                  "86400) (see --help)\n"),
                        ("", "error: option '--timeout' needs a number, got an empty value (see "
                             "--help)\n")):
        rc, out, err = run([HANG, "--timeout=" + value])
        check(rc == 2 and out == "" and err == want, f"timeout={value!r}: {rc} {err!r}")
    rc, out, err = run([SAMPLE, "--timeout=0", "-i", "passes"])
    check(rc == 0 and " ✓ sample.passes" in out, f"timeout=0: {rc} {out!r}")
    rc, out, err = run([SAMPLE, "--bench-timeout=5", "-i", "passes"])
    check(rc == 0 and " ✓ sample.passes" in out, f"bench-timeout in test mode: {rc} {out!r}")
    rc, out, err = run([SAMPLE, "--bench-timeout=86401"])
    check(rc == 2 and err == "error: option '--bench-timeout': '86401' is too large (at most "
          "86400) (see --help)\n", f"bench-timeout too large: {rc} {err!r}")


def case_json_target():
    """--bench-json's destination is checked before anything runs: one line, exit 2, no table."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        def refused(target, reason, what):
            rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "-i", "two_loops",
                                "--bench-json=" + target])
            want = f"error: --bench-json: cannot write '{target}': {reason}\n"
            check(rc == 2 and out == "" and err == want, f"{what}: {rc} {out!r} {err!r}")

        refused(os.path.join(d, "missing", "doc.json"),
                f"the directory '{os.path.join(d, 'missing')}' does not exist", "missing directory")
        os.mkdir(os.path.join(d, "sub"))
        refused(os.path.join(d, "sub"), "it is a directory", "a directory")
        os.symlink("nowhere.json", os.path.join(d, "dangling"))
        refused(os.path.join(d, "dangling"), "it is a dangling symbolic link (to 'nowhere.json'): "
                "refused, a link is never replaced by a file", "a dangling link")
        check(os.readlink(os.path.join(d, "dangling")) == "nowhere.json", "dangling: link changed")
        os.symlink("loop_b", os.path.join(d, "loop_a"))
        os.symlink("loop_a", os.path.join(d, "loop_b"))
        refused(os.path.join(d, "loop_a"), "it is a symbolic link that loops: refused", "a loop")
        name = "n" * 256
        refused(os.path.join(d, name), f"the file name is 256 bytes long (at most 255 in '{d}')",
                "a name too long")
        check(sorted(os.listdir(d)) == ["dangling", "loop_a", "loop_b", "sub"],
              f"json target: files left {os.listdir(d)}")
        # the longest legal name works (its temporary once added 7 bytes to it)
        longest = os.path.join(d, "d" * 255)
        rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "-i", "two_loops",
                            "--bench-json=" + longest])
        check(rc == 0 and load_json(longest).get("schema") == 2, f"255-byte name: {rc} {err!r}")
        check(sorted(os.listdir(d)) == sorted(["d" * 255, "dangling", "loop_a", "loop_b", "sub"]),
              f"255-byte name: files left {os.listdir(d)}")


def held_writer(target, marker, extra_env=None):
    """A --bench run whose --bench-json write stops inside fsync (the temporary written, not yet
    renamed) until a signal comes: (process, its temporary's name)."""
    import signal
    import time
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = clean_env(LD_PRELOAD=HOLD_FSYNC_LIB, E2E_HOLD_FSYNC=marker,
                    ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")

    def default_signals():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
    p = subprocess.Popen([CASES, "--bench", "--bench-min-time=1", "-i", "two_loops",
                          "--bench-json=" + target], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env,
                         preexec_fn=default_signals)
    deadline = time.monotonic() + 60
    while not os.path.exists(marker) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    pattern = re.compile(r"^\." + re.escape(os.path.basename(target)) + r"\." + str(p.pid) +
                         r"\.[A-Za-z0-9]{6}$")
    temps = [n for n in os.listdir(os.path.dirname(target)) if pattern.match(n)]
    return p, temps[0] if len(temps) == 1 else None


def case_json_signals():
    """A real signal in the middle of the atomic write: the temporary file is removed and the
    signal's default action ends the process; after SIGKILL the temporary is recognisable and
    the next write to the same target removes it, but never a live writer's."""
    import signal
    import tempfile
    if not HOLD_FSYNC_LIB:
        print("SKIP: no fsync-holding module")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as m:
        target = os.path.join(d, "doc.json")
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            marker = os.path.join(m, f"held.{sig}")
            p, temp = held_writer(target, marker)
            check(temp is not None, f"signal {sig}: no temporary while held {os.listdir(d)}")
            p.send_signal(sig)
            p.wait(timeout=60)
            check(p.returncode == -sig, f"signal {sig}: status {p.returncode}")
            check(os.listdir(d) == [], f"signal {sig}: files left {os.listdir(d)}")
        # SIGKILL cannot be caught: the temporary stays, named after the target and the pid
        p, temp = held_writer(target, os.path.join(m, "held.kill"))
        p.kill()
        p.wait(timeout=60)
        check(temp is not None and os.listdir(d) == [temp],
              f"SIGKILL: the temporary {temp} and {os.listdir(d)}")
        # a live writer's temporary is left alone by another write to the same target
        live, live_temp = held_writer(target, os.path.join(m, "held.live"))
        rc, out, err = run([CASES, "--bench", "--bench-min-time=1", "-i", "two_loops",
                            "--bench-json=" + target])
        check(rc == 0, f"rewrite: {rc} {err!r}")
        check(sorted(os.listdir(d)) == sorted(["doc.json", live_temp or "?"]),
              f"rewrite: the killed writer's temporary removed, the live one kept: "
              f"{os.listdir(d)}")
        live.terminate()
        live.wait(timeout=60)
        check(os.listdir(d) == ["doc.json"] and load_json(target).get("schema") == 2,
              f"rewrite: files left {os.listdir(d)}")
def case_duplicates():
    # Two bodies register the case 'shared' {impl=x} (the second one twice), and a case takes
    # the name of another body's loop row. The first of each keeps the cell; every later one is
    # an error row under a free name, and `libbench compare` reads the document (its reader
    # refuses two rows with one name and labels). The same with --group-by.
    import tempfile
    for extra in ([], ["--group-by=impl"]):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "doc.json")
            rc, out, err = run([DUPLICATES, "--bench", "--bench-json=" + path] + extra)
            what = f"duplicates {extra}"
            check(rc == 1, f"{what}: exit {rc}, want 1 {err!r}")
            doc = load_json(path) if os.path.exists(path) else {}
            rows = doc.get("rows", [])
            cells = [(r["name"], tuple(sorted(r["labels"].items()))) for r in rows]
            check(len(cells) == len(set(cells)), f"{what}: two rows with one cell: {cells}")
            by_name = {r["name"]: r for r in rows}
            check(sorted(by_name) == ["duplicates.loop", "duplicates.loop (2)", "duplicates.shared",
                                      "duplicates.shared (2)", "duplicates.shared (3)"],
                  f"{what}: rows {sorted(by_name)}")
            for name in ("duplicates.shared", "duplicates.loop"):
                check(by_name.get(name, {}).get("error") == "" and
                      by_name.get(name, {}).get("medianNs") is not None,
                      f"{what}: {name} is measured: {by_name.get(name)}")
            for name in ("duplicates.shared (2)", "duplicates.shared (3)"):
                check(by_name.get(name, {}).get("error") ==
                      "registration: the case 'duplicates.shared' {impl=x} is registered by "
                      "duplicates.first and again by duplicates.second: a run has one row per "
                      "case name and labels", f"{what}: {name}: {by_name.get(name)}")
            check(by_name.get("duplicates.loop (2)", {}).get("error") ==
                  "registration: the case name 'duplicates.loop' without labels is the name of "
                  "a row of BENCHMARK duplicates.loop: give the case a label or another name",
                  f"{what}: duplicates.loop (2): {by_name.get('duplicates.loop (2)')}")
            # the table says it too
            check("│ duplicates.shared (2)" in out and "│ duplicates.loop (2)" in out,
                  f"{what}: the table rows\n{out}")
            # the comparison's reader takes the document (it refuses a document with two rows
            # of one cell: "rows[N]: the same cell as rows[M]")
            runs = [path] * 3
            p = subprocess.run([LIBBENCH, "compare", "--baseline"] + runs + ["--candidate"] + runs,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, env=clean_env())
            cout, cerr = p.stdout.decode(), p.stderr.decode()
            check("error:" not in cerr and "same cell" not in cerr and
                  re.search(r"^verdict: ", cout, re.M) is not None,
                  f"{what}: libbench compare refused the document: {p.returncode} {cerr!r}\n{cout}")


def parse_folded(text):
    """Folded stacks: one "a;b;c count" line each; returns [(frames, count)] or None."""
    stacks = []
    for line in text.splitlines():
        frames, sep, count = line.rpartition(" ")
        if not sep or not frames or not count.isdigit() or int(count) <= 0:
            return None
        stacks.append((frames.split(";"), int(count)))
    return stacks


def profile_run(binary, *extra, cwd=None, **env):
    """--bench --profile with a JSON document and folded stacks: (rc, out, err, doc, folded)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        doc_path, folded_path = os.path.join(d, "doc.json"), os.path.join(d, "stacks.folded")
        if "-i" not in extra and binary in (PROFILE, PROFILE_STRIPPED, PROFILE_NO_ARANGES):
            extra = ("-i", "split_80_20") + extra  # per_call, empty_body: their own checks
        rc, out, err = run([binary, "--bench", "--profile", "--bench-json=" + doc_path,
                            "--profile-folded=" + folded_path] + list(extra), cwd=cwd, **env)
        doc = load_json(doc_path) if os.path.exists(doc_path) else {}
        folded = open(folded_path).read() if os.path.exists(folded_path) else None
        if os.path.exists(doc_path):
            p = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__),
                                                             "check_json_schema.py"), SCHEMA,
                                doc_path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            check(p.returncode in (0, 77), f"schema: {p.stderr.decode()}")
    return rc, out, err, doc, folded


# The lines of hot_function in tests/e2e/profile.c (its loop).
HOT_LINES = range(12, 20)
# The source tree, as the compiler saw it (the build records physical directories).
SOURCE_ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def check_source_paths(binary, what):
    """The hot line's file is shown relative to the current directory when it lies below it (the
    source root: tests/e2e/profile.c), absolute from elsewhere (the joined compilation directory
    of a unit built from ../, never a path relative to the build directory)."""
    import tempfile
    absolute = os.path.join(SOURCE_ROOT, "tests", "e2e", "profile.c")
    with tempfile.TemporaryDirectory() as elsewhere:
        for cwd, shown in ((SOURCE_ROOT, "tests/e2e/profile.c"),
                           (os.path.realpath(elsewhere), absolute)):
            rc, out, err, doc, folded = profile_run(binary, cwd=cwd)
            prof = (doc.get("rows") or [{}])[0].get("profile", {})
            lines = (prof.get("hotLines") or {}).get("lines", [])
            where = lines[0]["location"].rpartition(":")[0] if lines else None
            check(rc == 0 and where == shown,
                  f"{what}: from {cwd} the hot line's file is {where!r}, not {shown!r}")
            check(rc != 0 or f"│ {shown}:" in out, f"{what}: from {cwd}, the table\n{out}")


def case_profile():
    # Shares are of samples of this thread's CPU time, so an 80/20 split in CPU work holds on a
    # busy machine; the tolerance is wide (hot 0.6-0.95) because a sample can land in the loop
    # of the body or the harness, and a few hundred samples vary by a few percent.
    rc, out, err, doc, folded = profile_run(PROFILE)
    if "--profile: no sampling pass" in err and EMULATOR:
        # no perf_event_open under qemu-user: the absence and its reason are what is checked
        line = err.strip().splitlines()[0]
        print(f"under {EMULATOR}, no sampling: {line}")
        check("ENOSYS" in err, f"profile: under {EMULATOR}, the reason names ENOSYS: {err!r}")
        return
    if PORTABLE:
        # no sampler off Linux: one line says why, each row is measured and its profile is
        # "unavailable" with the reason, and the capability report says the same for sampling
        # and symbolization
        why = f"{OFF_PLATFORM} (perf_event_open is Linux's)"
        check(rc == 0 and f"--profile: no sampling pass ({why})\n" in err,
              f"profile off Linux: {rc} {err!r}")
        rows = doc.get("rows", [])
        check(rows and all(r.get("medianNs") and r.get("profile") == {"unavailable": why}
                           for r in rows), f"profile off Linux: rows {rows}")
        check(not folded, f"profile off Linux: folded stacks written: {folded!r}")
        rc, out, err = run([PROFILE, "--list-metrics", "--profile"])
        for cap in ("ipSampling", "symbolization"):
            check(re.search(r"✗ " + cap + " — " + OFF_PLATFORM, out) is not None,
                  f"profile off Linux: {cap} in --list-metrics\n{out}")
        return
    if "--profile: no sampling pass" in err:
        print("SKIP: this host cannot sample:", err.strip().splitlines()[0])
        sys.exit(77)
    if "--profile: samples are not symbolised (libdw not loaded" in err:
        # No libdw on this host (Debian: libdw1): what a user without it gets is checked, the
        # symbolised cases are skipped with the reason.
        check(rc == 0, f"no libdw on the host: exit {rc} {err!r}")
        prof = (doc.get("rows") or [{}])[0].get("profile", {})
        check(prof.get("samples", 0) > 0 and
              prof.get("unsymbolisedSamples") == prof.get("samples"),
              f"no libdw on the host: {prof.get('samples')} samples, "
              f"{prof.get('unsymbolisedSamples')} unsymbolised")
        rc, out, err = run([PROFILE, "--list-metrics", "--profile"])
        check(rc == 0 and re.search(r"✗ symbolization — libdw not loaded", out) is not None,
              f"no libdw on the host: --list-metrics\n{out}")
        if not failures:
            print("SKIP: libdw is not installed (Debian: libdw1): the run without it was checked; "
                  "the symbolised profile was not")
            sys.exit(77)
        return
    for what, extra in (("supervised", []), ("in-process", ["--bench-in-process"])):
        if extra:
            rc, out, err, doc, folded = profile_run(PROFILE, *extra)
        check(rc == 0, f"{what}: exit {rc} {err!r}")
        rows = doc.get("rows", [])
        prof = rows[0].get("profile", {}) if rows else {}
        self_ = prof.get("self", [])
        names = [e.get("function") for e in self_]
        check(names[:2] == ["hot_function", "cold_function"],
              f"{what}: self order {names}\n{out}")
        if len(self_) >= 2:
            check(0.6 <= self_[0]["share"] <= 0.95, f"{what}: hot share {self_[0]['share']}")
            check(0.05 <= self_[1]["share"] <= 0.4, f"{what}: cold share {self_[1]['share']}")
        lines = (prof.get("hotLines") or {}).get("lines", [])
        m = re.match(r".*profile\.c:(\d+)$", lines[0]["location"]) if lines else None
        check(m is not None and int(m.group(1)) in HOT_LINES,
              f"{what}: hot line {lines[:1]}")
        check(prof.get("samples", 0) > 0 and prof.get("hzReached") is not None,
              f"{what}: samples {prof.get('samples')} rate {prof.get('hzReached')}")
        check(prof.get("estimate") == (prof.get("samples", 0) < prof.get("minimumSamples", 0)),
              f"{what}: estimate {prof.get('estimate')}")
        check("profile of profile.split_80_20: " in out and "hot_function" in out,
              f"{what}: the table\n{out}")
        check_harness_share(prof, out, what)
        own = libbench_frames(prof, folded)
        check(not own, f"{what}: libbench's own code in the body's tables or stacks: {own}\n{out}")
        stacks = parse_folded(folded or "")
        check(stacks is not None and stacks, f"{what}: folded output {folded!r}")
        if stacks:
            check(sum(c for _, c in stacks) == prof.get("samples"),
                  f"{what}: folded total vs {prof.get('samples')}")
            check(all(f[0] == "profile.split_80_20" for f, _ in stacks), f"{what}: folded roots")
            check(any(f[-1] == "hot_function" for f, _ in stacks), f"{what}: folded leaves")

    # stripped: the samples stay, counted as unsymbolised with the reason
    rc, out, err, doc, folded = profile_run(PROFILE_STRIPPED)
    check(rc == 0, f"stripped: exit {rc} {err!r}")
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    unsym = prof.get("unsymbolised", [])
    check(prof.get("unsymbolisedSamples", 0) > 0 and
          any("stripped" in u.get("reason", "") for u in unsym),
          f"stripped: unsymbolised {unsym}")
    check(prof.get("unsymbolisedSamples", 0) <= prof.get("samples", 0), "stripped: totals")
    check("not symbolised: stripped" in out, f"stripped: the table\n{out}")

    # no .debug_aranges (clang's default): the hot line is still found, unit by unit
    rc, out, err, doc, folded = profile_run(PROFILE_NO_ARANGES)
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    lines = (prof.get("hotLines") or {}).get("lines", [])
    m = re.match(r".*profile\.c:(\d+)$", lines[0]["location"]) if lines else None
    check(rc == 0 and m is not None and int(m.group(1)) in HOT_LINES,
          f"no .debug_aranges: exit {rc}, hot line {lines[:1]}")

    # source paths: the compilation directory joined, shown from the current directory, both
    # through the line of an address (.debug_aranges) and unit by unit (without it)
    check_source_paths(PROFILE, "source paths")
    check_source_paths(PROFILE_NO_ARANGES, "source paths without .debug_aranges")

    # libdw hidden: the capability is absent with the reason, and the run still passes
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = {"LD_PRELOAD": HIDE_LIBDW_LIB,
           "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}
    rc, out, err, doc, folded = profile_run(PROFILE, **env)
    check(rc == 0, f"no libdw: exit {rc} {err!r}")
    check("--profile: samples are not symbolised (libdw not loaded: dlopen(libdw.so.1) failed"
          in err, f"no libdw: stderr {err!r}")
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    check(prof.get("samples", 0) > 0 and
          prof.get("unsymbolisedSamples") == prof.get("samples"),
          f"no libdw: {prof.get('samples')} samples, {prof.get('unsymbolisedSamples')} unsymbolised")
    rc, out, err = run([PROFILE, "--list-metrics", "--profile"], **env)
    check(rc == 0 and re.search(r"✗ symbolization — libdw not loaded", out) is not None,
          f"no libdw: --list-metrics\n{out}")
    rc, out, err = run([PROFILE, "--list-metrics", "--profile"])
    check(rc == 0 and "✓ ipSampling" in out and "✓ symbolization" in out,
          f"--list-metrics --profile\n{out}")
    profile_harness()


def libbench_frames(prof, folded):
    """The frames of libbench's own code left in a profile's tables or folded stacks (issue 32,
    point 13: the harness's samples are its share, and the harness's call of the body and its
    callers are cut from the body's stacks). Folded frames carry no module: libbench's functions
    are named bench_* (the benchmark's own bodies are bench__fn_*)."""
    own = [f"{e.get('function')} ({e.get('module')})"
           for e in (prof.get("self") or []) + (prof.get("inclusive") or [])
           if (e.get("module") or "").startswith("libbench")]
    for frames, _ in parse_folded(folded or "") or []:
        own += [f for f in frames[1:] if f.startswith("bench_") and not f.startswith("bench__fn_")]
    return sorted(set(own))


def check_harness_share(prof, out, what):
    """The harness's share: its JSON fields (null where not measured, with the reason) and its
    line under the profile's header; the achieved rate beside the rate asked. Counts only: no
    rate or share is asserted, so it holds on a busy machine."""
    hs, share, why = (prof.get("harnessSamples"), prof.get("harnessShare"),
                      prof.get("harnessUnmeasured"))
    check(all(k in prof for k in ("harnessSamples", "harnessShare", "harnessUnmeasured")),
          f"{what}: the harness's JSON fields: {sorted(prof)}")
    if why is not None:  # libbench linked into the benchmark's own file: said, with the reason
        check(hs is None and share is None and "harness (libbench's own code): — (" in out,
              f"{what}: harness unmeasured {why!r} {hs} {share}\n{out}")
    else:
        m = re.search(r"^  harness \(libbench's own code\): (\d+) of (\d+) samples, "
                      r"(\d+\.\d)% of the pass", out, re.M)
        check(isinstance(hs, int) and hs >= 0 and isinstance(share, (int, float)) and
              0 <= share <= 1 and m is not None and int(m.group(1)) == hs and
              int(m.group(2)) == hs + prof.get("samples", -1) and
              0 <= float(m.group(3)) <= 100,
              f"{what}: the harness's share {hs} {share}\n{out}")
    rate = re.search(r", (\d+) Hz reached of the (\d+) Hz asked, ", out)
    check(isinstance(prof.get("hzReached"), (int, float)) and prof["hzReached"] > 0 and
          rate is not None and int(rate.group(1)) > 0 and
          int(rate.group(2)) == prof.get("hzRequested"),
          f"{what}: the achieved rate {prof.get('hzReached')}\n{out}")


def profile_harness():
    """Issue 32, point 13: a call of a few ns profiled, at 100000 Hz so that the pass reads its
    ring many times. The pass runs no counting bracket (no ioctl per call), the samples of
    libbench's own work (its loop, the reads of its ring with their memcpy and realloc, the
    event's edges) are the harness's share on their own line and JSON fields, never in the tables
    or the stacks, and the achieved rate is shown. The body calls nothing: every function of its
    self table is in the program's own file."""
    rc, out, err, doc, folded = profile_run(PROFILE, "-i", "per_call", "--profile-hz=100000")
    check(rc == 0, f"harness: exit {rc} {err!r}")
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    self_ = prof.get("self", [])
    other = [f"{e.get('function')} ({e.get('module')})" for e in self_
             if e.get("module") != "e2e_profile"]
    check(not other, f"harness: the counting bracket or the harness's own calls in the body's "
          f"table: {other}\n{out}")
    check(self_ and self_[0].get("function") == "tiny_call",
          f"harness: the body is not the top self entry: {self_[:3]}\n{out}")
    check_harness_share(prof, out, "harness")
    own = libbench_frames(prof, folded)
    check(not own, f"harness: libbench's own code in the body's tables or stacks: {own}\n{out}")
    stacks = parse_folded(folded or "") or []
    check(sum(c for _, c in stacks) == prof.get("samples"),
          f"harness: the folded stacks are not the body's samples: {folded!r}")
    # an empty body: the harness's loop takes samples, counted as its share (through the
    # supervisor, which gets the profile from the measuring process), never as the body's
    rc, out, err, doc, folded = profile_run(PROFILE, "-i", "empty_body")
    check(rc == 0, f"empty body: exit {rc} {err!r}")
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    check_harness_share(prof, out, "empty body")
    own = libbench_frames(prof, folded)
    check(not own, f"empty body: libbench's own code in the body's tables or stacks: {own}\n{out}")
    check(prof.get("harnessUnmeasured") is not None or prof.get("harnessSamples", 0) > 0,
          f"empty body: no sample of the harness's loop: {prof.get('harnessSamples')}\n{out}")


def case_profile_leaf():
    """A frameless leaf keeps its caller: with DWARF unwinding of the sampled user stack, every
    sample in leaf_function is under leaf_caller, under the body (the kernel's frame-pointer walk
    skips the caller of a leaf without a frame). Forced back onto frame pointers
    (BENCH_PROFILE_UNWIND=frame-pointer), or without libdw, the note and the JSON say so and why.
    Only the shape of the stacks is checked, and a modest number of samples, never a rate."""
    import platform
    if PORTABLE or EMULATOR:
        print("SKIP: no sampler here (e2e/profile checks the absence and its reason)")
        sys.exit(77)
    rc, out, err, doc, folded = profile_run(PROFILE_LEAF)
    if "--profile: no sampling pass" in err:
        print("SKIP: this host cannot sample:", err.strip().splitlines()[0])
        sys.exit(77)
    if "--profile: samples are not symbolised (libdw not loaded" in err:
        print("SKIP: libdw is not installed (Debian: libdw1): nothing to unwind with")
        sys.exit(77)
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    if platform.machine() not in ("x86_64", "amd64"):
        # the fallback and its reason are what is checked elsewhere
        check(rc == 0 and prof.get("unwinder") == "frame-pointer" and
              prof.get("unwinderReason") == "user-stack unwinding is implemented for x86_64 only",
              f"{platform.machine()}: unwinder {prof.get('unwinder')} {prof.get('unwinderReason')}")
        return
    check(rc == 0, f"dwarf: exit {rc} {err!r}")
    check("call chains unwound from DWARF (libdw)" in err, f"dwarf: stderr {err!r}")
    check(prof.get("unwinder") == "dwarf" and prof.get("unwinderReason") is None,
          f"dwarf: unwinder {prof.get('unwinder')} ({prof.get('unwinderReason')})")
    samples, fp = prof.get("samples", 0), prof.get("framePointerSamples")
    check(samples >= 20, f"dwarf: only {samples} samples")
    check(isinstance(fp, int) and 0 <= fp <= samples // 10,
          f"dwarf: {fp} of {samples} samples kept frame-pointer callers: {prof.get('note')}")
    fp = fp if isinstance(fp, int) else 0
    check(prof.get("note", "").startswith("callers come from DWARF unwinding (libdw)"),
          f"dwarf: note {prof.get('note')!r}")
    stacks = parse_folded(folded or "") or []
    in_leaf = sum(c for f, c in stacks if f[-1] == "leaf_function")
    with_callers = sum(c for f, c in stacks
                       if f[-3:] == ["bench__fn_leaf", "leaf_caller", "leaf_function"])
    check(in_leaf >= 20 and with_callers + fp >= in_leaf,
          f"dwarf: {with_callers} of the {in_leaf} samples in leaf_function are under "
          f"bench__fn_leaf;leaf_caller ({fp} kept frame pointers)\n{folded}")
    inclusive = {e.get("function"): e.get("samples") for e in prof.get("inclusive") or []}
    check(inclusive.get("leaf_caller", 0) >= inclusive.get("leaf_function", 0) - fp > 0,
          f"dwarf: inclusive {inclusive}")
    check("│ leaf_caller" in out or " leaf_caller " in out, f"dwarf: the table\n{out}")
    print(f"dwarf: {with_callers} of {in_leaf} leaf samples under leaf_caller, {fp} on frame "
          f"pointers")

    # forced back onto frame pointers: the reason in the note, the JSON and the first line
    rc, out, err, doc, folded = profile_run(PROFILE_LEAF, BENCH_PROFILE_UNWIND="frame-pointer")
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    why = "BENCH_PROFILE_UNWIND=frame-pointer"
    check(rc == 0 and f"call chains follow frame pointers ({why})" in err,
          f"frame pointers: exit {rc} {err!r}")
    check(prof.get("unwinder") == "frame-pointer" and prof.get("unwinderReason") == why and
          prof.get("framePointerSamples") == prof.get("samples"),
          f"frame pointers: {prof.get('unwinder')} {prof.get('unwinderReason')} "
          f"{prof.get('framePointerSamples')} of {prof.get('samples')}")
    check(prof.get("note", "").startswith(f"callers come from frame pointers ({why})"),
          f"frame pointers: note {prof.get('note')!r}")
    stacks = parse_folded(folded or "") or []
    lost = sum(c for f, c in stacks if f[-1] == "leaf_function" and f[-2:-1] != ["leaf_caller"])
    print(f"frame pointers: {lost} of {prof.get('samples')} samples in leaf_function lost "
          f"leaf_caller")

    # libdw hidden: frame pointers, and the reason names libdw
    asan = os.environ.get("ASAN_OPTIONS", "")
    rc, out, err, doc, folded = profile_run(
        PROFILE_LEAF, LD_PRELOAD=HIDE_LIBDW_LIB,
        ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")
    prof = (doc.get("rows") or [{}])[0].get("profile", {})
    check(rc == 0 and prof.get("unwinder") == "frame-pointer" and
          (prof.get("unwinderReason") or "").startswith("libdw not loaded: dlopen(libdw.so.1)") and
          "callers come from frame pointers (libdw not loaded" in (prof.get("note") or ""),
          f"no libdw: exit {rc}, {prof.get('unwinder')} {prof.get('unwinderReason')} "
          f"{prof.get('note')!r}")


def validate(doc_path, what):
    v = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "check_json_schema.py"), SCHEMA, doc_path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    check(v.returncode == 0, f"{what}: schema validation: " + v.stdout.decode())


def case_environment():
    """The environment is checked once per run: each warning on stderr is in meta.environment,
    every unknown value has its reason, and none of it changes the run's outcome."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.json")
        rc, out, err = run([SAMPLE, "--bench", "-i", "sum_loop", f"--bench-json={path}"],
                           keep_environment=True)
        check(rc == 0, f"environment: exit {rc} {err!r}")
        doc = load_json(path)
        validate(path, "environment")
        env = doc["meta"].get("environment", {})
        said = [line[len("warning: "):] for line in err.splitlines()
                if line.startswith("warning: ")]
        check(said == env.get("warnings"), f"environment: stderr {said} vs meta {env}")
        check(env.get("build") == ("optimized" if not EXPECT_DEBUG_WARNING else env.get("build"))
              and (env.get("build") != "optimized") == EXPECT_DEBUG_WARNING,
              f"environment: build {env.get('build')}")
        nulls = {k for k in ("governor", "boost", "hardwarePmu", "hypervisor", "loadAverage", "cpus")
                 if env.get(k) is None}
        check(nulls == set(env.get("unknown", {})), f"environment: unknown reasons {env}")
        check(env.get("cpus") is None or 1 <= env["cpus"] <= 4096, f"environment: cpus {env}")
        if env.get("hardwarePmu") is False:
            check(any(w.startswith("environment: no hardware PMU") for w in said),
                  f"environment: no PMU, no warning {said}")
        load, cpus = env.get("loadAverage"), env.get("cpus")
        if load is not None and cpus:
            check(any("load average" in w for w in said) == (load >= 0.5 * cpus),
                  f"environment: load {load} on {cpus} CPUs, warnings {said}")
        # said once per run, by the supervising process: not again by a worker or per body
        check(len(said) == len(set(said)), f"environment: said twice {said}")
        # --list-metrics and a test run check nothing
        rc, out, err = run([SAMPLE, "--list-metrics"], keep_environment=True)
        check("environment" not in err, f"environment: --list-metrics {err!r}")


def contention_run(d, name):
    path = os.path.join(d, name + ".json")
    rc, out, err = run([SAMPLE, "--bench", "-i", "sum_loop", "--bench-min-time=20",
                        f"--bench-json={path}"])
    check(rc == 0, f"contention {name}: exit {rc} {err!r}")
    validate(path, f"contention {name}")
    doc = load_json(path)
    row = next((r for r in doc["rows"] if r["name"] == "sample.sum_loop"), {})
    return out, row.get("contention", "missing"), doc["meta"].get("contentionThreshold")


def case_contention():
    """A row measured once as it comes and once beside CPU hogs: the hogs' run says so. The
    machine is shared, so the first run may be busy too: only what holds either way is asserted
    of it (a number in [0, 1], marked exactly when at or above the threshold)."""
    import tempfile
    hogs_wanted = min((os.cpu_count() or 2) + 1, 16)
    with tempfile.TemporaryDirectory() as d:
        runs = {"as-it-comes": contention_run(d, "quiet")}
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                 stdin=subprocess.DEVNULL) for _ in range(hogs_wanted)]
        try:
            runs["beside hogs"] = contention_run(d, "hogs")
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        for what, (out, value, threshold) in runs.items():
            check(threshold == 0.25, f"contention {what}: threshold {threshold}")
            check(isinstance(value, (int, float)) and 0 <= value <= 1,
                  f"contention {what}: value {value!r}")
            if not isinstance(value, (int, float)):
                continue
            marked = re.search(r"│ sample\.sum_loop +│ +\d+×\d+ │ [^│]* † │", out) is not None
            note = re.search(r"^† other processes used \d+% of the machine's CPU time while the "
                             r"marked row was timed \(marked from 25%; "
                             r"docs/explanation/contention\.md\)$", out, re.M) is not None
            check(marked == (value >= 0.25) and note == marked,
                  f"contention {what}: {value} marked {marked} note {note}\n{out}")
            print(f"contention {what}: {value}")
        value = runs["beside hogs"][1]
        check(isinstance(value, (int, float)) and value >= 0.5,
              f"contention beside {hogs_wanted} hogs: {value} (want at least 0.5)")


def blocks(out):
    """{test name: (result line, [its output lines])} of a test-mode run's stdout."""
    found, name = {}, None
    for line in out.split("\nSummary:")[0].splitlines():
        m = re.match(r"^ [✓✗⊘] (\S+)", line)
        if m:
            name = m.group(1)
            found[name] = (line, [])
        elif name and line.startswith("    ") and line != "    --- output ---":
            found[name][1].append(line[4:])
    return found


def case_isolate():
    """What a worker process holds under each --isolate mode (isolate.c, one job, -v): a process
    per test, or one worker running test after test, sharing its state, replaced after a crash,
    an exit and a failure on another thread, kept after a failed check; and each test's output
    its own in both."""
    said = {}
    for mode in ("test", "worker", None):
        argv = [ISOLATE_BIN, "-j", "1", "-v"] + (["--isolate=" + mode] if mode else [])
        rc, out, err = run(argv)
        check(rc == 1 and err == "", f"isolate {mode}: {rc} {err!r}")
        check(mask(out).split("\n\nSummary: ")[1].startswith("8 passed, 4 failed in <T>\n"),
              f"isolate {mode}: summary\n{out[-2000:]}")
        got = blocks(out)
        check(list(got) == [f"isolate.{c}" for c in ("a_sets_state", "b_sees_state", "c_crashes",
                                                     "d_after_crash", "e_exits", "f_after_exit",
                                                     "g_fails_check", "h_after_check",
                                                     "i_floods", "j_after_flood",
                                                     "k_fails_on_thread", "l_after_thread")],
              f"isolate {mode}: tests {list(got)}")
        check(re.search(r"^ ✗ isolate\.c_crashes \(killed by SIGSEGV: Segmentation fault\) ",
                        got.get("isolate.c_crashes", ("",))[0]) is not None,
              f"isolate {mode}: the crash {got.get('isolate.c_crashes')}")
        check(re.search(r"^ ✗ isolate\.e_exits \(exited with status 0 before the test finished\) ",
                        got.get("isolate.e_exits", ("",))[0]) is not None,
              f"isolate {mode}: the exit {got.get('isolate.e_exits')}")
        check(got.get("isolate.k_fails_on_thread", ("",))[0].startswith(
              " ✗ isolate.k_fails_on_thread (") and
              got.get("isolate.k_fails_on_thread", ("", []))[1][:1] == ["failed on thread 2"],
              f"isolate {mode}: the thread's failure {got.get('isolate.k_fails_on_thread')}")
        pids = {}
        for name, (line, lines) in got.items():
            letter = name.split(".")[1][0]
            if letter in "gk":
                check(lines[:1] == [l for l in lines[:1] if l.endswith("check failed: shared == 10") or l == "failed on thread 2"],
                      f"isolate {mode}: the check {lines}")
                lines = lines[1:]
            if letter == "i":  # 1 MiB kept: its last line is cut, then the mark
                check(len(lines) > 16384 and lines[-1] == "[output truncated]" and
                      all(l.startswith("i flood ") for l in lines[:-2]) and
                      lines[0].startswith("i flood 00000 "),
                      f"isolate {mode}: the flood: {len(lines)} lines, {lines[:1]} {lines[-1:]}")
                continue
            m = [re.fullmatch(letter + r" pid (\d+) shared (\d+)", l) for l in lines]
            check(len(m) == 1 and m[0] is not None, f"isolate {mode}: {name} printed {lines[:3]}")
            if len(m) == 1 and m[0]:
                pids[letter] = (int(m[0].group(1)), int(m[0].group(2)))
        said[mode] = pids
    def pid(mode, letter):
        return said[mode].get(letter, (None, None))[0]

    def shared(mode, letter):
        return said[mode].get(letter, (None, None))[1]
    # a process per test: nothing is shared, every pid differs; the default is this mode
    for mode in ("test", None):
        check(len({pid(mode, c) for c in "abcdefghjkl"}) == 11 and
              all(shared(mode, c) == 0 for c in "bcdefghjkl"), f"isolate {mode}: {said[mode]}")
    # one worker: a's state reaches b; the crash and the exit take a new worker (their state
    # gone); a failed check and a flood keep it
    w = "worker"
    check(pid(w, "a") == pid(w, "b") == pid(w, "c") and shared(w, "b") == 42,
          f"isolate worker: a b c {said[w]}")
    check(pid(w, "d") not in (None, pid(w, "c")) and shared(w, "d") == 0 and
          pid(w, "e") == pid(w, "d"), f"isolate worker: d e {said[w]}")
    check(pid(w, "f") not in (None, pid(w, "e")) and shared(w, "f") == 0 and
          pid(w, "f") == pid(w, "g") == pid(w, "h") == pid(w, "j") and shared(w, "h") == 9 and
          shared(w, "j") == 9, f"isolate worker: f g h j {said[w]}")
    check(pid(w, "k") == pid(w, "j") and pid(w, "l") not in (None, pid(w, "k")) and
          shared(w, "l") == 0, f"isolate worker: k l {said[w]}")
    # two jobs: the same outcomes, in suite order
    rc, out, err = run([ISOLATE_BIN, "-j", "2", "--isolate=worker"])
    check(rc == 1 and mask(out).split("\n\nSummary: ")[1].startswith("8 passed, 4 failed in "),
          f"isolate -j2: {rc} {out[-500:]!r}")
    # Ctrl-C (SIGINT) in the middle of a run ends the runner and, before it, every worker's group
    # (the hung tests' workers and the helper one of them started), in either mode
    import signal
    import time
    for mode in ("test", "worker"):
        p = subprocess.Popen([HANG, "--isolate=" + mode, "--timeout=0", "-j", "3"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, env=clean_env())
        kids, helper = [], None
        for _ in range(3000):
            try:
                with open(f"/proc/{p.pid}/task/{p.pid}/children") as f:
                    kids = f.read().split()
                for k in kids:
                    with open(f"/proc/{k}/task/{k}/children") as f:
                        helper = (f.read().split() or [helper])[0]
            except OSError:
                pass
            if len(kids) >= 2 and helper:
                break
            time.sleep(0.01)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        check(p.returncode == -signal.SIGINT and len(kids) >= 2 and helper is not None,
              f"isolate {mode}: SIGINT: {p.returncode} workers {kids} helper {helper}")
        for pid in kids + ([helper] if helper else []):
            check(process_gone(int(pid)), f"isolate {mode}: SIGINT: {pid} outlived the runner")
    # the option: two modes, given once
    for argv, want in ((["--isolate=process"], "error: option '--isolate': unknown mode 'process' "
                                               "(test or worker) (see --help)\n"),
                       (["--isolate", "test", "--isolate=worker"],
                        "error: option '--isolate' given more than once (see --help)\n"),
                       (["--isolate="], "error: option '--isolate' needs a non-empty value (see "
                                        "--help)\n")):
        rc, out, err = run([ISOLATE_BIN] + argv)
        check(rc == 2 and out == "" and err == want, f"isolate {argv}: {rc} {out!r} {err!r}")


ALL = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ALL:
        sys.exit(f"usage: run_e2e.py {{{'|'.join(sorted(ALL))}}}")
    ALL[sys.argv[1]]()
    for f in failures:
        print("FAIL:", f)
    print(f"{sys.argv[1]}: {'ok' if not failures else str(len(failures)) + ' failure(s)'}")
    sys.exit(1 if failures else 0)
