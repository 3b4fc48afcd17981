/* SPDX-License-Identifier: MIT */
/* fork_floor.c: the host's floor for one isolated test: a small process forks a child that
 * exits at once and waits for it (fork, and vfork for comparison), and prints the median cost of
 * each in ns. A measuring program: it must not use libbench, so the floor is the OS's cost and
 * nothing of ours. See benchmarks/test_mode/README.md. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int compare_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* One sample: from just before the call that makes the child until waitpid returned. */
static int64_t sample(int use_vfork)
{
    int64_t t0 = monotonic_ns();
    pid_t pid = use_vfork ? vfork() : fork();
    if (pid == 0)
        _exit(0);
    if (pid < 0) {
        perror("fork_floor: fork");
        exit(2);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        continue;
    return monotonic_ns() - t0;
}

int main(int argc, char **argv)
{
    long samples = 500;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
            samples = strtol(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: fork_floor [--samples N]\n");
            return 2;
        }
    }
    if (samples < 1)
        samples = 1;
    int64_t *t[2];
    for (int m = 0; m < 2; m++) {
        t[m] = calloc((size_t)samples, sizeof *t[m]);
        if (!t[m])
            return 2;
    }
    for (int m = 0; m < 2; m++) /* warm-up */
        for (int i = 0; i < 5; i++)
            sample(m);
    for (long i = 0; i < samples; i++) /* interleaved: a slow phase falls on both */
        for (int m = 0; m < 2; m++)
            t[m][i] = sample(m);
    static const char *const name[] = {"fork", "vfork"};
    for (int m = 0; m < 2; m++) {
        qsort(t[m], (size_t)samples, sizeof *t[m], compare_i64);
        printf("%s\t%lld\n", name[m], (long long)t[m][samples / 2]);
        free(t[m]);
    }
    return 0;
}
