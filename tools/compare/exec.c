/* SPDX-License-Identifier: MIT */
/* exec.c: owns running one subject binary for `libbench compare`: its own process
 * group, output to a log file, a blocking wait, and the reason a run failed. No polling. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "common/interrupt.h"
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

static void describe_status(int status, const char *log_path, char *why, size_t size)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = bench__signal_abbrev(sig);
        const char *text = strsignal(sig);
        if (abbrev)
            bench__fmt(why, size, "killed by SIG%s: %s", abbrev, text ? text : "");
        else
            bench__fmt(why, size, "killed by signal %d", sig);
        return;
    }
    char line[200];
    last_log_line(log_path, line, sizeof line);
    if (line[0])
        bench__fmt(why, size, "exited with status %d: %s", WEXITSTATUS(status), line);
    else
        bench__fmt(why, size, "exited with status %d", WEXITSTATUS(status));
}

int compare_exec(char *const argv[], const char *log_path, char *why, size_t why_size)
{
    tool_interrupt_install();
    tool_interrupt_honour();
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        bench__fmt(why, why_size, "cannot create the log file: %s", strerror(errno));
        return -1;
    }
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) {
        bench__fmt(why, why_size, "cannot open /dev/null: %s", strerror(errno));
        close(log_fd);
        return -1;
    }

    /* Block the stop signals across fork so the handler always knows the child's group. */
    sigset_t stop, old_mask;
    tool_interrupt_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &old_mask);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(log_fd, STDOUT_FILENO) < 0 ||
            dup2(log_fd, STDERR_FILENO) < 0)
            _exit(127);
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "libbench compare: cannot execute '%s': %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    int fork_errno = errno;
    if (pid > 0) {
        setpgid(pid, pid); /* also here: no window in which the group does not exist */
        tool_interrupt_watch(pid);
    }
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    close(log_fd);
    close(null_fd);
    if (pid < 0) {
        bench__fmt(why, why_size, "cannot start: %s", strerror(fork_errno));
        return -1;
    }

    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = -1;
            break;
        }
    }
    kill(-pid, SIGKILL); /* whatever the child left running in its group */
    tool_interrupt_unwatch();
    tool_interrupt_honour();
    if (status == -1) {
        bench__fmt(why, why_size, "cannot wait for it: %s", strerror(errno));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    describe_status(status, log_path, why, why_size);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
