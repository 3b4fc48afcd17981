/* SPDX-License-Identifier: MIT */
/* context.h: the running test's handle (bench_t) and how a check failure, a bench_fail or a
 * bench_skip leaves the body: through a worker's result pipe and _exit, or by longjmp back to an
 * in-process runner. The measuring layers hang their state on it; it does not decide what runs. */
#ifndef BENCH_SUITE_CONTEXT_H
#define BENCH_SUITE_CONTEXT_H

#include <stddef.h>
#include <sys/types.h>

#include <bench/bench.h>

#include "registry.h"

enum bench__outcome { BENCH__PASSED = 0, BENCH__FAILED = 1, BENCH__SKIPPED = 2 };

struct bench__measure; /* bench/measuring/: a BENCHMARK body under --bench */
struct bench__wl;      /* workload/: a WORKLOAD under --bench */

struct bench_ctx {
    const struct bench__entry *entry;
    struct bench__measure *measure; /* NULL outside --bench: loops run once */
    struct bench__wl *workload;     /* a WORKLOAD under --bench: windows measure */
    int result_fd;
    void *escape; /* jmp_buf * when in-process */
    /* the one thread that may jump to escape (0 = any); from another, the outcome goes to
     * result_fd and the process exits, as a pool worker's does */
    pid_t escape_tid;
    enum bench__outcome outcome;
    char message[1024];
};

BENCH__HIDDEN extern struct bench_ctx *bench__current;
/* Leave the body with an outcome (pool worker: report and _exit; in-process: longjmp). */
BENCH__HIDDEN BENCH_NORETURN void bench__finish(struct bench_ctx *ctx, enum bench__outcome outcome);
/* Serialise an outcome for the result pipe and parse it back. */
BENCH__HIDDEN size_t bench__outcome_encode(enum bench__outcome outcome, const char *message,
                                           char *buf, size_t size);
BENCH__HIDDEN int bench__outcome_decode(const char *buf, size_t len, enum bench__outcome *outcome,
                                        char *message, size_t message_size);

#endif /* BENCH_SUITE_CONTEXT_H */
