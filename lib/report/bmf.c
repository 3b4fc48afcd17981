/* SPDX-License-Identifier: MIT */
/* bmf.c: owns the --bench-format=bmf document: a run's rows in Bencher's Metric Format (one
 * object per benchmark, one measure per metric: the median as "latency" between its min and
 * max, each measured client metric as its own measure). docs/reference/formats.md says what is
 * left out and why. It measures nothing and writes no value that was not measured. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../util/alloc.h"
#include "../util/text.h"
#include "formats.h"
#include "json.h"

/* Bencher's limits: a benchmark name up to 1024 characters, a measure's name up to 64. */
#define BMF_NAME_MAX 1024
#define BMF_MEASURE_MAX 64
#define LATENCY "latency"

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* One measure: value, and its bounds when given (NaN = none). */
static json_t *measure(double value, double lower, double upper)
{
    json_t *o = json_object();
    bool ok = o && bench__json_put(o, "value", json_real(value));
    if (ok && isfinite(lower) && isfinite(upper))
        ok = bench__json_put(o, "lower_value", json_real(lower)) &&
             bench__json_put(o, "upper_value", json_real(upper));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *benchmark_json(const struct bench__row *row)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    const struct bench__summary *st = &row->stats;
    bool ok = bench__json_put(o, LATENCY, measure(st->median, st->min, st->max));
    for (size_t i = 0; ok && i < row->n_cells; i++) {
        const struct bench__cell *cell = &row->cells[i];
        const char *name = cell->column ? cell->column->name : NULL;
        /* not measured, not the client's, or a name Bencher would refuse: no measure */
        if (!name || strcmp(cell->column->source, "client") || !isfinite(cell->value) || !*name ||
            utf8_chars(name) > BMF_MEASURE_MAX || !strcmp(name, LATENCY))
            continue;
        ok = bench__json_put(o, name, measure(cell->value, NAN, NAN));
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A name not yet in doc: the row's, or with "#2", "#3", ... for a row whose name and labels an
 * earlier row has (malloc'd). */
static char *unique_name(json_t *doc, const struct bench__row *row)
{
    char *base = bench__doc_row_name(row);
    if (!base)
        return NULL;
    char *repaired = bench__utf8_repair(base); /* the key as it is written */
    free(base);
    if (!repaired)
        return NULL;
    if (!json_object_get(doc, repaired))
        return repaired;
    for (unsigned k = 2;; k++) {
        char *name = bench__xasprintf("%s#%u", repaired, k);
        if (!json_object_get(doc, name)) {
            free(repaired);
            return name;
        }
        free(name);
    }
}

char *bench__bmf_render(const struct bench__report *report)
{
    json_t *doc = json_object();
    bool ok = doc != NULL;
    for (size_t i = 0; ok && i < report->n_rows; i++) {
        const struct bench__row *row = &report->rows[i];
        /* BMF has no place for an error or a skip: such a row is left out */
        if (row->state != BENCH__ROW_OK || !isfinite(row->stats.median))
            continue;
        char *name = unique_name(doc, row);
        ok = name != NULL;
        if (ok && *name && utf8_chars(name) <= BMF_NAME_MAX)
            ok = bench__json_put(doc, name, benchmark_json(row));
        free(name);
    }
    char *text = ok ? bench__json_dump(doc) : NULL;
    json_decref(doc);
    return text;
}
