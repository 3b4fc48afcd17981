/* SPDX-License-Identifier: MIT */
/* smoke.c: owns bench_smoke: one registered BENCHMARK or WORKLOAD body run once, in this
 * process, as an ordinary test (for another framework's tests). It measures nothing. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "../suite/context.h"

int bench_smoke(const char *name)
{
    struct bench__suite suite;
    char err[BENCH__ERROR_MAX];
    if (!name)
        return BENCH_EINVAL;
    int loaded = bench__suite_load(&suite, NULL, err, sizeof err);
    if (loaded != 0) { /* the registry itself is broken: say why, return its code */
        fprintf(stderr, "bench_smoke: %s\n", err);
        return loaded;
    }
    const struct bench__entry *found = NULL;
    int matches = 0;
    for (size_t i = 0; i < suite.count; i++) {
        const struct bench__entry *e = &suite.entries[i];
        if (e->test->kind == BENCH_KIND_TEST)
            continue; /* plain tests belong to the runner */
        if (!strcmp(e->full_name, name) || !strcmp(e->test->name, name)) {
            found = e;
            matches++;
        }
    }
    int rc = matches == 0 ? BENCH_ENOENT : matches > 1 ? BENCH_EINVAL : 0;
    if (rc == 0) {
        jmp_buf escape;
        struct bench_ctx ctx = {.entry = found, .result_fd = -1, .escape = &escape};
        struct bench_ctx *saved = bench__current;
        bench__current = &ctx;
        if (setjmp(escape) == 0) {
            found->test->fn(&ctx);
        } else if (ctx.outcome == BENCH__SKIPPED) {
            rc = BENCH_STATUS_SKIPPED;
        } else {
            fprintf(stderr, "%s: %s\n", found->full_name, ctx.message);
            rc = BENCH_STATUS_FAILED;
        }
        bench__current = saved;
    }
    bench__suite_free(&suite);
    return rc;
}
