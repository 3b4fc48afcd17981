/* SPDX-License-Identifier: MIT */
/* test_worker.c: owns --isolate=worker: one long-lived worker process per job that runs the
 * tests it is handed one after another, each test's output and outcome kept apart, and a new
 * worker after one died (crash, abort, exit, timeout) with the test that killed it reported and
 * the rest of its batches handed to the new one. It does not render anything (runner.c does) nor
 * own process groups and signals (workers.c does), nor keep a queue of batches of its own
 * (batch_queue.c does: this file gives it the worker's callbacks).
 *
 * Why batches: one round trip per test made every test pay two wake-ups, across CPUs when the
 * runner and its worker sit on two (docs/explanation/performance.md, "Test mode"). The runner
 * hands a worker batches (BENCH__REQ_BATCH: the first index into the pool's tests, and how many),
 * the next one while the last still runs, on a SOCK_SEQPACKET pair; the worker runs them in the
 * order they came and appends one record per ended test to a ring in memory it shares with the
 * runner. It rings the runner (a one-byte message) at most FLUSH_NS after the first record the
 * runner was not told of, when it starts its last batch, and before it blocks; the runner also
 * looks at the ring every FLUSH_NS while tests run. So the runner wakes about once per flush, not
 * per test. The test that runs, as the runner knows it, is the first of the queued batches not
 * ended yet.
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
 * The worker and the runner's side are the two ends of one protocol (the batches, the ring, the
 * running test's record), kept in one file so that a change of the one is seen beside the
 * other. */
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
#include "../util/thread.h"
#include "batch_queue.h"
#include "deadline.h"
#include "pool_util.h"
#include "test_worker.h"

/* Without a pidfd (kernels before 5.3), a worker's death is looked for this often. */
#define REAP_POLL_MS 10
/* The runner's requests besides BENCH__REQ_BATCH (batch_queue.h): three uint64_t, the kind
 * first. */
#define REQ_ROOM 2 /* the runner took records from a full ring */
/* The worker's ring of the runner's doorbell. */
#define MSG_DOORBELL 'D'
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

/* What the runner keeps of a slot's worker besides its queue (the slot of batch_queue.h, whose
 * `ending` is set when the worker reported through the pair and is killed). */
struct worker {
    int out_fd;     /* the worker's output file; -1: none */
    bool timed_out; /* killed for timeout_index's deadline */
    size_t timeout_index;
    struct shared *sh; /* NULL when none */
};

/* The mode's state of a run (the queue's `mode`). */
struct workers {
    struct worker *w;
    /* How often the runner looks at the rings while tests run: every FLUSH_MS after an end,
     * then twice as long each time nothing ended (a long test), up to idle_ms. */
    int peek_ms;
    size_t ended_before;
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

/* The batches the worker was handed and has not run yet. */
static struct bench__handed queued;
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
        if (n != (ssize_t)sizeof req ||
            (req[0] == BENCH__REQ_BATCH && !bench__handed_put(&queued, req, pool->n_tests)))
            _exit(0); /* the runner closed its end (or broke the protocol) */
        if (req[0] == REQ_ROOM && room)
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

static struct worker *worker_of(struct bench__batch_queue *q, size_t slot)
{
    return &((struct workers *)q->mode)->w[slot];
}

BENCH_NORETURN static void worker_main(struct bench__batch_queue *q, size_t self, int sock)
{
    const struct bench__test_pool *pool = q->pool;
    struct worker *w = worker_of(q, self);
    struct shared *sh = w->sh;
    dup2(w->out_fd, STDOUT_FILENO);
    dup2(w->out_fd, STDERR_FILENO);
    bench__close_fd(&w->out_fd);
    pid_t me = bench__thread_id(); /* its one thread: a fork leaves only the caller's */
    pid_t worker = getpid();       /* not the thread's id: off Linux the two differ */
    for (;;) {
        if (queued.n == 0) {
            if (!told)
                ring_bell(sock); /* no batch waits: the runner hears of every end first */
            take_request(pool, sock, true, NULL);
            continue;
        }
        while (queued.n == 1 && take_request(pool, sock, false, NULL)) {
        } /* the next batch, sent while this one runs */
        size_t index = bench__handed_next(&queued);
        if (index == SIZE_MAX)
            continue; /* empty batches only */
        if (queued.n == 0 && !told)
            ring_bell(sock); /* its last batch begins: the runner sends the next one */
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

/* ---- the runner's side: the callbacks of the queue (batch_queue.h) ------------------ */

/* The output file's size (not lseek: the file offset is shared with the worker). */
static uint64_t file_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

/* The worker's shared memory and output file, made before the fork. */
static int prepare(struct bench__batch_queue *q, size_t slot)
{
    struct worker *w = worker_of(q, slot);
    struct shared *sh =
        mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return -errno;
    int out = bench__anon_file();
    if (out < 0 || fcntl(out, F_SETFL, O_APPEND) != 0) {
        int err = -errno;
        if (out >= 0)
            close(out);
        munmap(sh, sizeof *sh);
        return err;
    }
    atomic_init(&sh->run_index, UINT64_MAX); /* no test runs yet */
    w->sh = sh;
    w->out_fd = out;
    return 0;
}

/* The output file's bytes from..to (at most the cap, and one byte past it that says it was cut)
 * into the end. */
static void read_output(struct bench__batch_queue *q, size_t slot, uint64_t from, uint64_t to,
                        struct bench__test_end *end)
{
    if (to <= from)
        return;
    size_t cap = q->pool->output_cap, len = (size_t)(to - from);
    if (len > cap) {
        end->output_truncated = true;
        len = cap;
    }
    if (len == 0)
        return;
    char *buf = bench__xmalloc(len + 1);
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(worker_of(q, slot)->out_fd, buf + got, len - got, (off_t)(from + got));
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

/* The output of the test the worker runs, when it is the one the runner believes runs. */
static void read_running_output(struct bench__batch_queue *q, size_t slot,
                                struct bench__test_end *end)
{
    struct worker *w = worker_of(q, slot);
    uint64_t index, out;
    int64_t since;
    read_running(w->sh, &index, &since, &out);
    if (index == q->slots[slot].q[0].first)
        read_output(q, slot, out, file_size(w->out_fd), end);
}

/* Take the records in the ring: each ends the test that runs, when it is that test's. */
static void take_ring(struct bench__batch_queue *q, size_t slot)
{
    struct bench__batch_slot *s = &q->slots[slot];
    struct shared *sh = worker_of(q, slot)->sh;
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
        if (!s->queued || rec.index != s->q[0].first || s->ending || !fits ||
            bench__outcome_decode(report, report_len, &outcome, message, sizeof message) != 0)
            continue;
        struct bench__test_end end = {.kind = BENCH__END_REPORTED,
                                      .outcome = outcome,
                                      .message = message,
                                      .duration_ns = rec.duration_ns};
        read_output(q, slot, rec.out_start, rec.out_end, &end);
        bench__batch_end(q, slot, &end);
    }
    if (!took)
        return;
    atomic_store(&sh->tail, tail);
    if (atomic_exchange(&sh->want_room, 0)) {
        uint64_t wire[3] = {REQ_ROOM, 0, 0};
        if (send(s->sock, wire, sizeof wire, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
            /* it is gone (its death will tell), or the pair is full of batches it will read */
        }
    }
}

/* Take what the worker sent on the pair: doorbells (the ring is taken), or the outcome of the
 * running test from bench__finish away from the worker's loop. At the end of the pair, mark it
 * gone. */
static void take_messages(struct bench__batch_queue *q, size_t slot)
{
    struct bench__batch_slot *s = &q->slots[slot];
    take_ring(q, slot);
    char buf[sizeof((struct bench_ctx *)0)->message + 3];
    size_t n;
    while (s->sock >= 0 && !s->gone && (n = bench__batch_recv(s, buf, sizeof buf)) > 0) {
        if (n == 1 && buf[0] == MSG_DOORBELL)
            continue;
        take_ring(q, slot); /* the ends before the outcome */
        char message[sizeof buf];
        enum bench__outcome outcome;
        if (!s->queued || s->ending ||
            bench__outcome_decode(buf, n, &outcome, message, sizeof message) != 0)
            continue; /* not from libbench: its death will tell */
        /* on a thread, which exits the worker now, or in a process the test forked, while the
         * worker runs on: it gets no other test */
        kill(s->pid, SIGKILL);
        struct bench__test_end end = {.kind = BENCH__END_REPORTED,
                                      .outcome = outcome,
                                      .message = message,
                                      .duration_ns = bench__workers_clock_ns() - s->start_ns};
        read_running_output(q, slot, &end);
        bench__batch_end(q, slot, &end);
        s->ending = true;
    }
}

/* The worker exited with the test the runner believes runs: that test ends with its death, or
 * its timeout; but a worker killed for a test that ended in time leaves the test it had begun
 * to run again in a new worker. */
static void died(struct bench__batch_queue *q, size_t slot, int status)
{
    struct bench__batch_slot *s = &q->slots[slot];
    struct worker *w = worker_of(q, slot);
    if (w->timed_out && w->timeout_index != s->q[0].first)
        return;
    struct bench__test_end end = {.kind = w->timed_out ? BENCH__END_TIMED_OUT : BENCH__END_DIED,
                                  .status = status,
                                  .duration_ns = bench__workers_clock_ns() - s->start_ns};
    read_running_output(q, slot, &end);
    bench__batch_end(q, slot, &end);
}

/* The worker is gone: its output file and shared memory with it. */
static void release(struct bench__batch_queue *q, size_t slot)
{
    struct worker *w = worker_of(q, slot);
    bench__close_fd(&w->out_fd);
    if (w->sh)
        munmap(w->sh, sizeof *w->sh);
    w->sh = NULL;
    w->timed_out = false;
}

/* The deadline of the test the runner believes runs: when it has come, take the ends the worker
 * holds, and kill its group only when the test that runs is that one and has run its limit;
 * otherwise its deadline moves. */
static void deadline(struct bench__batch_queue *q, size_t slot, struct bench__deadlines *d)
{
    struct bench__batch_slot *s = &q->slots[slot];
    struct worker *w = worker_of(q, slot);
    if (!s->queued || w->timed_out || s->ending || !bench__deadline_passed(d, s->start_ns))
        return;
    uint64_t index, out;
    int64_t since;
    read_running(w->sh, &index, &since, &out); /* before the ring: an end then is in it */
    take_ring(q, slot);
    if (!s->queued || s->ending)
        return;
    int64_t stopped = bench__workers_stopped_ns() - s->stopped_ns;
    int64_t limit = (int64_t)q->pool->timeout * 1000000000LL;
    if (index == s->q[0].first) {
        int64_t ran = bench__clock_deadline_ns() - since - stopped;
        if (ran >= limit) {
            bench__workers_kill(slot);
            w->timed_out = true;
            w->timeout_index = s->q[0].first;
            return;
        }
        s->start_ns = d->now_ns - ran;
    } else {
        s->start_ns = d->now_ns; /* it began after the runner read the ring */
    }
    s->stopped_ns = bench__workers_stopped_ns();
    (void)bench__deadline_passed(d, s->start_ns); /* counts toward the nearest */
}

/* The ends a worker holds while a long test runs are in its ring: the runner looks at the rings
 * FLUSH_MS after an end, then twice as long each time nothing ended, up to idle_ms. */
static int wait_ms(struct bench__batch_queue *q, int timeout)
{
    struct workers *ws = q->mode;
    bool running = false;
    for (size_t i = 0; i < q->n; i++)
        running = running || (q->slots[i].pid != 0 && q->slots[i].queued);
    if (q->ended != ws->ended_before)
        ws->peek_ms = FLUSH_MS;
    else if (ws->peek_ms < q->pool->idle_ms)
        ws->peek_ms *= 2;
    ws->ended_before = q->ended;
    return running && (timeout < 0 || timeout > ws->peek_ms) ? ws->peek_ms : timeout;
}

static const struct bench__batch_ops worker_ops = {
    .prepare = prepare,
    .serve = worker_main,
    .take = take_messages,
    .deadline = deadline,
    .died = died,
    .release = release,
    .wait_ms = wait_ms,
    .reap_poll_ms = REAP_POLL_MS,
    .exit_hides_ever = true, /* a process a test forked may hold the worker's pair */
};

int bench__test_workers_run(const struct bench__test_pool *pool)
{
    size_t n = bench__batch_slots(pool);
    struct workers ws = {.w = bench__xcalloc(n, sizeof *ws.w), .peek_ms = FLUSH_MS};
    for (size_t i = 0; i < n; i++)
        ws.w[i].out_fd = -1;
    int rc = bench__batch_queue_run(pool, &worker_ops, &ws);
    free(ws.w);
    return rc;
}
