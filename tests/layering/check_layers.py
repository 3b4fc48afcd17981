#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_layers.py: the layering check. Every #include of lib/**/*.{c,h} and tools/**/*.{c,h} is
# resolved to a file and its folder, and must point to a folder the layer table below allows
# (includes only point down), plus the named rules a-f. (The calls between the tool's files are
# check_tool_calls.py's, from the objects.) One line per violation (file:line, the
# include or literal, the rules it breaks); exit 1 when there is any. The table is the one
# docs/explanation/design.md shows; this script checks that the page shows it unchanged.
#
# usage: check_layers.py SRCROOT          check the tree
#        check_layers.py --table          print the layer table as design.md shows it
#        check_layers.py --self-test SRCROOT
#                                         check a copy of the tree with wrong includes
#                                         injected: it must fail, naming each of them
# Python 3 standard library only.
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The layer table: folder, rank, the folders (or single headers) it may include. Every folder
# may also include its own files and the public headers (include/bench/, shim/bench/). An
# include may only point to a lower rank; run() refuses a table that breaks this.
LAYERS = (
    ("tools/libbench.c", 9, ("tools/compare", "tools/run", "tools/results", "tools/export",
                             "lib/util")),
    ("tools/compare", 8, ("tools/common", "lib/stats", "lib/util", "lib/report/table.h",
                          "lib/report/term.h", "lib/report/ticker.h")),
    ("tools/run", 8, ("tools/common", "lib/stats", "lib/util", "lib/report/table.h",
                      "lib/report/term.h", "lib/report/ticker.h", "lib/workload/cache_regime.h")),
    ("tools/results", 8, ("tools/common", "lib/stats", "lib/util", "lib/report/table.h")),
    ("tools/export", 8, ("tools/common", "lib/util", "lib/report/table.h")),
    ("tools/common", 7, ("lib/util", "lib/report/term.h")),
    ("lib/entry", 8, ("lib/testmode", "lib/bench/supervising", "lib/bench/measuring", "lib/workload",
                     "lib/catalog", "lib/report", "lib/sources", "lib/suite", "lib/model",
                     "lib/platform", "lib/util")),
    ("lib/testmode", 7, ("lib/report", "lib/suite", "lib/model", "lib/platform", "lib/util")),
    ("lib/bench/supervising", 7, ("lib/bench/measuring", "lib/bench/wire", "lib/bench/host",
                                  "lib/bench", "lib/workload", "lib/catalog", "lib/report",
                                  "lib/sources", "lib/suite", "lib/model", "lib/platform",
                                  "lib/util")),
    ("lib/bench/measuring", 6, ("lib/bench/host", "lib/bench", "lib/workload", "lib/catalog",
                                "lib/sources", "lib/suite", "lib/model", "lib/platform",
                                "lib/util")),
    ("lib/bench/wire", 6, ("lib/bench", "lib/catalog", "lib/model", "lib/util")),
    ("lib/bench/host", 5, ("lib/workload", "lib/catalog", "lib/sources", "lib/suite", "lib/model",
                           "lib/platform", "lib/util")),
    ("lib/bench", 5, ("lib/catalog", "lib/model", "lib/util")),
    ("lib/workload", 4, ("lib/catalog", "lib/sources", "lib/suite", "lib/model", "lib/platform",
                         "lib/util")),
    ("lib/catalog", 3, ("lib/sources", "lib/suite", "lib/model", "lib/platform", "lib/util")),
    ("lib/suite", 2, ("lib/model", "lib/util")),
    ("lib/sources", 2, ("lib/platform", "lib/model", "lib/util")),
    ("lib/report", 2, ("lib/model", "lib/util")),
    ("lib/stats", 2, ("lib/model", "lib/util")),
    ("lib/model", 1, ("lib/util",)),
    ("lib/platform", 1, ("lib/util",)),
    ("lib/util", 0, ()),
)
PUBLIC = ("include", "shim")  # the public headers: every folder may include them

# The named rules, as the report lines name them.
RULES = {
    "layers": "{layer}/ may include only {allowed} (layer table)",
    "a": "the platform layer names no source's file (no \"/proc/\" or \"/sys/\" literal in "
         "lib/platform/)",
    "b": "a counting source never reaches lib/suite/ (it receives a request, never the "
         "configuration)",
    "c": "lib/report/ never includes lib/sources/ or lib/catalog/",
    "d": "lib/stats/ is included only from lib/stats/ and tools/ (never part of libbench.so)",
    "e": "{layer} may include only {allowed} (layer table: a command never includes another "
         "command's files, tools/common/ includes no command)",
    "f": "{what}",
    "doc": "docs/explanation/design.md must show the layer table of check_layers.py "
           "(check_layers.py --table prints it)",
    "known": "a tolerated violation that no longer occurs: remove it from KNOWN",
}

# Violations the tree still has and the check tolerates for now, each loudly listed on every
# run: (file, rule, the include or literal as printed). An entry that no longer matches fails
# the check, so fixing the code forces removing the entry. Add nothing here to make a change pass.
KNOWN = ()

SOURCE_FORBIDDEN = ("/proc/", "/sys/")
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
LIST_RE = re.compile(r"^BENCH__SOURCE\(([A-Za-z0-9_]+)\)", re.M)


def table_markdown():
    """The layer table as design.md shows it."""
    lines = ["| rank | folder | may include (besides its own files and the public headers) |",
             "|---:|---|---|"]
    for folder, rank, allowed in LAYERS:
        shown = ", ".join("`%s`" % show(a) for a in allowed) or "nothing else"
        lines.append("| %d | `%s` | %s |" % (rank, show(folder), shown))
    return "\n".join(lines) + "\n"


def show(target):
    return target if target.endswith((".h", ".c")) else target + "/"


def check_table():
    """The table itself: known folders only, includes point to a lower rank."""
    ranks = {folder: rank for folder, rank, _ in LAYERS}
    errors = []
    for folder, rank, allowed in LAYERS:
        for a in allowed:
            layer = a if a in ranks else os.path.dirname(a)
            if layer not in ranks:
                errors.append("%s may include %s, which is not a folder of the table" % (folder, a))
            elif ranks[layer] >= rank:
                errors.append("%s (rank %d) may include %s (rank %d): includes must point down"
                              % (folder, rank, a, ranks[layer]))
    return errors


def strip_c(text):
    """Comments blanked (newlines kept), and the string literals with their line numbers."""
    out, strings = [], []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            chunk = text[i:end]
            out.append(re.sub(r"[^\n]", " ", chunk))
            line += chunk.count("\n")
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            if c == '"':
                strings.append((line, text[i:j]))
            out.append(text[i:j])
            i = j
        else:
            if c == "\n":
                line += 1
            out.append(c)
            i += 1
    return "".join(out), strings


class Tree:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.parsed = {}

    def rel(self, path):
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def parse(self, rel):
        """(includes, string literals) of a file: includes as (line, delimiter, name)."""
        if rel not in self.parsed:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                code, strings = strip_c(f.read())
            includes = [(code.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
                        for m in INCLUDE_RE.finditer(code)]
            # a literal on an #include line is the include itself, not a string of the code
            include_lines = {ln for ln, d, _ in includes if d == '"'}
            strings = [(ln, s) for ln, s in strings if ln not in include_lines]
            self.parsed[rel] = (includes, strings)
        return self.parsed[rel]

    def resolve(self, rel, delim, name):
        """The included file relative to the root, None when no such file exists, or "" for a
        system header. Quoted: the including file's folder, then the include path of the build
        (include/, shim/, lib/). <bench/...>: the public headers (version.h from its .in)."""
        if delim == "<":
            if not name.startswith("bench/"):
                return ""
            cands = [os.path.join(self.root, "include", name),
                     os.path.join(self.root, "include", name + ".in"),
                     os.path.join(self.root, "shim", name)]
        else:
            cands = [os.path.join(self.root, os.path.dirname(rel), name)]
            # the tool's files build with tools/ on their include path too ("common/args.h")
            dirs = ("include", "shim", "lib") + (("tools",) if rel.startswith("tools/") else ())
            cands += [os.path.join(self.root, d, name) for d in dirs]
        for c in cands:
            c = os.path.normpath(c)
            if os.path.isfile(c):
                return self.rel(c)
        return None

    def files(self):
        found = []
        for top in ("lib", "tools"):
            base = os.path.join(self.root, top)
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames.sort()
                for fn in sorted(filenames):
                    if fn.endswith((".c", ".h")):
                        found.append(self.rel(os.path.join(dirpath, fn)))
        return found


def layer_of(rel):
    """The row of the table a path belongs to: "lib/<x>/<y>" when the table has that folder
    (lib/bench/measuring/), else "lib/<x>", "tools/<x>" (a folder, or a file right in tools/),
    "public" or None."""
    parts = rel.split("/")
    if parts[0] == "lib" and len(parts) >= 4 and "/".join(parts[:3]) in {f for f, _, _ in LAYERS}:
        return "/".join(parts[:3])
    if parts[0] in ("lib", "tools") and len(parts) >= 3:
        return parts[0] + "/" + parts[1]
    if parts[0] == "tools" and len(parts) == 2:
        return rel
    if parts[0] in PUBLIC and len(parts) >= 2 and parts[1] == "bench":
        return "public"
    return None


def allowed_for(folder, target_rel, target_layer):
    """Whether the table lets `folder` include `target_rel` (in folder `target_layer`)."""
    row = {f: a for f, _, a in LAYERS}[folder]
    return target_layer in ("public", folder) or target_layer in row or target_rel in row


def counting_sources(tree):
    """lib/sources/<id>.c for every BENCH__SOURCE(<id>) line of lib/sources/list.h (the lines
    lib/meson.build reads), and the problems with the list."""
    path = os.path.join(tree.root, "lib/sources/list.h")
    if not os.path.isfile(path):
        return [], [("lib/sources/list.h", 0, "", ["f"], "the list of counting sources is missing")]
    with open(path, encoding="utf-8") as f:
        ids = LIST_RE.findall(f.read())
    files, problems = [], []
    for i in ids:
        rel = "lib/sources/%s.c" % i
        if os.path.isfile(os.path.join(tree.root, rel)):
            files.append(rel)
        else:
            problems.append(("lib/sources/list.h", 0, "BENCH__SOURCE(%s)" % i, ["f"],
                             "%s, named by the list, does not exist" % rel))
    return files, problems


def suite_chain(tree, rel, seen):
    """The include chain from rel (a file in lib/) to a file of lib/suite/, or None."""
    if layer_of(rel) == "lib/suite":
        return [rel]
    if rel in seen or not rel.startswith("lib/"):
        return None
    seen.add(rel)
    for _, delim, name in tree.parse(rel)[0]:
        target = tree.resolve(rel, delim, name)
        if target:
            chain = suite_chain(tree, target, seen)
            if chain:
                return [rel] + chain
    return None


def check(root):
    """Every violation as (file, line, subject, rules, detail)."""
    tree = Tree(root)
    folders = {f for f, _, _ in LAYERS}
    counting, out = counting_sources(tree)
    counting = set(counting)
    for rel in tree.files():
        folder = layer_of(rel)
        if folder not in folders:
            out.append((rel, 0, "", ["layers"], ""))
            continue
        includes, strings = tree.parse(rel)
        for line, delim, name in includes:
            subject = (delim + name + ('"' if delim == '"' else ">"))
            target = tree.resolve(rel, delim, name)
            if target == "":
                continue  # a system header
            if target is None:
                out.append((rel, line, "#include " + subject, ["f"], "no such header"))
                continue
            tlayer = layer_of(target)
            in_tools = folder.startswith("tools/")
            if tlayer is None or (not in_tools and tlayer.startswith("tools/")):
                out.append((rel, line, "#include " + subject, ["f"],
                            "%s is outside lib/ and the public headers" % target))
                continue
            rules = []
            if not allowed_for(folder, target, tlayer):
                rules.append("e" if in_tools else "layers")
            if folder == "lib/report" and tlayer in ("lib/sources", "lib/catalog"):
                rules.append("c")
            if tlayer == "lib/stats" and folder != "lib/stats" and not in_tools:
                rules.append("d")
            detail = target
            if rel in counting:
                chain = suite_chain(tree, target, set())
                if chain:
                    rules.append("b")
                    if len(chain) > 1:
                        detail = "reaches %s via %s" % (chain[-1], " -> ".join(chain))
            if rules:
                out.append((rel, line, "#include " + subject, rules, detail))
        if folder == "lib/platform":
            for line, literal in strings:
                if any(s in literal for s in SOURCE_FORBIDDEN):
                    out.append((rel, line, literal, ["a"], ""))
    design = os.path.join(tree.root, "docs/explanation/design.md")
    shown = ""
    if os.path.isfile(design):
        with open(design, encoding="utf-8") as f:
            shown = f.read()
    if table_markdown() not in shown:
        out.append(("docs/explanation/design.md", 0, "the layer table", ["doc"], ""))
    return out


def rule_text(rule, rel, detail):
    folder = layer_of(rel)
    rows = {f: a for f, _, a in LAYERS}
    if rule == "layers" and folder not in rows:
        return "lib/ and tools/ hold only the folders (and files) of the layer table"
    if rule in ("layers", "e"):
        return RULES[rule].format(layer=folder if rule == "layers" else show(folder),
                                  allowed=", ".join(show(a) for a in rows[folder]) or
                                  "nothing else")
    if rule == "f":
        return RULES[rule].format(what=detail)
    return RULES[rule]


def render(v):
    rel, line, subject, rules, detail = v
    where = "%s:%d" % (rel, line) if line else rel
    head = "%s: %s" % (where, subject) if subject else where
    if detail and "f" not in rules:
        head += " (%s)" % detail
    return "%s: %s" % (head, "; ".join("[%s] %s" % (r, rule_text(r, rel, detail))
                                        for r in rules))


def run(root):
    errors = check_table()
    if errors:
        for e in errors:
            print("check_layers.py: bad layer table: " + e)
        return 2
    found = check(root)
    known = {k: False for k in KNOWN}
    failures = []
    for v in found:
        key = (v[0], v[3][0], v[2])
        if len(v[3]) == 1 and key in known:
            known[key] = True
            print("tolerated (known): " + render(v))
        else:
            failures.append(v)
    for k, hit in known.items():
        if not hit:
            failures.append((k[0], 0, k[2], ["known"], ""))
    for v in failures:
        print(render(v))
    if failures:
        print("%d layering violation(s)" % len(failures))
        return 1
    print("layering: ok (%d files)" % len(Tree(root).files()))
    return 0


# The self-test: each injection (file, text appended at its end) and the rules its line must
# name. The first two are the wrong include and the source file a platform literal names.
INJECTIONS = (
    ("lib/sources/tier0.c", '#include "../report/json.h"\n', ["layers"]),
    ("lib/platform/os.c", 'static const char *const bench__selftest_path = "/proc/x";\n', ["a"]),
    ("lib/sources/tier0.h", '#include "../suite/config.h"\n', ["layers"]),
    ("lib/report/term.c", '#include "../catalog/catalog.h"\n', ["layers", "c"]),
    ("lib/model/window.c", '#include "../stats/compare.h"\n', ["layers", "d"]),
    ("tools/compare/cmd.c", '#include "model/row.h"\n', ["e"]),
    ("tools/run/cmd.c", '#include "compare/compare.h"\n', ["e"]),
    ("tools/common/args.c", '#include "run/run.h"\n', ["e"]),
    ("tools/libbench.c", '#include "common/spawn.h"\n', ["e"]),
    ("lib/util/text.c", '#include "no_such_header.h"\n', ["f"]),
    ("lib/util/clock.c", '#include "../../tools/compare/compare.h"\n', ["f"]),
)


def self_test(root):
    script = os.path.abspath(__file__)
    with tempfile.TemporaryDirectory(prefix="check_layers.") as tmp:
        for d in ("lib", "tools", "include", "shim"):
            shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
        os.makedirs(os.path.join(tmp, "docs/explanation"))
        shutil.copy(os.path.join(root, "docs/explanation/design.md"),
                    os.path.join(tmp, "docs/explanation/design.md"))

        def check_copy():
            p = subprocess.run([sys.executable, script, tmp], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True)
            return p.returncode, p.stdout

        rc, text = check_copy()
        if rc != 0:
            print("self-test: the unchanged copy fails the check:\n" + text)
            return 1

        expected = []
        for rel, add, rules in INJECTIONS:
            path = os.path.join(tmp, rel)
            with open(path, encoding="utf-8") as f:
                body = f.read()
            if not body.endswith("\n"):
                body += "\n"
            line = body.count("\n") + 1
            with open(path, "w", encoding="utf-8") as f:
                f.write(body + add)
            subject = add.strip()
            if rules == ["a"]:
                subject = re.search(r'"[^"]*"', add).group(0)
            expected.append(("%s:%d: %s" % (rel, line, subject), rules))
        # the counting source that includes tier0.h now reaches lib/suite/ through it
        with open(os.path.join(tmp, "lib/sources/tier0.c"), encoding="utf-8") as f:
            n = next(i for i, l in enumerate(f.read().split("\n"), 1)
                     if l.startswith('#include "tier0.h"'))
        expected.append(('lib/sources/tier0.c:%d: #include "tier0.h"' % n, ["b"]))
        # a flat file in lib/, one in tools/ besides libbench.c, and a changed row of the design
        # page's table
        open(os.path.join(tmp, "lib/flat.c"), "w").close()
        expected.append(("lib/flat.c: [layers] ", ["layers"]))
        open(os.path.join(tmp, "tools/flat.c"), "w").close()
        expected.append(("tools/flat.c: [layers] ", ["layers"]))
        with open(os.path.join(tmp, "docs/explanation/design.md"), encoding="utf-8") as f:
            page = f.read()
        with open(os.path.join(tmp, "docs/explanation/design.md"), "w", encoding="utf-8") as f:
            f.write(page.replace("| 0 | `lib/util/` | nothing else |",
                                 "| 0 | `lib/util/` | `lib/model/` |"))
        expected.append(("docs/explanation/design.md: the layer table: [doc] ", ["doc"]))

        rc, text = check_copy()
        print(text, end="")
        lines = [l for l in text.splitlines()
                 if not l.startswith("tolerated (known): ") and not l.endswith(" violation(s)")]
        bad = []
        if rc != 1:
            bad.append("exit status %d, not 1" % rc)
        for prefix, rules in expected:
            hits = [l for l in lines if l.startswith(prefix)]
            if len(hits) != 1:
                bad.append("expected one line starting %r, saw %d" % (prefix, len(hits)))
                continue
            named = re.findall(r"\[([a-z]+)\] ", hits[0])
            if named != rules:
                bad.append("%r names rules %s, not %s" % (prefix, named, rules))
            lines.remove(hits[0])
        bad += ["unexpected line: %r" % l for l in lines]
        if bad:
            print("self-test FAILED:\n  " + "\n  ".join(bad))
            return 1
        print("self-test: ok (%d injected violations named, exit status 1)" % len(expected))
        return 0


def main(argv):
    if argv[1:] == ["--table"]:
        sys.stdout.write(table_markdown())
        return 0
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) == 2 and not argv[1].startswith("-"):
        return run(argv[1])
    print("usage: check_layers.py SRCROOT | --table | --self-test SRCROOT")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
