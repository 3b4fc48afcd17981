/* SPDX-License-Identifier: MIT */
/* process_probe.h: facts about this process that decide whether a source can count in it, shared
 * by the sources that replace or re-run it (alloc, callgrind): a sanitizer's runtime, a static
 * binary, a run under Valgrind. */
#ifndef BENCH_SOURCES_PROCESS_PROBE_H
#define BENCH_SOURCES_PROCESS_PROBE_H

#include <stdbool.h>

#include "../util/hidden.h"

/* The sanitizer whose runtime is in this process ("AddressSanitizer", ...), found by its init
 * symbol; NULL when none. */
BENCH__HIDDEN const char *bench__sanitizer_present(void);
/* No dynamic loader: a static binary (AT_BASE is the loader's address). */
BENCH__HIDDEN bool bench__static_binary(void);
/* Valgrind's core preloads its vgpreload_* objects through LD_PRELOAD. */
BENCH__HIDDEN bool bench__under_valgrind(void);

#endif /* BENCH_SOURCES_PROCESS_PROBE_H */
