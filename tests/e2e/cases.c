/* SPDX-License-Identifier: MIT */
/* cases.c: bench_case end to end: labels, client metrics (rate, level, a name colliding
 * with a built-in), a failing after, a skip in setup, a refused registration, a pinned
 * case, state copied at registration, provenance, and two loops in one body. */
#include <stdint.h>
#include <string.h>

#include <bench/shim.h>

struct counter {
    uint64_t calls;
    uint64_t fail_at; /* 0 = never */
    uint64_t value;
};

static void count_timed(void *state)
{
    struct counter *c = state;
    c->calls++;
    c->value = c->value * 3 + 1;
    bench_do_not_optimize(c->value);
}

static int count_after(void *state, const char **message)
{
    struct counter *c = state;
    if (c->fail_at && c->calls >= c->fail_at) {
        *message = "result mismatch at call 3\nsecond line is not shown";
        return 1;
    }
    return 0;
}

static void skip_setup(void *state)
{
    (void)state;
    bench_skip(NULL, "fixture missing");
}

static void check_state_setup(void *state)
{
    struct counter *c = state;
    BENCH_CHECK(c->value == 7); /* the value at registration, not the later one */
}

BENCHMARK(matrix)
{
    bench_provenance(b, "allocator=libc");
    bench_provenance(b, "allocator=libc"); /* deduplicated */
    struct counter state = {0, 0, 7};
    struct bench_label fast[] = {{"impl", "fast"}, {"dataset", "small"}};
    struct bench_label slow[] = {{"dataset", "small"}, {"impl", "slow"}};
    struct bench_metric metrics[] = {
        {"items", 10, BENCH_RATE}, {"depth", 4, BENCH_LEVEL}, {"cycles", 1, BENCH_LEVEL}};
    bench_case(b, BENCH_CASE_DEF(.name = "count", .labels = fast, .n_labels = 2, .state = &state,
                                 .state_size = sizeof state, .timed = count_timed,
                                 .after = count_after, .setup = check_state_setup,
                                 .metrics = metrics, .n_metrics = 3));
    state.value = 99; /* must not reach the registered copy */
    struct counter failing = {0, 3, 1};
    bench_case(b, BENCH_CASE_DEF(.name = "fails", .labels = slow, .n_labels = 2, .state = &failing,
                                 .state_size = sizeof failing, .timed = count_timed,
                                 .after = count_after));
    bench_case(b, BENCH_CASE_DEF(.name = "skips", .labels = slow, .n_labels = 1,
                                 .timed = count_timed, .setup = skip_setup));
    struct bench_label bad[] = {{"impl", "a\x1f"
                                         "b"}};
    int rc = bench_case(
        b, BENCH_CASE_DEF(.name = "refused", .labels = bad, .n_labels = 1, .timed = count_timed));
    BENCH_CHECK(rc == BENCH_ENAME);
    struct counter pinned = {0, 0, 1};
    bench_case(b, BENCH_CASE_DEF(.name = "pinned", .state = &pinned, .state_size = sizeof pinned,
                                 .timed = count_timed, .iterations = 50));
}

static void add_one(void *state)
{
    uint64_t *x = state;
    *x += 1;
    bench_do_not_optimize(*x);
}

BENCHMARK(two_loops)
{
    uint64_t x = 0;
    BENCH_ITER(b)
    {
        x++;
        bench_do_not_optimize(x);
    }
    bench_iter(b, add_one, &x);
}

BENCH_MAIN()
