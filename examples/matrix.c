/* SPDX-License-Identifier: MIT */
/* matrix.c: a matrix benchmark with bench_case: two hash functions × three input sizes,
 * per-call state set up outside the timed call, a result check in `after`, and a bytes-
 * per-second metric. Try `./matrix --bench --group-by=size` and `--sort-by=B/s`. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bench/shim.h>

typedef uint32_t (*hash_fn)(const unsigned char *data, size_t len);

static uint32_t fnv1a(const unsigned char *p, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static uint32_t djb2(const unsigned char *p, size_t len)
{
    uint32_t h = 5381;
    for (size_t i = 0; i < len; i++)
        h = h * 33 + p[i];
    return h;
}

/* The state each case owns (bench_case copies it): inputs, the function, the result. */
struct hash_case {
    hash_fn fn;
    size_t len;
    unsigned char *buf; /* allocated by setup, freed by teardown */
    uint32_t result;
    uint32_t expected;
};

static void hash_setup(void *state)
{
    struct hash_case *c = state;
    c->buf = malloc(c->len);
    BENCH_CHECK(c->buf != NULL); /* a failed check in a hook becomes an error row */
    for (size_t i = 0; i < c->len; i++)
        c->buf[i] = (unsigned char)(i * 7);
    c->expected = c->fn(c->buf, c->len);
}

static void hash_timed(void *state)
{
    struct hash_case *c = state;
    c->result = c->fn(c->buf, c->len);
    bench_do_not_optimize(c->result);
}

static int hash_after(void *state, const char **message)
{
    struct hash_case *c = state;
    if (c->result != c->expected) {
        *message = "hash changed between calls";
        return 1;
    }
    return 0;
}

static void hash_teardown(void *state)
{
    struct hash_case *c = state;
    free(c->buf);
}

BENCHMARK(hash_matrix)
{
    static const struct {
        const char *name;
        hash_fn fn;
    } impls[] = {{"fnv1a", fnv1a}, {"djb2", djb2}};
    static const size_t sizes[] = {64, 1024, 16384};
    static const char *const size_names[] = {"64", "1024", "16384"};
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            struct hash_case state = {.fn = impls[i].fn, .len = sizes[s]};
            struct bench_label labels[] = {{"size", size_names[s]}};
            struct bench_metric metrics[] = {{"B", (double)sizes[s], BENCH_RATE}};
            bench_case(b, BENCH_CASE_DEF(.name = impls[i].name, .labels = labels, .n_labels = 1,
                                         .state = &state, .state_size = sizeof state,
                                         .setup = hash_setup, .timed = hash_timed,
                                         .after = hash_after, .teardown = hash_teardown,
                                         .metrics = metrics, .n_metrics = 1));
        }
}

BENCH_MAIN()
