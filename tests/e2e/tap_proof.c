/* SPDX-License-Identifier: MIT */
/* tap_proof.c: the living proof of --tap: tests/e2e/meson.build registers this binary with
 * protocol: 'tap', so `meson test` counts and names each of its tests
 * (docs/how-to/report-to-ci.md). */
#include <string.h>

#include <bench/shim.h>

BENCH_TEST(adds)
{
    BENCH_CHECK(1 + 1 == 2);
}

BENCH_TEST(compares_strings)
{
    BENCH_CHECK(strcmp("libbench", "libbench") == 0);
}

BENCH_TEST(skips_with_reason)
{
    bench_skip(b, "shows how a skip reads in meson test");
}

BENCH_TEST(writes_output)
{
    BENCH_CHECK(memchr("abc", 'c', 3) != NULL);
}

BENCH_MAIN()
