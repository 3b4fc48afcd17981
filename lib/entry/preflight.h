/* SPDX-License-Identifier: MIT */
/* preflight.h: what a run checks before anything runs (filter, --metrics, --bench-json). */
#ifndef BENCH_ENTRY_PREFLIGHT_H
#define BENCH_ENTRY_PREFLIGHT_H

#include <stdio.h>

#include "../suite/registry.h"

/* On the loaded, unfiltered suite: 0 when the run may start, or 2 (the exit status) after one or
 * more "error: " lines on err. Notes about --metrics selectors may go to err either way. */
BENCH__HIDDEN int bench__preflight(const struct bench__config *cfg,
                                   const struct bench__suite *suite, FILE *err);

#endif /* BENCH_ENTRY_PREFLIGHT_H */
