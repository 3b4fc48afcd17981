/* SPDX-License-Identifier: MIT */
/* test_alloc.c: the "alloc" source: the reasons of its absences (a table of probes), its probe
 * through the os seam (the interposer not found, a sanitizer's runtime present), and, with the
 * real interposer libbench-alloc.so this test links, exact counts per pass and per window: only
 * inside brackets, realloc(NULL, n) and free(NULL), another thread ignored per thread and counted
 * with all-threads, NaN for an unbalanced pass. In a sanitizer build the real-interposer tests
 * check the absence and its reason instead. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "platform/os.h"
#include "sources/alloc.h"
#include "util/alloc_interposer.h"
#include "sources/source.h"

#include <dlfcn.h>
#include <math.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

static const struct bench__source_ops *const ops = &bench__source_alloc;
static void *volatile sink; /* the compiler must keep every allocation */
/* volatile: the compiler would make realloc(NULL, n) a malloc and drop free(NULL) */
static void *volatile null_pointer;

/* ---- the reasons ---------------------------------------------------------------------------- */

static void test_each_probe_has_its_reason(void **state)
{
    (void)state;
    const struct bench__alloc_probe ok = {
        .found = true, .version_ok = true, .sees_allocations = true};
    static const struct {
        const char *what;
        struct bench__alloc_probe p;
        const char *reason; /* NULL: counting is possible */
    } table[] = {
        {"all found", {.found = true, .version_ok = true, .sees_allocations = true}, NULL},
        {"asan",
         {.sanitizer = "AddressSanitizer", .found = true, .version_ok = true},
         "AddressSanitizer replaces the allocator"},
        {"valgrind", {.valgrind = true}, "running under Valgrind, which replaces the allocator"},
        {"static", {.static_binary = true}, "a static binary"},
        {"not loaded", {0}, "libbench-alloc.so is not loaded in this process"},
        {"other version", {.found = true}, "of another version"},
        {"broken",
         {.found = true, .version_ok = true, .broken = "no next malloc"},
         "cannot forward: no next malloc"},
        {"own malloc",
         {.found = true, .version_ok = true},
         "has an allocator of its own, which the interposer cannot see"},
    };
    char why[BENCH__REASON_MAX];
    assert_false(bench__alloc_absence(&ok, why, sizeof why));
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        bool absent = bench__alloc_absence(&table[i].p, why, sizeof why);
        if (!table[i].reason) {
            assert_false(absent);
            assert_string_equal(why, "");
            continue;
        }
        if (!absent || !strstr(why, table[i].reason))
            fail_msg("%s: %s, reason '%s', want '%s'", table[i].what, absent ? "absent" : "present",
                     why, table[i].reason);
    }
}

/* ---- the probe through the seam -------------------------------------------------------------- */

static const char *hidden_name;  /* dlsym finds nothing by this name */
static const char *planted_name; /* ...and something by this one */
static void *fake_dlsym(void *handle, const char *name)
{
    if (hidden_name && strcmp(name, hidden_name) == 0)
        return NULL;
    if (planted_name && strcmp(name, planted_name) == 0)
        return (void *)&planted_name;
    return dlsym(handle, name);
}

static void *open_source(const char *const *values, size_t n, struct bench__caps *caps)
{
    struct bench__source_request req = {
        .flag = true, .flag_values = (char *const *)values, .n_flag_values = n};
    char status[128];
    memset(caps, 0, sizeof *caps);
    return ops->open(&req, caps, status, sizeof status);
}

static const char *counting_reason(const struct bench__caps *caps)
{
    const char *why = bench__caps_reason(caps, BENCH__CAP_COUNTING);
    return why ? why : "";
}

static void test_no_interposer_is_absent_with_its_reason(void **state)
{
    (void)state;
    bench__os.dlsym = fake_dlsym;
    hidden_name = BENCH__ALLOC_INTERPOSER_SYMBOL;
    struct bench__caps caps;
    void *s = open_source(NULL, 0, &caps);
    bench__os_reset();
    hidden_name = NULL;
    assert_null(s);
    assert_false(caps.present & (1u << BENCH__CAP_COUNTING));
    const char *why = counting_reason(&caps);
    if (!strstr(why, "libbench-alloc.so is not loaded") && !strstr(why, "replaces the allocator"))
        fail_msg("reason: %s", why);
}

static void test_a_sanitizer_runtime_is_absent_with_its_reason(void **state)
{
    (void)state;
    bench__os.dlsym = fake_dlsym;
    planted_name = "__asan_init";
    struct bench__caps caps;
    void *s = open_source(NULL, 0, &caps);
    bench__os_reset();
    planted_name = NULL;
    assert_null(s);
    assert_non_null(strstr(counting_reason(&caps), "AddressSanitizer replaces the allocator"));
}

/* ---- the real interposer -------------------------------------------------------------------- */

/* Open the source on the real interposer; NULL (and the absence checked) in a sanitizer build. */
static void *open_real(const char *scope)
{
    const char *values[1] = {scope};
    struct bench__caps caps;
    void *s = open_source(values, scope ? 1 : 0, &caps);
    if (!s) {
        const char *why = counting_reason(&caps);
        if (!strstr(why, "Sanitizer replaces the allocator") &&
            !strstr(why, "does not reach libbench-alloc.so"))
            fail_msg("the source did not open: %s", why);
    }
    return s;
}

static double values[3];
static bool estimate[3];

static void pass_end(void *s, uint64_t iterations, uint64_t brackets)
{
    struct bench__counts out = {.values = values, .estimate = estimate, .scale = NAN};
    for (size_t k = 0; k < 3; k++)
        values[k] = NAN;
    ops->pass_end(s, iterations, brackets, &out);
}

#define assert_counts(a, f, b)                                                                     \
    do {                                                                                           \
        if (values[0] != (a) || values[1] != (f) || values[2] != (b))                              \
            fail_msg("counts %g %g %g, want %g %g %g", values[0], values[1], values[2],            \
                     (double)(a), (double)(f), (double)(b));                                       \
    } while (0)

static void three_mallocs(void)
{
    void *p = malloc(16), *q = malloc(32), *r = malloc(64);
    sink = p;
    sink = q;
    sink = r;
    free(p);
    free(q);
    free(r);
}

static void test_three_mallocs_per_iteration_only_inside_brackets(void **state)
{
    (void)state;
    void *s = open_real(NULL);
    if (!s)
        return;
    ops->pass_begin(s);
    void *setup = malloc(1000); /* outside the brackets: never counted */
    sink = setup;
    for (int i = 0; i < 4; i++) {
        ops->bracket_begin(s);
        three_mallocs();
        three_mallocs();
        ops->bracket_end(s);
        free(sink = malloc(7)); /* between brackets */
    }
    free(setup);
    pass_end(s, 8, 4);
    assert_counts(3, 3, 112);
    /* nothing inside: a measured 0 */
    ops->pass_begin(s);
    ops->bracket_begin(s);
    ops->bracket_end(s);
    pass_end(s, 1, 1);
    assert_counts(0, 0, 0);
    ops->close(s);
}

static void test_each_allocator_counts_once(void **state)
{
    (void)state;
    void *s = open_real(NULL);
    if (!s)
        return;
    ops->pass_begin(s);
    ops->bracket_begin(s);
    /* every block goes to the volatile sink: clang elides an allocation that never escapes */
    void *p = realloc(null_pointer, 40); /* an alloc of 40 */
    sink = p;
    free(null_pointer);  /* frees nothing */
    p = realloc(p, 100); /* a realloc counts once: an alloc of 100 */
    sink = p;
    void *c = calloc(3, 10); /* 30 */
    void *m = NULL;
    int rc = posix_memalign(&m, 64, 64); /* 64 */
    sink = m;
    void *a = aligned_alloc(64, 128); /* 128 */
    void *ma = memalign(32, 32);      /* 32 */
    sink = c;
    sink = a;
    sink = ma;
    free(p);
    free(c);
    free(m);
    free(a);
    free(ma);
    ops->bracket_end(s);
    pass_end(s, 1, 1);
    assert_int_equal(rc, 0);
    assert_counts(6, 5, 40 + 100 + 30 + 64 + 128 + 32);
    ops->close(s);
}

static void test_an_unbalanced_pass_is_not_measured(void **state)
{
    (void)state;
    void *s = open_real(NULL);
    if (!s)
        return;
    ops->pass_begin(s);
    pass_end(s, 10, 0); /* no bracket */
    assert_true(isnan(values[0]) && isnan(values[1]) && isnan(values[2]));
    ops->pass_begin(s);
    ops->bracket_begin(s);
    three_mallocs();
    ops->bracket_end(s);
    pass_end(s, 1, 2); /* a bracket that never closed */
    assert_true(isnan(values[0]) && isnan(values[1]) && isnan(values[2]));
    ops->close(s);
}

/* A thread started before the window, which makes five blocks of 100 when asked. */
static sem_t go, done;

static void *other_thread(void *arg)
{
    (void)arg;
    sem_wait(&go);
    for (int i = 0; i < 5; i++)
        free(sink = malloc(100));
    sem_post(&done);
    return NULL;
}

/* One malloc of 10 here, five of 100 on the other thread, inside one window. */
static void window(void *s, double out[3])
{
    unsigned char open[64], close[64];
    assert_true(ops->edge_size <= sizeof open);
    sem_init(&go, 0, 0);
    sem_init(&done, 0, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
    ops->run_begin(s);
    ops->edge_read(s, open);
    free(sink = malloc(10));
    sem_post(&go);
    sem_wait(&done);
    ops->edge_read(s, close);
    ops->run_end(s);
    pthread_join(t, NULL);
    sem_destroy(&go);
    sem_destroy(&done);
    struct bench__edge_shared shared[2] = {{0}};
    struct bench__counts counts = {.values = out, .estimate = estimate, .scale = NAN};
    ops->window_counts(s, open, close, shared, &counts);
}

static void test_a_window_counts_its_thread_or_every_thread(void **state)
{
    (void)state;
    void *s = open_real(NULL);
    if (!s)
        return;
    double w[3];
    window(s, w);
    ops->close(s);
    if (w[0] != 1 || w[1] != 1 || w[2] != 10)
        fail_msg("this thread's window: %g %g %g, want 1 1 10", w[0], w[1], w[2]);
    s = open_real("all-threads");
    window(s, w);
    ops->close(s);
    if (w[0] != 6 || w[1] != 6 || w[2] != 510)
        fail_msg("every thread's window: %g %g %g, want 6 6 510", w[0], w[1], w[2]);
}

static void test_a_bad_scope_is_refused(void **state)
{
    (void)state;
    char err[128];
    assert_int_equal(ops->flag_value_check("all-threads", err, sizeof err), 0);
    assert_int_equal(ops->flag_value_check("thread", err, sizeof err), 0);
    assert_int_equal(ops->flag_value_check("every", err, sizeof err), -1);
    assert_string_equal(err, "'every' is not a scope (thread or all-threads)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_probe_has_its_reason),
        cmocka_unit_test(test_no_interposer_is_absent_with_its_reason),
        cmocka_unit_test(test_a_sanitizer_runtime_is_absent_with_its_reason),
        cmocka_unit_test(test_three_mallocs_per_iteration_only_inside_brackets),
        cmocka_unit_test(test_each_allocator_counts_once),
        cmocka_unit_test(test_an_unbalanced_pass_is_not_measured),
        cmocka_unit_test(test_a_window_counts_its_thread_or_every_thread),
        cmocka_unit_test(test_a_bad_scope_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
