/* SPDX-License-Identifier: MIT */
/* fuzz_results_line.c: the libFuzzer target over the raw results line reader
 * (results/results_raw.c's results_line_parse), which `libbench record`, `report` and `results
 * rebuild` run on every line of a raw JSONL object: the input split into lines as the store splits
 * an object, each line read back or refused with one clean line; a line read has every field the
 * store and the index use; a line the fast reader (results_line_fast.c) reads, jansson's reader
 * reads too, with the same fields. Seeds: tests/fuzz/corpus-lines/. */
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
                fuzz_invariant((l.root || l.text) && l.timestamp_utc && l.metrics_json,
                               "a line has its text");
                fuzz_invariant(m->bench_id && m->subject && m->profile && m->scenario &&
                                   m->operation && m->host_id,
                               "a line has every identity field");
                fuzz_invariant(m->returncode == 0 || isnan(m->value_ns),
                               "a failed or skipped line has no value");
                results_line_free(&l);
                struct results_line f, j;
                if (results_line_parse_fast(text + pos, end - pos, &f)) {
                    fuzz_invariant(
                        results_line_parse_jansson(text + pos, end - pos, &j, why, sizeof why) == 0,
                        "a line read fast is read by jansson's reader");
                    fuzz_invariant(!strcmp(f.m.scenario, j.m.scenario) &&
                                       !strcmp(f.m.operation, j.m.operation) &&
                                       !strcmp(f.metrics_json, j.metrics_json) &&
                                       f.m.run == j.m.run && f.m.returncode == j.m.returncode,
                                   "the fast reader reads a line as jansson's reader does");
                    results_line_free(&f);
                    results_line_free(&j);
                }
            } else {
                fuzz_check_message(why);
            }
        }
        pos = end + 1;
    }
    return 0;
}
