/* SPDX-License-Identifier: MIT */
/* format.c: owns the text shapes every renderer shares (durations, metric values, shell quoting,
 * regex escaping). Pure functions: no I/O, no global state. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "format.h"
#include "text.h"

#define EM_DASH "\xe2\x80\x94"

const char *bench__format_name(enum bench__format format)
{
    switch (format) {
    case BENCH__FORMAT_COUNT: return "count";
    case BENCH__FORMAT_RATIO: return "ratio";
    case BENCH__FORMAT_PERCENT: return "percent";
    }
    return "count";
}

void bench__format_ns(double ns, char *buf, size_t size)
{
    if (!isfinite(ns) || ns < 0) {
        bench__fmt(buf, size, EM_DASH); /* not measured */
        return;
    }
    if (ns < 1000.0) {
        bench__fmt(buf, size, "%.2fns", ns);
        return;
    }
    /* Round to whole ns, then pick the unit from that value; one decimal, half-up. No
     * promotion after rounding: 999950 ns prints 1000.0µs. */
    double whole = floor(ns + 0.5);
    static const struct {
        double limit, scale;
        const char *unit;
    } units[] = {
        {1e6, 1e3, "\xc2\xb5s"}, {1e9, 1e6, "ms"},       {60e9, 1e9, "s"},
        {3600e9, 60e9, "m"},     {86400e9, 3600e9, "h"}, {INFINITY, 86400e9, "d"},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (whole < units[i].limit) {
            double tenths = floor(whole / units[i].scale * 10.0 + 0.5);
            bench__fmt(buf, size, "%.1f%s", tenths / 10.0, units[i].unit);
            return;
        }
}

void bench__format_ns_pair(double a, double b, char *abuf, char *bbuf, size_t size)
{
    bench__format_ns_pair_step(a, b, NAN, abuf, bbuf, size);
}

void bench__format_ns_pair_step(double a, double b, double step, char *abuf, char *bbuf,
                                size_t size)
{
    double top = a > b ? a : b;
    if (!isfinite(a) || !isfinite(b) || a < 0 || b < 0 || !(top < 3600e9)) {
        bench__format_ns(a, abuf, size);
        bench__format_ns(b, bbuf, size);
        return;
    }
    static const struct {
        double limit, scale;
        int decimals;
        const char *unit;
    } units[] = {
        {1e3, 1.0, 2, "ns"},
        {1e6, 1e3, 1, "\xc2\xb5s"},
        {1e9, 1e6, 1, "ms"},
        {3600e9, 1e9, 1, "s"},
    };
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && !(top < units[u].limit))
        u++;
    double x = a / units[u].scale, y = b / units[u].scale;
    double diff = step > 0 ? step / units[u].scale : fabs(x - y);
    int d = units[u].decimals;
    /* (a relative slack of 1e-9 so that 1.0005 - 0.9995 counts as 0.001) */
    while (diff > 0 && d < BENCH__FORMAT_PAIR_DECIMALS_MAX &&
           pow(10.0, -d) > diff / 10.0 * (1 + 1e-9))
        d++;
    bench__fmt(abuf, size, "%.*f%s", d, x, units[u].unit);
    bench__fmt(bbuf, size, "%.*f%s", d, y, units[u].unit);
}

void bench__format_metric(double value, enum bench__format format, bool estimate, char *buf,
                          size_t size)
{
    if (isnan(value)) {
        bench__fmt(buf, size, EM_DASH);
        return;
    }
    const char *mark = estimate ? "\xe2\x89\x88" : "";
    double a = fabs(value);
    switch (format) {
    case BENCH__FORMAT_RATIO: bench__fmt(buf, size, "%s%.2f", mark, value); return;
    case BENCH__FORMAT_PERCENT: bench__fmt(buf, size, "%s%.2f%%", mark, value); return;
    case BENCH__FORMAT_COUNT: break;
    }
    static const struct {
        double scale;
        const char *suffix;
    } si[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (a >= si[i].scale) {
            bench__fmt(buf, size, "%s%.2f%s", mark, value / si[i].scale, si[i].suffix);
            return;
        }
    bench__fmt(buf, size, "%s%.3g", mark, value);
}

char *bench__shell_quote(const char *word)
{
    bool plain = *word != '\0';
    for (const char *p = word; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
                       *p) != NULL;
    if (plain)
        return bench__xstrdup(word);
    /* every ' becomes '\'' (4 bytes), plus the two quotes and the NUL */
    char *out = bench__xmalloc(4 * strlen(word) + 3);
    size_t o = 0;
    out[o++] = '\'';
    for (const char *p = word; *p; p++) {
        if (*p == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *p;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
    return out;
}

char *bench__regex_escape(const char *text)
{
    char *out = bench__xmalloc(2 * strlen(text) + 1);
    size_t o = 0;
    for (const char *p = text; *p; p++) {
        if (strchr(".[]{}()\\*+?|^$", *p))
            out[o++] = '\\';
        out[o++] = *p;
    }
    out[o] = '\0';
    return out;
}
