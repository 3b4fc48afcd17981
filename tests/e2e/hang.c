/* SPDX-License-Identifier: MIT */
/* hang.c: tests that never return, run by run_e2e.py with --timeout: one sleeps forever, one
 * leaves a child of its own holding the output pipe (so the whole process group must go), and
 * the tests around them must still run and pass. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>

#include <bench/shim.h>

BENCH_TEST(before)
{
    BENCH_CHECK(1 + 1 == 2);
}

BENCH_TEST(sleeps_forever)
{
    printf("going to sleep\n");
    for (;;)
        pause();
}

BENCH_TEST(child_holds_the_pipe)
{
    pid_t pid = fork();
    if (pid == 0)
        for (;;)
            pause();
    printf("helper %ld\n", (long)pid);
    for (;;)
        pause();
}

BENCH_TEST(after)
{
    BENCH_CHECK(2 + 2 == 4);
}

BENCH_MAIN()
