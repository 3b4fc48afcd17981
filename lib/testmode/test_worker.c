/* SPDX-License-Identifier: MIT */
/* test_worker.c: owns --isolate=worker: one long-lived worker process per job that runs the
 * tests it is handed one after another, each test's output and outcome kept apart, and a new
 * worker after one died (crash, abort, exit, timeout) with the test that killed it reported and
 * the rest of its batches handed to the new one. It does not render anything (runner.c does) nor
 * own process groups and signals (workers.c does).
 *
 * Why batches: one round trip per test made every test pay two wake-ups, across CPUs when the
 * runner and its worker sit on two (docs/explanation/performance.md, "Test mode"). The runner
 * hands a worker batches (REQ_BATCH: the first index into the pool's tests, and how many), the
 * next one while the last still runs, on a SOCK_SEQPACKET pair; the worker runs them in the order
 * they came and appends one record per ended test to a ring in memory it shares with the runner.
 * It rings the runner (a one-byte message) at most FLUSH_NS after the first record the runner
 * was not told of, when it starts its last batch, and before it blocks; the runner also looks at
 * the ring every FLUSH_NS while tests run. So the runner wakes about once per flush, not per
 * test. The test that runs, as the runner knows it, is the first of the queued batches not ended
 * yet.
 *
 * Output: the worker's stdout and stderr are one anonymous file (O_APPEND); a record holds the
 * offsets of its test's output, which the runner reads from the file. The worker empties the file
 * only when the runner took every record. The worker also publishes the test it runs (index,
 * start, output offset) in the shared memory: what a test that died printed is read from there.
 *
 * bench__finish away from the worker's loop (on a thread of the test's own, which then exits the
 * worker, or in a process the test forked) sends the outcome on the pair: it ends the running
 * test, and the worker is killed and takes no other test.
 *
 * --timeout: the runner believes a test began when it learnt its predecessor ended (or when it
 * sent the batch), which may be earlier than it did, and may not have read the ends the worker
 * holds. So at a deadline it first takes the ring (the ends held are in it: a test that passed is
 * never reported timed out), then reads which test runs and since when: it kills the worker's
 * group only when the test it believes runs has run its limit (less the time the runner was
 * stopped); otherwise the deadline moves.
 *
 * Over 600 lines for the reason fork_server.c gives: the worker and the runner's side are the two
 * ends of one protocol (the batches, the ring, the running test's record), kept in one file so a
 * change of the one is seen beside the other. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../platform/fds.h"
#include "../platform/workers.h"
#include "../util/alloc.h"
#include "../util/clock.h"
#include "pool_util.h"
#include "../util/thread.h"
#include "deadline.h"
#include "test_worker.h"

/* Without a pidfd (kernels before 5.3), a worker's death is looked for this often. */
#define REAP_POLL_MS 10
/* The runner's requests: three uint64_t, the kind first. */
#define REQ_BATCH 1 /* the first index into the pool's tests, and how many */
#define REQ_ROOM 2  /* the runner took records from a full ring */
/* The worker's ring of the runner's doorbell. */
#define MSG_DOORBELL 'D'
/* The most tests handed to a worker at once: a quarter of each job's share of what is left, so
 * the jobs end close together. */
#define BATCH_MAX 64
/* The longest the worker holds an end before it tells the runner. */
#define FLUSH_NS 2000000LL
#define FLUSH_MS 2
/* The shared ring's bytes (a power of two). */
#define RING (1u << 16)
/* The worker empties its output file, once the runner took every record, past this size. */
#define TRUNCATE_AT (1 << 16)

struct record {
    uint64_t index;
    int64_t duration_ns;
    uint64_t out_start, out_end; /* the test's output, offsets in the output file */
    uint32_t report_len;         /* bytes of bench__outcome_encode's text that follow */
    uint32_t pad;
};

/* The memory a worker shares with the runner (mmap'd before the fork). */
struct shared {
    _Atomic uint64_t head;    /* ring bytes written: by the worker */
    _Atomic uint64_t tail;    /* ring bytes taken: by the runner */
    _Atomic int want_room;    /* the worker waits for a REQ_ROOM */
    _Atomic uint64_t run_seq; /* odd while the worker writes the run_ fields */
    _Atomic uint64_t run_index;
    _Atomic int64_t run_since; /* bench__clock_deadline_ns() when it began */
    _Atomic uint64_t run_out;  /* where its output begins in the output file */
    char ring[RING];
};

/* A run of the pool's tests handed to a worker: first..end-1 not ended yet. */
struct batch {
    size_t first, end;
    bool sent; /* with the live worker (a new worker gets it again) */
};

struct worker {
    pid_t pid;      /* 0 = none in this slot */
    int sock;       /* the runner's end of the pair */
    int out_fd;     /* the worker's output file */
    int pidfd;      /* readable once the worker exited; -1 when the kernel has none */
    bool gone;      /* its end of the pair closed */
    bool ending;    /* it reported through the pair and is killed: no other test ends by it */
    bool timed_out; /* killed for timeout_index's deadline */
    size_t timeout_index;
    struct shared *sh;  /* NULL when none */
    struct batch q[2];  /* q[0].first runs, then the rest of q[0], then q[1] */
    size_t queued;      /* batches in q */
    int64_t start_ns;   /* bench__workers_clock_ns() when q[0].first began (at most since) */
    int64_t stopped_ns; /* bench__workers_stopped_ns() then */
};

struct pool_run {
    const struct bench__test_pool *pool;
    struct worker *workers;
    size_t n, next, ended;
};

static void ring_in(struct shared *sh, uint64_t pos, const void *src, size_t n)
{
    size_t off = (size_t)(pos % RING), first = RING - off < n ? RING - off : n;
    memcpy(sh->ring + off, src, first);
    memcpy(sh->ring, (const char *)src + first, n - first);
}

static void ring_out(const struct shared *sh, uint64_t pos, void *dst, size_t n)
{
    size_t off = (size_t)(pos % RING), first = RING - off < n ? RING - off : n;
    memcpy(dst, sh->ring + off, first);
    memcpy((char *)dst + first, sh->ring, n - first);
}

/* ---- the worker process ------------------------------------------------------------ */

/* The batches the worker was handed and has not run yet: the runner has at most two out. */
static struct todo {
    uint64_t first, end;
} todo[4];
static size_t n_todo;
static bool told = true;     /* the runner was rung since the last record */
static int64_t untold_since; /* when the first record it was not told of was written */

/* Ring the runner's doorbell: it takes the ring when it wakes. */
static void ring_bell(int sock)
{
    char bell = MSG_DOORBELL;
    ssize_t n;
    do
        n = send(sock, &bell, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        _exit(0); /* the runner is gone */
    told = true;
}

/* Take one request, blocking or not; false when none waits (not blocking). A REQ_ROOM sets
 * *room. At the end of the pair the worker exits: the runner closed it, no more tests. */
static bool take_request(const struct bench__test_pool *pool, int sock, bool block, bool *room)
{
    for (;;) {
        uint64_t req[3];
        ssize_t n = recv(sock, req, sizeof req, block ? 0 : MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && !block && (errno == EAGAIN || errno == EWOULDBLOCK))
            return false;
        if (n != (ssize_t)sizeof req || (req[0] == REQ_BATCH && n_todo == 4))
            _exit(0); /* the runner closed its end (or broke the protocol) */
        if (req[0] == REQ_BATCH && req[1] < pool->n_tests)
            todo[n_todo++] = (struct todo){req[1], req[1] + req[2] < pool->n_tests ? req[1] + req[2]
                                                                                   : pool->n_tests};
        else if (req[0] == REQ_ROOM && room)
            *room = true;
        return true;
    }
}

/* Append a record to the ring, waiting for the runner to make room when it is full. */
static void put_record(const struct bench__test_pool *pool, struct shared *sh, int sock,
                       const struct record *rec, const char *report)
{
    size_t need = sizeof *rec + rec->report_len;
    uint64_t head = atomic_load_explicit(&sh->head, memory_order_relaxed);
    while (head + need - atomic_load(&sh->tail) > RING) {
        atomic_store(&sh->want_room, 1);
        if (head + need - atomic_load(&sh->tail) <= RING) {
            atomic_store(&sh->want_room, 0);
            break;
        }
        ring_bell(sock);
        bool room = false;
        while (!room)
            take_request(pool, sock, true, &room);
    }
    ring_in(sh, head, rec, sizeof *rec);
    ring_in(sh, head + sizeof *rec, report, rec->report_len);
    atomic_store_explicit(&sh->head, head + need, memory_order_release);
    if (told)
        untold_since = bench__clock_deadline_ns();
    told = false;
}

/* Say which test runs, since when, and where its output begins. */
static void publish_running(struct shared *sh, uint64_t index, int64_t since, uint64_t out)
{
    uint64_t seq = atomic_load_explicit(&sh->run_seq, memory_order_relaxed);
    atomic_store_explicit(&sh->run_seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&sh->run_index, index, memory_order_relaxed);
    atomic_store_explicit(&sh->run_since, since, memory_order_relaxed);
    atomic_store_explicit(&sh->run_out, out, memory_order_relaxed);
    atomic_store_explicit(&sh->run_seq, seq + 2, memory_order_release);
}

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

static uint64_t output_at(int fd)
{
    off_t at = lseek(fd, 0, SEEK_END);
    return at > 0 ? (uint64_t)at : 0;
}

BENCH_NORETURN static void worker_main(struct pool_run *p, size_t self, int sock, int out_fd)
{
    const struct bench__test_pool *pool = p->pool;
    struct shared *sh = p->workers[self].sh;
    for (size_t i = 0; i < p->n; i++) {
        struct worker *w = &p->workers[i];
        if (i == self || w->pid == 0)
            continue;
        close(w->sock);
        close(w->out_fd);
        if (w->pidfd >= 0)
            close(w->pidfd);
        munmap(w->sh, sizeof *w->sh);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    close(out_fd);
    setvbuf(stdout, NULL, _IONBF, 0); /* nothing is lost when a test crashes */
    signal(SIGPIPE, SIG_DFL);
    pid_t me = bench__thread_id(); /* its one thread: a fork leaves only the caller's */
    pid_t worker = getpid();       /* not the thread's id: off Linux the two differ */
    for (;;) {
        if (n_todo == 0) {
            if (!told)
                ring_bell(sock); /* no batch waits: the runner hears of every end first */
            take_request(pool, sock, true, NULL);
            continue;
        }
        while (n_todo == 1 && take_request(pool, sock, false, NULL)) {
        } /* the next batch, sent while this one runs */
        size_t index = (size_t)todo[0].first;
        if (index == todo[0].end) { /* an empty batch */
            memmove(todo, todo + 1, --n_todo * sizeof *todo);
            continue;
        }
        if (++todo[0].first >= todo[0].end) {
            memmove(todo, todo + 1, --n_todo * sizeof *todo);
            if (n_todo == 0 && !told)
                ring_bell(sock); /* its last batch begins: the runner sends the next one */
        }
        uint64_t out_start = output_at(STDOUT_FILENO);
        if (out_start >= TRUNCATE_AT &&
            atomic_load(&sh->tail) == atomic_load_explicit(&sh->head, memory_order_relaxed)) {
            /* the runner read every output it was told of */
            if (ftruncate(STDOUT_FILENO, 0) == 0)
                out_start = 0;
        }
        struct bench_ctx ctx = {.entry = &pool->suite->entries[pool->tests[index]],
                                .result_fd = sock};
        int64_t start = bench__clock_deadline_ns();
        publish_running(sh, index, start, out_start);
        run_one(&ctx, me);
        if (getpid() != worker)
            _exit(0); /* a process the test forked came back here: it is no worker */
        fflush(NULL); /* the output goes before the outcome */
        int64_t now = bench__clock_deadline_ns();
        char report[sizeof ctx.message + 2];
        struct record rec = {.index = index,
                             .duration_ns = now - start,
                             .out_start = out_start,
                             .out_end = output_at(STDOUT_FILENO),
                             .report_len = (uint32_t)bench__outcome_encode(ctx.outcome, ctx.message,
                                                                           report, sizeof report)};
        put_record(pool, sh, sock, &rec, report);
        if (!told && now - untold_since >= FLUSH_NS)
            ring_bell(sock);
    }
}

/* ---- the runner's side -------------------------------------------------------------- */

/* The output file's size (not lseek: the file offset is shared with the worker). */
static uint64_t file_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

static int spawn(struct pool_run *p, size_t slot)
{
    struct worker *w = &p->workers[slot];
    struct shared *sh =
        mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return -errno;
    int pair[2];
    if (bench__socketpair_cloexec(SOCK_SEQPACKET, pair) != 0) {
        int err = -errno;
        munmap(sh, sizeof *sh);
        return err;
    }
    int out = bench__anon_file();
    if (out < 0 || fcntl(out, F_SETFL, O_APPEND) != 0) {
        int err = -errno;
        if (out >= 0)
            close(out);
        close(pair[0]), close(pair[1]);
        munmap(sh, sizeof *sh);
        return err;
    }
    atomic_init(&sh->run_index, UINT64_MAX); /* no test runs yet */
    w->sh = sh;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = bench__workers_fork(slot);
    if (pid < 0) {
        int err = -errno;
        close(pair[0]), close(pair[1]), close(out);
        munmap(sh, sizeof *sh);
        w->sh = NULL;
        return err;
    }
    if (pid == 0) {
        close(pair[0]);
        worker_main(p, slot, pair[1], out);
    }
    close(pair[1]);
    w->pid = pid;
    w->sock = pair[0];
    w->out_fd = out;
    w->pidfd = bench__pidfd_open(pid);
    w->gone = w->ending = w->timed_out = false;
    for (size_t i = 0; i < w->queued; i++)
        w->q[i].sent = false;
    return 0;
}

/* The output file's bytes from..to (at most the cap, and one byte past it that says it was cut)
 * into the end. */
static void read_output(struct pool_run *p, struct worker *w, uint64_t from, uint64_t to,
                        struct bench__test_end *end)
{
    if (to <= from)
        return;
    size_t cap = p->pool->output_cap, len = (size_t)(to - from);
    if (len > cap) {
        end->output_truncated = true;
        len = cap;
    }
    if (len == 0)
        return;
    char *buf = bench__xmalloc(len + 1);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(w->out_fd, buf + got, len - got, (off_t)(from + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    end->output = buf;
    end->output_len = got;
}

/* The running test of w (q[0].first) ended: hand it to the runner. */
static void end_test(struct pool_run *p, struct worker *w, struct bench__test_end *end)
{
    end->index = w->q[0].first;
    if (++w->q[0].first >= w->q[0].end) {
        w->q[0] = w->q[1];
        w->queued--;
    }
    w->start_ns = bench__workers_clock_ns();
    w->stopped_ns = bench__workers_stopped_ns();
    p->ended++;
    p->pool->end(p->pool->arg, end);
}

/* Which test the worker runs, since when, where its output begins. */
static void read_running(const struct shared *sh, uint64_t *index, int64_t *since, uint64_t *out)
{
    uint64_t s1, s2;
    do {
        s1 = atomic_load_explicit(&sh->run_seq, memory_order_acquire);
        *index = atomic_load_explicit(&sh->run_index, memory_order_relaxed);
        *since = atomic_load_explicit(&sh->run_since, memory_order_relaxed);
        *out = atomic_load_explicit(&sh->run_out, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        s2 = atomic_load_explicit(&sh->run_seq, memory_order_relaxed);
    } while ((s1 & 1) || s1 != s2);
}

/* Take the records in the ring: each ends the test that runs, when it is that test's. */
static void take_ring(struct pool_run *p, struct worker *w)
{
    struct shared *sh = w->sh;
    if (!sh)
        return;
    uint64_t tail = atomic_load_explicit(&sh->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&sh->head, memory_order_acquire);
    bool took = false;
    while (head - tail >= sizeof(struct record)) {
        struct record rec;
        ring_out(sh, tail, &rec, sizeof rec);
        size_t report_len = rec.report_len;
        if (report_len > head - tail - sizeof rec)
            break; /* cannot be: the worker writes whole records */
        char report[sizeof((struct bench_ctx *)0)->message + 2];
        char message[sizeof report];
        enum bench__outcome outcome;
        bool fits = report_len <= sizeof report;
        if (fits)
            ring_out(sh, tail + sizeof rec, report, report_len);
        tail += sizeof rec + report_len;
        took = true;
        if (!w->queued || rec.index != w->q[0].first || w->ending || !fits ||
            bench__outcome_decode(report, report_len, &outcome, message, sizeof message) != 0)
            continue;
        struct bench__test_end end = {.kind = BENCH__END_REPORTED,
                                      .outcome = outcome,
                                      .message = message,
                                      .duration_ns = rec.duration_ns};
        read_output(p, w, rec.out_start, rec.out_end, &end);
        end_test(p, w, &end);
    }
    if (!took)
        return;
    atomic_store(&sh->tail, tail);
    if (atomic_exchange(&sh->want_room, 0)) {
        uint64_t wire[3] = {REQ_ROOM, 0, 0};
        if (send(w->sock, wire, sizeof wire, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
            /* it is gone (its death will tell), or the pair is full of batches it will read */
        }
    }
}

/* Take what the worker sent on the pair: doorbells (the ring is taken), or the outcome of the
 * running test from bench__finish away from the worker's loop. At the end of the pair, mark it
 * gone. */
static void take_messages(struct pool_run *p, struct worker *w)
{
    take_ring(p, w);
    while (w->sock >= 0 && !w->gone) {
        char buf[sizeof((struct bench_ctx *)0)->message + 3];
        ssize_t n = recv(w->sock, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
                w->gone = true;
            return;
        }
        if (n == 1 && buf[0] == MSG_DOORBELL)
            continue;
        take_ring(p, w); /* the ends before the outcome */
        char message[sizeof buf];
        enum bench__outcome outcome;
        if (!w->queued || w->ending ||
            bench__outcome_decode(buf, (size_t)n, &outcome, message, sizeof message) != 0)
            continue; /* not from libbench: its death will tell */
        /* on a thread, which exits the worker now, or in a process the test forked, while the
         * worker runs on: it gets no other test */
        kill(w->pid, SIGKILL);
        uint64_t index, out;
        int64_t since;
        read_running(w->sh, &index, &since, &out);
        struct bench__test_end end = {.kind = BENCH__END_REPORTED,
                                      .outcome = outcome,
                                      .message = message,
                                      .duration_ns = bench__workers_clock_ns() - w->start_ns};
        if (index == w->q[0].first)
            read_output(p, w, out, file_size(w->out_fd), &end);
        end_test(p, w, &end);
        w->ending = true;
    }
}

/* The worker exited (status from waitpid): what it had sent counts; the test it was running
 * ends with its death, or its timeout, and the rest of its batches wait for a new worker. */
static void worker_gone(struct pool_run *p, size_t slot, int status)
{
    struct worker *w = &p->workers[slot];
    take_messages(p, w);
    if (w->queued && !w->ending && (!w->timed_out || w->timeout_index == w->q[0].first)) {
        struct bench__test_end end = {.kind = w->timed_out ? BENCH__END_TIMED_OUT : BENCH__END_DIED,
                                      .status = status,
                                      .duration_ns = bench__workers_clock_ns() - w->start_ns};
        uint64_t index, out;
        int64_t since;
        read_running(w->sh, &index, &since, &out);
        if (index == w->q[0].first)
            read_output(p, w, out, file_size(w->out_fd), &end);
        end_test(p, w, &end);
    }
    /* else: killed for a test that ended in time, or after an outcome on the pair: the test it
     * had begun runs again in a new worker */
    bench__workers_forget(slot);
    bench__close_fd(&w->sock);
    bench__close_fd(&w->out_fd);
    bench__close_fd(&w->pidfd);
    munmap(w->sh, sizeof *w->sh);
    w->sh = NULL;
    w->pid = 0;
    w->gone = w->ending = w->timed_out = false;
    for (size_t i = 0; i < w->queued; i++)
        w->q[i].sent = false;
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

/* Close the pair of an idle worker: it exits; wait for it. */
static void retire(struct pool_run *p, size_t slot)
{
    shutdown(p->workers[slot].sock, SHUT_RDWR);
    reap(p, slot, 0);
}

/* Whether the slot needs dispatch: a batch it holds is not with a live worker, or it has room
 * for one more while tests are left. */
static bool wants_dispatch(const struct pool_run *p, const struct worker *w)
{
    if (w->ending)
        return false; /* its slot is free once it is reaped */
    for (size_t i = 0; i < w->queued; i++)
        if (!w->q[i].sent)
            return true;
    return w->queued < 2 && p->next < p->pool->n_tests;
}

/* Queue the next batch on the slot when there is room, and send its worker (a new one when there
 * is none) every batch it does not have yet. */
static void dispatch(struct pool_run *p, size_t slot)
{
    struct worker *w = &p->workers[slot];
    if (w->queued < 2 && p->next < p->pool->n_tests) {
        size_t left = p->pool->n_tests - p->next, k = left / (4 * p->n);
        k = k < 1 ? 1 : k > BATCH_MAX ? BATCH_MAX : k;
        w->q[w->queued++] = (struct batch){.first = p->next, .end = p->next + k};
        p->next += k;
    }
    for (int attempt = 0; attempt < 2 && w->queued; attempt++) {
        if (w->pid == 0) {
            int rc = spawn(p, slot);
            if (rc < 0) {
                struct bench__test_end end = {.kind = BENCH__END_NO_WORKER, .error = rc};
                end_test(p, w, &end);
                return;
            }
        }
        size_t i = 0;
        for (; i < w->queued; i++) {
            struct batch *b = &w->q[i];
            if (b->sent)
                continue;
            uint64_t wire[3] = {REQ_BATCH, b->first, b->end - b->first};
            if (i == 0) { /* it runs now */
                w->start_ns = bench__workers_clock_ns();
                w->stopped_ns = bench__workers_stopped_ns();
            }
            if (send(w->sock, wire, sizeof wire, MSG_NOSIGNAL) != (ssize_t)sizeof wire)
                break;
            b->sent = true;
        }
        if (i == w->queued)
            return;
        /* it died: make sure, reap it, and start another */
        bench__workers_kill(slot);
        reap(p, slot, 0);
    }
    if (w->queued && !w->q[0].sent) {
        struct bench__test_end end = {.kind = BENCH__END_NO_WORKER, .error = -EPIPE};
        end_test(p, w, &end);
    }
}

/* The deadline of the test the runner believes runs has come: take the ends the worker holds,
 * and kill its group only when the test that runs is that one and has run its limit; otherwise
 * its deadline moves. */
static void judge_deadline(struct pool_run *p, size_t slot, struct bench__deadlines *d)
{
    struct worker *w = &p->workers[slot];
    uint64_t index, out;
    int64_t since;
    read_running(w->sh, &index, &since, &out); /* before the ring: an end then is in it */
    take_ring(p, w);
    if (!w->queued || w->ending)
        return;
    int64_t stopped = bench__workers_stopped_ns() - w->stopped_ns;
    int64_t limit = (int64_t)p->pool->timeout * 1000000000LL;
    if (index == w->q[0].first) {
        int64_t ran = bench__clock_deadline_ns() - since - stopped;
        if (ran >= limit) {
            bench__workers_kill(slot);
            w->timed_out = true;
            w->timeout_index = w->q[0].first;
            return;
        }
        w->start_ns = d->now_ns - ran;
    } else {
        w->start_ns = d->now_ns; /* it began after the runner read the ring */
    }
    w->stopped_ns = bench__workers_stopped_ns();
    (void)bench__deadline_passed(d, w->start_ns); /* counts toward the nearest */
}

int bench__test_workers_run(const struct bench__test_pool *pool)
{
    int rc = 0;
    size_t n = pool->n_workers ? pool->n_workers : 1;
    struct pool_run p = {.pool = pool, .n = n, .workers = bench__xcalloc(n, sizeof *p.workers)};
    for (size_t i = 0; i < n; i++)
        p.workers[i] = (struct worker){.sock = -1, .out_fd = -1, .pidfd = -1};
    struct pollfd *fds = bench__xcalloc(2 * n, sizeof *fds);
    size_t *at = bench__xcalloc(2 * n, sizeof *at); /* each worker's sock and pidfd in fds */
    /* How often the runner looks at the rings while tests run: every FLUSH_MS after an end, then
     * twice as long each time nothing ended (a long test), up to idle_ms. */
    int peek_ms = FLUSH_MS;
    size_t ended_before = 0;
    while (p.ended < pool->n_tests) {
        for (size_t i = 0; i < n; i++) {
            struct worker *w = &p.workers[i];
            if (wants_dispatch(&p, w))
                dispatch(&p, i);
            else if (w->queued == 0 && w->pid != 0 && !w->ending)
                retire(&p, i); /* nothing left for it */
        }
        pool->tick(pool->arg);
        if (p.ended >= pool->n_tests)
            break;
        size_t nfds = 0;
        bool look_for_death = false, running = false;
        struct bench__deadlines d;
        bench__deadlines_begin(&d, pool->timeout);
        for (size_t i = 0; i < n; i++) {
            struct worker *w = &p.workers[i];
            size_t *mine = &at[2 * i];
            mine[0] = mine[1] = SIZE_MAX;
            if (w->pid == 0)
                continue;
            if (w->queued && !w->timed_out && !w->ending && bench__deadline_passed(&d, w->start_ns))
                judge_deadline(&p, i, &d);
            running = running || w->queued;
            if (!w->gone) {
                mine[0] = nfds;
                fds[nfds++] = (struct pollfd){.fd = w->sock, .events = POLLIN};
            }
            if (w->pidfd >= 0) {
                mine[1] = nfds;
                fds[nfds++] = (struct pollfd){.fd = w->pidfd, .events = POLLIN};
            } else {
                look_for_death = true;
            }
        }
        int timeout = pool->idle_ms;
        int deadline = bench__deadlines_ms(&d);
        if (deadline >= 0 && deadline < timeout)
            timeout = deadline;
        if (p.ended != ended_before)
            peek_ms = FLUSH_MS;
        else if (peek_ms < pool->idle_ms)
            peek_ms *= 2;
        ended_before = p.ended;
        if (running && timeout > peek_ms)
            timeout = peek_ms; /* the ends held while a long test runs are in the ring */
        if (look_for_death && timeout > REAP_POLL_MS)
            timeout = REAP_POLL_MS;
        int ready = poll(fds, nfds, timeout);
        if (ready < 0 && errno != EINTR) {
            rc = -errno;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            struct worker *w = &p.workers[i];
            const size_t *mine = &at[2 * i];
            if (w->pid == 0)
                continue;
            if (ready <= 0 || (mine[0] != SIZE_MAX && fds[mine[0]].revents))
                take_messages(&p, w);
            if (mine[1] == SIZE_MAX || fds[mine[1]].revents || w->gone || ready < 0)
                reap(&p, i, WNOHANG);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (p.workers[i].pid == 0)
            continue;
        if (p.workers[i].queued) {      /* only when poll failed: nothing is left waiting */
            p.workers[i].ending = true; /* what it had not ended is not ended here: the caller
                                         * says it was not run */
            bench__workers_kill(i);
        }
        retire(&p, i);
    }
    pool->tick(pool->arg);
    free(at);
    free(fds);
    free(p.workers);
    return rc;
}
