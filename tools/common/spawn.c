/* SPDX-License-Identifier: MIT */
/* spawn.c: owns the one way the `libbench` tool runs a child (spawn.h), for `libbench run` and
 * both modes of `libbench compare`: the program found on PATH once, posix_spawn into a process
 * group of its own, the wall time on the measuring clock from just before the spawn to the reap,
 * wait4's rusage, a blocking wait (ppoll on a pidfd with the time left to a deadline of the
 * deadline clock when a timeout or pipes need watching), the output (null, pipes drained to EOF
 * with the stderr tail kept, a file, inherited), the group killed after every run, on a timeout
 * and on an interrupt (interrupt.c), and by the keeper when the tool itself is killed (SIGKILL
 * runs none of its code). It must never poll in a loop with a sleep, nor compute statistics; off
 * Linux (no pidfd, no ppoll) the exit is checked between polls of at most EXIT_POLL_MS
 * (docs/reference/platforms.md). It is over 600 lines because the live children of compare's
 * paired mode (tool_live_*) must spawn and reap here too, the one place that may. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#if BENCH__LINUX
#include <sys/syscall.h>
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "spawn.h"
#include "words.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/signal_name.h"
#include "util/text.h"

extern char **environ;

#define DRAIN_GRACE_NS INT64_C(1000000000) /* reading the pipes once the group is dead */
#define READ_CHUNK 65536

/* ---- the program ------------------------------------------------------------------------ */

int tool_program_find(struct tool_program *prog)
{
    if (prog->path)
        return 0;
    const char *name = prog->argv[0];
    if (strchr(name, '/')) {
        struct stat st;
        if (stat(name, &st) != 0)
            return errno;
        if (!S_ISREG(st.st_mode) || access(name, X_OK) != 0)
            return EACCES;
        prog->path = bench__xstrdup(name);
        return 0;
    }
    if (!*name)
        return ENOENT;
    const char *path = getenv("PATH");
    char fallback[256];
    if (!path) {
        size_t n = confstr(_CS_PATH, fallback, sizeof fallback);
        path = n > 0 && n <= sizeof fallback ? fallback : "/bin:/usr/bin";
    }
    int found = ENOENT;
    for (const char *dir = path;; dir++) {
        const char *end = strchr(dir, ':');
        size_t len = end ? (size_t)(end - dir) : strlen(dir);
        /* an empty entry is the current directory, as execvp reads it */
        char *file =
            len ? bench__xasprintf("%.*s/%s", (int)len, dir, name) : bench__xasprintf("./%s", name);
        struct stat st;
        if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(file, X_OK) == 0) {
                prog->path = file;
                return 0;
            }
            found = EACCES;
        }
        free(file);
        if (!end)
            break;
        dir = end;
    }
    return found;
}

void tool_program_free(struct tool_program *prog)
{
    tool_words_free(prog->argv);
    free(prog->path);
    memset(prog, 0, sizeof *prog);
}

/* ---- one run ---------------------------------------------------------------------------- */

static int devnull_fd = -1;

static void keep_tail(struct tool_child *out, const char *data, size_t n)
{
    if (n >= TOOL_TAIL_MAX) {
        out->tail_cut = out->tail_cut || out->tail_len > 0 || n > TOOL_TAIL_MAX;
        memcpy(out->tail, data + n - TOOL_TAIL_MAX, TOOL_TAIL_MAX);
        out->tail_len = TOOL_TAIL_MAX;
        return;
    }
    if (out->tail_len + n > TOOL_TAIL_MAX) {
        size_t drop = out->tail_len + n - TOOL_TAIL_MAX;
        memmove(out->tail, out->tail + drop, out->tail_len - drop);
        out->tail_len -= drop;
        out->tail_cut = true;
    }
    memcpy(out->tail + out->tail_len, data, n);
    out->tail_len += n;
}

/* Read what a pipe holds now; -1 at EOF or on an error (the pipe is then done). */
static int read_pipe(int fd, bool keep, struct tool_child *out, char *buf)
{
    for (;;) {
        ssize_t got = read(fd, buf, READ_CHUNK);
        if (got > 0) {
            if (keep)
                keep_tail(out, buf, (size_t)got);
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        return -1;
    }
}

static void harness_failed(struct tool_child *out, const char *call, int error)
{
    out->outcome = TOOL_HARNESS_FAILED;
    out->failed_call = call;
    out->error = error;
}

#define EXIT_POLL_MS 10 /* off Linux: the longest a child's exit goes unseen */

/* pipe2 for O_CLOEXEC | O_NONBLOCK: pipe then fcntl off Linux. */
static int pipe_flags(int fds[2], int flags)
{
#if BENCH__LINUX
    return pipe2(fds, flags);
#else
    if (pipe(fds) != 0)
        return -1;
    for (int i = 0; i < 2; i++)
        if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0 ||
            ((flags & O_NONBLOCK) && fcntl(fds[i], F_SETFL, O_NONBLOCK) != 0)) {
            int err = errno;
            close(fds[0]);
            close(fds[1]);
            fds[0] = fds[1] = -1; /* closed: the caller's cleanup closes nothing twice */
            errno = err;
            return -1;
        }
    return 0;
#endif
}

/* ppoll with a timespec (NULL: no deadline); off Linux, poll in milliseconds (rounded up), at
 * most EXIT_POLL_MS when `slice` (the child's exit is checked in between). */
static int wait_fds(struct pollfd *fds, size_t n, const struct timespec *ts, bool slice)
{
#if BENCH__LINUX
    (void)slice;
    return ppoll(fds, n, ts, NULL);
#else
    int64_t ms = -1;
    if (ts)
        ms = (int64_t)ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000;
    if (slice && (ms < 0 || ms > EXIT_POLL_MS))
        ms = EXIT_POLL_MS;
    return poll(fds, (nfds_t)n, ms > 1000000000 ? 1000000000 : (int)ms);
#endif
}

/* Has the child exited (not reaped: wait4 still takes its rusage)? Only without a pidfd. */
static bool exited_unreaped(pid_t pid)
{
#if BENCH__LINUX
    (void)pid;
    return false;
#else
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
#endif
}

static int pidfd_open_checked(pid_t pid)
{
#if BENCH__LINUX && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

static void set_timeout(struct timespec *ts, int64_t left_ns)
{
    ts->tv_sec = (time_t)(left_ns / 1000000000);
    ts->tv_nsec = (long)(left_ns % 1000000000);
}

/* The pipes once the group is dead: to EOF, or until a process outside the group that holds one
 * has had DRAIN_GRACE_NS to let go. */
static void drain(struct pollfd *fds, size_t first, size_t n, struct tool_child *out, char *buf)
{
    int64_t deadline = bench__clock_deadline_ns() + DRAIN_GRACE_NS;
    for (;;) {
        bool open = false;
        for (size_t i = first; i < n; i++)
            open = open || fds[i].fd >= 0;
        if (!open)
            return;
        int64_t left = deadline - bench__clock_deadline_ns();
        if (left <= 0) {
            out->pipe_held = true;
            return;
        }
        struct timespec ts;
        set_timeout(&ts, left);
        int k = wait_fds(fds + first, n - first, &ts, false);
        if (k < 0 && errno != EINTR)
            return;
        for (size_t i = first; k > 0 && i < n; i++)
            if (fds[i].fd >= 0 && fds[i].revents && read_pipe(fds[i].fd, i == n - 1, out, buf) != 0)
                fds[i].fd = -1;
    }
}

/* Wait for pid with ppoll on its pidfd (and the pipes), up to *deadline (NULL: none). Returns
 * true when it exited, false on a timeout or a failure (out says which). */
static bool watch(pid_t pid, int pidfd, struct pollfd *fds, size_t n, const int64_t *deadline,
                  struct tool_child *out, char *buf)
{
    fds[0].fd = pidfd;
    fds[0].events = POLLIN;
    for (;;) {
        struct timespec ts, *tsp = NULL;
        if (deadline) {
            int64_t left = *deadline - bench__clock_deadline_ns();
            if (left <= 0) {
                out->outcome = TOOL_TIMED_OUT;
                return false;
            }
            set_timeout(&ts, left);
            tsp = &ts;
        }
        int k = wait_fds(fds, n, tsp, pidfd < 0);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            harness_failed(out, "ppoll", errno);
            return false;
        }
        if (k == 0 && pidfd < 0 && exited_unreaped(pid))
            return true;
        if (k == 0)
            continue; /* the deadline: said at the top */
        for (size_t i = 1; i < n; i++)
            if (fds[i].fd >= 0 && fds[i].revents && read_pipe(fds[i].fd, i == n - 1, out, buf) != 0)
                fds[i].fd = -1;
        if ((pidfd >= 0 && fds[0].revents) || (pidfd < 0 && exited_unreaped(pid)))
            return true;
    }
}

static int reap(pid_t pid, int *status, struct rusage *ru)
{
    for (;;) {
        pid_t r = wait4(pid, status, 0, ru);
        if (r == pid)
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 ? errno : ECHILD;
    }
}

/* ---- the keeper: a child dies with the tool ------------------------------------------------- */

/* A SIGKILL of the tool runs none of its code, so the child it was running would outlive it.
 * Linux's PR_SET_PDEATHSIG needs code in the child before exec, which posix_spawn cannot run; a
 * keeper does the same on every POSIX system: a process forked at the first spawn, in a process
 * group of its own (no terminal signal reaches it), holding nothing but the read end of a pipe
 * whose write end only the tool holds (close-on-exec: no child inherits it). The tool writes each
 * child's process group when it starts and 0 once it is reaped; when the tool dies the pipe ends,
 * and the keeper kills the group it was last told of, then exits. */
static int keeper_fd = -1;
static bool keeper_tried;

static void keeper_run(int fd)
{
    pid_t group = 0, told;
    for (;;) {
        ssize_t got = read(fd, &told, sizeof told);
        if (got == (ssize_t)sizeof told) {
            group = told;
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        break; /* the end of the pipe: the tool is gone (or done) */
    }
    if (group > 0)
        kill(-group, SIGKILL);
    _exit(0);
}

static void keeper_start(void)
{
    keeper_tried = true;
    int fds[2];
    if (pipe_flags(fds, O_CLOEXEC) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) { /* async-signal-safe calls only from here */
        static const int stops[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
        for (size_t i = 0; i < sizeof stops / sizeof *stops; i++)
            signal(stops[i], SIG_DFL);
        setpgid(0, 0);
        int null = open("/dev/null", O_RDWR);
        int fd = fcntl(fds[0], F_DUPFD, 3);
        if (null < 0 || fd < 0)
            _exit(0);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        long max = sysconf(_SC_OPEN_MAX);
        for (int k = 3; k < (max > 0 && max < 65536 ? max : 65536); k++)
            if (k != fd)
                close(k);
        keeper_run(fd);
    }
    close(fds[0]);
    if (pid < 0) {
        close(fds[1]);
        return;
    }
    keeper_fd = fds[1];
}

/* Tells the keeper the group to kill should the tool die now (0: none). */
static void keeper_tell(pid_t group)
{
    while (keeper_fd >= 0 && write(keeper_fd, &group, sizeof group) < 0 && errno == EINTR)
        ;
}

void tool_spawn(struct tool_program *prog, const struct tool_spawn *how, struct tool_child *out)
{
    memset(out, 0, sizeof *out);
    tool_interrupt_install();
    tool_interrupt_honour();
    int e = tool_program_find(prog);
    if (e != 0) {
        out->outcome = TOOL_CANNOT_START;
        out->error = e;
        return;
    }
    if (devnull_fd < 0) {
        devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (devnull_fd < 0) {
            harness_failed(out, "open /dev/null", errno);
            return;
        }
    }
    if (!keeper_tried)
        keeper_start(); /* before this run's pipes: the keeper holds none of them */
    bool piped = how->output == TOOL_OUTPUT_PIPE;
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (piped && (pipe_flags(out_pipe, O_CLOEXEC | O_NONBLOCK) != 0 ||
                  pipe_flags(err_pipe, O_CLOEXEC | O_NONBLOCK) != 0)) {
        harness_failed(out, "pipe2", errno);
        for (int i = 0; i < 2; i++)
            if (out_pipe[i] >= 0)
                close(out_pipe[i]);
        return;
    }
    /* The child's ends are blocking: a program may not expect O_NONBLOCK on its stdout. */
    if (piped) {
        fcntl(out_pipe[1], F_SETFL, 0);
        fcntl(err_pipe[1], F_SETFL, 0);
    }

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawn_file_actions_adddup2(&fa, devnull_fd, STDIN_FILENO);
    if (how->output == TOOL_OUTPUT_NULL) {
        posix_spawn_file_actions_adddup2(&fa, devnull_fd, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&fa, devnull_fd, STDERR_FILENO);
    } else if (piped) {
        posix_spawn_file_actions_adddup2(&fa, out_pipe[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&fa, err_pipe[1], STDERR_FILENO);
    } else if (how->output == TOOL_OUTPUT_FILE) {
        posix_spawn_file_actions_adddup2(&fa, how->file_fd, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&fa, how->file_fd, STDERR_FILENO);
    }
    bool need_watch = piped || how->timeout_ns > 0;
    char *buf = piped ? bench__xmalloc(READ_CHUNK) : NULL;

    /* The sample: from just before the spawn to the return of wait4, on the measuring clock; the
     * timeout on the deadline clock (a test may replace either). */
    pid_t pid = 0;
    int64_t deadline = bench__clock_deadline_ns() + how->timeout_ns;
    int64_t t0 = bench__clock_measure_ns();
    int rc = posix_spawn(&pid, prog->path, &fa, &attr, prog->argv, environ);
    if (rc == 0) {
        keeper_tell(pid);
        tool_interrupt_watch(pid);
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (piped) {
        close(out_pipe[1]);
        close(err_pipe[1]);
    }
    if (rc != 0) {
        out->outcome = TOOL_CANNOT_START;
        out->error = rc;
        if (piped) {
            close(out_pipe[0]);
            close(err_pipe[0]);
        }
        free(buf);
        tool_interrupt_honour();
        return;
    }

    int status = 0;
    struct pollfd fds[3] = {{-1, POLLIN, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
    size_t nfds = 1;
    if (piped) {
        fds[1].fd = out_pipe[0];
        fds[2].fd = err_pipe[0];
        nfds = 3;
    }
    bool exited = true;
    if (need_watch) {
        int pidfd = pidfd_open_checked(pid);
        if (pidfd < 0 && BENCH__LINUX) {
            harness_failed(out, "pidfd_open", errno);
            exited = false;
        } else {
            exited = watch(pid, pidfd, fds, nfds, how->timeout_ns > 0 ? &deadline : NULL, out, buf);
            if (pidfd >= 0)
                close(pidfd);
        }
        if (!exited)
            kill(-pid, SIGKILL); /* the deadline, or we cannot watch it: the whole group */
    }
    int werr = reap(pid, &status, &out->ru);
    int64_t t1 = bench__clock_measure_ns();
    kill(-pid, SIGKILL); /* whatever the child left running in its group */
    keeper_tell(0);
    tool_interrupt_unwatch();
    out->wall_ns = t1 - t0;
    if (piped) {
        drain(fds, 1, nfds, out, buf);
        close(out_pipe[0]);
        close(err_pipe[0]);
    }
    free(buf);
    tool_interrupt_honour();
    if (werr != 0) {
        harness_failed(out, "wait4", werr);
        return;
    }
    if (!exited)
        return; /* TOOL_TIMED_OUT or TOOL_HARNESS_FAILED, set by watch() */
    if (WIFEXITED(status)) {
        out->status = WEXITSTATUS(status);
        out->outcome = out->status == 0 ? TOOL_COMPLETED : TOOL_EXITED;
    } else if (WIFSIGNALED(status)) {
        out->signal = WTERMSIG(status);
        out->core_dumped = WCOREDUMP(status);
        out->outcome = TOOL_SIGNALED;
    } else {
        harness_failed(out, "wait4", EINVAL);
    }
}

/* ---- live children ------------------------------------------------------------------------ */

int tool_live_start(struct tool_program *prog, int log_fd, pid_t *group, pid_t *pid, int *fd)
{
    tool_interrupt_install();
    tool_interrupt_honour();
    int e = tool_program_find(prog);
    if (e != 0)
        return e;
    if (!keeper_tried)
        keeper_start();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return errno;
    for (int i = 0; i < 2; i++) {
        fcntl(sv[i], F_SETFD, FD_CLOEXEC); /* the child's end is dup2'd: the copies lose it */
#ifdef SO_NOSIGPIPE
        int one = 1; /* where send has no MSG_NOSIGNAL */
        setsockopt(sv[i], SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    }
    int rc = EPERM;
    for (int attempt = 0; attempt < 2 && rc != 0; attempt++) {
        /* the group's members may all have died: then this child starts a new group */
        pid_t into = attempt == 0 ? *group : 0;
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        posix_spawn_file_actions_init(&fa);
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, into);
        posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&fa, log_fd, STDERR_FILENO);
        rc = posix_spawn(pid, prog->path, &fa, &attr, prog->argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        if (rc == 0 && into == 0)
            *group = *pid;
        if (into == 0)
            break;
    }
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        return rc;
    }
    keeper_tell(*group);
    tool_interrupt_watch(*group);
    *fd = sv[0];
    return 0;
}

void tool_live_end(pid_t pid, int64_t grace_ns, struct tool_child *out)
{
    memset(out, 0, sizeof *out);
    /* its exit awaited on a pidfd, or off Linux checked between polls of at most EXIT_POLL_MS */
    int pidfd = pidfd_open_checked(pid);
    int64_t deadline = bench__clock_deadline_ns() + grace_ns;
    bool gone = false;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) {
            gone = true;
            break;
        }
        int64_t left = deadline - bench__clock_deadline_ns();
        if (left <= 0)
            break;
        struct pollfd p = {pidfd, POLLIN, 0};
        struct timespec ts;
        set_timeout(&ts, left);
        if (wait_fds(&p, 1, &ts, pidfd < 0) < 0 && errno != EINTR)
            break;
    }
    if (pidfd >= 0)
        close(pidfd);
    if (!gone)
        kill(pid, SIGKILL);
    int status = 0;
    int werr = reap(pid, &status, &out->ru);
    if (werr != 0) {
        harness_failed(out, "wait4", werr);
    } else if (!gone) {
        out->outcome = TOOL_TIMED_OUT;
    } else if (WIFEXITED(status)) {
        out->status = WEXITSTATUS(status);
        out->outcome = out->status == 0 ? TOOL_COMPLETED : TOOL_EXITED;
    } else {
        out->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        out->core_dumped = WIFSIGNALED(status) && WCOREDUMP(status);
        out->outcome = TOOL_SIGNALED;
    }
    tool_interrupt_honour();
}

void tool_live_group_end(pid_t group)
{
    if (group > 0)
        kill(-group, SIGKILL);
    keeper_tell(0);
    tool_interrupt_unwatch();
    tool_interrupt_honour();
}

/* ---- words ------------------------------------------------------------------------------ */

void tool_child_describe(const struct tool_child *s, const struct tool_program *prog,
                         int64_t timeout_ns, char *buf, size_t size)
{
    char name[200];
    bench__sanitize_copy(prog && prog->argv ? prog->argv[0] : "?", name, sizeof name);
    switch (s->outcome) {
    case TOOL_COMPLETED: bench__fmt(buf, size, "completed"); return;
    case TOOL_EXITED: bench__fmt(buf, size, "exited with status %d", s->status); return;
    case TOOL_SIGNALED: {
        const char *abbrev = bench__signal_abbrev(s->signal);
        const char *text = strsignal(s->signal);
        const char *core = s->core_dumped ? ", core dumped" : "";
        if (abbrev)
            bench__fmt(buf, size, "was killed by SIG%s (%s%s)", abbrev, text ? text : "?", core);
        else
            bench__fmt(buf, size, "was killed by signal %d%s", s->signal, core);
        return;
    }
    case TOOL_TIMED_OUT:
        bench__fmt(buf, size, "timed out after %.9g s", (double)timeout_ns / 1e9);
        return;
    case TOOL_CANNOT_START:
        bench__fmt(buf, size, "cannot run '%s': %s", name, strerror(s->error));
        return;
    case TOOL_HARNESS_FAILED:
        bench__fmt(buf, size, "could not be watched: %s: %s", s->failed_call ? s->failed_call : "?",
                   strerror(s->error));
        return;
    }
    bench__fmt(buf, size, "?");
}

char *tool_child_tail(const struct tool_child *s, size_t max_lines)
{
    size_t n = s->tail_len;
    while (n > 0 && (s->tail[n - 1] == '\n' || s->tail[n - 1] == '\r'))
        n--;
    size_t start = n, lines = 0;
    while (start > 0) {
        if (s->tail[start - 1] == '\n' && ++lines >= max_lines)
            break;
        start--;
    }
    /* a tail that was cut starts in the middle of a line: drop that partial line */
    if (start == 0 && s->tail_cut) {
        const char *nl = memchr(s->tail, '\n', n);
        if (nl && (size_t)(nl - s->tail) + 1 < n)
            start = (size_t)(nl - s->tail) + 1;
    }
    char *raw = bench__xmalloc(n - start + 1);
    for (size_t i = start; i < n; i++) {
        unsigned char c = (unsigned char)s->tail[i];
        raw[i - start] = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ? '?' : (char)c;
    }
    raw[n - start] = '\0';
    char *text = bench__utf8_repair(raw);
    free(raw);
    if (!text)
        bench__out_of_memory();
    return text;
}
