/* SPDX-License-Identifier: MIT */
/* workers.c: owns the process groups of worker processes (test mode's, and the supervised --bench
 * run's): each worker leads a group of its own (so a hung test or body is ended with everything
 * it started), the starting process's terminal signals passed on to the groups, the stopped time
 * that no timeout counts, and killing a group. It decides nothing about tests or benchmarks. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/alloc.h"
#include "../util/clock.h"
#include "workers.h"

/* Signals that end the runner and, before it, the workers (as the terminal's did when the
 * workers shared the runner's group), then SIGTSTP, which stops them together. */
static const int passed_on[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
#define N_PASSED (sizeof passed_on / sizeof passed_on[0])

/* What the signal handlers read: the workers' pids (0 = a free slot). */
static volatile sig_atomic_t *pids;
static volatile sig_atomic_t n_pids;
static struct sigaction saved[N_PASSED];
static bool installed[N_PASSED];
static sigset_t handled;
static atomic_llong stopped_ns;
/* Odd while stop_together runs: a reading of the clock and stopped_ns that saw it odd, or saw it
 * change, may hold half a stop, and is taken again. */
static atomic_ulong stop_seq;

static void signal_groups(int sig)
{
    for (sig_atomic_t i = 0; i < n_pids; i++) {
        pid_t pid = (pid_t)pids[i];
        if (pid > 0) {
            kill(-pid, sig);
            kill(pid, sig); /* should its own group not exist */
        }
    }
}

static void set_default(int sig)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT: to every worker group, then the default action here. */
static void pass_on_and_end(int sig)
{
    int saved_errno = errno;
    signal_groups(sig);
    set_default(sig);
    raise(sig); /* blocked while this handler runs: delivered when it returns */
    errno = saved_errno;
}

static void stop_together(int sig);

static struct sigaction handler_for(int sig)
{
    struct sigaction act = {.sa_handler = sig == SIGTSTP ? stop_together : pass_on_and_end};
    act.sa_mask = handled;
    return act;
}

/* SIGTSTP: stop the workers, then the runner; once continued, continue them and add the time
 * stopped to what timeouts leave out. */
static void stop_together(int sig)
{
    int saved_errno = errno;
    atomic_fetch_add(&stop_seq, 1);
    int64_t t0 = bench__clock_deadline_ns();
    signal_groups(SIGSTOP);
    set_default(sig);
    sigset_t tstp;
    sigemptyset(&tstp);
    sigaddset(&tstp, sig);
    raise(sig);
    pthread_sigmask(SIG_UNBLOCK, &tstp, NULL); /* the runner stops here until SIGCONT */
    pthread_sigmask(SIG_BLOCK, &tstp, NULL);
    struct sigaction act = handler_for(sig);
    sigaction(sig, &act, NULL);
    signal_groups(SIGCONT);
    atomic_fetch_add(&stopped_ns, (long long)(bench__clock_deadline_ns() - t0));
    atomic_fetch_add(&stop_seq, 1);
    errno = saved_errno;
}

void bench__workers_begin(size_t n)
{
    pids = bench__xcalloc(n ? n : 1, sizeof *pids);
    n_pids = (sig_atomic_t)n;
    atomic_store(&stopped_ns, 0);
    atomic_store(&stop_seq, 0);
    sigemptyset(&handled);
    for (size_t i = 0; i < N_PASSED; i++)
        sigaddset(&handled, passed_on[i]);
    for (size_t i = 0; i < N_PASSED; i++) {
        installed[i] = false;
        /* a program's own handler, or SIG_IGN, stays: the signal does not end the runner */
        if (sigaction(passed_on[i], NULL, &saved[i]) != 0 || (saved[i].sa_flags & SA_SIGINFO) ||
            saved[i].sa_handler != SIG_DFL)
            continue;
        struct sigaction act = handler_for(passed_on[i]);
        installed[i] = sigaction(passed_on[i], &act, NULL) == 0;
    }
}

void bench__workers_end(void)
{
    for (size_t i = 0; i < N_PASSED; i++)
        if (installed[i])
            sigaction(passed_on[i], &saved[i], NULL);
    n_pids = 0;
    free((void *)pids);
    pids = NULL;
}

pid_t bench__workers_fork(size_t slot)
{
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &handled, &old);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        for (size_t i = 0; i < N_PASSED; i++)
            if (installed[i])
                sigaction(passed_on[i], &saved[i], NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 0;
    }
    int err = errno;
    if (pid > 0) {
        setpgid(pid, pid); /* also here: the group exists before either process goes on */
        if ((sig_atomic_t)slot < n_pids)
            pids[slot] = pid;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return pid;
}

void bench__workers_forget(size_t slot)
{
    if ((sig_atomic_t)slot < n_pids)
        pids[slot] = 0;
}

void bench__workers_kill(size_t slot)
{
    if ((sig_atomic_t)slot >= n_pids || pids[slot] <= 0)
        return;
    pid_t pid = (pid_t)pids[slot];
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

int64_t bench__workers_stopped_ns(void)
{
    return (int64_t)atomic_load(&stopped_ns);
}

int64_t bench__workers_clock_ns(void)
{
    for (;;) {
        unsigned long seq = atomic_load(&stop_seq);
        long long stopped = atomic_load(&stopped_ns);
        int64_t now = bench__clock_deadline_ns();
        if (seq % 2 == 0 && atomic_load(&stop_seq) == seq)
            return now - (int64_t)stopped;
        if (seq % 2 != 0)
            sched_yield(); /* the stop is being handled on another thread */
    }
}
