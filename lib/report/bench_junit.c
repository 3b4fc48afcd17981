/* SPDX-License-Identifier: MIT */
/* bench_junit.c: owns --bench --junit's document: a test case per benchmark row, in measurement
 * order, named as the foreign formats name rows (model/row.h). It judges no row (the row's state
 * does) and compares nothing with a baseline (libbench compare does). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/junit.h"
#include "bench_junit.h"

/* A value in ns with its unit in the name: unmeasured is no property (never 0). */
static size_t add_ns(struct bench__junit_property *props, size_t n, char (*buf)[40],
                     const char *name, double value)
{
    if (!isfinite(value))
        return n;
    snprintf(buf[n], sizeof buf[n], "%.6g", value);
    props[n] = (struct bench__junit_property){name, buf[n]};
    return n + 1;
}

int bench__bench_junit_write(const char *path, const char *suite_name,
                             const struct bench__row *rows, size_t n)
{
    struct bench__junit_case *cases = bench__xcalloc(n + 1, sizeof *cases);
    struct bench__junit_property(*props)[6] = bench__xcalloc(n + 1, sizeof *props);
    char(*values)[6][40] = bench__xcalloc(n + 1, sizeof *values);
    char **names = bench__xcalloc(n + 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        const struct bench__row *row = &rows[i];
        struct bench__junit_case *k = &cases[i];
        names[i] = bench__doc_row_name(row);
        *k = (struct bench__junit_case){
            .classname = row->source ? row->source : row->name,
            .name = names[i],
            .time_s = NAN,
        };
        if (row->state == BENCH__ROW_ERROR) {
            k->result = BENCH__JUNIT_FAILURE;
            k->type = "benchmark error";
            k->message = row->error && row->error[0] ? row->error : "the row was not measured";
            k->body = k->message;
            k->body_len = strlen(k->message);
        } else if (row->state == BENCH__ROW_SKIPPED) {
            k->result = BENCH__JUNIT_SKIP;
            k->message = row->error && row->error[0] ? row->error : "skipped";
        } else {
            size_t np = 0;
            np = add_ns(props[i], np, values[i], "median_ns", row->stats.median);
            np = add_ns(props[i], np, values[i], "mad_ns", row->stats.mad);
            np = add_ns(props[i], np, values[i], "min_ns", row->stats.min);
            np = add_ns(props[i], np, values[i], "max_ns", row->stats.max);
            snprintf(values[i][np], sizeof values[i][np], "%zu", row->samples);
            props[i][np] = (struct bench__junit_property){"samples", values[i][np]};
            np++;
            snprintf(values[i][np], sizeof values[i][np], "%llu",
                     (unsigned long long)row->iterations);
            props[i][np] = (struct bench__junit_property){"iterations", values[i][np]};
            np++;
            k->props = props[i];
            k->n_props = np;
        }
    }
    int rc = bench__junit_write(path, suite_name, cases, n, NAN);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(values);
    free(props);
    free(cases);
    return rc;
}
