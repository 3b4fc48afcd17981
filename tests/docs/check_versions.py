#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_versions.py: every place in docs/ and README.md that names the version being documented
# (not a past release) names meson.build's project version. Exit 1 with one line per mismatch.
# usage: check_versions.py SOURCE_DIR VERSION
"""The mentions of the current version, by their form (a past release is named otherwise:
"since 0.2.0", "in 0.1.0", "0.1.0 → 0.2.0", "in libbench 0.1.0", "libbench 0.2.0 or later", and
is never checked):

- `libbench X.Y.Z`: what `--version` prints, "This page describes libbench X.Y.Z", the
  `library_version` of an export;
- `found: YES X.Y.Z`: Meson's line when it finds the installed libbench;
- `libbench.so.X.Y.Z`: the file the build makes (a profile's module column);
- `"version": "X.Y.Z"`: the version field of a JSON example;
- `BENCH_VERSION_STRING` ... `"X.Y.Z"`, `| Macro | X.Y.Z value |`, and `0xMMmmpp` for X.Y.Z
  (whose hex must spell the same version): the version macros of <bench/version.h>.
"""
import os
import re
import sys

V = r"(?P<v>\d+\.\d+\.\d+)"
RULES = [
    # "in libbench 0.1.0", "since libbench 0.2.0", "libbench 0.2.0 or later" name a past release
    ("libbench X.Y.Z", re.compile(r"(?<!\bin )(?<!\bsince )(?<!\buntil )(?<!\bbefore )"
                                  r"\blibbench " + V + r"\b(?! or (later|newer|earlier))")),
    ("found: YES X.Y.Z", re.compile(r"\bfound: YES " + V + r"\b")),
    ("libbench.so.X.Y.Z", re.compile(r"\blibbench\.so\." + V + r"\b")),
    ('"version": "X.Y.Z"', re.compile(r'"version": "' + V + '"')),
    ("BENCH_VERSION_STRING", re.compile(r"BENCH_VERSION_STRING\b.*\"" + V + '"')),
    ("| Macro | X.Y.Z value |", re.compile(r"\|\s*Macro\s*\|\s*" + V + r" value\s*\|")),
    ("0xMMmmpp for X.Y.Z", re.compile(r"`(?P<hex>0x[0-9A-Fa-f]{6})` for " + V + r"\b")),
]

# Each rule on a literal: it must find the version it names (a rule that stops matching would
# pass every document silently).
SAMPLES = [
    "print `libbench 9.8.7` on stdout",
    "Run-time dependency libbench found: YES 9.8.7",
    "│ 0.3% │ 1 │ bench__count_bracket_end │ libbench.so.9.8.7 │",
    '  "version": "9.8.7",',
    '| `BENCH_VERSION_STRING` | `"9.8.7"` |',
    "| Macro | 9.8.7 value |",
    "i.e. `0xMMmmpp` (`0x090807` for 9.8.7)",
]


# ...and what names a past release: no rule may match it.
PAST = [
    "its `sizeof` in libbench 0.1.0",
    "a program that uses them needs libbench 0.2.0 or later",
    "the values since 0.1.0; 0.2.0 split `lib/` into layers",
    "| Kernel | 0.1.0 ns (ratio) | 0.2.0 ns (ratio) |",
]


def mentions(text):
    """(line number, rule, version, hex or None) of every mention in text."""
    for number, line in enumerate(text.splitlines(), 1):
        for name, rule in RULES:
            for m in rule.finditer(line):
                yield number, name, m.group("v"), m.groupdict().get("hex")


def hex_of(version):
    major, minor, patch = (int(x) for x in version.split("."))
    return (major << 16) | (minor << 8) | patch


def self_test():
    for (name, _), sample in zip(RULES, SAMPLES):
        found = [m for m in mentions(sample) if m[1] == name]
        if not found or found[0][2] != "9.8.7":
            sys.exit("check_versions.py: the rule '%s' does not match its sample %r" % (name, sample))
    for sample in PAST:
        for m in mentions(sample):
            sys.exit("check_versions.py: the rule '%s' matches a past release: %r" % (m[1], sample))


def documents(src):
    yield os.path.join(src, "README.md")
    for root, dirs, files in os.walk(os.path.join(src, "docs")):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".md", ".sh", ".txt")):
                yield os.path.join(root, f)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_versions.py SOURCE_DIR VERSION")
    src, version = sys.argv[1], sys.argv[2]
    self_test()
    wrong = checked = 0
    for path in documents(src):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(path, src)
        for number, name, found, hexv in mentions(text):
            checked += 1
            if found != version:
                wrong += 1
                print("%s:%d: names version %s (%s), but meson.build's is %s"
                      % (rel, number, found, name, version))
            elif hexv is not None and int(hexv, 16) != hex_of(version):
                wrong += 1
                print("%s:%d: %s is not version %s (0x%06x)" % (rel, number, hexv, version,
                                                               hex_of(version)))
    if checked == 0:
        print("error: no mention of the version found in docs/ or README.md")
        return 1
    print("%d mentions of the current version checked against %s: %d wrong"
          % (checked, version, wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
