#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_tool_calls.py: the calls between the files of tools/, read from the objects of the tool's
# static libraries (nm): who defines each symbol, and who uses it undefined. A file of a command
# folder (tools/compare/, run/, results/, export/) calls only files of its own folder and of
# tools/common/; a file of tools/common/ calls only tools/common/; and no two files of one folder
# call each other, directly or through others of that folder (no circle). One line per violation
# naming caller, callee and a symbol; exit 1 when there is any. The includes are check_layers.py's.
#
# usage: check_tool_calls.py LIB.a...      check the libraries (libtool_<folder>.a)
#        check_tool_calls.py --self-test   the same rules on a planted call graph: must fail,
#                                          naming each planted violation
# Python 3 standard library and binutils' nm only.
import os
import re
import subprocess
import sys

COMMON = "common"
DEFINED = set("TDBRVWG")  # text, data, bss, read-only, weak, small data


def folder_of(archive):
    """libtool_compare.a -> compare."""
    m = re.match(r"lib(?:tool_)?([a-z]+)\.a$", os.path.basename(archive))
    return m.group(1) if m else None


def read_archive(archive):
    """{file: (defined set, undefined set)}, file as "tools/<folder>/<source>"."""
    folder = folder_of(archive)
    out = subprocess.run(["nm", "-A", "-P", archive], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, check=True).stdout
    files = {}
    for line in out.splitlines():
        # POSIX format: "lib.a[member.o]: name type [value size]" (a thin archive names its
        # members by path)
        m = re.match(r"^.*\[(.+)\]: (\S+) (\S)", line)
        if not m:
            continue
        member, name, kind = m.groups()
        src = "tools/%s/%s" % (folder, re.sub(r"\.o(bj)?$", "", os.path.basename(member)))
        d, u = files.setdefault(src, (set(), set()))
        if kind == "U":
            u.add(name)
        elif kind in DEFINED:
            d.add(name)
    return files


def edges_of(files):
    """{(caller, callee): sorted symbols} between different files of the table."""
    where = {}
    for f, (defined, _) in files.items():
        for s in defined:
            where.setdefault(s, f)
    edges = {}
    for f, (_, undefined) in files.items():
        for s in undefined:
            g = where.get(s)
            if g and g != f:
                edges.setdefault((f, g), []).append(s)
    return {k: sorted(v) for k, v in edges.items()}


def folder(path):
    return path.split("/")[1]


def circles(nodes, edges):
    """The strongly connected components of more than one file (Tarjan), each sorted."""
    succ = {n: sorted(g for (f, g) in edges if f == n and g in nodes) for n in nodes}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(n):
        index[n] = low[n] = len(index)
        stack.append(n)
        on.add(n)
        for m in succ[n]:
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in on:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            comp = []
            while True:
                m = stack.pop()
                on.discard(m)
                comp.append(m)
                if m == n:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return sorted(out)


def check(files):
    """Every violation, one line each."""
    edges = edges_of(files)
    bad = []
    for (f, g), syms in sorted(edges.items()):
        ff, gf = folder(f), folder(g)
        if ff == gf or gf == COMMON:
            continue
        if ff == COMMON:
            rule = "tools/common/ calls only tools/common/ (never a command)"
        else:
            rule = "a command calls only its own folder and tools/common/"
        bad.append("%s calls %s (%s): %s" % (f, g, syms[0], rule))
    by_folder = {}
    for f in files:
        by_folder.setdefault(folder(f), set()).add(f)
    for fl in sorted(by_folder):
        inner = {k: v for k, v in edges.items() if folder(k[0]) == fl and folder(k[1]) == fl}
        for comp in circles(by_folder[fl], inner):
            steps = ["%s -> %s (%s)" % (a, b, inner[(a, b)][0])
                     for (a, b) in sorted(inner) if a in comp and b in comp]
            bad.append("a circle between the files of tools/%s/: %s" % (fl, "; ".join(steps)))
    return bad


def run(archives):
    files = {}
    for a in archives:
        if folder_of(a) is None:
            print("check_tool_calls.py: %s is not a libtool_<folder>.a" % a)
            return 2
        files.update(read_archive(a))
    bad = check(files)
    for b in bad:
        print(b)
    if bad:
        print("%d call violation(s) in tools/" % len(bad))
        return 1
    edges = edges_of(files)
    print("tool calls: ok (%d files, %d calls between files, %d between folders, all to "
          "tools/common/)" % (len(files), len(edges),
                              sum(1 for f, g in edges if folder(f) != folder(g))))
    return 0


def self_test():
    """A planted call graph: a command calling another command, common calling up, a circle of
    two files and one of three; the allowed calls stay silent."""
    files = {
        "tools/common/args.c": ({"tool_args"}, set()),
        "tools/common/spawn.c": ({"tool_spawn"}, {"tool_args", "run_stats"}),
        "tools/run/cmd.c": ({"run_main"}, {"tool_spawn", "run_stats", "compare_doc_free"}),
        "tools/run/stats.c": ({"run_stats"}, {"tool_args"}),
        "tools/compare/doc.c": ({"compare_doc_free"}, set()),
        "tools/compare/cmd.c": ({"compare_main"}, {"compare_runs", "compare_doc_free"}),
        "tools/compare/runs.c": ({"compare_runs"}, {"compare_main", "tool_spawn"}),
        "tools/export/a.c": ({"export_a"}, {"export_b"}),
        "tools/export/b.c": ({"export_b"}, {"export_c"}),
        "tools/export/c.c": ({"export_c"}, {"export_a"}),
    }
    want = [
        "tools/common/spawn.c calls tools/run/stats.c (run_stats): tools/common/",
        "tools/run/cmd.c calls tools/compare/doc.c (compare_doc_free): a command",
        "a circle between the files of tools/compare/: tools/compare/cmd.c -> "
        "tools/compare/runs.c (compare_runs); tools/compare/runs.c -> tools/compare/cmd.c",
        "a circle between the files of tools/export/: tools/export/a.c -> tools/export/b.c",
    ]
    got = check(files)
    for g in got:
        print(g)
    problems = []
    for w in want:
        hits = [g for g in got if g.startswith(w)]
        if len(hits) != 1:
            problems.append("expected one line starting %r, saw %d" % (w, len(hits)))
    if len(got) != len(want):
        problems.append("%d lines, expected %d" % (len(got), len(want)))
    if problems:
        print("self-test FAILED:\n  " + "\n  ".join(problems))
        return 1
    print("self-test: ok (%d planted violations named)" % len(want))
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) >= 2 and not argv[1].startswith("-"):
        return run(argv[1:])
    print("usage: check_tool_calls.py LIB.a... | --self-test")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
