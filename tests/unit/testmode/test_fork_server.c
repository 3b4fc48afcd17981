/* SPDX-License-Identifier: MIT */
/* test_fork_server.c: --timeout against the fork servers of --isolate=test (bench__fork_servers_run
 * on a suite of its own, one job, --timeout=2). The seam bench__fork_server_seam makes a server
 * sleep before a test or with a test's end held, so that the runner's belief of which test runs,
 * and since when, is wrong at the deadline: a test that passes is reported as passed and no test
 * runs twice. A server that cannot answer (its test stopped it) is killed by the runner after the
 * grace, and the reason says so. When poll fails (RLIMIT_NOFILE lowered under it: EINVAL), in the
 * runner the tests not ended stay not ended and the error comes back, and in a server the test
 * it runs is killed and ends failed, the error named. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testmode/fork_server.h"
#include "platform/workers.h"
#include "suite/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define N_TESTS 2
#define MS 1000000L
#define TIMEOUT_S 2

static int runs_w = -1; /* each test writes its letter here when it runs */

static void nap(long ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void say_ran(char letter)
{
    if (write(runs_w, &letter, 1) != 1)
        abort();
}

static void first(bench_t *b)
{
    (void)b;
    say_ran('a');
}

static void second(bench_t *b)
{
    (void)b;
    say_ran('b');
}

/* Passes after 600 ms: well inside the limit. */
static void first_naps(bench_t *b)
{
    (void)b;
    say_ran('a');
    nap(600 * MS);
}

/* Stops its fork server (its parent), which then cannot answer, and waits to be killed. */
static void first_stops_server(bench_t *b)
{
    (void)b;
    say_ran('a');
    kill(getppid(), SIGSTOP);
    for (;;)
        pause();
}

/* The first test's end held 2.5 s: past its deadline (which counts from the time its batch was
 * sent, before it began), well inside the runner's grace of 2 s after it. */
static void hold_end(size_t index, bool ended)
{
    if (index == 0 && ended)
        nap(2500 * MS);
}

/* The first test begins 1.8 s after its batch was sent: at the deadline it ran about 200 ms, and
 * it ends 400 ms after. */
static void hold_start(size_t index, bool ended)
{
    if (index == 0 && !ended)
        nap(1800 * MS);
}

/* poll fails with EINVAL for more descriptors than RLIMIT_NOFILE allows: 0 makes it fail. */
static struct rlimit saved_nofile;

static void lower_nofile(void)
{
    if (getrlimit(RLIMIT_NOFILE, &saved_nofile) != 0 ||
        setrlimit(RLIMIT_NOFILE, &(struct rlimit){0, saved_nofile.rlim_max}) != 0)
        abort();
}

static void restore_nofile(void)
{
    if (setrlimit(RLIMIT_NOFILE, &saved_nofile) != 0)
        abort();
}

/* The server's poll fails while the first test runs. */
static void server_poll_fails(size_t index, bool ended)
{
    if (index != 0)
        return;
    if (!ended)
        lower_nofile();
    else
        restore_nofile();
}

struct seen {
    size_t ends[N_TESTS];
    struct bench__test_end end[N_TESTS];
    char message[N_TESTS][256];
    bool poll_fails; /* the runner's poll fails from the first tick on */
    int rc;          /* what bench__fork_servers_run returned */
};

static void on_end(void *arg, struct bench__test_end *end)
{
    struct seen *seen = arg;
    assert_true(end->index < N_TESTS);
    seen->ends[end->index]++;
    seen->end[end->index] = *end;
    snprintf(seen->message[end->index], sizeof seen->message[0], "%s",
             end->message ? end->message : "");
    seen->end[end->index].message = NULL;
    seen->end[end->index].output = NULL;
    free(end->output);
}

static void on_tick(void *arg)
{
    struct seen *seen = arg;
    if (seen->poll_fails && seen->rc == 0) {
        lower_nofile();
        seen->rc = 1; /* lowered: bench__fork_servers_run's result replaces it */
    }
}

static struct bench_test make_test(const char *name, void (*fn)(bench_t *))
{
    return (struct bench_test){.size = sizeof(struct bench_test),
                               .kind = BENCH_KIND_TEST,
                               .name = name,
                               .file = "fork_server.c",
                               .line = 1,
                               .fn = fn};
}

/* Run the tests `fn` (the second one passes at once) in one job with --timeout=2 and the seam;
 * returns the letters of the tests that ran, in the order they ran. */
static char *run(void (*fn)(bench_t *), void (*seam)(size_t, bool), struct seen *seen)
{
    struct bench_test tests[N_TESTS] = {make_test("a", fn), make_test("b", second)};
    tests[0].next = &tests[1];
    struct bench__suite suite;
    char err[256];
    assert_int_equal(bench__suite_load(&suite, tests, err, sizeof err), 0);
    size_t order[N_TESTS] = {0, 1};
    int runs[2];
    assert_int_equal(pipe2(runs, O_CLOEXEC), 0);
    runs_w = runs[1];
    struct bench__test_pool pool = {.suite = &suite,
                                    .tests = order,
                                    .n_tests = N_TESTS,
                                    .n_workers = 1,
                                    .timeout = TIMEOUT_S,
                                    .output_cap = 4096,
                                    .idle_ms = 200,
                                    .arg = seen,
                                    .end = on_end,
                                    .tick = on_tick};
    bench__fork_server_seam = seam;
    bench__workers_begin(1);
    int rc = bench__fork_servers_run(&pool);
    if (seen->rc == 1)
        restore_nofile();
    seen->rc = rc;
    bench__workers_end();
    bench__fork_server_seam = NULL;
    close(runs[1]);
    static char ran[16];
    ssize_t n = read(runs[0], ran, sizeof ran - 1);
    ran[n > 0 ? n : 0] = '\0';
    close(runs[0]);
    bench__suite_free(&suite);
    return ran;
}

static void assert_passed(const struct seen *seen, size_t i)
{
    assert_int_equal(seen->ends[i], 1);
    assert_int_equal(seen->end[i].kind, BENCH__END_REPORTED);
    assert_int_equal(seen->end[i].outcome, BENCH__PASSED);
}

/* The first test passed at once, but its server holds its end past the deadline: the runner still
 * believes the first test runs when its deadline passes. */
static void test_end_held_past_deadline(void **state)
{
    (void)state;
    struct seen seen = {0};
    char *ran = run(first, hold_end, &seen);
    assert_passed(&seen, 0);
    assert_passed(&seen, 1);
    assert_string_equal(ran, "ab"); /* nothing ran twice */
}

/* The first test began late: at the runner's deadline it has time left, and passes in it. */
static void test_start_later_than_believed(void **state)
{
    (void)state;
    struct seen seen = {0};
    char *ran = run(first_naps, hold_start, &seen);
    assert_passed(&seen, 0);
    assert_passed(&seen, 1);
    assert_string_equal(ran, "ab");
}

/* A server that cannot answer: the runner kills the group after the grace, the test timed out
 * with the reason, and a new server runs the next test. */
static void test_server_does_not_answer(void **state)
{
    (void)state;
    struct seen seen = {0};
    char *ran = run(first_stops_server, NULL, &seen);
    assert_int_equal(seen.ends[0], 1);
    assert_int_equal(seen.end[0].kind, BENCH__END_TIMED_OUT);
    assert_true(seen.end[0].unanswered);
    assert_passed(&seen, 1);
    assert_string_equal(ran, "ab");
}

/* The runner's poll fails: neither test ends (the caller reports them as not run), the error
 * comes back, and the server is reaped. */
static void test_runner_poll_fails(void **state)
{
    (void)state;
    struct seen seen = {.poll_fails = true};
    run(first_naps, NULL, &seen);
    assert_int_equal(seen.rc, -EINVAL);
    assert_int_equal(seen.ends[0], 0);
    assert_int_equal(seen.ends[1], 0);
}

/* The server's poll fails while the first test runs: it kills the test, which ends failed with
 * the error named (never with an exit status of 0), and the next test runs. */
static void test_server_poll_fails(void **state)
{
    (void)state;
    struct seen seen = {0};
    char *ran = run(first_naps, server_poll_fails, &seen);
    assert_int_equal(seen.rc, 0);
    assert_int_equal(seen.ends[0], 1);
    assert_int_equal(seen.end[0].kind, BENCH__END_REPORTED);
    assert_int_equal(seen.end[0].outcome, BENCH__FAILED);
    assert_non_null(strstr(seen.message[0], "poll: "));
    assert_non_null(strstr(seen.message[0], strerror(EINVAL)));
    assert_passed(&seen, 1);
    assert_non_null(strchr(ran, 'b'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_end_held_past_deadline),
        cmocka_unit_test(test_start_later_than_believed),
        cmocka_unit_test(test_server_does_not_answer),
        cmocka_unit_test(test_runner_poll_fails),
        cmocka_unit_test(test_server_poll_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
