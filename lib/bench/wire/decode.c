/* SPDX-License-Identifier: MIT */
/* decode.c: owns the reading half of the line format (see decode.h): one decoder per event and
 * the table of event names, made from events.def; one reader per field kind (the compound row
 * and window read once here), each the inverse of its writer in encode.c. What it decodes is
 * borrowed by the sink for the call and freed after it. It draws and keeps nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../../util/alloc.h"
#include "decode.h"

/* What one event's fields hold while the sink is called (freed after it). */
struct held {
    void **p;
    size_t n, cap;
};

static void *hold(struct held *h, void *p)
{
    h->p = bench__grow(h->p, &h->cap, h->n + 1, sizeof *h->p);
    h->p[h->n++] = p;
    return p;
}

static void release(struct held *h)
{
    for (size_t i = 0; i < h->n; i++)
        free(h->p[i]);
    free(h->p);
}

/* ---- values: the inverses of encode.c's ------------------------------------------------------ */

static double real_of(const json_t *v)
{
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v))
        return !strcmp(json_string_value(v), "inf") ? INFINITY : -INFINITY;
    return NAN;
}

static uint64_t count_of(const json_t *v)
{
    return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A text: a string, or {"hex": ...} decoded to its bytes; "" for anything else. */
static const char *text_of(const json_t *v, struct held *h)
{
    if (json_is_string(v))
        return json_string_value(v);
    const json_t *hex = json_object_get(v, "hex");
    if (!json_is_string(hex))
        return "";
    const char *x = json_string_value(hex);
    size_t n = strlen(x) / 2;
    char *bytes = hold(h, bench__xmalloc(n + 1));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(x[2 * i]), lo = hex_digit(x[2 * i + 1]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            break; /* not this protocol's: the text ends here */
        bytes[k++] = (char)(hi << 4 | lo);
    }
    bytes[k] = '\0';
    return bytes;
}

/* A text that may be absent (null, or not a text): NULL then. */
static char *text_or_null(const json_t *v, struct held *h)
{
    return json_is_string(v) || json_is_object(v) ? (char *)text_of(v, h) : NULL;
}

static const char *const *strings_of(const json_t *a, size_t *n, struct held *h)
{
    *n = json_array_size(a);
    const char **list = hold(h, bench__xcalloc(*n + 1, sizeof *list));
    for (size_t i = 0; i < *n; i++)
        list[i] = text_of(json_array_get(a, i), h);
    return list;
}

static struct bench__kv *labels_of(const json_t *a, size_t *n, struct held *h)
{
    *n = json_array_size(a);
    struct bench__kv *kv = hold(h, bench__xcalloc(*n + 1, sizeof *kv));
    for (size_t i = 0; i < *n; i++) {
        const json_t *pair = json_array_get(a, i);
        kv[i] = (struct bench__kv){(char *)text_of(json_array_get(pair, 0), h),
                                   (char *)text_of(json_array_get(pair, 1), h)};
    }
    return kv;
}

static struct bench__profile_entry *entries_of(const json_t *a, size_t *n, struct held *h)
{
    size_t size = json_array_size(a);
    struct bench__profile_entry *e = hold(h, bench__xcalloc(size + 1, sizeof *e));
    *n = 0;
    for (size_t i = 0; i < size; i++) {
        const json_t *x = json_array_get(a, i);
        char *name = text_or_null(json_array_get(x, 0), h);
        if (!name)
            continue; /* a malformed entry is dropped, never guessed */
        e[(*n)++] = (struct bench__profile_entry){name, text_or_null(json_array_get(x, 1), h),
                                                  count_of(json_array_get(x, 2))};
    }
    return e;
}

/* A row's profile; NULL when it has none (or it is not an object). */
static struct bench__profile *profile_of(const json_t *o, struct held *h)
{
    if (!json_is_object(o))
        return NULL;
    struct bench__profile *p = hold(h, bench__xcalloc(1, sizeof *p));
    p->unavailable = text_or_null(json_object_get(o, "unavailable"), h);
    if (p->unavailable) {
        p->hz = p->hz_reached = p->running_ns = NAN;
        return p;
    }
    p->event = text_or_null(json_object_get(o, "event"), h);
    p->hz = real_of(json_object_get(o, "hz"));
    p->hz_reached = real_of(json_object_get(o, "hzReached"));
    p->running_ns = real_of(json_object_get(o, "runningNs"));
    p->iterations = count_of(json_object_get(o, "iterations"));
    p->samples = count_of(json_object_get(o, "samples"));
    p->harness_samples = count_of(json_object_get(o, "harnessSamples"));
    p->harness_unmeasured = text_or_null(json_object_get(o, "harnessUnmeasured"), h);
    p->lost = count_of(json_object_get(o, "lost"));
    p->chains = json_is_true(json_object_get(o, "chains"));
    p->unwinder = text_or_null(json_object_get(o, "unwinder"), h);
    p->unwinder_reason = text_or_null(json_object_get(o, "unwinderReason"), h);
    p->fp_samples = count_of(json_object_get(o, "fpSamples"));
    p->note = text_or_null(json_object_get(o, "note"), h);
    p->hot = text_or_null(json_object_get(o, "hot"), h);
    p->self = entries_of(json_object_get(o, "self"), &p->n_self, h);
    p->inclusive = entries_of(json_object_get(o, "inclusive"), &p->n_inclusive, h);
    p->lines = entries_of(json_object_get(o, "lines"), &p->n_lines, h);
    p->unsymbolised = entries_of(json_object_get(o, "unsymbolised"), &p->n_unsymbolised, h);
    p->n_unsymbolised_samples = count_of(json_object_get(o, "unsymbolisedSamples"));
    const json_t *stacks = json_object_get(o, "stacks");
    size_t n = json_array_size(stacks);
    p->stacks = hold(h, bench__xcalloc(n + 1, sizeof *p->stacks));
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(stacks, i);
        char *frames = text_or_null(json_array_get(x, 0), h);
        if (frames)
            p->stacks[p->n_stacks++] =
                (struct bench__profile_stack){frames, count_of(json_array_get(x, 1))};
    }
    return p;
}

/* ---- one reader per field kind (events.def): the field `key` of event `e` ------------------- */

static void get_size(const json_t *e, const char *key, size_t *v, struct held *h)
{
    (void)h;
    *v = (size_t)count_of(json_object_get(e, key));
}

static void get_uint(const json_t *e, const char *key, unsigned *v, struct held *h)
{
    (void)h;
    *v = (unsigned)json_integer_value(json_object_get(e, key));
}

static void get_int(const json_t *e, const char *key, int *v, struct held *h)
{
    (void)h;
    *v = (int)json_integer_value(json_object_get(e, key));
}

static void get_item(const json_t *e, const char *key, enum bench__item *v, struct held *h)
{
    (void)h;
    *v = (enum bench__item)json_integer_value(json_object_get(e, key));
}

static void get_real(const json_t *e, const char *key, double *v, struct held *h)
{
    (void)h;
    *v = real_of(json_object_get(e, key));
}

static void get_text(const json_t *e, const char *key, const char **v, struct held *h)
{
    *v = text_of(json_object_get(e, key), h);
}

static void get_strings(const json_t *e, const char *key, const char *const **v, size_t *n,
                        struct held *h)
{
    *v = strings_of(json_object_get(e, key), n, h);
}

static void get_labels(const json_t *e, const char *key, const struct bench__kv **v, size_t *n,
                       struct held *h)
{
    *v = labels_of(json_object_get(e, key), n, h);
}

static void get_columns(const json_t *e, const char *key, const struct bench__column_wire **v,
                        size_t *n, struct held *h)
{
    const json_t *a = json_object_get(e, key);
    *n = json_array_size(a);
    struct bench__column_wire *cols = hold(h, bench__xcalloc(*n + 1, sizeof *cols));
    for (size_t i = 0; i < *n; i++) {
        const json_t *col = json_array_get(a, i);
        cols[i] = (struct bench__column_wire){
            .name = text_of(json_object_get(col, "name"), h),
            .header = text_of(json_object_get(col, "header"), h),
            .source = text_of(json_object_get(col, "source"), h),
            .format = (enum bench__format)json_integer_value(json_object_get(col, "format")),
            .cls = (enum bench__class)json_integer_value(json_object_get(col, "class")),
            .is_default = json_is_true(json_object_get(col, "default")),
        };
    }
    *v = cols;
}

/* A row whose cells point to stand-in columns that carry only their names (a sink that keeps the
 * row finds its own columns by name). */
static void get_row(const json_t *e, const char *key, const struct bench__row **v, struct held *h)
{
    const json_t *o = json_object_get(e, key);
    const json_t *stats = json_object_get(o, "stats");
    struct bench__row *row = hold(h, bench__xcalloc(1, sizeof *row));
    *row = (struct bench__row){
        .name = (char *)text_of(json_object_get(o, "name"), h),
        .source = (char *)text_of(json_object_get(o, "source"), h),
        .state = (enum bench__row_state)json_integer_value(json_object_get(o, "state")),
        .iterations = count_of(json_object_get(o, "iterations")),
        .samples = (size_t)count_of(json_object_get(o, "samples")),
        .stats = {real_of(json_array_get(stats, 0)), real_of(json_array_get(stats, 1)),
                  real_of(json_array_get(stats, 2)), real_of(json_array_get(stats, 3))},
        .count_iterations = count_of(json_object_get(o, "countIterations")),
        .contention = real_of(json_object_get(o, "contention")),
        .contention_gap = (int)json_integer_value(json_object_get(o, "contentionGap")),
        .cpu_ns = real_of(json_object_get(o, "cpuNs")),
        .error = (char *)text_of(json_object_get(o, "error"), h),
    };
    row->labels = labels_of(json_object_get(o, "labels"), &row->n_labels, h);
    const json_t *cells = json_object_get(o, "cells");
    row->n_cells = json_array_size(cells);
    row->cells = hold(h, bench__xcalloc(row->n_cells + 1, sizeof *row->cells));
    struct bench__column_desc *columns = hold(h, bench__xcalloc(row->n_cells + 1, sizeof *columns));
    for (size_t i = 0; i < row->n_cells; i++) {
        const json_t *cell = json_array_get(cells, i);
        columns[i].name = text_of(json_array_get(cell, 0), h);
        const json_t *bracket = json_array_get(cell, 3);
        row->cells[i] = (struct bench__cell){&columns[i], real_of(json_array_get(cell, 1)),
                                             json_is_true(json_array_get(cell, 2)),
                                             bracket ? real_of(bracket) : 0};
    }
    row->profile = profile_of(json_object_get(o, "profile"), h);
    *v = row;
}

/* A window's totals with their descriptions (`descs`, one per total kept). */
static void totals_of(const json_t *a, struct bench__window *w, struct held *h)
{
    size_t n = json_array_size(a);
    struct bench__total_desc *descs = hold(h, bench__xcalloc(n + 1, sizeof *descs));
    w->totals = hold(h, bench__xcalloc(n + 1, sizeof *w->totals));
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(a, i);
        const char *object = text_or_null(json_array_get(x, 0), h);
        const char *header = text_or_null(json_array_get(x, 3), h);
        if (!object || !header)
            continue; /* a malformed total is dropped, never guessed */
        descs[w->n_totals] = (struct bench__total_desc){
            object,
            text_or_null(json_array_get(x, 1), h),
            text_or_null(json_array_get(x, 2), h),
            header,
            text_or_null(json_array_get(x, 4), h),
            (enum bench__format)json_integer_value(json_array_get(x, 5)),
            json_is_true(json_array_get(x, 6)),
        };
        w->totals[w->n_totals] = (struct bench__total){
            &descs[w->n_totals], real_of(json_array_get(x, 7)), json_is_true(json_array_get(x, 8))};
        w->n_totals++;
    }
}

static void get_window(const json_t *e, const char *key, const struct bench__window **v,
                       struct held *h)
{
    const json_t *o = json_object_get(e, key);
    const json_t *wall = json_object_get(o, "wall"), *psi = json_object_get(o, "psi");
    const json_t *scope = json_object_get(o, "scope");
    struct bench__window *w = hold(h, bench__xcalloc(1, sizeof *w));
    *w = (struct bench__window){
        .name = (char *)text_of(json_object_get(o, "name"), h),
        .reps = (uint32_t)count_of(json_object_get(o, "reps")),
        .state = (enum bench__row_state)json_integer_value(json_object_get(o, "state")),
        .error = (char *)text_of(json_object_get(o, "error"), h),
        .wall = {real_of(json_array_get(wall, 0)), real_of(json_array_get(wall, 1)),
                 real_of(json_array_get(wall, 2)), real_of(json_array_get(wall, 3)),
                 real_of(json_array_get(wall, 4)), real_of(json_array_get(wall, 5)), NULL},
        .psi_present = json_is_true(json_object_get(o, "psiPresent")),
        .note = (char *)text_of(json_object_get(o, "note"), h),
    };
    /* the scope is one of the decomposition's two static words */
    if (json_is_string(scope))
        w->wall.scope = !strcmp(json_string_value(scope), "thread") ? "thread" : "process";
    for (int i = 0; i < 5; i++)
        w->psi[i] = real_of(json_array_get(psi, i));
    const json_t *r = json_object_get(o, "regime");
    if (json_is_object(r)) {
        struct bench__regime_stamp *stamp = hold(h, bench__xcalloc(1, sizeof *stamp));
        stamp->present = json_is_true(json_object_get(r, "present"));
        stamp->requested =
            (enum bench_cache_regime)json_integer_value(json_object_get(r, "requested"));
        stamp->effective =
            (enum bench_cache_regime)json_integer_value(json_object_get(r, "effective"));
        stamp->resident_before = real_of(json_object_get(r, "before"));
        stamp->resident_after = real_of(json_object_get(r, "after"));
        snprintf(stamp->note, sizeof stamp->note, "%s", text_of(json_object_get(r, "note"), h));
        w->regime = stamp;
    }
    totals_of(json_object_get(o, "totals"), w, h);
    const json_t *groups = json_object_get(o, "groups");
    size_t n_groups = json_array_size(groups);
    w->groups = hold(h, bench__xcalloc(n_groups + 1, sizeof *w->groups));
    for (size_t i = 0; i < n_groups; i++) {
        const json_t *x = json_array_get(groups, i);
        const char *object = text_or_null(json_array_get(x, 0), h);
        w->groups[w->n_groups++] = (struct bench__window_group){
            object ? object : "", json_is_true(json_array_get(x, 1)), real_of(json_array_get(x, 2)),
            (int)json_integer_value(json_array_get(x, 3))};
    }
    *v = w;
}

/* ---- the decoders, one per event of events.def, and their table ---------------------------- */

#define BENCH__F(kind, f) get_##kind(e, #f, BENCH__PLACES_##kind(&a, f), h);
#define BENCH__EVENT(name, fields)                                                                 \
    static void decode_##name(const struct bench__sink *sink, const json_t *e, struct held *h)     \
    {                                                                                              \
        struct bench__event_##name a;                                                              \
        memset(&a, 0, sizeof a);                                                                   \
        (void)e; /* an event without fields */                                                     \
        (void)h;                                                                                   \
        fields sink->name(sink->ctx, &a);                                                          \
    }
#include "../events.def"
#undef BENCH__EVENT
#undef BENCH__F

static const struct {
    const char *name;
    void (*decode)(const struct bench__sink *sink, const json_t *e, struct held *h);
} decoders[BENCH__EVENT_COUNT] = {
#define BENCH__EVENT(name, fields) {#name, decode_##name},
#include "../events.def"
#undef BENCH__EVENT
};

int bench__wire_decode(const struct bench__sink *sink, const char *line, size_t len)
{
    json_t *e = json_loadb(line, len, 0, NULL);
    struct held h = {0};
    const char *type = e ? text_of(json_object_get(e, "t"), &h) : "";
    int kind = -1;
    for (size_t i = 0; i < BENCH__EVENT_COUNT && kind < 0; i++)
        if (!strcmp(type, decoders[i].name)) {
            decoders[i].decode(sink, e, &h);
            kind = (int)i;
        }
    json_decref(e);
    release(&h);
    return kind;
}
