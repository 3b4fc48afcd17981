/* SPDX-License-Identifier: MIT */
/* cmocka_dispatch.c: an existing cmocka binary with one BENCH_DISPATCH line. Without a
 * bench-mode flag cmocka runs as before; with --bench libbench measures its benchmark. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <bench/shim.h>

BENCHMARK(xor_shift)
{
    uint64_t x = 88172645463325252ull;
    BENCH_ITER(b)
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bench_do_not_optimize(x);
    }
}

static void adds(void **state)
{
    (void)state;
    assert_int_equal(2 + 2, 4);
}

/* the benchmark's body, smoke-tested once as an ordinary cmocka test */
static void smoke_xor_shift(void **state)
{
    (void)state;
    assert_int_equal(bench_smoke("xor_shift"), BENCH_STATUS_PASSED);
    assert_int_equal(bench_smoke("no_such_benchmark"), BENCH_ENOENT);
}

int main(int argc, char **argv)
{
    BENCH_DISPATCH(argc, argv);
    const struct CMUnitTest tests[] = {cmocka_unit_test(adds), cmocka_unit_test(smoke_xor_shift)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
