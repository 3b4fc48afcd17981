/* SPDX-License-Identifier: MIT */
/* results_line_fast.c: owns the fast reading of a raw line of the shape the writer gives it
 * (results_raw.c): compact, ASCII strings without escapes, known keys once each, metrics flat.
 * It accepts only a line results_line.c's reader accepts and fills the same fields with the same
 * values; any other line (and every line it would refuse) is left to that reader, which says why.
 * Pure: no file, no index. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_tool.h"
#include "util/alloc.h"

/* One value of the line, as read. */
enum fast_kind {
    FAST_NONE,
    FAST_NULL,
    FAST_FALSE,
    FAST_TRUE,
    FAST_INT,
    FAST_REAL,
    FAST_STR,
    FAST_OBJECT,
    FAST_ARRAY
};
struct fast_value {
    enum fast_kind kind;
    long long i;
    double d;
    char *s;               /* FAST_STR: NUL-terminated in the copy */
    const char *from, *to; /* FAST_OBJECT, FAST_ARRAY: the text, brackets included */
};

/* The keys of a line, in the writer's order; a key not here sends the line to the reader. */
enum {
    K_SCHEMA,
    K_BENCH_ID,
    K_TIMESTAMP,
    K_PROFILE,
    K_SCENARIO,
    K_OPERATION,
    K_RUN,
    K_SUBJECT,
    K_VALUE,
    K_WHOLE,
    K_RC,
    K_SKIP,
    K_FAILURE,
    K_METRICS,
    K_SOURCE,
    K_DOCUMENT,
    K_HOST_ID,
    K_HOST,
    K_PLATFORM,
    K_MACHINE,
    K_CPU,
    K_COMPILER,
    K_LIBVER,
    K_REVISION,
    K_RECORDER,
    K_PROVENANCE,
    K_SAMPLES,
    K_MAD,
    K_CONTENTION,
    K_ESTIMATED,
    K_ROLE,
    K_CACHE_REQ,
    K_CACHE_STATE,
    K_CACHE_REASON,
    K_CPU_USER,
    K_CPU_SYS,
    K_RSS,
    K_IO_R,
    K_IO_W,
    K_MAJ,
    K_MIN,
    K_VCS,
    K_ICS,
    K_RUSAGE_SOURCE,
    K_CONTRACT,
    K_BINARY,
    K_SOURCES,
    K_COUNT
};
static const char *const KEYS[K_COUNT] = {"schema_version",
                                          "bench_id",
                                          "timestamp_utc",
                                          "profile",
                                          "scenario",
                                          "operation",
                                          "run",
                                          "subject",
                                          "value_ns",
                                          "whole_process",
                                          "returncode",
                                          "skip_reason",
                                          "failure",
                                          "metrics",
                                          "source",
                                          "document",
                                          "host_id",
                                          "host",
                                          "platform",
                                          "machine",
                                          "cpu_model",
                                          "compiler",
                                          "library_version",
                                          "source_revision",
                                          "recorder_version",
                                          "provenance",
                                          "sample_count",
                                          "mad_ns",
                                          "contention",
                                          "estimated_metrics",
                                          "subject_role",
                                          "cache_mode_requested",
                                          "page_cache_state",
                                          "page_cache_reason",
                                          "cpu_user_us",
                                          "cpu_sys_us",
                                          "peak_rss_kib",
                                          "io_read_blocks",
                                          "io_write_blocks",
                                          "major_page_faults",
                                          "minor_page_faults",
                                          "vol_cs",
                                          "invol_cs",
                                          "rusage_source",
                                          "timing_contract_version",
                                          "binary_sha256",
                                          "sources"};

struct fast {
    char *p, *end;
};

/* A string of printable ASCII without an escape; its closing quote becomes its NUL. */
static bool scan_string(struct fast *f, char **out)
{
    if (f->p >= f->end || *f->p != '"')
        return false;
    char *s = ++f->p;
    while (f->p < f->end && *f->p != '"') {
        unsigned char c = (unsigned char)*f->p;
        if (c < 0x20 || c > 0x7e || c == '\\')
            return false;
        f->p++;
    }
    if (f->p >= f->end)
        return false;
    *f->p++ = '\0';
    *out = s;
    return true;
}

static bool digits(struct fast *f)
{
    const char *from = f->p;
    while (f->p < f->end && *f->p >= '0' && *f->p <= '9')
        f->p++;
    return f->p > from;
}

/* A JSON number: an integer of at most 18 digits (not "-0"), or a finite real. */
static bool scan_number(struct fast *f, struct fast_value *v)
{
    char *from = f->p;
    if (*f->p == '-')
        f->p++;
    char *first = f->p;
    if (!digits(f) || (*first == '0' && f->p - first > 1))
        return false;
    bool real = false;
    if (f->p < f->end && *f->p == '.') {
        f->p++;
        if (!digits(f))
            return false;
        real = true;
    }
    if (f->p < f->end && (*f->p == 'e' || *f->p == 'E')) {
        f->p++;
        if (f->p < f->end && (*f->p == '+' || *f->p == '-'))
            f->p++;
        if (!digits(f))
            return false;
        real = true;
    }
    if (f->p >= f->end || (*f->p != ',' && *f->p != '}' && *f->p != ']'))
        return false;
    if (!real) {
        if (f->p - first > 18 || (*from == '-' && *first == '0'))
            return false;
        v->kind = FAST_INT;
        v->i = strtoll(from, NULL, 10);
        return true;
    }
    v->kind = FAST_REAL;
    v->d = strtod(from, NULL);
    return isfinite(v->d);
}

static bool scan_word(struct fast *f, const char *w, enum fast_kind kind, struct fast_value *v)
{
    size_t n = strlen(w);
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, w, n) != 0)
        return false;
    f->p += n;
    v->kind = kind;
    return true;
}

/* A value that holds no object or array. */
static bool scan_scalar(struct fast *f, struct fast_value *v)
{
    if (f->p >= f->end)
        return false;
    switch (*f->p) {
    case '"': v->kind = FAST_STR; return scan_string(f, &v->s);
    case 'n': return scan_word(f, "null", FAST_NULL, v);
    case 't': return scan_word(f, "true", FAST_TRUE, v);
    case 'f': return scan_word(f, "false", FAST_FALSE, v);
    default: return (*f->p == '-' || (*f->p >= '0' && *f->p <= '9')) && scan_number(f, v);
    }
}

/* A flat object ({"k":scalar,...}) or an array of scalars; its pairs in keys/vals (up to max). */
static bool scan_flat(struct fast *f, bool object, char **keys, struct fast_value *vals, size_t max,
                      size_t *n)
{
    *n = 0;
    f->p++;
    if (f->p < f->end && *f->p == (object ? '}' : ']')) {
        f->p++;
        return true;
    }
    for (;;) {
        if (*n == max)
            return false;
        if (object && (!scan_string(f, &keys[*n]) || f->p >= f->end || *f->p++ != ':'))
            return false;
        if (!scan_scalar(f, &vals[*n]))
            return false;
        (*n)++;
        if (f->p >= f->end)
            return false;
        char c = *f->p++;
        if (c == (object ? '}' : ']'))
            return true;
        if (c != ',')
            return false;
    }
}

#define FLAT_MAX 64 /* members of a nested object or array read here; more: the reader's */

/* A real as jansson writes it at 17 digits (the index keeps what results_line.c's dump gives). */
static void put_real17(struct bench__text *t, double d)
{
    char buf[64];
    int len = snprintf(buf, sizeof buf - 2, "%.17g", d);
    if (!strchr(buf, '.') && !strchr(buf, 'e'))
        memcpy(buf + len, ".0", 3);
    char *e = strchr(buf, 'e');
    if (e) { /* no '+', no leading zero in the exponent */
        char *start = e + 1, *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start)
            memmove(start, end, strlen(end) + 1);
    }
    bench__text_append(buf, strlen(buf), t);
}

static void put_scalar(struct bench__text *t, const struct fast_value *v)
{
    char buf[32];
    switch (v->kind) {
    case FAST_NULL: bench__text_append("null", 4, t); break;
    case FAST_TRUE: bench__text_append("true", 4, t); break;
    case FAST_FALSE: bench__text_append("false", 5, t); break;
    case FAST_INT:
        snprintf(buf, sizeof buf, "%lld", v->i);
        bench__text_append(buf, strlen(buf), t);
        break;
    case FAST_REAL: put_real17(t, v->d); break;
    default:
        bench__text_append("\"", 1, t);
        bench__text_append(v->s, strlen(v->s), t);
        bench__text_append("\"", 1, t);
        break;
    }
}

static int key_order(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* The compact text of a flat object, keys sorted (what results_line.c's dump gives); NULL when
 * it holds a key twice (the reader refuses the line). */
static char *sorted_text(char **keys, const struct fast_value *vals, size_t n)
{
    char **order[FLAT_MAX] = {0};
    for (size_t i = 0; i < n; i++)
        order[i] = &keys[i];
    qsort(order, n, sizeof *order, key_order);
    struct bench__text t = {0};
    bench__text_append("{", 1, &t);
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(*order[i], *order[i - 1])) {
            free(t.data);
            return NULL;
        }
        if (i)
            bench__text_append(",", 1, &t);
        bench__text_append("\"", 1, &t);
        bench__text_append(*order[i], strlen(*order[i]), &t);
        bench__text_append("\":", 2, &t);
        put_scalar(&t, &vals[order[i] - keys]);
    }
    bench__text_append("}", 1, &t);
    return t.data;
}

/* What a line read here holds beyond its scalars. */
struct fast_line {
    struct fast_value v[K_COUNT];
    char *metric_keys[FLAT_MAX], *source_keys[FLAT_MAX];
    struct fast_value metrics[FLAT_MAX], sources[FLAT_MAX], estimated[FLAT_MAX], other[FLAT_MAX];
    size_t n_metrics, n_sources, n_estimated;
};

static int key_index(const char *key, int hint)
{
    if (hint < K_COUNT && !strcmp(KEYS[hint], key))
        return hint;
    for (int k = 0; k < K_COUNT; k++)
        if (!strcmp(KEYS[k], key))
            return k;
    return -1;
}

/* The line's members into fl: false at anything this reader leaves to results_line.c. */
static bool scan_line(struct fast *f, struct fast_line *fl)
{
    if (f->p >= f->end || *f->p++ != '{')
        return false;
    int hint = 0;
    for (;;) {
        char *key;
        if (!scan_string(f, &key) || f->p >= f->end || *f->p++ != ':')
            return false;
        int k = key_index(key, hint);
        if (k < 0 || fl->v[k].kind != FAST_NONE || f->p >= f->end)
            return false; /* a key of a later libbench, or twice */
        hint = k + 1;
        struct fast_value *v = &fl->v[k];
        size_t n;
        if (*f->p == '{' || *f->p == '[') {
            bool object = *f->p == '{';
            v->kind = object ? FAST_OBJECT : FAST_ARRAY;
            if (k == K_METRICS && object) {
                if (!scan_flat(f, true, fl->metric_keys, fl->metrics, FLAT_MAX, &fl->n_metrics))
                    return false;
            } else if (k == K_SOURCES && object) {
                if (!scan_flat(f, true, fl->source_keys, fl->sources, FLAT_MAX, &fl->n_sources))
                    return false;
            } else if (k == K_ESTIMATED && !object) {
                if (!scan_flat(f, false, NULL, fl->estimated, FLAT_MAX, &fl->n_estimated))
                    return false;
            } else if (k == K_PROVENANCE && !object) {
                if (!scan_flat(f, false, NULL, fl->other, FLAT_MAX, &n))
                    return false;
            } else {
                return false;
            }
        } else if (!scan_scalar(f, v)) {
            return false;
        }
        if (f->p >= f->end)
            return false;
        char c = *f->p++;
        if (c == '}')
            return f->p == f->end; /* nothing after the object, not even a space */
        if (c != ',')
            return false;
    }
}

/* A string, or NULL for null or absent; false for another kind. */
static bool opt_str(const struct fast_value *v, const char **out)
{
    *out = v->kind == FAST_STR ? v->s : NULL;
    return v->kind == FAST_STR || v->kind == FAST_NULL || v->kind == FAST_NONE;
}

/* A number (NaN for null or absent); false for another kind. */
static bool num_or_null(const struct fast_value *v, double *out)
{
    *out = v->kind == FAST_INT ? (double)v->i : v->kind == FAST_REAL ? v->d : NAN;
    return v->kind == FAST_INT || v->kind == FAST_REAL || v->kind == FAST_NULL ||
           v->kind == FAST_NONE;
}

int results_line_parse_fast(const char *text, size_t len, struct results_line *out)
{
    memset(out, 0, sizeof *out);
    /* on the stack, and only what is read before it is written zeroed: this runs once a line */
    struct fast_line line_buf, *fl = &line_buf;
    memset(fl->v, 0, sizeof fl->v);
    fl->n_metrics = fl->n_sources = fl->n_estimated = 0;
    char *copy = bench__xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    struct fast f = {.p = copy, .end = copy + len};
    struct results_line *l = out;
    const struct fast_value *v = fl->v;
    int64_t epoch;
    double c;
    bool ok =
        scan_line(&f, fl) && v[K_SCHEMA].kind == FAST_INT &&
        v[K_SCHEMA].i == RESULTS_SCHEMA_VERSION && v[K_BENCH_ID].kind == FAST_STR &&
        strlen(v[K_BENCH_ID].s) == 16 && v[K_TIMESTAMP].kind == FAST_STR &&
        results_time_parse(v[K_TIMESTAMP].s, &epoch) && v[K_PROFILE].kind == FAST_STR &&
        results_profile_ok(v[K_PROFILE].s) && v[K_SCENARIO].kind == FAST_STR &&
        v[K_SCENARIO].s[0] && v[K_OPERATION].kind == FAST_STR && v[K_SUBJECT].kind == FAST_STR &&
        v[K_SUBJECT].s[0] && v[K_RUN].kind == FAST_INT && v[K_RUN].i >= 0 &&
        v[K_RC].kind == FAST_INT && v[K_RC].i >= -255 && v[K_RC].i <= 255 &&
        v[K_VALUE].kind != FAST_NONE && num_or_null(&v[K_VALUE], &l->m.value_ns) &&
        !(isfinite(l->m.value_ns) && l->m.value_ns < 0) &&
        (v[K_WHOLE].kind == FAST_TRUE || v[K_WHOLE].kind == FAST_FALSE) &&
        v[K_METRICS].kind == FAST_OBJECT && v[K_HOST_ID].kind == FAST_STR && v[K_HOST_ID].s[0] &&
        opt_str(&v[K_SKIP], &l->skip_reason) && opt_str(&v[K_FAILURE], &l->failure) &&
        opt_str(&v[K_HOST], &l->host) && opt_str(&v[K_PLATFORM], &l->platform) &&
        opt_str(&v[K_MACHINE], &l->machine) && opt_str(&v[K_CPU], &l->cpu_model) &&
        opt_str(&v[K_COMPILER], &l->compiler) && opt_str(&v[K_LIBVER], &l->library_version) &&
        opt_str(&v[K_REVISION], &l->source_revision) &&
        /* the facts of issue 28 (results_line.c, line_facts_read) */
        (v[K_SAMPLES].kind == FAST_NONE || v[K_SAMPLES].kind == FAST_NULL ||
         (v[K_SAMPLES].kind == FAST_INT && v[K_SAMPLES].i >= 0)) &&
        num_or_null(&v[K_MAD], &l->m.row_mad_ns) && !(l->m.row_mad_ns < 0) &&
        num_or_null(&v[K_CONTENTION], &c) && !(c < 0) &&
        (v[K_ESTIMATED].kind == FAST_NONE || v[K_ESTIMATED].kind == FAST_ARRAY) &&
        (v[K_SOURCES].kind == FAST_NONE || v[K_SOURCES].kind == FAST_NULL ||
         v[K_SOURCES].kind == FAST_OBJECT);
    for (size_t i = 0; ok && i < fl->n_estimated; i++)
        ok = fl->estimated[i].kind == FAST_STR;
    for (size_t i = 0; ok && i < fl->n_sources; i++)
        ok = fl->sources[i].kind == FAST_STR;
    if (ok)
        l->metrics_json = sorted_text(fl->metric_keys, fl->metrics, fl->n_metrics);
    if (ok && fl->n_sources)
        l->sources_json = sorted_text(fl->source_keys, fl->sources, fl->n_sources);
    ok = ok && l->metrics_json && (!fl->n_sources || l->sources_json);
    if (!ok) {
        free(l->metrics_json);
        free(l->sources_json);
        free(copy);
        memset(out, 0, sizeof *out);
        return 0;
    }
    struct bench__text est = {0};
    bench__text_append("[", 1, &est);
    for (size_t i = 0; i < fl->n_estimated; i++) {
        if (i)
            bench__text_append(",", 1, &est);
        put_scalar(&est, &fl->estimated[i]);
    }
    bench__text_append("]", 1, &est);
    l->estimated_json = est.data;
    l->text = copy;
    l->timestamp_utc = v[K_TIMESTAMP].s;
    l->m.bench_id = v[K_BENCH_ID].s;
    l->m.profile = v[K_PROFILE].s;
    l->m.scenario = v[K_SCENARIO].s;
    l->m.operation = v[K_OPERATION].s;
    l->m.subject = v[K_SUBJECT].s;
    l->m.host_id = v[K_HOST_ID].s;
    l->m.row_samples = v[K_SAMPLES].kind == FAST_INT ? (size_t)v[K_SAMPLES].i : 0;
    l->m.contention_known = isfinite(c);
    l->m.contention = c;
    l->m.run = (int64_t)v[K_RUN].i;
    l->m.returncode = (int)v[K_RC].i;
    l->m.whole_process = v[K_WHOLE].kind == FAST_TRUE;
    if (l->m.returncode != 0)
        l->m.value_ns = NAN; /* a failure or skip has no value, whatever the line says */
    return 1;
}
