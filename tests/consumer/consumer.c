/* SPDX-License-Identifier: MIT */
/* consumer.c: a program outside the libbench tree, built against an installed libbench
 * (pkg-config) and against libbench as a Meson subproject by check_consumers.sh. */
#include <string.h>

#include <bench/shim.h>

BENCH_TEST(links_and_runs)
{
    BENCH_CHECK(strcmp(bench_version_string(), BENCH_VERSION_STRING) == 0);
    BENCH_CHECK(bench_version() == BENCH_VERSION_NUMBER);
}

BENCH_MAIN()
