/* SPDX-License-Identifier: MIT */
/* quickstart.c: the program a newcomer copies. A few unit tests and one benchmark of a
 * small hash function. `./quickstart` runs the tests; `./quickstart --bench` measures. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <bench/shim.h>

/* The code under test: 32-bit FNV-1a. */
static uint32_t fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

BENCH_TEST(fnv1a_empty_is_offset_basis)
{
    BENCH_CHECK(fnv1a("", 0) == 2166136261u);
}

BENCH_TEST(fnv1a_known_vector)
{
    BENCH_CHECK(fnv1a("a", 1) == 0xe40c292cu);
    BENCH_CHECK(fnv1a("foobar", 6) == 0xbf9cf968u);
}

BENCH_TEST(fnv1a_depends_on_every_byte)
{
    char x[64], y[64];
    memset(x, 'x', sizeof x);
    memcpy(y, x, sizeof y);
    y[63] = 'y';
    BENCH_CHECK(fnv1a(x, sizeof x) != fnv1a(y, sizeof y));
}

BENCHMARK(fnv1a_1k)
{
    static unsigned char buf[1024]; /* setup: untimed */
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)i;
    BENCH_ITER(b) /* the timed region */
    {
        bench_do_not_optimize(fnv1a(buf, sizeof buf));
    }
}

BENCH_MAIN()
