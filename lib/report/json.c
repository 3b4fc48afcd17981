/* SPDX-License-Identifier: MIT */
/* json.c: owns the --bench-json document (schema 2): the rows as a jansson tree, the number
 * rules and the atomic write. It measures, sorts and groups nothing, and never prints JSON. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../util/atomic_file.h"
#include "../util/text.h"
#include "json.h"
#include "profile_json.h"

#define SCHEMA_VERSION 2
#define EXACT_INT_MAX 9007199254740992.0 /* 2^53: every integer up to here is a double */

/* JSON_PRESERVE_ORDER is a no-op since jansson 2.8 (objects always keep insertion order);
 * it is passed so an older jansson behaves the same. JSON_REAL_PRECISION(15) makes reals
 * "%.15g" with the exponent's '+' and leading zeros dropped (1.23456789e-5): every digit a
 * double holds without the noise of the 16th and 17th (0.1, not 0.10000000000000001). */
#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/* ---- values -------------------------------------------------------------------------- */

/* The number rules of docs/reference/bench-json.md ("Numbers"): not finite -> null; integral with
 * |v| <= 2^53 -> an integer; otherwise a real of 15 significant digits (DUMP_FLAGS): a count of
 * 884856000.5 per iteration keeps every digit it was measured with. */
static json_t *number(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == trunc(v) && fabs(v) <= EXACT_INT_MAX)
        return json_integer((json_int_t)v); /* -0.0 becomes 0 */
    return json_real(v);
}

static json_t *count(uint64_t v)
{
    if (v <= (uint64_t)EXACT_INT_MAX)
        return json_integer((json_int_t)v);
    return number((double)v);
}

static json_t *text(const char *s)
{
    if (!s)
        s = "";
    if (bench__utf8_valid(s))
        return json_string(s);
    char *fixed = bench__utf8_repair(s);
    json_t *v = json_string(fixed);
    free(fixed);
    return v;
}

/* Add value under key, consuming value. False when value is NULL (a failed constructor)
 * or on out of memory. */
static bool put(json_t *obj, const char *key, json_t *value)
{
    return value && json_object_set_new(obj, key, value) == 0;
}

/* put() for a key that comes from client data. */
static bool put_text_key(json_t *obj, const char *key, json_t *value)
{
    if (!key)
        key = "";
    if (bench__utf8_valid(key))
        return put(obj, key, value);
    char *fixed = bench__utf8_repair(key);
    bool ok = put(obj, fixed, value);
    free(fixed);
    return ok;
}

static bool append(json_t *array, json_t *value)
{
    return value && json_array_append_new(array, value) == 0;
}

/* The rules above for the other formats of the document (report/formats.c). */
json_t *bench__json_number(double v)
{
    return number(v);
}

json_t *bench__json_string(const char *s)
{
    return text(s);
}

bool bench__json_put(json_t *obj, const char *key, json_t *value)
{
    return put_text_key(obj, key, value);
}

/* ---- the document ------------------------------------------------------------------------ */

/* -1 (unknown) is null. */
static json_t *tristate(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

static json_t *environment_json(const struct bench__environment *env)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_t *warnings = json_array(), *unknown = json_object();
    bool ok = put(o, "governor", env->governor ? text(env->governor) : json_null()) &&
              put(o, "boost", tristate(env->boost)) && put(o, "build", text(env->build)) &&
              put(o, "hardwarePmu", tristate(env->hardware_pmu)) &&
              put(o, "hypervisor", tristate(env->hypervisor)) &&
              put(o, "loadAverage", number(env->load_avg)) &&
              put(o, "cpus", env->cpus ? count(env->cpus) : json_null());
    ok = ok ? put(o, "warnings", warnings) : (json_decref(warnings), false);
    ok = ok ? put(o, "unknown", unknown) : (json_decref(unknown), false);
    for (size_t i = 0; ok && i < env->n_warnings; i++)
        ok = append(warnings, text(env->warnings[i]));
    for (size_t i = 0; ok && i < env->n_unknown; i++)
        ok = put_text_key(unknown, env->unknown[i].key, text(env->unknown[i].value));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *meta_json(const struct bench__meta *m)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok = put(o, "date", text(m->date)) && put(o, "hostname", text(m->hostname)) &&
              put(o, "os", text(m->os)) && put(o, "arch", text(m->arch)) &&
              put(o, "compiler", text(m->compiler)) && put(o, "cpu", text(m->cpu)) &&
              put(o, "minSampleTimeMs", count(m->min_time_ms)) &&
              put(o, "sampleCount", count(m->sample_count)) &&
              put(o, "contentionThreshold", number(BENCH__CONTENTION_MARK));
    if (ok && m->rounds > 1)
        ok = put(o, "rounds", count(m->rounds));
    if (ok && !isnan(m->clock_overhead_ns))
        ok = put(o, "clockOverheadNs", number(m->clock_overhead_ns)) &&
             put(o, "clockResolutionFactor", number(BENCH__CLOCK_RESOLUTION_FACTOR));
    if (ok && m->incomplete)
        ok = put(o, "incomplete", text(m->incomplete));
    if (ok && m->environment)
        ok = put(o, "environment", environment_json(m->environment));
    if (ok && m->n_provenance > 0) {
        json_t *a = json_array();
        ok = put(o, "provenance", a);
        for (size_t i = 0; ok && i < m->n_provenance; i++)
            ok = append(a, text(m->provenance[i]));
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *column_json(const struct bench__column_desc *c)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (!(put(o, "name", text(c->name)) && put(o, "header", text(c->header)) &&
          put(o, "format", text(bench__format_name(c->format))) &&
          put(o, "class", text(bench__class_name(c->cls))) && put(o, "source", text(c->source)))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *labels_json(const struct bench__row *row)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    for (size_t i = 0; i < row->n_labels; i++) {
        if (!put_text_key(o, row->labels[i].key, text(row->labels[i].value))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* metrics (every cell, row-cell order) and, when a cell is an estimate, estimatedMetrics. */
static bool put_metrics(json_t *o, const struct bench__row *row)
{
    json_t *metrics = json_object();
    if (!put(o, "metrics", metrics))
        return false;
    json_t *estimated = NULL;
    for (size_t i = 0; i < row->n_cells; i++) {
        const struct bench__cell *cell = &row->cells[i];
        if (!cell->column)
            continue;
        if (!put_text_key(metrics, cell->column->name, number(cell->value)))
            return false;
        if (!cell->estimate)
            continue;
        if (!estimated) {
            estimated = json_array();
            if (!put(o, "estimatedMetrics", estimated))
                return false;
        }
        if (!append(estimated, text(cell->column->name)))
            return false;
    }
    /* the cells counted one call per bracket: what the empty bracket they include read */
    json_t *bracket = NULL;
    for (size_t i = 0; i < row->n_cells; i++) {
        const struct bench__cell *cell = &row->cells[i];
        if (!cell->column || !(cell->bracket > 0))
            continue;
        if (!bracket) {
            bracket = json_object();
            if (!put(o, "bracketIncluded", bracket))
                return false;
        }
        if (!put_text_key(bracket, cell->column->name, number(cell->bracket)))
            return false;
    }
    return true;
}

static json_t *row_json(const struct bench__row *row)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok = put(o, "name", text(row->name)) && put(o, "labels", labels_json(row));
    if (row->state == BENCH__ROW_OK) {
        ok = ok && put(o, "iterations", count(row->iterations)) &&
             put(o, "samples", count(row->samples)) &&
             put(o, "medianNs", number(row->stats.median)) &&
             put(o, "deviationNs", number(row->stats.mad)) &&
             put(o, "minNs", number(row->stats.min)) && put(o, "maxNs", number(row->stats.max)) &&
             put_metrics(o, row);
        if (ok && row->count_iterations > 0)
            ok = put(o, "countIterations", count(row->count_iterations));
        if (ok && isfinite(bench__row_cpu_ns(row)))
            ok = put(o, "cpuNs", number(bench__row_cpu_ns(row)));
        if (ok && row->at_clock_resolution)
            ok = put(o, "atClockResolution", json_true());
        if (ok && row->profile)
            ok = put(o, "profile", bench__profile_json(row->profile));
    } else {
        /* error and skipped rows: nothing was measured, only the reason is reported */
        static const char *const timing[] = {"iterations",  "samples", "medianNs",
                                             "deviationNs", "minNs",   "maxNs"};
        for (size_t i = 0; ok && i < sizeof timing / sizeof *timing; i++)
            ok = put(o, timing[i], json_null());
        ok = ok && put(o, "metrics", json_object());
    }
    ok = ok && put(o, "contention", number(row->state == BENCH__ROW_OK ? row->contention : NAN));
    ok = ok && put(o, "error", text(row->error));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The object of `parent` under `key`, made when missing; NULL on out of memory. */
static json_t *member_object(json_t *parent, const char *key)
{
    json_t *o = json_object_get(parent, key);
    if (o)
        return o;
    o = json_object();
    return put_text_key(parent, key, o) ? o : NULL;
}

/* A window's counter totals: one object per source, each total under its own name (never a
 * per-iteration catalog id), then the group's scale (and userOnly) when it reports them. A
 * group without a scale lists its estimates (a model's, like callgrind's est-cycles) under
 * "estimated". */
static bool put_window_counters(json_t *o, const struct bench__window *win)
{
    for (size_t g = 0; g < win->n_groups; g++) {
        const struct bench__window_group *grp = &win->groups[g];
        json_t *group = member_object(o, grp->object);
        if (!group)
            return false;
        json_t *estimated = NULL;
        for (size_t i = 0; i < win->n_totals; i++) {
            const struct bench__total_desc *d = win->totals[i].desc;
            if (strcmp(d->object, grp->object) != 0 || !d->key)
                continue;
            json_t *into = d->nest ? member_object(group, d->nest) : group;
            if (!into || !put_text_key(into, d->key, number(win->totals[i].value)))
                return false;
            if (!grp->has_scale && win->totals[i].estimate && !isnan(win->totals[i].value)) {
                if (!estimated && !put(group, "estimated", estimated = json_array()))
                    return false;
                if (!append(estimated, text(d->key)))
                    return false;
            }
        }
        if (grp->has_scale && !put(group, "scale", number(grp->scale)))
            return false;
        if (grp->user_only >= 0 && !put(group, "userOnly", json_boolean(grp->user_only)))
            return false;
    }
    return true;
}

static json_t *window_json(const struct bench__window *win)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok_row = win->state == BENCH__ROW_OK;
    const struct bench__window_time *d = &win->wall;
    bool ok = put(o, "name", text(win->name)) && put(o, "reps", count(win->reps)) &&
              put(o, "wallNs", number(ok_row ? d->wall_ns : NAN)) &&
              put(o, "scope", ok_row && d->scope ? text(d->scope) : json_null()) &&
              put(o, "onCpuUserNs", number(ok_row ? d->on_cpu_user_ns : NAN)) &&
              put(o, "onCpuKernelNs", number(ok_row ? d->on_cpu_kernel_ns : NAN)) &&
              put(o, "offCpuRunqueueNs", number(ok_row ? d->offcpu_runqueue_ns : NAN)) &&
              put(o, "offCpuDiskNs", number(ok_row ? d->offcpu_disk_ns : NAN)) &&
              put(o, "offCpuOtherNs", number(ok_row ? d->offcpu_other_ns : NAN));
    if (ok && ok_row)
        ok = put_window_counters(o, win);
    if (ok && ok_row && win->psi_present) {
        json_t *psi = json_object();
        ok = put(o, "psi", psi) && put(psi, "scope", text("system")) &&
             put(psi, "ioSomeNs", number(win->psi[0])) &&
             put(psi, "ioFullNs", number(win->psi[1])) &&
             put(psi, "memSomeNs", number(win->psi[2])) &&
             put(psi, "memFullNs", number(win->psi[3])) &&
             put(psi, "cpuSomeNs", number(win->psi[4]));
    }
    if (ok && win->regime) {
        json_t *r = json_object();
        ok = put(o, "regime", r) &&
             put(r, "requested", text(bench__regime_json_word(win->regime->requested))) &&
             put(r, "effective", text(bench__regime_json_word(win->regime->effective))) &&
             put(r, "residentBefore", number(win->regime->resident_before)) &&
             put(r, "residentAfter", number(win->regime->resident_after));
        if (ok && win->regime->note[0])
            ok = put(r, "note", text(win->regime->note));
    }
    if (ok && win->note && win->note[0])
        ok = put(o, "note", text(win->note));
    ok = ok && put(o, "error", text(win->error));
    if (ok && win->state == BENCH__ROW_SKIPPED)
        ok = put(o, "skipped", json_true());
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *document(const struct bench__report *report)
{
    json_t *doc = json_object();
    if (!doc)
        return NULL;
    json_t *columns = json_array(), *rows = json_array();
    bool ok = put(doc, "schema", json_integer(SCHEMA_VERSION)) &&
              put(doc, "meta", meta_json(&report->meta));
    ok = ok ? put(doc, "columns", columns) : (json_decref(columns), false);
    ok = ok ? put(doc, "rows", rows) : (json_decref(rows), false);
    for (size_t i = 0; ok && i < report->n_columns; i++)
        ok = append(columns, column_json(report->columns[i]));
    for (size_t i = 0; ok && i < report->n_rows; i++)
        ok = append(rows, row_json(&report->rows[i]));
    /* only when workloads ran: a document without them is byte-identical to before */
    if (ok && report->has_windows) {
        json_t *windows = json_array();
        ok = put(doc, "windows", windows);
        for (size_t i = 0; ok && i < report->n_windows; i++)
            ok = append(windows, window_json(&report->windows[i]));
    }
    if (!ok) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

char *bench__json_render(const struct bench__report *report)
{
    json_t *doc = document(report);
    if (!doc)
        return NULL;
    char *t = bench__json_dump(doc);
    json_decref(doc);
    return t;
}

char *bench__json_dump(json_t *doc)
{
    /* Our own buffer, not json_dumps(): the text is freed with free() whatever allocator
     * the program gave jansson, and the trailing newline needs no second copy. */
    struct bench__text b = {0};
    int rc = json_dump_callback(doc, bench__text_append, &b, DUMP_FLAGS);
    if (rc != 0 || bench__text_append("\n", 1, &b) != 0) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

static int fail(const char *path, int e, char *err, size_t err_size)
{
    if (err && err_size > 0) {
        char shown[400]; /* one line whatever the path holds; a longer one is cut, and marked */
        bench__sanitize_copy(path, shown, sizeof shown);
        bench__fmt(err, err_size, "cannot write '%s': %s", shown, bench__write_file_strerror(e));
    }
    return -e;
}

int bench__json_write(const struct bench__report *report, const char *path, char *err,
                      size_t err_size)
{
    if (!path)
        return fail("", EINVAL, err, err_size);
    if (!*path)
        return fail(path, ENOENT, err, err_size);
    char *data = bench__json_render(report);
    if (!data)
        return fail(path, ENOMEM, err, err_size);
    size_t len = strlen(data);

    int e = bench__write_file(path, data, len);
    free(data);
    return e ? fail(path, e, err, err_size) : 0;
}
