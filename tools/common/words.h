/* SPDX-License-Identifier: MIT */
/* words.h: a command given as one string (`libbench run -c CMD`, `libbench compare --commands`)
 * split into words without a shell, for every command of the `libbench` tool that runs one. */
#ifndef LIBBENCH_TOOLS_COMMON_WORDS_H
#define LIBBENCH_TOOLS_COMMON_WORDS_H

#include <stddef.h>

/* Split cmd into words the way a POSIX shell splits the words of a simple command (blanks
 * separate words; single quotes keep everything; double quotes keep everything but a backslash
 * before $ ` " \ or a newline; a backslash outside quotes keeps the next character; a
 * backslash-newline is removed), with no expansion at all. Shell syntax whose meaning a shell
 * would give it (an operator, an expansion, a wildcard, a comment, a leading assignment) is
 * refused rather than passed on as a word: docs/reference/cli.md lists it. On success 0, with
 * *words a NULL-terminated array of *n_words malloc'd words (tool_words_free); on failure -1,
 * with one line in err (no trailing period), *words NULL. */
int tool_split_words(const char *cmd, char ***words, size_t *n_words, char *err, size_t err_size);
void tool_words_free(char **words);

#endif /* LIBBENCH_TOOLS_COMMON_WORDS_H */
