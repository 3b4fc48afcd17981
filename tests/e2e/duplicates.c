/* SPDX-License-Identifier: MIT */
/* duplicates.c: bodies whose rows would share a cell (a name and labels) of the --bench-json
 * document: two bodies that register the same case, one body that registers a case twice, and
 * a case whose row (duplicates.loop: cases are named by the file stem too) is another body's
 * loop row. Each later one must be refused, so the document stays readable by `libbench
 * compare`. */
#include <stdint.h>

#include <bench/shim.h>

static void work(void *state)
{
    uint64_t *x = state;
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    bench_do_not_optimize(*x);
}

static void shared_case(bench_t *b)
{
    static const struct bench_label impl[] = {{"impl", "x"}};
    uint64_t x = 1;
    bench_case(b, BENCH_CASE_DEF(.name = "shared", .labels = impl, .n_labels = 1, .timed = work,
                                 .state = &x, .state_size = sizeof x, .iterations = 64));
}

BENCHMARK(first)
{
    shared_case(b);
}

BENCHMARK(second)
{
    shared_case(b);
    shared_case(b);
}

BENCHMARK(loop)
{
    uint64_t x = 1;
    BENCH_ITER(b)
    {
        work(&x);
    }
}

BENCHMARK(named_like_loop)
{
    uint64_t x = 1;
    bench_case(b, BENCH_CASE_DEF(.name = "loop", .timed = work, .state = &x, .state_size = sizeof x,
                                 .iterations = 64));
}

BENCH_MAIN()
