/* SPDX-License-Identifier: MIT */
/* term.c: owns the one colour/animation policy and the terminal width. It never writes
 * to the terminal itself. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "term.h"

struct bench__term bench__term_probe(int fd, bool no_colors)
{
    struct bench__term t = {.color = false, .animate = false, .width = 80};
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    bool allowed =
        isatty(fd) && !no_colors && !(no_color && *no_color) && !(term && !strcmp(term, "dumb"));
    t.color = t.animate = allowed;
    struct winsize ws;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        t.width = ws.ws_col;
    return t;
}
