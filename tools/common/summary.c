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

int tool_summary_append(const char *path, const char *text, size_t len, char *err, size_t err_size)
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
