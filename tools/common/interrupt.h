/* SPDX-License-Identifier: MIT */
/* interrupt.h: what every command of the `libbench` tool does when it is asked to stop
 * (SIGINT, SIGTERM, SIGHUP) while a child of it runs: the child's whole process group is killed
 * at once, and once the child is reaped the command's cleanup runs and the command dies by the
 * same signal. One handler and one state for the whole program, whichever command spawns. */
#ifndef LIBBENCH_TOOLS_COMMON_INTERRUPT_H
#define LIBBENCH_TOOLS_COMMON_INTERRUPT_H

#include <signal.h>
#include <sys/types.h>

/* Install the handlers (once; a signal ignored by whoever started us stays ignored). */
void tool_interrupt_install(void);
/* The cleanup run before an interrupted command re-raises the signal (NULL: none). */
void tool_interrupt_on(void (*cleanup)(void *), void *data);
/* The stop signals, to block them across a fork. */
void tool_interrupt_signals(sigset_t *set);
/* The child now running leads process group pgid: a stop kills it (and, when a stop came before
 * this call, it is killed now). */
void tool_interrupt_watch(pid_t pgid);
/* The child has been reaped: no group to kill any more. */
void tool_interrupt_unwatch(void);
/* When a stop was asked for: the cleanup, then death by that signal. Otherwise nothing. */
void tool_interrupt_honour(void);

#endif /* LIBBENCH_TOOLS_COMMON_INTERRUPT_H */
