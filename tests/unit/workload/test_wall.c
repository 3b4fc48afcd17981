/* SPDX-License-Identifier: MIT */
/* test_wall.c: the wall source: the schedstat parser, the pure decomposition on synthetic edge
 * pairs (every rule of inventory 2.7), open/read through a fake kernel behind the os seam, and
 * a spin and a sleep on the real kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "platform/os.h"
#include "sources/source.h"
#include "workload/wall.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define NA (-1)
#define MS INT64_C(1000000) /* ns */

#define assert_nan(v)                                                                              \
    do {                                                                                           \
        double v_ = (v);                                                                           \
        if (!isnan(v_))                                                                            \
            fail_msg("%s == %.17g, want NaN (not measured)", #v, v_);                              \
    } while (0)

#define assert_dbl(got, want)                                                                      \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!(g_ == w_))                                                                           \
            fail_msg("%s == %.17g, want %.17g", #got, g_, w_);                                     \
    } while (0)

/* ---- the schedstat parser ----------------------------------------------------------------- */

struct sched_case {
    const char *what;
    const char *text;
    size_t len; /* 0 = strlen */
    int rc;
    int64_t rq;
};

static const struct sched_case sched_cases[] = {
    /* captured with `cat /proc/thread-self/schedstat` on the development VM */
    {"captured", "3518216 453632 3\n", 0, 0, 453632},
    {"a fresh task", "0 0 0\n", 0, 0, 0},
    {"INT64_MAX", "1 9223372036854775807 2\n", 0, 0, INT64_MAX},
    {"INT64_MAX + 1", "1 9223372036854775808 2\n", 0, -1, NA},
    {"empty", "", 0, -1, NA},
    {"two fields", "12 34\n", 0, -1, NA},
    {"letters", "a b c\n", 0, -1, NA},
    {"glued", "1 2x 3\n", 0, -1, NA},
    {"tabs", "1\t2\t3\n", 0, -1, NA},
    {"double space", "1  2 3\n", 0, -1, NA},
    {"negative", "1 -2 3\n", 0, -1, NA},
    {"trailing field", "1 2 3 4\n", 0, -1, NA},
    {"torn: no newline", "3518216 453632 3", 0, -1, NA},
    {"torn: inside field 2", "3518216 4536", 0, -1, NA},
    {"torn: len cuts", "3518216 453632 3\n", 14, -1, NA},
};

static void test_schedstat_parse_table(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof sched_cases / sizeof sched_cases[0]; c++) {
        const struct sched_case *sc = &sched_cases[c];
        int64_t rq = 123;
        size_t len = sc->len ? sc->len : strlen(sc->text);
        int rc = bench__schedstat_parse(sc->text, len, &rq);
        if (rc != sc->rc || rq != sc->rq)
            fail_msg("case '%s': rc %d rq %lld, want rc %d rq %lld", sc->what, rc, (long long)rq,
                     sc->rc, (long long)sc->rq);
    }
}

/* ---- the decomposition (pure) --------------------------------------------------------------- */

/* A wall source as open leaves it on a healthy Linux host. */
static struct bench__wall healthy(void)
{
    struct bench__wall w;
    memset(&w, 0, sizeof w);
    w.thread_scope = true;
    w.sched_path = "/proc/thread-self/schedstat";
    return w;
}

static struct bench__wall_snapshot snap(int64_t user_us, int64_t sys_us, int64_t proc_cpu_us,
                                        int64_t runqueue_ns)
{
    struct bench__wall_snapshot s = {user_us, sys_us, proc_cpu_us, runqueue_ns};
    return s;
}

static void test_full_attribution(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    struct bench__wall_snapshot a = snap(1000, 500, 1500, 1 * MS);
    struct bench__wall_snapshot b = snap(61000, 20500, 81500, 6 * MS); /* +60, +20, rq +5 */
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_dbl(d.wall_ns, 100e6);
    assert_dbl(d.on_cpu_user_ns, 60e6);
    assert_dbl(d.on_cpu_kernel_ns, 20e6);
    assert_dbl(d.offcpu_runqueue_ns, 5e6);
    assert_nan(d.offcpu_disk_ns); /* system-wide PSI never attributes */
    assert_dbl(d.offcpu_other_ns, 15e6);
    assert_string_equal(d.scope, "thread");
    assert_string_equal(d.note, "");
}

static void test_runqueue_absent(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    w.sched_path = NULL;
    snprintf(w.sched_reason, sizeof w.sched_reason, "/proc/thread-self/schedstat: nope");
    struct bench__wall_snapshot a = snap(0, 0, 0, NA), b = snap(80000, 0, 80000, NA);
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_nan(d.offcpu_runqueue_ns);
    assert_dbl(d.offcpu_other_ns, 20e6); /* NaN contributes nothing: its time is in other */
    assert_nan(d.offcpu_disk_ns);
    assert_string_equal(d.note, "runqueue wait unattributed (/proc/thread-self/schedstat: nope) "
                                "— included in other");
}

static void test_runqueue_unreadable_at_an_edge(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    struct bench__wall_snapshot a = snap(0, 0, 0, 5 * MS), b = snap(10000, 0, 10000, NA);
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_nan(d.offcpu_runqueue_ns);
    assert_dbl(d.offcpu_other_ns, 90e6);
    assert_string_equal(d.note, "runqueue wait unattributed (/proc/thread-self/schedstat "
                                "unreadable at a window edge) — included in other");
}

static void test_runqueue_backwards(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    struct bench__wall_snapshot a = snap(0, 0, 0, 9 * MS), b = snap(10000, 0, 10000, 4 * MS);
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_nan(d.offcpu_runqueue_ns); /* never a fabricated "never waited" 0 */
    assert_dbl(d.on_cpu_user_ns, 10e6);
    assert_dbl(d.offcpu_other_ns, 90e6);
    assert_string_equal(d.note, "runqueue wait unattributed (schedstat went backwards — edges "
                                "from different tasks?) — included in other");
}

static void test_clamp_within_budget_is_silent(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    struct bench__decomposition d;
    /* 1 ms wall: budget 4 ms + 10 µs; 2.5 ms and exactly 5.01 ms of CPU clamp silently */
    struct bench__wall_snapshot a = snap(0, 0, 0, 0), b = snap(2500, 0, 2500, 0);
    bench__decompose(1 * MS, &w, &a, &b, &d);
    assert_dbl(d.offcpu_other_ns, 0.0);
    assert_string_equal(d.note, "");
    b = snap(4000, 1000, 5000, 10000); /* 5 ms CPU + 10 µs runqueue: excess == budget */
    bench__decompose(1 * MS, &w, &a, &b, &d);
    assert_dbl(d.offcpu_other_ns, 0.0);
    assert_dbl(d.on_cpu_user_ns, 4e6); /* the parts themselves are never trimmed */
    assert_string_equal(d.note, "");
    /* 1 % of wall counts: 1 s wall, 13.9 ms over (budget 14 ms) */
    b = snap(1013900, 0, 1013900, 0);
    bench__decompose(1000 * MS, &w, &a, &b, &d);
    assert_dbl(d.offcpu_other_ns, 0.0);
    assert_string_equal(d.note, "");
}

static void test_clamp_beyond_budget_is_noted(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    struct bench__decomposition d;
    struct bench__wall_snapshot a = snap(0, 0, 0, 0), b = snap(4000, 1000, 5000, 11000);
    bench__decompose(1 * MS, &w, &a, &b, &d); /* 1 ns past the budget */
    assert_dbl(d.offcpu_other_ns, 0.0);
    assert_string_equal(d.note, "on-CPU + runqueue exceed wall by 4011 µs (clamped)");
    b = snap(15000, 0, 15000, 0);
    bench__decompose(1 * MS, &w, &a, &b, &d);
    assert_dbl(d.offcpu_other_ns, 0.0);
    assert_string_equal(d.note, "on-CPU + runqueue exceed wall by 14000 µs (clamped)");
}

static void test_process_scope(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    w.thread_scope = false;
    snprintf(w.rusage_reason, sizeof w.rusage_reason, "getrusage(RUSAGE_THREAD): refused");
    /* process scope: the snapshot's user/sys are RUSAGE_SELF; no cross-thread comparison */
    struct bench__wall_snapshot a = snap(0, 0, 0, 0), b = snap(30000, 10000, 90000, 2 * MS);
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_string_equal(d.scope, "process");
    assert_dbl(d.on_cpu_user_ns, 30e6);
    assert_dbl(d.on_cpu_kernel_ns, 10e6);
    assert_dbl(d.offcpu_runqueue_ns, 2e6);
    assert_dbl(d.offcpu_other_ns, 58e6);
    assert_string_equal(d.note, "");
}

static void test_cross_thread_disclosure(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    struct bench__decomposition d;
    struct bench__wall_snapshot a = snap(0, 0, 0, 0);
    /* 100 ms wall → threshold max(1 ms, 10 ms) = 10 ms of other-thread CPU */
    struct bench__wall_snapshot b = snap(8000, 2000, 20000, 0); /* exactly 10 ms elsewhere */
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_string_equal(d.note, "");
    b = snap(8000, 2000, 20001, 0); /* 10.001 ms elsewhere */
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_string_equal(d.note, "process used 10001 µs CPU on other threads — decomposition "
                                "covers the driving thread");
    assert_dbl(d.on_cpu_user_ns, 8e6); /* disclosed, never added to the thread's parts */
    assert_dbl(d.offcpu_other_ns, 90e6);
    /* 5 ms wall → the 1 ms floor decides */
    b = snap(1000, 0, 2000, 0);
    bench__decompose(5 * MS, &w, &a, &b, &d);
    assert_string_equal(d.note, "");
    b = snap(1000, 0, 2001, 0);
    bench__decompose(5 * MS, &w, &a, &b, &d);
    assert_string_equal(d.note, "process used 1001 µs CPU on other threads — decomposition "
                                "covers the driving thread");
    /* process CPU unknown at an edge: no claim either way */
    b = snap(1000, 0, NA, 0);
    bench__decompose(5 * MS, &w, &a, &b, &d);
    assert_string_equal(d.note, "");
}

static void test_getrusage_failed_at_an_edge(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    struct bench__wall_snapshot a = snap(NA, NA, NA, 0), b = snap(10000, 0, 10000, 3 * MS);
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_nan(d.on_cpu_user_ns);
    assert_nan(d.on_cpu_kernel_ns);
    assert_dbl(d.offcpu_runqueue_ns, 3e6);
    assert_dbl(d.offcpu_other_ns, 97e6);
    assert_string_equal(d.note, "on-CPU time unattributed (getrusage failed at a window edge) — "
                                "included in other");
}

static void test_notes_join(void **state)
{
    (void)state;
    struct bench__wall w = healthy();
    w.sched_path = NULL;
    snprintf(w.sched_reason, sizeof w.sched_reason, "r");
    struct bench__wall_snapshot a = snap(0, 0, 0, NA), b = snap(15000, 0, 30000, NA);
    struct bench__decomposition d;
    bench__decompose(1 * MS, &w, &a, &b, &d);
    assert_string_equal(d.note, "runqueue wait unattributed (r) — included in other; "
                                "on-CPU + runqueue exceed wall by 14000 µs (clamped); "
                                "process used 15000 µs CPU on other threads — decomposition "
                                "covers the driving thread");
    /* the longest reasons still fit, truncated at worst, always terminated */
    memset(w.sched_reason, 'x', sizeof w.sched_reason - 1);
    w.sched_reason[sizeof w.sched_reason - 1] = '\0';
    a = snap(NA, NA, NA, NA);
    bench__decompose(1 * MS, &w, &a, &b, &d);
    assert_true(strlen(d.note) < sizeof d.note);
    assert_non_null(strstr(d.note, "included in other; runqueue wait unattributed (xxx"));
}

/* ---- a fake kernel behind the seam -------------------------------------------------------- */

#define FAKE_FD 4444
#define THREAD_SELF "/proc/thread-self/schedstat"
#define SELF "/proc/self/schedstat"

static struct {
    int thread_errno; /* RUSAGE_THREAD refused with this errno (0 = accepted) */
    int self_errno;   /* RUSAGE_SELF fails with this errno (0 = succeeds) */
    int64_t thr_user, thr_sys, proc_user, proc_sys; /* µs */
    int64_t self_step;    /* proc_user grows this much after each RUSAGE_SELF reading */
    const char *sched[2]; /* thread-self, self: the text, or NULL to fail open */
    int sched_errno[2];
    const char *open_text;
    size_t pos;
    unsigned ru_thread, ru_self, sched_opens[2];
} fk;

static struct timeval tv(int64_t us)
{
    struct timeval t = {(time_t)(us / 1000000), (suseconds_t)(us % 1000000)};
    return t;
}

static int fake_getrusage(int who, struct rusage *ru)
{
    memset(ru, 0, sizeof *ru);
    if (who == RUSAGE_THREAD) {
        fk.ru_thread++;
        if (fk.thread_errno) {
            errno = fk.thread_errno;
            return -1;
        }
        ru->ru_utime = tv(fk.thr_user);
        ru->ru_stime = tv(fk.thr_sys);
        return 0;
    }
    assert_int_equal(who, RUSAGE_SELF);
    fk.ru_self++;
    if (fk.self_errno) {
        errno = fk.self_errno;
        return -1;
    }
    ru->ru_utime = tv(fk.proc_user);
    ru->ru_stime = tv(fk.proc_sys);
    /* the process-wide fields tier-0 takes from this reading; minflt stamps the call */
    ru->ru_minflt = (long)fk.ru_self;
    ru->ru_majflt = 3;
    ru->ru_nvcsw = 40;
    ru->ru_nivcsw = 50;
    fk.proc_user += fk.self_step;
    return 0;
}

static int fake_open(const char *path, int flags)
{
    (void)flags;
    int f = strcmp(path, THREAD_SELF) == 0 ? 0 : strcmp(path, SELF) == 0 ? 1 : -1;
    if (f < 0)
        fail_msg("unexpected open of %s", path);
    assert_null(fk.open_text);
    fk.sched_opens[f]++;
    if (!fk.sched[f]) {
        errno = fk.sched_errno[f];
        return -1;
    }
    fk.open_text = fk.sched[f];
    fk.pos = 0;
    return FAKE_FD;
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
    assert_int_equal(fd, FAKE_FD);
    size_t n = strlen(fk.open_text) - fk.pos;
    if (n > count)
        n = count;
    if (n > 5)
        n = 5; /* short reads */
    memcpy(buf, fk.open_text + fk.pos, n);
    fk.pos += n;
    return (ssize_t)n;
}

static int fake_close(int fd)
{
    assert_int_equal(fd, FAKE_FD);
    fk.open_text = NULL;
    return 0;
}

static int fake_setup(void **state)
{
    (void)state;
    memset(&fk, 0, sizeof fk);
    fk.sched[0] = "1000 2000 3\n";
    fk.sched[1] = "1000 2000 3\n";
    bench__os.getrusage = fake_getrusage;
    bench__os.open = fake_open;
    bench__os.read = fake_read;
    bench__os.close = fake_close;
    return 0;
}

static int fake_teardown(void **state)
{
    (void)state;
    bench__os_reset();
    return 0;
}

static void test_seam_healthy(void **state)
{
    (void)state;
    struct bench__wall w;
    bench__wall_open(&w);
    assert_true(w.thread_scope);
    assert_string_equal(w.rusage_reason, "");
    assert_string_equal(w.sched_path, THREAD_SELF);
    assert_string_equal(w.sched_reason, "");
    assert_int_equal(fk.ru_thread, 1);
    char buf[512];
    bench__wall_status(&w, buf, sizeof buf);
    assert_string_equal(buf, "thread-scoped getrusage + schedstat");
    assert_false(bench__wall_runqueue_disclosure(&w, buf, sizeof buf));
    assert_string_equal(buf, "");

    struct bench__wall_snapshot a, b;
    fk.thr_user = 100, fk.thr_sys = 50, fk.proc_user = 300, fk.proc_sys = 70;
    bench__wall_read(&w, &a, NULL);
    assert_int_equal(a.user_us, 100);
    assert_int_equal(a.sys_us, 50);
    assert_int_equal(a.proc_cpu_us, 370);
    assert_int_equal(a.runqueue_ns, 2000);
    fk.thr_user = 2000100, fk.thr_sys = 1000050, fk.proc_user = 2000300, fk.proc_sys = 1000070;
    fk.sched[0] = "5000 7002000 9\n";
    bench__wall_read(&w, &b, NULL);
    assert_int_equal(fk.sched_opens[1], 0); /* the fallback is never touched */
    struct bench__decomposition d;
    bench__decompose(4000 * MS, &w, &a, &b, &d);
    assert_string_equal(d.scope, "thread");
    assert_dbl(d.on_cpu_user_ns, 2000 * 1e6);
    assert_dbl(d.on_cpu_kernel_ns, 1000 * 1e6);
    assert_dbl(d.offcpu_runqueue_ns, 7e6);
    assert_dbl(d.offcpu_other_ns, 993e6);
    assert_string_equal(d.note, "");
    bench__wall_close(&w);
}

static void test_seam_rusage_thread_refused(void **state)
{
    (void)state;
    fk.thread_errno = EINVAL;
    struct bench__wall w;
    bench__wall_open(&w);
    assert_false(w.thread_scope);
    assert_non_null(strstr(w.rusage_reason, "RUSAGE_THREAD"));
    assert_non_null(strstr(w.rusage_reason, strerror(EINVAL)));
    char buf[512];
    bench__wall_status(&w, buf, sizeof buf);
    assert_non_null(strstr(buf, "process-scoped getrusage (RUSAGE_THREAD refused: "));

    fk.thr_user = 999999; /* must never be read again */
    fk.proc_user = 1000, fk.proc_sys = 200;
    struct bench__wall_snapshot a, b;
    bench__wall_read(&w, &a, NULL);
    fk.proc_user = 31000, fk.proc_sys = 10200;
    bench__wall_read(&w, &b, NULL);
    assert_int_equal(fk.ru_thread, 1); /* probed once, at open */
    assert_int_equal(a.user_us, 1000);
    assert_int_equal(a.sys_us, 200);
    assert_int_equal(a.proc_cpu_us, 1200);
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_string_equal(d.scope, "process");
    assert_dbl(d.on_cpu_user_ns, 30e6);
    assert_dbl(d.on_cpu_kernel_ns, 10e6);
    assert_dbl(d.offcpu_runqueue_ns, 0.0);
    assert_dbl(d.offcpu_other_ns, 60e6);
    assert_string_equal(d.note, "");
    bench__wall_close(&w);
}

static void test_seam_schedstat_unreadable(void **state)
{
    (void)state;
    fk.sched[0] = fk.sched[1] = NULL;
    fk.sched_errno[0] = fk.sched_errno[1] = EACCES;
    struct bench__wall w;
    bench__wall_open(&w);
    assert_null(w.sched_path);
    char want[256];
    snprintf(want, sizeof want, "%s: %s; %s: %s — hardened /proc or a sandbox", THREAD_SELF,
             strerror(EACCES), SELF, strerror(EACCES));
    assert_string_equal(w.sched_reason, want);

    char line[512], expect[512];
    assert_true(bench__wall_runqueue_disclosure(&w, line, sizeof line));
    snprintf(expect, sizeof expect,
             "workload: runqueue wait unattributable (%s) — its time lands in `other`", want);
    assert_string_equal(line, expect);
    char status[512];
    bench__wall_status(&w, status, sizeof status);
    snprintf(expect, sizeof expect, "thread-scoped getrusage; runqueue unattributed (%s)", want);
    assert_string_equal(status, expect);

    unsigned opens = fk.sched_opens[0] + fk.sched_opens[1];
    struct bench__wall_snapshot a, b;
    fk.thr_user = fk.proc_user = 0;
    bench__wall_read(&w, &a, NULL);
    fk.thr_user = fk.proc_user = 40000;
    bench__wall_read(&w, &b, NULL);
    assert_int_equal(fk.sched_opens[0] + fk.sched_opens[1], opens); /* not retried per edge */
    assert_int_equal(a.runqueue_ns, NA);
    struct bench__decomposition d;
    bench__decompose(100 * MS, &w, &a, &b, &d);
    assert_nan(d.offcpu_runqueue_ns);
    assert_dbl(d.offcpu_other_ns, 60e6);
    snprintf(expect, sizeof expect, "runqueue wait unattributed (%s) — included in other", want);
    assert_string_equal(d.note, expect);
    bench__wall_close(&w);
}

static void test_seam_schedstat_enoent_hint(void **state)
{
    (void)state;
    fk.sched[0] = fk.sched[1] = NULL;
    fk.sched_errno[0] = fk.sched_errno[1] = ENOENT;
    struct bench__wall w;
    bench__wall_open(&w);
    assert_null(w.sched_path);
    assert_non_null(strstr(w.sched_reason, "CONFIG_SCHED_INFO=n?"));
    bench__wall_close(&w);
}

static void test_seam_schedstat_fallback_to_self(void **state)
{
    (void)state;
    fk.sched[0] = NULL;
    fk.sched_errno[0] = ENOENT; /* a kernel before 3.17 */
    struct bench__wall w;
    bench__wall_open(&w);
    assert_string_equal(w.sched_path, SELF);
    char buf[512];
    bench__wall_status(&w, buf, sizeof buf);
    assert_string_equal(buf, "thread-scoped getrusage + schedstat (/proc/self/schedstat: the main "
                             "thread's)");
    struct bench__wall_snapshot s;
    bench__wall_read(&w, &s, NULL);
    assert_int_equal(s.runqueue_ns, 2000);
    bench__wall_close(&w);
}

static void test_seam_schedstat_unparsable(void **state)
{
    (void)state;
    fk.sched[0] = "1000 2000";
    fk.sched[1] = "garbage\n";
    struct bench__wall w;
    bench__wall_open(&w);
    assert_null(w.sched_path);
    assert_string_equal(w.sched_reason, THREAD_SELF ": unparsable; " SELF ": unparsable");
    bench__wall_close(&w);
}

static void test_seam_schedstat_torn_at_an_edge(void **state)
{
    (void)state;
    struct bench__wall w;
    bench__wall_open(&w);
    struct bench__wall_snapshot a, b;
    bench__wall_read(&w, &a, NULL);
    fk.sched[0] = "1000 20";
    fk.thr_user = fk.proc_user = 1000;
    bench__wall_read(&w, &b, NULL);
    assert_int_equal(b.runqueue_ns, NA);
    struct bench__decomposition d;
    bench__decompose(10 * MS, &w, &a, &b, &d);
    assert_nan(d.offcpu_runqueue_ns);
    assert_dbl(d.offcpu_other_ns, 9e6);
    assert_non_null(strstr(d.note, "unreadable at a window edge"));
    bench__wall_close(&w);
}

/* ---- the real kernel ---------------------------------------------------------------------- */

static int64_t tv_us_of(struct timeval t)
{
    return (int64_t)t.tv_sec * 1000000 + (int64_t)t.tv_usec;
}

/* One edge: exactly one RUSAGE_SELF call, whose reading is both proc_cpu_us and `shared`. */
static void read_edge_sharing(struct bench__wall *w, struct bench__wall_snapshot *s,
                              struct bench__edge_shared *sh)
{
    unsigned self = fk.ru_self;
    memset(sh, 0xa5, sizeof *sh);
    bench__wall_read(w, s, sh);
    assert_int_equal(fk.ru_self, self + 1);
    assert_true(sh->self_ok);
    assert_int_equal(sh->self.ru_minflt, (long)fk.ru_self); /* this edge's reading */
    assert_int_equal(sh->self.ru_majflt, 3);
    assert_int_equal(sh->self.ru_nvcsw, 40);
    assert_int_equal(sh->self.ru_nivcsw, 50);
    assert_int_equal(tv_us_of(sh->self.ru_utime) + tv_us_of(sh->self.ru_stime), s->proc_cpu_us);
}

static void test_seam_read_shares_rusage_self(void **state)
{
    (void)state;
    struct bench__wall w;
    bench__wall_open(&w);
    assert_true(w.thread_scope);
    fk.thr_user = 100, fk.thr_sys = 50, fk.proc_user = 300, fk.proc_sys = 70;
    fk.self_step = 1000; /* a second RUSAGE_SELF call would read a different time */
    unsigned thread = fk.ru_thread;
    struct bench__wall_snapshot a, b;
    struct bench__edge_shared sh[2];
    read_edge_sharing(&w, &a, &sh[0]);
    assert_int_equal(a.proc_cpu_us, 370);
    assert_int_equal(a.user_us, 100); /* the thread's own reading */
    assert_int_equal(a.sys_us, 50);
    read_edge_sharing(&w, &b, &sh[1]);
    assert_int_equal(b.proc_cpu_us, 1370);
    assert_int_equal(fk.ru_thread, thread + 2); /* one RUSAGE_THREAD per edge */
    bench__wall_close(&w);
}

static void test_seam_read_shares_rusage_self_process_scope(void **state)
{
    (void)state;
    fk.thread_errno = EINVAL;
    struct bench__wall w;
    bench__wall_open(&w);
    assert_false(w.thread_scope);
    fk.proc_user = 1000, fk.proc_sys = 200;
    fk.self_step = 1000;
    unsigned thread = fk.ru_thread;
    struct bench__wall_snapshot a;
    struct bench__edge_shared sh;
    read_edge_sharing(&w, &a, &sh);
    assert_int_equal(a.proc_cpu_us, 1200);
    assert_int_equal(a.user_us, 1000); /* from the same RUSAGE_SELF reading */
    assert_int_equal(a.sys_us, 200);
    assert_int_equal(fk.ru_thread, thread);
    bench__wall_close(&w);
}

static void test_seam_read_rusage_self_fails(void **state)
{
    (void)state;
    for (int scope = 0; scope < 2; scope++) {
        fk.thread_errno = scope == 0 ? 0 : EINVAL;
        fk.self_errno = 0;
        struct bench__wall w;
        bench__wall_open(&w);
        assert_int_equal(w.thread_scope, scope == 0);
        fk.thr_user = 100, fk.thr_sys = 50, fk.proc_user = 300, fk.proc_sys = 70;
        fk.self_errno = EPERM;
        unsigned self = fk.ru_self;
        struct bench__wall_snapshot a;
        struct bench__edge_shared sh;
        memset(&sh, 0, sizeof sh);
        sh.self_ok = true;
        bench__wall_read(&w, &a, &sh);
        assert_int_equal(fk.ru_self, self + 1); /* not retried */
        assert_false(sh.self_ok);
        assert_int_equal(a.proc_cpu_us, NA);
        if (scope == 0) { /* the thread's reading does not need it */
            assert_int_equal(a.user_us, 100);
            assert_int_equal(a.sys_us, 50);
        } else {
            assert_int_equal(a.user_us, NA);
            assert_int_equal(a.sys_us, NA);
        }
        /* the next edge reads again */
        fk.self_errno = 0;
        bench__wall_read(&w, &a, &sh);
        assert_true(sh.self_ok);
        assert_int_equal(a.proc_cpu_us, 370);
        bench__wall_close(&w);
    }
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Edges in the driver's order: wall clock outside, the wall source inside. */
static void real_window(struct bench__wall *w, bool spin, struct bench__decomposition *d)
{
    struct bench__wall_snapshot a, b;
    int64_t t0 = now_ns();
    bench__wall_read(w, &a, NULL);
    if (spin) {
        int64_t start = now_ns();
        while (now_ns() - start < 50 * MS) {
        }
    } else {
        struct timespec ts = {0, 50 * MS};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    bench__wall_read(w, &b, NULL);
    int64_t t1 = now_ns();
    bench__decompose(t1 - t0, w, &a, &b, d);
}

static void print_window(const char *what, const struct bench__decomposition *d)
{
    print_message("%s: wall %.2f ms = user %.2f + kernel %.2f + runqueue %.3f + other %.3f ms "
                  "(scope %s)%s%s\n",
                  what, d->wall_ns / 1e6, d->on_cpu_user_ns / 1e6, d->on_cpu_kernel_ns / 1e6,
                  d->offcpu_runqueue_ns / 1e6, d->offcpu_other_ns / 1e6, d->scope,
                  d->note[0] ? " note: " : "", d->note);
}

/* A host busy with other work (a parallel build on two CPUs) makes the spin wait on the run
 * queue for half its window: genuine run-queue wait, not a classification error. So the real
 * windows run under SCHED_FIFO where the kernel allows it (nice and autogroups cannot beat
 * other sessions; a 50 ms window is far inside the RT throttle), restored afterwards, and a
 * few attempts are made: one clean window proves the rule. When every attempt was contended
 * anyway, the contention-independent form is still asserted and the strict figure is skipped
 * with the reason, never silently passed. */
#define ATTEMPTS 5

struct prio {
    int policy;
    struct sched_param param;
};

static struct prio boost(void)
{
    struct prio old = {sched_getscheduler(0), {0}};
    sched_getparam(0, &old.param);
    struct sched_param fifo = {.sched_priority = 1};
    if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0)
        print_message("(SCHED_FIFO refused: %s; running at the current priority)\n",
                      strerror(errno));
    return old;
}

static void unboost(const struct prio *old)
{
    if (sched_setscheduler(0, old->policy, &old->param) != 0)
        fail_msg("could not restore the scheduling policy: %s", strerror(errno));
}

static void test_real_spin_is_on_cpu_user(void **state)
{
    (void)state;
    bench__os_reset();
    struct bench__wall w;
    bench__wall_open(&w);
    struct prio old = boost();
    struct bench__decomposition d;
    bool ok = false, explained = true;
    for (int i = 0; i < ATTEMPTS && !ok; i++) {
        real_window(&w, true, &d);
        print_window("spin 50 ms", &d);
        assert_nan(d.offcpu_disk_ns);
        ok = d.on_cpu_user_ns >= 0.8 * d.wall_ns;
        /* whatever the contention: while not waiting for a CPU the spin was on it, in user
         * mode up to rusage's tick-sampled user/system split (one 4 ms tick) */
        double rq = isnan(d.offcpu_runqueue_ns) ? 0.0 : d.offcpu_runqueue_ns;
        assert_true(d.on_cpu_user_ns + d.on_cpu_kernel_ns >= 0.8 * (d.wall_ns - rq));
        assert_true(d.on_cpu_user_ns + 4e6 >= 0.8 * (d.wall_ns - rq));
        explained = explained && rq >= 0.1 * d.wall_ns;
    }
    unboost(&old);
    bench__wall_close(&w);
    if (!ok && explained) {
        print_message("skipping the strict figure: every window waited >= 10%% of wall on the "
                      "run queue (a contended host)\n");
        skip();
    }
    assert_true(ok);
}

static void test_real_sleep_is_other(void **state)
{
    (void)state;
    bench__os_reset();
    struct bench__wall w;
    bench__wall_open(&w);
    if (!w.sched_path) {
        print_message("skipping: runqueue wait unattributable (%s)\n", w.sched_reason);
        skip();
    }
    struct prio old = boost();
    struct bench__decomposition d;
    bool ok = false;
    for (int i = 0; i < ATTEMPTS && !ok; i++) {
        real_window(&w, false, &d);
        print_window("nanosleep 50 ms", &d);
        assert_nan(d.offcpu_disk_ns);
        ok = d.offcpu_other_ns >= 0.9 * d.wall_ns && d.offcpu_runqueue_ns < 0.05 * d.wall_ns;
    }
    unboost(&old);
    bench__wall_close(&w);
    assert_true(ok);
}

/* The edges read the schedstat file open kept open (the fd, re-read in place), and close
 * closes it: a text planted under that fd is what the next edge reads. */
static void test_real_edges_read_the_kept_file(void **state)
{
    (void)state;
    bench__os_reset();
    struct bench__wall w;
    bench__wall_open(&w);
    if (!w.sched_path) {
        print_message("skipping: runqueue wait unattributable (%s)\n", w.sched_reason);
        skip();
    }
    struct bench__wall_snapshot s;
    bench__wall_read(&w, &s, NULL);
    assert_true(s.runqueue_ns >= 0);
    int kept = w.sched.fd;
    assert_true(kept >= 0);
    int mfd = memfd_create("schedstat", MFD_CLOEXEC);
    assert_true(mfd >= 0);
    assert_int_equal(write(mfd, "10 20 30\n", 9), 9);
    assert_int_equal(dup2(mfd, kept), kept);
    close(mfd);
    bench__wall_read(&w, &s, NULL);
    assert_int_equal(s.runqueue_ns, 20);
    bench__wall_close(&w);
    assert_int_equal(fcntl(kept, F_GETFD), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedstat_parse_table),
        cmocka_unit_test(test_full_attribution),
        cmocka_unit_test(test_runqueue_absent),
        cmocka_unit_test(test_runqueue_unreadable_at_an_edge),
        cmocka_unit_test(test_runqueue_backwards),
        cmocka_unit_test(test_clamp_within_budget_is_silent),
        cmocka_unit_test(test_clamp_beyond_budget_is_noted),
        cmocka_unit_test(test_process_scope),
        cmocka_unit_test(test_cross_thread_disclosure),
        cmocka_unit_test(test_getrusage_failed_at_an_edge),
        cmocka_unit_test(test_notes_join),
        cmocka_unit_test_setup_teardown(test_seam_healthy, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_rusage_thread_refused, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_schedstat_unreadable, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_schedstat_enoent_hint, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_schedstat_fallback_to_self, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_schedstat_unparsable, fake_setup, fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_schedstat_torn_at_an_edge, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_read_shares_rusage_self, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_read_shares_rusage_self_process_scope, fake_setup,
                                        fake_teardown),
        cmocka_unit_test_setup_teardown(test_seam_read_rusage_self_fails, fake_setup,
                                        fake_teardown),
        cmocka_unit_test(test_real_spin_is_on_cpu_user),
        cmocka_unit_test(test_real_sleep_is_other),
        cmocka_unit_test(test_real_edges_read_the_kept_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
