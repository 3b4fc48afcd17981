/* SPDX-License-Identifier: MIT */
/* callgrind_runs.c: owns the runs under Valgrind that the "callgrind" source (callgrind.c)
 * starts from a normal run: the arguments they get (the user's, minus file outputs, plus the
 * pinned counting schedule), the process, the reason when one counted nothing, and the private
 * directory's removal. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "callgrind_runs.h"

/* The options whose values are files: the runs under Valgrind must not write them. */
static bool writes_a_file(const char *arg, bool *takes_next)
{
    static const char *const opts[] = {"--bench-json", "--junit", "--profile-folded",
                                       "--bench-format"};
    *takes_next = false;
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        size_t n = strlen(opts[i]);
        if (strncmp(arg, opts[i], n) != 0)
            continue;
        if (arg[n] == '=')
            return true;
        if (arg[n] == '\0') {
            *takes_next = true;
            return true;
        }
    }
    return false;
}

/* The options the runs under Valgrind pin (unless the user gave them): a fixed counting schedule,
 * so that a row's count per iteration does not depend on how fast its timing ran (the same in
 * both runs, and for a baseline and a candidate), and a short timed phase (discarded: it only
 * warms the code up). */
static const char *const pinned[] = {"--perf-iters=" BENCH__CALLGRIND_ITERS,
                                     "--perf-batch=" BENCH__CALLGRIND_ITERS, "--bench-min-time=1",
                                     "--bench-precision=100"};
#define N_PINNED (sizeof pinned / sizeof *pinned)

/* Whether arg sets the option of pinned[i] (as --name=V or --name V). */
static bool same_option(const char *arg, size_t i)
{
    size_t n = strcspn(pinned[i], "=");
    return strncmp(arg, pinned[i], n) == 0 && (arg[n] == '=' || arg[n] == '\0');
}

/* This process's arguments (from /proc/self/cmdline), NULL-terminated, minus the file outputs;
 * given[i] tells whether the user set the option of pinned[i]. */
static char **own_arguments(size_t *n_out, bool given[N_PINNED])
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return NULL;
    size_t cap = 16, n = 0;
    char **argv = bench__xcalloc(cap, sizeof *argv);
    char *arg = NULL;
    size_t len = 0;
    bool skip_next = false, first = true;
    while (getdelim(&arg, &len, '\0', f) > 0) {
        bool takes_next = false;
        if (first) { /* argv[0]: the caller sets the path itself */
            first = false;
            continue;
        }
        if (skip_next) {
            skip_next = false;
            continue;
        }
        if (writes_a_file(arg, &takes_next)) {
            skip_next = takes_next;
            continue;
        }
        for (size_t i = 0; i < N_PINNED; i++)
            given[i] |= same_option(arg, i);
        if (n + 2 > cap)
            argv = bench__xrealloc(argv, (cap *= 2) * sizeof *argv);
        argv[n++] = bench__xstrdup(arg);
    }
    free(arg);
    fclose(f);
    argv[n] = NULL;
    *n_out = n;
    return argv;
}

/* The last line of the run's log that Valgrind wrote ("==PID== ..."), for a refusal's reason. */
static void valgrind_said(const char *log, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        const char *p = line;
        if (strncmp(p, "==", 2) == 0 && (p = strstr(p + 2, "== ")) && p[3])
            bench__fmt(out, size, "%s", p + 3);
        else if (strncmp(line, "valgrind:", 9) == 0)
            bench__fmt(out, size, "%s", line);
    }
    fclose(f);
}

int bench__callgrind_run(const char *valgrind, const char *dir, unsigned run, bool cache, char *why,
                         size_t why_size)
{
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        bench__fmt(why, why_size, "cannot read /proc/self/exe: %s", strerror(errno));
        return -1;
    }
    exe[len] = '\0';
    size_t n_args = 0;
    bool given[N_PINNED] = {false};
    char **args = own_arguments(&n_args, given);
    if (!args) {
        bench__fmt(why, why_size, "cannot read /proc/self/cmdline: %s", strerror(errno));
        return -1;
    }
    char out_file[700], log[700], run_text[16];
    bench__fmt(out_file, sizeof out_file, "--callgrind-out-file=%s/cg.%%p", dir);
    bench__fmt(log, sizeof log, "%s/log.%u", dir, run);
    bench__fmt(run_text, sizeof run_text, "%u", run);
    const char *head[] = {valgrind,
                          "--tool=callgrind",
                          "--collect-atstart=no",
                          cache ? "--cache-sim=yes" : "--cache-sim=no",
                          out_file,
                          exe};
    size_t n_head = sizeof head / sizeof *head, n = 0;
    char **argv = bench__xcalloc(n_head + N_PINNED + n_args + 1, sizeof *argv);
    for (size_t i = 0; i < n_head; i++)
        argv[n++] = (char *)head[i];
    for (size_t i = 0; i < N_PINNED; i++)
        if (!given[i])
            argv[n++] = (char *)pinned[i];
    for (size_t i = 0; i < n_args; i++)
        argv[n++] = args[i];
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        setenv(BENCH__CALLGRIND_ENV_DIR, dir, 1);
        setenv(BENCH__CALLGRIND_ENV_RUN, run_text, 1);
        execv(valgrind, argv);
        _exit(127);
    }
    int status = 0;
    int rc = 0;
    if (pid < 0) {
        bench__fmt(why, why_size, "fork: %s", strerror(errno));
        rc = -1;
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        char counts[700];
        bench__fmt(counts, sizeof counts, "%s/counts.%u", dir, run);
        struct stat st;
        bool any = stat(counts, &st) == 0 && st.st_size > 0;
        /* a run whose benchmarks fail still counts its other rows; one that counted nothing
         * was refused (or crashed) */
        if (!any) {
            char said[300];
            valgrind_said(log, said, sizeof said);
            bench__fmt(why, why_size, "the run under Valgrind counted nothing (%s %d%s%s)",
                       WIFEXITED(status) ? "exit status" : "signal",
                       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                       said[0] ? "; valgrind: " : "", said);
            rc = -1;
        }
    }
    for (size_t i = 0; i < n_args; i++)
        free(args[i]);
    free(args);
    free(argv);
    return rc;
}

void bench__callgrind_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char path[1024];
            bench__fmt(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}
