/* SPDX-License-Identifier: MIT */
/* batch_queue.c: owns the one queue of batches both isolation modes run their pool with
 * (batch_queue.h): the slots, the two batches queued on each, the batches handed out, a test's
 * end handed to the pool, a process reaped ("gone") or retired, the loop that waits for them, and
 * the handed batches on the process's side. It knows no protocol beyond BENCH__REQ_BATCH, and
 * judges no deadline (the modes do, through struct bench__batch_ops). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../platform/fds.h"
#include "../platform/workers.h"
#include "../util/alloc.h"
#include "batch_queue.h"
#include "pool_util.h"

void bench__batch_end(struct bench__batch_queue *q, size_t slot, struct bench__test_end *end)
{
    struct bench__batch_slot *s = &q->slots[slot];
    end->index = s->q[0].first;
    if (q->ops->before_end)
        q->ops->before_end(q, slot, end);
    if (++s->q[0].first >= s->q[0].end) {
        s->q[0] = s->q[1];
        s->queued--;
    }
    s->start_ns = bench__workers_clock_ns();
    s->stopped_ns = bench__workers_stopped_ns();
    q->ended++;
    q->pool->end(q->pool->arg, end);
}

size_t bench__batch_recv(struct bench__batch_slot *s, void *buf, size_t len)
{
    for (;;) {
        ssize_t n = recv(s->sock, buf, len, MSG_DONTWAIT);
        if (n > 0)
            return (size_t)n;
        if (n < 0 && (errno == EINTR || errno == ECONNRESET))
            continue; /* ECONNRESET: the process closed its end with a request of ours unread
                       * (a batch sent while its test ran). Linux reports that before the
                       * messages it sent first, once: they are read next, then the end. */
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            s->gone = true;
        return 0;
    }
}

/* The slot's process exited (status from waitpid): what it sent counts; the test it was running
 * ends with it (or runs again, as the mode says), and the rest of its batches wait for a new
 * process. */
static void gone(struct bench__batch_queue *q, size_t slot, int status)
{
    struct bench__batch_slot *s = &q->slots[slot];
    q->ops->take(q, slot);
    if (s->queued && !s->ending)
        q->ops->died(q, slot, status);
    bench__workers_forget(slot);
    bench__close_fd(&s->sock);
    bench__close_fd(&s->pidfd);
    if (q->ops->release)
        q->ops->release(q, slot);
    s->pid = 0;
    s->gone = s->ending = false;
    for (size_t i = 0; i < s->queued; i++)
        s->q[i].sent = false;
}

/* Reap the slot's process if it exited; true when it did. */
static bool reap(struct bench__batch_queue *q, size_t slot, int options)
{
    int status = 0;
    if (!bench__reaped(q->slots[slot].pid, &status, options))
        return false;
    gone(q, slot, status);
    return true;
}

/* Close the pair of an idle process: it exits; wait for it. */
static void retire(struct bench__batch_queue *q, size_t slot)
{
    shutdown(q->slots[slot].sock, SHUT_RDWR);
    reap(q, slot, 0);
}

/* Whether the slot needs dispatch: a batch it holds is not with a live process, or it has room
 * for one more while tests are left. */
static bool wants_dispatch(const struct bench__batch_queue *q, const struct bench__batch_slot *s)
{
    if (s->ending)
        return false; /* its slot is free once it is reaped */
    for (size_t i = 0; i < s->queued; i++)
        if (!s->q[i].sent)
            return true;
    return s->queued < 2 && q->next < q->pool->n_tests;
}

static void end_no_process(struct bench__batch_queue *q, size_t slot, int error)
{
    struct bench__test_end end = {.kind = BENCH__END_NO_WORKER, .error = error};
    bench__batch_end(q, slot, &end);
}

/* In the process just forked for slot `self`: what every test inherits. */
static void child_begin(struct bench__batch_queue *q, size_t self)
{
    for (size_t i = 0; i < q->n; i++) {
        struct bench__batch_slot *s = &q->slots[i];
        if (i == self || s->pid == 0)
            continue;
        close(s->sock);
        if (s->pidfd >= 0)
            close(s->pidfd);
        if (q->ops->release)
            q->ops->release(q, i);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    signal(SIGPIPE, SIG_DFL);
}

/* Start the slot's process; 0 or -errno. */
static int spawn(struct bench__batch_queue *q, size_t slot)
{
    int rc = q->ops->prepare ? q->ops->prepare(q, slot) : 0;
    if (rc < 0)
        return rc;
    int pair[2];
    if (bench__socketpair_cloexec(SOCK_SEQPACKET, pair) != 0) {
        rc = -errno;
        if (q->ops->release)
            q->ops->release(q, slot);
        return rc;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = bench__workers_fork(slot);
    if (pid < 0) {
        rc = -errno;
        close(pair[0]), close(pair[1]);
        if (q->ops->release)
            q->ops->release(q, slot);
        return rc;
    }
    if (pid == 0) {
        close(pair[0]);
        child_begin(q, slot);
        q->ops->serve(q, slot, pair[1]);
    }
    close(pair[1]);
    struct bench__batch_slot *s = &q->slots[slot];
    s->pid = pid;
    s->sock = pair[0];
    s->pidfd = bench__pidfd_open(pid);
    s->gone = s->ending = false;
    for (size_t i = 0; i < s->queued; i++)
        s->q[i].sent = false;
    return 0;
}

/* Queue the next batch on the slot when there is room, and send its process (a new one when
 * there is none) every batch it does not have yet. */
static void dispatch(struct bench__batch_queue *q, size_t slot)
{
    struct bench__batch_slot *s = &q->slots[slot];
    if (s->queued < 2 && q->next < q->pool->n_tests) {
        size_t left = q->pool->n_tests - q->next, k = left / (4 * q->n);
        k = k < 1 ? 1 : k > BENCH__BATCH_MAX ? BENCH__BATCH_MAX : k;
        s->q[s->queued++] = (struct bench__batch){.first = q->next, .end = q->next + k};
        q->next += k;
    }
    for (int attempt = 0; attempt < 2 && s->queued; attempt++) {
        if (s->pid == 0) {
            int rc = spawn(q, slot);
            if (rc < 0) {
                end_no_process(q, slot, rc);
                return;
            }
        }
        size_t i = 0;
        for (; i < s->queued; i++) {
            struct bench__batch *b = &s->q[i];
            if (b->sent)
                continue;
            uint64_t wire[3] = {BENCH__REQ_BATCH, b->first, b->end - b->first};
            if (i == 0) { /* it runs now */
                s->start_ns = bench__workers_clock_ns();
                s->stopped_ns = bench__workers_stopped_ns();
            }
            if (send(s->sock, wire, sizeof wire, MSG_NOSIGNAL) != (ssize_t)sizeof wire)
                break;
            b->sent = true;
        }
        if (i == s->queued)
            return;
        /* it died: make sure, reap it, and start another */
        bench__workers_kill(slot);
        reap(q, slot, 0);
    }
    if (s->queued && !s->q[0].sent)
        end_no_process(q, slot, -EPIPE);
}

/* One wait of the loop: every live slot's deadline judged and its pair and pidfd polled, then
 * what came taken and the processes that exited reaped; -errno when poll failed. */
static int wait_once(struct bench__batch_queue *q, struct pollfd *fds, size_t *at)
{
    const struct bench__batch_ops *ops = q->ops;
    size_t nfds = 0;
    bool look_for_exit = false;
    struct bench__deadlines d;
    bench__deadlines_begin(&d, q->pool->timeout);
    for (size_t i = 0; i < q->n; i++) {
        struct bench__batch_slot *s = &q->slots[i];
        size_t *mine = &at[2 * i];
        mine[0] = mine[1] = SIZE_MAX;
        if (s->pid == 0)
            continue;
        ops->deadline(q, i, &d);
        if (!s->gone) {
            mine[0] = nfds;
            fds[nfds++] = (struct pollfd){.fd = s->sock, .events = POLLIN};
        }
        if (s->pidfd >= 0) {
            mine[1] = nfds;
            fds[nfds++] = (struct pollfd){.fd = s->pidfd, .events = POLLIN};
        } else if (s->gone || ops->exit_hides_ever) {
            look_for_exit = true;
        }
    }
    int timeout = q->pool->idle_ms;
    int deadline = bench__deadlines_ms(&d);
    if (deadline >= 0 && (timeout < 0 || deadline < timeout))
        timeout = deadline;
    if (ops->wait_ms)
        timeout = ops->wait_ms(q, timeout);
    if (look_for_exit && (timeout < 0 || timeout > ops->reap_poll_ms))
        timeout = ops->reap_poll_ms;
    int ready = poll(fds, nfds, timeout);
    if (ready < 0 && errno != EINTR)
        return -errno;
    for (size_t i = 0; i < q->n; i++) {
        struct bench__batch_slot *s = &q->slots[i];
        const size_t *mine = &at[2 * i];
        if (s->pid == 0)
            continue;
        if (ready <= 0 || (mine[0] != SIZE_MAX && fds[mine[0]].revents))
            ops->take(q, i);
        bool exited = mine[1] != SIZE_MAX && fds[mine[1]].revents;
        if (exited || s->gone || ready < 0 || (s->pidfd < 0 && ops->exit_hides_ever))
            reap(q, i, WNOHANG);
    }
    return 0;
}

size_t bench__batch_slots(const struct bench__test_pool *pool)
{
    return pool->n_workers ? pool->n_workers : 1;
}

int bench__batch_queue_run(const struct bench__test_pool *pool, const struct bench__batch_ops *ops,
                           void *mode)
{
    int rc = 0;
    size_t n = bench__batch_slots(pool);
    struct bench__batch_queue q = {.pool = pool,
                                   .ops = ops,
                                   .mode = mode,
                                   .n = n,
                                   .slots = bench__xcalloc(n, sizeof *q.slots)};
    for (size_t i = 0; i < n; i++)
        q.slots[i] = (struct bench__batch_slot){.sock = -1, .pidfd = -1};
    struct pollfd *fds = bench__xcalloc(2 * n, sizeof *fds);
    size_t *at = bench__xcalloc(2 * n, sizeof *at); /* each slot's sock and pidfd in fds */
    while (q.ended < pool->n_tests) {
        for (size_t i = 0; i < n; i++) {
            struct bench__batch_slot *s = &q.slots[i];
            if (wants_dispatch(&q, s))
                dispatch(&q, i);
            else if (s->queued == 0 && s->pid != 0 && !s->ending)
                retire(&q, i); /* nothing left for it */
        }
        pool->tick(pool->arg);
        if (q.ended >= pool->n_tests)
            break;
        rc = wait_once(&q, fds, at);
        if (rc < 0)
            break;
    }
    for (size_t i = 0; i < n; i++) {
        struct bench__batch_slot *s = &q.slots[i];
        if (s->pid == 0)
            continue;
        if (s->queued) {      /* only when poll failed: nothing is left waiting */
            s->ending = true; /* what it had not ended is not ended here: the caller says it was
                               * not run */
            bench__workers_kill(i);
        }
        retire(&q, i);
    }
    pool->tick(pool->arg);
    free(at);
    free(fds);
    free(q.slots);
    return rc;
}

bool bench__handed_put(struct bench__handed *h, const uint64_t req[3], size_t n_tests)
{
    if (h->n == sizeof h->b / sizeof h->b[0])
        return false;
    if (req[1] < n_tests) {
        h->b[h->n].first = req[1];
        h->b[h->n].end = req[1] + req[2] < n_tests ? req[1] + req[2] : n_tests;
        h->n++;
    }
    return true;
}

size_t bench__handed_next(struct bench__handed *h)
{
    while (h->n > 0 && h->b[0].first >= h->b[0].end) /* an empty batch */
        memmove(h->b, h->b + 1, --h->n * sizeof h->b[0]);
    if (h->n == 0)
        return SIZE_MAX;
    size_t index = (size_t)h->b[0].first;
    if (++h->b[0].first >= h->b[0].end)
        memmove(h->b, h->b + 1, --h->n * sizeof h->b[0]);
    return index;
}
