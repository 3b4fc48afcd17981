/* SPDX-License-Identifier: MIT */
/* exec.c: owns running one subject binary for `libbench compare`: its output to a log file, and
 * the reason a run failed in compare's words (its status and the last line of its log, or its
 * signal). The process itself is spawned, waited for and killed by common/spawn.c only. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "compare.h"
#include "common/spawn.h"
#include "util/alloc.h"
#include "util/signal_name.h"
#include "util/text.h"

/* The last non-empty line of the log, sanitized, for the reason of a failed run. */
static void last_log_line(const char *log_path, char *buf, size_t size)
{
    buf[0] = '\0';
    int fd = open(log_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char tail[4096];
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
    line = line ? line + 1 : tail;
    bench__sanitize_copy(line, buf, size);
    size_t len = strlen(buf);
    if (strlen(line) >= size && size > 8) { /* cut: mark it, on a UTF-8 boundary */
        len = size - 4;
        while (len > 0 && ((unsigned char)buf[len] & 0xC0) == 0x80)
            len--;
        memcpy(buf + len, "...", 4);
    }
}

/* Why a run that did not complete gave nothing; its return value for compare_exec. */
static int describe(const struct tool_child *c, const char *log_path, char *why, size_t size)
{
    switch (c->outcome) {
    case TOOL_COMPLETED: return 0;
    case TOOL_EXITED: {
        char line[200];
        last_log_line(log_path, line, sizeof line);
        if (line[0])
            bench__fmt(why, size, "exited with status %d: %s", c->status, line);
        else
            bench__fmt(why, size, "exited with status %d", c->status);
        return c->status;
    }
    case TOOL_SIGNALED: {
        const char *abbrev = bench__signal_abbrev(c->signal);
        const char *text = strsignal(c->signal);
        if (abbrev)
            bench__fmt(why, size, "killed by SIG%s: %s", abbrev, text ? text : "");
        else
            bench__fmt(why, size, "killed by signal %d", c->signal);
        return -1;
    }
    case TOOL_CANNOT_START: bench__fmt(why, size, "cannot execute: %s", strerror(c->error)); break;
    case TOOL_HARNESS_FAILED:
        bench__fmt(why, size, "cannot wait for it: %s: %s", c->failed_call ? c->failed_call : "?",
                   strerror(c->error));
        break;
    case TOOL_TIMED_OUT: bench__fmt(why, size, "timed out"); break; /* no timeout is set */
    }
    return -1;
}

int compare_exec(struct tool_program *prog, const char *log_path, struct rusage *ru, char *why,
                 size_t why_size)
{
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        bench__fmt(why, why_size, "cannot create the log file: %s", strerror(errno));
        return -1;
    }
    struct tool_spawn how = {.output = TOOL_OUTPUT_FILE, .file_fd = log_fd};
    struct tool_child *child = bench__xmalloc(sizeof *child);
    tool_spawn(prog, &how, child);
    close(log_fd);
    if (ru) { /* wait4's, of a child that was waited for; else unmeasured (NaN user time) */
        bool waited = child->outcome == TOOL_COMPLETED || child->outcome == TOOL_EXITED ||
                      child->outcome == TOOL_SIGNALED;
        if (waited)
            *ru = child->ru;
        else
            ru->ru_utime.tv_usec = -1;
    }
    int rc = describe(child, log_path, why, why_size);
    free(child);
    return rc;
}
