/* SPDX-License-Identifier: MIT */
/* wall.c: owns the wall source (RUSAGE_THREAD/RUSAGE_SELF and schedstat edge reads) and the pure
 * decomposition. It must never report 0 for a part it could not measure, nor net anything out. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>

#include "../platform/os.h"
#include "../sources/source.h"
#include "../util/text.h"
#include "wall.h"

#define SCHED_THREAD "/proc/thread-self/schedstat"
#define SCHED_SELF "/proc/self/schedstat"
#define SCHED_BUF 128

/* ---- schedstat ---------------------------------------------------------------------------- */

/* The digit run at *p (moving *p past it): its value, or -1 when there is none or it is above
 * INT64_MAX. */
static int64_t digit_run(const char **p, const char *end)
{
    uint64_t v;
    if (bench__parse_digits(*p, end, INT64_MAX, &v, p) != BENCH__DIGITS_OK)
        return -1;
    return (int64_t)v;
}

int bench__schedstat_parse(const char *text, size_t len, int64_t *runqueue_ns)
{
    const char *p = text, *end = text + len;
    int64_t field[3];
    for (int k = 0; k < 3; k++) {
        field[k] = digit_run(&p, end);
        /* separators: a space between fields, a newline after the last (a run cut by the
         * end of the buffer is a torn read) */
        if (field[k] < 0 || p == end || *p != (k < 2 ? ' ' : '\n'))
            goto invalid;
        p++;
    }
    *runqueue_ns = field[1];
    return 0;
invalid:
    *runqueue_ns = -1;
    return -1;
}

/* Read one schedstat file: the run-queue wait, or -1 with `why` saying why. */
static int64_t read_sched(struct bench__os_file *f, const char *path, char *why, size_t why_size,
                          int *err)
{
    char buf[SCHED_BUF];
    int64_t rq;
    ssize_t n = bench__os_file_read(f, buf, sizeof buf);
    *err = 0;
    if (n < 0) {
        *err = (int)-n;
        bench__fmt(why, why_size, "%s: %s", path, strerror(*err));
        return -1;
    }
    if (bench__schedstat_parse(buf, (size_t)n, &rq) != 0) {
        bench__fmt(why, why_size, "%s: unparsable", path);
        return -1;
    }
    return rq;
}

#if BENCH__LINUX
/* Open the handle on path and probe it: true when it parses (the handle stays open), false
 * with `why` and *err (the handle closed). */
static bool probe_sched(struct bench__wall *w, const char *path, char *why, size_t why_size,
                        int *err)
{
    bench__os_file_open(&w->sched, path);
    if (read_sched(&w->sched, path, why, why_size, err) >= 0)
        return true;
    bench__os_file_close(&w->sched);
    return false;
}
#endif

/* ---- the source --------------------------------------------------------------------------- */

void bench__wall_open(struct bench__wall *w)
{
    struct rusage ru;
    memset(w, 0, sizeof *w);

#if !BENCH__LINUX
    /* a thread's own CPU time and its run-queue wait are Linux's (RUSAGE_THREAD, schedstat) */
    (void)ru;
    bench__fmt(w->rusage_reason, sizeof w->rusage_reason,
               "getrusage(RUSAGE_THREAD): " BENCH__OFF_PLATFORM);
    bench__fmt(w->sched_reason, sizeof w->sched_reason,
               BENCH__OFF_PLATFORM " (schedstat is Linux's /proc)");
#else
    errno = 0;
    if (bench__os.getrusage(RUSAGE_THREAD, &ru) == 0) {
        w->thread_scope = true;
    } else {
        int err = errno;
        bench__fmt(w->rusage_reason, sizeof w->rusage_reason, "getrusage(RUSAGE_THREAD): %s",
                   err ? strerror(err) : "refused");
    }

    char why_thread[80], why_self[80];
    int err_thread, err_self;
    if (probe_sched(w, SCHED_THREAD, why_thread, sizeof why_thread, &err_thread)) {
        w->sched_path = SCHED_THREAD;
    } else if (probe_sched(w, SCHED_SELF, why_self, sizeof why_self, &err_self)) {
        w->sched_path = SCHED_SELF;
    } else {
        int err = err_self ? err_self : err_thread;
        const char *hint = err == ENOENT                   ? " — CONFIG_SCHED_INFO=n?"
                           : err == EACCES || err == EPERM ? " — hardened /proc or a sandbox"
                                                           : "";
        bench__fmt(w->sched_reason, sizeof w->sched_reason, "%s; %s%s", why_thread, why_self, hint);
    }
#endif
}

void bench__wall_close(struct bench__wall *w)
{
    bench__os_file_close(&w->sched);
}

void bench__wall_status(const struct bench__wall *w, char *buf, size_t size)
{
    char scope[BENCH__WALL_REASON_MAX + 64];
    if (w->thread_scope)
        bench__fmt(scope, sizeof scope, "thread-scoped getrusage");
    else
        bench__fmt(scope, sizeof scope, "process-scoped getrusage (RUSAGE_THREAD refused: %s)",
                   w->rusage_reason);
    if (!w->sched_path)
        bench__fmt(buf, size, "%s; runqueue unattributed (%s)", scope, w->sched_reason);
    else if (strcmp(w->sched_path, SCHED_SELF) == 0)
        bench__fmt(buf, size, "%s + schedstat (%s: the main thread's)", scope, SCHED_SELF);
    else
        bench__fmt(buf, size, "%s + schedstat", scope);
}

bool bench__wall_runqueue_disclosure(const struct bench__wall *w, char *buf, size_t size)
{
    if (w->sched_path) {
        if (size)
            buf[0] = '\0';
        return false;
    }
    bench__fmt(buf, size, "workload: runqueue wait unattributable (%s) — its time lands in `other`",
               w->sched_reason);
    return true;
}

static int64_t tv_us(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000000 + (int64_t)tv.tv_usec;
}

void bench__wall_read(struct bench__wall *w, struct bench__wall_snapshot *s,
                      struct bench__edge_shared *shared)
{
    struct rusage self, ru;
    int err;
    char why[80];
    s->user_us = s->sys_us = s->proc_cpu_us = s->runqueue_ns = -1;
    /* RUSAGE_SELF first: summing the group brings the running thread's pending runtime up to
     * date, so the RUSAGE_THREAD reading that follows includes it (read the other way round,
     * a short window loses up to a tick of its own CPU time to `other` and a single-threaded
     * program gets a false "other threads" note). */
    bool self_ok = bench__os.getrusage(RUSAGE_SELF, &self) == 0;
    if (shared) {
        shared->self_ok = self_ok;
        if (self_ok)
            shared->self = self;
    }
    if (self_ok)
        s->proc_cpu_us = tv_us(self.ru_utime) + tv_us(self.ru_stime);
    if (!w->thread_scope) {
        s->user_us = self_ok ? tv_us(self.ru_utime) : -1;
        s->sys_us = self_ok ? tv_us(self.ru_stime) : -1;
    }
#if BENCH__LINUX
    else if (bench__os.getrusage(RUSAGE_THREAD, &ru) == 0) {
        s->user_us = tv_us(ru.ru_utime);
        s->sys_us = tv_us(ru.ru_stime);
    }
#else
    (void)ru; /* thread_scope is never set off Linux */
#endif
    if (w->sched_path)
        s->runqueue_ns = read_sched(&w->sched, w->sched_path, why, sizeof why, &err);
}

/* ---- the decomposition (pure) ------------------------------------------------------------- */

static BENCH_PRINTF(2, 3) void note_add(struct bench__decomposition *d, const char *fmt, ...)
{
    char text[BENCH__WALL_NOTE_MAX];
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(text, sizeof text, fmt, ap);
    va_end(ap);
    bench__note_append(d->note, sizeof d->note, text);
}

void bench__decompose(int64_t wall_ns, const struct bench__wall *w,
                      const struct bench__wall_snapshot *a, const struct bench__wall_snapshot *b,
                      struct bench__decomposition *d)
{
    d->wall_ns = (double)wall_ns;
    d->on_cpu_user_ns = d->on_cpu_kernel_ns = NAN;
    d->offcpu_runqueue_ns = NAN;
    d->offcpu_disk_ns = NAN; /* system-wide PSI cannot attribute to the thread */
    d->offcpu_other_ns = NAN;
    d->scope = w->thread_scope ? "thread" : "process";
    d->note[0] = '\0';

    double attributed = 0;

    /* on-CPU: rusage deltas in integer µs, then ns */
    if (a->user_us < 0 || a->sys_us < 0 || b->user_us < 0 || b->sys_us < 0) {
        note_add(d, "on-CPU time unattributed (getrusage failed at a window edge) — "
                    "included in other");
    } else if (b->user_us < a->user_us || b->sys_us < a->sys_us) {
        note_add(d, "on-CPU time unattributed (getrusage went backwards) — included in other");
    } else {
        d->on_cpu_user_ns = (double)(b->user_us - a->user_us) * 1000.0;
        d->on_cpu_kernel_ns = (double)(b->sys_us - a->sys_us) * 1000.0;
        attributed += d->on_cpu_user_ns + d->on_cpu_kernel_ns;
    }

    /* run-queue wait: schedstat field 2 */
    if (!w->sched_path) {
        note_add(d, "runqueue wait unattributed (%s) — included in other",
                 w->sched_reason[0] ? w->sched_reason : "schedstat unreadable");
    } else if (a->runqueue_ns < 0 || b->runqueue_ns < 0) {
        note_add(d,
                 "runqueue wait unattributed (%s unreadable at a window edge) — "
                 "included in other",
                 w->sched_path);
    } else if (b->runqueue_ns < a->runqueue_ns) {
        /* the two edges resolved to different tasks: a zero would claim "never waited" */
        note_add(d, "runqueue wait unattributed (schedstat went backwards — edges from "
                    "different tasks?) — included in other");
    } else {
        d->offcpu_runqueue_ns = (double)(b->runqueue_ns - a->runqueue_ns);
        attributed += d->offcpu_runqueue_ns;
    }

    /* the residual; rusage is tick-sampled, so up to one 4 ms tick + 1 % of over-read
     * clamps silently */
    double other = (double)wall_ns - attributed;
    if (other < 0) {
        double budget = 4e6 + (double)wall_ns / 100.0;
        if (-other > budget)
            note_add(d, "on-CPU + runqueue exceed wall by %lld µs (clamped)",
                     (long long)(-other / 1000.0));
        other = 0;
    }
    d->offcpu_other_ns = other;

    /* CPU the process burned on other threads: a fact to print, not an error */
    if (w->thread_scope && a->user_us >= 0 && a->sys_us >= 0 && b->user_us >= 0 && b->sys_us >= 0 &&
        a->proc_cpu_us >= 0 && b->proc_cpu_us >= 0) {
        int64_t proc_us = b->proc_cpu_us - a->proc_cpu_us;
        int64_t thread_us = (b->user_us - a->user_us) + (b->sys_us - a->sys_us);
        double cross_ns = (double)(proc_us - thread_us) * 1000.0;
        double threshold = (double)wall_ns / 10.0 > 1e6 ? (double)wall_ns / 10.0 : 1e6;
        if (cross_ns > threshold)
            note_add(d,
                     "process used %lld µs CPU on other threads — decomposition "
                     "covers the driving thread",
                     (long long)(proc_us - thread_us));
    }
}
