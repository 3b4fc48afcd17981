/* SPDX-License-Identifier: MIT */
/* term.c: owns the one colour/animation policy, the terminal size and the fitting of a name
 * to it. It never writes to the terminal itself. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../util/text.h"
#include "table.h"
#include "term.h"

struct bench__term bench__term_probe(int fd, bool no_colors)
{
    struct bench__term t = {.color = false, .animate = false, .width = 80, .height = 0};
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    bool allowed =
        isatty(fd) && !no_colors && !(no_color && *no_color) && !(term && !strcmp(term, "dumb"));
    t.color = t.animate = allowed;
    struct winsize ws;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        t.width = ws.ws_col;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
        t.height = ws.ws_row;
    return t;
}

char *bench__term_cut_left(const char *text, size_t room, char *out, size_t cap)
{
    size_t len = strlen(text);
    if (bench__display_width(text, len) <= room || room < 2) {
        bench__fmt(out, cap, "%s", text);
        return out;
    }
    /* the longest tail that fits after the ellipsis, starting on a character */
    size_t start = len;
    while (start > 0) {
        size_t s = start - 1;
        while (s > 0 && ((unsigned char)text[s] & 0xC0) == 0x80)
            s--;
        if (bench__display_width(text + s, len - s) > room - 1)
            break;
        start = s;
    }
    /* prefer a cut just after a '.', when the tail keeps one */
    const char *dot = strchr(text + start, '.');
    if (dot && dot[1] && text[start - 1] != '.')
        start = (size_t)(dot + 1 - text);
    bench__fmt(out, cap, "\xe2\x80\xa6%s", text + start);
    return out;
}
