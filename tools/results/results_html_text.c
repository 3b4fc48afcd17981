/* SPDX-License-Identifier: MIT */
/* results_html_text.c: owns the text primitives the files of the HTML dashboard share
 * (results_html_int.h): text put into the page, escaped, numbers and times read from the report
 * document and written as the page shows them. It knows nothing of the page's parts. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "results_html_int.h"
#include "util/alloc.h"
#include "util/text.h"

void html_put_n(struct bench__text *t, const char *s, size_t n)
{
    if (bench__text_append(s, n, t) != 0)
        bench__out_of_memory();
}

void html_put(struct bench__text *t, const char *s)
{
    html_put_n(t, s, strlen(s));
}

void html_put_esc(struct bench__text *t, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': html_put(t, "&amp;"); break;
        case '<': html_put(t, "&lt;"); break;
        case '>': html_put(t, "&gt;"); break;
        case '"': html_put(t, "&quot;"); break;
        case '\'': html_put(t, "&#39;"); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                html_put(t, "\xef\xbf\xbd"); /* U+FFFD: a control character is not text */
            else
                html_put_n(t, s, 1);
        }
    }
}

void html_putf(struct bench__text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    bench__vfmt(buf, sizeof buf, fmt, ap);
    va_end(ap);
    html_put(t, buf);
}

const char *html_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

double html_num(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void html_put_ns(struct bench__text *t, double ns)
{
    char buf[BENCH__NUMBER_MAX];
    bench__format_ns(ns, buf, sizeof buf);
    html_put(t, buf);
}

void html_put_identity(struct bench__text *t, const json_t *obj)
{
    const char *parts[] = {html_str(obj, "profile"), html_str(obj, "scenario"),
                           html_str(obj, "operation")};
    bool first = true;
    for (size_t i = 0; i < 3; i++) {
        if (!parts[i][0])
            continue;
        if (!first)
            html_put(t, " / ");
        html_put_esc(t, parts[i]);
        first = false;
    }
}

void html_put_rel(struct bench__text *t, double rel)
{
    if (!isfinite(rel)) {
        html_put(t, EM_DASH);
        return;
    }
    html_putf(t, "%s%.1f%%", rel < 0 ? MINUS : rel > 0 ? "+" : "", fabs(rel) * 100);
}

void html_put_when(struct bench__text *t, const char *ts)
{
    if (strlen(ts) == 20 && ts[10] == 'T' && ts[19] == 'Z') {
        html_put_n(t, ts, 10);
        html_put(t, " ");
        html_put_n(t, ts + 11, 5);
        html_put(t, " UTC");
    } else {
        html_put_esc(t, ts);
    }
}
