/* SPDX-License-Identifier: MIT */
/* run_helper.c: a small program for the end-to-end tests of `libbench run` (run_run.py):
 *   run_helper touch MIB   allocate MIB MiB and write one byte in every page of it
 *   run_helper map FILE    mmap FILE and read one byte of every page (page faults)
 *   run_helper spin N      N rounds of a dependent integer loop (work in proportion to N)
 * It exits 0, or 2 with a line on stderr when something fails. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile uint64_t sink;

static int touch(long mib)
{
    size_t len = (size_t)mib << 20;
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *p = malloc(len);
    if (!p || page <= 0) {
        fputs("run_helper: out of memory\n", stderr);
        return 2;
    }
    for (size_t i = 0; i < len; i += (size_t)page)
        p[i] = (unsigned char)i;
    sink = p[len / 2];
    free(p);
    return 0;
}

static int map(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        perror(path);
        return 2;
    }
    size_t len = (size_t)st.st_size;
    const unsigned char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    long page = sysconf(_SC_PAGESIZE);
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i += (size_t)page)
        sum += p[i];
    sink = sum;
    munmap((void *)p, len);
    close(fd);
    return 0;
}

static int spin(long n)
{
    uint64_t h = 1469598103934665603u;
    for (long i = 0; i < n; i++)
        h = (h ^ (uint64_t)i) * 1099511628211u;
    sink = h;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "touch") == 0)
        return touch(atol(argv[2]));
    if (argc == 3 && strcmp(argv[1], "map") == 0)
        return map(argv[2]);
    if (argc == 3 && strcmp(argv[1], "spin") == 0)
        return spin(atol(argv[2]));
    fputs("usage: run_helper touch MIB | map FILE | spin N\n", stderr);
    return 2;
}
