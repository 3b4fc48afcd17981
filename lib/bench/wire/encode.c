/* SPDX-License-Identifier: MIT */
/* encode.c: owns the writing half of the line format (see encode.h): one encoder per event,
 * made from events.def; one writer per field kind (a real to the bit, a text byte for byte, the
 * compound row and window written once here); the buffer and its sends down the pipe. It measures
 * and draws nothing; decode.c reads what it writes. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../../util/alloc.h"
#include "encode.h"

/* ---- values: numbers exact, texts byte for byte -------------------------------------------- */

/* A double as JSON: a real printed with 17 significant digits (it reads back bit for bit), or
 * null for NaN, or "inf" / "-inf". */
static json_t *real(double v)
{
    if (isnan(v))
        return json_null();
    if (isinf(v))
        return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

/* A text as JSON, byte for byte: a string when it is UTF-8 (all jansson takes), else
 * {"hex": "<two hex digits per byte>"}: a name, label or message from client code may be any
 * bytes, and the supervisor must see the bytes the worker had. */
static json_t *text(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *hex = bench__xmalloc(2 * n + 1);
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
    j = json_pack("{s:s}", "hex", hex);
    free(hex);
    return j;
}

/* A text that may be absent: null. */
static json_t *text_or_null(const char *s)
{
    return s ? text(s) : json_null();
}

static json_t *count(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *strings(const char *const *list, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, text(list[i]));
    return a;
}

static json_t *labels(const struct bench__kv *kv, size_t n)
{
    json_t *a = json_array(); /* pairs, in order: an object would not keep duplicates honest */
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("[o, o]", text(kv[i].key), text(kv[i].value)));
    return a;
}

/* A profile (--profile) as the member "profile" of a row. */
static json_t *entries(const struct bench__profile_entry *e, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("[o, o, o]", text(e[i].name), text_or_null(e[i].module),
                                           count(e[i].samples)));
    return a;
}

static json_t *profile(const struct bench__profile *p)
{
    json_t *o = json_object();
    if (p->unavailable) {
        json_object_set_new(o, "unavailable", text(p->unavailable));
        return o;
    }
    json_object_set_new(o, "event", text(p->event ? p->event : ""));
    json_object_set_new(o, "hz", real(p->hz));
    json_object_set_new(o, "hzReached", real(p->hz_reached));
    json_object_set_new(o, "runningNs", real(p->running_ns));
    json_object_set_new(o, "iterations", count(p->iterations));
    json_object_set_new(o, "samples", count(p->samples));
    json_object_set_new(o, "harnessSamples", count(p->harness_samples));
    json_object_set_new(o, "harnessUnmeasured", text_or_null(p->harness_unmeasured));
    json_object_set_new(o, "lost", count(p->lost));
    json_object_set_new(o, "chains", json_boolean(p->chains));
    json_object_set_new(o, "unwinder", text_or_null(p->unwinder));
    json_object_set_new(o, "unwinderReason", text_or_null(p->unwinder_reason));
    json_object_set_new(o, "fpSamples", count(p->fp_samples));
    json_object_set_new(o, "note", text(p->note ? p->note : ""));
    json_object_set_new(o, "hot", text_or_null(p->hot));
    json_object_set_new(o, "self", entries(p->self, p->n_self));
    json_object_set_new(o, "inclusive", entries(p->inclusive, p->n_inclusive));
    json_object_set_new(o, "lines", entries(p->lines, p->n_lines));
    json_object_set_new(o, "unsymbolised", entries(p->unsymbolised, p->n_unsymbolised));
    json_object_set_new(o, "unsymbolisedSamples", count(p->n_unsymbolised_samples));
    json_t *stacks = json_array();
    for (size_t i = 0; i < p->n_stacks; i++)
        json_array_append_new(
            stacks, json_pack("[o, o]", text(p->stacks[i].frames), count(p->stacks[i].samples)));
    json_object_set_new(o, "stacks", stacks);
    return o;
}

/* ---- one writer per field kind (events.def): the field `key` of event `e` ------------------- */

static void put(json_t *e, const char *key, json_t *v)
{
    if (!v || json_object_set_new(e, key, v) != 0)
        bench__out_of_memory(); /* jansson fails only without memory */
}

static void put_size(json_t *e, const char *key, size_t v)
{
    put(e, key, count(v));
}

static void put_uint(json_t *e, const char *key, unsigned v)
{
    put(e, key, json_integer(v));
}

static void put_int(json_t *e, const char *key, int v)
{
    put(e, key, json_integer(v));
}

static void put_item(json_t *e, const char *key, enum bench__item v)
{
    put(e, key, json_integer(v));
}

static void put_real(json_t *e, const char *key, double v)
{
    put(e, key, real(v));
}

static void put_text(json_t *e, const char *key, const char *s)
{
    put(e, key, text(s));
}

static void put_strings(json_t *e, const char *key, const char *const *list, size_t n)
{
    put(e, key, strings(list, n));
}

static void put_labels(json_t *e, const char *key, const struct bench__kv *kv, size_t n)
{
    put(e, key, labels(kv, n));
}

static void put_columns(json_t *e, const char *key, const struct bench__column_wire *cols, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:i, s:i, s:b}", "name",
                                           text(cols[i].name), "header", text(cols[i].header),
                                           "source", text(cols[i].source), "format",
                                           (int)cols[i].format, "class", (int)cols[i].cls,
                                           "default", cols[i].is_default));
    put(e, key, a);
}

static void put_row(json_t *e, const char *key, const struct bench__row *row)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", text(row->name));
    json_object_set_new(o, "source", text(row->source));
    json_object_set_new(o, "labels", labels(row->labels, row->n_labels));
    json_object_set_new(o, "state", json_integer(row->state));
    json_object_set_new(o, "iterations", count(row->iterations));
    json_object_set_new(o, "samples", count(row->samples));
    json_object_set_new(o, "stats",
                        json_pack("[o, o, o, o]", real(row->stats.median), real(row->stats.mad),
                                  real(row->stats.min), real(row->stats.max)));
    json_t *cells = json_array(); /* each cell names its column: the supervisor knows none */
    for (size_t i = 0; i < row->n_cells; i++)
        json_array_append_new(cells, json_pack("[o, o, b, o]", text(row->cells[i].column->name),
                                               real(row->cells[i].value), row->cells[i].estimate,
                                               real(row->cells[i].bracket)));
    json_object_set_new(o, "cells", cells);
    json_object_set_new(o, "countIterations", count(row->count_iterations));
    json_object_set_new(o, "contention", real(row->contention));
    json_object_set_new(o, "contentionGap", json_integer(row->contention_gap));
    json_object_set_new(o, "cpuNs", real(row->cpu_ns));
    json_object_set_new(o, "error", text(row->error));
    if (row->profile)
        json_object_set_new(o, "profile", profile(row->profile));
    put(e, key, o);
}

static void put_window(json_t *e, const char *key, const struct bench__window *w)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", text(w->name));
    json_object_set_new(o, "reps", count(w->reps));
    json_object_set_new(o, "state", json_integer(w->state));
    json_object_set_new(o, "error", text(w->error));
    const struct bench__window_time *t = &w->wall;
    json_object_set_new(o, "wall",
                        json_pack("[o, o, o, o, o, o]", real(t->wall_ns), real(t->on_cpu_user_ns),
                                  real(t->on_cpu_kernel_ns), real(t->offcpu_runqueue_ns),
                                  real(t->offcpu_disk_ns), real(t->offcpu_other_ns)));
    json_object_set_new(o, "scope", text_or_null(t->scope));
    json_object_set_new(o, "psiPresent", json_boolean(w->psi_present));
    json_object_set_new(o, "psi",
                        json_pack("[o, o, o, o, o]", real(w->psi[0]), real(w->psi[1]),
                                  real(w->psi[2]), real(w->psi[3]), real(w->psi[4])));
    if (w->regime) {
        const struct bench__regime_stamp *r = w->regime;
        json_object_set_new(o, "regime",
                            json_pack("{s:b, s:i, s:i, s:o, s:o, s:o}", "present", r->present,
                                      "requested", (int)r->requested, "effective",
                                      (int)r->effective, "before", real(r->resident_before),
                                      "after", real(r->resident_after), "note", text(r->note)));
    }
    /* each total with its description: the supervisor knows no source */
    json_t *totals = json_array();
    for (size_t i = 0; i < w->n_totals; i++) {
        const struct bench__total_desc *d = w->totals[i].desc;
        json_array_append_new(totals, json_pack("[o, o, o, o, o, i, b, o, b]", text(d->object),
                                                text_or_null(d->nest), text_or_null(d->key),
                                                text(d->header), text_or_null(d->metric),
                                                (int)d->format, d->is_default,
                                                real(w->totals[i].value), w->totals[i].estimate));
    }
    json_object_set_new(o, "totals", totals);
    json_t *groups = json_array();
    for (size_t i = 0; i < w->n_groups; i++) {
        const struct bench__window_group *g = &w->groups[i];
        json_array_append_new(groups, json_pack("[o, b, o, i]", text(g->object), g->has_scale,
                                                real(g->scale), g->user_only));
    }
    json_object_set_new(o, "groups", groups);
    json_object_set_new(o, "note", text(w->note));
    put(e, key, o);
}

/* ---- the stream and the pipe ------------------------------------------------------------- */

void bench__wire_lost(void)
{
    if (errno == EBADF) {
        static const char line[] = "libbench: a body closed the measuring process's pipe to the "
                                   "supervisor (a descriptor it did not open)\n";
        ssize_t said = write(STDERR_FILENO, line, sizeof line - 1);
        (void)said;
    }
    _exit(127);
}

struct bench__wire_out *bench__wire_open(int fd, int ack_fd)
{
    struct bench__wire_out *o = bench__xcalloc(1, sizeof *o);
    o->fd = fd;
    o->ack_fd = ack_fd;
    o->f = open_memstream(&o->buf, &o->len);
    if (!o->f)
        bench__out_of_memory();
    return o;
}

void bench__wire_close(struct bench__wire_out *o)
{
    bench__wire_flush(o);
    fclose(o->f);
    free(o->buf);
    close(o->fd);
    free(o);
}

void bench__wire_flush(struct bench__wire_out *o)
{
    if (fflush(o->f) != 0) /* into memory: fails only without memory */
        bench__out_of_memory();
    if (o->fd < 0)
        return; /* a test's stream: the lines stay in it */
    for (size_t done = 0; done < o->len;) {
        errno = 0;
        ssize_t n = write(o->fd, o->buf + done, o->len - done);
        if (n < 0 && errno == EINTR)
            continue; /* a body's signal handler without SA_RESTART */
        if (n <= 0)
            bench__wire_lost();
        done += (size_t)n;
    }
    rewind(o->f); /* the next events overwrite these: the size follows the position */
}

/* An event's line into the stream. */
static void send_line(struct bench__wire_out *o, json_t *e)
{
    if (json_dumpf(e, o->f, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0 || fputc('\n', o->f) == EOF)
        bench__out_of_memory(); /* into memory (the file is a memstream, or a test's) */
    json_decref(e);
}

static json_t *event(const char *type)
{
    json_t *e = json_object();
    if (!e)
        bench__out_of_memory();
    put(e, "t", json_string(type)); /* a word of events.def */
    return e;
}

/* ---- the encoders, one per event of events.def ------------------------------------------- */

#define BENCH__F(kind, f) put_##kind(e, #f, BENCH__VALUES_##kind(a, f));
#define BENCH__EVENT(name, fields)                                                                 \
    static void encode_##name(void *ctx, const struct bench__event_##name *a)                      \
    {                                                                                              \
        json_t *e = event(#name);                                                                  \
        (void)a; /* an event without fields */                                                     \
        fields send_line(ctx, e);                                                                  \
    }
#include "../events.def"
#undef BENCH__EVENT
#undef BENCH__F

/* The sync event: the bodies' output first, then every event so far down the pipe, then the
 * supervisor's answer (it has taken them all). */
static void sync_and_wait(void *ctx, const struct bench__event_sync *a)
{
    struct bench__wire_out *o = ctx;
    fflush(stdout);
    fflush(stderr);
    encode_sync(ctx, a);
    bench__wire_flush(o);
    if (o->ack_fd < 0)
        return;
    char ack;
    ssize_t got;
    do {
        errno = 0; /* an end of file leaves it so: the supervisor is gone */
        got = read(o->ack_fd, &ack, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1)
        bench__wire_lost();
}

struct bench__sink bench__wire_sink(struct bench__wire_out *o)
{
    struct bench__sink sink = {
        .ctx = o,
#define BENCH__EVENT(name, fields) .name = encode_##name,
#include "../events.def"
#undef BENCH__EVENT
    };
    sink.sync = sync_and_wait;
    return sink;
}
