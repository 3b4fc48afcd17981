/* SPDX-License-Identifier: MIT */
/* signal_name.c: owns bench__signal_abbrev (signal_name.h): glibc's sigabbrev_np on Linux, a
 * table of the POSIX signals elsewhere (sigabbrev_np is a GNU extension). It describes a signal,
 * never sends or handles one. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "signal_name.h"

#if BENCH__LINUX

const char *bench__signal_abbrev(int sig)
{
    return sigabbrev_np(sig);
}

#else

const char *bench__signal_abbrev(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGABRT, "ABRT"},     {SIGALRM, "ALRM"}, {SIGBUS, "BUS"},   {SIGCHLD, "CHLD"},
        {SIGCONT, "CONT"},     {SIGFPE, "FPE"},   {SIGHUP, "HUP"},   {SIGILL, "ILL"},
        {SIGINT, "INT"},       {SIGKILL, "KILL"}, {SIGPIPE, "PIPE"}, {SIGQUIT, "QUIT"},
        {SIGSEGV, "SEGV"},     {SIGSTOP, "STOP"}, {SIGTERM, "TERM"}, {SIGTSTP, "TSTP"},
        {SIGTTIN, "TTIN"},     {SIGTTOU, "TTOU"}, {SIGUSR1, "USR1"}, {SIGUSR2, "USR2"},
        {SIGPROF, "PROF"},     {SIGSYS, "SYS"},   {SIGTRAP, "TRAP"}, {SIGURG, "URG"},
        {SIGVTALRM, "VTALRM"}, {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return NULL;
}

#endif
