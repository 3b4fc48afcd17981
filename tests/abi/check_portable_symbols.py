#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_portable_symbols.py: a -Dplatform=posix build's binaries call no Linux-only function.
# `nm -D --undefined-only` lists what each binary needs from the C library; none of it may be a
# Linux kernel interface the portable core promises to do without (docs/reference/platforms.md,
# "What is still not portable" lists the GNU or BSD functions it does still call). It fails on a
# deny-listed name, and on a binary with no undefined symbols at all (nm went wrong).
# --canary LIB: first prove the check can fail: LIB (canary.c) calls pipe2 and gettid, and must be
# reported needing exactly those two.
#
# usage: check_portable_symbols.py [--canary LIB] BINARY...
import re
import subprocess
import sys

# Linux-only: system calls without a POSIX form, and their glibc wrappers. perf_event_open and
# the tracepoints are reached through syscall(2), so syscall itself is denied too.
DENY = {
    "syscall", "pidfd_open", "pidfd_send_signal", "pidfd_getfd", "gettid", "pipe2", "dup3",
    "accept4", "ppoll", "statfs", "fstatfs", "statfs64", "fstatfs64", "prctl", "sched_getcpu",
    "sched_getaffinity", "sched_setaffinity", "epoll_create", "epoll_create1", "epoll_ctl",
    "epoll_wait", "epoll_pwait", "eventfd", "signalfd", "timerfd_create", "timerfd_settime",
    "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark",
    "sysinfo", "memfd_create", "get_nprocs", "get_nprocs_conf", "getauxval", "splice", "tee",
    "sendfile", "unshare", "setns", "clone", "clone3", "personality", "mremap",
    # GNU libc only, replaced in the portable core (lib/util/signal_name.c)
    "sigabbrev_np", "sigdescr_np",
}


def undefined(binary):
    out = subprocess.run(["nm", "-D", "--undefined-only", binary], stdout=subprocess.PIPE,
                         check=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if parts:
            names.add(re.sub(r"@.*", "", parts[-1]))
    return names


def main(args):
    failures = 0
    if args[:1] == ["--canary"]:
        caught = sorted(undefined(args[1]) & DENY)
        if caught != ["gettid", "pipe2"]:
            print(f"FAIL: the canary {args[1]} is reported needing {caught}, "
                  "want ['gettid', 'pipe2']")
            failures += 1
        else:
            print(f"{args[1]}: the canary's gettid and pipe2 are caught")
        binaries = args[2:]
    else:
        binaries = args
    for binary in binaries:
        names = undefined(binary)
        if not names:
            print(f"FAIL: {binary}: nm listed no undefined symbol")
            failures += 1
            continue
        bad = sorted(names & DENY)
        for name in bad:
            print(f"FAIL: {binary} needs the Linux-only {name}")
        failures += len(bad)
        print(f"{binary}: {len(names)} undefined symbols, {len(bad)} Linux-only")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
