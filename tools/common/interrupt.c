/* SPDX-License-Identifier: MIT */
/* interrupt.c: owns the `libbench` tool's stop signals: the handler that kills the running
 * child's process group, the cleanup of the command that was interrupted, and the re-raise. It
 * must not spawn or wait for anything (spawn.c and compare/exec.c do). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"

static volatile sig_atomic_t child_group; /* the running child's process group, 0 = none */
static volatile sig_atomic_t interrupted; /* the signal that asked us to stop, 0 = none */
static void (*interrupt_cleanup)(void *);
static void *interrupt_data;
static bool handlers_installed;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])

static void on_stop_signal(int sig)
{
    int saved = errno;
    interrupted = sig;
    if (child_group > 0)
        kill(-(pid_t)child_group, SIGKILL);
    errno = saved;
}

void tool_interrupt_install(void)
{
    if (handlers_installed)
        return;
    handlers_installed = true;
    for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
        struct sigaction old;
        if (sigaction(stop_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue; /* ignored by whoever started us: stay ignored */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop_signal;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(stop_signals[i], &sa, NULL);
    }
}

void tool_interrupt_on(void (*cleanup)(void *), void *data)
{
    interrupt_cleanup = cleanup;
    interrupt_data = data;
}

void tool_interrupt_signals(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < N_STOP_SIGNALS; i++)
        sigaddset(set, stop_signals[i]);
}

void tool_interrupt_watch(pid_t pgid)
{
    child_group = pgid;
    if (interrupted) /* a signal before the group was known found no group to kill */
        kill(-pgid, SIGKILL);
}

void tool_interrupt_unwatch(void)
{
    child_group = 0;
}

void tool_interrupt_honour(void)
{
    int sig = interrupted;
    if (!sig)
        return;
    if (interrupt_cleanup)
        interrupt_cleanup(interrupt_data);
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(128 + sig);
}
