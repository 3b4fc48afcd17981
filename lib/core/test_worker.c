/* SPDX-License-Identifier: MIT */
/* test_worker.c: owns --isolate=worker: one long-lived worker process per job that runs the
 * tests it is handed one after another, each test's output and outcome kept apart, and a new
 * worker after one died (crash, abort, exit, timeout) with the test that killed it reported. It
 * does not render anything (runner.c does) nor own process groups and signals (workers.c does).
 *
 * The protocol: a SOCK_SEQPACKET pair per worker carries "run test i" (8 bytes) to the worker
 * and the outcome back: NEXT_MARK then bench__outcome_encode's text when the worker goes on,
 * the text alone when it ends (bench__finish called on a thread of the test's own: the outcome
 * is sent, then the worker exits). The worker's stdout and stderr go to a pipe. The
 * worker writes a test's output before its outcome and is handed the next test only after the
 * outcome arrived, so the output read up to an outcome is exactly that test's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../platform/fds.h"
#include "../platform/workers.h"
#include "../util/alloc.h"
#include "deadline.h"
#include "pool_util.h"
#include "../util/thread.h"
#include "test_worker.h"

/* Without a pidfd (kernels before 5.3), a worker's death is looked for this often. */
#define REAP_POLL_MS 10
/* The first byte of an outcome after which the worker takes the next test. */
#define NEXT_MARK '+'

struct worker {
    pid_t pid;   /* 0 = none in this slot */
    int sock;    /* the runner's end of the command/outcome pair */
    int out_fd;  /* the read end of the worker's stdout and stderr */
    int pidfd;   /* readable once the worker exited; -1 when the kernel has none */
    bool busy;   /* running tests[index] */
    bool ending; /* it sent its last outcome and exits: it gets no other test */
    bool timed_out;
    size_t index;
    int64_t start_ns; /* bench__workers_clock_ns() when the test was handed over */
    char *out;        /* the running test's output */
    size_t out_len;
    bool out_truncated;
};

struct pool_run {
    const struct bench__test_pool *pool;
    struct worker *workers;
    size_t next, ended;
};

/* ---- the worker process ------------------------------------------------------------ */

/* One test, in this process (whose one thread is `me`): a check failure, bench_fail or
 * bench_skip jumps back here; from another thread, the outcome goes out and the worker ends. */
static void run_one(struct bench_ctx *ctx, pid_t me)
{
    jmp_buf escape;
    ctx->escape = &escape;
    ctx->escape_tid = me;
    bench__current = ctx;
    if (setjmp(escape) == 0) {
        ctx->entry->test->fn(ctx);
        ctx->message[0] = '\0';
        ctx->outcome = BENCH__PASSED;
    }
    bench__current = NULL;
    ctx->escape = NULL;
}

BENCH_NORETURN static void worker_main(struct pool_run *p, size_t self, int sock, int out_w)
{
    for (size_t i = 0; i < p->pool->n_workers; i++) {
        struct worker *w = &p->workers[i];
        if (i == self || w->pid == 0)
            continue;
        close(w->sock);
        close(w->out_fd);
        if (w->pidfd >= 0)
            close(w->pidfd);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    dup2(out_w, STDOUT_FILENO);
    dup2(out_w, STDERR_FILENO);
    close(out_w);
    setvbuf(stdout, NULL, _IONBF, 0); /* nothing is lost when a test crashes */
    signal(SIGPIPE, SIG_DFL);
    pid_t me = bench__thread_id(); /* its one thread: a fork leaves only the caller's */
    pid_t worker = getpid();       /* not the thread's id: off Linux the two differ */
    for (;;) {
        uint64_t index;
        ssize_t n = recv(sock, &index, sizeof index, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof index || index >= p->pool->n_tests)
            _exit(0); /* the runner closed its end: no more tests */
        struct bench_ctx ctx = {.entry = &p->pool->suite->entries[p->pool->tests[index]],
                                .result_fd = sock};
        run_one(&ctx, me);
        if (getpid() != worker)
            _exit(0); /* a process the test forked came back here: it is no worker */
        fflush(NULL); /* the output goes before the outcome */
        char buf[sizeof ctx.message + 2];
        buf[0] = NEXT_MARK;
        size_t len = 1 + bench__outcome_encode(ctx.outcome, ctx.message, buf + 1, sizeof buf - 1);
        if (send(sock, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
            _exit(0);
    }
}

/* ---- the runner's side -------------------------------------------------------------- */

static int spawn(struct pool_run *p, size_t slot)
{
    int pair[2], out[2];
    if (bench__socketpair_cloexec(SOCK_SEQPACKET, pair) != 0)
        return -errno;
    if (bench__pipe2(out, O_CLOEXEC) != 0) {
        int err = -errno;
        close(pair[0]), close(pair[1]);
        return err;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = bench__workers_fork(slot);
    if (pid < 0) {
        int err = -errno;
        close(pair[0]), close(pair[1]), close(out[0]), close(out[1]);
        return err;
    }
    if (pid == 0) {
        close(pair[0]);
        close(out[0]);
        worker_main(p, slot, pair[1], out[1]);
    }
    close(pair[1]);
    close(out[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    struct worker *w = &p->workers[slot];
    w->pid = pid;
    w->sock = pair[0];
    w->out_fd = out[0];
    w->pidfd = bench__pidfd_open(pid);
    w->busy = false;
    return 0;
}

/* Read what the output pipe holds now: the running test's, or nobody's between tests (a process
 * a finished test left behind); at end of file, close it. */
static void drain_output(struct pool_run *p, struct worker *w)
{
    char chunk[8192];
    while (w->out_fd >= 0) {
        ssize_t n = read(w->out_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            bench__close_fd(&w->out_fd);
            return;
        }
        if (n < 0)
            return;
        if (w->busy)
            bench__output_keep(&w->out, &w->out_len, &w->out_truncated, p->pool->output_cap, chunk,
                               (size_t)n);
        if ((size_t)n < sizeof chunk)
            return; /* a pipe read short of the request emptied it */
    }
}

/* The running test of w ended: hand it to the runner with its output. */
static void end_test(struct pool_run *p, struct worker *w, struct bench__test_end *end)
{
    end->index = w->index;
    end->duration_ns = bench__workers_clock_ns() - w->start_ns;
    end->output = w->out;
    end->output_len = w->out_len;
    end->output_truncated = w->out_truncated;
    w->out = NULL;
    w->out_len = 0;
    w->out_truncated = false;
    w->busy = false;
    w->timed_out = false;
    p->ended++;
    p->pool->end(p->pool->arg, end);
}

/* Take an outcome the worker sent, if one is there. */
static void take_outcome(struct pool_run *p, struct worker *w)
{
    char buf[sizeof((struct bench_ctx *)0)->message + 3];
    ssize_t n;
    do
        n = recv(w->sock, buf, sizeof buf, MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n <= 0 || !w->busy)
        return;
    const char *text = buf;
    size_t len = (size_t)n;
    if (buf[0] == NEXT_MARK) {
        text++, len--;
    } else {
        /* bench__finish away from the worker's loop: on a thread, which exits the worker now,
         * or in a process the test forked, while the worker runs on: it gets no other test */
        w->ending = true;
        kill(w->pid, SIGKILL);
    }
    char message[sizeof buf];
    enum bench__outcome outcome;
    if (bench__outcome_decode(text, len, &outcome, message, sizeof message) != 0)
        return;         /* not from libbench's worker loop: its death will tell */
    drain_output(p, w); /* everything it printed is in the pipe before the outcome */
    struct bench__test_end end = {
        .kind = BENCH__END_REPORTED, .outcome = outcome, .message = message};
    end_test(p, w, &end);
}

/* The worker exited (status from waitpid): what it had sent counts; a test it was running ends
 * with its death, or its timeout. */
static void worker_gone(struct pool_run *p, size_t slot, int status)
{
    struct worker *w = &p->workers[slot];
    take_outcome(p, w);
    if (w->busy) {
        drain_output(p, w);
        struct bench__test_end end = {.kind = w->timed_out ? BENCH__END_TIMED_OUT : BENCH__END_DIED,
                                      .status = status};
        end_test(p, w, &end);
    }
    bench__workers_forget(slot);
    bench__close_fd(&w->sock);
    bench__close_fd(&w->out_fd);
    bench__close_fd(&w->pidfd);
    free(w->out);
    *w = (struct worker){.sock = -1, .out_fd = -1, .pidfd = -1};
}

/* Reap the worker if it exited; true when it did. */
static bool reap(struct pool_run *p, size_t slot, int options)
{
    int status = 0;
    if (!bench__reaped(p->workers[slot].pid, &status, options))
        return false;
    worker_gone(p, slot, status);
    return true;
}

/* Close the command end of an idle worker: it exits; wait for it. */
static void retire(struct pool_run *p, size_t slot)
{
    struct worker *w = &p->workers[slot];
    shutdown(w->sock, SHUT_RDWR);
    reap(p, slot, 0);
}

/* Hand the next test to the slot's worker, starting one first when there is none (or the one
 * there died while idle). */
static void dispatch(struct pool_run *p, size_t slot)
{
    struct worker *w = &p->workers[slot];
    size_t index = p->next++;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (w->pid == 0) {
            int rc = spawn(p, slot);
            if (rc < 0) {
                w->index = index;
                w->busy = true;
                struct bench__test_end end = {.kind = BENCH__END_NO_WORKER, .error = rc};
                end_test(p, w, &end);
                return;
            }
        }
        uint64_t wire = index;
        w->index = index;
        w->start_ns = bench__workers_clock_ns();
        if (send(w->sock, &wire, sizeof wire, MSG_NOSIGNAL) == (ssize_t)sizeof wire) {
            w->busy = true;
            return;
        }
        /* it died between tests: make sure, reap it, and start another */
        bench__workers_kill(slot);
        reap(p, slot, 0);
    }
    w->index = index;
    w->busy = true;
    struct bench__test_end end = {.kind = BENCH__END_NO_WORKER, .error = -EPIPE};
    end_test(p, w, &end);
}

/* Kill the workers whose test is past --timeout; d then holds the nearest other deadline. */
static void enforce_deadlines(struct pool_run *p, struct bench__deadlines *d)
{
    bench__deadlines_begin(d, p->pool->timeout);
    for (size_t i = 0; i < p->pool->n_workers; i++) {
        struct worker *w = &p->workers[i];
        if (w->pid == 0 || !w->busy || w->timed_out)
            continue;
        if (bench__deadline_passed(d, w->start_ns)) {
            bench__workers_kill(i);
            w->timed_out = true;
        }
    }
}

int bench__test_workers_run(const struct bench__test_pool *pool)
{
    int rc = 0;
    size_t n = pool->n_workers ? pool->n_workers : 1;
    struct pool_run p = {.pool = pool, .workers = bench__xcalloc(n, sizeof *p.workers)};
    for (size_t i = 0; i < n; i++)
        p.workers[i] = (struct worker){.sock = -1, .out_fd = -1, .pidfd = -1};
    struct pollfd *fds = bench__xcalloc(3 * n, sizeof *fds);
    size_t *at = bench__xcalloc(3 * n, sizeof *at); /* each worker's sock, out and pidfd in fds */
    while (p.ended < pool->n_tests) {
        for (size_t i = 0; i < n; i++) {
            if (p.workers[i].busy || p.workers[i].ending)
                continue; /* an ending worker's slot is free once it is reaped */
            if (p.next < pool->n_tests)
                dispatch(&p, i);
            else if (p.workers[i].pid != 0)
                retire(&p, i); /* nothing left for it */
        }
        pool->tick(pool->arg);
        if (p.ended >= pool->n_tests)
            break;
        size_t nfds = 0;
        bool look_for_death = false;
        for (size_t i = 0; i < n; i++) {
            struct worker *w = &p.workers[i];
            size_t *mine = &at[3 * i];
            mine[0] = mine[1] = mine[2] = SIZE_MAX;
            if (w->pid == 0)
                continue;
            mine[0] = nfds;
            fds[nfds++] = (struct pollfd){.fd = w->sock, .events = POLLIN};
            if (w->out_fd >= 0) {
                mine[1] = nfds;
                fds[nfds++] = (struct pollfd){.fd = w->out_fd, .events = POLLIN};
            }
            if (w->pidfd >= 0) {
                mine[2] = nfds;
                fds[nfds++] = (struct pollfd){.fd = w->pidfd, .events = POLLIN};
            } else {
                look_for_death = true;
            }
        }
        int timeout = pool->idle_ms;
        struct bench__deadlines d;
        enforce_deadlines(&p, &d);
        int deadline = bench__deadlines_ms(&d);
        if (deadline >= 0 && deadline < timeout)
            timeout = deadline;
        if (look_for_death && timeout > REAP_POLL_MS)
            timeout = REAP_POLL_MS;
        int ready = poll(fds, nfds, timeout);
        if (ready < 0 && errno != EINTR) {
            rc = -errno;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            struct worker *w = &p.workers[i];
            const size_t *mine = &at[3 * i];
            if (w->pid == 0 || mine[0] == SIZE_MAX)
                continue;
            if (ready < 0) /* interrupted: look at everything */
                drain_output(&p, w), take_outcome(&p, w);
            if (mine[1] != SIZE_MAX && fds[mine[1]].revents)
                drain_output(&p, w);
            if (fds[mine[0]].revents)
                take_outcome(&p, w);
            if (mine[2] == SIZE_MAX || fds[mine[2]].revents || ready < 0)
                reap(&p, i, WNOHANG);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (p.workers[i].pid == 0)
            continue;
        if (p.workers[i].busy) { /* only when poll failed: nothing is left waiting */
            bench__workers_kill(i);
            p.workers[i].busy = false; /* not ended here: the caller says it was not run */
        }
        retire(&p, i);
    }
    pool->tick(pool->arg);
    free(at);
    free(fds);
    free(p.workers);
    return rc;
}
