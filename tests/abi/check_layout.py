#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_layout.py: layout.c's static checks (today's public structs against the frozen headers of
# every release) compiled for the targets a program is built for: x86-64 and aarch64 (the two the
# project supports), and i686 and 32-bit arm (ILP32, where pointers, size_t and the alignment of
# 64-bit fields differ). Clang alone can do that without a cross toolchain (-ffreestanding: the
# headers need only <stddef.h>, <stdint.h> and <stdbool.h>, which it carries); without clang the
# test is skipped (77), and the native build of layout.c still checks the host.
# usage: check_layout.py CLANG|'' LAYOUT_C INCLUDE_DIR...
import subprocess
import sys

TARGETS = ["x86_64-linux-gnu", "aarch64-linux-gnu", "i686-linux-gnu", "arm-linux-gnueabihf"]


def main():
    clang, source, incs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not clang:
        print("SKIP: no clang to compile layout.c for other targets")
        sys.exit(77)
    failed = False
    for target in TARGETS:
        cmd = [clang, f"--target={target}", "-ffreestanding", "-std=c11", "-Wall", "-Wextra",
               "-Wpedantic", "-Werror", "-fsyntax-only"] + [f"-I{d}" for d in incs] + [source]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            failed = True
            print(f"FAIL: {target}\n{p.stdout.decode()}")
        else:
            print(f"ok: {target}")
    sys.exit(1 if failed else 0)


main()
