/* SPDX-License-Identifier: MIT */
/* junit.c: owns the JUnit XML document (a single <testsuites> root, the counts, every case's
 * element), its escaping and its atomic write; it never decides what passed (its callers do). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "junit.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* The counts of the suite and of the root: the same, over every case. */
struct counts_of {
    size_t tests, failures, errors, skipped;
    double time_s;
};

static void put(struct bench__text *t, const char *s)
{
    bench__text_append(s, strlen(s), t);
}

/* The length of the well-formed UTF-8 sequence at p (at most `left` bytes) and its code point,
 * or 0 when it is not one (a stray byte, an overlong form, a surrogate, past U+10FFFF). */
static size_t utf8_decode(const unsigned char *p, size_t left, uint32_t *cp)
{
    unsigned char b = p[0];
    size_t n;
    uint32_t v, min;
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
        v = b & 0x1Fu;
        min = 0x80;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        v = b & 0x0Fu;
        min = 0x800;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        v = b & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    if (left < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0u) != 0x80u)
            return 0;
        v = (v << 6) | (p[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* XML 1.0's Char production. */
static bool xml_char(uint32_t cp)
{
    return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
           (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

void bench__xml_escape(struct bench__text *t, const char *s, size_t len, bool attr)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    const unsigned char *run = p; /* bytes that need nothing, not appended yet */
    while (p < end) {
        uint32_t cp = 0;
        size_t n = utf8_decode(p, (size_t)(end - p), &cp);
        const char *with = NULL;
        if (n == 0 || !xml_char(cp))
            with = REPLACEMENT;
        else if (cp == '&')
            with = "&amp;";
        else if (cp == '<')
            with = "&lt;";
        else if (cp == '>')
            with = "&gt;";
        else if (cp == '"' && attr)
            with = "&quot;";
        else if (cp == '\'' && attr)
            with = "&apos;";
        else if (cp == '\t' && attr)
            with = "&#9;";
        else if (cp == '\n' && attr)
            with = "&#10;";
        else if (cp == '\r')
            with = "&#13;"; /* a bare CR in text would be read back as a newline */
        if (!with) {
            p += n;
            continue;
        }
        bench__text_append((const char *)run, (size_t)(p - run), t);
        put(t, with);
        p += n ? n : 1;
        run = p;
    }
    bench__text_append((const char *)run, (size_t)(p - run), t);
}

void bench__xml_escape_str(struct bench__text *t, const char *s, bool attr)
{
    if (s)
        bench__xml_escape(t, s, strlen(s), attr);
}

static void attr(struct bench__text *t, const char *name, const char *value)
{
    put(t, " ");
    put(t, name);
    put(t, "=\"");
    bench__xml_escape_str(t, value, true);
    put(t, "\"");
}

static void attr_count(struct bench__text *t, const char *name, size_t value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", value);
    attr(t, name, buf);
}

static void attr_time(struct bench__text *t, double seconds)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.6f", isfinite(seconds) && seconds > 0 ? seconds : 0.0);
    attr(t, "time", buf);
}

static void counts(struct bench__text *t, const struct counts_of *c)
{
    attr_count(t, "tests", c->tests);
    attr_count(t, "failures", c->failures);
    attr_count(t, "errors", c->errors);
    attr_count(t, "skipped", c->skipped);
    attr_time(t, c->time_s);
}

static void count(struct counts_of *c, const struct bench__junit_case *k)
{
    c->tests++;
    c->failures += k->result == BENCH__JUNIT_FAILURE;
    c->errors += k->result == BENCH__JUNIT_ERROR;
    c->skipped += k->result == BENCH__JUNIT_SKIP;
    if (isfinite(k->time_s) && k->time_s > 0)
        c->time_s += k->time_s;
}

static void testcase(struct bench__text *t, const struct bench__junit_case *k)
{
    put(t, "    <testcase");
    attr(t, "name", k->name ? k->name : "");
    attr(t, "classname", k->classname ? k->classname : "");
    attr_time(t, k->time_s);
    if (k->file) {
        attr(t, "file", k->file);
        if (k->line)
            attr_count(t, "line", k->line);
    }
    bool empty = k->result == BENCH__JUNIT_PASS && !k->n_props && !k->out_len;
    put(t, empty ? "/>\n" : ">\n");
    if (empty)
        return;
    if (k->n_props) {
        put(t, "      <properties>\n");
        for (size_t i = 0; i < k->n_props; i++) {
            put(t, "        <property");
            attr(t, "name", k->props[i].name);
            attr(t, "value", k->props[i].value ? k->props[i].value : "");
            put(t, "/>\n");
        }
        put(t, "      </properties>\n");
    }
    if (k->result == BENCH__JUNIT_SKIP) {
        put(t, "      <skipped");
        if (k->message)
            attr(t, "message", k->message);
        put(t, "/>\n");
    } else if (k->result != BENCH__JUNIT_PASS) {
        const char *element = k->result == BENCH__JUNIT_FAILURE ? "failure" : "error";
        put(t, "      <");
        put(t, element);
        if (k->type)
            attr(t, "type", k->type);
        if (k->message)
            attr(t, "message", k->message);
        put(t, ">");
        if (k->body)
            bench__xml_escape(t, k->body, k->body_len, false);
        put(t, "</");
        put(t, element);
        put(t, ">\n");
    }
    if (k->out_len) {
        put(t, "      <system-out>");
        bench__xml_escape(t, k->out, k->out_len, false);
        put(t, "</system-out>\n");
    }
    put(t, "    </testcase>\n");
}

char *bench__junit_text(const char *name, const struct bench__junit_case *cases, size_t n,
                        double time_s, size_t *len)
{
    struct counts_of c = {0};
    for (size_t i = 0; i < n; i++)
        count(&c, &cases[i]);
    if (!isnan(time_s))
        c.time_s = time_s;
    struct bench__text t = {0};
    put(&t, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    attr(&t, "name", name);
    counts(&t, &c);
    put(&t, ">\n  <testsuite");
    attr(&t, "name", name);
    counts(&t, &c);
    put(&t, ">\n");
    for (size_t i = 0; i < n; i++)
        testcase(&t, &cases[i]);
    put(&t, "  </testsuite>\n</testsuites>\n");
    *len = t.len;
    return t.data;
}

int bench__junit_write(const char *path, const char *name, const struct bench__junit_case *cases,
                       size_t n, double time_s)
{
    size_t len;
    char *text = bench__junit_text(name, cases, n, time_s, &len);
    int rc = bench__write_file(path, text, len);
    free(text);
    return rc;
}
