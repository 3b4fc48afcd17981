#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: build the libFuzzer target over the document readers of `libbench compare`
# with clang (fuzzer, ASan, UBSan) and run it. The committed seeds in corpus/ are only
# read; what the fuzzer finds grows in $FUZZ_DIR/corpus.
# usage: tests/fuzz/run.sh [SECONDS] [libFuzzer options...]   (default 60 s)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
work=${FUZZ_DIR:-$src/build-fuzz}
mkdir -p "$work/corpus" "$work/artifacts"
clang -std=c11 -g -O1 -Wall -Wextra -Wpedantic -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$src/tools" -I"$src/lib" -I"$src/include" "$src/tests/fuzz/fuzz_compare_json.c" \
    "$src/tools/compare_input.c" "$src/tools/compare_gbench.c" "$src/lib/util/text.c" \
    "$src/lib/util/alloc.c" \
    $(pkg-config --cflags --libs jansson) -lm -o "$work/fuzz_compare_json"
exec "$work/fuzz_compare_json" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -dict="$src/tests/fuzz/compare_json.dict" -artifact_prefix="$work/artifacts/" \
    -print_final_stats=1 "$@" "$work/corpus" "$src/tests/fuzz/corpus"
