/* SPDX-License-Identifier: MIT */
/* test_spawn.c: the tool's one spawn-and-wait (tools/common/spawn.c), with real processes: a
 * completed run and its rusage, an exit status, a signal, a program not found or not executable
 * (PATH looked up as execvp does), a timeout that kills the whole group, on the deadline clock,
 * pipes drained past a grandchild that holds one, the stderr tail, the output to a file, an
 * interrupt that kills the running group and re-raises after the cleanup; and the words that
 * describe each outcome. Timing bounds are generous: they hold on a busy machine. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/interrupt.h"
#include "common/spawn.h"
#include "common/words.h"
#include "util/clock.h"

static struct tool_child sample;

/* Run a shell snippet (or a program, with words) once. */
static void run_words(const char *const *words, enum tool_output output, int64_t timeout_ns)
{
    size_t n = 0;
    while (words[n])
        n++;
    struct tool_program prog = {calloc(n + 1, sizeof(char *)), NULL};
    assert_non_null(prog.argv);
    for (size_t i = 0; i < n; i++)
        prog.argv[i] = strdup(words[i]);
    struct tool_spawn params = {.output = output, .timeout_ns = timeout_ns};
    tool_spawn(&prog, &params, &sample);
    tool_program_free(&prog);
}

static void run_sh(const char *script, enum tool_output output, int64_t timeout_ns)
{
    const char *words[] = {"/bin/sh", "-c", script, NULL};
    run_words(words, output, timeout_ns);
}

static void completes(void **state)
{
    (void)state;
    const char *words[] = {"true", NULL}; /* found on PATH */
    run_words(words, TOOL_OUTPUT_NULL, 0);
    assert_int_equal(sample.outcome, TOOL_COMPLETED);
    assert_true(sample.wall_ns > 0);
    assert_true(sample.ru.ru_maxrss > 0);
    run_sh("sleep 0.05", TOOL_OUTPUT_NULL, 0);
    assert_int_equal(sample.outcome, TOOL_COMPLETED);
    assert_true(sample.wall_ns >= 50000000);
    assert_true(sample.wall_ns < 30000000000); /* far below any stall a busy machine has */
}

static void exits_and_signals(void **state)
{
    (void)state;
    char how[256];
    run_sh("exit 3", TOOL_OUTPUT_NULL, 0);
    assert_int_equal(sample.outcome, TOOL_EXITED);
    assert_int_equal(sample.status, 3);
    tool_child_describe(&sample, NULL, 0, how, sizeof how);
    assert_string_equal(how, "exited with status 3");
    run_sh("kill -TERM $$", TOOL_OUTPUT_NULL, 0);
    assert_int_equal(sample.outcome, TOOL_SIGNALED);
    assert_int_equal(sample.signal, SIGTERM);
    tool_child_describe(&sample, NULL, 0, how, sizeof how);
    assert_string_equal(how, "was killed by SIGTERM (Terminated)");
}

static void cannot_start(void **state)
{
    (void)state;
    char how[256];
    const char *missing[] = {"libbench-no-such-program", "x", NULL};
    struct tool_program prog = {calloc(3, sizeof(char *)), NULL};
    prog.argv[0] = strdup(missing[0]);
    prog.argv[1] = strdup(missing[1]);
    struct tool_spawn params = {.output = TOOL_OUTPUT_NULL};
    tool_spawn(&prog, &params, &sample);
    assert_int_equal(sample.outcome, TOOL_CANNOT_START);
    assert_int_equal(sample.error, ENOENT);
    tool_child_describe(&sample, &prog, 0, how, sizeof how);
    assert_string_equal(how, "cannot run 'libbench-no-such-program': No such file or directory");
    tool_program_free(&prog);
    const char *slash[] = {"/nonexistent/prog", NULL};
    run_words(slash, TOOL_OUTPUT_PIPE, 1000000000);
    assert_int_equal(sample.outcome, TOOL_CANNOT_START);
    assert_int_equal(sample.error, ENOENT);
}

/* PATH is searched as execvp does: a file that is not executable is EACCES, found later ones
 * win, an empty entry is the current directory. */
static void path_lookup(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_run_proc.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[256], sub[256];
    snprintf(file, sizeof file, "%s/tool", dir);
    snprintf(sub, sizeof sub, "%s/bin", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    int fd = open(file, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    assert_true(write(fd, "#!/bin/sh\nexit 0\n", 17) == 17);
    close(fd);
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", dir, 1);
    struct tool_program prog = {calloc(2, sizeof(char *)), NULL};
    prog.argv[0] = strdup("tool");
    assert_int_equal(tool_program_find(&prog), EACCES);
    assert_null(prog.path);
    chmod(file, 0755);
    assert_int_equal(tool_program_find(&prog), 0);
    assert_string_equal(prog.path, file);
    free(prog.path);
    prog.path = NULL;
    char two[600];
    snprintf(two, sizeof two, "%s:%s", sub, dir); /* not in the first: found in the second */
    setenv("PATH", two, 1);
    assert_int_equal(tool_program_find(&prog), 0);
    assert_string_equal(prog.path, file);
    free(prog.path);
    prog.path = NULL;
    setenv("PATH", sub, 1);
    assert_int_equal(tool_program_find(&prog), ENOENT);
    tool_program_free(&prog);
    if (old)
        setenv("PATH", old, 1);
    free(old);
    unlink(file);
    rmdir(sub);
    rmdir(dir);
}

static bool gone(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    return close_paren && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

/* The timeout kills the whole group: the grandchild that holds the pipe too, and the wait never
 * outlasts the deadline by more than the kill takes. */
static void timeout_kills_the_group(void **state)
{
    (void)state;
    char pidfile[] = "/tmp/test_run_proc.pid.XXXXXX";
    int fd = mkstemp(pidfile);
    assert_true(fd >= 0);
    close(fd);
    char script[256];
    snprintf(script, sizeof script, "sleep 300 & echo $! > %s; echo started >&2; sleep 300",
             pidfile);
    run_sh(script, TOOL_OUTPUT_PIPE, 200000000);
    assert_int_equal(sample.outcome, TOOL_TIMED_OUT);
    assert_true(sample.wall_ns >= 200000000);
    assert_true(sample.wall_ns < 30000000000);
    assert_false(sample.pipe_held);
    char how[256];
    tool_child_describe(&sample, NULL, 200000000, how, sizeof how);
    assert_string_equal(how, "timed out after 0.2 s");
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    int grandchild = 0;
    assert_int_equal(fscanf(f, "%d", &grandchild), 1);
    fclose(f);
    unlink(pidfile);
    assert_true(grandchild > 0);
    assert_true(gone(grandchild));
    char *tail = tool_child_tail(&sample, 5);
    assert_string_equal(tail, "started");
    free(tail);
}

/* --output=pipe: both pipes drained (a child writing more than a pipe holds never blocks), the
 * stderr tail kept, and a finished command whose background grandchild keeps the pipe open does
 * not stall the run: the group is killed once the command is reaped. */
static void pipes_drained(void **state)
{
    (void)state;
    run_sh("head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2; echo >&2; echo last line >&2",
           TOOL_OUTPUT_PIPE, 0);
    assert_int_equal(sample.outcome, TOOL_COMPLETED);
    assert_int_equal(sample.tail_len, TOOL_TAIL_MAX);
    assert_true(sample.tail_cut);
    char *tail = tool_child_tail(&sample, 3);
    assert_string_equal(tail, "last line"); /* the partial line of NULs before it is dropped */
    free(tail);
    run_sh("sleep 300 & echo bye >&2", TOOL_OUTPUT_PIPE, 0);
    assert_int_equal(sample.outcome, TOOL_COMPLETED);
    assert_true(sample.wall_ns < 30000000000);
    assert_false(sample.pipe_held);
    tail = tool_child_tail(&sample, 3);
    assert_string_equal(tail, "bye");
    free(tail);
}

/* The timeout is kept on the deadline clock, the wall time on the measuring clock: with a deadline
 * clock far behind CLOCK_MONOTONIC, a 0.2 s timeout still ends a 5 s child after 0.2 s of that
 * clock (a deadline taken from the measuring clock would never come). */
static int64_t behind_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - INT64_C(1000000000000000);
}

static void timeout_on_the_deadline_clock(void **state)
{
    (void)state;
    bench__clock_deadline_ns = behind_ns;
    run_sh("sleep 5", TOOL_OUTPUT_NULL, 200000000);
    bench__clock_reset();
    assert_int_equal(sample.outcome, TOOL_TIMED_OUT);
    assert_true(sample.wall_ns >= 150000000); /* the measuring clock: the real time */
    assert_true(sample.wall_ns < 4000000000);
}

/* TOOL_OUTPUT_FILE: stdout and stderr both to the caller's file, in the order written. */
static void output_to_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_spawn.log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *words[] = {"/bin/sh", "-c", "echo out; echo err >&2", NULL};
    struct tool_program prog = {calloc(4, sizeof(char *)), NULL};
    for (size_t i = 0; i < 3; i++)
        prog.argv[i] = strdup(words[i]);
    struct tool_spawn how = {.output = TOOL_OUTPUT_FILE, .file_fd = fd};
    tool_spawn(&prog, &how, &sample);
    tool_program_free(&prog);
    close(fd);
    assert_int_equal(sample.outcome, TOOL_COMPLETED);
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    unlink(path);
    buf[n] = '\0';
    assert_string_equal(buf, "out\nerr\n");
}

static const char *cleanup_mark;

static void mark_cleanup(void *data)
{
    (void)data;
    FILE *f = fopen(cleanup_mark, "w");
    if (f)
        fclose(f);
}

/* A SIGTERM to a tool waiting for its child kills the child's whole group (a grandchild too),
 * runs the command's cleanup, and the tool dies by that signal. */
static void interrupt_kills_the_group(void **state)
{
    (void)state;
    char pidfile[] = "/tmp/test_spawn.pid.XXXXXX", mark[] = "/tmp/test_spawn.mark.XXXXXX";
    int fd = mkstemp(pidfile);
    assert_true(fd >= 0);
    close(fd);
    fd = mkstemp(mark);
    assert_true(fd >= 0);
    close(fd);
    unlink(mark);
    char script[256];
    snprintf(script, sizeof script, "sleep 300 & echo $! > %s; sleep 300", pidfile);
    pid_t tool = fork();
    assert_true(tool >= 0);
    if (tool == 0) {
        cleanup_mark = mark;
        tool_interrupt_on(mark_cleanup, NULL);
        run_sh(script, TOOL_OUTPUT_NULL, 0);
        _exit(3); /* not reached: the interrupt re-raises */
    }
    int grandchild = 0;
    for (int tries = 0; tries < 3000 && grandchild <= 0; tries++) { /* up to 30 s */
        FILE *f = fopen(pidfile, "r");
        if (f) {
            if (fscanf(f, "%d", &grandchild) != 1)
                grandchild = 0;
            fclose(f);
        }
        if (grandchild <= 0)
            usleep(10000);
    }
    assert_true(grandchild > 0);
    kill(tool, SIGTERM);
    int status = 0;
    assert_int_equal(waitpid(tool, &status, 0), tool);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_int_equal(access(mark, F_OK), 0);
    for (int tries = 0; tries < 3000 && !gone(grandchild); tries++)
        usleep(10000); /* SIGKILL is sent; its delivery is the kernel's */
    assert_true(gone(grandchild));
    unlink(pidfile);
    unlink(mark);
}

static void tail_text(void **state)
{
    (void)state;
    struct tool_child s;
    memset(&s, 0, sizeof s);
    const char *text = "one\ntwo\x1b[31m\nthree\xff\n\n";
    memcpy(s.tail, text, strlen(text));
    s.tail_len = strlen(text);
    char *t = tool_child_tail(&s, 2);
    assert_string_equal(t, "two?[31m\nthree\xef\xbf\xbd"); /* ESC as '?', 0xff as U+FFFD */
    free(t);
    t = tool_child_tail(&s, 10);
    assert_string_equal(t, "one\ntwo?[31m\nthree\xef\xbf\xbd");
    free(t);
    s.tail_len = 0;
    t = tool_child_tail(&s, 10);
    assert_string_equal(t, "");
    free(t);
}

static void describe(void **state)
{
    (void)state;
    struct tool_child s;
    memset(&s, 0, sizeof s);
    char how[256];
    s.outcome = TOOL_SIGNALED;
    s.signal = SIGSEGV;
    s.core_dumped = true;
    tool_child_describe(&s, NULL, 0, how, sizeof how);
    assert_string_equal(how, "was killed by SIGSEGV (Segmentation fault, core dumped)");
    s.outcome = TOOL_TIMED_OUT;
    tool_child_describe(&s, NULL, 5000000000, how, sizeof how);
    assert_string_equal(how, "timed out after 5 s");
    s.outcome = TOOL_HARNESS_FAILED;
    s.failed_call = "pidfd_open";
    s.error = ENOSYS;
    tool_child_describe(&s, NULL, 0, how, sizeof how);
    assert_string_equal(how, "could not be watched: pidfd_open: Function not implemented");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(completes),
        cmocka_unit_test(exits_and_signals),
        cmocka_unit_test(cannot_start),
        cmocka_unit_test(path_lookup),
        cmocka_unit_test(timeout_kills_the_group),
        cmocka_unit_test(pipes_drained),
        cmocka_unit_test(timeout_on_the_deadline_clock),
        cmocka_unit_test(output_to_file),
        cmocka_unit_test(interrupt_kills_the_group),
        cmocka_unit_test(tail_text),
        cmocka_unit_test(describe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
