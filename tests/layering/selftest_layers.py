# SPDX-License-Identifier: MIT
# selftest_layers.py: check_layers.py --self-test. Copies the tree (lib/, tools/, include/, shim/,
# design.md) and, given the build directory, its compile_commands.json pointed at the copy; runs
# the check on the copy; plants one violation of every rule (wrong includes, literals, words, long
# files, a public header's include, a stray file, a changed design.md table, and, with the build,
# planted files compiled with the build's own compiler and flags that call up, call another
# command, call lib/stats/ and form circles); runs the check again. It passes only when the
# second run adds exactly one line per planted violation, naming its rules, and nothing else. The
# plants are chosen from the layer table, not from file names, so the test holds on any layout
# the table describes (a violation the unchanged copy already shows stays out of the comparison).
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import check_layers as cl

HEAD = "/* planted by check_layers.py --self-test */\n"


def first(tree, folder, suffix):
    """The first file (sorted) of a folder with that suffix, relative to the folder."""
    d = os.path.join(tree, folder)
    names = sorted(n for n in os.listdir(d) if n.endswith(suffix)) if os.path.isdir(d) else []
    if not names:
        raise SystemExit("self-test: no %s file in %s/ to plant with" % (suffix, folder))
    return names[0]


class Plants:
    def __init__(self, tmp, build, entries, template):
        self.tmp, self.build, self.entries, self.expected = tmp, build, entries, []
        self.template = template  # a compile of lib/util/, as the build has it

    def write(self, rel, text):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return rel

    def append(self, rel, text):
        """Append a line to a file of the copy; its line number."""
        path = os.path.join(self.tmp, rel)
        with open(path, encoding="utf-8") as f:
            body = f.read()
        if not body.endswith("\n"):
            body += "\n"
        with open(path, "w", encoding="utf-8") as f:
            f.write(body + text)
        return body.count("\n") + 1

    def expect(self, prefix, rules):
        self.expected.append((prefix, rules))

    def compile(self, rel, text):
        """Write a planted C file and compile it the way the build compiles lib/util/: its object
        joins the copy's compile_commands.json."""
        self.write(rel, text)
        e = self.template
        args, out, skip = [], os.path.join(self.tmp, "objects", rel + ".o"), False
        for a in cl.entry_args(e):
            if skip:
                skip = False
            elif a in ("-MD", "-MMD"):
                continue
            elif a in ("-MQ", "-MF", "-MT", "-o"):
                skip = True
            elif a == e["file"]:
                continue
            else:
                args.append(a)
        src = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        args += ["-o", out, "-c", src]
        p = subprocess.run(args, cwd=e["directory"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if p.returncode != 0:
            raise SystemExit("self-test: could not compile the planted %s:\n%s" % (rel, p.stdout))
        self.entries.append({"directory": e["directory"], "file": src, "output": out,
                             "arguments": args})

    def save(self):
        with open(os.path.join(self.build, "compile_commands.json"), "w", encoding="utf-8") as f:
            json.dump(self.entries, f)


def two_files_calling(plants, rel_a, rel_b, tag):
    """Two planted files, each calling the other."""
    fa, fb = "bench__selftest_%s_a" % tag, "bench__selftest_%s_b" % tag
    for rel, mine, other in ((rel_a, fa, fb), (rel_b, fb, fa)):
        plants.compile(rel, HEAD + "void %s(void);\nvoid %s(void);\nvoid %s(void)\n{\n    %s();\n}\n"
                       % (mine, other, mine, other))
    return fa, fb


def calling(plants, rel, symbol):
    plants.compile(rel, HEAD + "void %s(void);\nvoid bench__selftest_caller_%d(void);\n"
                   "void bench__selftest_caller_%d(void)\n{\n    %s();\n}\n"
                   % (symbol, len(plants.entries), len(plants.entries), symbol))


def plant_text(p, tmp):
    """The include, literal, word, size and table plants."""
    rows = {f for f, _, _ in cl.LAYERS}
    report_h, suite_h = first(tmp, "lib/report", ".h"), first(tmp, "lib/suite", ".h")
    catalog_h, stats_h = first(tmp, "lib/catalog", ".h"), first(tmp, "lib/stats", ".h")
    model_h = first(tmp, "lib/model", ".h")
    p.write("lib/sources/selftest_include.c", HEAD + '#include "../report/%s"\n' % report_h)
    p.expect('lib/sources/selftest_include.c:2: #include "../report/%s"' % report_h, ["layers"])
    p.write("lib/platform/selftest_a.c", HEAD + 'static const char *const p = "/proc/x";\n')
    p.expect('lib/platform/selftest_a.c:2: "/proc/x"', ["a"])
    # a counting source reaching lib/suite/ through a header of its folder
    counting = cl.counting_sources(cl.Tree(tmp))[0][0]
    p.write("lib/sources/selftest_b.h", HEAD + '#include "../suite/%s"\n' % suite_h)
    p.expect('lib/sources/selftest_b.h:2: #include "../suite/%s"' % suite_h, ["layers"])
    n = p.append(counting, '#include "selftest_b.h"\n')
    p.expect('%s:%d: #include "selftest_b.h"' % (counting, n), ["b"])
    p.write("lib/report/selftest_c.c", HEAD + '#include "../catalog/%s"\n' % catalog_h)
    p.expect('lib/report/selftest_c.c:2: #include "../catalog/%s"' % catalog_h, ["layers", "c"])
    p.write("lib/model/selftest_d.c", HEAD + '#include "../stats/%s"\n' % stats_h)
    p.expect('lib/model/selftest_d.c:2: #include "../stats/%s"' % stats_h, ["layers", "d"])
    # the tool: a command including lib/model/ (not its row), and another command's header
    p.write("tools/compare/selftest_e.h", HEAD)
    p.write("tools/compare/selftest_e.c", HEAD + '#include "model/%s"\n' % model_h)
    p.expect('tools/compare/selftest_e.c:2: #include "model/%s"' % model_h, ["e"])
    p.write("tools/run/selftest_e.c", HEAD + '#include "../compare/selftest_e.h"\n')
    p.expect('tools/run/selftest_e.c:2: #include "../compare/selftest_e.h"', ["e"])
    p.write("lib/util/selftest_f.c", HEAD + '#include "no_such_header.h"\n'
            '#include "../../tools/compare/selftest_e.h"\n')
    p.expect('lib/util/selftest_f.c:2: #include "no_such_header.h"', ["f"])
    p.expect('lib/util/selftest_f.c:3: #include "../../tools/compare/selftest_e.h"', ["f"])
    # files in no row: right in lib/ and tools/, and in a folder of a folder split in rows
    for rel in ["lib/flat.c", "tools/flat.c"] + [
            f + "/selftest_stray/stray.c" for f in sorted(rows)
            if any(g.startswith(f + "/") for g in rows)][:1]:
        p.write(rel, HEAD)
        p.expect(rel + ": [layers] ", ["layers"])
    # the words of rules h-j: in a comment and a string they do not count
    p.write("lib/model/selftest_h.c", HEAD + 'static const char *const w = "clock_gettime";\n'
            "static void f(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); }\n")
    p.expect("lib/model/selftest_h.c:3: clock_gettime: [h]", ["h"])
    p.write("tools/common/selftest_i.c", HEAD + "/* malloc, strdup */\n"
            'static const char *const w = "calloc";\nchar *p = malloc(1);\n'
            "char *q = bench__xmalloc(1);\n")
    p.expect("tools/common/selftest_i.c:4: malloc: [i]", ["i"])
    p.write("tools/run/selftest_j.c", HEAD + "pid_t p = fork();\n")
    p.expect("tools/run/selftest_j.c:2: fork: [j]", ["j"])
    p.write("lib/util/selftest_j.c", HEAD + "pid_t p = fork(); /* lib/ may fork */\n")
    # sizes: over 800 lines; over 600 without a reason; over 600 with one (no line)
    p.write("lib/util/selftest_801.c", HEAD + "\n" * 800)
    p.expect("lib/util/selftest_801.c: 801 lines: [k]", ["k"])
    p.write("lib/util/selftest_650.c", HEAD + "\n" * 649)
    p.expect("lib/util/selftest_650.c: 650 lines: [k]", ["k"])
    p.write("lib/util/selftest_650_why.c", HEAD + "/* long because it is planted */\n" + "\n" * 648)
    p.write("include/bench/selftest.h", HEAD + "#include <stdio.h>\n#include <stdint.h>\n"
            "#include <bench/export.h>\n")
    p.expect("include/bench/selftest.h:2: #include <stdio.h>: [l]", ["l"])
    # the design page's copy of the table, one row changed
    page = os.path.join(tmp, "docs/explanation/design.md")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    row = cl.table_markdown().split("\n")[2]
    with open(page, "w", encoding="utf-8") as f:
        f.write(text.replace(row, row.replace("| %d |" % cl.LAYERS[0][1],
                                              "| %d |" % (cl.LAYERS[0][1] + 1), 1)))
    p.expect("docs/explanation/design.md: the layer table: [doc] ", ["doc"])


def plant_calls(p, tmp):
    """The call plants: compiled files whose objects call up, across, and in circles."""
    syms, _ = cl.read_objects(cl.Tree(tmp), p.build)
    ranks = {f: r for f, r, _ in cl.LAYERS}

    def defined_in(pick):
        for src in sorted(syms, key=lambda s: (-ranks.get(cl.layer_of(s), -1), s)):
            if pick(cl.layer_of(src)) and sorted(syms[src][0]):
                return src, sorted(syms[src][0])[0]
        raise SystemExit("self-test: the build defines no symbol to plant a call to")

    top, sym = defined_in(lambda l: l and l.startswith("lib/") and l != "lib/stats")
    calling(p, "lib/util/selftest_up.c", sym)
    p.expect("lib/util/selftest_up.c: calls %s (%s): " % (sym, top), ["layers"])
    cat, csym = defined_in(lambda l: l == "lib/catalog")
    calling(p, "lib/report/selftest_calls.c", csym)
    p.expect("lib/report/selftest_calls.c: calls %s (%s): " % (csym, cat), ["layers", "c"])
    # a circle across folders (one of its calls goes up), one in lib/stats/, one in a command
    fa, _ = two_files_calling(p, "lib/model/selftest_circle.c", "lib/util/selftest_circle.c", "mu")
    p.expect("lib/util/selftest_circle.c: calls %s (lib/model/selftest_circle.c): " % fa,
             ["layers"])
    p.expect("lib/model/selftest_circle.c: circle of 2 files across lib/model/, lib/util/ ",
             ["g"])
    sa, _ = two_files_calling(p, "lib/stats/selftest_circle_a.c", "lib/stats/selftest_circle_b.c",
                              "stats")
    p.expect("lib/stats/selftest_circle_a.c: circle of 2 files inside lib/stats/ ", ["g"])
    ta, _ = two_files_calling(p, "tools/compare/selftest_circle_a.c",
                              "tools/compare/selftest_circle_b.c", "compare")
    p.expect("tools/compare/selftest_circle_a.c: circle of 2 files inside tools/compare/ ", ["g"])
    # a command calling another command, the library calling lib/stats/
    calling(p, "tools/run/selftest_calls.c", ta)
    p.expect("tools/run/selftest_calls.c: calls %s (tools/compare/selftest_circle_a.c): " % ta,
             ["e"])
    calling(p, "lib/model/selftest_calls.c", sa)
    p.expect("lib/model/selftest_calls.c: calls %s (lib/stats/selftest_circle_a.c): " % sa,
             ["layers", "d"])


def check_copy(tmp, build):
    args = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "check_layers.py"), tmp] + ([build] if build else [])
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    lines = [l for l in p.stdout.splitlines() if not l.startswith("tolerated (known): ") and
             not l.endswith(" violation(s)") and not l.startswith("layering: ok")]
    return p.returncode, p.stdout, lines


def copy_tree(root, tmp, build):
    for d in ("lib", "tools", "include", "shim"):
        if os.path.isdir(os.path.join(root, d)):
            shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
    os.makedirs(os.path.join(tmp, "docs/explanation"))
    shutil.copy(os.path.join(root, "docs/explanation/design.md"),
                os.path.join(tmp, "docs/explanation/design.md"))
    if not build:
        return None, [], None
    entries, template = [], None
    for e in cl.compile_entries(build):
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        rel = os.path.relpath(src, root).replace(os.sep, "/")
        if rel.startswith("lib/util/") and rel.endswith(".c") and template is None:
            template = e
        if rel.split("/")[0] in ("lib", "tools"):
            e = dict(e, output=cl.entry_output(e), file=os.path.join(tmp, rel))
        entries.append(e)
    tbuild = os.path.join(tmp, "build")
    os.makedirs(tbuild)
    return tbuild, entries, template


def self_test(root, build):
    root = os.path.abspath(root)
    with tempfile.TemporaryDirectory(prefix="check_layers.") as tmp:
        tbuild, entries, template = copy_tree(root, tmp, build and os.path.abspath(build))
        plants = Plants(tmp, tbuild, entries, template)
        if tbuild:
            plants.save()
        rc0, _, before = check_copy(tmp, tbuild)
        if rc0 not in (0, 1):
            print("self-test: the check fails on the unchanged copy with status %d" % rc0)
            return 1
        plant_text(plants, tmp)
        if tbuild:
            if plants.template is None:
                print("self-test: the build compiles no file of lib/util/ to copy flags from")
                return 1
            plant_calls(plants, tmp)
            plants.save()
        rc, text, after = check_copy(tmp, tbuild)
        added = list(after)
        for l in before:
            if l in added:
                added.remove(l)
        bad = ["exit status %d, not 1" % rc] if rc != 1 else []
        bad += ["a line of the unchanged copy is gone: %r" % l for l in before if l not in after]
        for prefix, rules in plants.expected:
            hits = [l for l in added if l.startswith(prefix)]
            if len(hits) != 1:
                bad.append("expected one new line starting %r, saw %d" % (prefix, len(hits)))
                continue
            named = re.findall(r"\[([a-z]+)\] ", hits[0])
            if named != rules:
                bad.append("%r names rules %s, not %s" % (prefix, named, rules))
            added.remove(hits[0])
        bad += ["unexpected line: %r" % l for l in added]
        if bad:
            print(text, end="")
            print("self-test FAILED:\n  " + "\n  ".join(bad))
            return 1
        print("self-test: ok (%d planted violations named, each once, and nothing else; "
              "%d lines of the unchanged copy left aside%s)"
              % (len(plants.expected), len(before),
                 "" if tbuild else "; no build directory: no call planted"))
        return 0
