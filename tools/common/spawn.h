/* SPDX-License-Identifier: MIT */
/* spawn.h: the one way the `libbench` tool spawns a child and waits for it, for every command
 * (`libbench run`, `libbench compare`'s binaries and --commands): the program found on PATH once,
 * posix_spawn into a process group of its own, wait4's rusage, a wait with a deadline, the output
 * to /dev/null, pipes, a file or the tool's own, and the group killed after every run, on a
 * timeout and on an interrupt (interrupt.h). */
#ifndef LIBBENCH_TOOLS_COMMON_SPAWN_H
#define LIBBENCH_TOOLS_COMMON_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Where the child's stdout and stderr go (its stdin is always /dev/null). */
enum tool_output {
    TOOL_OUTPUT_NULL,    /* /dev/null */
    TOOL_OUTPUT_PIPE,    /* pipes drained while it runs; the last bytes of stderr kept */
    TOOL_OUTPUT_INHERIT, /* the tool's own stdout and stderr */
    TOOL_OUTPUT_FILE,    /* both to tool_spawn.file_fd (a log) */
};

#define TOOL_TAIL_MAX 4096 /* the bytes of stderr kept for a failure message (TOOL_OUTPUT_PIPE) */

/* A program to run: its words, and where argv[0] was found (looked up on PATH once). */
struct tool_program {
    char **argv; /* NULL-terminated; argv[0] as given */
    char *path;  /* the file run; NULL until found */
};

/* How to run it. */
struct tool_spawn {
    enum tool_output output;
    int file_fd;        /* TOOL_OUTPUT_FILE: stdout and stderr; the caller opens and closes it */
    int64_t timeout_ns; /* 0: none */
};

enum tool_outcome {
    TOOL_COMPLETED,      /* exited with status 0 */
    TOOL_EXITED,         /* exited with another status */
    TOOL_SIGNALED,       /* killed by a signal (not ours) */
    TOOL_TIMED_OUT,      /* killed by us at the deadline, with its process group */
    TOOL_CANNOT_START,   /* not found, not executable, posix_spawn failed */
    TOOL_HARNESS_FAILED, /* a call of the harness failed (pipe2, pidfd_open, wait4) */
};

/* What one child gave. wall_ns and ru are meaningful for TOOL_COMPLETED (and TOOL_EXITED,
 * TOOL_SIGNALED); error is the errno of TOOL_CANNOT_START and TOOL_HARNESS_FAILED. */
struct tool_child {
    enum tool_outcome outcome;
    int status, signal, error;
    bool core_dumped;
    const char *failed_call;  /* TOOL_HARNESS_FAILED: "pipe2", "pidfd_open", "wait4", ... */
    int64_t wall_ns;          /* the measuring clock: just before posix_spawn to wait4's return */
    struct rusage ru;         /* wait4's, of the process and its waited-for descendants */
    char tail[TOOL_TAIL_MAX]; /* TOOL_OUTPUT_PIPE: the last bytes of stderr (not NUL-terminated) */
    size_t tail_len;
    bool tail_cut;  /* earlier bytes of stderr were dropped */
    bool pipe_held; /* a process outside the group kept a pipe open; reading stopped */
};

/* Run prog once: posix_spawn into a new process group (stdin /dev/null, stdout and stderr by
 * how->output), a blocking wait (wait4; with a timeout or pipes, ppoll on a pidfd whose timeout
 * is the time left to the deadline on the deadline clock), then SIGKILL to whatever is left in
 * the group. A SIGINT, SIGTERM or SIGHUP to this process kills the running group, runs the
 * interrupt cleanup and is re-raised once the child is reaped. Never fails as a call: *out says
 * how the run went. */
void tool_spawn(struct tool_program *prog, const struct tool_spawn *how, struct tool_child *out);
/* How a run that did not complete ended, without the run number: "exited with status 1",
 * "was killed by SIGSEGV (Segmentation fault)", "timed out after 5 s", "cannot run 'foo': No such
 * file or directory". */
void tool_child_describe(const struct tool_child *c, const struct tool_program *prog,
                         int64_t timeout_ns, char *buf, size_t size);
/* The stderr tail as text: its last lines (at most max_lines), control characters but newlines
 * and tabs as '?', invalid UTF-8 repaired; malloc'd, "" when there is none. */
char *tool_child_tail(const struct tool_child *c, size_t max_lines);
/* Look argv[0] up on PATH (as execvp would, without running it) and keep the file in prog->path;
 * 0, or an errno (ENOENT, EACCES). A name with a '/' is taken as it is, once it is known to be an
 * executable regular file. */
int tool_program_find(struct tool_program *prog);
/* ---- live children: subjects that stay up and answer commands (compare's paired mode) ---- */

/* A live child: its stdin and stdout one socket of a socketpair (`fd`, the tool's end:
 * close-on-exec, blocking; write with MSG_NOSIGNAL), its stderr to log_fd. Every live child of
 * one `*group` shares its process group (0: the first starts a new one, and *group is set), which
 * the keeper and the interrupt handler kill should the tool die or be stopped. 0, or an errno
 * (the program not found, socketpair, posix_spawn). */
int tool_live_start(struct tool_program *prog, int log_fd, pid_t *group, pid_t *pid, int *fd);
/* End live child pid: wait up to grace_ns for it to exit on its own, then SIGKILL it, and reap
 * it; *out says how it ended (as tool_spawn's; wall_ns is 0). */
void tool_live_end(pid_t pid, int64_t grace_ns, struct tool_child *out);
/* Every live child of `group` is ended: the group killed, the keeper and interrupt told. */
void tool_live_group_end(pid_t group);

/* Frees argv (tool_words_free) and path. */
void tool_program_free(struct tool_program *prog);

#endif /* LIBBENCH_TOOLS_COMMON_SPAWN_H */
