/* SPDX-License-Identifier: MIT */
/* words.c: owns splitting a command given as one string (`libbench run -c CMD`, `compare
 * --commands`) into words without a shell: quotes and backslashes as a POSIX shell reads them,
 * no expansion, and shell syntax refused with its reason. Pure: no I/O, no environment. */
#include <stdlib.h>
#include <string.h>

#include "words.h"
#include "util/alloc.h"
#include "util/text.h"

#define HINT "quote it, or use --shell to run the command through /bin/sh"

struct word_buf {
    char *data;
    size_t len, cap;
};

static void put(struct word_buf *w, char c)
{
    w->data = bench__grow(w->data, &w->cap, w->len + 2, 1);
    w->data[w->len++] = c;
    w->data[w->len] = '\0';
}

/* The word exists, even empty ('' or ""). */
static void ensure(struct word_buf *w)
{
    if (w->data)
        return;
    w->data = bench__grow(NULL, &w->cap, 1, 1);
    w->data[0] = '\0';
}

struct word_list {
    char **words;
    size_t n, cap;
};

static void push(struct word_list *l, struct word_buf *w)
{
    l->words = bench__grow(l->words, &l->cap, l->n + 2, sizeof *l->words);
    ensure(w);
    l->words[l->n++] = w->data;
    l->words[l->n] = NULL;
    memset(w, 0, sizeof *w);
}

void tool_words_free(char **words)
{
    if (!words)
        return;
    for (char **w = words; *w; w++)
        free(*w);
    free(words);
}

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* What a shell would make of an unquoted character; NULL when it is an ordinary one. */
static const char *shell_meaning(char c, bool word_start)
{
    switch (c) {
    case '|':
    case '&':
    case ';':
    case '<':
    case '>':
    case '(':
    case ')': return "is a shell operator";
    case '\n': return "(a newline) separates shell commands";
    case '$': return "would be expanded by a shell";
    case '`': return "is a shell command substitution";
    case '*':
    case '?':
    case '[': return "is a shell wildcard";
    case '#': return word_start ? "starts a shell comment" : NULL;
    case '~': return word_start ? "would be expanded by a shell to a home directory" : NULL;
    default: return NULL;
    }
}

static int refuse(char *err, size_t err_size, char c, const char *meaning, const char *where)
{
    if (c == '\n')
        bench__fmt(err, err_size, "an unquoted newline separates shell commands: " HINT);
    else
        bench__fmt(err, err_size, "'%c'%s %s: " HINT, c, where, meaning);
    return -1;
}

int tool_split_words(const char *cmd, char ***words, size_t *n_words, char *err, size_t err_size)
{
    struct word_list list = {0};
    struct word_buf w = {0};
    bool in_word = false;
    /* the first word, while it may still be a NAME=VALUE assignment: every byte so far an
     * unquoted name character */
    bool maybe_assignment = true;
    *words = NULL;
    *n_words = 0;
    const char *p = cmd;
    for (;;) {
        char c = *p;
        if (c == '\0' || c == ' ' || c == '\t') {
            if (in_word)
                push(&list, &w);
            in_word = false;
            if (list.n > 0)
                maybe_assignment = false;
            if (c == '\0')
                break;
            p++;
            continue;
        }
        bool word_start = !in_word;
        in_word = true;
        if (c == '\\') {
            if (p[1] == '\0') {
                bench__fmt(err, err_size, "it ends with a backslash that escapes nothing");
                goto fail;
            }
            maybe_assignment = false;
            if (p[1] != '\n') /* backslash-newline: a continuation */
                put(&w, p[1]);
            if (p[1] == '\n' && word_start && w.len == 0)
                in_word = false;
            p += 2;
            continue;
        }
        if (c == '\'') {
            const char *end = strchr(p + 1, '\'');
            if (!end) {
                bench__fmt(err, err_size, "a single quote is not closed");
                goto fail;
            }
            maybe_assignment = false;
            ensure(&w);
            for (const char *q = p + 1; q < end; q++)
                put(&w, *q);
            p = end + 1;
            continue;
        }
        if (c == '"') {
            maybe_assignment = false;
            ensure(&w);
            const char *q = p + 1;
            for (;; q++) {
                if (*q == '\0') {
                    bench__fmt(err, err_size, "a double quote is not closed");
                    goto fail;
                }
                if (*q == '"')
                    break;
                if (*q == '$' || *q == '`') {
                    refuse(err, err_size, *q,
                           *q == '$' ? "would be expanded by a shell"
                                     : "is a shell command substitution",
                           " (even in double quotes)");
                    goto fail;
                }
                if (*q == '\\' &&
                    (q[1] == '$' || q[1] == '`' || q[1] == '"' || q[1] == '\\' || q[1] == '\n')) {
                    q++;
                    if (*q == '\n')
                        continue;
                }
                put(&w, *q);
            }
            p = q + 1;
            continue;
        }
        const char *meaning = shell_meaning(c, word_start);
        if (meaning) {
            refuse(err, err_size, c, meaning, "");
            goto fail;
        }
        if (c == '=' && maybe_assignment && list.n == 0 && w.len > 0 && name_start(w.data[0])) {
            bench__fmt(err, err_size,
                       "'%s=' at its start is a shell variable assignment: " HINT
                       " (or run 'env %s=... PROG')",
                       w.data, w.data);
            goto fail;
        }
        if (!name_char(c))
            maybe_assignment = false;
        put(&w, c);
        p++;
    }
    if (list.n == 0) {
        bench__fmt(err, err_size, "the command is empty");
        goto fail;
    }
    *words = list.words;
    *n_words = list.n;
    return 0;
fail:
    free(w.data);
    tool_words_free(list.words);
    return -1;
}
