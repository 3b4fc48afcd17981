#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fuzz_targets.py: the libFuzzer targets of a fuzzing build (.ci/run's fuzz stage), one a line:
#   NAME <tab> PROGRAM <tab> SEED <tab> SEED...
# A target is every executable target named fuzz_* (not *_replay) under tests/fuzz/. Its seeds
# are the files and folders its seed replay test hands it (`test(..., args: ['-runs=0', SEEDS])`
# in tests/fuzz/meson.build); a target no test replays takes tests/fuzz/corpus-<name>/,
# tests/fuzz/corpus/<name>/ or tests/fuzz/corpus/, the first that exists. Nothing when the build
# has no target (the option or the targets do not exist yet).
# usage: fuzz_targets.py BUILDDIR SRCROOT
import json
import os
import subprocess
import sys


def introspect(build, what):
    return json.loads(subprocess.run(["meson", "introspect", build, what],
                                     stdout=subprocess.PIPE, check=True).stdout)


def main(build, src):
    tests = introspect(build, "--tests")
    for t in sorted(introspect(build, "--targets"), key=lambda t: t["name"]):
        name = t["name"]
        if t["type"] != "executable" or not name.startswith("fuzz_") or name.endswith("_replay"):
            continue
        program = t["filename"][0]
        if os.path.relpath(program, os.path.abspath(build)).split(os.sep)[:2] != ["tests", "fuzz"]:
            continue
        seeds = []
        for test in tests:
            if test["cmd"] and os.path.abspath(test["cmd"][0]) == os.path.abspath(program):
                seeds += [a for a in test["cmd"][1:] if not a.startswith("-") and os.path.exists(a)]
        short = name[len("fuzz_"):]
        if not seeds:
            for cand in ("corpus-" + short, os.path.join("corpus", short), "corpus"):
                path = os.path.join(src, "tests", "fuzz", cand)
                if os.path.isdir(path):
                    seeds = [path]
                    break
        print("\t".join([name, program] + sorted(set(seeds))))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: fuzz_targets.py BUILDDIR SRCROOT")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
