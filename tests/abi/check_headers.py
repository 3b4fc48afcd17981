#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_headers.py: every public header (each .h under bench/ of the include directories)
# compiles on its own as C11 and as C++ with -Wall -Wextra -Wpedantic -Werror, and the
# shim's macros and the catalog API, used as a program uses them, compile cleanly as C11
# and as C++20.
# usage: check_headers.py --cc CC... --cxx CXX... --inc DIR... --header H... --usage FILE
import os
import subprocess
import sys
import tempfile


def parse(argv):
    groups, key = {}, None
    for a in argv:
        if a.startswith("--"):
            key = a[2:]
            groups.setdefault(key, [])
        else:
            groups[key].append(a)
    return groups


def compile_one(cmd, source_text, suffix, label):
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(source_text)
        path = f.name
    try:
        p = subprocess.run(cmd + ["-fsyntax-only", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    finally:
        os.unlink(path)
    if p.returncode != 0:
        print(f"FAIL: {label}\n{p.stdout.decode()}")
        return False
    print(f"ok: {label}")
    return True


def main():
    g = parse(sys.argv[1:])
    incs = [f"-I{d}" for d in g["inc"]]
    warn = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
    c = g["cc"] + ["-std=c11"] + warn + incs
    cxx = g.get("cxx", [])
    ok = True
    # every header installed under bench/ is checked: one left out of the list fails here
    given = {os.path.basename(h) for h in g["header"]}
    for d in g["inc"]:
        bench_dir = os.path.join(d, "bench")
        if os.path.isdir(bench_dir):
            for name in sorted(os.listdir(bench_dir)):
                if name.endswith(".h") and name not in given:
                    print(f"FAIL: {os.path.join(bench_dir, name)} is not in the header list")
                    ok = False
    for h in g["header"]:
        # the declaration keeps a macro-only header from being an empty translation unit
        text = f"#include <bench/{os.path.basename(h)}>\ntypedef int bench_check_tu;\n"
        ok &= compile_one(c, text, ".c", f"{h} as C11")
        if cxx:
            ok &= compile_one(cxx + ["-std=c++11"] + warn + incs, text, ".cpp", f"{h} as C++11")
    usage = open(g["usage"][0]).read()
    ok &= compile_one(c + ["-O2", "-DNDEBUG"], usage, ".c", "shim usage as C11 (-O2)")
    ok &= compile_one(c + ["-O0"], usage, ".c", "shim usage as C11 (-O0)")
    if cxx:
        ok &= compile_one(cxx + ["-std=c++20"] + warn + incs, usage, ".cpp", "shim usage as C++20")
    else:
        print("note: no C++ compiler; C++ checks not run")
    sys.exit(0 if ok else 1)


main()
