#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_examples.py: re-runs the commands a doc shows (a fenced block whose first line is
# "$ ./build/<program> [args]") and compares their output with the doc's, so that an example can
# only say what a real run prints. Usage: check_examples.py SOURCE_ROOT BUILD_ROOT DOC.md...
#
# How a block is compared:
# - Volatile numbers are masked on both sides (every run of digits reads <N>).
# - A line "..." in the doc stands for any lines (none or more) of the real output.
# - The lines that depend on the host (a metric measurable or not, a capability present or
#   absent, and the reason) are compared exactly only when this host answers as the doc's did;
#   otherwise each line is reduced to what every host prints the same (the metric's name, header
#   and source; the capability's source and name) and those are compared, in order. When even
#   that differs (another build, e.g. the portable one, lists a metric under "not measurable" and
#   absences the doc's host did not have), the metrics the doc names (name, header, source) must
#   be the metrics the run names, in whichever section, and the capability lines, which only
#   say what this host has, are left out. A metric the doc leaves out (or adds) fails either way.
# Exit 0 when every block matches, 1 with a diff when one does not, 77 when no command could run
# (a build without examples).
import difflib
import os
import re
import shlex
import subprocess
import sys

FENCE = "```"
HOST_WORDS = re.compile(r"(present|absent|✓|✗|—|default|on request)")


def blocks(text):
    """The fenced blocks of a Markdown text whose first line is a command of ./build/."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith(FENCE):
            j = i + 1
            while j < len(lines) and not lines[j].startswith(FENCE):
                j += 1
            body = lines[i + 1:j]
            # a block may open with setup commands ("$ meson setup ..."): the last "$" line before
            # the output is the command whose output follows
            k = 0
            while k + 1 < len(body) and body[k + 1].startswith("$ "):
                k += 1
            if body and body[k].startswith("$ ./build/") and k + 1 < len(body):
                yield i + 1 + k + 1, body[k][2:], body[k + 1:]
            i = j + 1
        else:
            i += 1


def mask(line):
    return re.sub(r"\d+", "<N>", line.rstrip())


def host_key(line):
    """What every host prints the same of a line: a metric's name, header and source, a
    capability's source and name (the verdict and the reason left out); the rest as it is."""
    head = line.split(" — ")[0].replace("on request", "")
    kept = [w for w in head.split() if w not in ("✓", "✗", "present", "absent", "default")]
    indent = line[:len(line) - len(line.lstrip())]
    return indent + " ".join(kept)


def matches(doc, real, key):
    """Do the doc's lines, "..." standing for any run of lines, match the real ones?"""
    doc = [key(mask(d)) if d != "..." else d for d in doc]
    real = [key(mask(r)) for r in real]

    def walk(i, j):
        if i == len(doc):
            return j == len(real)
        if doc[i] == "...":
            return any(walk(i + 1, k) for k in range(j, len(real) + 1))
        return j < len(real) and doc[i] == real[j] and walk(i + 1, j + 1)

    return walk(0, 0)


def metric_names(lines):
    """The metric lines (name, header, source: three words once the verdicts are left out) of an
    output, whatever section lists them."""
    keyed = [host_key(mask(x)) for x in lines if x != "..."]
    return sorted(k for k in keyed if len(k.split()) == 3 and not k.rstrip().endswith(":"))


def same_metrics(doc, real):
    """Another build's answer: the doc's metrics are the run's (a doc with "..." may show fewer)."""
    d, r = metric_names(doc), metric_names(real)
    if not d:
        return False
    return set(d) <= set(r) if "..." in doc else d == r


def same_host(doc, real):
    """Does this host answer as the doc's did: the same verdict on every line the doc shows?"""
    verdicts = {host_key(mask(r)): mask(r) for r in real if HOST_WORDS.search(r)}
    return all(verdicts.get(host_key(mask(d))) == mask(d) for d in doc
               if d != "..." and HOST_WORDS.search(d))


def main():
    if len(sys.argv) < 4:
        print("usage: check_examples.py SOURCE_ROOT BUILD_ROOT DOC.md...", file=sys.stderr)
        return 2
    source, build = sys.argv[1], sys.argv[2]
    failed = ran = 0
    for doc_path in sys.argv[3:]:
        path = os.path.join(source, doc_path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line_no, command, shown in blocks(text):
            words = shlex.split(command)
            program = os.path.join(build, words[0][len("./build/"):])
            where = f"{doc_path}:{line_no}: $ {command}"
            if not os.access(program, os.X_OK):
                print(f"SKIP {where}: {program} is not built")
                continue
            p = subprocess.run([program] + words[1:], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, encoding="utf-8", errors="replace",
                               cwd=source)
            ran += 1
            real = p.stdout.rstrip("\n").split("\n")
            exact = same_host(shown, real)
            ok = matches(shown, real, lambda s: s) if exact else matches(shown, real, host_key)
            if ok:
                print(f"ok {where} ({'exact' if exact else 'another host: names and order'})")
                continue
            if not exact and same_metrics(shown, real):
                print(f"ok {where} (another build: the same metrics, in other sections)")
                continue
            failed += 1
            print(f"FAIL {where}: the doc's output is not what the command prints "
                  f"({'exact' if exact else 'names and order'}); masked diff, doc first:")
            key = (lambda s: s) if exact else host_key
            sys.stdout.writelines(difflib.unified_diff(
                [key(mask(s)) + "\n" for s in shown], [key(mask(s)) + "\n" for s in real],
                "doc", "run"))
    if ran == 0:
        print("SKIP: no documented command could run (a build without examples?)")
        return 77
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
