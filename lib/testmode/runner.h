/* SPDX-License-Identifier: MIT */
/* runner.h: test mode: every BENCH_TEST in its own worker process (or, with --isolate=worker, in
 * long-lived ones), and the --list output. */
#ifndef BENCH_TESTMODE_RUNNER_H
#define BENCH_TESTMODE_RUNNER_H

#include <stdio.h>

#include "../suite/registry.h"

BENCH__HIDDEN int bench__run_tests(const struct bench__config *cfg,
                                   const struct bench__suite *suite);
BENCH__HIDDEN int bench__list_tests(const struct bench__suite *suite, FILE *out);

#endif /* BENCH_TESTMODE_RUNNER_H */
