/* SPDX-License-Identifier: MIT */
/* test_results_pg.c: what the PostgreSQL store shows of a URL (results_pg.c): never its
 * password, wherever the URL carries it, and the rest as given. Needs no server. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "results/results_tool.h"

static void check(const char *url, const char *want)
{
    char *shown = results_pg_redact(url);
    assert_string_equal(shown, want);
    free(shown);
}

static void test_redact(void **state)
{
    (void)state;
    check("postgresql://u:secret@db:5432/bench", "postgresql://u@db:5432/bench");
    check("postgres://u:se:cr@et@db/bench?sslmode=require",
          "postgres://u@db/bench?sslmode=require");
    check("postgresql://u@db/bench", "postgresql://u@db/bench");
    check("postgresql://db/bench", "postgresql://db/bench");
    check("postgresql://db/bench?user=u&password=secret&sslmode=verify-full",
          "postgresql://db/bench?user=u&password=***&sslmode=verify-full");
    check("postgresql://db/bench?password=secret", "postgresql://db/bench?password=***");
    check("postgresql:///bench?host=/tmp/x", "postgresql:///bench?host=/tmp/x");
    check("postgresql://u:p%40ss@[::1]:5432/b", "postgresql://u@[::1]:5432/b");
}

static void test_location(void **state)
{
    (void)state;
    assert_true(results_location_is_pg("postgresql://db"));
    assert_true(results_location_is_pg("POSTGRES://db"));
    assert_false(results_location_is_pg("./postgresql:x"));
    assert_false(results_location_is_pg("results"));
    assert_false(results_location_is_pg(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_location),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
