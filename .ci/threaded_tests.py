#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# threaded_tests.py: the tests .ci/run runs under ThreadSanitizer, read from a built (non-TSan)
# build directory, one name a line. A unit test whose program calls pthread_create (its own code,
# or the code it tests: the comparison engine of lib/stats/ starts threads), or whose own code
# registers fork handlers (pthread_atfork, as the runner and its workers do); and the end-to-end
# tests of `libbench compare` (the tool runs the same threaded engine) and of a benchmark body
# that starts a thread (e2e/isolate). Names, not paths: the tests may move between folders.
# usage: threaded_tests.py BUILDDIR
import json
import os
import re
import subprocess
import sys

THREADS = ("pthread_create", "thrd_create")
FORK_HANDLERS = ("pthread_atfork",)
E2E = re.compile(r"^e2e/(compare_\w+|isolate)$")


def undefined(paths):
    """The undefined symbols of these files (versions stripped: pthread_create@GLIBC_2.34)."""
    if not paths:
        return set()
    p = subprocess.run(["nm", "--undefined-only", "-P"] + paths, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    return {line.split()[0].split("@")[0] for line in p.stdout.splitlines()
            if line.strip() and not line.endswith(":")}


def main(build):
    tests = json.loads(subprocess.run(["meson", "introspect", build, "--tests"],
                                      stdout=subprocess.PIPE, check=True).stdout)
    for t in sorted(tests, key=lambda t: t["name"]):
        name, exe = t["name"], t["cmd"][0]
        if E2E.match(name):
            print(name)
            continue
        if not name.startswith("unit/") or not os.path.isfile(exe):
            continue
        own = os.path.join(os.path.dirname(exe), os.path.basename(exe) + ".p")
        objects = [os.path.join(own, f) for f in sorted(os.listdir(own)) if f.endswith(".o")] \
            if os.path.isdir(own) else []
        if undefined([exe]) & set(THREADS) or undefined(objects) & set(THREADS + FORK_HANDLERS):
            print(name)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: threaded_tests.py BUILDDIR")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
