/* SPDX-License-Identifier: MIT */
/* test_one_clock.c: every deadline of test mode runs on the one deadline clock
 * (bench__clock_deadline_ns, util/clock.h): the runner's, and the worker's or fork server's
 * record of when a test began and how long it ran. The clock is replaced by a fake one in memory
 * the runner shares with every process it starts, set far from CLOCK_MONOTONIC, and only the
 * tests move it. With --timeout=1, in both isolation modes: a test that moves it 0.9 s and one
 * that moves it 0.5 s (past the runner's deadline for the first) pass, with exactly those
 * durations; one that keeps moving it is timed out; the tests after it run. Were the runner on
 * one clock and the worker on another, the second test would be killed (the worker's start read
 * on another clock), or the third never (the runner's deadline on a clock the tests do not
 * move), and the durations would not be the fake ones. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "platform/workers.h"
#include "suite/registry.h"
#include "testmode/fork_server.h"
#include "testmode/test_worker.h"
#include "util/clock.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define N_TESTS 8
#define MS 1000000LL

/* Shared with every process the runner starts. */
static struct shared {
    _Atomic int64_t ns;        /* the fake clock */
    _Atomic int in_time_began; /* in_time moved it past the runner's first deadline */
} * sh;

static int64_t fake_clock(void)
{
    return atomic_load(&sh->ns);
}

/* Move the fake clock by `first` at once, then by `step` `steps` times, a real millisecond
 * apart. */
static void advance(int64_t first, int64_t step, long steps)
{
    atomic_fetch_add(&sh->ns, first);
    for (long i = 0; i < steps; i++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        atomic_fetch_add(&sh->ns, step);
    }
}

static void quick(bench_t *b)
{
    (void)b;
    advance(900 * MS, 0, 0);
}

/* Passes 0.5 s after it began. Its first move passes the runner's deadline for `quick` (1 s
 * after the batch of both was sent), and the runner, held in its first tick until then, has not
 * read quick's end: it judges in_time by the worker's record of when it began (it ran 0.2 s, in
 * time), or asks the fork server about quick, which has ended. */
static void in_time(bench_t *b)
{
    (void)b;
    advance(200 * MS, 0, 0);
    atomic_store(&sh->in_time_began, 1);
    advance(0, 50 * MS, 6);
}

/* Moves the clock 50 ms per real millisecond until it is killed (for at least 10 s of real time:
 * a run that never times it out fails, it does not hang). */
static void slow(bench_t *b)
{
    (void)b;
    advance(0, 50 * MS, 10000);
}

static void after(bench_t *b)
{
    (void)b;
    advance(100 * MS, 0, 0);
}

struct seen {
    bool ticked;
    size_t ends[N_TESTS];
    struct bench__test_end end[N_TESTS];
};

static void on_end(void *arg, struct bench__test_end *end)
{
    struct seen *seen = arg;
    assert_true(end->index < N_TESTS);
    seen->ends[end->index]++;
    seen->end[end->index] = *end;
    seen->end[end->index].message = NULL;
    seen->end[end->index].output = NULL;
    free(end->output);
}

/* The first tick (after the first batch was sent, before the runner's first scan of the
 * deadlines) waits until in_time began (at most 10 s). */
static void on_tick(void *arg)
{
    struct seen *seen = arg;
    for (int i = 0; !seen->ticked && i < 10000 && !atomic_load(&sh->in_time_began); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    seen->ticked = true;
}

static void run(int (*pool_run)(const struct bench__test_pool *), struct seen *seen)
{
    /* 8 tests in one job: the first batch is quick and in_time */
    void (*fn[N_TESTS])(bench_t *) = {quick, in_time, slow, after, after, after, after, after};
    const char *names[N_TESTS] = {"quick",  "in_time", "slow",   "after",
                                  "after2", "after3",  "after4", "after5"};
    struct bench_test tests[N_TESTS];
    for (size_t i = 0; i < N_TESTS; i++)
        tests[i] = (struct bench_test){.size = sizeof(struct bench_test),
                                       .kind = BENCH_KIND_TEST,
                                       .name = names[i],
                                       .file = "one_clock.c",
                                       .line = 1 + (int)i,
                                       .fn = fn[i],
                                       .next = i + 1 < N_TESTS ? &tests[i + 1] : NULL};
    struct bench__suite suite;
    char err[256];
    assert_int_equal(bench__suite_load(&suite, tests, err, sizeof err), 0);
    size_t order[N_TESTS] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct bench__test_pool pool = {.suite = &suite,
                                    .tests = order,
                                    .n_tests = N_TESTS,
                                    .n_workers = 1,
                                    .timeout = 1,
                                    .output_cap = 4096,
                                    .idle_ms = 100,
                                    .arg = seen,
                                    .end = on_end,
                                    .tick = on_tick};
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(sh != MAP_FAILED);
    /* far from CLOCK_MONOTONIC: a reading of the real clock against the fake one is off by hours */
    atomic_init(&sh->ns, bench__clock_deadline_ns() + 10000LL * 1000 * MS);
    atomic_init(&sh->in_time_began, 0);
    bench__clock_deadline_ns = fake_clock;
    bench__workers_begin(1);
    assert_int_equal(pool_run(&pool), 0);
    bench__workers_end();
    bench__clock_reset();
    munmap(sh, sizeof *sh);
    bench__suite_free(&suite);
}

static void check(const struct seen *seen)
{
    for (size_t i = 0; i < N_TESTS; i++)
        assert_int_equal(seen->ends[i], 1);
    const int64_t ran[N_TESTS] = {900 * MS, 500 * MS, 0,        100 * MS,
                                  100 * MS, 100 * MS, 100 * MS, 100 * MS};
    for (size_t i = 0; i < N_TESTS; i++) {
        if (i == 2)
            continue;
        assert_int_equal(seen->end[i].kind, BENCH__END_REPORTED);
        assert_int_equal(seen->end[i].outcome, BENCH__PASSED);
        assert_int_equal(seen->end[i].duration_ns, ran[i]); /* the fake clock's */
    }
    assert_int_equal(seen->end[2].kind, BENCH__END_TIMED_OUT);
    assert_true(seen->end[2].duration_ns >= 1000 * MS);
    assert_false(seen->end[2].unanswered);
}

static void test_workers(void **state)
{
    (void)state;
    struct seen seen = {0};
    run(bench__test_workers_run, &seen);
    check(&seen);
}

static void test_fork_servers(void **state)
{
    (void)state;
    struct seen seen = {0};
    run(bench__fork_servers_run, &seen);
    check(&seen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workers),
        cmocka_unit_test(test_fork_servers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
