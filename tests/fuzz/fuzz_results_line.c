/* SPDX-License-Identifier: MIT */
/* fuzz_results_line.c: the libFuzzer target over the raw results line reader
 * (results/results_raw.c's results_line_parse), which `libbench record`, `report` and `results
 * rebuild` run on every line of a raw JSONL object: the input split into lines as the store splits
 * an object, each line read back or refused with one clean line; a line read has every field the
 * store and the index use. Seeds: tests/fuzz/corpus-lines/. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "results/results_tool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    for (size_t pos = 0; pos < size;) {
        const char *nl = memchr(text + pos, '\n', size - pos);
        size_t end = nl ? (size_t)(nl - text) : size;
        if (end > pos) {
            char why[256];
            why[0] = '\0';
            struct results_line l;
            if (results_line_parse(text + pos, end - pos, &l, why, sizeof why) == 0) {
                const struct bench__result_measurement *m = &l.m;
                fuzz_invariant(l.root && l.timestamp_utc && l.metrics_json, "a line has its text");
                fuzz_invariant(m->bench_id && m->subject && m->profile && m->scenario &&
                                   m->operation && m->host_id,
                               "a line has every identity field");
                fuzz_invariant(m->returncode == 0 || isnan(m->value_ns),
                               "a failed or skipped line has no value");
                results_line_free(&l);
            } else {
                fuzz_check_message(why);
            }
        }
        pos = end + 1;
    }
    return 0;
}
