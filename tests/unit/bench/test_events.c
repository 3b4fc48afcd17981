/* SPDX-License-Identifier: MIT */
/* test_events.c: every event of lib/bench/events.def through the wire: encoded by the worker's
 * sink, decoded into a recording sink, it arrives with the same arguments, to the bit and to the
 * byte: NaN, infinities, -0 and the smallest denormal; texts with quotes, control bytes, invalid
 * UTF-8 and text that looks like the wire's own hex object; empty and absent parts; a profile
 * that only says why it is unavailable. The tests,
 * the recorder and the samples are made from events.def too, so a new event is tested as soon
 * as it is listed (a new field kind needs its sample and description here). Also: a line naming
 * an event with none of its fields decodes to that event (zeros, empty texts), and a line that is
 * no event calls nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/events.h"
#include "bench/wire/decode.h"
#include "bench/wire/encode.h"

/* ---- describing an event exactly ------------------------------------------------------------ */

static void text_bytes(FILE *f, const char *s)
{
    if (!s) {
        fputs("(null)", f);
        return;
    }
    fputc('<', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        fprintf(f, "%02x", *p);
    fputc('>', f);
}

/* A double to the bit: %a is exact; NaN has no payload on the wire. */
static void real_bits(FILE *f, double v)
{
    if (isnan(v))
        fputs("nan", f);
    else
        fprintf(f, "%a", v);
}

static void describe_size(FILE *f, const char *key, size_t v)
{
    fprintf(f, " %s=%zu", key, v);
}

static void describe_uint(FILE *f, const char *key, unsigned v)
{
    fprintf(f, " %s=%u", key, v);
}

static void describe_int(FILE *f, const char *key, int v)
{
    fprintf(f, " %s=%d", key, v);
}

static void describe_item(FILE *f, const char *key, enum bench__item v)
{
    fprintf(f, " %s=%d", key, (int)v);
}

static void describe_real(FILE *f, const char *key, double v)
{
    fprintf(f, " %s=", key);
    real_bits(f, v);
}

static void describe_text(FILE *f, const char *key, const char *s)
{
    fprintf(f, " %s=", key);
    text_bytes(f, s);
}

static void describe_strings(FILE *f, const char *key, const char *const *list, size_t n)
{
    fprintf(f, " %s=[%zu", key, n);
    for (size_t i = 0; i < n; i++)
        text_bytes(f, list[i]);
    fputc(']', f);
}

static void kv_bytes(FILE *f, const struct bench__kv *kv, size_t n)
{
    fprintf(f, "[%zu", n);
    for (size_t i = 0; i < n; i++) {
        text_bytes(f, kv[i].key);
        fputc('=', f);
        text_bytes(f, kv[i].value);
    }
    fputc(']', f);
}

static void describe_labels(FILE *f, const char *key, const struct bench__kv *kv, size_t n)
{
    fprintf(f, " %s=", key);
    kv_bytes(f, kv, n);
}

static void describe_columns(FILE *f, const char *key, const struct bench__column_wire *c, size_t n)
{
    fprintf(f, " %s=[%zu", key, n);
    for (size_t i = 0; i < n; i++) {
        text_bytes(f, c[i].name);
        text_bytes(f, c[i].header);
        text_bytes(f, c[i].source);
        fprintf(f, "%d,%d,%d;", (int)c[i].format, (int)c[i].cls, c[i].is_default);
    }
    fputc(']', f);
}

static void entries_bytes(FILE *f, const struct bench__profile_entry *e, size_t n)
{
    fprintf(f, "[%zu", n);
    for (size_t i = 0; i < n; i++) {
        text_bytes(f, e[i].name);
        text_bytes(f, e[i].module);
        fprintf(f, "%llu;", (unsigned long long)e[i].samples);
    }
    fputc(']', f);
}

static void profile_bytes(FILE *f, const struct bench__profile *p)
{
    if (!p) {
        fputs(" profile=none", f);
        return;
    }
    fputs(" profile=", f);
    if (p->unavailable) {
        text_bytes(f, p->unavailable);
        return;
    }
    text_bytes(f, p->event);
    real_bits(f, p->hz);
    real_bits(f, p->hz_reached);
    real_bits(f, p->running_ns);
    fprintf(f, "|%llu|%llu|%llu|%llu|%d|", (unsigned long long)p->iterations,
            (unsigned long long)p->samples, (unsigned long long)p->harness_samples,
            (unsigned long long)p->lost, p->chains);
    text_bytes(f, p->harness_unmeasured);
    text_bytes(f, p->unwinder);
    text_bytes(f, p->unwinder_reason);
    fprintf(f, "|%llu|", (unsigned long long)p->fp_samples);
    text_bytes(f, p->note);
    text_bytes(f, p->hot);
    entries_bytes(f, p->self, p->n_self);
    entries_bytes(f, p->inclusive, p->n_inclusive);
    entries_bytes(f, p->lines, p->n_lines);
    entries_bytes(f, p->unsymbolised, p->n_unsymbolised);
    fprintf(f, "|%llu|[%zu", (unsigned long long)p->n_unsymbolised_samples, p->n_stacks);
    for (size_t i = 0; i < p->n_stacks; i++) {
        text_bytes(f, p->stacks[i].frames);
        fprintf(f, "%llu;", (unsigned long long)p->stacks[i].samples);
    }
    fputc(']', f);
}

static void describe_row(FILE *f, const char *key, const struct bench__row *r)
{
    fprintf(f, " %s={", key);
    text_bytes(f, r->name);
    text_bytes(f, r->source);
    kv_bytes(f, r->labels, r->n_labels);
    fprintf(f, "|%d|%llu|%zu|", (int)r->state, (unsigned long long)r->iterations, r->samples);
    real_bits(f, r->stats.median);
    real_bits(f, r->stats.mad);
    real_bits(f, r->stats.min);
    real_bits(f, r->stats.max);
    fprintf(f, "|[%zu", r->n_cells);
    for (size_t i = 0; i < r->n_cells; i++) {
        text_bytes(f, r->cells[i].column->name); /* the decoder's columns carry only names */
        real_bits(f, r->cells[i].value);
        fprintf(f, ",%d,", r->cells[i].estimate);
        real_bits(f, r->cells[i].bracket);
        fprintf(f, ";");
    }
    fprintf(f, "]|%llu|", (unsigned long long)r->count_iterations);
    real_bits(f, r->contention);
    text_bytes(f, r->error);
    profile_bytes(f, r->profile);
    fputc('}', f);
}

static void describe_window(FILE *f, const char *key, const struct bench__window *w)
{
    fprintf(f, " %s={", key);
    text_bytes(f, w->name);
    fprintf(f, "|%u|%d|", (unsigned)w->reps, (int)w->state);
    text_bytes(f, w->error);
    const struct bench__window_time *t = &w->wall;
    const double parts[] = {t->wall_ns,          t->on_cpu_user_ns,
                            t->on_cpu_kernel_ns, t->offcpu_runqueue_ns,
                            t->offcpu_disk_ns,   t->offcpu_other_ns};
    for (size_t i = 0; i < 6; i++)
        real_bits(f, parts[i]);
    text_bytes(f, t->scope);
    fprintf(f, "|%d|", w->psi_present);
    for (size_t i = 0; i < 5; i++)
        real_bits(f, w->psi[i]);
    if (w->regime) {
        const struct bench__regime_stamp *r = w->regime;
        fprintf(f, "|regime %d %d %d ", r->present, (int)r->requested, (int)r->effective);
        real_bits(f, r->resident_before);
        real_bits(f, r->resident_after);
        text_bytes(f, r->note);
    } else {
        fputs("|no regime", f);
    }
    fprintf(f, "|[%zu", w->n_totals);
    for (size_t i = 0; i < w->n_totals; i++) {
        const struct bench__total_desc *d = w->totals[i].desc;
        text_bytes(f, d->object);
        text_bytes(f, d->nest);
        text_bytes(f, d->key);
        text_bytes(f, d->header);
        text_bytes(f, d->metric);
        fprintf(f, "%d,%d,", (int)d->format, d->is_default);
        real_bits(f, w->totals[i].value);
        fprintf(f, ",%d;", w->totals[i].estimate);
    }
    fprintf(f, "]|[%zu", w->n_groups);
    for (size_t i = 0; i < w->n_groups; i++) {
        text_bytes(f, w->groups[i].object);
        fprintf(f, "%d,", w->groups[i].has_scale);
        real_bits(f, w->groups[i].scale);
        fprintf(f, ",%d;", w->groups[i].user_only);
    }
    fputc(']', f);
    text_bytes(f, w->note);
    fputc('}', f);
}

/* The recording sink: each event one line of its exact description. */
#define BENCH__F(kind, f) describe_##kind(out, #f, BENCH__VALUES_##kind(a, f));
#define BENCH__EVENT(name, fields)                                                                 \
    static void record_##name(void *ctx, const struct bench__event_##name *a)                      \
    {                                                                                              \
        FILE *out = ctx;                                                                           \
        fputs(#name, out);                                                                         \
        (void)a;                                                                                   \
        fields fputc('\n', out);                                                                   \
    }
#include "bench/events.def"
#undef BENCH__EVENT
#undef BENCH__F

static struct bench__sink recorder(FILE *f)
{
    return (struct bench__sink){
        .ctx = f,
#define BENCH__EVENT(name, fields) .name = record_##name,
#include "bench/events.def"
#undef BENCH__EVENT
    };
}

/* ---- samples: ordinary (variants 0, 3), hostile and extreme (1), empty or absent (2) ------- */

#define VARIANTS 4 /* 3: ordinary, a profile that says why it is unavailable */

static const char *const hostile_texts[] = {
    "quote \" backslash \\ slash / newline \n tab \t return \r",
    "\x01\x02\x1e\x1f\x7f",
    "M\xfcnchen",                                         /* Latin-1: not UTF-8 */
    "\xff\xfe\xc3",                                       /* no UTF-8 at all, and a cut sequence */
    "\xed\xa0\x80 surrogate",                             /* a UTF-16 surrogate written as UTF-8 */
    "r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80", /* UTF-8, up to 4 bytes */
    "{\"hex\":\"41\"}",                                   /* the wire's own hex object, as text */
    "inf",
    "-inf",
    "null",
};
#define N_HOSTILE (sizeof hostile_texts / sizeof *hostile_texts)

static const double extreme_reals[] = {
    NAN,      INFINITY,  -INFINITY, -0.0,   4.9406564584124654e-324, DBL_MAX,
    -DBL_MAX, 1.0 / 3.0, 0.1,       1e-300, 2.2250738585072014e-308,
};
#define N_EXTREME (sizeof extreme_reals / sizeof *extreme_reals)

/* Every allocation of one sample event, freed after it. */
static void *kept[4096];
static size_t n_kept;
static unsigned pick; /* varies the values within one event */

static void *keep(void *p)
{
    assert_non_null(p);
    assert_true(n_kept < sizeof kept / sizeof *kept);
    kept[n_kept++] = p;
    return p;
}

static void *zalloc(size_t n, size_t size)
{
    return keep(calloc(n ? n : 1, size));
}

static void release_kept(void)
{
    while (n_kept)
        free(kept[--n_kept]);
}

static const char *a_text(unsigned variant)
{
    pick++;
    if (variant == 1)
        return hostile_texts[pick % N_HOSTILE];
    if (variant == 2)
        return "";
    char *s = zalloc(32, 1);
    snprintf(s, 32, "text %u", pick);
    return s;
}

static double a_real(unsigned variant)
{
    pick++;
    if (variant == 1)
        return extreme_reals[pick % N_EXTREME];
    return variant == 2 ? 0.0 : 1.5 * pick;
}

static uint64_t a_count(unsigned variant)
{
    pick++;
    return variant == 1 ? (pick % 2 ? UINT64_MAX : (uint64_t)1 << 40) : variant == 2 ? 0 : pick;
}

static size_t a_length(unsigned variant)
{
    return variant == 2 ? 0 : variant == 1 ? 4 : 2;
}

static void sample_size(size_t *v, unsigned variant)
{
    *v = (size_t)a_count(variant);
}

static void sample_uint(unsigned *v, unsigned variant)
{
    pick++;
    *v = variant == 1 ? UINT_MAX : variant == 2 ? 0 : pick;
}

static void sample_int(int *v, unsigned variant)
{
    pick++;
    *v = variant == 1 ? (pick % 2 ? INT_MIN : INT_MAX) : variant == 2 ? 0 : -(int)pick;
}

static void sample_item(enum bench__item *v, unsigned variant)
{
    pick++;
    *v = (enum bench__item)((pick + variant) % (BENCH__ITEM_REGISTER + 1));
}

static void sample_real(double *v, unsigned variant)
{
    *v = a_real(variant);
}

static void sample_text(const char **v, unsigned variant)
{
    *v = a_text(variant);
}

static void sample_strings(const char *const **v, size_t *n, unsigned variant)
{
    *n = a_length(variant);
    const char **list = zalloc(*n + 1, sizeof *list);
    for (size_t i = 0; i < *n; i++)
        list[i] = a_text(variant);
    *v = list;
}

static struct bench__kv *some_labels(size_t *n, unsigned variant)
{
    *n = a_length(variant);
    struct bench__kv *kv = zalloc(*n + 1, sizeof *kv);
    for (size_t i = 0; i < *n; i++)
        kv[i] = (struct bench__kv){(char *)a_text(variant), (char *)a_text(variant)};
    return kv;
}

static void sample_labels(const struct bench__kv **v, size_t *n, unsigned variant)
{
    *v = some_labels(n, variant);
}

static void sample_columns(const struct bench__column_wire **v, size_t *n, unsigned variant)
{
    *n = a_length(variant);
    struct bench__column_wire *c = zalloc(*n + 1, sizeof *c);
    for (size_t i = 0; i < *n; i++)
        c[i] = (struct bench__column_wire){a_text(variant),
                                           a_text(variant),
                                           a_text(variant),
                                           (enum bench__format)(i % 3),
                                           (enum bench__class)(i % 2),
                                           i % 2 == 0};
    *v = c;
}

static struct bench__profile_entry *some_entries(size_t *n, unsigned variant)
{
    *n = a_length(variant);
    struct bench__profile_entry *e = zalloc(*n + 1, sizeof *e);
    for (size_t i = 0; i < *n; i++)
        e[i] = (struct bench__profile_entry){
            (char *)a_text(variant), i % 2 ? NULL : (char *)a_text(variant), a_count(variant)};
    return e;
}

static struct bench__profile *some_profile(unsigned variant, bool unavailable)
{
    struct bench__profile *p = zalloc(1, sizeof *p);
    if (unavailable) {
        p->unavailable = (char *)a_text(variant);
        p->hz = p->hz_reached = p->running_ns = NAN;
        return p;
    }
    p->event = (char *)a_text(variant);
    p->hz = a_real(variant);
    p->hz_reached = a_real(variant);
    p->running_ns = a_real(variant);
    p->iterations = a_count(variant);
    p->samples = a_count(variant);
    p->harness_samples = a_count(variant);
    p->harness_unmeasured = variant == 0 ? NULL : (char *)a_text(variant);
    p->lost = a_count(variant);
    p->chains = variant == 1;
    p->unwinder = variant == 1 ? (char *)a_text(variant) : NULL;
    p->unwinder_reason = variant == 0 ? (char *)a_text(variant) : NULL;
    p->fp_samples = a_count(variant);
    p->note = (char *)a_text(variant);
    p->hot = variant == 1 ? (char *)a_text(variant) : NULL;
    p->self = some_entries(&p->n_self, variant);
    p->inclusive = some_entries(&p->n_inclusive, variant);
    p->lines = some_entries(&p->n_lines, variant);
    p->unsymbolised = some_entries(&p->n_unsymbolised, variant);
    p->n_unsymbolised_samples = a_count(variant);
    p->n_stacks = a_length(variant);
    p->stacks = zalloc(p->n_stacks + 1, sizeof *p->stacks);
    for (size_t i = 0; i < p->n_stacks; i++)
        p->stacks[i] = (struct bench__profile_stack){(char *)a_text(variant), a_count(variant)};
    return p;
}

static void sample_row(const struct bench__row **v, unsigned variant)
{
    struct bench__row *r = zalloc(1, sizeof *r);
    r->name = (char *)a_text(variant);
    r->source = (char *)a_text(variant);
    r->labels = some_labels(&r->n_labels, variant);
    r->state = (enum bench__row_state)(variant % 3);
    r->iterations = a_count(variant);
    r->samples = (size_t)a_count(variant);
    r->stats =
        (struct bench__summary){a_real(variant), a_real(variant), a_real(variant), a_real(variant)};
    r->n_cells = a_length(variant);
    r->cells = zalloc(r->n_cells + 1, sizeof *r->cells);
    for (size_t i = 0; i < r->n_cells; i++) {
        struct bench__column_desc *col = zalloc(1, sizeof *col);
        col->name = a_text(variant);
        r->cells[i] = (struct bench__cell){col, a_real(variant), i % 2 == 1, a_real(variant)};
    }
    r->count_iterations = a_count(variant);
    r->contention = a_real(variant);
    r->error = (char *)a_text(variant);
    r->profile = variant == 2 ? NULL : some_profile(variant, variant == 3);
    *v = r;
}

static void sample_window(const struct bench__window **v, unsigned variant)
{
    static const char *const scopes[VARIANTS] = {"thread", "process", NULL, "process"};
    struct bench__window *w = zalloc(1, sizeof *w);
    w->name = (char *)a_text(variant);
    w->reps = variant == 1 ? UINT32_MAX : 3;
    w->state = (enum bench__row_state)(variant % 3);
    w->error = (char *)a_text(variant);
    w->wall = (struct bench__window_time){a_real(variant), a_real(variant), a_real(variant),
                                          a_real(variant), a_real(variant), a_real(variant),
                                          scopes[variant]};
    w->psi_present = variant != 2;
    for (size_t i = 0; i < 5; i++)
        w->psi[i] = a_real(variant);
    if (variant != 2) {
        struct bench__regime_stamp *r = zalloc(1, sizeof *r);
        *r = (struct bench__regime_stamp){variant == 0,    BENCH_CACHE_COLD, BENCH_CACHE_WARM,
                                          a_real(variant), a_real(variant),  ""};
        snprintf(r->note, sizeof r->note, "%s", a_text(variant));
        w->regime = r;
    }
    w->n_totals = a_length(variant);
    w->totals = zalloc(w->n_totals + 1, sizeof *w->totals);
    for (size_t i = 0; i < w->n_totals; i++) {
        struct bench__total_desc *d = zalloc(1, sizeof *d);
        *d = (struct bench__total_desc){
            a_text(variant), i % 2 ? NULL : a_text(variant), i % 2 ? a_text(variant) : NULL,
            a_text(variant), i % 2 ? NULL : a_text(variant), (enum bench__format)(i % 3),
            i % 2 == 0};
        w->totals[i] = (struct bench__total){d, a_real(variant), i % 2 == 1};
    }
    w->n_groups = a_length(variant);
    w->groups = zalloc(w->n_groups + 1, sizeof *w->groups);
    for (size_t i = 0; i < w->n_groups; i++)
        w->groups[i] =
            (struct bench__window_group){a_text(variant), i % 2 == 0, a_real(variant), (int)i - 1};
    w->note = (char *)a_text(variant);
    *v = w;
}

/* ---- the round trip ------------------------------------------------------------------------- */

/* The encoder wrote exactly one line for the event: it decodes to `kind`, and into the recorder
 * to `want`. */
static void decode_check(const char *lines, size_t len, int kind, const char *want)
{
    const char *nl = memchr(lines, '\n', len);
    assert_non_null(nl);
    assert_true((size_t)(nl - lines) + 1 == len); /* one line */
    char *got = NULL;
    size_t got_len = 0;
    FILE *g = open_memstream(&got, &got_len);
    assert_non_null(g);
    struct bench__sink rec = recorder(g);
    assert_int_equal(bench__wire_decode(&rec, lines, (size_t)(nl - lines)), kind);
    fclose(g);
    assert_string_equal(got, want);
    free(got);
}

/* One test per event: its samples of every variant, encoded, decoded and recorded. */
#define BENCH__F(kind, f) sample_##kind(BENCH__PLACES_##kind(&a, f), variant);
#define BENCH__EVENT(name, fields)                                                                 \
    static void test_##name(void **state)                                                          \
    {                                                                                              \
        (void)state;                                                                               \
        for (unsigned variant = 0; variant < VARIANTS; variant++) {                                \
            struct bench__event_##name a;                                                          \
            memset(&a, 0, sizeof a);                                                               \
            fields;                                                                                \
            char *want = NULL, *lines = NULL;                                                      \
            size_t want_len = 0, lines_len = 0;                                                    \
            FILE *w = open_memstream(&want, &want_len);                                            \
            record_##name(w, &a);                                                                  \
            fclose(w);                                                                             \
            struct bench__wire_out out = {                                                         \
                .f = open_memstream(&lines, &lines_len), .fd = -1, .ack_fd = -1};                  \
            struct bench__sink enc = bench__wire_sink(&out);                                       \
            enc.name(enc.ctx, &a);                                                                 \
            fclose(out.f);                                                                         \
            decode_check(lines, lines_len, BENCH__EVENT_##name, want);                             \
            free(want);                                                                            \
            free(lines);                                                                           \
            release_kept();                                                                        \
        }                                                                                          \
    }
#include "bench/events.def"
#undef BENCH__EVENT
#undef BENCH__F

/* The hostile samples differ from the ordinary ones where it matters (a test of the test). */
static void test_samples_are_hostile(void **state)
{
    (void)state;
    const struct bench__row *r;
    pick = 0;
    sample_row(&r, 1);
    bool nan = false, inf = false, bad_utf8 = false;
    for (size_t i = 0; i < r->n_cells; i++) {
        nan |= isnan(r->cells[i].value);
        inf |= isinf(r->cells[i].value);
    }
    nan |= isnan(r->stats.median) || isnan(r->stats.mad) || isnan(r->contention);
    inf |= isinf(r->stats.min) || isinf(r->stats.max) || isinf(r->stats.median);
    for (size_t i = 0; i < N_HOSTILE; i++)
        bad_utf8 |= strchr(hostile_texts[i], '\xfc') != NULL;
    assert_true(nan || inf);
    assert_true(bad_utf8);
    release_kept();
}

/* A line naming an event with none of its fields: that event, its fields zero, "" or empty. */
static void test_bare_events(void **state)
{
    (void)state;
    static const char *const names[] = {
#define BENCH__EVENT(name, fields) #name,
#include "bench/events.def"
#undef BENCH__EVENT
    };
    for (size_t k = 0; k < BENCH__EVENT_COUNT; k++) {
        char line[64], *got = NULL;
        size_t got_len = 0;
        int n = snprintf(line, sizeof line, "{\"t\":\"%s\"}", names[k]);
        FILE *g = open_memstream(&got, &got_len);
        struct bench__sink rec = recorder(g);
        assert_int_equal(bench__wire_decode(&rec, line, (size_t)n), (int)k);
        fclose(g);
        assert_true(strncmp(got, names[k], strlen(names[k])) == 0);
        free(got);
    }
}

/* A line that is no event of this protocol calls nothing. */
static void test_not_events(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "",
        "hello",
        "{",
        "[]",
        "{\"t\":\"nonsense\"}",
        "{\"t\":7}",
        "{\"type\":\"row\"}",
        "{\"t\":{\"hex\":\"00\"}}",
        "{\"t\":\"row\"",
        "\"row\"",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        char *got = NULL;
        size_t got_len = 0;
        FILE *g = open_memstream(&got, &got_len);
        struct bench__sink rec = recorder(g);
        assert_int_equal(bench__wire_decode(&rec, lines[i], strlen(lines[i])), -1);
        fclose(g);
        assert_int_equal(got_len, 0);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define BENCH__EVENT(name, fields) cmocka_unit_test(test_##name),
#include "bench/events.def"
#undef BENCH__EVENT
        cmocka_unit_test(test_samples_are_hostile),
        cmocka_unit_test(test_bare_events),
        cmocka_unit_test(test_not_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
