/* SPDX-License-Identifier: MIT */
/* supervisor.c: owns the worker processes of a supervised --bench run: starting one (its own
 * process group, its stdout, stderr and events on pipes), passing its output and events to the
 * collector in the order they were written, the timeout of the item in progress, killing the
 * worker's process group, naming how it ended, and starting the next worker after the item it
 * died on. One worker at a time: measurements run exactly as in one process. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if BENCH__LINUX
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include "../../platform/fds.h"
#include "../../platform/workers.h"
#include "../../util/alloc.h"
#include "../../util/clock.h"
#include "../../util/signal_name.h"
#include "../measuring/run.h"
#include "../wire/decode.h"
#include "../wire/encode.h"
#include "supervisor.h"

/* A run never starts more workers than this: a guard against a body that dies differently each
 * time it is run. */
#define MAX_WORKERS 10000u

/* The worker writes events, stdout and stderr; the supervisor writes the answers to begin
 * events (ACK: the one pipe the other way). */
enum { EVENTS, OUT, ERR, N_PIPES, ACK = N_PIPES };

struct worker {
    pid_t pid;
    int pidfd; /* -1: the kernel has no pidfd_open; exit is polled */
    int fd[N_PIPES];
    bool open[N_PIPES];
    int ack;    /* the write end of the answers */
    char *line; /* the event being read */
    size_t len, cap;
    bool exited;
    int status;
    bool reaped;     /* false: waitpid found no child (SIGCHLD ignored): status unknown */
    int stop_signal; /* SIGTTIN or SIGTTOU: it stopped at the terminal, and was killed */
    bool timed_out;
};

/* SIGPIPE is ignored while supervising, so that an answer to a worker that just died is an
 * error, not the supervisor's death; the worker gets the program's disposition back. */
static void ignore_sigpipe(struct sigaction *saved)
{
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, saved);
}

/* ---- the worker's side ---------------------------------------------------------------------- */

static _Noreturn void worker_main(const struct bench__config *cfg, const struct bench__suite *suite,
                                  const struct bench__resume *resume, pid_t parent,
                                  int pipes[N_PIPES + 1][2], const struct sigaction *sigpipe)
{
    sigaction(SIGPIPE, sigpipe, NULL);
#if BENCH__LINUX
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* no orphan measures on after its supervisor died */
#endif
    if (getppid() != parent)
        _exit(127);
    for (int i = 0; i < N_PIPES; i++)
        close(pipes[i][0]);
    close(pipes[ACK][1]);
    if (dup2(pipes[OUT][1], STDOUT_FILENO) < 0 || dup2(pipes[ERR][1], STDERR_FILENO) < 0)
        _exit(127);
    close(pipes[OUT][1]);
    close(pipes[ERR][1]);
    /* a line a body printed reaches the supervisor even if the body then crashes. The buffer is
     * given: glibc keeps a stream's old write area when setvbuf gets none, and a newline then
     * flushes nothing once this process's parent had written to stdout */
    static char line_buffer[BUFSIZ];
    setvbuf(stdout, line_buffer, _IOLBF, sizeof line_buffer);
    struct bench__wire_out *wire = bench__wire_open(pipes[EVENTS][1], pipes[ACK][0]);
    struct bench__sink sink = bench__wire_sink(wire);
    bench__measure_suite(cfg, suite, &sink, resume);
    fflush(stdout);
    fflush(stderr);
    bench__wire_close(wire);
    _exit(0); /* the supervisor's atexit work is not the worker's */
}

/* ---- the supervisor's side ------------------------------------------------------------------- */

static void close_worker(struct worker *w)
{
    for (int i = 0; i < N_PIPES; i++)
        if (w->open[i])
            close(w->fd[i]);
    close(w->ack);
    if (w->pidfd >= 0)
        close(w->pidfd);
    free(w->line);
}

static int start_worker(const struct bench__config *cfg, const struct bench__suite *suite,
                        const struct bench__resume *resume, struct worker *w,
                        const struct sigaction *sigpipe)
{
    memset(w, 0, sizeof *w);
    w->pidfd = -1;
    int pipes[N_PIPES + 1][2];
    for (int i = 0; i <= ACK; i++)
        if (bench__pipe2(pipes[i], O_CLOEXEC) != 0) {
            int err = errno;
            for (int j = 0; j < i; j++) {
                close(pipes[j][0]);
                close(pipes[j][1]);
            }
            errno = err;
            return -1;
        }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = bench__workers_fork(0); /* a process group of its own */
    if (pid == 0)
        worker_main(cfg, suite, resume, parent, pipes, sigpipe);
    int err = errno;
    for (int i = 0; i < N_PIPES; i++) {
        close(pipes[i][1]);
        if (pid < 0)
            close(pipes[i][0]);
    }
    close(pipes[ACK][0]);
    w->ack = pipes[ACK][1];
    if (pid < 0) {
        close(w->ack);
        errno = err;
        return -1;
    }
    w->pid = pid;
    for (int i = 0; i < N_PIPES; i++) {
        w->fd[i] = pipes[i][0];
        w->open[i] = true;
        fcntl(w->fd[i], F_SETFL, fcntl(w->fd[i], F_GETFL) | O_NONBLOCK);
    }
    w->pidfd = bench__pidfd_open(pid);
    return 0;
}

/* Pass on what the worker wrote to stdout and stderr so far. */
static void drain_output(struct worker *w, struct bench__collector *c)
{
    char buf[4096];
    for (int i = OUT; i <= ERR; i++) {
        while (w->open[i]) {
            ssize_t n = read(w->fd[i], buf, sizeof buf);
            if (n > 0) {
                bench__collector_output(c, i == ERR, buf, (size_t)n);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0) {
                close(w->fd[i]);
                w->open[i] = false;
            }
            break; /* EAGAIN: nothing more for now */
        }
    }
}

static void reap(struct worker *w, bool block)
{
    if (w->exited)
        return;
    int status = 0;
    pid_t got;
    do
        got = waitpid(w->pid, &status, block ? 0 : WNOHANG);
    while (got < 0 && errno == EINTR);
    if (got == w->pid) {
        w->exited = w->reaped = true;
        w->status = status;
    } else if (got < 0) { /* ECHILD: SIGCHLD is ignored, the kernel reaped it */
        w->exited = true;
    }
}

/* Read the events that arrived; each is handed over after the output written before it. */
static void read_events(struct worker *w, struct bench__collector *c, int64_t *last_event)
{
    struct bench__sink sink = bench__collector_sink(c);
    char buf[8192];
    while (w->open[EVENTS]) {
        ssize_t n = read(w->fd[EVENTS], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            close(w->fd[EVENTS]);
            w->open[EVENTS] = false;
        }
        if (n <= 0)
            return;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                w->line = bench__grow(w->line, &w->cap, w->len + 1, 1);
                w->line[w->len++] = buf[i];
                continue;
            }
            drain_output(w, c);
            int kind = bench__wire_decode(&sink, w->line, w->len);
            if (kind < 0)
                fprintf(stderr, "libbench: an unreadable event from the measuring process was "
                                "ignored\n");
            /* the worker waits for this before it runs a body's code again: all it wrote before
             * is taken, all it writes after is the item's, and nothing here competes with its
             * measuring */
            if (kind == BENCH__EVENT_sync && write(w->ack, "", 1) != 1)
                bench__workers_kill(0); /* it cannot go on without the answer */
            w->len = 0;
            *last_event = bench__clock_deadline_ns();
        }
    }
}

/* How the worker ended (malloc'd). For an item's error row: "killed by SIGSEGV", "exited with
 * status 0 before the benchmark finished", "stopped by SIGTTIN: ..."; `as_sentence` gives the
 * predicate of "the measuring process ..." instead ("was killed by SIGSEGV"). */
static char *describe_end(const struct worker *w, const struct bench__collector *c,
                          bool as_sentence)
{
    const char *word = bench__collector_item_word(c);
    char *unfinished =
        word ? bench__xasprintf(" before the %s finished", word) : bench__xstrdup("");
    const char *was = as_sentence ? "was " : "";
    char *what;
    if (w->stop_signal) {
        what = bench__xasprintf("%sstopped by SIG%s: it used the terminal, which a measuring "
                                "process in the background cannot (--bench-in-process can)",
                                was, bench__signal_abbrev(w->stop_signal));
    } else if (!w->reaped) {
        what = bench__xasprintf("ended%s (its exit status was not kept: the program ignores or "
                                "reaps SIGCHLD)",
                                unfinished);
    } else if (WIFSIGNALED(w->status)) {
        int sig = WTERMSIG(w->status);
        const char *abbrev = bench__signal_abbrev(sig);
        const char *core = WCOREDUMP(w->status) ? " (core dumped)" : "";
        what = abbrev ? bench__xasprintf("%skilled by SIG%s%s", was, abbrev, core)
                      : bench__xasprintf("%skilled by signal %d%s", was, sig, core);
    } else {
        what = bench__xasprintf("exited with status %d%s", WEXITSTATUS(w->status), unfinished);
    }
    free(unfinished);
    return what;
}

/* A worker stopped by job control for using the terminal (SIGTTIN, SIGTTOU) waits for ever: it is
 * in a process group of its own, in the background. Any other stop is left to the timeout. */
static bool stopped_at_the_terminal(struct worker *w)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)w->pid, &info, WSTOPPED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid != w->pid || info.si_code != CLD_STOPPED)
        return false;
    if (info.si_status != SIGTTIN && info.si_status != SIGTTOU)
        return false;
    w->stop_signal = info.si_status;
    return true;
}

/* Watch a worker until it exits, its item outlives the timeout, or it stops at the terminal (then
 * it is killed). Returns the description of a timeout (malloc'd), or NULL. */
static char *watch(struct worker *w, struct bench__collector *c, unsigned timeout_s)
{
    int64_t last_event = bench__clock_deadline_ns();
    int64_t timeout_ns = (int64_t)timeout_s * 1000000000;
    int64_t counted_from = -1, stopped_before = 0;
    for (;;) {
        struct pollfd p[N_PIPES + 1];
        int n = 0;
        for (int i = 0; i < N_PIPES; i++)
            if (w->open[i])
                p[n++] = (struct pollfd){.fd = w->fd[i], .events = POLLIN};
        if (w->pidfd >= 0)
            p[n++] = (struct pollfd){.fd = w->pidfd, .events = POLLIN};
        /* a stop wakes nothing: look at least once a second (and every 50 ms without pidfd) */
        int wait_ms = w->pidfd >= 0 ? 1000 : 50;
        if (timeout_ns > 0) {
            int64_t since = bench__collector_item_since(c);
            if (since < 0)
                since = last_event;
            if (since != counted_from) { /* a new item: time stopped (^Z) before it is not its */
                counted_from = since;
                stopped_before = bench__workers_stopped_ns();
            }
            int64_t stopped = bench__workers_stopped_ns() - stopped_before;
            int64_t left = since + timeout_ns + stopped - bench__clock_deadline_ns();
            if (left <= 0) {
                w->timed_out = true;
                bench__workers_kill(0);
                reap(w, true);
                drain_output(w, c);
                return bench__xasprintf(bench__collector_item_word(c) ? "timed out after %u s"
                                                                      : "sent nothing for %u s",
                                        timeout_s);
            }
            int64_t left_ms = left / 1000000 + 1;
            if (left_ms < wait_ms)
                wait_ms = (int)left_ms;
        }
        poll(p, (nfds_t)n, wait_ms); /* EINTR: looked at again below, as after a timeout */
        read_events(w, c, &last_event);
        drain_output(w, c);
        reap(w, false);
        if (!w->exited && stopped_at_the_terminal(w)) {
            bench__workers_kill(0);
            reap(w, true);
        }
        if (w->exited) {
            /* what it wrote before it exited is in the pipes: take all of it */
            read_events(w, c, &last_event);
            drain_output(w, c);
            return NULL;
        }
    }
}

void bench__supervise(const struct bench__config *cfg, const struct bench__suite *suite,
                      struct bench__collector *c)
{
    struct sigaction sigpipe;
    ignore_sigpipe(&sigpipe);
    bench__workers_begin(1); /* ^C and kills reach the worker's group too */
    const struct bench__resume *resume = NULL;
    for (unsigned started = 0;; started++) {
        struct worker w;
        if (started == MAX_WORKERS) {
            bench__collector_lost(c, "10000 measuring processes were started, the most a run "
                                     "starts");
            break;
        }
        if (start_worker(cfg, suite, resume, &w, &sigpipe) != 0) {
            char *what =
                bench__xasprintf("no measuring process could be started (%s)", strerror(errno));
            bench__collector_lost(c, what);
            free(what);
            break;
        }
        char *what = watch(&w, c, cfg->bench_timeout);
        bool finished = bench__collector_finished(c);
        if (!what && !finished)
            what = describe_end(&w, c, false);
        if (what)
            bench__workers_kill(0); /* what the dead or hung worker left running goes with it */
        bench__workers_forget(0);
        close_worker(&w);
        if (finished) { /* the run is complete; how the worker ended changes nothing */
            free(what);
            break;
        }
        bool charged = bench__collector_abandon(c, what);
        if (!charged) { /* between items: nothing to charge it to */
            char *how =
                w.exited && !w.timed_out ? describe_end(&w, c, true) : bench__xasprintf("%s", what);
            char *sentence = bench__xasprintf("the measuring process %s outside any benchmark "
                                              "or workload",
                                              how);
            bench__collector_lost(c, sentence);
            free(sentence);
            free(how);
        }
        free(what);
        if (!charged)
            break;
        resume = bench__collector_resume(c);
    }
    bench__workers_end();
    sigaction(SIGPIPE, &sigpipe, NULL);
}
