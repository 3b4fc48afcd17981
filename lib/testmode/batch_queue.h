/* SPDX-License-Identifier: MIT */
/* batch_queue.h: the pool of tests both isolation modes run (struct bench__test_pool, each test's
 * end), and the one queue of batches that runs it: a slot per job, each slot's process with up to
 * two batches of tests queued on it, the batches handed out, the test that runs ended, a process
 * reaped ("gone") or retired, and the loop that waits for all of them. What a process is, what it
 * sends and how a deadline is judged are the mode's (fork_server.c, test_worker.c), through
 * struct bench__batch_ops. */
#ifndef BENCH_TESTMODE_BATCH_QUEUE_H
#define BENCH_TESTMODE_BATCH_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../suite/context.h"
#include "../suite/registry.h"
#include "deadline.h"

/* How a test of the pool ended. */
enum bench__test_end_kind {
    BENCH__END_REPORTED,  /* the test returned, or left by a check, bench_fail or bench_skip */
    BENCH__END_DIED,      /* its process died while it ran: `status` is the wait status */
    BENCH__END_TIMED_OUT, /* it ran past --timeout: its process's group was killed */
    BENCH__END_NO_WORKER, /* no process could be started for it: `error` is -errno */
};

struct bench__test_end {
    size_t index; /* into bench__test_pool.tests */
    enum bench__test_end_kind kind;
    enum bench__outcome outcome; /* BENCH__END_REPORTED */
    const char *message;         /* BENCH__END_REPORTED: the check, fail or skip text */
    int status;                  /* BENCH__END_DIED */
    bool unanswered;     /* BENCH__END_TIMED_OUT: its fork server did not answer the time-out */
    int error;           /* BENCH__END_NO_WORKER */
    int64_t duration_ns; /* on the clock that stands still while the runner is stopped;
                            negative: not measured */
    char *output;        /* what it printed (malloc'd, may be NULL): the callee owns it */
    size_t output_len;
    bool output_truncated; /* more than output_cap bytes were printed */
};

struct bench__test_pool {
    const struct bench__suite *suite;
    const size_t *tests; /* suite indices of the tests to run, in suite order */
    size_t n_tests;
    size_t n_workers;  /* at most this many at once, in bench__workers slots 0..n_workers-1 */
    unsigned timeout;  /* --timeout: seconds, 0 = none */
    size_t output_cap; /* bytes of output kept per test */
    int idle_ms;       /* the longest wait before `tick` runs again */
    void *arg;
    /* every test ends at most once (exactly once unless the run returns an error), through
     * here, in the order they end */
    void (*end)(void *arg, struct bench__test_end *end);
    /* after every wake of the loop (a test ended, output came, idle_ms passed) */
    void (*tick)(void *arg);
};

/* The most tests handed to a process at once. A batch is a quarter of each job's share of what
 * is left (so the jobs end close together), and at most this. The cap is what a batch boundary
 * costs against what a batch holds back: a worker rings the runner when it begins its last batch,
 * so with trivial tests (a few µs each) every batch is a wake-up of the runner, and 64 halves them
 * against 32 (docs/explanation/performance.md, "Worker mode in batches"); a fork server's tests
 * take about 100 µs each, so its 64 run longer than its flush interval (2 ms) and the cap costs
 * it nothing. Larger gains little more (the wake-ups of the flushes remain) and leaves the last
 * tests of a run on one job longer before the quarter rule shrinks the batches. */
#define BENCH__BATCH_MAX 64

/* The request that hands a process a batch, on its SOCK_SEQPACKET pair: three uint64_t,
 * {BENCH__REQ_BATCH, the first index into the pool's tests, how many}. A mode's other requests
 * are the same three words with another kind. */
#define BENCH__REQ_BATCH 1

/* A run of the pool's tests handed to a slot: first..end-1 not ended yet. */
struct bench__batch {
    size_t first, end;
    bool sent; /* with the live process (a new process gets it again) */
};

/* One job: its process and its queue. */
struct bench__batch_slot {
    pid_t pid;                /* 0 = none in this slot */
    int sock;                 /* the runner's end of the pair */
    int pidfd;                /* readable once the process exited; -1: none */
    bool gone;                /* its end of the pair closed */
    bool ending;              /* it is killed, and no test ends by it any more */
    struct bench__batch q[2]; /* q[0].first runs, then the rest of q[0], then q[1] */
    size_t queued;            /* batches in q */
    int64_t start_ns;         /* bench__workers_clock_ns() when q[0].first began (at most
                                 since) */
    int64_t stopped_ns;       /* bench__workers_stopped_ns() then */
};

struct bench__batch_queue;

/* What a mode does for the queue. The callbacks get the slot's index; q->mode is the mode's own
 * state. */
struct bench__batch_ops {
    /* Optional: what the slot's process needs before it is forked (the worker's shared memory
     * and output file); 0, or -errno with what it took released. */
    int (*prepare)(struct bench__batch_queue *q, size_t slot);
    /* The slot's process, in it, on its end of the pair (sock): serve the batches; never
     * returns. What every test inherits is set up before (bench__batch_queue_run's note). */
    BENCH_NORETURN void (*serve)(struct bench__batch_queue *q, size_t slot, int sock);
    /* Take everything the process sent so far (ending tests with bench__batch_end), none while
     * the slot is ending; at the end of its pair, set the slot's gone. */
    void (*take)(struct bench__batch_queue *q, size_t slot);
    /* In each scan of the deadlines (a live process), the slot's: judge it, or count it toward
     * the nearest. */
    void (*deadline)(struct bench__batch_queue *q, size_t slot, struct bench__deadlines *d);
    /* The first kind of gone: the process was reaped (status from waitpid) while the test the
     * runner believes runs (q[0].first) had not ended: end it with how (died, timed out), or
     * leave it to run again in a new process. Not called for an ending slot. */
    void (*died)(struct bench__batch_queue *q, size_t slot, int status);
    /* Optional, the second kind of gone: the slot's process is gone (reaped; or, in a process
     * the queue started, it is another slot's): release what the mode holds for it. */
    void (*release)(struct bench__batch_queue *q, size_t slot);
    /* Optional: a test of the slot is about to end: add what the mode holds for it. */
    void (*before_end)(struct bench__batch_queue *q, size_t slot, struct bench__test_end *end);
    /* Optional: the poll timeout the mode wants, given the queue's. */
    int (*wait_ms)(struct bench__batch_queue *q, int timeout);
    /* Without a pidfd (kernels before 5.3), an exit is looked for this often: once the pair
     * closed, or always when a process's exit may leave its pair open (exit_hides_ever: a
     * test's child may hold it). */
    int reap_poll_ms;
    bool exit_hides_ever;
};

struct bench__batch_queue {
    const struct bench__test_pool *pool;
    const struct bench__batch_ops *ops;
    void *mode;
    struct bench__batch_slot *slots;
    size_t n;     /* slots */
    size_t next;  /* the first test not queued yet */
    size_t ended; /* tests ended */
};

/* The slots of a run of the pool: n_workers, at least one. */
BENCH__HIDDEN size_t bench__batch_slots(const struct bench__test_pool *pool);
/* Run every test of the pool in n_workers slots (at least one) of the mode's processes, each
 * forked from the runner in a process group of its own (bench__workers_fork) with a
 * SOCK_SEQPACKET pair to it, and before its serve callback: the other slots' descriptors closed
 * (and released), standard input on /dev/null, stdout unbuffered (nothing is lost when a test
 * crashes), SIGPIPE's default action (what every test inherits). Returns
 * 0 when all have ended and every process is reaped, or -errno when the runner could not wait
 * for them (poll failed): the tests not ended then never end (the caller reports them as not
 * run). Call it between bench__workers_begin(n_workers) and bench__workers_end. */
BENCH__HIDDEN int bench__batch_queue_run(const struct bench__test_pool *pool,
                                         const struct bench__batch_ops *ops, void *mode);
/* The test the slot runs (q[0].first) ended: hand it to the pool (after before_end), and the
 * next one's start is now. */
BENCH__HIDDEN void bench__batch_end(struct bench__batch_queue *q, size_t slot,
                                    struct bench__test_end *end);
/* A message from the slot's process, without waiting: its length, or 0 when none waits, or when
 * the pair ended (then the slot's gone is set). */
BENCH__HIDDEN size_t bench__batch_recv(struct bench__batch_slot *s, void *buf, size_t len);

/* The process's side: the batches it was handed and has not run yet, in the order they came
 * (the runner has at most two out, and hands them again only to a new process). */
struct bench__handed {
    struct {
        uint64_t first, end;
    } b[4];
    size_t n;
};
/* Take a BENCH__REQ_BATCH request (its first index clamped to n_tests); false when there is no
 * room: the runner broke the protocol. */
BENCH__HIDDEN bool bench__handed_put(struct bench__handed *h, const uint64_t req[3],
                                     size_t n_tests);
/* The next test to run (an index into the pool's tests), or SIZE_MAX when none is left. */
BENCH__HIDDEN size_t bench__handed_next(struct bench__handed *h);

#endif /* BENCH_TESTMODE_BATCH_QUEUE_H */
