/* SPDX-License-Identifier: MIT */
/* events.h: the interface between the measuring side of a --bench run and whoever takes what it
 * measured, made by the preprocessor from events.def: one struct per event (its fields, in
 * order), and struct bench__sink, one function pointer per event plus the context they get. The
 * measuring side reports only through a sink; the collector (in this process) and the wire's
 * encoder (a worker's pipe) are the two sinks. Types and macros only. */
#ifndef BENCH_BENCH_EVENTS_H
#define BENCH_BENCH_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../model/report.h"
#include "../util/format.h"

/* What a measuring process is busy with (the item a crash or a timeout is charged to). */
enum bench__item {
    BENCH__ITEM_NONE,
    BENCH__ITEM_BODY,     /* a BENCHMARK body (its loops, its counting passes) */
    BENCH__ITEM_ROUND,    /* a BENCHMARK body in an early sampling round */
    BENCH__ITEM_CASE,     /* one bench_case row */
    BENCH__ITEM_WORKLOAD, /* a WORKLOAD test */
    BENCH__ITEM_REGISTER, /* a body run again only to register its cases (nothing measured) */
};

/* A column as the measuring side describes it (a sink that keeps it makes its own copy). */
struct bench__column_wire {
    const char *name, *header, *source;
    enum bench__format format;
    enum bench__class cls;
    bool is_default;
};

/* The members of a field of each kind (events.def lists the kinds). A list is its array and
 * n_<field>, its length. */
#define BENCH__MEMBER_size(f) size_t f
#define BENCH__MEMBER_uint(f) unsigned f
#define BENCH__MEMBER_int(f) int f
#define BENCH__MEMBER_item(f) enum bench__item f
#define BENCH__MEMBER_real(f) double f
#define BENCH__MEMBER_text(f) const char *f
#define BENCH__MEMBER_strings(f)                                                                   \
    const char *const *f;                                                                          \
    size_t n_##f
#define BENCH__MEMBER_labels(f)                                                                    \
    const struct bench__kv *f;                                                                     \
    size_t n_##f
#define BENCH__MEMBER_columns(f)                                                                   \
    const struct bench__column_wire *f;                                                            \
    size_t n_##f
#define BENCH__MEMBER_row(f) const struct bench__row *f
#define BENCH__MEMBER_window(f) const struct bench__window *f

/* A field's members as a generator passes them on: their values (BENCH__VALUES_) or their
 * addresses (BENCH__PLACES_), from a pointer `a` to the event's struct. */
#define BENCH__VALUES_size(a, f) (a)->f
#define BENCH__VALUES_uint(a, f) (a)->f
#define BENCH__VALUES_int(a, f) (a)->f
#define BENCH__VALUES_item(a, f) (a)->f
#define BENCH__VALUES_real(a, f) (a)->f
#define BENCH__VALUES_text(a, f) (a)->f
#define BENCH__VALUES_strings(a, f) (a)->f, (a)->n_##f
#define BENCH__VALUES_labels(a, f) (a)->f, (a)->n_##f
#define BENCH__VALUES_columns(a, f) (a)->f, (a)->n_##f
#define BENCH__VALUES_row(a, f) (a)->f
#define BENCH__VALUES_window(a, f) (a)->f
#define BENCH__PLACES_size(a, f) &(a)->f
#define BENCH__PLACES_uint(a, f) &(a)->f
#define BENCH__PLACES_int(a, f) &(a)->f
#define BENCH__PLACES_item(a, f) &(a)->f
#define BENCH__PLACES_real(a, f) &(a)->f
#define BENCH__PLACES_text(a, f) &(a)->f
#define BENCH__PLACES_strings(a, f) &(a)->f, &(a)->n_##f
#define BENCH__PLACES_labels(a, f) &(a)->f, &(a)->n_##f
#define BENCH__PLACES_columns(a, f) &(a)->f, &(a)->n_##f
#define BENCH__PLACES_row(a, f) &(a)->f
#define BENCH__PLACES_window(a, f) &(a)->f

/* struct bench__event_<name>: the fields of each event, borrowed for the call. `end_` closes
 * every struct (C has no empty struct) and is always 0. */
#define BENCH__F(kind, f) BENCH__MEMBER_##kind(f);
#define BENCH__EVENT(name, fields)                                                                 \
    struct bench__event_##name {                                                                   \
        fields char end_;                                                                          \
    };
#include "events.def"
#undef BENCH__EVENT
#undef BENCH__F

/* BENCH__EVENT_<name>: each event's number, in the order of events.def. */
enum bench__event_kind {
#define BENCH__EVENT(name, fields) BENCH__EVENT_##name,
#include "events.def"
#undef BENCH__EVENT
    BENCH__EVENT_COUNT
};

/* Where the measuring side's events go: each handler gets `ctx` and the event's fields. A handler
 * copies what it keeps: the fields are valid for the call only. */
struct bench__sink {
    void *ctx;
#define BENCH__EVENT(name, fields) void (*name)(void *ctx, const struct bench__event_##name *event);
#include "events.def"
#undef BENCH__EVENT
};

/* Report an event with its fields in the order of events.def (a list field is two arguments:
 * the array, then its length): bench__sink_emit(sink, begin, item, entry, name, labels,
 * n_labels, round, rounds). A missing or extra argument does not compile (-Werror). An event
 * without fields: bench__sink_emit0(sink, sync). */
#define bench__sink_emit(sink, name, ...)                                                          \
    ((sink)->name((sink)->ctx, &(const struct bench__event_##name){__VA_ARGS__, 0}))
#define bench__sink_emit0(sink, name)                                                              \
    ((sink)->name((sink)->ctx, &(const struct bench__event_##name){0}))

#endif /* BENCH_BENCH_EVENTS_H */
