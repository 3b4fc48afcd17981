/* SPDX-License-Identifier: MIT */
/* test_batch_queue.c: the process's side of the one batch queue (testmode/batch_queue.c): the
 * batches a fork server or worker was handed, taken in the order they came, a batch past the end
 * of the pool cut to it or dropped, an empty one skipped, and a fifth one refused (the runner
 * has at most two out, so more breaks the protocol); and the runner's read of a pair whose
 * process sent its outcome and exited with a batch of the runner's unread (Linux's ECONNRESET
 * comes first: the outcome must still be read, then the end). The runner's side runs in
 * test_fork_server, test_one_clock and the e2e cases of both isolation modes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testmode/batch_queue.h"

static void put(struct bench__handed *h, uint64_t first, uint64_t count, size_t n_tests)
{
    const uint64_t req[3] = {BENCH__REQ_BATCH, first, count};
    assert_true(bench__handed_put(h, req, n_tests));
}

static void test_in_order(void **state)
{
    (void)state;
    struct bench__handed h = {0};
    assert_int_equal(bench__handed_next(&h), SIZE_MAX);
    put(&h, 0, 2, 10);
    put(&h, 5, 1, 10);
    assert_int_equal(bench__handed_next(&h), 0);
    assert_int_equal(h.n, 2);
    assert_int_equal(bench__handed_next(&h), 1);
    assert_int_equal(h.n, 1); /* the first batch is done: the last one begins */
    assert_int_equal(bench__handed_next(&h), 5);
    assert_int_equal(h.n, 0);
    assert_int_equal(bench__handed_next(&h), SIZE_MAX);
}

static void test_cut_dropped_empty(void **state)
{
    (void)state;
    struct bench__handed h = {0};
    put(&h, 8, 5, 10);  /* cut to 8..9 */
    put(&h, 10, 1, 10); /* past the end: dropped */
    put(&h, 3, 0, 10);  /* empty: skipped */
    put(&h, 4, 1, 10);
    assert_int_equal(h.n, 3);
    assert_int_equal(bench__handed_next(&h), 8);
    assert_int_equal(bench__handed_next(&h), 9);
    assert_int_equal(bench__handed_next(&h), 4);
    assert_int_equal(bench__handed_next(&h), SIZE_MAX);
}

static void test_fifth_refused(void **state)
{
    (void)state;
    struct bench__handed h = {0};
    for (uint64_t i = 0; i < 4; i++)
        put(&h, i, 1, 10);
    const uint64_t req[3] = {BENCH__REQ_BATCH, 4, 1};
    assert_false(bench__handed_put(&h, req, 10));
    assert_int_equal(h.n, 4);
    assert_int_equal(bench__handed_next(&h), 0);
}

/* The runner sent the next batch; the worker's thread sent its outcome and the worker exited
 * without reading the batch. The outcome is read, then the end of the pair. */
static void test_recv_after_reset(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    const uint64_t req[3] = {BENCH__REQ_BATCH, 5, 1};
    assert_int_equal(send(sv[0], req, sizeof req, 0), (ssize_t)sizeof req); /* never read */
    static const char outcome[] = "Ffailed on thread 2";
    assert_int_equal(send(sv[1], outcome, sizeof outcome - 1, 0), (ssize_t)sizeof outcome - 1);
    close(sv[1]);
    struct bench__batch_slot s = {.sock = sv[0], .pidfd = -1};
    char buf[64];
    size_t n = bench__batch_recv(&s, buf, sizeof buf);
    assert_int_equal(n, sizeof outcome - 1);
    assert_memory_equal(buf, outcome, n);
    assert_false(s.gone);
    assert_int_equal(bench__batch_recv(&s, buf, sizeof buf), 0);
    assert_true(s.gone);
    close(sv[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_cut_dropped_empty),
        cmocka_unit_test(test_fifth_refused),
        cmocka_unit_test(test_recv_after_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
