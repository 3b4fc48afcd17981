/* SPDX-License-Identifier: MIT */
/* counting.c: benchmarks with a known cost in the counters, for the real-kernel checks of
 * the counting passes: one 64-byte read(2) per iteration, a ~50 ns busy body, and exactly
 * one getpid syscall per iteration. */
#define _DEFAULT_SOURCE /* syscall() */
#include <fcntl.h>
#include <stdint.h>
#if BENCH__LINUX
#include <sys/syscall.h>
#endif
#include <unistd.h>

#include <bench/shim.h>

BENCHMARK(read_zero_64)
{
    static char buf[64];
    int fd = open("/dev/zero", O_RDONLY);
    BENCH_CHECK(fd >= 0);
    BENCH_ITER(b)
    {
        ssize_t n = read(fd, buf, sizeof buf);
        bench_do_not_optimize(n);
    }
    close(fd);
}

BENCHMARK(busy_50ns)
{
    uint64_t x = 88172645463325252ull;
    BENCH_ITER(b)
    {
        for (int i = 0; i < 40; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            bench_do_not_optimize(x);
        }
    }
}

/* syscall(2), not getpid(): no libc may answer it from a cache */
BENCHMARK(one_getpid)
{
    BENCH_ITER(b)
    {
#if BENCH__LINUX
        long pid = syscall(SYS_getpid);
#else
        long pid = (long)getppid(); /* the portable build: a system call no libc caches */
#endif
        bench_do_not_optimize(pid);
    }
}

BENCH_MAIN()
