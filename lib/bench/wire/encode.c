/* SPDX-License-Identifier: MIT */
/* wire.c: owns the line format of a worker's events (see wire.h): each event a compact JSON
 * object with its type in "t", written by the worker and read back into the collector by the
 * supervisor. It measures and draws nothing. Over 600 lines because the encoder and the decoder
 * of each event stay side by side, so the two halves of the format change together. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../util/alloc.h"
#include "wire.h"

/* ---- numbers: exact both ways --------------------------------------------------------------- */

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

static double real_of(const json_t *v)
{
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v))
        return !strcmp(json_string_value(v), "inf") ? INFINITY : -INFINITY;
    return NAN;
}

/* ---- texts: byte for byte ----------------------------------------------------------------- */

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

/* The texts decoded from hex while one event is handed over (freed after it). */
static char **decoded;
static size_t n_decoded, cap_decoded;

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static const char *text_of(const json_t *v)
{
    if (json_is_string(v))
        return json_string_value(v);
    const json_t *hex = json_object_get(v, "hex");
    if (!json_is_string(hex))
        return "";
    const char *h = json_string_value(hex);
    size_t n = strlen(h) / 2;
    char *bytes = bench__xmalloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(h[2 * i]), lo = hex_digit(h[2 * i + 1]);
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
            break; /* not this protocol's: the text ends here */
        bytes[k++] = (char)(hi << 4 | lo);
    }
    bytes[k] = '\0';
    decoded = bench__grow(decoded, &cap_decoded, n_decoded + 1, sizeof *decoded);
    decoded[n_decoded++] = bytes;
    return bytes;
}

static void free_decoded(void)
{
    for (size_t i = 0; i < n_decoded; i++)
        free(decoded[i]);
    n_decoded = 0;
}

static json_t *count(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static uint64_t count_of(const json_t *v)
{
    return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

/* ---- writing ---------------------------------------------------------------------------- */

static json_t *event(const char *type)
{
    json_t *e = json_object();
    if (!e)
        bench__out_of_memory();
    json_object_set_new(e, "t", json_string(type)); /* a word of this file */
    return e;
}

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

static void send(FILE *f, json_t *e)
{
    if (json_dumpf(e, f, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0 || fputc('\n', f) == EOF)
        bench__out_of_memory(); /* into memory (the file is a memstream, or a test's) */
    json_decref(e);
}

struct bench__wire_out *bench__wire_open(int fd)
{
    struct bench__wire_out *o = bench__xcalloc(1, sizeof *o);
    o->fd = fd;
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

void bench__wire_sync(struct bench__wire_out *o)
{
    send(o->f, event("sync"));
    bench__wire_flush(o);
}

static json_t *strings(const char *const *list, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, text(list[i]));
    return a;
}

static json_t *labels_json(const struct bench__kv *labels, size_t n)
{
    json_t *a = json_array(); /* pairs, in order: an object would not keep duplicates honest */
    for (size_t i = 0; i < n; i++) {
        json_t *pair = json_array();
        json_array_append_new(pair, text(labels[i].key));
        json_array_append_new(pair, text(labels[i].value));
        json_array_append_new(a, pair);
    }
    return a;
}

static json_t *cells_json(const struct bench__cell *cells, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *cell = json_array();
        json_array_append_new(cell, text(cells[i].column->name));
        json_array_append_new(cell, real(cells[i].value));
        json_array_append_new(cell, json_boolean(cells[i].estimate));
        json_array_append_new(a, cell);
    }
    return a;
}

void bench__wire_columns(FILE *f, const struct bench__column_wire *cols, size_t n,
                         const char *const *doc, size_t n_doc, const char *const *table,
                         size_t n_table, const char *const *workload_table, size_t n_wl)
{
    json_t *e = event("columns"), *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_pack("{s:o, s:o, s:o, s:i, s:i, s:b}", "name", text(cols[i].name),
                              "header", text(cols[i].header), "source", text(cols[i].source),
                              "format", (int)cols[i].format, "class", (int)cols[i].cls, "default",
                              cols[i].is_default);
        json_array_append_new(a, c);
    }
    json_object_set_new(e, "cols", a);
    json_object_set_new(e, "doc", strings(doc, n_doc));
    json_object_set_new(e, "table", strings(table, n_table));
    json_object_set_new(e, "wl", strings(workload_table, n_wl));
    send(f, e);
}

void bench__wire_begin(FILE *f, enum bench__item item, size_t entry, const char *name,
                       const struct bench__kv *labels, size_t n_labels, unsigned round,
                       unsigned rounds)
{
    json_t *e = event("begin");
    json_object_set_new(e, "item", json_integer(item));
    json_object_set_new(e, "entry", count(entry));
    json_object_set_new(e, "name", text(name));
    json_object_set_new(e, "labels", labels_json(labels, n_labels));
    json_object_set_new(e, "round", json_integer(round));
    json_object_set_new(e, "rounds", json_integer(rounds));
    send(f, e);
}

/* A profile (--profile) as the member "profile" of a row event. */
static json_t *entries_json(const struct bench__profile_entry *e, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("[o, o, o]", text(e[i].name),
                                           e[i].module ? text(e[i].module) : json_null(),
                                           count(e[i].samples)));
    return a;
}

static json_t *profile_json(const struct bench__profile *p)
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
    json_object_set_new(o, "lost", count(p->lost));
    json_object_set_new(o, "chains", json_boolean(p->chains));
    json_object_set_new(o, "note", text(p->note ? p->note : ""));
    json_object_set_new(o, "hot", p->hot ? text(p->hot) : json_null());
    json_object_set_new(o, "self", entries_json(p->self, p->n_self));
    json_object_set_new(o, "inclusive", entries_json(p->inclusive, p->n_inclusive));
    json_object_set_new(o, "lines", entries_json(p->lines, p->n_lines));
    json_object_set_new(o, "unsymbolised", entries_json(p->unsymbolised, p->n_unsymbolised));
    json_object_set_new(o, "unsymbolisedSamples", count(p->n_unsymbolised_samples));
    json_t *stacks = json_array();
    for (size_t i = 0; i < p->n_stacks; i++)
        json_array_append_new(
            stacks, json_pack("[o, o]", text(p->stacks[i].frames), count(p->stacks[i].samples)));
    json_object_set_new(o, "stacks", stacks);
    return o;
}

void bench__wire_row(FILE *f, const struct bench__row *row, size_t slot)
{
    json_t *e = event("row");
    json_object_set_new(e, "slot", count(slot));
    json_object_set_new(e, "name", text(row->name));
    json_object_set_new(e, "source", text(row->source));
    json_object_set_new(e, "labels", labels_json(row->labels, row->n_labels));
    json_object_set_new(e, "state", json_integer(row->state));
    json_object_set_new(e, "iterations", count(row->iterations));
    json_object_set_new(e, "samples", count(row->samples));
    json_t *stats = json_array();
    json_array_append_new(stats, real(row->stats.median));
    json_array_append_new(stats, real(row->stats.mad));
    json_array_append_new(stats, real(row->stats.min));
    json_array_append_new(stats, real(row->stats.max));
    json_object_set_new(e, "stats", stats);
    json_object_set_new(e, "cells", cells_json(row->cells, row->n_cells));
    json_object_set_new(e, "countIterations", count(row->count_iterations));
    json_object_set_new(e, "contention", real(row->contention));
    json_object_set_new(e, "error", text(row->error));
    if (row->profile)
        json_object_set_new(e, "profile", profile_json(row->profile));
    send(f, e);
}

void bench__wire_window(FILE *f, const struct bench__window *w)
{
    json_t *e = event("window");
    json_object_set_new(e, "name", text(w->name));
    json_object_set_new(e, "reps", count(w->reps));
    json_object_set_new(e, "state", json_integer(w->state));
    json_object_set_new(e, "error", text(w->error));
    const struct bench__window_time *t = &w->wall;
    json_t *wall = json_array();
    const double parts[6] = {t->wall_ns,          t->on_cpu_user_ns,
                             t->on_cpu_kernel_ns, t->offcpu_runqueue_ns,
                             t->offcpu_disk_ns,   t->offcpu_other_ns};
    for (int i = 0; i < 6; i++)
        json_array_append_new(wall, real(parts[i]));
    json_object_set_new(e, "wall", wall);
    json_object_set_new(e, "scope", t->scope ? text(t->scope) : json_null());
    json_object_set_new(e, "psiPresent", json_boolean(w->psi_present));
    json_t *psi = json_array();
    for (int i = 0; i < 5; i++)
        json_array_append_new(psi, real(w->psi[i]));
    json_object_set_new(e, "psi", psi);
    if (w->regime) {
        const struct bench__regime_stamp *r = w->regime;
        json_object_set_new(e, "regime",
                            json_pack("{s:b, s:i, s:i, s:o, s:o, s:o}", "present", r->present,
                                      "requested", (int)r->requested, "effective",
                                      (int)r->effective, "before", real(r->resident_before),
                                      "after", real(r->resident_after), "note", text(r->note)));
    }
    /* each total with its description: the supervisor knows no source */
    json_t *totals = json_array();
    for (size_t i = 0; i < w->n_totals; i++) {
        const struct bench__total_desc *d = w->totals[i].desc;
        json_array_append_new(
            totals,
            json_pack("[o, o, o, o, o, i, b, o, b]", text(d->object),
                      d->nest ? text(d->nest) : json_null(), d->key ? text(d->key) : json_null(),
                      text(d->header), d->metric ? text(d->metric) : json_null(), (int)d->format,
                      d->is_default, real(w->totals[i].value), w->totals[i].estimate));
    }
    json_object_set_new(e, "totals", totals);
    json_t *groups = json_array();
    for (size_t i = 0; i < w->n_groups; i++) {
        const struct bench__window_group *g = &w->groups[i];
        json_array_append_new(groups, json_pack("[o, b, o, i]", text(g->object), g->has_scale,
                                                real(g->scale), g->user_only));
    }
    json_object_set_new(e, "groups", groups);
    json_object_set_new(e, "note", text(w->note));
    send(f, e);
}

void bench__wire_entry(FILE *f, const char *type, size_t entry, size_t n)
{
    json_t *e = event(type);
    json_object_set_new(e, "entry", count(entry));
    json_object_set_new(e, "count", count(n));
    send(f, e);
}

void bench__wire_group_keys(FILE *f, char *const *keys, size_t n)
{
    json_t *e = event("group_keys");
    json_object_set_new(e, "keys", strings((const char *const *)keys, n));
    send(f, e);
}

void bench__wire_group_table(FILE *f, const char *group)
{
    json_t *e = event("group_table");
    json_object_set_new(e, "group", text(group));
    send(f, e);
}

void bench__wire_clock(FILE *f, double overhead_ns)
{
    json_t *e = event("clock");
    json_object_set_new(e, "ns", real(overhead_ns));
    send(f, e);
}

void bench__wire_rounds(FILE *f, unsigned rounds)
{
    json_t *e = event("rounds");
    json_object_set_new(e, "n", json_integer(rounds));
    send(f, e);
}

void bench__wire_provenance(FILE *f, const char *fact)
{
    json_t *e = event("provenance");
    json_object_set_new(e, "fact", text(fact));
    send(f, e);
}

void bench__wire_said(FILE *f, const char *key)
{
    json_t *e = event("said");
    json_object_set_new(e, "key", text(key));
    send(f, e);
}

void bench__wire_note(FILE *f, const char *note)
{
    json_t *e = event("note");
    json_object_set_new(e, "text", text(note));
    send(f, e);
}

void bench__wire_workloads_done(FILE *f)
{
    send(f, event("workloads_done"));
}

void bench__wire_done(FILE *f, int status)
{
    json_t *e = event("done");
    json_object_set_new(e, "status", json_integer(status));
    send(f, e);
}

/* ---- reading ---------------------------------------------------------------------------- */

static const char **strings_of(const json_t *a, size_t *n)
{
    *n = json_array_size(a);
    const char **list = bench__xcalloc(*n + 1, sizeof *list);
    for (size_t i = 0; i < *n; i++)
        list[i] = text_of(json_array_get(a, i));
    return list;
}

/* Labels borrowed from the event (valid while it lives). */
static struct bench__kv *labels_of(const json_t *a, size_t *n)
{
    *n = json_array_size(a);
    struct bench__kv *labels = bench__xcalloc(*n + 1, sizeof *labels);
    for (size_t i = 0; i < *n; i++) {
        const json_t *pair = json_array_get(a, i);
        labels[i] = (struct bench__kv){(char *)text_of(json_array_get(pair, 0)),
                                       (char *)text_of(json_array_get(pair, 1))};
    }
    return labels;
}

/* Cells with placeholder columns, and the names of their columns (both borrowed). */
static struct bench__cell *cells_of(const json_t *a, size_t *n, const char ***names)
{
    *n = json_array_size(a);
    struct bench__cell *cells = bench__xcalloc(*n + 1, sizeof *cells);
    *names = bench__xcalloc(*n + 1, sizeof **names);
    for (size_t i = 0; i < *n; i++) {
        const json_t *cell = json_array_get(a, i);
        (*names)[i] = text_of(json_array_get(cell, 0));
        cells[i].value = real_of(json_array_get(cell, 1));
        cells[i].estimate = json_is_true(json_array_get(cell, 2));
    }
    return cells;
}

static void read_columns(struct bench__collector *c, const json_t *e)
{
    const json_t *a = json_object_get(e, "cols");
    size_t n = json_array_size(a), n_doc, n_table, n_wl;
    struct bench__column_wire *cols = bench__xcalloc(n + 1, sizeof *cols);
    for (size_t i = 0; i < n; i++) {
        const json_t *col = json_array_get(a, i);
        cols[i] = (struct bench__column_wire){
            .name = text_of(json_object_get(col, "name")),
            .header = text_of(json_object_get(col, "header")),
            .source = text_of(json_object_get(col, "source")),
            .format = (enum bench__format)json_integer_value(json_object_get(col, "format")),
            .cls = (enum bench__class)json_integer_value(json_object_get(col, "class")),
            .is_default = json_is_true(json_object_get(col, "default")),
        };
    }
    const char **doc = strings_of(json_object_get(e, "doc"), &n_doc);
    const char **table = strings_of(json_object_get(e, "table"), &n_table);
    const char **wl = strings_of(json_object_get(e, "wl"), &n_wl);
    bench__collect_columns(c, cols, n, doc, n_doc, table, n_table, wl, n_wl);
    free(cols);
    free(doc);
    free(table);
    free(wl);
}

static void read_begin(struct bench__collector *c, const json_t *e)
{
    size_t n_labels;
    struct bench__kv *labels = labels_of(json_object_get(e, "labels"), &n_labels);
    bench__collect_begin(c, (enum bench__item)json_integer_value(json_object_get(e, "item")),
                         (size_t)count_of(json_object_get(e, "entry")),
                         text_of(json_object_get(e, "name")), labels, n_labels,
                         (unsigned)json_integer_value(json_object_get(e, "round")),
                         (unsigned)json_integer_value(json_object_get(e, "rounds")));
    free(labels);
}

/* Text of a member that must be a string: a copy, or NULL when it is missing or not text. */
static char *text_copy(const json_t *v)
{
    return json_is_string(v) || json_is_object(v) ? bench__xstrdup(text_of(v)) : NULL;
}

static struct bench__profile_entry *entries_of(const json_t *a, size_t *n)
{
    size_t size = json_array_size(a);
    struct bench__profile_entry *e = bench__xcalloc(size + 1, sizeof *e);
    *n = 0;
    for (size_t i = 0; i < size; i++) {
        const json_t *x = json_array_get(a, i);
        char *name = text_copy(json_array_get(x, 0));
        if (!name)
            continue; /* a malformed entry is dropped, never guessed */
        e[(*n)++] = (struct bench__profile_entry){name, text_copy(json_array_get(x, 1)),
                                                  count_of(json_array_get(x, 2))};
    }
    return e;
}

/* The profile of a row event; NULL when it has none (or it is not an object). */
static struct bench__profile *profile_of(const json_t *o)
{
    if (!json_is_object(o))
        return NULL;
    struct bench__profile *p = bench__xcalloc(1, sizeof *p);
    p->unavailable = text_copy(json_object_get(o, "unavailable"));
    if (p->unavailable) {
        p->hz = p->hz_reached = p->running_ns = NAN;
        return p;
    }
    p->event = text_copy(json_object_get(o, "event"));
    p->hz = real_of(json_object_get(o, "hz"));
    p->hz_reached = real_of(json_object_get(o, "hzReached"));
    p->running_ns = real_of(json_object_get(o, "runningNs"));
    p->iterations = count_of(json_object_get(o, "iterations"));
    p->samples = count_of(json_object_get(o, "samples"));
    p->lost = count_of(json_object_get(o, "lost"));
    p->chains = json_is_true(json_object_get(o, "chains"));
    p->note = text_copy(json_object_get(o, "note"));
    p->hot = text_copy(json_object_get(o, "hot"));
    p->self = entries_of(json_object_get(o, "self"), &p->n_self);
    p->inclusive = entries_of(json_object_get(o, "inclusive"), &p->n_inclusive);
    p->lines = entries_of(json_object_get(o, "lines"), &p->n_lines);
    p->unsymbolised = entries_of(json_object_get(o, "unsymbolised"), &p->n_unsymbolised);
    p->n_unsymbolised_samples = count_of(json_object_get(o, "unsymbolisedSamples"));
    const json_t *stacks = json_object_get(o, "stacks");
    size_t n = json_array_size(stacks);
    p->stacks = bench__xcalloc(n + 1, sizeof *p->stacks);
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(stacks, i);
        char *frames = text_copy(json_array_get(x, 0));
        if (frames)
            p->stacks[p->n_stacks++] =
                (struct bench__profile_stack){frames, count_of(json_array_get(x, 1))};
    }
    return p;
}

static void read_row(struct bench__collector *c, const json_t *e)
{
    const json_t *stats = json_object_get(e, "stats");
    struct bench__row row = {
        .name = (char *)text_of(json_object_get(e, "name")),
        .source = (char *)text_of(json_object_get(e, "source")),
        .state = (enum bench__row_state)json_integer_value(json_object_get(e, "state")),
        .iterations = count_of(json_object_get(e, "iterations")),
        .samples = (size_t)count_of(json_object_get(e, "samples")),
        .stats = {real_of(json_array_get(stats, 0)), real_of(json_array_get(stats, 1)),
                  real_of(json_array_get(stats, 2)), real_of(json_array_get(stats, 3))},
        .count_iterations = count_of(json_object_get(e, "countIterations")),
        .contention = real_of(json_object_get(e, "contention")),
        .error = (char *)text_of(json_object_get(e, "error")),
    };
    row.labels = labels_of(json_object_get(e, "labels"), &row.n_labels);
    const char **names;
    row.cells = cells_of(json_object_get(e, "cells"), &row.n_cells, &names);
    row.profile = profile_of(json_object_get(e, "profile"));
    bench__collect_row(c, &row, names, (size_t)count_of(json_object_get(e, "slot")));
    bench__profile_free(row.profile);
    free(row.labels);
    free(row.cells);
    free(names);
}

static void read_window(struct bench__collector *c, const json_t *e)
{
    const json_t *wall = json_object_get(e, "wall"), *psi = json_object_get(e, "psi");
    const json_t *scope = json_object_get(e, "scope");
    struct bench__window w = {
        .name = (char *)text_of(json_object_get(e, "name")),
        .reps = (uint32_t)count_of(json_object_get(e, "reps")),
        .state = (enum bench__row_state)json_integer_value(json_object_get(e, "state")),
        .error = (char *)text_of(json_object_get(e, "error")),
        .wall = {real_of(json_array_get(wall, 0)), real_of(json_array_get(wall, 1)),
                 real_of(json_array_get(wall, 2)), real_of(json_array_get(wall, 3)),
                 real_of(json_array_get(wall, 4)), real_of(json_array_get(wall, 5)), NULL},
        .psi_present = json_is_true(json_object_get(e, "psiPresent")),
        .note = (char *)text_of(json_object_get(e, "note")),
    };
    /* the scope is one of the decomposition's two static words */
    if (json_is_string(scope))
        w.wall.scope = !strcmp(json_string_value(scope), "thread") ? "thread" : "process";
    for (int i = 0; i < 5; i++)
        w.psi[i] = real_of(json_array_get(psi, i));
    struct bench__regime_stamp stamp;
    const json_t *r = json_object_get(e, "regime");
    if (json_is_object(r)) {
        memset(&stamp, 0, sizeof stamp);
        stamp.present = json_is_true(json_object_get(r, "present"));
        stamp.requested =
            (enum bench_cache_regime)json_integer_value(json_object_get(r, "requested"));
        stamp.effective =
            (enum bench_cache_regime)json_integer_value(json_object_get(r, "effective"));
        stamp.resident_before = real_of(json_object_get(r, "before"));
        stamp.resident_after = real_of(json_object_get(r, "after"));
        snprintf(stamp.note, sizeof stamp.note, "%s", text_of(json_object_get(r, "note")));
        w.regime = &stamp;
    }
    /* the texts of a total's description: copies until the collector has its own */
    const json_t *totals = json_object_get(e, "totals"), *groups = json_object_get(e, "groups");
    size_t n_totals = json_array_size(totals), n_groups = json_array_size(groups);
    struct bench__total_desc *descs = bench__xcalloc(n_totals + 1, sizeof *descs);
    w.totals = bench__xcalloc(n_totals + 1, sizeof *w.totals);
    for (size_t i = 0; i < n_totals; i++) {
        const json_t *x = json_array_get(totals, i);
        char *object = text_copy(json_array_get(x, 0)), *header = text_copy(json_array_get(x, 3));
        if (!object || !header) {
            free(object);
            free(header);
            continue; /* a malformed total is dropped, never guessed */
        }
        descs[w.n_totals] =
            (struct bench__total_desc){object,
                                       text_copy(json_array_get(x, 1)),
                                       text_copy(json_array_get(x, 2)),
                                       header,
                                       text_copy(json_array_get(x, 4)),
                                       (enum bench__format)json_integer_value(json_array_get(x, 5)),
                                       json_is_true(json_array_get(x, 6))};
        w.totals[w.n_totals] = (struct bench__total){
            &descs[w.n_totals], real_of(json_array_get(x, 7)), json_is_true(json_array_get(x, 8))};
        w.n_totals++;
    }
    w.groups = bench__xcalloc(n_groups + 1, sizeof *w.groups);
    char **group_names = bench__xcalloc(n_groups + 1, sizeof *group_names);
    for (size_t i = 0; i < n_groups; i++) {
        const json_t *x = json_array_get(groups, i);
        group_names[i] = text_copy(json_array_get(x, 0));
        w.groups[w.n_groups++] = (struct bench__window_group){
            group_names[i] ? group_names[i] : "", json_is_true(json_array_get(x, 1)),
            real_of(json_array_get(x, 2)), (int)json_integer_value(json_array_get(x, 3))};
    }
    bench__collect_window(c, &w);
    for (size_t i = 0; i < w.n_totals; i++) {
        free((char *)descs[i].object);
        free((char *)descs[i].nest);
        free((char *)descs[i].key);
        free((char *)descs[i].header);
        free((char *)descs[i].metric);
    }
    for (size_t i = 0; i < n_groups; i++)
        free(group_names[i]);
    free(group_names);
    free(descs);
    free(w.totals);
    free(w.groups);
}

int bench__wire_dispatch(struct bench__collector *c, const char *line, size_t len)
{
    json_t *e = json_loadb(line, len, 0, NULL);
    const char *type = e ? text_of(json_object_get(e, "t")) : "";
    size_t entry = e ? (size_t)count_of(json_object_get(e, "entry")) : 0;
    int rc = 0;
    if (!strcmp(type, "columns"))
        read_columns(c, e);
    else if (!strcmp(type, "begin"))
        read_begin(c, e);
    else if (!strcmp(type, "sync"))
        rc = 1;
    else if (!strcmp(type, "row"))
        read_row(c, e);
    else if (!strcmp(type, "window"))
        read_window(c, e);
    else if (!strcmp(type, "body_end"))
        bench__collect_body_end(c, entry);
    else if (!strcmp(type, "body_table"))
        bench__collect_body_table(c, entry);
    else if (!strcmp(type, "workload_end"))
        bench__collect_workload_end(c, entry, (size_t)count_of(json_object_get(e, "count")));
    else if (!strcmp(type, "workloads_done"))
        bench__collect_workloads_done(c);
    else if (!strcmp(type, "group_keys")) {
        size_t n;
        const char **keys = strings_of(json_object_get(e, "keys"), &n);
        bench__collect_group_keys(c, keys, n);
        free(keys);
    } else if (!strcmp(type, "group_table"))
        bench__collect_group_table(c, text_of(json_object_get(e, "group")));
    else if (!strcmp(type, "clock"))
        bench__collect_clock(c, real_of(json_object_get(e, "ns")));
    else if (!strcmp(type, "rounds"))
        bench__collect_rounds(c, (unsigned)json_integer_value(json_object_get(e, "n")));
    else if (!strcmp(type, "provenance"))
        bench__collect_provenance(c, text_of(json_object_get(e, "fact")));
    else if (!strcmp(type, "note"))
        bench__collect_note(c, text_of(json_object_get(e, "text")));
    else if (!strcmp(type, "said"))
        bench__collect_said(c, text_of(json_object_get(e, "key")));
    else if (!strcmp(type, "done"))
        bench__collect_done(c, (int)json_integer_value(json_object_get(e, "status")));
    else
        rc = -1;
    json_decref(e);
    free_decoded();
    return rc;
}
