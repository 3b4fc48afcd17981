/* SPDX-License-Identifier: MIT */
/* crashing.c: bodies that take their process down or never finish, for the supervised --bench
 * end to end: a segfault, an abort, an exit(0), a hang (with a child in its process group), a
 * case that crashes between two good ones, a read of the terminal, a crashing and a hanging
 * workload. Every other row
 * must still be measured, the crashes named, the table and the JSON complete, the exit 1. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bench/shim.h>

static volatile unsigned sink;

static void spin(void *state)
{
    (void)state;
    sink = sink + 1;
}

static void crash(void *state)
{
    (void)state;
    raise(SIGSEGV);
}

BENCHMARK(a_measured_first)
{
    BENCH_ITER(b) sink = sink + 1;
}

BENCHMARK(b_segfaults)
{
    printf("b_segfaults: about to crash\n");
    raise(SIGSEGV);
}

BENCHMARK(c_aborts)
{
    BENCH_ITER(b) sink = sink + 1; /* a measured loop, then the abort: the body's row says so */
    printf("c_aborts: about to abort\n"); /* from a second worker: its stdout is a pipe too */
    abort();
}

BENCHMARK(d_exits)
{
    exit(0);
}

/* Hangs, with a child in its process group; the child's pid goes to $CRASHING_CHILD_PID_FILE so
 * the test can check it was killed with the group. */
BENCHMARK(e_hangs)
{
    pid_t child = fork();
    if (child == 0) {
        for (;;)
            pause();
    }
    const char *path = getenv("CRASHING_CHILD_PID_FILE");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%d\n", (int)child);
        fclose(f);
    }
    fprintf(stderr, "e_hangs: waiting forever\n");
    for (;;)
        pause();
}

BENCHMARK(f_cases)
{
    bench_case(b, BENCH_CASE_DEF(.name = "good_before", .timed = spin));
    bench_case(b, BENCH_CASE_DEF(.name = "crashes", .timed = crash));
    bench_case(b, BENCH_CASE_DEF(.name = "good_after", .timed = spin));
}

/* Reads the terminal when $CRASHING_READ_TERMINAL is set (run under a pseudo-terminal: the worker
 * is in the background and is stopped by SIGTTIN); otherwise a whole-body row. */
BENCHMARK(h_reads_terminal)
{
    if (getenv("CRASHING_READ_TERMINAL")) {
        char c;
        ssize_t got = read(STDIN_FILENO, &c, 1);
        (void)got;
    }
    sink = sink + 1;
}

BENCHMARK(g_measured_last)
{
    BENCH_ITER(b) sink = sink + 1;
}

WORKLOAD(w_aborts)
{
    WORKLOAD_WINDOW(b, "before") sink = sink + 1;
    abort();
}

WORKLOAD(w_hangs)
{
    for (;;)
        pause();
}

WORKLOAD(w_measured)
{
    sink = sink + 1;
}

BENCH_MAIN()
