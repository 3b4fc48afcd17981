/* SPDX-License-Identifier: MIT */
/* test_pool_util.c: the steps both isolation modes share (core/pool_util.c): a test's output kept
 * up to the cap (under, exactly at, across and past it, and nothing kept from an empty append),
 * a descriptor closed once, and a child reaped (and one already reaped counted as gone). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testmode/pool_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void output_kept_to_the_cap(void **state)
{
    (void)state;
    char *out = NULL;
    size_t len = 0;
    bool truncated = false;
    bench__output_keep(&out, &len, &truncated, 6, "", 0);
    assert_null(out);
    bench__output_keep(&out, &len, &truncated, 6, "abc", 3);
    assert_string_equal(out, "abc");
    assert_false(truncated);
    bench__output_keep(&out, &len, &truncated, 6, "def", 3); /* exactly at the cap */
    assert_string_equal(out, "abcdef");
    assert_int_equal(len, 6);
    assert_false(truncated);
    bench__output_keep(&out, &len, &truncated, 6, "g", 1); /* past it */
    assert_string_equal(out, "abcdef");
    assert_true(truncated);
    free(out);

    out = NULL, len = 0, truncated = false;
    bench__output_keep(&out, &len, &truncated, 4, "abcdef", 6); /* across it */
    assert_string_equal(out, "abcd");
    assert_int_equal(len, 4);
    assert_true(truncated);
    free(out);
}

static void fd_closed_once(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    bench__close_fd(&fds[0]);
    assert_int_equal(fds[0], -1);
    bench__close_fd(&fds[0]); /* nothing to close */
    assert_int_equal(fds[0], -1);
    bench__close_fd(&fds[1]);
    assert_int_equal(fds[1], -1);
}

static void child_reaped(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(3);
    int status = 0;
    assert_true(bench__reaped(pid, &status, 0));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 3);
    status = 12345;
    assert_true(bench__reaped(pid, &status, WNOHANG)); /* gone already: ECHILD */
    assert_int_equal(status, 12345);
}

static void child_running_not_reaped(void **state)
{
    (void)state;
    int gate[2];
    assert_int_equal(pipe(gate), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char c;
        close(gate[1]);
        _exit(read(gate[0], &c, 1) == 0 ? 0 : 1); /* until the parent closes its end */
    }
    close(gate[0]);
    int status = 0;
    assert_false(bench__reaped(pid, &status, WNOHANG));
    close(gate[1]);
    assert_true(bench__reaped(pid, &status, 0));
    assert_true(WIFEXITED(status));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_kept_to_the_cap),
        cmocka_unit_test(fd_closed_once),
        cmocka_unit_test(child_reaped),
        cmocka_unit_test(child_running_not_reaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
