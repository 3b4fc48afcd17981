/* SPDX-License-Identifier: MIT */
/* alloc_timing.c: the bodies of the "alloc" source's no-effect-on-timing benchmark (run.py):
 * one malloc and free per iteration, three of each, and a body that allocates nothing. Built
 * twice: with the interposer libbench-alloc.so linked (alloc_timing) and without (alloc_plain). */
#include <stdlib.h>

#include <bench/shim.h>

BENCHMARK(malloc_free_64)
{
    BENCH_ITER(b)
    {
        void *p = malloc(64);
        bench_do_not_optimize(p);
        free(p);
    }
}

BENCHMARK(three_mallocs)
{
    BENCH_ITER(b)
    {
        void *p = malloc(16), *q = malloc(32), *r = malloc(64);
        bench_do_not_optimize(p);
        bench_do_not_optimize(q);
        bench_do_not_optimize(r);
        free(p);
        free(q);
        free(r);
    }
}

BENCHMARK(no_alloc)
{
    unsigned x = 1;
    BENCH_ITER(b)
    {
        for (int i = 0; i < 16; i++)
            x = x * 3u + 1u;
        bench_do_not_optimize(x);
    }
}

BENCH_MAIN()
