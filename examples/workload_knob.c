/* SPDX-License-Identifier: MIT */
/* workload_knob.c: three small benchmarks for trying `libbench compare`. `mix` does
 * LIBBENCH_EXAMPLE_EXTRA_WORK percent more rounds when that variable is set (e.g. 25). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bench/shim.h>

#define MIX_ROUNDS 2000u

/* Extra rounds in percent from the environment: a whole number in [0, 1000], else 0. */
static unsigned extra_percent(void)
{
    const char *text = getenv("LIBBENCH_EXAMPLE_EXTRA_WORK");
    if (!text || !*text)
        return 0;
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    return (*end == '\0' && v <= 1000) ? (unsigned)v : 0;
}

/* A dependent chain of xorshift-multiply steps: the time is linear in `rounds`, and the
 * compiler can neither vectorize it nor fold it into a closed form. */
static uint64_t mix(uint64_t x, unsigned rounds)
{
    for (unsigned i = 0; i < rounds; i++) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9u;
        x ^= x >> 32;
    }
    return x;
}

BENCHMARK(mix)
{
    unsigned rounds = MIX_ROUNDS + MIX_ROUNDS * extra_percent() / 100; /* setup: untimed */
    uint64_t x = 0x9E3779B97F4A7C15u;
    BENCH_ITER(b)
    {
        x = mix(x, rounds);
        bench_do_not_optimize(x);
    }
}

BENCHMARK(sum_4k)
{
    static uint32_t data[1024];
    for (size_t i = 0; i < 1024; i++)
        data[i] = (uint32_t)(i * 2654435761u);
    BENCH_ITER(b)
    {
        uint32_t sum = 0;
        for (size_t i = 0; i < 1024; i++)
            sum += data[i];
        bench_do_not_optimize(sum);
        bench_clobber_memory();
    }
}

BENCHMARK(copy_16k)
{
    static unsigned char src_buf[16384], dst_buf[16384];
    unsigned char *src = src_buf, *dst = dst_buf;
    memset(src, 0x5A, sizeof src_buf);
    bench_do_not_optimize(src); /* the buffers escape: the clobber below covers them */
    bench_do_not_optimize(dst);
    BENCH_ITER(b)
    {
        memcpy(dst, src, sizeof dst_buf);
        bench_clobber_memory();
    }
}

BENCH_MAIN()
