/* SPDX-License-Identifier: MIT */
/* profile_leaf.c: a benchmark body whose hot code is a leaf function built without a frame
 * (-O2 -g -fno-omit-frame-pointer -momit-leaf-frame-pointer, as distributions build), called
 * from one named caller, for the --profile check that the leaf keeps its caller: the kernel's
 * frame-pointer walk skips the caller of a frameless leaf, DWARF unwinding does not. */
#include <stdint.h>

#include <bench/shim.h>

/* The leaf: no call, so GCC gives it no frame; its samples are nearly all of the body's. */
__attribute__((noinline)) static uint64_t leaf_function(uint64_t x)
{
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

/* The leaf's only caller (with a frame): a sample in the leaf must name it. */
__attribute__((noinline)) static uint64_t leaf_caller(uint64_t x)
{
    x = leaf_function(x);
    __asm__ volatile("" : "+r"(x));
    return x + 1;
}

BENCHMARK(leaf)
{
    uint64_t x = 88172645463325252ull;
    BENCH_ITER(b)
    {
        x = leaf_caller(x);
        bench_do_not_optimize(x);
    }
}

BENCH_MAIN()
