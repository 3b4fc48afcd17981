/* SPDX-License-Identifier: MIT */
/* test_source_path.c: the path --profile shows for a DWARF source file (lib/util/source_path.c):
 * a relative name joined with the compilation directory, "." and ".." folded, shown relative to
 * the current directory when it lies below it and absolute otherwise; literal inputs only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "util/source_path.h"

struct example {
    const char *comp_dir, *file, *cwd, *shown;
};

static void test_shown_paths(void **state)
{
    (void)state;
    static const struct example examples[] = {
        /* meson: the unit compiled in build/ from ../; the run from the source root */
        {"/src/proj/build", "../tests/e2e/profile.c", "/src/proj", "tests/e2e/profile.c"},
        /* the same run from the build directory: the file is not below it */
        {"/src/proj/build", "../tests/e2e/profile.c", "/src/proj/build",
         "/src/proj/tests/e2e/profile.c"},
        /* from elsewhere: absolute */
        {"/src/proj/build", "../lib/a.c", "/tmp", "/src/proj/lib/a.c"},
        /* a directory that only shares a prefix of characters is not above */
        {"/src/proj", "lib/a.c", "/src/pro", "/src/proj/lib/a.c"},
        {"/src/proj", "lib/a.c", "/src/proj/", "lib/a.c"},
        /* libdw's join of dir 0 and the name, "." components, a doubled slash */
        {"/src/proj", "/src/proj/build/./../lib//a.c", "/src/proj", "lib/a.c"},
        /* an absolute name ignores the compilation directory */
        {"/src/proj/build", "/usr/include/stdio.h", "/src/proj", "/usr/include/stdio.h"},
        {"/src/proj/build", "/usr/include/stdio.h", "/", "usr/include/stdio.h"},
        /* ".." at the root is dropped */
        {"/", "../../a.c", "/tmp", "/a.c"},
        /* no compilation directory recorded, or a relative one: stays relative, folded */
        {NULL, "../lib/./a.c", "/src/proj", "../lib/a.c"},
        {"", "x/../../lib/a.c", "/src/proj", "../lib/a.c"},
        {".", "./lib/a.c", "/src/proj", "lib/a.c"},
        /* the current directory unknown, or not absolute: absolute */
        {"/src/proj/build", "../lib/a.c", NULL, "/src/proj/lib/a.c"},
        {"/src/proj/build", "../lib/a.c", "proj", "/src/proj/lib/a.c"},
        /* the current directory written with "." and ".." */
        {"/src/proj/build", "../lib/a.c", "/src/proj/build/..", "lib/a.c"},
    };
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
        const struct example *e = &examples[i];
        char *shown = bench__source_path(e->comp_dir, e->file, e->cwd);
        if (strcmp(shown, e->shown) != 0)
            print_error("example %zu: %s + %s from %s: %s, not %s\n", i,
                        e->comp_dir ? e->comp_dir : "(null)", e->file, e->cwd ? e->cwd : "(null)",
                        shown, e->shown);
        assert_string_equal(shown, e->shown);
        free(shown);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shown_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
