/* SPDX-License-Identifier: MIT */
/* signal_name.h: a signal's abbreviation ("SEGV" for SIGSEGV), as glibc's sigabbrev_np gives it,
 * on every platform (docs/reference/platforms.md). */
#ifndef BENCH_UTIL_SIGNAL_NAME_H
#define BENCH_UTIL_SIGNAL_NAME_H

#include "hidden.h"

/* The name without "SIG", or NULL for a number that is no known signal. */
BENCH__HIDDEN const char *bench__signal_abbrev(int sig);

#endif /* BENCH_UTIL_SIGNAL_NAME_H */
