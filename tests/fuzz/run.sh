#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: fuzz the readers of the `libbench` tool. Builds the libFuzzer targets of tests/fuzz/
# from the tool's libraries with clang (meson -Dfuzz=true, ASan and UBSan) in $FUZZ_DIR (default
# build-fuzz), then runs each target named (default: all of them) for SECONDS (default 60) on a
# working corpus in $FUZZ_DIR/corpus/<target> seeded from the committed seeds, which are only
# read. One line per target: its executions, executions per second, and how it ended.
# usage: tests/fuzz/run.sh [SECONDS [TARGET...]] [-- libFuzzer options...]
# exit status: 0 when no target found anything, 1 when one did (its reproducer in
# $FUZZ_DIR/artifacts/<target>/), 2 when the build failed.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=60
case "${1:-}" in [0-9]*) seconds=$1; shift ;; esac
targets=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do targets="$targets $1"; shift; done
[ "${1:-}" = "--" ] && shift
[ -n "$targets" ] ||
    targets="compare_json compare_gbench export_doc json_rows record_doc results_line report_html"
work=${FUZZ_DIR:-$src/build-fuzz}
cc=${CC:-clang}

if [ ! -f "$work/build.ninja" ]; then
    CC=$cc meson setup "$work" "$src" -Dfuzz=true -Db_sanitize=address,undefined \
        -Db_lundef=false -Dbuildtype=debugoptimized -Dtests=false -Dexamples=false \
        -Dbenchmarks=false -Dtool=true >"$work.setup.log" 2>&1 || {
        tail -n 30 "$work.setup.log"
        echo "run.sh: meson setup failed (needs clang: CC=clang)"
        exit 2
    }
fi
programs=""
for t in $targets; do programs="$programs fuzz_$t"; done
# shellcheck disable=SC2086
meson compile -C "$work" $programs >"$work.build.log" 2>&1 || {
    tail -n 30 "$work.build.log"
    echo "run.sh: build failed"
    exit 2
}

seeds() {
    case $1 in
    compare_json | compare_gbench) echo "$src/tests/fuzz/corpus" ;;
    export_doc | record_doc | json_rows) echo "$src/tests/fuzz/corpus-run $src/tests/fuzz/corpus" ;;
    results_line) echo "$src/tests/fuzz/corpus-lines" ;;
    report_html) echo "$src/tests/data/report-normal.json $src/tests/data/report-states.json \
$src/tests/data/report-hostile.json" ;;
    esac
}
dict() {
    case $1 in
    compare_json | compare_gbench) echo "-dict=$src/tests/fuzz/compare_json.dict" ;;
    *) echo "-dict=$src/tests/fuzz/results.dict" ;;
    esac
}

status=0
for t in $targets; do
    mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
    log="$work/fuzz_$t.log"
    # the seeds are copied in (read, never written): libFuzzer writes to the first folder only
    for s in $(seeds "$t"); do
        if [ -d "$s" ]; then cp -n "$s"/* "$work/corpus/$t/" 2>/dev/null; else cp -n "$s" "$work/corpus/$t/"; fi
    done
    # shellcheck disable=SC2046
    "$work/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
        $(dict "$t") -artifact_prefix="$work/artifacts/$t/" -print_final_stats=1 "$@" \
        "$work/corpus/$t" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    per_s=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    if [ $rc -eq 0 ]; then
        how="nothing found"
    else
        how="FOUND (exit $rc): $(grep -m 1 -E 'ERROR|invariant broken|runtime error' "$log")"
        status=1
    fi
    echo "fuzz_$t: ${execs:-?} executions in ${seconds} s, ${per_s:-?}/s, $how"
done
exit $status
