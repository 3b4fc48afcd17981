/* SPDX-License-Identifier: MIT */
/* emulation.h: whether the unit tests run under an emulator (qemu-user in the aarch64 cross
 * build), from LIBBENCH_TEST_EMULATED, which the cross build's test setup sets
 * (docs/reference/platforms.md). A test of a path the emulator cannot provide checks the
 * absence and its reason instead, and says so; it must not skip. */
#ifndef BENCH_TESTS_EMULATION_H
#define BENCH_TESTS_EMULATION_H

#include <stdlib.h>

/* The emulator's name, or NULL on a native run. */
static inline const char *test_emulator(void)
{
    const char *name = getenv("LIBBENCH_TEST_EMULATED");
    return name && *name ? name : NULL;
}

#endif /* BENCH_TESTS_EMULATION_H */
