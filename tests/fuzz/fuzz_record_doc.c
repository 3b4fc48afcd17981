/* SPDX-License-Identifier: MIT */
/* fuzz_record_doc.c: the libFuzzer target over `libbench record`'s document reader
 * (results/results_raw.c's results_doc_text_lines, the text read a few rows at a time): a
 * --bench-json or `libbench run --json` document turned into raw lines, its rows refused one by
 * one, or the whole document refused with one clean line; every line it writes is one the
 * store's own reader reads back (a writer never writes what its reader refuses), no run is
 * negative, no object over the limit; and the same text read as one jansson tree
 * (results_doc_lines) gives the same lines and refusals. Seeds: tests/fuzz/corpus/ and
 * tests/fuzz/corpus-run/. */
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

/* The lines and refused rows of one reading, for the comparison of the two readers. */
struct reading {
    long n;
    struct bench__text out;
    json_t *rejected;
    char err[512];
};

static void check_reading(const struct reading *r)
{
    if (r->n < 0) {
        fuzz_invariant(r->n == -1, "a refused document returns -1");
        fuzz_check_message(r->err);
        fuzz_invariant(r->out.len == 0, "a refused document writes no line");
        fuzz_invariant(json_array_size(r->rejected) == 0, "a refused document refuses no row");
    }
    size_t i;
    json_t *row;
    json_array_foreach(r->rejected, i, row)
    {
        fuzz_invariant(json_is_integer(json_object_get(row, "row")), "a refused row is named");
        fuzz_check_message(json_string_value(json_object_get(row, "reason")));
    }
    long lines = 0;
    for (size_t pos = 0; pos < r->out.len; lines++) {
        const char *nl = memchr(r->out.data + pos, '\n', r->out.len - pos);
        fuzz_invariant(nl != NULL, "every line ends with a newline");
        size_t end = (size_t)(nl - r->out.data);
        struct results_line l;
        char why[256];
        fuzz_invariant(results_line_parse(r->out.data + pos, end - pos, &l, why, sizeof why) == 0,
                       "the store's reader reads every line record writes");
        fuzz_invariant(l.m.run >= 0, "no negative run is written");
        results_line_free(&l);
        pos = end + 1;
    }
    fuzz_invariant(r->n < 0 || lines == r->n, "the count is the lines written");
    fuzz_invariant(r->out.len <= RESULTS_OBJECT_MAX_BYTES, "no object over the store's limit");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!info.profile)
        LLVMFuzzerInitialize(NULL, NULL);
    /* what record runs: the text read a few rows at a time */
    struct reading text = {.rejected = json_array()};
    size_t base_text = 0;
    text.n = results_doc_text_lines((const char *)data, size, 0, &info, &base_text, &text.out,
                                    text.rejected, text.err, sizeof text.err);
    check_reading(&text);
    /* the same document as one tree: the same lines, the same refusals */
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        fuzz_invariant(text.n == -1 && strncmp(text.err, "not JSON: ", 10) == 0,
                       "a text jansson refuses is refused as not JSON");
    } else {
        struct reading tree = {.rejected = json_array()};
        size_t base_tree = 0;
        tree.n = results_doc_lines(doc, 0, &info, &base_tree, &tree.out, tree.rejected, tree.err,
                                   sizeof tree.err);
        check_reading(&tree);
        fuzz_invariant(tree.n == text.n, "both readers count the same lines");
        fuzz_invariant(tree.out.len == text.out.len &&
                           (!tree.out.len || !memcmp(tree.out.data, text.out.data, tree.out.len)),
                       "both readers write the same lines");
        fuzz_invariant(base_tree == base_text, "both readers count the same runs");
        fuzz_invariant(json_equal(tree.rejected, text.rejected),
                       "both readers refuse the same rows, with the same reasons");
        fuzz_invariant(tree.n >= 0 || !strcmp(tree.err, text.err),
                       "both readers refuse a document with the same reason");
        free(tree.out.data);
        json_decref(tree.rejected);
        json_decref(doc);
    }
    free(text.out.data);
    json_decref(text.rejected);
    return 0;
}
