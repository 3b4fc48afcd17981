/* SPDX-License-Identifier: MIT */
/* fork_server.c: owns --isolate=test's processes: one fork server per job, a process forked from
 * the runner when the run begins, that is handed a batch of tests and forks one process per test
 * itself, waits for it, and streams its output and its end back; a test that takes its server
 * down (a timeout, a signal to its process group) ends with that, and a new server takes the rest
 * of the batch. It renders nothing (runner.c does), owns no signals (workers.c does), and keeps
 * no queue of batches of its own (batch_queue.c does: this file gives it the server's callbacks).
 * The server and the runner's side are the two ends of one protocol, kept in one file so that a
 * change of the one is seen beside the other.
 *
 * Why a server: the runner's own work per test (a fork of a process that grows with the run, the
 * pipes, the wake-ups, the rendering) was on the path of every test; here each job's forks and
 * waits happen in its own small process, on a CPU of its own at -j 2, and the runner only reads
 * messages (docs/explanation/performance.md, "Test mode").
 *
 * Each test still runs in a process of its own, in its server's process group (so a Ctrl-C or
 * Ctrl-Z that workers.c passes on to the group reaches it, and a timeout kills the group: the
 * test, what it started, and the server). Its stdout and stderr go to a pipe of its own, which
 * the server drains while it runs; its outcome to a second pipe, read once it was reaped.
 *
 * The protocol, on a SOCK_SEQPACKET pair per server: the runner sends batches (BENCH__REQ_BATCH:
 * the first index into the pool's tests, and how many), the next one while the last still runs, so
 * the server never waits for the runner; the server runs them in the order they came, and sends,
 * for each test in turn, MSG_OUTPUT messages with what the test printed (at most output_cap + 1
 * bytes in all) and then its end (or a MSG_NO_FORK message when no process could be started for
 * it). Short output and the ends are records ('O': a uint32_t length and the bytes; 'E': an
 * end_head and the test's report) gathered in one MSG_RECORDS message, sent at most FLUSH_NS
 * after its first record (and before anything else is sent, and before the server waits for a
 * batch): the runner wakes once for many tests. The test that runs, as the runner knows it, is the
 * first of the queued batches not ended yet.
 *
 * --timeout: the runner knows of an end, and so of the next test's start, only once the records
 * reach it (later still when the server is starved), and believes a batch's first test began when
 * it sent the batch. So at a test's deadline the runner does not kill: it asks the server
 * (REQ_TIME_OUT: the test's index, and the time the runner was stopped since it believes the test
 * began), and the server, which reads its socket while a test runs, decides. If that test still
 * runs and has run its limit (on the server's clock, less the time stopped), the server sends the
 * records it holds and kills its group (the test, what it started, itself): the runner reports the
 * test as timed out when the server is gone. If the test ended, the server sends its records (the
 * end among them) and goes on. If it began later than the runner believed, the server answers
 * MSG_NOT_YET with the time it has left, and the runner moves its deadline. A server that neither
 * answers nor dies within GRACE_NS (stopped by its test, or starved that long) is killed with its
 * group by the runner, and the test is reported as timed out with that said: the one case where a
 * test that ended just in time can be reported as timed out. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include "../util/clock.h"
#include "../util/text.h"
#include "batch_queue.h"
#include "deadline.h"
#include "fork_server.h"
#include "pool_util.h"

#define MSG_OUTPUT 'O'
#define MSG_RECORDS 'R'
#define RECORD_OUTPUT 'O'
#define RECORD_END 'E'
#define MSG_NO_FORK 'F'
#define MSG_NOT_YET 'N'
/* The runner's requests besides BENCH__REQ_BATCH (batch_queue.h): three uint64_t, the kind
 * first. */
#define REQ_TIME_OUT 2 /* a test's index, and the ns the runner was stopped since it began */
#define CHUNK 16384
/* The longest a server holds an end before it sends it. */
#define FLUSH_NS 2000000LL
/* How long a test runs before the server reads its output while it runs. */
#define OUTPUT_WAIT_MS 1
/* How long the runner waits for a server to answer a time-out before it kills the group. */
#define GRACE_NS 2000000000LL
/* Without a pidfd (kernels before 5.3), an exit is looked for this often. */
#define REAP_POLL_MS 1
/* The longest report bench__finish writes (bench__outcome_encode of a message). */
#define REPORT_MAX (sizeof((struct bench_ctx *)0)->message + 64)

struct end_head {
    int32_t status;      /* the wait status */
    int32_t report_len;  /* bytes of bench__outcome_encode's report that follow; 0: none */
    int64_t duration_ns; /* from before the fork to the reaping, on the server's clock */
};

/* What the runner keeps of a slot's server besides its queue (the slot of batch_queue.h). */
struct server {
    int64_t asked_ns; /* when the runner asked the server to time out q[0].first */
    bool timed_out;   /* asked to, or killed: q[0].first ends as timed out if the server dies */
    bool unanswered;  /* no answer within GRACE_NS: the runner killed the group itself */
    char *out;        /* q[0].first's output */
    size_t out_len;
    bool out_truncated;
};

void (*bench__fork_server_seam)(size_t index, bool ended);

/* ---- the server process ------------------------------------------------------------ */

static void say(int sock, const void *msg, size_t len)
{
    ssize_t n;
    do
        n = send(sock, msg, len, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)len)
        _exit(0); /* the runner is gone */
}

/* The records not sent yet: a MSG_RECORDS message being filled. */
static char pending[8192] = {MSG_RECORDS};
static size_t pending_len = 1;
static int64_t pending_since;

static void flush_records(int sock)
{
    if (pending_len > 1)
        say(sock, pending, pending_len);
    pending_len = 1;
}

/* Add a record of a kind and two parts; false when it cannot fit in a message. */
static bool add_record(int sock, char kind, const void *a, size_t a_len, const void *b,
                       size_t b_len)
{
    size_t len = 1 + a_len + b_len;
    if (pending_len + len > sizeof pending)
        flush_records(sock);
    if (pending_len + len > sizeof pending)
        return false;
    if (pending_len == 1)
        pending_since = bench__clock_deadline_ns();
    pending[pending_len] = kind;
    memcpy(pending + pending_len + 1, a, a_len);
    memcpy(pending + pending_len + 1 + a_len, b, b_len);
    pending_len += len;
    return true;
}

/* The ms until the pending records are due (rounded up), or -1 when there are none. */
static int flush_due_ms(void)
{
    if (pending_len <= 1)
        return -1;
    int64_t left = pending_since + FLUSH_NS - bench__clock_deadline_ns();
    return left > 0 ? (int)((left + 999999) / 1000000) : 0;
}

static void say_no_fork(int sock, int err)
{
    flush_records(sock);
    char msg[1 + sizeof(int32_t)] = {MSG_NO_FORK};
    int32_t e = err;
    memcpy(msg + 1, &e, sizeof e);
    say(sock, msg, sizeof msg);
}

/* Forward what the output pipe holds now (up to the cap); false at its end. */
static bool forward_output(const struct bench__test_pool *pool, int sock, int fd, size_t *sent)
{
    char msg[1 + CHUNK];
    msg[0] = MSG_OUTPUT;
    ssize_t n;
    do
        n = read(fd, msg + 1, CHUNK);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    size_t take = (size_t)n, room = pool->output_cap + 1 - *sent;
    if (take > room)
        take = room; /* one byte past the cap says it was cut */
    uint32_t len = (uint32_t)take;
    if (take && !add_record(sock, RECORD_OUTPUT, &len, sizeof len, msg + 1, take))
        say(sock, msg, 1 + take); /* the records before were sent first */
    *sent += take;
    return true;
}

/* The batches the server was handed and has not run yet. */
static struct bench__handed handed;
static bool hung_up; /* the runner closed its end */
/* The test that runs (its index; SIZE_MAX: none), and when it was forked. */
static size_t running = SIZE_MAX;
static int64_t running_since;

/* Time out the test `index` if it runs and has run its limit plus the time the runner was
 * stopped since it believes the test began (the server's clock goes on while stopped): the
 * records held are sent first, and the group (the test, what it started, the server) is killed.
 * Otherwise the records are sent now (the test's end among them, when it ended), or when it began
 * later than the runner believes, the time it has left. */
static void time_out(const struct bench__test_pool *pool, int sock, uint64_t index,
                     int64_t stopped_ns)
{
    flush_records(sock);
    if (index != running)
        return;
    int64_t left = (int64_t)pool->timeout * 1000000000LL + stopped_ns -
                   (bench__clock_deadline_ns() - running_since);
    if (left <= 0) {
        kill(0, SIGKILL);
        _exit(0);
    }
    char msg[1 + 2 * sizeof(uint64_t)] = {MSG_NOT_YET};
    memcpy(msg + 1, &index, sizeof index);
    memcpy(msg + 1 + sizeof index, &left, sizeof left);
    say(sock, msg, sizeof msg);
}

/* Take the runner's requests: all that wait, or (block) at least one. */
static void take_requests(const struct bench__test_pool *pool, int sock, bool block)
{
    while (!hung_up) {
        uint64_t req[3];
        ssize_t n = recv(sock, req, sizeof req, block ? 0 : MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n != (ssize_t)sizeof req ||
            (req[0] == BENCH__REQ_BATCH && !bench__handed_put(&handed, req, pool->n_tests))) {
            hung_up = true; /* the runner closed its end (or broke the protocol) */
            return;
        }
        if (req[0] == REQ_TIME_OUT)
            time_out(pool, sock, req[1], (int64_t)req[2]);
        block = false;
    }
}

BENCH_NORETURN static void run_test(const struct bench__test_pool *pool, size_t index, int out_w,
                                    int res_w)
{
    dup2(out_w, STDOUT_FILENO);
    dup2(out_w, STDERR_FILENO);
    close(out_w);
    struct bench_ctx ctx = {.entry = &pool->suite->entries[pool->tests[index]], .result_fd = res_w};
    bench__current = &ctx;
    ctx.entry->test->fn(&ctx);
    ctx.message[0] = '\0';
    bench__finish(&ctx, BENCH__PASSED);
}

static void serve_one(const struct bench__test_pool *pool, int sock, size_t index)
{
    int out[2], res[2];
    if (bench__pipe2(out, O_CLOEXEC) != 0) {
        say_no_fork(sock, errno);
        return;
    }
    /* non-blocking: the test writes one report shorter than PIPE_BUF into the empty pipe (it
     * never blocks), read once the test was reaped */
    if (bench__pipe2(res, O_CLOEXEC | O_NONBLOCK) != 0) {
        say_no_fork(sock, errno);
        close(out[0]), close(out[1]);
        return;
    }
    if (bench__fork_server_seam)
        bench__fork_server_seam(index, false);
    int64_t start = bench__clock_deadline_ns();
    pid_t pid = fork();
    if (pid < 0) {
        say_no_fork(sock, errno);
        close(out[0]), close(out[1]), close(res[0]), close(res[1]);
        return;
    }
    if (pid == 0) {
        close(sock);
        close(out[0]);
        close(res[0]);
        run_test(pool, index, out[1], res[1]);
    }
    close(res[1]);
    running = index;
    running_since = start;
    int pidfd = bench__pidfd_open(pid);
    /* With a pidfd the server holds the output pipe's write end until the test is reaped: its
     * exit wakes the server once (on the pidfd), not twice. Without, the end of the pipe says the
     * test is exiting, and its exit is polled for. */
    if (pidfd < 0)
        bench__close_fd(&out[1]);
    size_t sent = 0;
    int status = 0;
    /* With a pidfd, the output pipe is watched only once the test ran OUTPUT_WAIT_MS: a short
     * test's output is read after its exit, with no wake-up of its own (a longer one that fills
     * the pipe waits that long, once). */
    bool open = true, watch = pidfd < 0, reaped = false;
    int poll_err = 0;
    while (!reaped) {
        struct pollfd fds[3] = {{.fd = open && watch ? out[0] : -1, .events = POLLIN},
                                {.fd = pidfd, .events = POLLIN},
                                {.fd = hung_up ? -1 : sock, .events = POLLIN}};
        int wait = !watch ? OUTPUT_WAIT_MS : open || pidfd >= 0 ? -1 : REAP_POLL_MS;
        int due = flush_due_ms();
        int ready = poll(fds, 3, due >= 0 && (wait < 0 || due < wait) ? due : wait);
        if (ready < 0 && errno != EINTR) {
            /* the server cannot wait for the test: it ends it, and says why */
            poll_err = errno;
            kill(pid, SIGKILL);
            bench__reaped(pid, &status, 0);
            break;
        }
        if (flush_due_ms() == 0)
            flush_records(sock);
        watch = true;
        if (ready > 0 && fds[2].revents)
            take_requests(pool, sock, false);
        if (ready > 0 && fds[0].revents)
            open = forward_output(pool, sock, out[0], &sent);
        if (pidfd >= 0 ? ready > 0 && fds[1].revents : !open) {
            pid_t got;
            do
                got = waitpid(pid, &status, pidfd >= 0 ? 0 : WNOHANG);
            while (got < 0 && errno == EINTR);
            /* ECHILD: the program ignores SIGCHLD and the kernel reaped the test (its status is
             * lost; what it reported still counts) */
            reaped = got == pid || got < 0;
        }
    }
    int64_t duration = bench__clock_deadline_ns() - start;
    running = SIZE_MAX;
    /* reaped: what it printed is all in the pipe (what a process it left behind adds later is
     * not read) */
    for (;;) {
        struct pollfd p = {.fd = out[0], .events = POLLIN};
        if (poll(&p, 1, 0) != 1 || !forward_output(pool, sock, out[0], &sent))
            break;
    }
    char report[REPORT_MAX];
    ssize_t n;
    do
        n = read(res[0], report, REPORT_MAX);
    while (n < 0 && errno == EINTR);
    if (poll_err) { /* what the test reported, if anything, was not waited for */
        char text[128];
        bench__fmt(text, sizeof text, "the fork server could not wait for the test: poll: %s",
                   strerror(poll_err));
        n = (ssize_t)bench__outcome_encode(BENCH__FAILED, text, report, REPORT_MAX);
        status = 0;
    }
    struct end_head head = {
        .status = status, .report_len = n > 0 ? (int32_t)n : 0, .duration_ns = duration};
    close(out[0]);
    bench__close_fd(&out[1]);
    close(res[0]);
    bench__close_fd(&pidfd);
    add_record(sock, RECORD_END, &head, sizeof head, report, (size_t)head.report_len);
    if (bench__fork_server_seam)
        bench__fork_server_seam(index, true);
    if (flush_due_ms() == 0)
        flush_records(sock);
}

BENCH_NORETURN static void server_main(struct bench__batch_queue *q, size_t self, int sock)
{
    (void)self;
    for (;;) {
        if (handed.n == 0) /* while a test runs, serve_one reads them */
            take_requests(q->pool, sock, false);
        if (handed.n == 0) {
            if (hung_up)
                _exit(0);        /* no more tests */
            flush_records(sock); /* no batch waits: the runner hears of every end first */
            take_requests(q->pool, sock, true);
            continue;
        }
        size_t index = bench__handed_next(&handed);
        if (index != SIZE_MAX)
            serve_one(q->pool, sock, index);
    }
}

/* ---- the runner's side: the callbacks of the queue (batch_queue.h) ------------------ */

static struct server *server(struct bench__batch_queue *q, size_t slot)
{
    return &((struct server *)q->mode)[slot];
}

/* A test of the slot ends: its output goes with it. */
static void before_end(struct bench__batch_queue *q, size_t slot, struct bench__test_end *end)
{
    struct server *s = server(q, slot);
    end->output = s->out;
    end->output_len = s->out_len;
    end->output_truncated = s->out_truncated;
    s->out = NULL;
    s->out_len = 0;
    s->out_truncated = false;
    s->timed_out = s->unanswered = false;
}

static void take_output(struct bench__batch_queue *q, size_t slot, const char *data, size_t n)
{
    struct server *s = server(q, slot);
    bench__output_keep(&s->out, &s->out_len, &s->out_truncated, q->pool->output_cap, data, n);
}

/* The records of a MSG_RECORDS message, in turn. */
static void take_records(struct bench__batch_queue *q, size_t slot, const char *msg, size_t len)
{
    struct bench__batch_slot *s = &q->slots[slot];
    while (len > 0 && s->queued) {
        char kind = *msg++;
        len--;
        if (kind == RECORD_OUTPUT) {
            uint32_t n;
            if (len < sizeof n)
                return;
            memcpy(&n, msg, sizeof n);
            if (n > len - sizeof n)
                return;
            take_output(q, slot, msg + sizeof n, n);
            msg += sizeof n + n;
            len -= sizeof n + n;
            continue;
        }
        struct end_head head;
        if (kind != RECORD_END || len < sizeof head)
            return;
        memcpy(&head, msg, sizeof head);
        const char *report = msg + sizeof head;
        size_t report_len = head.report_len > 0 ? (size_t)head.report_len : 0;
        if (report_len > len - sizeof head)
            return;
        msg += sizeof head + report_len;
        len -= sizeof head + report_len;
        /* the time the runner (and the server with it) spent stopped does not count */
        int64_t stopped = bench__workers_stopped_ns() - s->stopped_ns;
        int64_t duration = head.duration_ns - stopped;
        char message[sizeof((struct bench_ctx *)0)->message];
        enum bench__outcome outcome;
        /* negative when the runner's stop began before the test did (the stop is counted from
         * when the runner believes the test began): how long the test ran is then not known */
        struct bench__test_end end = {.duration_ns = duration >= 0 ? duration : -1};
        if (!WIFSIGNALED(head.status) && report_len > 0 &&
            bench__outcome_decode(report, report_len, &outcome, message, sizeof message) == 0) {
            end.kind = BENCH__END_REPORTED;
            end.outcome = outcome;
            end.message = message;
        } else {
            end.kind = BENCH__END_DIED;
            end.status = head.status;
        }
        bench__batch_end(q, slot, &end);
    }
}

/* Take every message the server sent so far; at the end of the pair, mark it gone. */
static void take_messages(struct bench__batch_queue *q, size_t slot)
{
    static char msg[8192 + 1 + CHUNK];
    struct bench__batch_slot *s = &q->slots[slot];
    size_t n;
    while (s->sock >= 0 && (n = bench__batch_recv(s, msg, sizeof msg)) > 0) {
        if (s->queued == 0 || s->ending)
            continue; /* nothing runs: not ours to take */
        if (msg[0] == MSG_OUTPUT) {
            take_output(q, slot, msg + 1, n - 1);
        } else if (msg[0] == MSG_RECORDS) {
            take_records(q, slot, msg + 1, n - 1);
        } else if (msg[0] == MSG_NO_FORK && n >= 5) {
            int32_t err;
            memcpy(&err, msg + 1, sizeof err);
            struct bench__test_end end = {.kind = BENCH__END_NO_WORKER, .error = -err};
            bench__batch_end(q, slot, &end);
        } else if (msg[0] == MSG_NOT_YET && n == 1 + 2 * sizeof(uint64_t)) {
            uint64_t index;
            int64_t left;
            memcpy(&index, msg + 1, sizeof index);
            memcpy(&left, msg + 1 + sizeof index, sizeof left);
            struct server *sv = server(q, slot);
            if (sv->timed_out && !sv->unanswered && index == s->q[0].first) {
                /* it began later than the runner believed: its deadline moves */
                sv->timed_out = false;
                s->start_ns =
                    bench__workers_clock_ns() + left - (int64_t)q->pool->timeout * 1000000000LL;
            }
        }
    }
}

/* The server exited with the test the runner believes runs: that test ends with its death, or
 * its timeout. */
static void died(struct bench__batch_queue *q, size_t slot, int status)
{
    struct server *s = server(q, slot);
    struct bench__test_end end = {.kind = s->timed_out ? BENCH__END_TIMED_OUT : BENCH__END_DIED,
                                  .status = status,
                                  .unanswered = s->unanswered,
                                  .duration_ns =
                                      bench__workers_clock_ns() - q->slots[slot].start_ns};
    bench__batch_end(q, slot, &end);
}

/* Ask the server of the slot to time out the test the runner believes runs (q[0].first); the
 * server decides, because only it knows whether the test ended (its end may be held, or on its
 * way). A request it cannot take now waits for the grace like one it does not answer. */
static void ask_time_out(struct bench__batch_slot *s, size_t slot)
{
    uint64_t wire[3] = {REQ_TIME_OUT, s->q[0].first,
                        (uint64_t)(bench__workers_stopped_ns() - s->stopped_ns)};
    ssize_t n;
    do
        n = send(s->sock, wire, sizeof wire, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        bench__workers_kill(slot); /* it is gone: make sure */
}

/* At the deadline of the test the runner believes runs, ask its server; after the grace with no
 * answer, kill the group. */
static void deadline(struct bench__batch_queue *q, size_t slot, struct bench__deadlines *d)
{
    struct bench__batch_slot *b = &q->slots[slot];
    struct server *s = server(q, slot);
    if (b->queued && !s->timed_out && bench__deadline_passed(d, b->start_ns)) {
        ask_time_out(b, slot);
        s->timed_out = true;
        s->asked_ns = d->now_ns;
    } else if (s->timed_out && !s->unanswered && bench__deadline_due(d, s->asked_ns + GRACE_NS)) {
        bench__workers_kill(slot); /* it neither answered nor died */
        s->unanswered = true;
    }
}

static const struct bench__batch_ops server_ops = {
    .serve = server_main,
    .take = take_messages,
    .deadline = deadline,
    .died = died,
    .before_end = before_end,
    .reap_poll_ms = REAP_POLL_MS,
    .exit_hides_ever = false, /* a test closes the server's pair: the pair ends with it */
};

int bench__fork_servers_run(const struct bench__test_pool *pool)
{
    size_t n = bench__batch_slots(pool);
    struct server *s = bench__xcalloc(n, sizeof *s);
    int rc = bench__batch_queue_run(pool, &server_ops, s);
    for (size_t i = 0; i < n; i++)
        free(s[i].out);
    free(s);
    return rc;
}
