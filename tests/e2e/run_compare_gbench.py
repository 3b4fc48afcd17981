#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# run_compare_gbench.py: end-to-end checks of `libbench compare` on Google Benchmark JSON: the
# engine's golden vectors written as Google Benchmark documents (repetitions, split files,
# units) give the vectors' numbers; real files of a Google Benchmark program (gbench_fixture)
# give a REGRESSION for a candidate doing twice the work, never a claim for the baseline against
# itself, and their errors as skips. Uses run_compare.py's helpers.
import json
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_compare as rc  # noqa: E402  (the shared helpers: run, check, load, failures)

FIXTURE = os.environ.get("COMPARE_GBENCH", "")
FIXTURE_MISSING = os.environ.get("COMPARE_GBENCH_MISSING", "the fixture is not built")
REPS = 3    # --benchmark_repetitions of every fixture run
ROUNDS = 3  # fixture runs per subject, interleaved round by round
# the benchmarks of the fixture as Google Benchmark names them, and the cells they map to
FIXTURE_NAMES = {
    "BM_chain/512": ("BM_chain", {"arg0": "512"}),
    "BM_chain/2048": ("BM_chain", {"arg0": "2048"}),
    "BM_grid/rows:16/cols:64": ("BM_grid", {"cols": "64", "rows": "16"}),
    "BM_typed<uint32_t>/1024": ("BM_typed<uint32_t>", {"arg0": "1024"}),
    "BM_micro/4096/real_time/threads:1": ("BM_micro", {"arg0": "4096", "threads": "1",
                                                       "time": "real_time"}),
}
FIXTURE_CELLS = sorted(FIXTURE_NAMES.values(), key=repr)

check = rc.check


def need_fixture():
    if not FIXTURE:
        print(f"skipped: {FIXTURE_MISSING}")
        sys.exit(77)


# ---- the golden vectors as Google Benchmark documents -----------------------------------------

def gbench_document(rows):
    return {"context": {"date": "2026-01-01T00:00:00+00:00", "host_name": "h",
                        "executable": "./bench", "num_cpus": 2, "mhz_per_cpu": 2300,
                        "cpu_scaling_enabled": False, "caches": [], "load_avg": [0.1, 0.2, 0.3],
                        "library_build_type": "release"},
            "benchmarks": rows}


def unit_of(values):
    """The largest unit in which every value survives the trip ns -> unit -> ns exactly, as the
    reader multiplies (ns when none does), so the statistics are the vectors' to the bit."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if all((v / scale) * scale == v for v in values):
            return unit, scale
    return "ns", 1.0


def iteration_row(name, rep, reps, value_ns, unit, scale):
    row = {"name": name, "family_index": 0, "per_family_instance_index": 0, "run_name": name,
           "run_type": "iteration", "repetitions": reps, "repetition_index": rep, "threads": 1}
    if value_ns is None:
        row.update({"error_occurred": True, "error_message": "skipped: not run",
                    "iterations": 1, "real_time": 0.0, "cpu_time": 0.0, "time_unit": unit})
    else:
        row.update({"iterations": 1000, "real_time": value_ns / scale,
                    "cpu_time": value_ns / scale, "time_unit": unit})
    return row


def aggregate_rows(name, reps, unit):
    return [{"name": f"{name}_{a}", "family_index": 0, "per_family_instance_index": 0,
             "run_name": name, "run_type": "aggregate", "repetitions": reps, "threads": 1,
             "aggregate_name": a, "aggregate_unit": "percentage" if a == "cv" else "time",
             "iterations": reps, "real_time": 1.0, "cpu_time": 1.0, "time_unit": unit}
            for a in ("mean", "median", "stddev", "cv")]


def vector_files(tmp, family):
    """An engine family's runs as Google Benchmark files: the baseline's as one file of 5
    repetitions, the candidate's as two files (2 and 3 repetitions), the control's as one file
    per run without repetitions. Each cell is the benchmark SCENARIO/OPERATION (no argument),
    in the largest unit its values survive; a run without a value is an error row."""
    runs = sorted({int(r) for cell in family["inputs"] for arm in ("baseline", "candidate", "aa")
                   for r in cell[arm].keys()})
    check(runs == list(range(1, len(runs) + 1)), f"vector runs {runs}")
    split = {"baseline": [runs], "candidate": [runs[:2], runs[2:]], "aa": [[r] for r in runs]}
    files = {}
    for arm, groups in split.items():
        files[arm] = []
        for k, group in enumerate(groups):
            rows = []
            for cell in family["inputs"]:
                name = f"{cell['scenario']}/{cell['operation']}"
                unit, scale = unit_of([v for v in cell[arm].values()])
                reps = len(group) if len(group) > 1 else 1
                rows += [iteration_row(name, i, reps, cell[arm].get(str(r)), unit, scale)
                         for i, r in enumerate(group)]
                if reps > 1:
                    rows += aggregate_rows(name, reps, unit)
            files[arm].append(rc.write(os.path.join(tmp, f"{arm}{k + 1}.json"),
                                       gbench_document(rows)))
    return files


def check_vector_family(tmp, name, vectors, key, expect_exit, verdict=None):
    family = dict(vectors[key])
    family["inputs"] = rc.family_inputs(vectors, family)
    fdir = os.path.join(tmp, name)
    os.mkdir(fdir)
    files = vector_files(fdir, family)
    out_json = os.path.join(fdir, "out.json")
    want = family["result"]
    code, out, err = rc.run(["compare", "--min-delta-ns", str(want["min_delta"]), "--json",
                             out_json] + rc.file_args(files))
    w_verdict, w_reason, w_exit = verdict or (want["verdict"], want.get("reason"),
                                              want["exit_code"])
    check(code == w_exit == expect_exit, f"{name}: exit {code}, want {w_exit}\n{out}{err}")
    check(err == "", f"{name}: stderr {err!r}")
    n = len(family["inputs"][0]["baseline"])
    check(out.startswith(f"libbench compare: {n}/{n}/{n} runs from files (baseline/candidate/aa)"),
          f"{name}: header\n{out}")
    doc = rc.load(out_json)
    check(doc["verdict"] == w_verdict and doc["reason"] == w_reason and
          (verdict is not None or doc["runs_needed"] == want.get("runs_needed")) and
          doc["family_size"] == want["family_size"],
          f"{name}: verdict {doc['verdict']} {doc['reason']} {doc['runs_needed']} "
          f"{doc['family_size']}")
    # each run knows its file: 1 file of 5, files of 2 and 3, 5 files of 1
    subjects = doc["subjects"]
    check(subjects["baseline"]["files"] == files["baseline"] * n and
          subjects["candidate"]["files"] == [files["candidate"][0]] * 2 +
          [files["candidate"][1]] * (n - 2) and subjects["aa"]["files"] == files["aa"],
          f"{name}: subjects {subjects}")
    rc.common_json_checks(doc, code, name)
    got = {c["name"]: c for c in doc["cells"]}
    check(len(got) == len(want["cells"]), f"{name}: {len(got)} cells")
    for w in want["cells"]:
        cell_name = f"{w['scenario']}/{w['operation']}"
        c = got.get(cell_name)
        if c is None:
            check(False, f"{name}: no cell {cell_name}")
            continue
        check(c["labels"] == {} and c["operation"] == "", f"{name}: {cell_name}: labels")
        st, reason, _ = rc.tool_state(w)  # the equivalence rule of --detect (run_compare.py)
        for f, v in (("state", st), ("direction", w.get("direction")), ("reason", reason)):
            check(c[f] == v, f"{name}: {cell_name}: {f} {c[f]} != {v}")
        for f in ("n_baseline", "n_candidate", "n_aa"):
            check(c[f] == w[f], f"{name}: {cell_name}: {f} {c[f]} != {w[f]}")
        if w["state"] == "UNMEASURED":
            continue
        for f, g in (("p", "p"), ("q", "q_adjusted"), ("rel_delta", "rel_delta"),
                     ("abs_delta_ns", "abs_delta"), ("median_baseline_ns", "median_baseline"),
                     ("median_candidate_ns", "median_candidate"), ("aa_p", "aa_p"),
                     ("aa_q", "aa_q_adjusted")):
            check(rc.close(c[f], w[g]), f"{name}: {cell_name}: {f} {c[f]} != {w[g]}")
        # run indices 1..5 in every arm: the bootstrap is paired, as for --bench-json files
        check(c["paired"] is True, f"{name}: {cell_name}: paired {c['paired']}")
        # the streams are this cell's (its name differs from the vector's), the CIs within the
        # spec's tolerance for another stream
        check(c["seed"] == str(rc.stream_seed(0, "candidate", cell_name, "")),
              f"{name}: {cell_name}: seed {c['seed']}")
        for f in ("ci_lo", "ci_hi", "floor", "aa_ci_lo", "aa_ci_hi"):
            check(abs(c[f] - w[f]) <= 0.005, f"{name}: {cell_name}: {f} {c[f]} vs {w[f]}")
    return out, doc


def case_vectors():
    vectors = rc.load(rc.VECTORS)["engine"]
    with tempfile.TemporaryDirectory() as tmp:
        check_vector_family(tmp, "family_b", vectors, "family_b_large", 2)
        check_vector_family(tmp, "family_d", vectors, "family_d_pass", 2,
                            ("UNMEASURED", "ci_wider_than_detect", 2))
        check_vector_family(tmp, "family_e", vectors, "family_e_unmeasured_cell", 2)
        out, doc = check_vector_family(tmp, "family_a", vectors, "family_a_small", 1)
        # the error rows of repo.init are skips with Google Benchmark's message
        init = {c["name"]: c for c in doc["cells"]}.get("tiny_text/repo.init", {})
        check([(s["subject"], s["run"], s["reason"]) for s in init.get("skips", [])] ==
              [(a, r, "error: skipped: not run") for a in ("baseline", "candidate", "aa")
               for r in (3, 4, 5)], f"vectors: repo.init skips {init.get('skips')}")
        check(re.search(r"^  candidate run 3 \(\S+candidate2\.json\), tiny_text/repo\.init: "
                        r"error: skipped: not run$", out, re.M) is not None,
              f"vectors: the skip line of repo.init\n{out}")


# ---- real files of a Google Benchmark program -------------------------------------------------

def fixture(out_path, reps, env=None, to_stdout=False):
    """One run of the fixture, its JSON written with --benchmark_out (or --benchmark_format=json
    on stdout)."""
    args = [FIXTURE, "--benchmark_min_time=0.01"]
    if reps > 1:
        args.append(f"--benchmark_repetitions={reps}")
    if not to_stdout:
        args += [f"--benchmark_out={out_path}", "--benchmark_out_format=json"]
    else:
        args.append("--benchmark_format=json")
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GBENCH_FIXTURE_")}
    full_env.update(env or {})
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env=full_env, timeout=300)
    check(p.returncode == 0, f"fixture {args}: exit {p.returncode}: {p.stderr.decode()}")
    if to_stdout:
        with open(out_path, "wb") as f:
            f.write(p.stdout)
    return out_path


def rounds(tmp, candidate_env, rounds_=ROUNDS, reps=REPS, fail_round=None):
    """ROUNDS rounds, each running baseline, candidate and the A/A control once, in an order
    shuffled per round (seeded): bN.json, cN.json, aN.json. The control writes to stdout."""
    files = {"baseline": [], "candidate": [], "aa": []}
    for r in range(1, rounds_ + 1):
        order = ["baseline", "candidate", "aa"]
        random.Random(r).shuffle(order)
        for subject in order:
            path = os.path.join(tmp, f"{subject[0]}{r}.json")
            env = dict(candidate_env) if subject == "candidate" else {}
            if subject == "candidate" and r == fail_round:
                env["GBENCH_FIXTURE_FAIL"] = "1"
            files[subject].append(fixture(path, reps, env, to_stdout=subject == "aa"))
    return files


def cell_id(c):
    return (c["name"], c["labels"])


def check_fixture_cells(doc, files, what, runs):
    got = sorted((cell_id(c) for c in doc["cells"]), key=repr)
    check(got == FIXTURE_CELLS, f"{what}: cells {got}, want {FIXTURE_CELLS}")
    for c in doc["cells"]:
        n = (c["n_baseline"], c["n_candidate"], c["n_aa"])
        check(n == (runs, runs, runs), f"{what}: {c['name']} {c['labels']}: runs {n}")
        check(c["state"] == "UNMEASURED" or c["paired"] is True,
              f"{what}: {c['name']}: paired {c['paired']} (run indices are the same in each arm)")
    # run j * REPS + i + 1 is repetition i of the j-th file, in ns (BM_micro is written in us)
    cells = {(c["name"], json.dumps(c["labels"], sort_keys=True)): c for c in doc["cells"]}
    for arm in ("baseline", "candidate", "aa"):
        per_file = runs // len(files[arm])
        for j, path in enumerate(files[arm]):
            for row in rc.load(path)["benchmarks"]:
                if row["run_type"] != "iteration":
                    continue
                if row["name"] not in FIXTURE_NAMES:
                    check(False, f"{what}: an unknown name {row['name']!r} in {path}")
                    continue
                name, labels = FIXTURE_NAMES[row["name"]]
                c = cells.get((name, json.dumps(labels, sort_keys=True)))
                if c is None:
                    continue
                scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[row["time_unit"]]
                got = c["runs_ns"][arm][j * per_file + row["repetition_index"]]
                want = None if row.get("error_occurred") else row["real_time"] * scale
                check(rc.close(got, want),
                      f"{what}: {arm} file {j + 1} {row['name']} repetition_index "
                      f"{row['repetition_index']}: runs_ns {got} != {want}")
    per_file = runs // len(files["baseline"])
    check(doc["subjects"]["baseline"]["files"] ==
          [p for p in files["baseline"] for _ in range(per_file)],
          f"{what}: baseline files {doc['subjects']['baseline']['files']}")


def case_regression():
    """The candidate does twice the work in every benchmark: REGRESSION, exit 1, and never a
    claimed improvement. An attempt whose A/A floor swallowed the change (a busy machine) is
    retried, and skipped with the floors when every attempt is one."""
    need_fixture()
    notes = []
    for attempt in range(1, rc.ATTEMPTS + 1):
        with tempfile.TemporaryDirectory() as tmp:
            files = rounds(tmp, {"GBENCH_FIXTURE_EXTRA_WORK": "100"})
            out_json = os.path.join(tmp, "out.json")
            code, out, err = rc.run(["compare", "--json", out_json] + rc.file_args(files))
            check(err == "", f"regression: stderr {err!r}")
            if not os.path.exists(out_json):
                check(False, f"regression: no --json\n{out}{err}")
                return
            doc = rc.load(out_json)
            rc.common_json_checks(doc, code, "regression")
            runs = ROUNDS * REPS
            check(out.startswith(f"libbench compare: {runs}/{runs}/{runs} runs from files "),
                  f"regression: header\n{out}")
            check_fixture_cells(doc, files, "regression", runs)
            wrong = [c["name"] for c in doc["cells"]
                     if c["state"] in ("CLAIMED", "UNCONFIRMED") and
                     c["direction"] != "regression"]
            check(not wrong, f"regression: claimed improvements {wrong}\n{out}")
            if rc.failures:
                print(out)
                return
            if doc["verdict"] != "REGRESSION":
                notes.append(f"attempt {attempt}: {doc['verdict']} {doc['reason']}, floors " +
                             ", ".join(f"{c['floor']:.1%}" for c in doc["cells"]
                                       if c["floor"] is not None))
                print(f"note: regression attempt {attempt}: not claimed (noise), retrying\n{out}")
                continue
            check(code == 1 and re.search(r"^verdict: REGRESSION \(claimed_regression\)$", out,
                                          re.M) is not None, f"regression: exit {code}\n{out}")
            claimed = [c for c in doc["cells"] if c["state"] == "CLAIMED"]
            check(claimed and all(c["rel_delta"] > 0 for c in claimed),
                  f"regression: claimed cells {claimed}")
            print(out)
            return
    rc.noisy_skip("regression", notes)


def case_aa():
    """The baseline against itself (a second run of the same program as the candidate): PASS
    or UNMEASURED, never a claimed change."""
    need_fixture()
    with tempfile.TemporaryDirectory() as tmp:
        files = rounds(tmp, {})
        out_json = os.path.join(tmp, "out.json")
        code, out, err = rc.run(["compare", "--json", out_json] + rc.file_args(files))
        doc = rc.load(out_json)
        rc.common_json_checks(doc, code, "aa")
        check_fixture_cells(doc, files, "aa", ROUNDS * REPS)
        claimed = [(c["name"], c["labels"], c["rel_delta"], c["floor"]) for c in doc["cells"]
                   if c["state"] == "CLAIMED"]
        check(not claimed, f"aa: a claimed change of the baseline against itself: {claimed}\n{out}")
        check((code, doc["verdict"]) in ((0, "PASS"), (2, "UNMEASURED")),
              f"aa: exit {code} verdict {doc['verdict']}\n{out}{err}")
        print(out)


def case_errors():
    """A benchmark that fails in the candidate's second round: its three repetitions there are
    skips with Google Benchmark's message; files without repetitions are one run each."""
    need_fixture()
    with tempfile.TemporaryDirectory() as tmp:
        files = rounds(tmp, {}, rounds_=2, fail_round=2)
        # the control as four files without --benchmark_repetitions: four runs
        files["aa"] = [fixture(os.path.join(tmp, f"single{k}.json"), 1, to_stdout=k % 2 == 0)
                       for k in range(4)]
        out_json = os.path.join(tmp, "out.json")
        code, out, err = rc.run(["compare", "--json", out_json] + rc.file_args(files))
        check(err == "", f"errors: stderr {err!r}")
        doc = rc.load(out_json)
        rc.common_json_checks(doc, code, "errors")
        check(out.startswith("libbench compare: 6/6/4 runs from files "), f"errors: header\n{out}")
        micro = next((c for c in doc["cells"] if c["name"] == "BM_micro"), {})
        check(micro.get("n_candidate") == 3 and micro.get("n_baseline") == 6 and
              micro.get("n_aa") == 4, f"errors: BM_micro runs {micro}")
        check([(s["subject"], s["run"], s["reason"]) for s in micro.get("skips", [])] ==
              [("candidate", r, "error: fixture: asked to fail") for r in (4, 5, 6)],
              f"errors: BM_micro skips {micro.get('skips')}")
        check(micro.get("runs_ns", {}).get("candidate", [0] * 6)[3:] == [None, None, None],
              f"errors: BM_micro runs_ns {micro.get('runs_ns')}")
        line = (f"  candidate run 4 ({files['candidate'][1]}), BM_micro "
                "{arg0=4096,threads=1,time=real_time}: error: fixture: asked to fail\n")
        check(line in out, f"errors: the skip line {line!r}\n{out}")
        others = [c for c in doc["cells"] if c["name"] != "BM_micro"]
        check(all(c["n_candidate"] == 6 and c["skips"] == [] for c in others),
              "errors: the other cells are whole")
        check(doc["subjects"]["aa"]["files"] == files["aa"], f"errors: aa files")


ALL = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ALL:
        sys.exit(f"usage: run_compare_gbench.py {{{'|'.join(sorted(ALL))}}}")
    if not rc.TOOL:
        sys.exit("COMPARE_TOOL is not set")
    ALL[sys.argv[1]]()
    for f in rc.failures:
        print("FAIL:", f)
    print(f"{sys.argv[1]}: {'ok' if not rc.failures else str(len(rc.failures)) + ' failure(s)'}")
    sys.exit(1 if rc.failures else 0)
