#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run.py: does counting allocations move the timing? Runs alloc_timing ROUNDS times with and
# without --metrics=allocs, interleaved, and alloc_plain (no interposer) as many times, and prints
# per benchmark the median of each condition's medians, the run-to-run noise (half the range of
# the medians, and their MAD), and the differences: with vs without --metrics=allocs (the counting
# pass never overlaps timing, so this must be within the noise), and interposer linked but
# disabled vs not linked (the cost of a disabled wrapper: one predictable branch per call).
#
# usage: run.py BUILDDIR [ROUNDS]   (meson setup BUILDDIR -Dbuildtype=release; ninja -C BUILDDIR)
import json
import os
import statistics
import subprocess
import sys
import tempfile

build = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
here = os.path.join(build, "benchmarks", "alloc_timing")
linked, plain = os.path.join(here, "alloc_timing"), os.path.join(here, "alloc_plain")


def medians(binary, extra):
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "doc.json")
        subprocess.run([binary, "--bench", f"--bench-json={doc}"] + extra, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(doc, encoding="utf-8") as f:
            rows = json.load(f)["rows"]
    return {r["name"].split(".", 1)[1]: r for r in rows if r.get("medianNs") is not None}


runs = {"without": [], "with": [], "plain": []}
for _ in range(rounds):
    runs["without"].append(medians(linked, []))
    runs["with"].append(medians(linked, ["--metrics=allocs"]))
    runs["plain"].append(medians(plain, []))


def col(kind, name, key="medianNs"):
    return [r[name][key] for r in runs[kind] if name in r]


def noise(xs):
    return (max(xs) - min(xs)) / 2


print(f"{rounds} rounds each, interleaved; ns per iteration (median of the runs' medians)")
print(f"{'benchmark':16} {'without':>9} {'with':>9} {'diff':>8} {'noise':>8}  {'plain':>9} "
      f"{'linked-plain':>12} {'noise':>8}  allocs/iter")
for name in sorted(runs["without"][0]):
    wo, wi, pl = col("without", name), col("with", name), col("plain", name)
    allocs = runs["with"][0][name]["metrics"].get("allocs")
    m_wo, m_wi, m_pl = statistics.median(wo), statistics.median(wi), statistics.median(pl)
    n1 = max(noise(wo), noise(wi))
    n2 = max(noise(wo), noise(pl))
    print(f"{name:16} {m_wo:9.2f} {m_wi:9.2f} {m_wi - m_wo:+8.2f} {n1:8.2f}  {m_pl:9.2f} "
          f"{m_wo - m_pl:+12.2f} {n2:8.2f}  {allocs}")
# The disabled wrapper's cost, from the fastest sample of all runs (the least disturbed by other
# processes): linked but not counting, against not linked.
print("\nfastest sample of all runs (ns per iteration): linked, plain, linked-plain")
for name in sorted(runs["without"][0]):
    lo_l, lo_p = min(col("without", name, "minNs")), min(col("plain", name, "minNs"))
    print(f"{name:16} {lo_l:9.2f} {lo_p:9.2f} {lo_l - lo_p:+9.2f}")
