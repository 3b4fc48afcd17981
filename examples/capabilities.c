/* SPDX-License-Identifier: MIT */
/* capabilities.c: the program a newcomer copies to ask libbench what this host can measure. It
 * opens the catalog, prints the metrics it can measure, the ones it cannot with the reason, and
 * every capability of every source, then closes the catalog. It registers no test and needs no
 * test runner: `./capabilities` is the whole command. */
#include <stdbool.h>
#include <stdio.h>

#include <bench/catalog.h>
#include <bench/errors.h>

/* One line per metric whose `available` is `wanted`: name, column, source, then whether a table
 * shows it by default, or why it cannot be measured. Returns 0 or a libbench error code. */
static int print_metrics(const bench_catalog_t *cat, bool wanted)
{
    size_t shown = 0;
    for (size_t i = 0; i < bench_catalog_metric_count(cat); i++) {
        struct bench_metric_info m = BENCH_METRIC_INFO_INIT;
        int rc = bench_catalog_metric(cat, i, &m);
        if (rc != 0)
            return rc;
        if (m.available != wanted)
            continue;
        printf("  %-19s %-16s %-9s", m.name, m.column, m.source);
        if (m.available)
            printf(" %s\n", m.is_default ? "default" : "on request");
        else
            printf(" \xe2\x80\x94 %s\n", m.reason); /* an em dash, then why not */
        shown++;
    }
    if (shown == 0)
        printf("  (none)\n");
    return 0;
}

/* One line per capability: its source, its name, present or absent and, if absent, why. */
static int print_capabilities(const bench_catalog_t *cat)
{
    for (size_t i = 0; i < bench_catalog_capability_count(cat); i++) {
        struct bench_capability_info c = BENCH_CAPABILITY_INFO_INIT;
        int rc = bench_catalog_capability(cat, i, &c);
        if (rc != 0)
            return rc;
        printf("  %-9s %-15s %s", c.source, c.name, c.present ? "present" : "absent");
        if (!c.present)
            printf(" \xe2\x80\x94 %s", c.reason);
        printf("\n");
    }
    return 0;
}

int main(void)
{
    bench_catalog_t *cat;
    int rc = bench_catalog_open(&cat); /* probes every counting source once */
    if (rc != 0) {
        fprintf(stderr, "capabilities: bench_catalog_open: %s\n", bench_strerror(rc));
        return 1;
    }
    printf("measurable on this host:\n");
    rc = print_metrics(cat, true);
    if (rc == 0) {
        printf("not measurable on this host:\n");
        rc = print_metrics(cat, false);
    }
    if (rc == 0) {
        printf("capabilities:\n");
        rc = print_capabilities(cat);
    }
    bench_catalog_close(cat); /* every string the infos pointed to is freed here */
    if (rc != 0) {
        fprintf(stderr, "capabilities: %s\n", bench_strerror(rc));
        return 1;
    }
    return 0;
}
