/* SPDX-License-Identifier: MIT */
/* ci_hostile.c: a test binary whose names, messages and output are hostile to XML, TAP and YAML
 * (<, &, ]]>, control characters, invalid UTF-8, 1 MiB of output), with a crash, an abort and a
 * hang among them: run_ci.py reads its --junit and --tap with real consumers. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bench/shim.h>

BENCH_TEST(a_passes)
{
    BENCH_CHECK(1 + 1 == 2);
}

BENCH_TEST(b_fails_hostile)
{
    printf("out: <tag> & \"q\" 'a' ]]> \x01\x02\x1b[31m bell\a tab\t cr\r\n");
    printf("bad utf-8: \xff\xfe \xc3\x28 \xed\xa0\x80 end; #not a comment\n");
    bench_fail(b, "expected <a> & ]]> \x01 \xff got # \\ \"q\"");
}

BENCH_TEST(c_segfaults)
{
    raise(SIGSEGV);
}

BENCH_TEST(d_aborts)
{
    abort();
}

BENCH_TEST(e_hangs)
{
    for (;;)
        pause();
}

BENCH_TEST(f_skips_hostile)
{
    bench_skip(b, "needs <GPU> & ]]> # \x01 \xff");
}

BENCH_TEST(g_floods)
{
    static char line[1025];
    memset(line, '<', sizeof line - 2);
    line[sizeof line - 2] = '\n';
    for (int i = 0; i < 1100; i++) /* a little over 1 MiB: the runner keeps 1 MiB */
        fputs(line, stdout);
    BENCH_CHECK(0 && "after 1 MiB of output");
}

BENCH_TEST(h_check_fails)
{
    BENCH_CHECK(strcmp("<&>", "]]>") == 0);
}

BENCH_TEST(i_passes_last)
{
    BENCH_CHECK(1);
}

BENCH_MAIN()
