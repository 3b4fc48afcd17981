/* SPDX-License-Identifier: MIT */
/* serve_line.c: owns the escaping and splitting of the served protocol's lines (serve_line.h).
 * Pure functions: no I/O, no allocation. */
#include <string.h>

#include "serve_line.h"

static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == 0x7f || c == '%';
}

bool bench__serve_escape(const char *in, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    if (size == 0)
        return false;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        size_t need = needs_escape(*p) ? 3 : 1;
        if (o + need >= size) {
            out[0] = '\0';
            return false;
        }
        if (need == 3) {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        } else {
            out[o++] = (char)*p;
        }
    }
    out[o] = '\0';
    return true;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

bool bench__serve_unescape(const char *in, size_t len, char *out, size_t size)
{
    size_t o = 0;
    if (size == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '%') {
            int hi = i + 2 < len ? hex_value(in[i + 1]) : -1;
            int lo = i + 2 < len ? hex_value(in[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                goto bad;
            c = (unsigned char)(hi * 16 + lo);
            i += 2;
        } else if (c < 0x20 || c == 0x7f) {
            goto bad;
        }
        if (o + 1 >= size)
            goto bad;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return true;
bad:
    out[0] = '\0';
    return false;
}

size_t bench__serve_split(char *line, char **fields, size_t max)
{
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = '\0';
    size_t n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab || n == max) /* the last field keeps the rest of the line */
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}
