/* SPDX-License-Identifier: MIT */
/* test_json_rows.c: the row-at-a-time JSON reader (tools/common/json_rows.c) against jansson
 * reading the same text whole: the same texts refused (the depth limit at the same nesting, a
 * duplicate key at the top level, a fault in the last row, what follows the document), the same
 * tree read, rows in order whatever the members' order. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/json_rows.h"

/* 1 when the reader reads the text (the tree it gives equal to jansson's), 0 when it refuses
 * it ("not JSON: ..."). */
static int reads(const char *text, size_t len)
{
    struct tool_json_doc d;
    char err[256] = "";
    int ok = tool_json_doc_open(text, len, JSON_REJECT_DUPLICATES, &d, err, sizeof err) == 0;
    json_t *mine = ok && d.head ? json_deep_copy(d.head) : NULL;
    json_t *rows = ok && d.rows_array ? json_array() : NULL;
    struct tool_json_rows it;
    tool_json_rows_begin(&d, &it);
    json_t *row;
    size_t index;
    int got;
    while (ok && (got = tool_json_rows_next(&it, &row, &index, err, sizeof err)) != 0) {
        if (got < 0)
            ok = 0;
        else
            json_array_append_new(rows, row);
    }
    if (!ok)
        assert_int_equal(strncmp(err, "not JSON: ", 10), 0);
    if (mine && rows)
        json_object_set(mine, "rows", rows);
    json_error_t je;
    json_t *whole = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    assert_int_equal(ok, whole != NULL);
    if (ok && json_is_object(whole))
        assert_true(json_equal(mine, whole));
    json_decref(whole);
    json_decref(mine);
    json_decref(rows);
    tool_json_doc_free(&d);
    return ok;
}

static int reads_text(const char *text)
{
    return reads(text, strlen(text));
}

/* {"rows":[[[...]]]} with `depth` brackets in all. */
static int nested(size_t depth)
{
    size_t inner = depth - 2; /* the object and the rows array */
    size_t len = 9 + 2 * inner + 2;
    char *t = malloc(len + 1);
    assert_non_null(t);
    memcpy(t, "{\"rows\":[", 9);
    memset(t + 9, '[', inner);
    memset(t + 9 + inner, ']', inner);
    memcpy(t + 9 + 2 * inner, "]}", 2);
    t[len] = '\0';
    int ok = reads(t, len);
    free(t);
    return ok;
}

static void as_jansson(void **state)
{
    (void)state;
    assert_int_equal(reads_text("{\"rows\":[{\"a\":1},2,\"x\",null],\"meta\":{\"m\":[1]}}"), 1);
    assert_int_equal(reads_text("{\"meta\":{},\"rows\":[]}"), 1);
    assert_int_equal(reads_text(" {\"rows\":{\"not\":\"an array\"}}\n"), 1);
    assert_int_equal(reads_text("[1,[2],{\"3\":3}]"), 1);
    assert_int_equal(reads_text("{\"r\\u006fws\":[1]}"), 1); /* "rows", escaped */
    assert_int_equal(reads_text("{\"rows\":[1],\"rows\":[2]}"), 0);
    assert_int_equal(reads_text("{\"a\":1,\"a\":2}"), 0);
    assert_int_equal(reads_text("{\"rows\":[{\"a\":1,\"a\":2}]}"), 0);
    assert_int_equal(reads_text("{\"rows\":[1,2,{\"x\":}]}"), 0);
    assert_int_equal(reads_text("{\"rows\":[1,]}"), 0);
    assert_int_equal(reads_text("{\"rows\":[1 2]}"), 0);
    assert_int_equal(reads_text("{\"rows\":[1],}"), 0);
    assert_int_equal(reads_text("{\"rows\":[1]} x"), 0);
    assert_int_equal(reads_text("{\"rows\":[\"\\u0000\"]}"), 0);
    assert_int_equal(reads_text("{\"rows\":[1e999]}"), 0);
    assert_int_equal(reads_text("\"top\""), 0);
    assert_int_equal(reads_text(""), 0);
    assert_int_equal(reads_text("{\"rows\":[\"unterminated]}"), 0);
    assert_int_equal(reads("{\"rows\":[1]}\0", 13), 0);
    /* jansson's depth limit, at the same nesting */
    assert_int_equal(nested(2048), 1);
    assert_int_equal(nested(2049), 0);
    assert_int_equal(nested(100000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(as_jansson)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
