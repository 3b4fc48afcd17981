/* SPDX-License-Identifier: MIT */
/* test_platform.c: the portable build (-Dplatform=posix, docs/reference/platforms.md): every
 * Linux-only source and reading is an absence whose reason says "not available on this
 * platform", through the same catalog as a Linux build; tier-0's getrusage fields and the wall
 * clock still work; the portable forms of pipe2, socketpair and pidfd_open; the thread id. Built
 * only in that configuration (tests/meson.build), in place of the tests of the Linux sources. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <bench/catalog.h>

#include "platform/fds.h"
#include "sources/source.h"
#include "util/thread.h"
#include "workload/psi.h"
#include "workload/wall.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#if BENCH__LINUX
#error "test_platform is the portable build's test (-Dplatform=posix)"
#endif

static bool off_platform(const char *reason)
{
    return reason && strncmp(reason, BENCH__OFF_PLATFORM, strlen(BENCH__OFF_PLATFORM)) == 0;
}

static bool is_linux_block(const char *block)
{
    static const char *const linux_only[] = {"perf", "perf-sw", "syscall", "raw", "pfm", "psi"};
    for (size_t i = 0; i < sizeof linux_only / sizeof *linux_only; i++)
        if (!strcmp(block, linux_only[i]))
            return true;
    return false;
}

/* The catalog a program sees: each Linux-only block is there, its counting absent "not
 * available on this platform"; every absence in those blocks but the opt-in ones says so. */
static void test_catalog_capabilities(void **state)
{
    (void)state;
    bench_catalog_t *cat = NULL;
    assert_int_equal(bench_catalog_open(&cat), 0);
    size_t n = bench_catalog_capability_count(cat);
    bool counting_seen[6] = {false};
    bool tier0_counting = false, wall_seen = false;
    for (size_t i = 0; i < n; i++) {
        struct bench_capability_info info = BENCH_CAPABILITY_INFO_INIT;
        assert_int_equal(bench_catalog_capability(cat, i, &info), 0);
        if (!strcmp(info.source, "tier0") && !strcmp(info.name, "counting"))
            tier0_counting = info.present;
        if (!strcmp(info.source, "wall"))
            wall_seen = true;
        if (!is_linux_block(info.source))
            continue;
        if (info.present)
            fail_msg("%s.%s is present in the portable build", info.source, info.name);
        if (info.reason && !strncmp(info.reason, "opt-in:", 7))
            continue;
        if (!off_platform(info.reason))
            fail_msg("%s.%s: reason '%s' does not say '" BENCH__OFF_PLATFORM "'", info.source,
                     info.name, info.reason ? info.reason : "(null)");
        static const char *const blocks[] = {"perf", "perf-sw", "syscall", "raw", "pfm", "psi"};
        for (size_t b = 0; b < 6; b++)
            if (!strcmp(info.source, blocks[b]))
                counting_seen[b] = true;
    }
    for (size_t b = 0; b < 6; b++)
        assert_true(counting_seen[b]);
    assert_true(tier0_counting);
    assert_true(wall_seen);
    bench_catalog_close(cat);
}

/* The perf metrics are still listed, unavailable, with the platform's reason. */
static void test_catalog_metrics(void **state)
{
    (void)state;
    bench_catalog_t *cat = NULL;
    assert_int_equal(bench_catalog_open(&cat), 0);
    size_t n = bench_catalog_metric_count(cat);
    bool instr = false, task_clock = false, minflt = false;
    for (size_t i = 0; i < n; i++) {
        struct bench_metric_info info = BENCH_METRIC_INFO_INIT;
        assert_int_equal(bench_catalog_metric(cat, i, &info), 0);
        if (!strcmp(info.source, "perf") || !strcmp(info.source, "perf-sw") ||
            !strcmp(info.source, "syscall")) {
            assert_false(info.available);
            if (!strstr(info.reason, BENCH__OFF_PLATFORM))
                fail_msg("%s: reason '%s'", info.name, info.reason);
        }
        instr = instr || !strcmp(info.name, "instr");
        task_clock = task_clock || !strcmp(info.name, "task-clock");
        if (!strcmp(info.name, "minflt")) {
            minflt = true;
            assert_true(info.available); /* getrusage: POSIX */
        }
        if (!strcmp(info.name, "syscr") || !strcmp(info.name, "rchar") ||
            !strcmp(info.name, "cache-hit")) {
            assert_false(info.available); /* /proc/self/io: Linux's */
            assert_non_null(strstr(info.reason, BENCH__OFF_PLATFORM));
        }
    }
    assert_true(instr);
    assert_true(task_clock);
    assert_true(minflt);
    bench_catalog_close(cat);
}

/* tier-0 counts with getrusage; its I/O half says why it is null. */
static void test_tier0_getrusage_half(void **state)
{
    (void)state;
    struct bench__caps caps;
    memset(&caps, 0, sizeof caps);
    char status[256];
    struct bench__source_request req = {.flag = true};
    void *st = bench__source_tier0.open(&req, &caps, status, sizeof status);
    assert_non_null(st);
    assert_non_null(strstr(status, BENCH__OFF_PLATFORM " (/proc/self/io is Linux's)"));
    /* the catalog lists the I/O columns unavailable, with that reason; getrusage's stay */
    for (size_t k = 0; k < bench__source_tier0.n_family; k++) {
        const char *name = bench__source_tier0.family[k].name;
        const char *why = bench__source_tier0.column_absent(st, k);
        bool io = strcmp(name, "minflt") && strcmp(name, "majflt") && strcmp(name, "vol-cs") &&
                  strcmp(name, "invol-cs");
        if (io && (!why || !strstr(why, BENCH__OFF_PLATFORM)))
            fail_msg("%s: '%s'", name, why ? why : "(measured)");
        if (!io && why)
            fail_msg("%s: '%s'", name, why);
    }
    double values[32];
    bool estimate[32];
    struct bench__counts out = {.values = values, .estimate = estimate};
    bench__source_tier0.pass_begin(st);
    bench__source_tier0.bracket_begin(st);
    char *p = malloc(1 << 20);
    assert_non_null(p);
    memset(p, 1, 1 << 20); /* page faults, counted by getrusage */
    free(p);
    bench__source_tier0.bracket_end(st);
    bench__source_tier0.pass_end(st, 1, 1, &out);
    for (size_t i = 0; i < bench__source_tier0.n_family; i++) {
        const char *name = bench__source_tier0.family[i].name;
        if (!strcmp(name, "minflt"))
            assert_false(isnan(values[i]));
        if (!strcmp(name, "syscr") || !strcmp(name, "read-bytes"))
            assert_true(isnan(values[i])); /* unmeasured is NaN, never 0 */
    }
    bench__source_tier0.close(st);
}

/* The wall source: process-scoped getrusage, its run-queue wait unattributed, both reasoned. */
static void test_wall_and_psi(void **state)
{
    (void)state;
    struct bench__wall w;
    bench__wall_open(&w);
    assert_false(w.thread_scope);
    assert_null(w.sched_path);
    assert_non_null(strstr(w.rusage_reason, BENCH__OFF_PLATFORM));
    assert_true(off_platform(w.sched_reason));
    struct bench__wall_snapshot a, b;
    bench__wall_read(&w, &a, NULL);
    bench__wall_read(&w, &b, NULL);
    assert_true(b.user_us >= a.user_us && a.user_us >= 0);
    bench__wall_close(&w);

    struct bench__psi p;
    char reason[256];
    assert_false(bench__psi_open(&p, reason, sizeof reason));
    assert_true(off_platform(reason));
    bench__psi_close(&p);
}

static void test_fds(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(bench__pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
    for (int i = 0; i < 2; i++) {
        assert_true(fcntl(fds[i], F_GETFD) & FD_CLOEXEC);
        assert_true(fcntl(fds[i], F_GETFL) & O_NONBLOCK);
        close(fds[i]);
    }
    assert_int_equal(bench__pipe2(fds, O_CLOEXEC), 0);
    assert_false(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
    close(fds[0]);
    close(fds[1]);
    assert_int_equal(bench__socketpair_cloexec(SOCK_STREAM, fds), 0);
    assert_true(fcntl(fds[1], F_GETFD) & FD_CLOEXEC);
    close(fds[0]);
    close(fds[1]);
    errno = 0;
    assert_int_equal(bench__pidfd_open(getpid()), -1);
    assert_int_equal(errno, ENOSYS);
}

static void *other_thread(void *arg)
{
    *(pid_t *)arg = bench__thread_id();
    return NULL;
}

static void test_thread_id(void **state)
{
    (void)state;
    pid_t me = bench__thread_id(), other = 0;
    assert_true(me != 0);
    assert_int_equal(bench__thread_id(), me);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, other_thread, &other), 0);
    pthread_join(t, NULL);
    assert_true(other != 0 && other != me);
    /* a forked child is not the thread that forked it (a check failing there must not jump
     * back into the parent's test) */
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        pid_t id = bench__thread_id();
        _exit(write(pipefd[1], &id, sizeof id) == (ssize_t)sizeof id ? 0 : 1);
    }
    pid_t in_child = 0;
    assert_int_equal(read(pipefd[0], &in_child, sizeof in_child), (ssize_t)sizeof in_child);
    waitpid(child, NULL, 0);
    close(pipefd[0]);
    close(pipefd[1]);
    assert_true(in_child != 0 && in_child != me);
    assert_int_equal(bench__thread_id(), me);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_capabilities),
        cmocka_unit_test(test_catalog_metrics),
        cmocka_unit_test(test_tier0_getrusage_half),
        cmocka_unit_test(test_wall_and_psi),
        cmocka_unit_test(test_fds),
        cmocka_unit_test(test_thread_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
