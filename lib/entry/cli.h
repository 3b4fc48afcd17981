/* SPDX-License-Identifier: MIT */
/* cli.h: the command line of a test binary, parsed once into the run configuration. */
#ifndef BENCH_ENTRY_CLI_H
#define BENCH_ENTRY_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../suite/config.h"

/* Parse argv into *cfg. On a usage error returns BENCH_EINVAL and writes the message (without
 * the "error: " prefix and the "(see --help)" suffix) into err. */
BENCH__HIDDEN int bench__config_parse(struct bench__config *cfg, int argc, char **argv, char *err,
                                      size_t err_size);
BENCH__HIDDEN void bench__config_free(struct bench__config *cfg);
/* True when argv holds a flag that selects bench mode (for bench_dispatch). */
BENCH__HIDDEN bool bench__argv_wants_bench(int argc, char **argv);
BENCH__HIDDEN void bench__print_usage(FILE *out, const char *argv0);

#endif /* BENCH_ENTRY_CLI_H */
