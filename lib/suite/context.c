/* SPDX-License-Identifier: MIT */
/* context.c: owns the running test's handle (bench_t) and how a check failure, a
 * bench_fail or a bench_skip leaves the body: through the worker's result pipe and
 * _exit, or by longjmp to an in-process runner. It does not decide what runs. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/text.h"
#include "../util/thread.h"
#include "context.h"

struct bench_ctx *bench__current;

size_t bench__outcome_encode(enum bench__outcome outcome, const char *message, char *buf,
                             size_t size)
{
    /* by hand, not snprintf: a test's process runs this last, and every page of code it runs
     * is a page fault in it (docs/explanation/performance.md, "Test mode") */
    static const char tag[] = {'P', 'F', 'S'};
    if (size == 0)
        return 0;
    if (size == 1) {
        buf[0] = '\0';
        return 0;
    }
    size_t n = message ? strnlen(message, size - 2) : 0; /* what fits after the tag */
    buf[0] = tag[outcome];
    if (n)
        memcpy(buf + 1, message, n);
    buf[1 + n] = '\0';
    return 1 + n;
}

int bench__outcome_decode(const char *buf, size_t len, enum bench__outcome *outcome, char *message,
                          size_t message_size)
{
    if (len == 0)
        return BENCH_EINVAL;
    switch (buf[0]) {
    case 'P': *outcome = BENCH__PASSED; break;
    case 'F': *outcome = BENCH__FAILED; break;
    case 'S': *outcome = BENCH__SKIPPED; break;
    default: return BENCH_EINVAL;
    }
    size_t n = len - 1 < message_size - 1 ? len - 1 : message_size - 1;
    memcpy(message, buf + 1, n);
    message[n] = '\0';
    return 0;
}

void bench__finish(struct bench_ctx *ctx, enum bench__outcome outcome)
{
    ctx->outcome = outcome;
    if (ctx->escape && (ctx->escape_tid == 0 || ctx->escape_tid == bench__thread_id()))
        longjmp(*(jmp_buf *)ctx->escape, 1);
    char buf[sizeof ctx->message + 1];
    size_t n = bench__outcome_encode(outcome, ctx->message, buf, sizeof buf);
    fflush(NULL);
    if (write(ctx->result_fd, buf, n) < 0) {
        /* the parent is gone or the pipe broke: the exit status still tells */
    }
    _exit(outcome == BENCH__FAILED ? 1 : 0);
}

/* Outside any running test (a benchmark body called by a foreign runner, a check in a
 * constructor) there is nobody to report to: say it on stderr and abort. */
BENCH_NORETURN static void orphan(const char *what, const char *message)
{
    fflush(stdout);
    fprintf(stderr, "libbench: %s outside a running test: %s\n", what, message);
    abort();
}

void bench_check_failed(const char *file, int line, const char *expr)
{
    struct bench_ctx *ctx = bench__current;
    char message[sizeof ctx->message];
    bench__fmt(message, sizeof message, "%s:%d: check failed: %s", file, line, expr);
    if (!ctx)
        orphan("BENCH_CHECK failed", message);
    memcpy(ctx->message, message, sizeof message);
    bench__finish(ctx, BENCH__FAILED);
}

#define MESSAGE_MAX sizeof(((struct bench_ctx *)0)->message)

/* bench_fail and bench_skip: leave the body with the outcome and the formatted message. */
BENCH_NORETURN static void leave(bench_t *b, enum bench__outcome outcome, const char *what,
                                 const char *message)
{
    struct bench_ctx *ctx = b ? b : bench__current;
    if (!ctx)
        orphan(what, message);
    memcpy(ctx->message, message, sizeof ctx->message);
    bench__finish(ctx, outcome);
}

void bench_fail(bench_t *b, const char *fmt, ...)
{
    char message[MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(message, sizeof message, fmt ? fmt : "", ap);
    va_end(ap);
    leave(b, BENCH__FAILED, "bench_fail", message);
}

void bench_skip(bench_t *b, const char *fmt, ...)
{
    char message[MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(message, sizeof message, fmt ? fmt : "", ap);
    va_end(ap);
    leave(b, BENCH__SKIPPED, "bench_skip", message);
}
