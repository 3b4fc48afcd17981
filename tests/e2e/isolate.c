/* SPDX-License-Identifier: MIT */
/* isolate.c: tests that show what a worker process holds, run by run_e2e.py under both
 * --isolate modes: state one test leaves for the next, a new worker after a crash and an exit,
 * the same worker after a failed check, a failure on a thread the test started, and output long
 * enough to fill a pipe kept with its own test. Each test prints its pid and the shared counter so
 * the runner's verbose output tells. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bench/shim.h>

static int shared;

static void say(const char *name)
{
    printf("%s pid %ld shared %d\n", name, (long)getpid(), shared);
}

BENCH_TEST(a_sets_state)
{
    shared = 42;
    say("a");
}

BENCH_TEST(b_sees_state)
{
    say("b");
}

BENCH_TEST(c_crashes)
{
    say("c");
    raise(SIGSEGV);
}

BENCH_TEST(d_after_crash)
{
    say("d");
    shared = 7;
}

BENCH_TEST(e_exits)
{
    say("e");
    exit(0);
}

BENCH_TEST(f_after_exit)
{
    say("f");
}

BENCH_TEST(g_fails_check)
{
    say("g");
    shared = 9;
    BENCH_CHECK(shared == 10);
}

BENCH_TEST(h_after_check)
{
    say("h");
}

/* 3 MiB: more than a pipe holds and more than the 1 MiB kept per test */
BENCH_TEST(i_floods)
{
    for (int i = 0; i < 3 * 16384; i++)
        printf("i flood %05d %s\n", i, "................................................");
}

BENCH_TEST(j_after_flood)
{
    say("j");
}

static void *fail_here(void *arg)
{
    bench_fail(arg, "failed on thread %d", 2);
    return NULL;
}

BENCH_TEST(k_fails_on_thread)
{
    say("k");
    pthread_t thread;
    if (pthread_create(&thread, NULL, fail_here, b) != 0)
        bench_fail(b, "pthread_create failed");
    pthread_join(thread, NULL);
    printf("k never gets here\n");
}

BENCH_TEST(l_after_thread)
{
    say("l");
}

BENCH_MAIN()
