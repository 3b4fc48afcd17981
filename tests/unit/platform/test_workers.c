/* SPDX-License-Identifier: MIT */
/* test_workers.c: Ctrl-Z (SIGTSTP) in the middle of bench__workers_fork, the moment a worker's
 * start is most easily miscounted: the worker forked then is stopped with the runner, and the
 * time stopped is left out of bench__workers_clock_ns (a reading taken before the fork) yet
 * counted in bench__workers_stopped_ns. The runner is a child process leading a group of its
 * own (a stop is discarded in an orphaned group); the test process stops and resumes it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "platform/workers.h"
#include "util/clock.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOPPED_NS 200000000LL /* how long the test keeps the runner stopped, at least */

/* What the runner reports once resumed. */
struct report {
    int64_t real_before, start, now, real_after, stopped;
};

static volatile sig_atomic_t armed;
/* The runner and its worker while the test may leave them behind (a failed check), else 0. */
static pid_t runner_pid, worker_pid;

/* fork()'s parent handler: runs inside fork(), while bench__workers_fork blocks signals, so
 * the SIGTSTP waits and is handled when the fork unblocks them. */
static void tstp_inside_fork(void)
{
    if (armed) {
        armed = 0;
        kill(getpid(), SIGTSTP);
    }
}

/* The runner: a start reading, a worker forked with a SIGTSTP coming in the middle of the fork,
 * then a reading once resumed; the worker is killed and the readings go to the pipe. */
static void runner(int report_fd)
{
    setpgid(0, 0);
    signal(SIGTSTP, SIG_DFL); /* a program's own disposition would stay: the default is tested */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL); /* nor may a mask inherited from the test's caller */
    bench__workers_begin(1);
    if (pthread_atfork(NULL, tstp_inside_fork, NULL) != 0)
        _exit(3);
    struct report rep;
    rep.real_before = bench__clock_deadline_ns();
    rep.start = bench__workers_clock_ns();
    armed = 1;
    pid_t pid = bench__workers_fork(0);
    if (pid == 0)
        for (;;)
            pause();
    if (pid < 0)
        _exit(4);
    rep.now = bench__workers_clock_ns();
    rep.real_after = bench__clock_deadline_ns();
    rep.stopped = bench__workers_stopped_ns();
    bench__workers_kill(0);
    waitpid(pid, NULL, 0);
    bench__workers_forget(0);
    bench__workers_end();
    _exit(write(report_fd, &rep, sizeof rep) == (ssize_t)sizeof rep ? 0 : 5);
}

/* The state letter of /proc/<pid>/stat, or '?'. */
static char state_of(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *paren = strrchr(text, ')');
    return paren && paren[1] == ' ' ? paren[2] : '?';
}

/* The runner's only child (its worker), or -1. */
static pid_t worker_of(pid_t parent)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)parent, (long)parent);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long pid = -1;
    if (fscanf(f, "%ld", &pid) != 1)
        pid = -1;
    fclose(f);
    return (pid_t)pid;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void test_tstp_during_fork(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        runner(fds[1]);
    }
    close(fds[1]);
    setpgid(pid, pid);
    runner_pid = pid;

    /* the runner stops in its SIGTSTP handler, and the worker forked under it with it */
    int status;
    assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
    assert_true(WIFSTOPPED(status));
    pid_t worker = worker_of(pid);
    assert_true(worker > 0);
    worker_pid = worker;
    char st = '?';
    for (int i = 0; i < 1000 && (st = state_of(worker)) != 'T'; i++)
        sleep_ns(10000000); /* the SIGSTOP is sent; the worker takes it when next scheduled */
    assert_int_equal(st, 'T');

    sleep_ns(STOPPED_NS);
    assert_int_equal(kill(pid, SIGCONT), 0);
    struct report rep;
    ssize_t got = read(fds[0], &rep, sizeof rep);
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    runner_pid = worker_pid = 0; /* the runner reaped its worker, and is reaped */
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(got, (ssize_t)sizeof rep);

    /* the stop is counted as stopped time, and left out of the clock: its two readings are
     * apart by the real time between them less (at least) the time the runner was stopped */
    assert_true(rep.stopped >= STOPPED_NS);
    assert_true(rep.now >= rep.start);
    assert_true(rep.now - rep.start <= rep.real_after - rep.real_before - STOPPED_NS);
}

/* A failed check leaves the runner stopped: it and its worker's group go. */
static int kill_leftovers(void **state)
{
    (void)state;
    if (worker_pid > 0)
        kill(-worker_pid, SIGKILL);
    if (runner_pid > 0) {
        kill(runner_pid, SIGKILL);
        waitpid(runner_pid, NULL, 0);
    }
    runner_pid = worker_pid = 0;
    return 0;
}

/* Without a stop the clock is bench__clock_deadline_ns (the seam), less nothing. */
static int64_t fake_now;
static int64_t fake_clock(void)
{
    return fake_now;
}

static void test_clock_follows_the_seam(void **state)
{
    (void)state;
    int64_t (*saved)(void) = bench__clock_deadline_ns;
    bench__clock_deadline_ns = fake_clock;
    bench__workers_begin(1);
    fake_now = 5000;
    assert_int_equal(bench__workers_clock_ns(), 5000);
    fake_now = 7500;
    assert_int_equal(bench__workers_clock_ns(), 7500);
    bench__workers_end();
    bench__clock_deadline_ns = saved;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_tstp_during_fork, kill_leftovers),
        cmocka_unit_test(test_clock_follows_the_seam),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
