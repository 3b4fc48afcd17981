/* SPDX-License-Identifier: MIT */
/* anchor_libbench.c: the libbench side of the anchor comparison: the six kernels as
 * BENCHMARKs with BENCH_ITER, plus tests that the shared kernels compute what they claim. */
#include <stdint.h>

#include <bench/shim.h>

#include "kernels.h"

BENCH_TEST(kernels_return_their_known_values)
{
    anchor_kernels_init();
    BENCH_CHECK(anchor_add_chain_1000() == ANCHOR_ADD_CHAIN_1000_RESULT);
    BENCH_CHECK(anchor_div_chain_64() == ANCHOR_DIV_CHAIN_64_RESULT);
    BENCH_CHECK(anchor_qsort_1000() == ANCHOR_QSORT_1000_RESULT);
    BENCH_CHECK(anchor_qsort_1000() == ANCHOR_QSORT_1000_RESULT); /* same input each call */
    BENCH_CHECK(anchor_fnv1a_1k() == anchor_fnv1a_1k());
    BENCH_CHECK(anchor_memcpy_4k() == (uint64_t)(unsigned char)(4095u * 31u + 7u));
}

/* Harness overhead per iteration: the loop with nothing in it but a compiler barrier that
 * emits no instruction (without it GCC deletes the loop in both harnesses). */
BENCHMARK(empty)
{
    BENCH_ITER(b)
    {
        bench_clobber_memory();
    }
}

BENCHMARK(add_chain_1000)
{
    anchor_kernels_init();
    BENCH_ITER(b)
    {
        bench_do_not_optimize(anchor_add_chain_1000());
    }
}

BENCHMARK(div_chain_64)
{
    anchor_kernels_init();
    BENCH_ITER(b)
    {
        bench_do_not_optimize(anchor_div_chain_64());
    }
}

BENCHMARK(memcpy_4k)
{
    anchor_kernels_init();
    BENCH_ITER(b)
    {
        bench_do_not_optimize(anchor_memcpy_4k());
    }
}

BENCHMARK(fnv1a_1k)
{
    anchor_kernels_init();
    BENCH_ITER(b)
    {
        bench_do_not_optimize(anchor_fnv1a_1k());
    }
}

BENCHMARK(qsort_1000)
{
    anchor_kernels_init();
    BENCH_ITER(b)
    {
        bench_do_not_optimize(anchor_qsort_1000());
    }
}

BENCH_MAIN()
