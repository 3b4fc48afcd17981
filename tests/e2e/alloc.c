/* SPDX-License-Identifier: MIT */
/* alloc.c: bodies with a known number of allocator calls, for the end-to-end checks of the
 * "alloc" source (run_alloc.py): three mallocs and three frees, nothing, an allocation in the
 * untimed setup, realloc(NULL, n) and free(NULL), a helper thread's allocations, a body that
 * crashes in its counting pass, a workload whose window hands work to another thread, and a
 * body whose count an environment variable sets (two "builds" for compare --metric). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <bench/shim.h>

#include "util/alloc_interposer.h"

BENCHMARK(three_mallocs)
{
    BENCH_ITER(b)
    {
        void *p = malloc(16), *q = malloc(32), *r = malloc(64);
        bench_do_not_optimize(p);
        bench_do_not_optimize(q);
        bench_do_not_optimize(r);
        free(p);
        free(q);
        free(r);
    }
}

BENCHMARK(no_alloc)
{
    unsigned x = 1;
    BENCH_ITER(b)
    {
        x = x * 3u + 1u;
        bench_do_not_optimize(x);
    }
}

BENCHMARK(setup_allocates)
{
    char *setup = malloc(4096); /* untimed setup: never counted */
    BENCH_CHECK(setup != NULL);
    memset(setup, 1, 4096);
    BENCH_ITER(b)
    {
        void *p = malloc(8);
        bench_do_not_optimize(p);
        free(p);
    }
    free(setup);
}

/* 1 + $E2E_ALLOC_EXTRA mallocs per iteration: two builds that differ by their allocations
 * (compare --metric=allocs in run_alloc.py; the variable is read in the untimed setup). */
BENCHMARK(env_allocs)
{
    const char *extra = getenv("E2E_ALLOC_EXTRA");
    int n = 1 + (extra ? atoi(extra) : 0);
    BENCH_CHECK(n >= 1 && n <= 8);
    BENCH_ITER(b)
    {
        void *p[8];
        for (int i = 0; i < n; i++) {
            p[i] = malloc(24);
            bench_do_not_optimize(p[i]);
        }
        for (int i = 0; i < n; i++)
            free(p[i]);
    }
}

/* volatile: the compiler would make realloc(NULL, n) a malloc and drop free(NULL) */
static void *volatile null_pointer;

BENCHMARK(realloc_null)
{
    BENCH_ITER(b)
    {
        void *p = realloc(null_pointer, 40); /* an alloc */
        bench_do_not_optimize(p);
        free(null_pointer); /* frees nothing: not counted */
        free(p);
    }
}

/* ---- another thread ------------------------------------------------------------------------ */

struct helper {
    pthread_t thread;
    sem_t go, done;
    int blocks; /* the helper's mallocs per request */
    volatile int stop;
};

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    for (;;) {
        sem_wait(&h->go);
        if (h->stop)
            return NULL;
        for (int i = 0; i < h->blocks; i++) {
            void *p = malloc(100);
            bench_do_not_optimize(p);
            free(p);
        }
        sem_post(&h->done);
    }
}

static void helper_start(struct helper *h, int blocks)
{
    h->blocks = blocks;
    h->stop = 0;
    sem_init(&h->go, 0, 0);
    sem_init(&h->done, 0, 0);
    BENCH_CHECK(pthread_create(&h->thread, NULL, helper_main, h) == 0);
}

static void helper_request(struct helper *h)
{
    sem_post(&h->go);
    sem_wait(&h->done);
}

static void helper_stop(struct helper *h)
{
    h->stop = 1;
    sem_post(&h->go);
    pthread_join(h->thread, NULL);
    sem_destroy(&h->go);
    sem_destroy(&h->done);
}

/* Each iteration: one malloc of its own, two of the helper thread's (not the body's thread). */
BENCHMARK(other_thread)
{
    struct helper h;
    helper_start(&h, 2);
    BENCH_ITER(b)
    {
        void *p = malloc(16);
        bench_do_not_optimize(p);
        free(p);
        helper_request(&h);
    }
    helper_stop(&h);
}

/* The window: one malloc of 10 bytes of its own, five of 100 by the helper thread. */
WORKLOAD(threads)
{
    struct helper h;
    helper_start(&h, 5);
    WORKLOAD_WINDOW(b, "handoff")
    {
        void *p = malloc(10);
        bench_do_not_optimize(p);
        free(p);
        helper_request(&h);
    }
    helper_stop(&h);
}

/* ---- a body that dies in its counting pass ----------------------------------------------------
 */

static bool counting_now(void)
{
    void *sym = dlsym(RTLD_DEFAULT, BENCH__ALLOC_INTERPOSER_SYMBOL);
    if (!sym)
        return false;
    bench__alloc_interposer_fn get;
    memcpy(&get, &sym, sizeof get);
    return get()->thread_counting();
}

BENCHMARK(zz_crashes_counting)
{
    BENCH_ITER(b)
    {
        void *p = malloc(16);
        bench_do_not_optimize(p);
        free(p);
        if (counting_now())
            raise(SIGSEGV); /* timed fine, dies only while its allocations are counted */
    }
}

BENCH_MAIN()
