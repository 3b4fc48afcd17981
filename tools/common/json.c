/* SPDX-License-Identifier: MIT */
/* json.c: owns the text of the JSON documents of the `libbench` tool (json.h): the
 * shortest round-trip form of every real, and that text written atomically (tool_json_write,
 * through util/atomic_file.h). It builds no document. */
#define _GNU_SOURCE
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util/alloc.h"
#include "util/text.h"

/* The significant digits of a "%g" text: from its first digit that is not 0 to its last that is
 * not 0, the exponent left out. */
static int significant_digits(const char *s)
{
    int n = 0, zeros = 0;
    bool started = false;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (*s == '0' && !started)
            continue;
        started = true;
        if (*s == '0') {
            zeros++;
        } else {
            n += zeros + 1;
            zeros = 0;
        }
    }
    return n ? n : 1;
}

void tool_real_shortest(double v, char *buf, size_t size)
{
    if (v != 0 && (v < 0 ? -v : v) < DBL_MIN) { /* subnormal: fewer digits than DBL_DIG read back */
        int lo = 1, hi = 17;                    /* the smallest that does, by bisection */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            bench__fmt(buf, size, "%.*g", mid, v);
            if (strtod(buf, NULL) == v)
                hi = mid;
            else
                lo = mid + 1;
        }
        bench__fmt(buf, size, "%.*g", lo, v);
        return;
    }
    if (v == (double)(long long)v && (v < 0 ? -v : v) >= 1 && (v < 0 ? -v : v) < 1e15) {
        /* an integer of at most 15 digits: the digits "%.15g" writes, without printf; with
         * trailing zeros, "%.Ng" of its N significant digits writes the exponent form */
        long long i = (long long)v;
        unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
        char d[24];
        int nd = 0, sig;
        while (u) {
            d[nd++] = (char)('0' + u % 10);
            u /= 10;
        }
        for (sig = nd; sig > 1 && d[nd - sig] == '0'; sig--)
            ;
        size_t k = 0;
        if (i < 0)
            buf[k++] = '-';
        if (sig == nd) {
            for (int j = nd - 1; j >= 0; j--)
                buf[k++] = d[j];
            buf[k] = '\0';
        } else {
            buf[k++] = d[nd - 1];
            if (sig > 1)
                buf[k++] = '.';
            for (int j = nd - 2; j >= nd - sig; j--)
                buf[k++] = d[j];
            bench__fmt(buf + k, size - k, "e+%02d", nd - 1);
        }
        return;
    }
    /* Any decimal of at most 15 significant digits reads back as the double nearest to it and
     * prints again as itself at 15 (DBL_DIG): when "%.15g" reads back as v, its digits without
     * the trailing zeros are the shortest that do, and "%.Ng" with N their count writes them
     * (its own choice of the exponent form). Otherwise 16, else 17 (which always reads back). */
    bench__fmt(buf, size, "%.15g", v);
    if (strtod(buf, NULL) == v) {
        /* "%.Ng" writes the same digits, and in the same form unless the text is fixed with
         * more integer digits than N (1e7: "10000000" at 15, "1e+07" at 1) */
        int n = significant_digits(buf);
        size_t int_digits = strspn(buf + (buf[0] == '-'), "0123456789");
        if (n < 15 && !strchr(buf, 'e') && int_digits > (size_t)n)
            bench__fmt(buf, size, "%.*g", n, v);
        return;
    }
    bench__fmt(buf, size, "%.16g", v);
    if (strtod(buf, NULL) != v)
        bench__fmt(buf, size, "%.17g", v);
}

/* A real as the shortest "%.Ng" that reads back as the same double, with jansson's
 * exponent style (no '+', no leading zeros) and a ".0" when it would look like an integer. */
static void shortest_real(double v, char *buf, size_t size)
{
    tool_real_shortest(v, buf, size);
    char *e = strchr(buf, 'e');
    if (e) {
        char *src = e + 1, *dst = e + 1;
        if (*src == '+')
            src++;
        else if (*src == '-')
            *dst++ = *src++;
        while (*src == '0' && src[1])
            src++;
        memmove(dst, src, strlen(src) + 1);
    } else if (!strchr(buf, '.')) {
        strncat(buf, ".0", size - strlen(buf) - 1);
    }
}

/* Rewrite every real of jansson's "%.17g" text in its shortest round-trip form: the same
 * values, read back bit for bit, without the noise digits (0.05, not 0.050000000000000003). */
static void put(struct bench__text *t, const char *s, size_t n)
{
    if (bench__text_append(s, n, t) != 0)
        bench__out_of_memory();
}

static void shorten_reals(struct bench__text *b)
{
    struct bench__text o = {0};
    size_t i = 0;
    while (i < b->len) {
        size_t start = i;
        if (b->data[i] == '"') { /* a string, escapes included: copied as it is */
            for (i++; i < b->len && b->data[i] != '"'; i++)
                if (b->data[i] == '\\')
                    i++;
            i++;
        } else if (b->data[i] == '-' || (b->data[i] >= '0' && b->data[i] <= '9')) {
            bool real = false;
            while (i < b->len && strchr("0123456789+-.eE", b->data[i])) {
                real = real || strchr(".eE", b->data[i]);
                i++;
            }
            if (real) {
                char text[64], out[64];
                size_t n = i - start < sizeof text - 1 ? i - start : sizeof text - 1;
                memcpy(text, b->data + start, n);
                text[n] = '\0';
                shortest_real(strtod(text, NULL), out, sizeof out);
                put(&o, out, strlen(out));
                continue;
            }
        } else { /* punctuation, keys' quotes aside, true/false/null: up to what may start a number
                    or a string */
            for (i++; i < b->len && b->data[i] != '"' && b->data[i] != '-' &&
                      !(b->data[i] >= '0' && b->data[i] <= '9');
                 i++)
                ;
        }
        if (i > b->len)
            i = b->len;
        put(&o, b->data + start, i - start);
    }
    free(b->data);
    *b = o;
}

/* jansson's text fails only when the text cannot grow (a document the tool built holds valid
 * UTF-8 only): out of memory, the one policy. */
static void dump(const json_t *doc, struct bench__text *out, size_t flags)
{
    struct bench__text t = {0};
    if (json_dump_callback(doc, bench__text_append, &t, flags | JSON_REAL_PRECISION(17)) != 0)
        bench__out_of_memory();
    shorten_reals(&t);
    put(out, t.data, t.len);
    put(out, "\n", 1);
    free(t.data);
}

/* ---- compact text written directly: the bytes of tool_json_dump_line for the same value ---- */

void tool_json_put(struct bench__text *out, const char *s, size_t n)
{
    put(out, s, n);
}

void tool_json_put_string(struct bench__text *out, const char *s, size_t n)
{
    /* jansson's escapes: '"' and '\\' by a backslash, the control characters by their short
     * escape or \u00XX (upper-case digits); every other byte (UTF-8 included) as it is */
    static const char hex[] = "0123456789ABCDEF";
    put(out, "\"", 1);
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put(out, s + from, i - from);
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        size_t len = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default: len = 6; break;
        }
        put(out, esc, len);
        from = i + 1;
    }
    put(out, s + from, n - from);
    put(out, "\"", 1);
}

void tool_json_put_real(struct bench__text *out, double v)
{
    /* the reals a document repeats (a row's p50 in its side, its history and its values) are
     * written from the text last made for them: printf's digits are most of a real's cost */
    static _Thread_local struct {
        double v;
        char text[40];
    } seen[64];
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    size_t slot = (size_t)((bits * 0x9E3779B97F4A7C15ULL) >> 58);
    if (seen[slot].text[0] && memcmp(&seen[slot].v, &v, sizeof v) == 0) {
        put(out, seen[slot].text, strlen(seen[slot].text));
        return;
    }
    char text[64];
    shortest_real(v, text, sizeof text);
    put(out, text, strlen(text));
    if (strlen(text) < sizeof seen[slot].text) {
        seen[slot].v = v;
        memcpy(seen[slot].text, text, strlen(text) + 1);
    }
}

void tool_json_put_integer(struct bench__text *out, long long v)
{
    char text[32];
    bench__fmt(text, sizeof text, "%lld", v);
    put(out, text, strlen(text));
}

/* An object's member, for the sort of its keys. */
struct member {
    const char *key;
    const json_t *value;
};

static int member_cmp(const void *a, const void *b)
{
    return strcmp(((const struct member *)a)->key, ((const struct member *)b)->key);
}

/* An object's members, keys sorted as jansson's JSON_SORT_KEYS sorts them (strcmp: a key the
 * tool writes holds no NUL); a few by insertion, without qsort's calls. */
static void put_value(struct bench__text *out, const json_t *v, bool sorted);

static void put_sorted_object(struct bench__text *out, const json_t *v)
{
    size_t n = json_object_size(v), k = 0;
    struct member small[32], *m = n <= 32 ? small : bench__xmalloc(n * sizeof *m);
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)v, key, e)
    {
        m[k++] = (struct member){key, e};
    }
    if (k <= 32) {
        for (size_t i = 1; i < k; i++)
            for (size_t j = i; j > 0 && strcmp(m[j - 1].key, m[j].key) > 0; j--) {
                struct member t = m[j];
                m[j] = m[j - 1];
                m[j - 1] = t;
            }
    } else {
        qsort(m, k, sizeof *m, member_cmp);
    }
    put(out, "{", 1);
    for (size_t i = 0; i < k; i++) {
        if (i)
            put(out, ",", 1);
        tool_json_put_string(out, m[i].key, strlen(m[i].key));
        put(out, ":", 1);
        put_value(out, m[i].value, true);
    }
    put(out, "}", 1);
    if (m != small)
        free(m);
}

static void put_value(struct bench__text *out, const json_t *v, bool sorted)
{
    size_t i;
    const char *key;
    const json_t *e;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        if (sorted) {
            put_sorted_object(out, v);
            break;
        }
        put(out, "{", 1);
        i = 0;
        json_object_foreach((json_t *)v, key, e)
        {
            if (i++)
                put(out, ",", 1);
            tool_json_put_string(out, key, strlen(key));
            put(out, ":", 1);
            put_value(out, e, false);
        }
        put(out, "}", 1);
        break;
    case JSON_ARRAY:
        put(out, "[", 1);
        json_array_foreach(v, i, e)
        {
            if (i)
                put(out, ",", 1);
            put_value(out, e, sorted);
        }
        put(out, "]", 1);
        break;
    case JSON_STRING: tool_json_put_string(out, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: tool_json_put_integer(out, (long long)json_integer_value(v)); break;
    case JSON_REAL: tool_json_put_real(out, json_real_value(v)); break;
    case JSON_TRUE: put(out, "true", 4); break;
    case JSON_FALSE: put(out, "false", 5); break;
    case JSON_NULL: put(out, "null", 4); break;
    }
}

void tool_json_put_value(struct bench__text *out, const json_t *v)
{
    put_value(out, v, false);
}

void tool_json_put_value_sorted(struct bench__text *out, const json_t *v)
{
    put_value(out, v, true);
}

void tool_json_dump(const json_t *doc, struct bench__text *out)
{
    dump(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

void tool_json_dump_sorted(const json_t *doc, struct bench__text *out)
{
    dump(doc, out, JSON_INDENT(2) | JSON_SORT_KEYS);
}

void tool_json_dump_line(const json_t *doc, struct bench__text *out)
{
    dump(doc, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
}

void tool_json_dump_sorted_line(const json_t *doc, struct bench__text *out)
{
    dump(doc, out, JSON_COMPACT | JSON_SORT_KEYS);
}

int tool_json_write(const json_t *doc, const char *path, char *err, size_t err_size)
{
    struct bench__text b = {0};
    tool_json_dump(doc, &b);
    int e = bench__write_file(path, b.data, b.len);
    free(b.data);
    if (e == 0)
        return 0;
    char shown[PATH_MAX];
    bench__sanitize_copy(path, shown, sizeof shown);
    bench__fmt(err, err_size, "cannot write '%s': %s", shown, bench__write_file_strerror(e));
    return -1;
}

int tool_json_error(char *err, size_t size, const char *fmt, ...)
{
    if (err && size > 0) {
        va_list ap;
        va_start(ap, fmt);
        bench__vfmt(err, size, fmt, ap);
        va_end(ap);
        bench__sanitize(err); /* the message stays on one line */
    }
    return -1;
}

const char *tool_json_type_name(const json_t *v)
{
    if (!v)
        return "missing"; /* a key the object does not have */
    return tool_json_type_name_of(json_typeof(v));
}

const char *tool_json_type_name_of(json_type type)
{
    switch (type) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong form, no surrogate, nothing
 * over U+10FFFF), or 0 when there is none. */
static size_t utf8_sequence(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

bool tool_json_utf8(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_sequence(p);
        if (!n)
            return false;
        p += n;
    }
    return true;
}

json_t *tool_json_text(const char *s)
{
    json_t *v = json_string(s ? s : "");
    if (v)
        return v;
    size_t len = strlen(s);
    char *fixed = bench__xmalloc(len * 3 + 1); /* each byte at most U+FFFD, 3 bytes */
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_sequence(p);
        if (n) {
            memcpy(fixed + o, p, n);
            o += n;
            p += n;
        } else {
            memcpy(fixed + o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    fixed[o] = '\0';
    v = json_string(fixed);
    free(fixed);
    if (!v)
        bench__out_of_memory();
    return v;
}
