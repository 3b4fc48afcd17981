/* SPDX-License-Identifier: MIT */
/* alloc.h: what the "alloc" source (alloc.c) found when it probed, and the pure rule that turns
 * it into the reason counting is absent, shared with its unit test. */
#ifndef BENCH_SOURCES_ALLOC_H
#define BENCH_SOURCES_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/hidden.h"

struct bench__alloc_probe {
    const char *sanitizer; /* "AddressSanitizer", ... when its runtime is in the process */
    bool valgrind;         /* running under Valgrind */
    bool static_binary;    /* no dynamic loader (getauxval(AT_BASE) is 0) */
    bool found;            /* the interposer's symbol was found */
    bool version_ok;       /* ...and its table is of this version */
    const char *broken;    /* ...and why it cannot forward, or NULL */
    bool sees_allocations; /* a malloc and a free of the library reached it */
};

/* The reason counting is absent, into why; false (why "") when the probe allows counting. */
BENCH__HIDDEN bool bench__alloc_absence(const struct bench__alloc_probe *p, char *why, size_t size);

#endif /* BENCH_SOURCES_ALLOC_H */
