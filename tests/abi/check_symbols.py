#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_symbols.py: the ABI check. The dynamic symbols the built libbench.so exports must
# equal the version script's global list and the BENCH_API declarations of the public
# headers, and every one must carry the bench_ prefix. Then the version nodes: the nodes the
# .so defines are the version script's, each node inherits the one before it, every symbol is
# exported (as the default version) in the node the script lists it in, and each release's
# symbols are in that release's node: `--release NODE HEADER...` names the headers of a release
# (frozen copies for past releases); the functions they declare that no earlier release
# declared must be exported as NAME@NODE.
# usage: check_symbols.py SO SCRIPT HEADER... [--release NODE HEADER...]...
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


def exported_versions(so):
    """({symbol: (node, is_default)}, {nodes the .so defines}) from objdump -T."""
    out = subprocess.run(["objdump", "-T", so], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    symbols, nodes = {}, set()
    # address, flags, section, size, version (in parentheses when hidden, i.e. not default), name
    row = re.compile(r"^[0-9a-f]+\s.*?\s(\S+)\s+[0-9a-f]+\s+(\(?)([\w.]+)\)?\s+(\S+)$")
    for line in out.splitlines():
        m = row.match(line)
        if not m:
            continue
        section, hidden, version, name = m.groups()
        if section == "*UND*":
            continue
        if section == "*ABS*" and name == version:  # the definition of a version node
            nodes.add(version)
            continue
        symbols[name] = (version, not hidden)
    return symbols, nodes


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def version_script(path):
    text = strip_comments(open(path).read())
    names = set()
    for block in re.findall(r"global:(.*?)(?:local:|\})", text, flags=re.S):
        names.update(n.strip() for n in block.split(";") if n.strip())
    return names


def version_nodes(path):
    """[(node, parent or None, {global names})] in file order."""
    text = strip_comments(open(path).read())
    nodes = []
    for node, body, parent in re.findall(r"([\w.]+)\s*\{(.*?)\}\s*([\w.]*)\s*;", text, flags=re.S):
        names = set()
        for block in re.findall(r"global:(.*?)(?:local:|$)", body, flags=re.S):
            names.update(n.strip() for n in block.split(";") if n.strip())
        nodes.append((node, parent or None, names))
    return nodes


def declared(headers):
    names = set()
    for h in headers:
        text = strip_comments(open(h).read())
        text = re.sub(r"#define[^\n]*(\\\n[^\n]*)*", "", text)
        for decl in re.findall(r"BENCH_API\b[^;{]*;", text):
            # the first lower-case identifier followed by '(' (macros are upper case)
            m = re.search(r"\b([a-z_][a-z0-9_]*)\s*\(", decl.replace("\n", " "))
            if m:
                names.add(m.group(1))
    return names


def parse_args(argv):
    so, script = argv[0], argv[1]
    headers, releases = [], []
    for a in argv[2:]:
        if a == "--release":
            releases.append([None, []])
        elif releases and releases[-1][0] is None:
            releases[-1][0] = a
        elif releases:
            releases[-1][1].append(a)
        else:
            headers.append(a)
    return so, script, headers, releases


def check_nodes(so, script, releases, reference):
    """The version-node checks; returns the FAIL lines."""
    fails = []
    symbols, so_nodes = exported_versions(so)
    nodes = version_nodes(script)
    script_nodes = [n for n, _, _ in nodes]
    if set(script_nodes) != so_nodes:
        fails.append(f"the .so defines the version nodes {sorted(so_nodes)}, the version script "
                     f"{script_nodes}")
    for i, (node, parent, _) in enumerate(nodes):
        want = nodes[i - 1][0] if i else None
        if parent != want:
            fails.append(f"node {node} inherits {parent or 'nothing'}, not {want or 'nothing'}")
    listed = {}
    for node, _, names in nodes:
        for name in names:
            if name in listed:
                fails.append(f"{name} is listed in both {listed[name]} and {node}")
            listed.setdefault(name, node)
    for name in sorted(reference):
        if name not in symbols:
            fails.append(f"{name} has no version in the .so (objdump -T)")
            continue
        version, default = symbols[name]
        if not default:
            fails.append(f"{name}@{version} is not the default version (@@)")
        if listed.get(name) and version != listed[name]:
            fails.append(f"{name} is exported as @{version} but listed in {listed[name]}")
    seen = set()
    for node, headers in releases:
        names = declared(headers) - seen
        if not names:
            fails.append(f"release {node}: its headers declare no new BENCH_API function")
        if node not in script_nodes:
            fails.append(f"release {node} has no node in the version script")
        for name in sorted(names):
            got = symbols.get(name, ("(not exported)", True))[0]
            if got != node:
                fails.append(f"{name} is declared by release {node} but exported as @{got}")
        print(f"{node}: {len(names)} symbols: " + " ".join(sorted(names)))
        seen |= names
    for name in sorted(reference - seen):
        fails.append(f"{name} is declared BENCH_API but in no release's headers")
    return fails


def main():
    so, script, headers, releases = parse_args(sys.argv[1:])
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
    if releases:
        for line in check_nodes(so, script, releases, reference):
            print(f"FAIL: {line}")
            ok = False
    sys.exit(0 if ok else 1)


main()
