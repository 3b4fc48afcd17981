/* SPDX-License-Identifier: MIT */
/* format.c: owns the text shapes every renderer shares (durations, shell quoting, regex
 * escaping). Pure functions: no I/O, no global state. */
#include <math.h>
#include <string.h>

#include "internal.h"

void bench__format_ns(double ns, char *buf, size_t size)
{
    if (!isfinite(ns) || ns < 0) {
        snprintf(buf, size, "\xe2\x80\x94"); /* em dash: not measured */
        return;
    }
    if (ns < 1000.0) {
        snprintf(buf, size, "%.2fns", ns);
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
            snprintf(buf, size, "%.1f%s", tenths / 10.0, units[i].unit);
            return;
        }
}

void bench__shell_quote(const char *word, char *buf, size_t size)
{
    bool plain = *word != '\0';
    for (const char *p = word; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
                       *p) != NULL;
    if (plain) {
        snprintf(buf, size, "%s", word);
        return;
    }
    size_t o = 0;
    if (size == 0)
        return;
#define PUT(c)                                                                                     \
    do {                                                                                           \
        if (o + 1 < size)                                                                          \
            buf[o++] = (c);                                                                        \
    } while (0)
    PUT('\'');
    for (const char *p = word; *p; p++) {
        if (*p == '\'') {
            PUT('\'');
            PUT('\\');
            PUT('\'');
            PUT('\'');
        } else {
            PUT(*p);
        }
    }
    PUT('\'');
#undef PUT
    buf[o] = '\0';
}

void bench__regex_escape(const char *text, char *buf, size_t size)
{
    size_t o = 0;
    if (size == 0)
        return;
    for (const char *p = text; *p && o + 2 < size; p++) {
        if (strchr(".[]{}()\\*+?|^$", *p))
            buf[o++] = '\\';
        buf[o++] = *p;
    }
    buf[o] = '\0';
}

void bench__format_metric(double value, enum bench__format format, bool estimate, char *buf,
                          size_t size)
{
    if (isnan(value)) {
        snprintf(buf, size, "\xe2\x80\x94");
        return;
    }
    const char *mark = estimate ? "\xe2\x89\x88" : "";
    double a = fabs(value);
    switch (format) {
    case BENCH__FORMAT_RATIO: snprintf(buf, size, "%s%.2f", mark, value); return;
    case BENCH__FORMAT_PERCENT: snprintf(buf, size, "%s%.2f%%", mark, value); return;
    case BENCH__FORMAT_COUNT: break;
    }
    static const struct {
        double scale;
        const char *suffix;
    } si[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (a >= si[i].scale) {
            snprintf(buf, size, "%s%.2f%s", mark, value / si[i].scale, si[i].suffix);
            return;
        }
    snprintf(buf, size, "%s%.3g", mark, value);
}
