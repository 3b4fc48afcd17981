#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_symbols.py: the ABI check. The dynamic symbols the built libbench.so exports must
# equal the version script's global list and the BENCH_API declarations of the public
# headers, and every one must carry the bench_ prefix.
import re
import subprocess
import sys


def exported(so):
    out = subprocess.run(["nm", "-D", "--defined-only", so], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] != "A":  # 'A' = the version node itself
            names.add(parts[2].split("@")[0])
    return names


def version_script(path):
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    names = set()
    for block in re.findall(r"global:(.*?)(?:local:|\})", text, flags=re.S):
        names.update(n.strip() for n in block.split(";") if n.strip())
    return names


def declared(headers):
    names = set()
    for h in headers:
        text = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
        text = re.sub(r"#define[^\n]*(\\\n[^\n]*)*", "", text)
        for decl in re.findall(r"BENCH_API\b[^;{]*;", text):
            # the first lower-case identifier followed by '(' (macros are upper case)
            m = re.search(r"\b([a-z_][a-z0-9_]*)\s*\(", decl.replace("\n", " "))
            if m:
                names.add(m.group(1))
    return names


def main():
    so, script, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    sets = {"exported by the .so": exported(so), "in the version script": version_script(script),
            "declared BENCH_API": declared(headers)}
    ok = True
    reference = sets["declared BENCH_API"]
    if not reference:
        print("FAIL: no BENCH_API declaration found")
        ok = False
    for label, names in sets.items():
        for extra in sorted(names - reference):
            print(f"FAIL: {extra} is {label} but not declared BENCH_API")
            ok = False
        for missing in sorted(reference - names):
            print(f"FAIL: {missing} is declared BENCH_API but not {label}")
            ok = False
        for bad in sorted(n for n in names if not n.startswith("bench_")):
            print(f"FAIL: {bad} ({label}) lacks the bench_ prefix")
            ok = False
    print(f"{len(reference)} symbols: " + " ".join(sorted(reference)))
    sys.exit(0 if ok else 1)


main()
