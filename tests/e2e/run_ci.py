#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_ci.py: libbench at home in CI, read back by real consumers: test mode's --junit parsed by
# junitparser (Debian's python3-junitparser, under the system's /usr/bin/python3) and checked
# against the constraints of the JUnit schema Jenkins and GitLab accept (one <testsuites> root,
# the required attributes, counts that agree with the cases); --tap read by prove (Perl's
# TAP::Harness) and by a real `meson test` of a TAP-protocol test; hostile names and output
# (<, &, ]]>, control characters, invalid UTF-8, 1 MiB); -j 4 with a crash, an abort and a
# time-out; --bench --junit; compare's and report's --junit and --summary. A missing consumer
# skips the case (exit 77) with the reason.
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HOSTILE = os.environ.get("CI_HOSTILE", "")
SAMPLE = os.environ.get("CI_SAMPLE", "")
TAP_PROOF = os.environ.get("CI_TAP_PROOF", "")
TOOL = os.environ.get("CI_TOOL", "")
CASES_BIN = os.environ.get("CI_CASES", "")
MESON = os.environ.get("CI_MESON", "")
SYSTEM_PYTHON = "/usr/bin/python3"
SKIP = 77

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def run(argv, cwd=None, timeout=170, env=None):
    env = dict(os.environ, **(env or {}))
    asan = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "handle_segv=0:handle_abort=0"
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=env, timeout=timeout, cwd=cwd)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


# ---- JUnit: the schema's constraints, and junitparser ----------------------------------------

def check_schema(path, what):
    """The constraints of the JUnit schema Jenkins and GitLab read (one <testsuites> root; a
    testsuite's name and tests; a testcase's name, classname and time; at most one result per
    case; counts that agree with the cases, in each suite and at the root)."""
    with open(path, "rb") as f:
        data = f.read()
    check(data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n'), f"{what}: XML declaration")
    root = ET.fromstring(data)  # raises on a document that is not well-formed
    check(root.tag == "testsuites", f"{what}: the root is <{root.tag}>, not <testsuites>")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root:
        check(suite.tag == "testsuite", f"{what}: <{suite.tag}> under the root")
        check(suite.get("name"), f"{what}: a testsuite without a name")
        cases = suite.findall("testcase")
        counts = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
        for case in cases:
            for attr in ("name", "classname", "time"):
                check(case.get(attr) is not None, f"{what}: a testcase without {attr}")
            check(float(case.get("time", "-1")) >= 0, f"{what}: a negative time")
            results = [c for c in case if c.tag in ("failure", "error", "skipped")]
            check(len(results) <= 1, f"{what}: {case.get('name')} has {len(results)} results")
            for r in results:
                counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[r.tag]] += 1
        for k, v in counts.items():
            check(suite.get(k) == str(v), f"{what}: testsuite {k}={suite.get(k)}, cases say {v}")
            totals[k] += v
    for k, v in totals.items():
        check(root.get(k) == str(v), f"{what}: testsuites {k}={root.get(k)}, cases say {v}")
    return root


JUNITPARSER = r"""
import json, sys
from junitparser import JUnitXml, TestSuite
xml = JUnitXml.fromfile(sys.argv[1])
out = []
for suite in ([xml] if isinstance(xml, TestSuite) else xml):  # CTest's root is a <testsuite>
    for case in suite:
        kinds = [(type(r).__name__, r.message, r.type, r.text) for r in case.result]
        out.append({"suite": suite.name, "suite_tests": suite.tests,
                    "suite_failures": suite.failures, "suite_errors": suite.errors,
                    "suite_skipped": suite.skipped, "classname": case.classname,
                    "name": case.name, "time": case.time, "result": kinds,
                    "system_out": case.system_out or "",
                    "properties": {p.get("name"): p.get("value")
                                   for p in case._elem.iter("property")}})
json.dump(out, sys.stdout)
"""


def junitparser_cases(path):
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        skip(f"{SYSTEM_PYTHON} is missing: junitparser cannot read the JUnit file")
    rc, out, err = run([SYSTEM_PYTHON, "-c", "import junitparser"])
    if rc != 0:
        skip("python3-junitparser is not installed (apt-get install python3-junitparser)")
    rc, out, err = run([SYSTEM_PYTHON, "-c", JUNITPARSER, path])
    check(rc == 0, f"junitparser could not read {path}: {err}")
    return {c["name"]: c for c in json.loads(out)} if rc == 0 else {}


def kind(case):
    return case["result"][0][0] if case["result"] else "Pass"


def case_junit(isolate):
    """-j 4 with a crash, an abort and a time-out: one valid document; the hostile texts escaped."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "junit.xml")
        argv = [HOSTILE, "-j", "4", "--timeout", "2", f"--junit={path}"]
        if isolate:
            argv.append("--isolate=worker")
        rc, out, err = run(argv)
        check(rc == 1, f"exit {rc}, want 1\n{err}")
        check(sorted(os.listdir(tmp)) == ["junit.xml"], f"stray files {os.listdir(tmp)}")
        root = check_schema(path, "hostile")
        check(len(root) == 1 and root[0].get("name") == "e2e_ci_hostile",
              "one testsuite named after the binary")
        cases = junitparser_cases(path)
        want = {"a_passes": "Pass", "b_fails_hostile": "Failure", "c_segfaults": "Error",
                "d_aborts": "Error", "e_hangs": "Error", "f_skips_hostile": "Skipped",
                "g_floods": "Failure", "h_check_fails": "Failure", "i_passes_last": "Pass"}
        check({n: kind(c) for n, c in cases.items()} == want,
              f"outcomes {({n: kind(c) for n, c in cases.items()})}")
        if not cases:
            return
        check(all(c["classname"] == "ci_hostile" and c["time"] >= 0 for c in cases.values()),
              "classname and time of every case")
        check(cases["c_segfaults"]["result"][0][2] == "SIGSEGV" and
              "SIGSEGV" in cases["c_segfaults"]["result"][0][1], "the crash names SIGSEGV")
        check(cases["d_aborts"]["result"][0][2] == "SIGABRT", "the abort names SIGABRT")
        check(cases["e_hangs"]["result"][0][2] == "timeout" and
              "timed out after 2 s" in cases["e_hangs"]["result"][0][1], "the time-out")
        hostile = cases["b_fails_hostile"]
        check(hostile["result"][0][1] == 'expected <a> & ]]> \ufffd \ufffd got # \\ "q"',
              f"the failure's message, escaped and read back: {hostile['result'][0][1]!r}")
        body = hostile["result"][0][3] or ""
        check(body.endswith("ci_hostile.c:18: " + hostile["result"][0][1] + "\n"),
              f"the failure's file:line (bench_fail: the test's line): {body!r}")
        so = hostile["system_out"]
        check("out: <tag> & \"q\" 'a' ]]> \ufffd\ufffd\ufffd[31m bell\ufffd tab\t cr\r\n" in so,
              f"captured output with control characters replaced: {so!r}")
        check("bad utf-8: \ufffd\ufffd \ufffd( \ufffd\ufffd\ufffd end" in so,
              f"invalid UTF-8 replaced: {so!r}")
        check(cases["f_skips_hostile"]["result"][0][1] == "needs <GPU> & ]]> # \ufffd \ufffd",
              f"the skip reason: {cases['f_skips_hostile']['result'][0][1]!r}")
        flood = cases["g_floods"]
        check(len(flood["system_out"]) == 1 << 20 and set(flood["system_out"]) <= {"<", "\n"},
              f"1 MiB of output kept: {len(flood['system_out'])}")
        check("cut at 1 MiB" in (flood["result"][0][3] or ""), "the cut is said")
        check(":53: check failed" in (cases["g_floods"]["result"][0][3] or ""), "check's line")


def case_junit_write_error():
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err = run([SAMPLE, f"--junit={tmp}/no/such/dir/x.xml"])
        check(rc == 2 and err.startswith("error: --junit: cannot write"),
              f"an unwritable --junit is a usage error before anything runs: {rc} {err}")
        check(out == "", "nothing ran")


def tap_points(out):
    return [ln for ln in out.splitlines() if ln.startswith(("ok ", "not ok "))]


def case_tap():
    """TAP 14: the version, the plan, a point per test in suite order whatever -j."""
    orders = []
    for jobs in ("1", "4"):
        for isolate in ([], ["--isolate=worker"]):
            rc, out, err = run([HOSTILE, "--tap", "-j", jobs, "--timeout", "2", *isolate])
            check(rc == 1, f"tap -j {jobs}: exit {rc}")
            lines = out.splitlines()
            check(lines[:2] == ["TAP version 14", "1..9"], f"header and plan: {lines[:2]}")
            pts = tap_points(out)
            orders.append([p.split(" - ", 1)[0] + " - " + p.split(" - ", 1)[1].split(" #")[0]
                           for p in pts])
            check(all(not ln.startswith(("\u2713", " \u2713", " \u2717")) for ln in lines),
                  "no result lines of the human format")
            check(all(ln.startswith(("TAP version", "1..", "ok ", "not ok ", "  ", "#"))
                      for ln in lines), f"every line is TAP: {lines}")
            check(out.encode("utf-8", "strict") is not None and "\x1b" not in out,
                  "no escape sequence")
    check(all(o == orders[0] for o in orders), f"the same order whatever -j: {orders}")
    check(orders[0][:3] == ["ok 1 - ci_hostile.a_passes", "not ok 2 - ci_hostile.b_fails_hostile",
                            "not ok 3 - ci_hostile.c_segfaults"], f"points: {orders[0]}")
    rc, out, err = run([HOSTILE, "--tap", "-i", "skips"])
    check("ok 1 - ci_hostile.f_skips_hostile # SKIP needs <GPU> & ]]> \\# ? \ufffd" in out,
          f"the skip with its reason, '#' escaped: {out!r}")


def prove_available():
    if not shutil.which("prove"):
        skip("prove (perl's TAP::Harness) is not installed")


def case_prove():
    prove_available()
    with tempfile.TemporaryDirectory() as tmp:
        # prove runs a file; --exec with the binary runs it with --tap on each "file"
        script = os.path.join(tmp, "hostile.t")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\nexec '{HOSTILE}' --tap=13 -j 4 --timeout 2 \"$@\"\n")
        os.chmod(script, 0o755)
        rc, out, err = run(["prove", "-v", script], cwd=tmp)
        check(rc != 0, "prove fails a run with failures")
        check("Failed 6/9 subtests" in out and "(less 1 skipped subtest: 2 okay)" in out,
              f"prove counts 9 points, 6 failed, 1 skipped:\n{out}")
        check("YAML" not in err and "Parse errors" not in out,
              f"prove parsed the YAML diagnostics:\n{out}\n{err}")
        check("Failed tests:  2-5, 7-8" in out, f"the failed points:\n{out}")
        # the diagnostics read back by TAP::Parser's YAMLish reader
        perl = ("use TAP::Parser; binmode(STDOUT, ':utf8'); my $p = TAP::Parser->new({exec => ['" + HOSTILE +
                "', '--tap=13', '-i', 'fails_hostile|segfaults']});"
                "while (my $r = $p->next) { if ($r->is_yaml) { my $d = $r->data;"
                " print join('|', $d->{message}, $d->{at}{line}, $d->{signal} // '-',"
                " length($d->{output} // '')), qq{\\n}; } }")
        rc, out, err = run(["perl", "-e", perl])
        got = [ln.split("|") for ln in out.splitlines()]
        check(rc == 0 and len(got) == 2 and
              got[0][:3] == ['expected <a> & ]]> \ufffd \ufffd got # \\ "q"', "18", "-"] and
              int(got[0][3]) > 80 and
              got[1] == ["killed by SIGSEGV: Segmentation fault", "25", "SIGSEGV", "0"],
            f"YAMLish read back: {rc}\n{out!r}\n{err}")
        rc, out, err = run(["prove", script, "::", "-i", "pass"], cwd=tmp)
        check(rc == 0 and "All tests successful." in out, f"prove passes a passing run:\n{out}")


def case_meson_tap():
    """A real `meson test` of a project that registers the hostile binary with protocol: 'tap':
    each test named and counted."""
    if not MESON:
        skip("meson is not on PATH: the TAP-protocol project cannot be set up")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        os.mkdir(src)
        with open(os.path.join(src, "meson.build"), "w") as f:
            f.write("project('tap_consumer', meson_version: '>=1.0')\n"
                    f"hostile = find_program('{HOSTILE}')\n"
                    "test('hostile', hostile, args: ['--tap', '-j', '4', '--timeout', '2'],\n"
                    "  protocol: 'tap')\n")
        rc, out, err = run([MESON, "setup", os.path.join(tmp, "b"), src])
        check(rc == 0, f"meson setup: {rc}\n{out}\n{err}")
        rc, out, err = run([MESON, "test", "-C", os.path.join(tmp, "b"), "-v"])
        check(rc != 0, "meson test fails a run with failures")
        for want in ("ci_hostile.a_passes", "ci_hostile.c_segfaults", "ci_hostile.i_passes_last"):
            check(want in out, f"meson test names {want}:\n{out}")
        for point in ("not ok 3 ci_hostile.c_segfaults", "ok 6 ci_hostile.f_skips_hostile"):
            check(point.split()[-1] in out, f"meson shows {point}:\n{out}")
        with open(os.path.join(tmp, "b", "meson-logs", "testlog.json")) as f:
            log = [json.loads(ln) for ln in f if ln.strip()]
        # the binary exits 1 when a test failed (a failure never exits 0): meson then says ERROR
        check(len(log) == 1 and log[0]["result"] in ("FAIL", "ERROR"), f"testlog: {log}")
        # and the living proof of this project: tap_proof passes with its skip
        rc, out, err = run([TAP_PROOF, "--tap"])
        check(rc == 0 and "ok 3 - tap_proof.skips_with_reason # SKIP" in out, f"proof: {out}")


def case_bench_junit():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.xml")
        rc, out, err = run([CASES_BIN, "--bench", "--bench-min-time=1", f"--junit={path}"])
        check(rc == 1, f"e2e_cases has error rows: exit {rc}\n{err}")
        check_schema(path, "bench")
        cases = junitparser_cases(path)
        kinds = {n: kind(c) for n, c in cases.items()}
        check(kinds.get("cases.skips/dataset:small") == "Skipped" and
              list(kinds.values()).count("Failure") == 2 and len(kinds) == 7,
              f"a case per row: {kinds}")
        skipped = cases.get("cases.skips/dataset:small", {"result": [["", ""]]})
        check(skipped["result"][0][1] == "fixture missing", f"the skip's reason: {skipped}")
        passed = [c for c in cases.values() if kind(c) == "Pass"]
        check(passed and all(float(c["properties"].get("median_ns", "nan")) > 0 and
                             "mad_ns" in c["properties"] for c in passed),
              f"median and MAD as properties: {passed}")


def case_ctest():
    """examples/cmake/CMakeLists.txt: one CTest test per libbench test, and ctest --output-junit
    read back by junitparser."""
    cmake, ctest = shutil.which("cmake"), shutil.which("ctest")
    if not cmake or not ctest:
        skip("cmake or ctest is not installed: the CTest example cannot run")
    rc, out, err = run([cmake, "--version"])
    version = tuple(int(x) for x in out.split()[2].split(".")[:2]) if rc == 0 else (0, 0)
    if version < (3, 21):
        skip(f"cmake {out.split()[2] if rc == 0 else '?'} is older than 3.21 (no --output-junit)")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "cmake")
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err = run([cmake, "-S", src, "-B", tmp, f"-DLIBBENCH_TEST_BINARY={SAMPLE}"])
        check(rc == 0, f"cmake: {rc}\n{out}\n{err}")
        rc, out, err = run([ctest, "--output-junit", "junit.xml"], cwd=tmp)
        check(rc != 0, "ctest fails a run with failures")
        cases = junitparser_cases(os.path.join(tmp, "junit.xml"))
        kinds = {n: kind(c) for n, c in cases.items()}
        check(kinds == {"sample.passes": "Pass", "sample.fails_check": "Failure",
                        "sample.fails_with_message": "Failure", "sample.segfaults": "Failure",
                        "sample.aborts": "Failure", "sample.skipped": "Skipped",
                        "sample.exits_early": "Failure"}, f"a CTest case per test: {kinds}")


# ---- compare and report ----------------------------------------------------------------------

def document(rows):
    return {"schema": 2,
            "meta": {"date": "2026-01-01", "hostname": "h", "os": "linux", "arch": "x86_64",
                     "compiler": "cc", "cpu": "", "minSampleTimeMs": 5, "sampleCount": 32},
            "columns": [], "rows": rows}


def row(name, median, error=""):
    measured = error == "" and median is not None
    return {"name": name, "labels": {},
            "iterations": 1 if measured else None, "samples": 32 if measured else None,
            "medianNs": median, "deviationNs": 0 if measured else None,
            "minNs": median, "maxNs": median, "metrics": {}, "error": error}


HOSTILE_CELL = "a<b>|&`*]]>"


def arm_files(tmp, arm, factor):
    paths = []
    for r in range(8):
        wobble = 1 + 0.002 * ((r * 7 + len(arm)) % 5)
        rows = [row("steady", 100.0 * wobble),
                row("slower", 100.0 * wobble * factor.get("slower", 1.0)),
                row("faster", 100.0 * wobble * factor.get("faster", 1.0)),
                row(HOSTILE_CELL, 50.0 * wobble),
                row("broken", None, "it crashed") if arm == "candidate" else
                row("broken", 80.0 * wobble)]
        p = os.path.join(tmp, f"{arm}{r}.json")
        with open(p, "w") as f:
            json.dump(document(rows), f)
        paths.append(p)
    return paths


def case_compare():
    with tempfile.TemporaryDirectory() as tmp:
        base = arm_files(tmp, "baseline", {})
        cand = arm_files(tmp, "candidate", {"slower": 1.5, "faster": 0.6})
        aa = arm_files(tmp, "aa", {})
        junit = os.path.join(tmp, "compare.xml")
        summary = os.path.join(tmp, "summary.md")
        with open(summary, "w") as f:
            f.write("earlier step\n")
        rc, out, err = run([TOOL, "compare", "--baseline", *base, "--candidate", *cand,
                            "--aa", *aa, f"--junit={junit}", f"--summary={summary}"])
        check(rc == 1 and "verdict: REGRESSION" in out, f"compare: exit {rc}\n{out}\n{err}")
        check_schema(junit, "compare")
        cases = junitparser_cases(junit)
        kinds = {n: kind(c) for n, c in cases.items()}
        check(kinds == {"steady": "Pass", "slower": "Failure", "faster": "Pass",
                        HOSTILE_CELL: "Pass", "broken": "Skipped", "verdict": "Failure"},
              f"cells as cases: {kinds}")
        if "slower" in cases:
            msg = cases["slower"]["result"][0][1]
            check(msg.startswith("CLAIMED regression: +50.") and "95% CI [+" in msg and
                  "A/A floor \u00b1" in msg, f"the regression's delta, CI and floor: {msg}")
            check(float(cases["slower"]["properties"].get("delta", "0")) > 0.49,
                  f"delta property: {cases['slower']['properties']}")
        if "broken" in cases:
            check("UNMEASURED" in cases["broken"]["result"][0][1],
                  f"the skip's reason: {cases['broken']['result']}")
        with open(summary, encoding="utf-8") as f:
            md = f.read()
        print(md)
        check(md.startswith("earlier step\n### libbench compare: \u274c REGRESSION\n"),
              f"appended, verdict first:\n{md}")
        table = [ln for ln in md.splitlines() if ln.startswith("| ")]
        check(len(table) == 6, f"a header and 5 cells: {table}")
        check(len(table) > 2 and "slower" in table[1] and "broken" in table[2],
              f"the regression first, then the unmeasured cell: {table}")
        check(any("a&lt;b&gt;\\|&amp;\\`\\*\\]\\]&gt;" in ln for ln in table),
              f"the hostile name escaped: {table}")
        # an A/A run of the same files: PASS, exit 0, every cell a pass; 40 cells: 30 lines
        many = []
        for arm in ("b", "c", "a"):
            paths = []
            for r in range(6):
                p = os.path.join(tmp, f"many_{arm}{r}.json")
                with open(p, "w") as f:
                    json.dump(document([row(f"cell{i:02d}", 100.0 + i + 0.1 * ((r + i) % 3))
                                        for i in range(40)]), f)
                paths.append(p)
            many.append(paths)
        summary2 = os.path.join(tmp, "summary2.md")
        junit2 = os.path.join(tmp, "pass.xml")
        rc, out, err = run([TOOL, "compare", "--baseline", *many[0], "--candidate", *many[0],
                            "--aa", *many[2], f"--summary={summary2}", f"--junit={junit2}"])
        with open(summary2, encoding="utf-8") as f:
            md2 = f.read()
        check(rc == 0 and "PASS" in md2.splitlines()[0], f"A/A: exit {rc}\n{md2}\n{out}")
        lines2 = [ln for ln in md2.splitlines() if ln.startswith("|")]
        check(len(lines2) == 30 and "and 12 more cells" in md2, f"30 table lines: {md2}")
        check_schema(junit2, "compare pass")
        # an unwritable --junit: an error (2), never 0, never hiding the verdict
        rc, out, err = run([TOOL, "compare", "--baseline", *base, "--candidate", *cand,
                            "--aa", *aa, f"--junit={tmp}/no/dir/x.xml"])
        check(rc == 2 and "error: --junit" in err, f"unwritable --junit: {rc} {err}")


def case_report():
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "store")
        base = arm_files(tmp, "baseline", {})
        cand = arm_files(tmp, "candidate", {"slower": 1.5, "faster": 0.6})
        for i, p in enumerate(base):
            rc, out, err = run([TOOL, "record", "--results", store, "--timestamp",
                                f"2026-01-01T00:{i:02d}:00Z", p])
            check(rc == 0, f"record: {rc} {err}")
        for i, p in enumerate(cand):
            rc, out, err = run([TOOL, "record", "--results", store, "--timestamp",
                                f"2026-01-02T00:{i:02d}:00Z", p])
        junit = os.path.join(tmp, "report.xml")
        summary = os.path.join(tmp, "report.md")
        rc, out, err = run([TOOL, "report", "--results", store, f"--junit={junit}",
                            f"--summary={summary}"])
        check(os.path.exists(junit), f"report --junit wrote nothing: {rc}\n{out}\n{err}")
        if not os.path.exists(junit):
            return
        check_schema(junit, "report")
        cases = junitparser_cases(junit)
        print(json.dumps({n: kind(c) for n, c in cases.items()}))
        with open(summary, encoding="utf-8") as f:
            md = f.read()
        print(md)
        check(md.startswith("### libbench report:"), f"summary: {md}")
        check({n: kind(c) for n, c in cases.items()} ==
              {"broken [local]": "Failure", "slower [local]": "Failure", "steady [local]": "Pass",
               HOSTILE_CELL + " [local]": "Pass", "faster [local]": "Pass"},
              f"rows as cases: {cases}")
        if "slower [local]" in cases:
            msg = cases["slower [local]"]["result"][0][1]
            check(msg.startswith("regression: p50 +50.") and "regressed_since_change" in msg,
                  f"the regression's change and why: {msg}")
        # --junit and --summary gate as --fail-on-regression does: never exit 0 with a failure
        check(rc == 1, f"report with failed rows and --junit: exit {rc}, want 1\n{err}")
        check("Verdict **REGRESSION**: 2 rows failed or regressed." in md, f"summary: {md}")


CASES = {
    "junit": lambda: (case_junit(False), case_junit_write_error()),
    "junit_worker": lambda: case_junit(True),
    "tap": case_tap,
    "prove": case_prove,
    "meson_tap": case_meson_tap,
    "bench_junit": case_bench_junit,
    "ctest": case_ctest,
    "compare": case_compare,
    "report": case_report,
}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    if failures:
        for f in failures:
            print("FAIL:", f)
        sys.exit(1)
    print("ok")
