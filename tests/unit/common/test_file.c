/* SPDX-License-Identifier: MIT */
/* test_file.c: the tool's one whole-file reader (tools/common/file.c): a file at its limit is
 * read whole, one byte over is refused with a reason (never an abort), a directory and a missing
 * file are refused; a file over the one limit of every reader is refused on its size, nothing
 * read; a FIFO is refused at once (never waited on), and a symbolic link where none is followed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void not_regular(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_tool_file_dir_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], err[160], *data = (char *)"x";
    size_t len = 1;
    /* over the limit of every reader: refused on its size (a sparse file: nothing is read) */
    snprintf(path, sizeof path, "%s/huge", dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)TOOL_FILE_MAX_BYTES + 1), 0);
    close(fd);
    assert_int_equal(tool_read_file(path, (size_t)-1, &data, &len, err, sizeof err), -1);
    assert_string_equal(err, "cannot read: larger than 256 MiB");
    assert_null(data);
    unlink(path);
    /* a FIFO with no writer: refused at once, not waited on */
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(tool_read_file(path, TOOL_FILE_MAX_BYTES, &data, &len, err, sizeof err), -1);
    assert_string_equal(err, "cannot read: a FIFO, not a regular file");
    unlink(path);
    /* a symbolic link: followed by tool_read_file, refused where none is followed */
    char target[128];
    snprintf(target, sizeof target, "%s/target", dir);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("text", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/link", dir);
    assert_int_equal(symlink("target", path), 0);
    assert_int_equal(tool_read_file(path, TOOL_FILE_MAX_BYTES, &data, &len, err, sizeof err), 0);
    assert_string_equal(data, "text");
    free(data);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(dfd >= 0);
    assert_int_equal(
        tool_read_file_at(dfd, "link", true, TOOL_FILE_MAX_BYTES, &data, &len, err, sizeof err),
        -1);
    assert_string_equal(err, "cannot read: a symbolic link, not followed");
    assert_int_equal(
        tool_read_file_at(dfd, "target", true, TOOL_FILE_MAX_BYTES, &data, &len, err, sizeof err),
        0);
    free(data);
    close(dfd);
    unlink(path);
    unlink(target);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(limits), cmocka_unit_test(not_regular)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
