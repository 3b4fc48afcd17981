/* SPDX-License-Identifier: MIT */
/* test_file.c: the tool's one whole-file reader (tools/common/file.c): a file at its limit is
 * read whole, one byte over is refused with a reason (never an abort), a directory and a missing
 * file are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"

static void write_bytes(const char *path, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(fputc('a' + (int)(i % 26), f), 'a' + (int)(i % 26));
    assert_int_equal(fclose(f), 0);
}

static void limits(void **state)
{
    (void)state;
    char path[] = "/tmp/test_tool_file_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char err[128], *data = NULL;
    size_t len = 0;
    const size_t mib = 1u << 20;

    write_bytes(path, mib); /* at the limit: read whole */
    assert_int_equal(tool_read_file(path, mib, &data, &len, err, sizeof err), 0);
    assert_int_equal(len, mib);
    assert_int_equal(data[len], '\0');
    assert_int_equal(data[mib - 1], 'a' + (int)((mib - 1) % 26));
    free(data);

    write_bytes(path, mib + 1); /* one byte over: refused, with the reason */
    assert_int_equal(tool_read_file(path, mib, &data, &len, err, sizeof err), -1);
    assert_null(data);
    assert_string_equal(err, "cannot read: larger than 1 MiB");

    write_bytes(path, 0); /* empty: an empty text */
    assert_int_equal(tool_read_file(path, mib, &data, &len, err, sizeof err), 0);
    assert_int_equal(len, 0);
    assert_string_equal(data, "");
    free(data);
    unlink(path);

    assert_int_equal(tool_read_file(path, mib, &data, &len, err, sizeof err), -1);
    assert_string_equal(err, "cannot read: No such file or directory");
    assert_int_equal(tool_read_file("/tmp", mib, &data, &len, err, sizeof err), -1);
    assert_string_equal(err, "cannot read: Is a directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(limits)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
