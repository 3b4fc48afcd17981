/* SPDX-License-Identifier: MIT */
/* spawn_floor.c: the machine's floor for a whole-process sample: times several ways of spawning
 * a program and reaping it, interleaved, each sample from just before the spawn call until the
 * wait call returned (CLOCK_MONOTONIC, integer ns), and prints each way's median, MAD and min.
 * A measuring program: it must not use libbench, so the floor is the OS's cost and nothing of
 * ours. See benchmarks/run_vs_hyperfine/README.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char **environ;

/* What every method spawns: the program, its argument vector, and the one descriptor on
 * /dev/null the child gets as standard input, output and error (as both harnesses compared
 * give it: libbench run and hyperfine send a child's output to /dev/null by default). */
struct target {
    const char *path;
    char **argv;
    int devnull;
};

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The child's side of fork, vfork and clone: only async-signal-safe calls, no return. */
static _Noreturn void child_exec(const struct target *t)
{
    dup2(t->devnull, 0);
    dup2(t->devnull, 1);
    dup2(t->devnull, 2);
    execve(t->path, t->argv, environ);
    _exit(127);
}

static int clone_child(void *arg)
{
    child_exec(arg);
}

/* A sample counts only when the child exited with status 0. Failures of the child have their own
 * codes, below every errno. */
enum { CHILD_EXIT_127 = -10000, CHILD_EXIT_OTHER, CHILD_SIGNALLED };

static int check_status(int status)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status))
        return WEXITSTATUS(status) == 127 ? CHILD_EXIT_127 : CHILD_EXIT_OTHER;
    return CHILD_SIGNALLED;
}

static int check_info(const siginfo_t *info)
{
    if (info->si_code == CLD_EXITED && info->si_status == 0)
        return 0;
    if (info->si_code == CLD_EXITED)
        return info->si_status == 127 ? CHILD_EXIT_127 : CHILD_EXIT_OTHER;
    return CHILD_SIGNALLED;
}

static int wait_pid(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return check_status(status);
}

static int wait_pid_rusage(pid_t pid)
{
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return -errno;
    return check_status(status);
}

static int waitid_pid(pid_t pid)
{
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED) < 0)
        if (errno != EINTR)
            return -errno;
    return check_info(&info);
}

/* ---- the methods: each returns 0 and stores one sample, or a negative errno ------------- */

static int by_fork(const struct target *t, int64_t *ns)
{
    int64_t t0 = monotonic_ns();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(t);
    if (pid < 0)
        return -errno;
    int rc = wait_pid(pid);
    *ns = monotonic_ns() - t0;
    return rc;
}

static int by_vfork(const struct target *t, int64_t *ns, bool rusage)
{
    int64_t t0 = monotonic_ns();
    pid_t pid = vfork();
    if (pid == 0)
        child_exec(t);
    if (pid < 0)
        return -errno;
    int rc = rusage ? wait_pid_rusage(pid) : waitid_pid(pid);
    *ns = monotonic_ns() - t0;
    return rc;
}

static int by_vfork_waitid(const struct target *t, int64_t *ns)
{
    return by_vfork(t, ns, false);
}

static int by_vfork_wait4(const struct target *t, int64_t *ns)
{
    return by_vfork(t, ns, true);
}

static posix_spawn_file_actions_t spawn_actions; /* set up once in main, untimed */

static int by_posix_spawn(const struct target *t, int64_t *ns, bool rusage)
{
    pid_t pid;
    int64_t t0 = monotonic_ns();
    int err = posix_spawn(&pid, t->path, &spawn_actions, NULL, t->argv, environ);
    if (err != 0)
        return -err;
    int rc = rusage ? wait_pid_rusage(pid) : wait_pid(pid);
    *ns = monotonic_ns() - t0;
    return rc;
}

static int by_posix_spawn_waitpid(const struct target *t, int64_t *ns)
{
    return by_posix_spawn(t, ns, false);
}

static int by_posix_spawn_wait4(const struct target *t, int64_t *ns)
{
    return by_posix_spawn(t, ns, true);
}

/* The child of clone(CLONE_VM | CLONE_VFORK) runs on this stack until execve; the parent is
 * suspended until then, so one stack serves every sample. */
#define CHILD_STACK (64 * 1024)
static _Alignas(64) unsigned char child_stack[CHILD_STACK];

static int by_clone(const struct target *t, int64_t *ns)
{
    int64_t t0 = monotonic_ns();
    pid_t pid =
        clone(clone_child, child_stack + CHILD_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)t);
    if (pid < 0)
        return -errno;
    int rc = waitid_pid(pid);
    *ns = monotonic_ns() - t0;
    return rc;
}

/* With CLONE_PIDFD the kernel returns a pidfd (in the parent_tid slot), which a harness with a
 * timeout can poll; reaped through it. Closing it is bookkeeping after the sample. */
static int by_clone_pidfd(const struct target *t, int64_t *ns)
{
    int pidfd = -1;
    int64_t t0 = monotonic_ns();
    pid_t pid = clone(clone_child, child_stack + CHILD_STACK,
                      CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, (void *)t, &pidfd);
    if (pid < 0)
        return -errno;
    siginfo_t info;
    int rc = 0;
    while (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, WEXITED) < 0)
        if (errno != EINTR) {
            rc = -errno;
            break;
        }
    *ns = monotonic_ns() - t0;
    close(pidfd);
    if (rc < 0) {
        waitpid(pid, NULL, 0); /* waitid(P_PIDFD) unsupported: still reap the child */
        return rc;
    }
    return check_info(&info);
}

struct method {
    const char *name;
    int (*run)(const struct target *t, int64_t *ns);
    int64_t *samples;
    size_t n;
    int error; /* the first failure; its samples are then not reported */
};

static struct method methods[] = {
    {"fork + execve + waitpid", by_fork, NULL, 0, 0},
    {"vfork + execve + waitid", by_vfork_waitid, NULL, 0, 0},
    {"vfork + execve + wait4", by_vfork_wait4, NULL, 0, 0},
    {"posix_spawn + waitpid", by_posix_spawn_waitpid, NULL, 0, 0},
    {"posix_spawn + wait4", by_posix_spawn_wait4, NULL, 0, 0},
    {"clone(VM|VFORK) + execve + waitid", by_clone, NULL, 0, 0},
    {"clone(VM|VFORK|PIDFD) + execve + waitid(P_PIDFD)", by_clone_pidfd, NULL, 0, 0},
};
#define N_METHODS (sizeof methods / sizeof methods[0])

/* ---- statistics: median (even n: mean of the middle two), MAD, min; no mean ------------- */

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double median_of(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double mad_of(const int64_t *v, size_t n, double median)
{
    double *d = malloc(n * sizeof *d);
    if (!d) {
        fputs("spawn_floor: out of memory\n", stderr);
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        d[i] = (double)v[i] > median ? (double)v[i] - median : median - (double)v[i];
    qsort(d, n, sizeof *d, by_double);
    double m = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2.0;
    free(d);
    return m;
}

static const char *describe(int error)
{
    switch (error) {
    case CHILD_EXIT_127:
        return "the child exited with status 127 (also what a failed execve exits with here)";
    case CHILD_EXIT_OTHER: return "the child exited with a non-zero status";
    case CHILD_SIGNALLED: return "the child was terminated by a signal";
    default: return strerror(-error);
    }
}

/* --tsv: every sample, in the order taken, for a driver that pools several runs; a method that
 * failed is one line with an empty sample and the reason. Exit 1 when no method measured. */
static int print_samples(void)
{
    bool any = false;
    puts("method\tsample_ns\terror");
    for (size_t k = 0; k < N_METHODS; k++) {
        const struct method *m = &methods[k];
        if (m->error) {
            printf("%s\t\t%s\n", m->name, describe(m->error));
            continue;
        }
        for (size_t i = 0; i < m->n; i++)
            printf("%s\t%lld\t\n", m->name, (long long)m->samples[i]);
        any = true;
    }
    if (!any)
        fputs("spawn_floor: no method could run the program\n", stderr);
    return any ? 0 : 1;
}

static void usage(void)
{
    fputs("usage: spawn_floor [--samples N] [--warmup N] [--tsv] [-- PROG [ARGS...]]\n", stderr);
    exit(2);
}

static long parse_count(const char *s, long min)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > 1000000)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    long samples = 200, warmup = 5;
    bool tsv = false;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            samples = parse_count(argv[++i], 1);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
            warmup = parse_count(argv[++i], 0);
        else if (!strcmp(argv[i], "--tsv"))
            tsv = true;
        else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else
            usage();
    }
    static char *default_argv[] = {"/bin/true", NULL};
    struct target t = {default_argv[0], default_argv, -1};
    if (i < argc) {
        t.path = argv[i];
        t.argv = argv + i;
    }
    t.devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (t.devnull < 0 || posix_spawn_file_actions_init(&spawn_actions) != 0 ||
        posix_spawn_file_actions_adddup2(&spawn_actions, t.devnull, 0) != 0 ||
        posix_spawn_file_actions_adddup2(&spawn_actions, t.devnull, 1) != 0 ||
        posix_spawn_file_actions_adddup2(&spawn_actions, t.devnull, 2) != 0) {
        fprintf(stderr, "spawn_floor: cannot prepare /dev/null for the child: %s\n",
                strerror(errno));
        return 2;
    }
    for (size_t m = 0; m < N_METHODS; m++) {
        methods[m].samples = calloc((size_t)samples, sizeof *methods[m].samples);
        if (!methods[m].samples) {
            fputs("spawn_floor: out of memory\n", stderr);
            return 2;
        }
    }

    /* Interleaved: every pass runs each method once, starting one method later each pass, so
     * a slow phase of the machine and the order within a pass fall on all methods alike. */
    for (long pass = 0; pass < warmup + samples; pass++) {
        for (size_t k = 0; k < N_METHODS; k++) {
            struct method *m = &methods[((size_t)pass + k) % N_METHODS];
            int64_t ns = 0;
            if (m->error)
                continue;
            int rc = m->run(&t, &ns);
            if (rc < 0)
                m->error = rc;
            else if (pass >= warmup)
                m->samples[m->n++] = ns;
        }
    }

    if (tsv)
        return print_samples();
    printf("spawn_floor: %s, %ld samples per method (interleaved, after %ld warm-up passes); one "
           "sample: CLOCK_MONOTONIC from just before the spawn call until the wait call "
           "returned\n%-50s %12s %10s %12s\n",
           t.path, samples, warmup, "method", "median ns", "MAD ns", "min ns");
    const struct method *cheapest = NULL;
    double cheapest_median = 0;
    for (size_t k = 0; k < N_METHODS; k++) {
        struct method *m = &methods[k];
        if (m->error) {
            printf("%-50s %14s %12s %14s   not measured: %s\n", m->name, "\u2014", "\u2014",
                   "\u2014", describe(m->error));
            continue;
        }
        double med = median_of(m->samples, m->n); /* sorts */
        double mad = mad_of(m->samples, m->n, med);
        printf("%-50s %12.1f %10.1f %12lld\n", m->name, med, mad, (long long)m->samples[0]);
        if (!cheapest || med < cheapest_median) {
            cheapest = m;
            cheapest_median = med;
        }
    }
    if (!cheapest) {
        fputs("spawn_floor: no method could run the program\n", stderr);
        return 1;
    }
    printf("floor: %.1f ns, the median of the cheapest method (%s)\n", cheapest_median,
           cheapest->name);
    return 0;
}
