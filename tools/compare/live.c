/* SPDX-License-Identifier: MIT */
/* live.c: owns one live subject of compare's paired mode: a test binary started with
 * `--bench --bench-serve`, its listing read, one command sent and its one-line answer awaited
 * with a deadline, and the subject ended with the reason it died (its signal or status and the
 * last line of its stderr). Spawning and reaping are common/spawn.c's; no statistics here. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "compare.h"
#include "common/spawn.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/serve_line.h"
#include "util/signal_name.h"
#include "util/text.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* the socket has SO_NOSIGPIPE there (common/spawn.c) */
#endif

#define LIVE_GRACE_NS INT64_C(500000000) /* an ended subject's time to exit on its own */

/* One line of the subject's answer (without its newline) into l->line, waiting at most until
 * deadline (the deadline clock). 0; 1 at the end of its output; 2 on the deadline. */
static int read_line(struct compare_live *l, int64_t deadline)
{
    for (;;) {
        char *nl = memchr(l->buf, '\n', l->len);
        if (nl) {
            size_t n = (size_t)(nl - l->buf);
            size_t keep = n < sizeof l->line - 1 ? n : sizeof l->line - 1;
            memcpy(l->line, l->buf, keep);
            l->line[keep] = '\0';
            memmove(l->buf, nl + 1, l->len - n - 1);
            l->len -= n + 1;
            return 0;
        }
        if (l->len == sizeof l->buf)
            l->len = 0; /* a line longer than the buffer: its start is dropped */
        int64_t left = deadline - bench__clock_deadline_ns();
        if (left <= 0)
            return 2;
        struct pollfd p = {l->fd, POLLIN, 0};
        int ms = (int)(left / 1000000 + 1);
        int k = poll(&p, 1, ms);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            continue; /* the deadline is checked above */
        ssize_t got = read(l->fd, l->buf + l->len, sizeof l->buf - l->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 1;
        l->len += (size_t)got;
    }
}

/* The last non-empty line of the subject's log (its stderr), sanitized. */
static void log_tail(const struct compare_live *l, char *buf, size_t size)
{
    buf[0] = '\0';
    int fd = open(l->log_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char tail[2048];
    off_t end = lseek(fd, 0, SEEK_END);
    off_t start = end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0;
    ssize_t n = end > 0 ? pread(fd, tail, (size_t)(end - start), start) : 0;
    close(fd);
    if (n <= 0)
        return;
    tail[n] = '\0';
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r' || tail[n - 1] == ' '))
        tail[--n] = '\0';
    char *line = strrchr(tail, '\n');
    bench__sanitize_copy(line ? line + 1 : tail, buf, size);
}

void compare_live_stop(struct compare_live *l, bool quit, char *why, size_t size)
{
    if (!l->up)
        return;
    if (quit)
        (void)send(l->fd, "quit\n", 5, MSG_NOSIGNAL);
    close(l->fd);
    l->fd = -1;
    l->up = false;
    struct tool_child *c = bench__xmalloc(sizeof *c);
    tool_live_end(l->pid, LIVE_GRACE_NS, c);
    if (why) {
        char line[200];
        log_tail(l, line, sizeof line);
        const char *abbrev = c->outcome == TOOL_SIGNALED ? bench__signal_abbrev(c->signal) : NULL;
        char how[96];
        if (c->outcome == TOOL_SIGNALED && abbrev)
            bench__fmt(how, sizeof how, "killed by SIG%s", abbrev);
        else if (c->outcome == TOOL_SIGNALED)
            bench__fmt(how, sizeof how, "killed by signal %d", c->signal);
        else if (c->outcome == TOOL_TIMED_OUT)
            bench__fmt(how, sizeof how, "did not exit: killed");
        else if (c->outcome == TOOL_COMPLETED || c->outcome == TOOL_EXITED)
            bench__fmt(how, sizeof how, "exited with status %d", c->status);
        else
            bench__fmt(how, sizeof how, "could not be reaped");
        if (line[0])
            bench__fmt(why, size, "%s: %s", how, line);
        else
            bench__fmt(why, size, "%s", how);
    }
    free(c);
    unlink(l->log_path);
}

int compare_live_start(struct compare_live *l, struct tool_program *prog, int64_t timeout_ns,
                       pid_t *group, char *why, size_t size)
{
    int log_fd = open(l->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        bench__fmt(why, size, "cannot create the log file: %s", strerror(errno));
        return -1;
    }
    int e = tool_live_start(prog, log_fd, group, &l->pid, &l->fd);
    close(log_fd);
    if (e != 0) {
        bench__fmt(why, size, "cannot execute: %s", strerror(e));
        return -1;
    }
    l->up = true;
    l->len = 0;
    compare_live_cells_free(l);
    int64_t deadline = bench__clock_deadline_ns() + timeout_ns;
    int rc = read_line(l, deadline);
    if (rc != 0 || strcmp(l->line, BENCH__SERVE_HELLO) != 0) {
        char first[120];
        bench__sanitize_copy(rc == 0 ? l->line : "", first, sizeof first);
        char died[COMPARE_ERROR_MAX];
        compare_live_stop(l, false, died, sizeof died);
        if (rc == 2)
            bench__fmt(why, size, "no answer to --bench-serve in %.3g s (%s)",
                       (double)timeout_ns / 1e9, died);
        else if (rc == 0)
            bench__fmt(why, size, "it answered --bench-serve with '%s' (%s)", first, died);
        else
            bench__fmt(why, size, "%s", died);
        return 1;
    }
    for (;;) {
        rc = read_line(l, deadline);
        if (rc != 0) {
            char died[COMPARE_ERROR_MAX];
            compare_live_stop(l, false, died, sizeof died);
            bench__fmt(why, size, "its listing of cells ended early: %s",
                       rc == 2 ? "timed out" : died);
            return -1;
        }
        char *f[3];
        size_t n = bench__serve_split(l->line, f, 3);
        if (n == 2 && !strcmp(f[0], "ready"))
            return 0;
        char name[1024], op[1024];
        if (n != 3 || strcmp(f[0], "cell") != 0 ||
            !bench__serve_unescape(f[1], strlen(f[1]), name, sizeof name) ||
            !bench__serve_unescape(f[2], strlen(f[2]), op, sizeof op))
            continue; /* a line this tool does not know: a later protocol's */
        l->names = bench__grow(l->names, &l->cap, l->n_cells + 1, sizeof *l->names);
        l->ops = bench__grow(l->ops, &l->cap_ops, l->n_cells + 1, sizeof *l->ops);
        l->names[l->n_cells] = bench__xstrdup(name);
        l->ops[l->n_cells++] = bench__xstrdup(op);
    }
}

void compare_live_cells_free(struct compare_live *l)
{
    for (size_t i = 0; i < l->n_cells; i++) {
        free(l->names[i]);
        free(l->ops[i]);
    }
    free(l->names);
    free(l->ops);
    l->names = l->ops = NULL;
    l->n_cells = l->cap = l->cap_ops = 0;
}

int compare_live_call(struct compare_live *l, const char *command, int64_t timeout_ns,
                      uint64_t *count, double *ns, char *why, size_t size)
{
    int64_t late = 0;
    if (compare_live_send(l, command, why, size) != 0)
        return -1;
    return compare_live_answer(l, timeout_ns, count, ns, &late, why, size);
}

int compare_live_send(struct compare_live *l, const char *command, char *why, size_t size)
{
    size_t len = strlen(command);
    const char *p = command;
    while (len > 0) {
        ssize_t put = send(l->fd, p, len, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0) {
            compare_live_stop(l, false, why, size);
            return -1;
        }
        p += put;
        len -= (size_t)put;
    }
    return 0;
}

int compare_live_answer(struct compare_live *l, int64_t timeout_ns, uint64_t *count, double *ns,
                        int64_t *late_ns, char *why, size_t size)
{
    *late_ns = 0;
    int rc = read_line(l, bench__clock_deadline_ns() + timeout_ns);
    if (rc != 0) {
        char died[COMPARE_ERROR_MAX];
        if (rc == 2) {
            compare_live_stop(l, false, NULL, 0);
            bench__fmt(why, size, "no answer in %.3g s (a hang?): killed",
                       (double)timeout_ns / 1e9);
        } else {
            compare_live_stop(l, false, died, sizeof died);
            bench__fmt(why, size, "%s", died);
        }
        return -1;
    }
    char *f[4];
    size_t n = bench__serve_split(l->line, f, 4);
    char *end = NULL;
    if (n == 2 && !strcmp(f[0], "count")) {
        *count = strtoull(f[1], &end, 10);
        if (*end == '\0' && *count > 0)
            return 0;
    } else if ((n == 3 || n == 4) && !strcmp(f[0], "ns")) {
        *ns = strtod(f[1], &end);
        char *end_late = NULL;
        long long late = n == 4 ? strtoll(f[3], &end_late, 10) : 0;
        if (*end == '\0' && *ns >= 0 && (n == 3 || (*end_late == '\0' && late >= 0))) {
            *late_ns = (int64_t)late;
            return 0;
        }
    } else if (n == 2 && !strcmp(f[0], "error")) {
        char text[COMPARE_ERROR_MAX];
        if (!bench__serve_unescape(f[1], strlen(f[1]), text, sizeof text))
            bench__fmt(text, sizeof text, "(an unreadable message)");
        bench__fmt(why, size, "%s", text);
        return 1;
    }
    bench__fmt(why, size, "an answer this tool does not understand");
    return 1;
}
