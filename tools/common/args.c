/* SPDX-License-Identifier: MIT */
/* args.c: owns the option grammar the commands of the `libbench` tool share (args.h).
 * It parses words; it never prints, and knows no command's options. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "util/text.h"

bool tool_parse_whole(const char *text, uint64_t max, uint64_t *out)
{
    const char *end = text + strlen(text), *stop;
    return bench__parse_digits(text, end, max, out, &stop) == BENCH__DIGITS_OK && stop == end;
}

bool tool_parse_decimal(const char *text, double *out)
{
    const char *end = text + strlen(text), *stop;
    uint64_t ignored;
    if (bench__parse_digits(text, end, UINT64_MAX, &ignored, &stop) == BENCH__DIGITS_NONE)
        return false;
    if (stop < end && *stop == '.') {
        const char *frac = stop + 1;
        if (bench__parse_digits(frac, end, UINT64_MAX, &ignored, &stop) == BENCH__DIGITS_NONE)
            return false;
    }
    if (stop != end)
        return false;
    errno = 0;
    double v = strtod(text, NULL);
    if (errno == ERANGE || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool tool_looks_like_option(const char *word)
{
    return word[0] == '-' && word[1] != '\0' && !(word[1] >= '0' && word[1] <= '9') &&
           word[1] != '.';
}

bool tool_option_is(const char *arg, const char *name, const char **value)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return false;
    if (arg[n] == '\0') {
        *value = NULL;
        return true;
    }
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return true;
    }
    return false;
}

bool tool_take_value(int argc, char **argv, int *i, const char **value)
{
    if (!*value && *i + 1 < argc && !tool_looks_like_option(argv[*i + 1]))
        *value = argv[++*i];
    return *value != NULL;
}

int tool_usage_error(const char *command, const char *fmt, const char *arg)
{
    char shown[128] = "";
    if (arg)
        bench__sanitize_copy(arg, shown, sizeof shown);
    fputs("error: ", stderr);
    fprintf(stderr, fmt, shown);
    fprintf(stderr, " (see libbench %s --help)\n", command);
    return 2;
}
