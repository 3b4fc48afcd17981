/* SPDX-License-Identifier: MIT */
/* fuzz_record_doc.c: the libFuzzer target over `libbench record`'s document reader
 * (results/results_raw.c's results_doc_lines): a --bench-json or `libbench run --json` document
 * turned into raw lines, its rows refused one by one, or the whole document refused with one clean
 * line; every line it writes is one the store's own reader reads back (a writer never writes what
 * its reader refuses). Seeds: tests/fuzz/corpus/ and tests/fuzz/corpus-run/. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "results/results_tool.h"

static struct results_record_info info;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_invariant(results_time_stamp(1767225600, &info), "the record time stamps"); /* 2026 */
    info.profile = RESULTS_DEFAULT_PROFILE;
    info.subject = RESULTS_DEFAULT_SUBJECT;
    info.recorder_version = "0.0.0-fuzz";
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!info.profile)
        LLVMFuzzerInitialize(NULL, NULL);
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        return 0; /* record refuses it before this reader: jansson's error */
    json_t *rejected = json_array();
    struct bench__text out = {0};
    size_t run_base = 0;
    char err[512];
    err[0] = '\0';
    long n = results_doc_lines(doc, 0, &info, &run_base, &out, rejected, err, sizeof err);
    json_decref(doc);
    if (n < 0) {
        fuzz_invariant(n == -1, "a refused document returns -1");
        fuzz_check_message(err);
        fuzz_invariant(out.len == 0, "a refused document writes no line");
    }
    size_t i;
    json_t *r;
    json_array_foreach(rejected, i, r)
    {
        fuzz_invariant(json_is_integer(json_object_get(r, "row")), "a refused row is named");
        fuzz_check_message(json_string_value(json_object_get(r, "reason")));
    }
    long lines = 0;
    for (size_t pos = 0; pos < out.len; lines++) {
        const char *nl = memchr(out.data + pos, '\n', out.len - pos);
        fuzz_invariant(nl != NULL, "every line ends with a newline");
        size_t end = (size_t)(nl - out.data);
        struct results_line l;
        char why[256];
        fuzz_invariant(results_line_parse(out.data + pos, end - pos, &l, why, sizeof why) == 0,
                       "the store's reader reads every line record writes");
        results_line_free(&l);
        pos = end + 1;
    }
    fuzz_invariant(n < 0 || lines == n, "the count is the lines written");
    free(out.data);
    json_decref(rejected);
    return 0;
}
