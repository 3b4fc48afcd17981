/* SPDX-License-Identifier: MIT */
/* test_words.c: how `libbench run -c CMD` and `compare --commands` split a command into
 * words without a shell (tools/common/words.c): blanks, quotes and backslashes as a POSIX shell
 * reads them, no expansion, and every piece of shell syntax refused with its reason; table-driven,
 * with hostile input. The e2e test run_run.py checks the same words against /bin/sh itself. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/words.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_WORDS 6

struct split_case {
    const char *cmd;
    const char *words[MAX_WORDS + 1]; /* NULL-terminated */
};

static const struct split_case good[] = {
    {"true", {"true"}},
    {"sleep 0.05", {"sleep", "0.05"}},
    {"  a \t b  ", {"a", "b"}},
    {"'a b' c", {"a b", "c"}},
    {"\"a b\"c'd'", {"a bcd"}},
    {"a\\ b", {"a b"}},
    {"''", {""}},
    {"\"\" ''", {"", ""}},
    {"a '' b", {"a", "", "b"}},
    {"'it'\\''s'", {"it's"}},
    {"\"say \\\"hi\\\"\"", {"say \"hi\""}},
    {"\"\\$HOME \\` \\\\ \\n\"", {"$HOME ` \\ \\n"}},
    {"'$HOME' '*' '`x`' '|;&<>()'", {"$HOME", "*", "`x`", "|;&<>()"}},
    {"\\$x \\* \\| \\#", {"$x", "*", "|", "#"}},
    {"a\\\nb", {"ab"}},
    {"a \\\n b", {"a", "b"}},
    {"\"x\\\ny\"", {"xy"}},
    {"a#b c~ d=e", {"a#b", "c~", "d=e"}},
    {"env A=1 prog", {"env", "A=1", "prog"}},
    {"./a=b", {"./a=b"}},
    {"=x", {"=x"}},
    {"\"A\"=1", {"A=1"}},
    {"{a,b} ] ! %", {"{a,b}", "]", "!", "%"}},
    {"'\n' \"\t\"", {"\n", "\t"}},
    {"caf\xc3\xa9 \xff", {"caf\xc3\xa9", "\xff"}},
};

static void splits_like_a_shell(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_OF(good); i++) {
        char **words = NULL, err[256] = "";
        size_t n = 99;
        int rc = tool_split_words(good[i].cmd, &words, &n, err, sizeof err);
        if (rc != 0)
            fail_msg("case %zu <%s>: refused: %s", i, good[i].cmd, err);
        size_t want = 0;
        while (good[i].words[want])
            want++;
        if (n != want)
            fail_msg("case %zu <%s>: %zu words, want %zu", i, good[i].cmd, n, want);
        for (size_t k = 0; k < n; k++)
            if (strcmp(words[k], good[i].words[k]) != 0)
                fail_msg("case %zu <%s>: word %zu is <%s>, want <%s>", i, good[i].cmd, k, words[k],
                         good[i].words[k]);
        assert_null(words[n]);
        tool_words_free(words);
    }
}

struct refusal {
    const char *cmd;
    const char *says; /* a part of the message */
    bool syntax;      /* shell syntax: the message says what to do instead (--shell) */
};

static const struct refusal bad[] = {
    {"", "the command is empty", false},
    {" \t ", "the command is empty", false},
    {"a | b", "'|' is a shell operator", true},
    {"a>f", "'>' is a shell operator", true},
    {"a < f", "'<' is a shell operator", true},
    {"a; b", "';' is a shell operator", true},
    {"a && b", "'&' is a shell operator", true},
    {"sleep 1 &", "'&' is a shell operator", true},
    {"(a)", "'(' is a shell operator", true},
    {"echo $HOME", "'$' would be expanded by a shell", true},
    {"echo \"$HOME\"", "'$' (even in double quotes) would be expanded", true},
    {"echo `date`", "'`' is a shell command substitution", true},
    {"echo \"`date`\"", "'`' (even in double quotes) is a shell command substitution", true},
    {"ls *.c", "'*' is a shell wildcard", true},
    {"ls a?", "'?' is a shell wildcard", true},
    {"ls [ab]", "'[' is a shell wildcard", true},
    {"a # comment", "'#' starts a shell comment", true},
    {"cat ~/x", "'~' would be expanded by a shell to a home directory", true},
    {"FOO=1 prog", "'FOO=' at its start is a shell variable assignment", true},
    {"_x9=1", "'_x9=' at its start is a shell variable assignment", true},
    {"a\nb", "an unquoted newline separates shell commands", true},
    {"'abc", "a single quote is not closed", false},
    {"a \"b", "a double quote is not closed", false},
    {"abc\\", "it ends with a backslash that escapes nothing", false},
};

static void refuses_shell_syntax(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_OF(bad); i++) {
        char **words = (char **)&words, err[256] = "";
        size_t n = 7;
        int rc = tool_split_words(bad[i].cmd, &words, &n, err, sizeof err);
        if (rc != -1)
            fail_msg("case %zu <%s>: accepted", i, bad[i].cmd);
        assert_null(words);
        assert_int_equal(n, 0);
        if (!strstr(err, bad[i].says))
            fail_msg("case %zu <%s>: message <%s>, want <%s>", i, bad[i].cmd, err, bad[i].says);
        assert_null(strchr(err, '\n'));
        /* every refusal of syntax says what to do instead */
        if (bad[i].syntax && !strstr(err, "--shell"))
            fail_msg("case %zu <%s>: no hint in <%s>", i, bad[i].cmd, err);
    }
}

/* Many words, long words, and a long run of quotes: no fixed limits inside. */
static void grows(void **state)
{
    (void)state;
    size_t words = 5000, len = 5000 * 4 + 1;
    char *cmd = malloc(len);
    assert_non_null(cmd);
    char *p = cmd;
    for (size_t i = 0; i < words; i++)
        p += sprintf(p, "%s", i % 2 ? "'a' " : "\"\"b ");
    *p = '\0';
    char **out = NULL, err[128];
    size_t n = 0;
    assert_int_equal(tool_split_words(cmd, &out, &n, err, sizeof err), 0);
    assert_int_equal(n, words);
    assert_string_equal(out[0], "b");
    assert_string_equal(out[1], "a");
    tool_words_free(out);
    memset(cmd, 'x', len - 1);
    cmd[len - 1] = '\0';
    assert_int_equal(tool_split_words(cmd, &out, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(strlen(out[0]), len - 1);
    tool_words_free(out);
    free(cmd);
    tool_words_free(NULL);
}

/* A message longer than the buffer is cut, and marked, never overflowing. */
static void short_error_buffer(void **state)
{
    (void)state;
    char **out = NULL, err[12];
    size_t n = 0;
    assert_int_equal(tool_split_words("a | b", &out, &n, err, sizeof err), -1);
    assert_true(strlen(err) < sizeof err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(splits_like_a_shell),
        cmocka_unit_test(refuses_shell_syntax),
        cmocka_unit_test(grows),
        cmocka_unit_test(short_error_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
