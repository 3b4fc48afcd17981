/* SPDX-License-Identifier: MIT */
/* served_knob.c: the subject of compare's paired mode end to end (run_compare_paired.py): a
 * BENCH_ITER cell whose work grows by SERVED_EXTRA percent, a steady one, two bench_case cells,
 * a whole-body cell, and a cell that crashes (SERVED_CRASH=1) or hangs (SERVED_HANG=1) from its
 * body's second call on (the first is the listing, the second the first sample or calibration),
 * or fails (SERVED_FAIL=1); `steady` prints a line on its stdout when SERVED_SAY is set. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bench/shim.h>

static unsigned env_percent(const char *name)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return 0;
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    return (*end == '\0' && v <= 1000) ? (unsigned)v : 0;
}

static uint64_t mix(uint64_t x, unsigned rounds)
{
    for (unsigned i = 0; i < rounds; i++) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9u;
        x ^= x >> 32;
    }
    return x;
}

BENCHMARK(work)
{
    unsigned rounds = 1000 + 1000 * env_percent("SERVED_EXTRA") / 100; /* setup: untimed */
    uint64_t x = 0x9E3779B97F4A7C15u;
    BENCH_ITER(b)
    {
        x = mix(x, rounds);
        bench_do_not_optimize(x);
    }
}

BENCHMARK(steady)
{
    if (getenv("SERVED_SAY"))
        printf("steady: a line of the body on its stdout\n"); /* stderr under --bench-serve */
    uint64_t x = 7;
    BENCH_ITER(b)
    {
        x = mix(x, 500);
        bench_do_not_optimize(x);
    }
}

struct case_state {
    unsigned rounds;
    uint64_t x;
};

static void case_timed(void *state)
{
    struct case_state *s = state;
    s->x = mix(s->x, s->rounds);
    bench_do_not_optimize(s->x);
}

BENCHMARK(table)
{
    static const unsigned sizes[] = {200, 800};
    for (size_t i = 0; i < 2; i++) {
        char value[16];
        value[0] = (char)('0' + i);
        value[1] = '\0';
        struct bench_label label = {.key = "size", .value = value};
        struct case_state s = {sizes[i], 3};
        bench_case(b, BENCH_CASE_DEF(.name = "table", .labels = &label, .n_labels = 1, .state = &s,
                                     .state_size = sizeof s, .timed = case_timed));
    }
}

BENCHMARK(whole)
{
    static uint64_t x = 11;
    x = mix(x, 300);
    bench_do_not_optimize(x);
}

BENCHMARK(zz_fragile)
{
    static unsigned calls;
    calls++;
    if (calls >= 2 && getenv("SERVED_CRASH"))
        raise(SIGSEGV);
    if (calls >= 2 && getenv("SERVED_FAIL"))
        bench_fail(b, "told to fail on call %u", calls);
    if (calls >= 2 && getenv("SERVED_HANG"))
        for (;;)
            pause();
    uint64_t x = 5;
    BENCH_ITER(b)
    {
        x = mix(x, 300);
        bench_do_not_optimize(x);
    }
}

BENCH_MAIN()
