#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_layers.py: the layering check. Every file of lib/ and tools/ belongs to a row of the layer
# table below, and may use (include, or call a function of) only its own folder, the public
# headers and what its row names: every #include is resolved to a file, and, given the build
# directory, every object's undefined symbols (nm) are resolved to the file that defines them
# (objects mapped to their sources by compile_commands.json). Then no circle of files (includes
# and calls) across folders, nor among the files of a folder the table marks, and the "one of
# each" rules h-l. One line per violation naming the file, the include, call or word, and the
# rules it breaks; exit 1 when there is any. docs/explanation/design.md shows the same table.
#
# usage: check_layers.py SRCROOT [BUILDDIR]   check the tree (the symbols too with BUILDDIR)
#        check_layers.py --table              print the layer table as design.md shows it
#        check_layers.py --graph SRCROOT BUILDDIR
#                                             the calls and includes between folders
#        check_layers.py --self-test SRCROOT [BUILDDIR]
#                                             plant each violation in a copy (selftest_layers.py):
#                                             the check must name each of them and nothing else
# Python 3 standard library and binutils' nm only.
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

# The layer table: row (a folder, or one file), rank, what it may use besides its own folder and
# the public headers (include/bench/, shim/bench/): folders, or single headers (a header lets its
# file use the functions of the .c of the same name). A row may only name lower ranks (checked).
LAYERS = (
    ("tools/libbench.c", 9, ("tools/compare", "tools/run", "tools/results", "tools/export",
                             "lib/util")),
    ("tools/compare", 8, ("tools/common", "lib/stats", "lib/util", "lib/report/table.h",
                          "lib/report/term.h", "lib/report/ticker.h")),
    # lib/model/: the one median (summary.c) and the cache regime's words (window.c)
    ("tools/run", 8, ("tools/common", "lib/stats", "lib/model", "lib/util", "lib/report/table.h",
                      "lib/report/term.h", "lib/report/ticker.h", "lib/workload/cache_regime.h")),
    ("tools/results", 8, ("tools/common", "lib/stats", "lib/util", "lib/report/table.h")),
    ("tools/export", 8, ("tools/common", "lib/util", "lib/report/table.h")),
    ("tools/common", 7, ("lib/util", "lib/report/term.h")),
    ("lib/entry", 8, ("lib/testmode", "lib/bench/supervising", "lib/bench/measuring",
                      "lib/bench/wire", "lib/bench/host", "lib/bench", "lib/workload",
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
# The rows whose files may not form a circle among themselves (a circle across rows is always one).
ACYCLIC = ("tools/libbench.c", "tools/compare", "tools/run", "tools/results", "tools/export",
           "tools/common", "lib/stats")
PUBLIC = ("include", "shim")  # include/bench/ and shim/bench/: every row may include them

# The "one of each" rules (h-j): the identifiers (outside comments, strings and #include lines)
# that only the named files may use, in the files of the named top folders.
SPAWN = ("fork", "vfork", r"posix_spawn\w*", "execl", "execle", "execlp", "execv", "execve",
         "execvp", "execvpe", "execveat", "fexecve", "waitpid", "wait4")
ONE_OF = (
    ("h", ("clock_gettime",), ("lib", "tools", "shim", "include"), ("lib/util/clock.c",)),
    ("i", ("malloc", "calloc", "realloc", "strdup", "strndup", "asprintf", "vasprintf"),
     ("lib", "tools", "shim", "include"), ("lib/util/alloc.c",)),
    ("j", SPAWN, ("tools",), ("tools/common/spawn.c",)),
)
SIZE_TOPS = ("lib", "tools", "shim", "include")  # rule k
MAX_LINES, EXPLAIN_OVER, EXPLAIN_WITHIN = 800, 600, 25
EXPLAINED = re.compile(r"long because|600 lines|lines because", re.I)
PUBLIC_STD = ("stddef.h", "stdint.h", "stdbool.h")  # rule l

RULES = {
    "layers": "{layer} may use only {allowed} (layer table)",
    "a": "the platform layer names no source's file (no \"/proc/\" or \"/sys/\" literal in "
         "lib/platform/)",
    "b": "a counting source never reaches lib/suite/ (it receives a request, never the "
         "configuration)",
    "c": "lib/report/ never uses lib/sources/ or lib/catalog/",
    "d": "lib/stats/ is used only from lib/stats/ and tools/ (never part of libbench.so)",
    "e": "{layer} may use only {allowed} (layer table: a command never uses another command's "
         "files, tools/common/ uses no command)",
    "f": "{what}",
    "g": "no circle of files across folders, nor among the files of {acyclic}",
    "h": "clock_gettime only in lib/util/clock.c (the two named clocks of lib/util/clock.h)",
    "i": "malloc, calloc, realloc, strdup, strndup, asprintf and vasprintf only in "
         "lib/util/alloc.c (lib/util/alloc.h: bench__x*, bench__try_*)",
    "j": "in tools/, fork, vfork, posix_spawn*, exec*, waitpid and wait4 only in "
         "tools/common/spawn.c (the one way to spawn and wait for a child)",
    "k": "no file of lib/, tools/, shim/, include/ over %d lines, and one over %d says why in its "
         "first %d lines (\"long because\", \"600 lines\" or \"lines because\")"
         % (MAX_LINES, EXPLAIN_OVER, EXPLAIN_WITHIN),
    "l": "a public header includes only <stddef.h>, <stdint.h>, <stdbool.h> and the public "
         "headers",
    "doc": "docs/explanation/design.md must show the layer table of check_layers.py "
           "(check_layers.py --table prints it)",
    "known": "a tolerated violation that no longer occurs: remove it from KNOWN",
}

# Violations the tree still has and the check tolerates for now, each listed on every run:
# (file, rule, subject as printed). An entry that no longer matches fails the check, so fixing
# the code forces removing the entry. Add nothing here to make a change pass.
KNOWN = ()

SOURCE_FORBIDDEN = ("/proc/", "/sys/")
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
LIST_RE = re.compile(r"^BENCH__SOURCE\(([A-Za-z0-9_]+)\)", re.M)
DEFINED = set("TDBRVWGSCu")  # nm: a global definition (text, data, bss, read-only, weak, ...)
C_FILES = (".c", ".h", ".def")


def show(target):
    return target if target.endswith(C_FILES) else target + "/"


def table_markdown():
    """The layer table as design.md shows it."""
    lines = ["| rank | folder | may use (include, call), besides its own files and the public "
             "headers | no circle inside |", "|---:|---|---|:-:|"]
    for folder, rank, allowed in LAYERS:
        shown = ", ".join("`%s`" % show(a) for a in allowed) or "nothing else"
        lines.append("| %d | `%s` | %s | %s |" % (rank, show(folder), shown,
                                                   "yes" if folder in ACYCLIC else ""))
    return "\n".join(lines) + "\n"


def check_table():
    """The table itself: known rows only, every use pointing to a lower rank."""
    ranks = {folder: rank for folder, rank, _ in LAYERS}
    errors = ["%s is marked acyclic but is no row" % f for f in ACYCLIC if f not in ranks]
    for folder, rank, allowed in LAYERS:
        for a in allowed:
            layer = a if a in ranks else os.path.dirname(a)
            if layer not in ranks:
                errors.append("%s may use %s, which is not a row of the table" % (folder, a))
            elif ranks[layer] >= rank:
                errors.append("%s (rank %d) may use %s (rank %d): uses must point down"
                              % (folder, rank, a, ranks[layer]))
    return errors


def layer_of(rel):
    """The row a path belongs to: a row's folder (the deepest that holds it; a folder split in
    rows holds only its own files), a file row, "public", or None (no row)."""
    rows = [f for f, _, _ in LAYERS]
    if rel in rows:
        return rel
    parts = rel.split("/")
    if parts[0] in PUBLIC and len(parts) >= 3 and parts[1] == "bench":
        return "public"
    d = os.path.dirname(rel)
    best = max((f for f in rows if d == f or d.startswith(f + "/")), key=len, default=None)
    if best and d != best and any(f.startswith(best + "/") for f in rows):
        return None  # a folder of lib/bench/ that is not a row
    return best


def folder_of(rel):
    """Its row, or its folder when no row holds it (circles are between folders)."""
    return layer_of(rel) or os.path.dirname(rel)


def strip_c(text, keep_strings=True):
    """Comments blanked (newlines kept), string and character literals kept or blanked, and the
    string literals with their line numbers."""
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
            out.append(text[i:j] if keep_strings else c + " " * (j - i - 2) + c)
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

    def read(self, rel):
        with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
            return f.read()

    def parse(self, rel):
        """(includes, string literals, code without comments and literals) of a file."""
        if rel not in self.parsed:
            text = self.read(rel)
            code, strings = strip_c(text)
            includes = [(code.count("\n", 0, m.start()) + 1, m.group(1), m.group(2))
                        for m in INCLUDE_RE.finditer(code)]
            # a literal on an #include line is the include itself, not a string of the code
            include_lines = {ln for ln, d, _ in includes if d == '"'}
            strings = [(ln, s) for ln, s in strings if ln not in include_lines]
            bare = INCLUDE_RE.sub(lambda m: " " * len(m.group(0)), strip_c(text, False)[0])
            self.parsed[rel] = (includes, strings, bare)
        return self.parsed[rel]

    def resolve(self, rel, delim, name):
        """The included file relative to the root, None when no such file exists, or "" for a
        system header. Quoted: the including file's folder, then the include path of the build
        (include/, shim/, lib/; tools/ for the tool's files). <bench/...>: the public headers."""
        if delim == "<":
            if not name.startswith("bench/"):
                return ""
            cands = [os.path.join(self.root, "include", name),
                     os.path.join(self.root, "include", name + ".in"),
                     os.path.join(self.root, "shim", name)]
        else:
            cands = [os.path.join(self.root, os.path.dirname(rel), name)]
            dirs = ("include", "shim", "lib") + (("tools",) if rel.startswith("tools/") else ())
            cands += [os.path.join(self.root, d, name) for d in dirs]
        for c in cands:
            c = os.path.normpath(c)
            if os.path.isfile(c):
                return self.rel(c)
        return None

    def walk(self, tops, suffixes=None):
        found = []
        for top in tops:
            for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, top)):
                dirnames.sort()
                for fn in sorted(filenames):
                    if suffixes is None or fn.endswith(suffixes):
                        found.append(self.rel(os.path.join(dirpath, fn)))
        return found

    def files(self):
        return self.walk(("lib", "tools"), C_FILES)


# ---- the symbols: objects, nm, who defines what ---------------------------------------------

def compile_entries(build):
    path = os.path.join(build, "compile_commands.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def entry_args(e):
    return e["arguments"] if "arguments" in e else shlex.split(e["command"])


def entry_output(e):
    out = e.get("output")
    if out is None:
        args = entry_args(e)
        out = args[args.index("-o") + 1] if "-o" in args else None
    return out and os.path.normpath(os.path.join(e["directory"], out))


def nm_program(entries):
    """$NM, else the cross binutils' nm beside a cross compiler (aarch64-linux-gnu-nm), else nm."""
    if os.environ.get("NM"):
        return os.environ["NM"]
    for e in entries[:1]:
        cc = os.path.basename(entry_args(e)[0])
        m = re.match(r"(.+-)(gcc|cc|clang)(-[0-9.]+)?$", cc)
        if m and shutil.which(m.group(1) + "nm"):
            return m.group(1) + "nm"
    return "nm"


def read_objects(tree, build):
    """{source rel: (defined, undefined)} for the files of lib/ and tools/ in the build, and the
    problems (a source whose objects are all missing)."""
    entries = compile_entries(build)
    objects = {}
    for e in entries:
        src = tree.rel(os.path.normpath(os.path.join(e["directory"], e["file"])))
        if src.split("/")[0] in ("lib", "tools") and entry_output(e):
            objects.setdefault(src, []).append(entry_output(e))
    problems, present = [], []
    for src, objs in sorted(objects.items()):
        there = [o for o in objs if os.path.isfile(o)]
        if not there:
            problems.append((src, 0, "", ["f"], "the build has no object for it (%s): build "
                             "first" % os.path.relpath(objs[0], build)))
        present += [(src, o) for o in there]
    nm = nm_program(entries)
    syms = {src: (set(), set()) for src in objects}
    owner = {o: src for src, o in present}
    for k in range(0, len(present), 200):
        batch = [o for _, o in present[k:k + 200]]
        p = subprocess.run([nm, "-A", "-P"] + batch, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 0:
            raise SystemExit("check_layers.py: %s failed: %s" % (nm, p.stderr.strip()))
        for line in p.stdout.splitlines():
            head, _, rest = line.partition(": ")
            fields = rest.split()
            if len(fields) < 2 or head not in owner:
                continue
            defined, undefined = syms[owner[head]]
            if fields[1] == "U":
                undefined.add(fields[0])
            elif fields[1] in DEFINED:
                defined.add(fields[0])
    return syms, problems


def call_edges(syms):
    """{(caller, callee): sorted symbols} between two files, a symbol going to every file that
    defines it (one file in any one build)."""
    where = {}
    for src, (defined, _) in syms.items():
        for s in defined:
            where.setdefault(s, set()).add(src)
    edges = {}
    for src, (_, undefined) in syms.items():
        for s in undefined:
            for g in where.get(s, ()):
                if g != src:
                    edges.setdefault((src, g), set()).add(s)
    return {k: sorted(v) for k, v in edges.items()}


# ---- the rules -------------------------------------------------------------------------------

def allowed_for(folder, target_rel, target_layer, call=False):
    """Whether the table lets `folder` use `target_rel` (in row `target_layer`): for a call, the
    header of the same name as the called .c stands for it."""
    row = {f: a for f, _, a in LAYERS}[folder]
    if target_layer in ("public", folder) or target_layer in row or target_rel in row:
        return True
    return call and re.sub(r"\.c$", ".h", target_rel) in row


def is_tool(row):
    return row.split("/")[0] == "tools"


def use_rules(folder, target_rel, tlayer, call=False):
    rules = []
    if not allowed_for(folder, target_rel, tlayer, call):
        rules.append("e" if is_tool(folder) else "layers")
    if folder == "lib/report" and tlayer in ("lib/sources", "lib/catalog"):
        rules.append("c")
    if tlayer == "lib/stats" and folder != "lib/stats" and not is_tool(folder):
        rules.append("d")
    return rules


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


def check_includes(tree, out, graph):
    folders = {f for f, _, _ in LAYERS}
    counting, problems = counting_sources(tree)
    out += problems
    counting = set(counting)
    for rel in tree.files():
        folder = layer_of(rel)
        if folder not in folders:
            out.append((rel, 0, "", ["layers"], ""))
        includes, strings, _ = tree.parse(rel)
        for line, delim, name in includes:
            subject = "#include " + delim + name + ('"' if delim == '"' else ">")
            target = tree.resolve(rel, delim, name)
            if target == "":
                continue  # a system header
            if target is None:
                out.append((rel, line, subject, ["f"], "no such header"))
                continue
            graph.setdefault((rel, target), "#include")
            if folder not in folders:
                continue
            tlayer = layer_of(target)
            tops = ("lib/", "tools/") if is_tool(folder) else ("lib/",)
            if tlayer != "public" and not target.startswith(tops):
                out.append((rel, line, subject, ["f"], "%s is outside %s and the public headers"
                            % (target, " and ".join(tops))))
                continue
            tlayer = tlayer or os.path.dirname(target)  # a folder of no row: never allowed
            rules = use_rules(folder, target, tlayer)
            detail = target
            if rel in counting:
                chain = suite_chain(tree, target, set())
                if chain:
                    rules.append("b")
                    if len(chain) > 1:
                        detail = "reaches %s via %s" % (chain[-1], " -> ".join(chain))
            if rules:
                out.append((rel, line, subject, rules, detail))
        if folder == "lib/platform":
            for line, literal in strings:
                if any(s in literal for s in SOURCE_FORBIDDEN):
                    out.append((rel, line, literal, ["a"], ""))


def check_calls(tree, build, out, graph):
    syms, problems = read_objects(tree, build)
    out += problems
    folders = {f for f, _, _ in LAYERS}
    for (caller, callee), names in sorted(call_edges(syms).items()):
        graph[(caller, callee)] = names[0]
        folder = layer_of(caller)
        if folder not in folders:
            continue  # its own line says it belongs to no row
        tlayer = folder_of(callee)
        rules = use_rules(folder, callee, tlayer, call=True)
        if rules:
            more = " and %d more" % (len(names) - 1) if len(names) > 1 else ""
            out.append((caller, 0, "calls %s%s" % (names[0], more), rules, callee))
    return syms


def circles(graph):
    """The strongly connected components of more than one file (Tarjan, iterative), sorted."""
    succ = {}
    for a, b in graph:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index, low, on, stack, comps = {}, {}, set(), [], []
    for start in sorted(succ):
        if start in index:
            continue
        work = [(start, iter(sorted(succ[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            n, it = work[-1]
            m = next(it, None)
            if m is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[n])
                if low[n] == index[n]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == n:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))
            elif m not in index:
                index[m] = low[m] = len(index)
                stack.append(m)
                on.add(m)
                work.append((m, iter(sorted(succ[m]))))
            elif m in on:
                low[n] = min(low[n], index[m])
    return sorted(comps)


def one_cycle(comp, graph):
    """A shortest path from the component's first file back to it, with what each step uses."""
    inside = set(comp)
    start, prev, queue = comp[0], {}, [comp[0]]
    while queue:
        n = queue.pop(0)
        for (a, b) in sorted(k for k in graph if k[0] == n and k[1] in inside):
            if b == start:
                path = [(n, b)]
                while path[0][0] != start:
                    path.insert(0, (prev[path[0][0]], path[0][0]))
                return " ".join("%s -[%s]->" % (a2, graph[(a2, b2)]) for a2, b2 in path) + \
                    " " + start
            if b not in prev and b != start:
                prev[b] = n
                queue.append(b)
    return start


def check_circles(graph, out):
    for comp in circles(graph):
        folders = sorted({folder_of(f) for f in comp})
        if len(folders) == 1 and folders[0] not in ACYCLIC:
            continue
        where = "across " + ", ".join(show(f) for f in folders) if len(folders) > 1 else \
            "inside " + show(folders[0])
        out.append((comp[0], 0, "circle of %d files %s" % (len(comp), where), ["g"],
                    "%s; all: %s" % (one_cycle(comp, graph), ", ".join(comp))))


def check_one_of(tree, out):
    for rule, names, tops, only in ONE_OF:
        word = re.compile(r"\b(%s)\b" % "|".join(names))
        for rel in tree.walk(tops, C_FILES + (".h.in",)):
            if rel in only:
                continue
            code = tree.parse(rel)[2]
            seen = set()
            for m in word.finditer(code):
                at = (code.count("\n", 0, m.start()) + 1, m.group(1))
                if at not in seen:  # one line per word and line
                    seen.add(at)
                    out.append((rel, at[0], at[1], [rule], ""))


def check_sizes(tree, out):
    for rel in tree.walk(SIZE_TOPS):
        try:
            text = tree.read(rel)
        except OSError:
            continue
        n = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        head = "\n".join(text.split("\n")[:EXPLAIN_WITHIN])
        if n > MAX_LINES or (n > EXPLAIN_OVER and not EXPLAINED.search(head)):
            out.append((rel, 0, "%d lines" % n, ["k"], ""))


def check_public(tree, out):
    for rel in tree.walk(PUBLIC):
        if not (layer_of(rel) == "public" and rel.endswith((".h", ".h.in"))):
            continue
        for line, delim, name in tree.parse(rel)[0]:
            target = tree.resolve(rel, delim, name)
            if (delim == "<" and name in PUBLIC_STD) or (target and layer_of(target) == "public"):
                continue
            out.append((rel, line, "#include %s%s%s" % (delim, name, ">" if delim == "<" else '"'),
                        ["l"], ""))


def check(root, build=None):
    """Every violation as (file, line, subject, rules, detail)."""
    tree = Tree(root)
    out, graph = [], {}
    check_includes(tree, out, graph)
    if build:
        check_calls(tree, build, out, graph)
    check_circles(graph, out)
    check_one_of(tree, out)
    check_sizes(tree, out)
    check_public(tree, out)
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
        return RULES[rule].format(layer=show(folder), allowed=", ".join(
            show(a) for a in rows[folder]) or "nothing else")
    if rule == "f":
        return RULES[rule].format(what=detail)
    if rule == "g":
        return RULES[rule].format(acyclic=", ".join(show(f) for f in ACYCLIC))
    return RULES[rule]


def render(v):
    rel, line, subject, rules, detail = v
    where = "%s:%d" % (rel, line) if line else rel
    head = "%s: %s" % (where, subject) if subject else where
    if detail and "f" not in rules:
        head += " (%s)" % detail
    return "%s: %s" % (head, "; ".join("[%s] %s" % (r, rule_text(r, rel, detail))
                                        for r in rules))


def run(root, build=None):
    errors = check_table()
    if errors:
        for e in errors:
            print("check_layers.py: bad layer table: " + e)
        return 2
    found = check(root, build)
    known = {k: False for k in KNOWN}
    failures = []
    for v in found:
        key = (v[0], v[3][0], v[2])
        if len(v[3]) == 1 and key in known:
            known[key] = True
            print("tolerated (known): " + render(v))
        else:
            failures.append(v)
    failures += [(k[0], 0, k[2], ["known"], "") for k, hit in known.items() if not hit]
    for v in failures:
        print(render(v))
    if failures:
        print("%d layering violation(s)" % len(failures))
        return 1
    print("layering: ok (%d files; %s)" % (len(Tree(root).files()),
                                           "includes and calls" if build else
                                           "includes only: no build directory given"))
    return 0


def graph_between_folders(root, build):
    """Every use between two folders: calls (with a symbol) and includes, and whether the folders
    form a circle."""
    tree = Tree(root)
    graph = {}
    check_includes(tree, [], graph)
    check_calls(tree, build, [], graph)
    between = {}
    for (a, b), what in graph.items():
        fa, fb = folder_of(a), folder_of(b)
        if fa != fb and fb != "public":
            n = between.setdefault((fa, fb), [0, 0, what])
            n[0 if what != "#include" else 1] += 1
            if what != "#include":
                n[2] = what
    for (fa, fb), (calls, incs, what) in sorted(between.items()):
        print("%s -> %s: %d file pairs calling (e.g. %s), %d including"
              % (show(fa), show(fb), calls, what if calls else "-", incs))
    loops = circles({k: "" for k in between})
    print("folder circles: %s" % ("; ".join(" ".join(show(f) for f in c) for c in loops)
                                  if loops else "none"))
    return 1 if loops else 0


def main(argv):
    if argv[1:] == ["--table"]:
        sys.stdout.write(table_markdown())
        return 0
    if len(argv) == 4 and argv[1] == "--graph":
        return graph_between_folders(argv[2], argv[3])
    if len(argv) in (3, 4) and argv[1] == "--self-test":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import selftest_layers
        return selftest_layers.self_test(argv[2], argv[3] if len(argv) == 4 else None)
    if len(argv) in (2, 3) and not argv[1].startswith("-"):
        return run(argv[1], argv[2] if len(argv) == 3 else None)
    print("usage: check_layers.py SRCROOT [BUILDDIR] | --table | --graph SRCROOT BUILDDIR | "
          "--self-test SRCROOT [BUILDDIR]")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
