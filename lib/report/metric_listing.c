/* SPDX-License-Identifier: MIT */
/* metric_listing.c: owns how the catalog looks in --list-metrics: one table row per metric, the
 * capability block with each absence's reason, the metrics a counting source still lacks with
 * theirs, and the wall source's run-queue line. It reads the catalog's records (the public
 * info structs a program reads), never the catalog itself, and probes nothing. */
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "metric_listing.h"
#include "table.h"

/* Does `source` report its counting capability present? */
static bool source_counts(const struct bench_capability_info *caps, size_t n_caps,
                          const char *source)
{
    for (size_t i = 0; i < n_caps; i++)
        if (!strcmp(caps[i].source, source) && !strcmp(caps[i].name, "counting"))
            return caps[i].present;
    return false;
}

void bench__metric_listing(FILE *out, const struct bench_metric_info *metrics, size_t n_rows,
                           const struct bench_capability_info *caps, size_t n_caps)
{
    static const struct bench__column columns[] = {
        {"metric", BENCH__LEFT}, {"column", BENCH__LEFT},    {"class", BENCH__LEFT},
        {"source", BENCH__LEFT}, {"available", BENCH__LEFT},
    };
    const char **cells = bench__xcalloc(n_rows * 5 + 1, sizeof *cells);
    for (size_t r = 0; r < n_rows; r++) {
        const struct bench_metric_info *m = &metrics[r];
        cells[r * 5 + 0] = m->name;
        cells[r * 5 + 1] = m->column;
        cells[r * 5 + 2] = m->klass;
        cells[r * 5 + 3] = m->source;
        cells[r * 5 + 4] = m->available ? "yes" : "no";
    }
    struct bench__table_memory memory = {0};
    struct bench__table table = {
        .columns = columns, .n_columns = 5, .cells = (char **)cells, .n_rows = n_rows};
    bench__table_render(out, &table, &memory);
    bench__table_memory_free(&memory);
    free(cells);

    size_t width = 0;
    for (size_t i = 0; i < n_caps; i++)
        if (strlen(caps[i].source) > width)
            width = strlen(caps[i].source);
    fprintf(out, "\ncapabilities:\n");
    const char *previous = NULL;
    for (size_t i = 0; i < n_caps; i++) {
        const struct bench_capability_info *c = &caps[i];
        bool first = !previous || strcmp(previous, c->source) != 0;
        previous = c->source;
        fprintf(out, "  %-*s %s %s", (int)width, first ? c->source : "",
                c->present ? "\xe2\x9c\x93" : "\xe2\x9c\x97", c->name);
        if (!c->present)
            fprintf(out, " \xe2\x80\x94 %s", c->reason);
        fputc('\n', out);
    }
    /* the metrics a source that counts still cannot measure, with why (none on a Linux host
     * that has every field): one line per source and reason */
    bool heading = false, *said = bench__xcalloc(n_rows + 1, sizeof *said);
    for (size_t r = 0; r < n_rows; r++) {
        const struct bench_metric_info *m = &metrics[r];
        if (said[r] || m->available || !source_counts(caps, n_caps, m->source))
            continue;
        if (!heading)
            fprintf(out, "\nunavailable metrics of a source that counts:\n");
        heading = true;
        fprintf(out, "  %-*s %s", (int)width, m->source, m->name);
        for (size_t q = r + 1; q < n_rows; q++) {
            const struct bench_metric_info *other = &metrics[q];
            if (!other->available && !strcmp(other->source, m->source) &&
                !strcmp(other->reason, m->reason)) {
                fprintf(out, ", %s", other->name);
                said[q] = true;
            }
        }
        fprintf(out, " \xe2\x80\x94 %s\n", m->reason);
    }
    free(said);
    /* the wall source's run-queue line: where run-queue wait comes from, or why it cannot */
    for (size_t i = 0; i < n_caps; i++)
        if (!strcmp(caps[i].source, "wall") && !strcmp(caps[i].name, "counting") && caps[i].detail)
            fprintf(out, "\n%s\n", caps[i].detail);
    fprintf(out, "\nClient metrics (bench_case .metrics) appear per benchmark as <unit>/s or "
                 "<unit>.\n");
}
