#!/bin/bash
# SPDX-License-Identifier: MIT
# check_consumers.sh: libbench used the two ways another project uses it: installed and
# found with pkg-config (headers under include/bench/, the shim as <bench/shim.h>), and
# as a Meson subproject through dependency('libbench'). Each builds and runs consumer.c. As a
# subproject libbench builds nothing but its library (the targets are counted), unless asked.
# The installed `libbench` tool carries its own libdir as its run path (install_rpath), so it
# finds libbench.so.0 under any prefix: read from its dynamic section with readelf.
# usage: check_consumers.sh SOURCE_DIR BUILD_DIR SANITIZE (b_sanitize, e.g. none) [CC [CROSS_FILE]]
# CC is the build's C compiler command; a cross build also gives its cross file, which the
# subproject's own build uses (docs/reference/platforms.md).
set -eu
src=$1 build=$2 sanitize=${3:-none} compiler=${4:-cc} cross_file=${5:-}
cross=()
[ -z "$cross_file" ] || cross=(--cross-file "$cross_file")
san_flags=""
[ "$sanitize" = none ] || san_flags="-fsanitize=$sanitize"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
consumer=$src/tests/consumer/consumer.c

echo "== installed, found with pkg-config"
meson install -C "$build" --destdir "$work/root" --quiet >/dev/null
pcdir=$(dirname "$(find "$work/root" -name libbench.pc | head -n 1)")
test -f "$(find "$work/root" -path '*/include/bench/shim.h' | head -n 1)"
export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$work/root
cflags=$(pkg-config --cflags libbench)
libs=$(pkg-config --libs libbench)
echo "pkg-config: $cflags $libs"
$compiler -std=c11 -Wall -Wextra -Wpedantic -Werror $san_flags $cflags "$consumer" -o "$work/by-pkgconfig" $libs
libdir=$(dirname "$(find "$work/root" -name 'libbench.so.0' | head -n 1)")
LD_LIBRARY_PATH=$libdir "$work/by-pkgconfig" | tee "$work/out1"
grep -q '^Summary: 1 passed, 0 failed' "$work/out1"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

echo "== the installed tool's run path is its libdir"
# The prefix and libdir this build installs to; the tool, installed under the destdir, must name
# that libdir (without the destdir) in its RUNPATH or RPATH, and libbench.so.0 must be there.
# Once the destdir is the root, the loader finds the library through the tool alone, with no
# LD_LIBRARY_PATH or ldconfig, whatever the prefix.
want=$(meson introspect --buildoptions "$build" | python3 -c '
import json, os, sys
o = {b["name"]: b["value"] for b in json.load(sys.stdin)}
print(os.path.join(o["prefix"], o["libdir"]))')
tool=$(find "$work/root" -path '*/bin/libbench' -type f | head -n 1)
if [ -z "$tool" ]; then
    echo "skipped: this build installs no libbench tool (-Dtool=false)"
elif ! command -v readelf >/dev/null; then
    echo "skipped: readelf (binutils) is not installed, so the tool's run path cannot be read"
else
    paths=$(readelf -d "$tool" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
    echo "installed tool: ${tool#"$work/root"}, run path: ${paths:-(none)}, libdir: $want"
    case ":$paths:" in
    *":$want:"*) ;;
    *)
        echo "error: the installed libbench tool does not name its libdir $want in its run path"
        exit 1
        ;;
    esac
    test -e "$work/root$want/libbench.so.0" || {
        echo "error: libbench.so.0 is not installed in $want"
        exit 1
    }
fi

echo "== as a Meson subproject"
mkdir -p "$work/proj/subprojects"
ln -s "$(cd "$src" && pwd)" "$work/proj/subprojects/libbench"
cp "$consumer" "$work/proj/"
# no options: a subproject builds the library, its headers and the dependency override only
cat > "$work/proj/meson.build" <<'MESON'
project('consumer', 'c', default_options: ['c_std=c11', 'warning_level=3', 'werror=true'])
bench = dependency('libbench', fallback: ['libbench', 'libbench_dep'])
executable('consumer', 'consumer.c', dependencies: bench)
MESON
targets() { # the build's targets, one "name type" a line, sorted
    meson introspect --targets "$1" |
        python3 -c 'import json, sys; print("\n".join(sorted(t["name"] + " " + t["type"] for t in json.load(sys.stdin))))'
}
meson setup "$work/proj/build" "$work/proj" "${cross[@]}" --wrap-mode=nodownload >/dev/null
targets "$work/proj/build" | tee "$work/targets"
printf '%s\n' "bench shared library" "bench static library" "consumer executable" >"$work/want"
diff -u "$work/want" "$work/targets" || {
    echo "error: as a subproject libbench built more than its library: $(wc -l <"$work/targets") targets"
    exit 1
}
echo "subproject targets: $(wc -l <"$work/targets") (the consumer and libbench's shared and static library)"
ninja -C "$work/proj/build" >/dev/null
"$work/proj/build/consumer" | tee "$work/out2"
grep -q '^Summary: 1 passed, 0 failed' "$work/out2"
# asked for, the examples build in a subproject too
meson setup "$work/proj/asked" "$work/proj" "${cross[@]}" --wrap-mode=nodownload -Dlibbench:examples=true >/dev/null
targets "$work/proj/asked" | grep -q '^quickstart executable$' || {
    echo "error: -Dlibbench:examples=true did not build the examples"
    exit 1
}
echo "consumers: ok"
