/* SPDX-License-Identifier: MIT */
/* fuzz_json_rows.c: the libFuzzer target over the tool's row-at-a-time JSON reader
 * (common/json_rows.c, what `libbench record` and `libbench export` read documents with),
 * against jansson reading the same bytes whole: the reader refuses exactly the texts jansson
 * refuses ("not JSON: ..." in one clean line, at the latest at the row that holds the fault),
 * and what it reads, the top level and then each row, is equal to jansson's tree. Seeds:
 * tests/fuzz/corpus/ and tests/fuzz/corpus-run/. */
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "common/json_rows.h"
#include "fuzz.h"

/* Reads the text row by row: 0 and the whole document rebuilt in *out; or -1 (err said). */
static int read_rows(const char *text, size_t size, json_t **out, char *err, size_t err_size)
{
    struct tool_json_doc d;
    *out = NULL;
    if (tool_json_doc_open(text, size, JSON_REJECT_DUPLICATES, &d, err, err_size) != 0) {
        tool_json_doc_free(&d);
        return -1;
    }
    fuzz_invariant((d.type == JSON_OBJECT) == (d.head != NULL), "an object has its head");
    fuzz_invariant(d.type == JSON_OBJECT || d.type == JSON_ARRAY, "the top level is a container");
    json_t *rows = d.rows_array ? json_array() : NULL;
    struct tool_json_rows it;
    tool_json_rows_begin(&d, &it);
    json_t *row;
    size_t index, expect = 0;
    int got, rc = 0;
    while ((got = tool_json_rows_next(&it, &row, &index, err, err_size)) != 0) {
        if (got < 0) {
            rc = -1;
            break;
        }
        fuzz_invariant(index == expect++, "the rows come in order");
        json_array_append_new(rows, row);
    }
    fuzz_invariant(rc != 0 || expect == d.n_rows, "every row counted is read");
    if (rc == 0 && d.head) {
        *out = json_deep_copy(d.head);
        if (rows)
            json_object_set(*out, "rows", rows);
    }
    json_decref(rows);
    tool_json_doc_free(&d);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    err[0] = '\0';
    json_t *mine = NULL;
    int rc = read_rows((const char *)data, size, &mine, err, sizeof err);
    json_error_t je;
    json_t *whole = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (rc != 0) {
        fuzz_check_message(err);
        fuzz_invariant(strncmp(err, "not JSON: ", 10) == 0, "a refusal says not JSON");
        fuzz_invariant(whole == NULL, "a text jansson reads is read");
    } else {
        fuzz_invariant(whole != NULL, "a text jansson refuses is refused");
        fuzz_invariant(!json_is_object(whole) || json_equal(mine, whole),
                       "the rows and the rest are jansson's tree");
    }
    json_decref(mine);
    json_decref(whole);
    return 0;
}
