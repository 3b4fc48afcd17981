#!/bin/sh
# SPDX-License-Identifier: MIT
# track-your-benchmarks-week.sh: makes the simulated week of track-your-benchmarks.md again, with
# real runs: seven days of three repetitions each of the history suite (tests/e2e/history.c)
# recorded with the record times of seven mornings; from day 5 on `sort` does twice the work
# (HISTORY_SLOW, a real slowdown that stays), and on day 7 `parse` fails its check in one
# repetition (HISTORY_FAIL). Then the report (terminal table, its change points, report.json,
# report.html), a malformed document, and a rebuild.
#
# usage: docs/tutorials/track-your-benchmarks-week.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR  a libbench build with its tests (default: build)
#   OUT_DIR    where the documents and the store go, emptied first (default: week)
# With SCREENSHOT=FILE, also shoots report.html in headless Chromium (tests/e2e/browser_check.py)
# into FILE, 1600 pixels wide: the tutorial's picture is SCREENSHOT=docs/images/report-week.png.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
out=${2:-week}
suite=$build/tests/e2e/e2e_history
libbench=$build/tools/libbench
shot=${SCREENSHOT:-}
case $shot in "" | /*) ;; *) shot=$(pwd)/$shot ;; esac
for f in "$suite" "$libbench"; do
    [ -x "$f" ] || { echo "error: $f not built (meson compile -C $build)" >&2; exit 2; }
done
rm -rf "$out"
mkdir -p "$out"
cd "$out"

for day in 1 2 3 4 5 6 7; do
    for rep in a b c; do
        slow= fail=
        [ "$day" -ge 5 ] && slow=sort
        [ "$day" = 7 ] && [ "$rep" = c ] && fail=parse
        # exit status 1 when a benchmark failed its check: expected on day 7
        HISTORY_SLOW=$slow HISTORY_SLOW_FACTOR=2 HISTORY_FAIL=$fail \
            "$suite" --bench --bench-rounds=4 --bench-json="day$day$rep.json" >/dev/null 2>&1 ||
            [ -n "$fail" ]
    done
    "$libbench" record --profile nightly --subject main --timestamp "2026-11-0${day}T06:00:00Z" \
        "day${day}a.json" "day${day}b.json" "day${day}c.json"
done

echo '$ libbench report'
"$libbench" report | tee report.txt
echo '$ libbench report --changes'
"$libbench" report --changes | tee changes.txt
"$libbench" report --json report.json --html report.html >/dev/null
echo "wrote $(pwd)/report.json and $(pwd)/report.html"

echo '$ libbench record ... broken.json'
echo '{"schema": 2, "rows": [' >broken.json
"$libbench" record --profile nightly --subject main --timestamp 2026-11-08T06:00:00Z broken.json ||
    echo "(exit status $?)"

echo '$ libbench results rebuild'
rm results/index.sqlite
"$libbench" results rebuild
"$libbench" report --json after.json >/dev/null
cmp report.json after.json && echo "the report after the rebuild is identical"

if [ -n "$shot" ]; then
    python3 "$root/tests/e2e/browser_check.py" report.html --width 1600 --screenshot "$shot"
    echo "wrote $shot"
fi
