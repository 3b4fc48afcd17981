/* SPDX-License-Identifier: MIT */
/* gbench.c: owns the --bench-format=gbench document: a run's rows in the JSON Google Benchmark
 * writes with --benchmark_format=json (a context and one "iteration" entry per row), with the
 * choices of docs/reference/formats.md. It measures nothing and invents no value. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <bench/version.h>

#include "../util/alloc.h"
#include "formats.h"
#include "json.h"

/* The keys of an entry: a client metric by one of these names is left out, never overwrites. */
static const char *const entry_keys[] = {
    "name",
    "family_index",
    "per_family_instance_index",
    "run_name",
    "run_type",
    "repetitions",
    "repetition_index",
    "iterations",
    "real_time",
    "cpu_time",
    "time_unit",
    "error_occurred",
    "error_message",
    "skipped",
    "skip_message",
    "label",
    "threads",
    "aggregate_name",
};

static bool is_entry_key(const char *name)
{
    for (size_t i = 0; i < sizeof entry_keys / sizeof *entry_keys; i++)
        if (!strcmp(name, entry_keys[i]))
            return true;
    return false;
}

static bool put(json_t *o, const char *key, json_t *value)
{
    return bench__json_put(o, key, value);
}

static json_t *context_json(const struct bench__meta *m)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    char version[64];
    snprintf(version, sizeof version, "libbench %s", bench_version_string());
    bool ok = put(o, "date", bench__json_string(m->date)) &&
              put(o, "host_name", bench__json_string(m->hostname));
    if (ok && m->online_cpus > 0)
        ok = put(o, "num_cpus", json_integer(m->online_cpus));
#ifdef NDEBUG
    const char *build = "release";
#else
    const char *build = "debug";
#endif
    ok = ok && put(o, "library_version", bench__json_string(version)) &&
         put(o, "library_build_type", bench__json_string(build)) &&
         put(o, "json_schema_version", json_integer(1));
    if (ok && m->clock_overhead_ns > 0)
        ok = put(o, "libbench_clock_overhead_ns", json_real(m->clock_overhead_ns));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The row's CPU time per iteration: the thread's CPU time over its kept samples, read between
 * samples (a batched row); NaN for a bench_case row, whose samples are single calls. */
static double cpu_time_ns(const struct bench__row *row)
{
    return bench__row_cpu_ns(row);
}

static const char *source_of(const struct bench__row *row)
{
    return row->source ? row->source : "";
}

/* Google Benchmark's family_index and per_family_instance_index: a family is the test that
 * registered the rows, numbered in order of first appearance; an instance is a row of it. */
static void number_families(const struct bench__report *r, size_t *family, size_t *instance)
{
    size_t families = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        size_t j = 0;
        while (j < i && strcmp(source_of(&r->rows[j]), source_of(&r->rows[i])))
            j++;
        if (j == i) {
            family[i] = families++;
            instance[i] = 0;
        } else {
            family[i] = family[j];
            instance[i] = 0;
            for (size_t k = j; k < i; k++)
                instance[i] += family[k] == family[i];
        }
    }
}

static bool put_measured(json_t *o, const struct bench__row *row)
{
    double iterations = (double)row->iterations * (double)row->samples;
    double cpu = cpu_time_ns(row);
    /* no CPU time measured: Google Benchmark's readers need a number, so the wall time is
     * repeated and context.libbench_cpu_time says so (docs/reference/formats.md) */
    if (!isfinite(cpu))
        cpu = row->stats.median;
    bool ok = put(o, "iterations", bench__json_number(iterations)) &&
              put(o, "real_time", json_real(row->stats.median)) &&
              put(o, "cpu_time", json_real(cpu)) && put(o, "time_unit", json_string("ns"));
    for (size_t i = 0; ok && i < row->n_cells; i++) {
        const struct bench__cell *cell = &row->cells[i];
        if (!cell->column || strcmp(cell->column->source, "client") || !isfinite(cell->value) ||
            is_entry_key(cell->column->name))
            continue; /* not measured: no counter (Google Benchmark has no null) */
        ok = put(o, cell->column->name, json_real(cell->value));
    }
    return ok;
}

static bool measured(const struct bench__row *row)
{
    return row->state == BENCH__ROW_OK && isfinite(row->stats.median);
}

static json_t *entry_json(const struct bench__row *row, size_t family, size_t instance)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    char *name = bench__doc_row_name(row);
    bool ok = put(o, "name", bench__json_string(name)) &&
              put(o, "family_index", json_integer((json_int_t)family)) &&
              put(o, "per_family_instance_index", json_integer((json_int_t)instance)) &&
              put(o, "run_name", bench__json_string(name)) &&
              put(o, "run_type", json_string("iteration")) &&
              put(o, "repetitions", json_integer(1)) &&
              put(o, "repetition_index", json_integer(0)) && put_measured(o, row);
    /* Google Benchmark's free-text label, which its readers show beside the row */
    const char *resolution = row->at_clock_resolution
                                 ? "at the clock's resolution: the median is within 2x of one "
                                   "clock read (context.libbench_clock_overhead_ns), and so are "
                                   "the rates derived from it"
                                 : NULL;
    const char *no_cpu =
        isfinite(cpu_time_ns(row)) ? NULL : "cpu_time not measured: real_time repeated";
    if (ok && (resolution || no_cpu)) {
        char *label =
            bench__xasprintf("%s%s%s", no_cpu ? no_cpu : "", no_cpu && resolution ? "; " : "",
                             resolution ? resolution : "");
        ok = put(o, "label", json_string(label));
        free(label);
    }
    free(name);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A row that measured nothing, in the context: its name and the reason. Google Benchmark writes
 * an error as times of 0, which its compare.py folds into the geometric mean; libbench writes
 * no time it did not measure, so the row stays out of "benchmarks". */
static json_t *unmeasured_json(const struct bench__row *row)
{
    json_t *o = json_object();
    char *name = bench__doc_row_name(row);
    const char *why = row->error && *row->error ? row->error : "not measured";
    bool ok =
        o && put(o, "name", bench__json_string(name)) &&
        put(o, "state", json_string(row->state == BENCH__ROW_SKIPPED ? "skipped" : "error")) &&
        put(o, "reason", bench__json_string(why));
    free(name);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* What cpu_time holds in this document, for its context. */
static const char *cpu_time_words(const struct bench__report *r)
{
    bool task_clock = false, repeated = false;
    for (size_t i = 0; i < r->n_rows; i++) {
        if (!measured(&r->rows[i]))
            continue;
        if (isfinite(cpu_time_ns(&r->rows[i])))
            task_clock = true;
        else
            repeated = true;
    }
    if (task_clock && repeated)
        return "the thread's CPU time per iteration, read between samples, where measured; "
               "else real_time repeated (not measured: a bench_case row, whose samples are "
               "single calls; its entry's label says so)";
    if (task_clock)
        return "the thread's CPU time per iteration, read between samples";
    return "real_time repeated: CPU time was not measured";
}

char *bench__gbench_render(const struct bench__report *report)
{
    json_t *doc = json_object();
    if (!doc)
        return NULL;
    json_t *context = context_json(&report->meta);
    json_t *benchmarks = json_array();
    bool ok = put(doc, "context", context) &&
              put(context, "libbench_cpu_time", bench__json_string(cpu_time_words(report)));
    ok = ok ? put(doc, "benchmarks", benchmarks) : (json_decref(benchmarks), false);
    size_t *family = bench__xcalloc(report->n_rows + 1, sizeof *family);
    size_t *instance = bench__xcalloc(report->n_rows + 1, sizeof *instance);
    if (ok)
        number_families(report, family, instance);
    json_t *unmeasured = NULL;
    for (size_t i = 0; ok && i < report->n_rows; i++) {
        const struct bench__row *row = &report->rows[i];
        if (measured(row)) {
            json_t *e = entry_json(row, family[i], instance[i]);
            ok = e && json_array_append_new(benchmarks, e) == 0;
            continue;
        }
        if (!unmeasured) {
            unmeasured = json_array();
            ok = put(context, "libbench_unmeasured", unmeasured);
        }
        json_t *e = ok ? unmeasured_json(row) : NULL;
        ok = e && json_array_append_new(unmeasured, e) == 0;
    }
    free(family);
    free(instance);
    char *text = ok ? bench__json_dump(doc) : NULL;
    json_decref(doc);
    return text;
}
