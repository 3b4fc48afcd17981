# SPDX-License-Identifier: MIT
# emulation.py: whether the end-to-end tests run under an emulator (qemu-user in the aarch64
# cross build), from LIBBENCH_TEST_EMULATED, which the cross build's test setup sets
# (docs/reference/platforms.md), and the emulator's own words taken out of what a program
# printed. A case whose path the emulator cannot provide checks the absence and its reason.
import os
import re

EMULATOR = os.environ.get("LIBBENCH_TEST_EMULATED") or None

# What qemu-user writes on a guest's stderr when the guest dies by a signal: not the program's
# output, so not part of what a case compares.
QEMU_SIGNAL = r"qemu: uncaught target signal \d+ \([^)]*\) - core (?:not )?dumped"


def without_emulator(text):
    """text without the emulator's lines (unchanged on a native run)."""
    if not EMULATOR:
        return text
    # an output block under a result line that holds nothing but the emulator's line
    text = re.sub(r"(?m)^( +)--- output ---\n\1" + QEMU_SIGNAL + r"\n(?!\1)", "", text)
    return re.sub(r"(?m)^[ \t]*" + QEMU_SIGNAL + r"\n", "", text)


def crash_reason(reason):
    """A crash reason as a case compares it: under the emulator the last output the library
    saw of a body killed by a signal is the emulator's line, so the output part is dropped."""
    if not EMULATOR or not isinstance(reason, str):
        return reason
    return re.sub(r"^(killed by SIG\w+)(; last output: .*)?$", r"\1", reason)
