/* SPDX-License-Identifier: MIT */
/* profile_json.c: owns the "profile" object of a row in the --bench-json document (see
 * docs/reference/bench-json.md, "The profile object"). It follows the document's number rules
 * and never samples, symbolises or writes a file. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>

#include "../util/text.h"
#include "profile_json.h"

/* The number rules of docs/reference/bench-json.md ("Numbers"), for the values a profile has:
 * not finite -> null, integral -> an integer, else a real of six significant digits. */
static json_t *number(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == trunc(v) && fabs(v) <= 9007199254740992.0)
        return json_integer((json_int_t)v);
    char text[32];
    bench__fmt(text, sizeof text, "%.6g", v);
    return json_real(strtod(text, NULL));
}

static json_t *text(const char *s)
{
    if (!s)
        return json_null();
    if (bench__utf8_valid(s))
        return json_string(s);
    char *fixed = bench__utf8_repair(s);
    json_t *v = json_string(fixed);
    free(fixed);
    return v;
}

static bool put(json_t *obj, const char *key, json_t *value)
{
    return value && json_object_set_new(obj, key, value) == 0;
}

/* A table: [{"<name_key>": name, "module": m, "samples": n, "share": s}, ...] */
static json_t *entries(const struct bench__profile *p, const struct bench__profile_entry *e,
                       size_t n, const char *name_key, bool with_module)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++) {
        json_t *o = json_object();
        bool ok = o && put(o, name_key, text(e[i].name)) &&
                  (!with_module || put(o, "module", text(e[i].module))) &&
                  put(o, "samples", number((double)e[i].samples)) &&
                  put(o, "share", number(bench__profile_share(p, e[i].samples) / 100.0));
        if (!ok || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *bench__profile_json(const struct bench__profile *p)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok;
    if (p->unavailable) {
        ok = put(o, "unavailable", text(p->unavailable));
    } else {
        json_t *lines = NULL;
        if (p->hot) {
            lines = json_object();
            if (lines &&
                !(put(lines, "function", text(p->hot)) &&
                  put(lines, "lines", entries(p, p->lines, p->n_lines, "location", false)))) {
                json_decref(lines);
                lines = NULL;
            }
        }
        ok = put(o, "event", text(p->event)) && put(o, "hzRequested", number(p->hz)) &&
             put(o, "hzReached", number(p->hz_reached)) && put(o, "cpuNs", number(p->running_ns)) &&
             put(o, "iterations", number((double)p->iterations)) &&
             put(o, "samples", number((double)p->samples)) &&
             put(o, "lost", number((double)p->lost)) &&
             put(o, "minimumSamples", number(BENCH__PROFILE_MIN_SAMPLES)) &&
             put(o, "estimate", json_boolean(bench__profile_estimate(p))) &&
             put(o, "callChains", json_boolean(p->chains)) &&
             put(o, "unwinder", text(p->chains ? p->unwinder : NULL)) &&
             put(o, "unwinderReason", text(p->chains ? p->unwinder_reason : NULL)) &&
             put(o, "framePointerSamples",
                 p->chains ? number((double)p->fp_samples) : json_null()) &&
             put(o, "self", entries(p, p->self, p->n_self, "function", true)) &&
             put(o, "inclusive",
                 p->chains ? entries(p, p->inclusive, p->n_inclusive, "function", true)
                           : json_null()) &&
             put(o, "hotLines", p->hot ? lines : json_null()) &&
             put(o, "unsymbolisedSamples", number((double)p->n_unsymbolised_samples)) &&
             put(o, "unsymbolised",
                 entries(p, p->unsymbolised, p->n_unsymbolised, "reason", true)) &&
             put(o, "harnessSamples",
                 p->harness_unmeasured ? json_null() : number((double)p->harness_samples)) &&
             put(o, "harnessShare",
                 p->harness_unmeasured || !(p->samples + p->harness_samples)
                     ? json_null()
                     : number((double)p->harness_samples /
                              (double)(p->samples + p->harness_samples))) &&
             put(o, "harnessUnmeasured", text(p->harness_unmeasured)) &&
             put(o, "note", text(p->note && *p->note ? p->note : NULL));
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}
