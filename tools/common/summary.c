/* SPDX-License-Identifier: MIT */
/* summary.c: owns the Markdown cell escaping and the append of a --summary (compare, report).
 * What a summary says is each command's; this file never decides a verdict. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/summary.h"
#include "util/text.h"

void tool_md_cell(FILE *out, const char *text)
{
    char *s = bench__utf8_repair(text ? text : "");
    fputs("| ", out);
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '&')
            fputs("&amp;", out);
        else if (c < 0x20 || c == 0x7f)
            fputc(' ', out);
        else {
            if (strchr("|\\`*_[]", c))
                fputc('\\', out);
            fputc(c, out);
        }
    }
    fputc(' ', out);
    free(s);
}

FILE *tool_summary_open(struct tool_summary *s, char *err, size_t err_size)
{
    *s = (struct tool_summary){0};
    s->out = open_memstream(&s->text, &s->len);
    if (!s->out)
        bench__fmt(err, err_size, "out of memory");
    return s->out;
}

void tool_summary_rest(FILE *out, size_t shown, size_t n, const char *what)
{
    if (n > shown)
        fprintf(
            out,
            "\n\xe2\x80\xa6" /* U+2026 */ "and %zu more %s%s (the full table is in the job log).\n",
            n - shown, what, n - shown == 1 ? "" : "s");
}

static int append(const char *path, const char *text, size_t len, char *err, size_t err_size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        bench__fmt(err, err_size, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            bench__fmt(err, err_size, "cannot write: %s", n < 0 ? strerror(errno) : "no room");
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        bench__fmt(err, err_size, "cannot write: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int tool_summary_close(struct tool_summary *s, const char *path, char *err, size_t err_size)
{
    fputc('\n', s->out);
    int rc = fclose(s->out) == 0 ? append(path, s->text, s->len, err, err_size) : -1;
    if (rc && !*err)
        bench__fmt(err, err_size, "out of memory");
    free(s->text);
    *s = (struct tool_summary){0};
    return rc;
}
