/* SPDX-License-Identifier: MIT */
/* results_line.c: owns a raw line of the results history read back (docs/reference/results.md,
 * "The raw line"; results_raw.c writes it): every field checked, a line of an older libbench read
 * with what it did not know as not known. Pure: no file, no index. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results_tool.h"
#include "common/json.h"
#include "common/json_rows.h"
#include "util/alloc.h"
#include "util/text.h"

/* ---- a line read back ---- */

/* A number or null; false when it is something else. */
bool results_num_or_null(const json_t *v, double *out)
{
    if (!v || json_is_null(v)) {
        *out = NAN;
        return true;
    }
    if (!json_is_number(v))
        return false;
    *out = json_number_value(v);
    return true;
}

const json_t *results_strings(const json_t *v)
{
    size_t i;
    const json_t *e;
    if (!json_is_array(v))
        return NULL;
    json_array_foreach(v, i, e)
    {
        if (!json_is_string(e))
            return NULL;
    }
    return v;
}

static bool opt_str(const json_t *o, const char *key, const char **out)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        *out = NULL;
        return true;
    }
    if (!json_is_string(v))
        return false;
    *out = json_string_value(v);
    return true;
}

static bool req_str(const json_t *o, const char *key, const char **out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        return false;
    *out = json_string_value(v);
    return true;
}

static char *dump_compact(const json_t *v)
{
    char *t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    if (!t)
        bench__out_of_memory();
    return t;
}

/* The fields a line written before issue 28 lacks (docs/reference/results.md, "The raw line"):
 * absent or null is not known; a value of another type refuses the line. NULL, or the reason. */
static const char *line_facts_read(const json_t *o, struct results_line *l)
{
    const json_t *samples = json_object_get(o, "sample_count");
    const json_t *cont = json_object_get(o, "contention");
    const json_t *est = json_object_get(o, "estimated_metrics");
    const json_t *src = json_object_get(o, "sources");
    l->m.row_mad_ns = NAN;
    if (samples && !json_is_null(samples) &&
        !(json_is_integer(samples) && json_integer_value(samples) >= 0))
        return "\"sample_count\" is not a whole number or null";
    if (!results_num_or_null(json_object_get(o, "mad_ns"), &l->m.row_mad_ns) || l->m.row_mad_ns < 0)
        return "\"mad_ns\" is not a number of ns or null";
    double c;
    if (!results_num_or_null(cont, &c) || c < 0)
        return "\"contention\" is not a share or null";
    if (est && !results_strings(est))
        return "\"estimated_metrics\" is not an array of strings";
    if (src && !json_is_null(src)) {
        const char *k;
        const json_t *v;
        if (!json_is_object(src))
            return "\"sources\" is not an object";
        json_object_foreach((json_t *)src, k, v)
        {
            if (!json_is_string(v))
                return "\"sources\" holds a value that is not a string";
        }
    }
    l->m.row_samples = json_is_integer(samples) ? (size_t)json_integer_value(samples) : 0;
    l->m.contention_known = isfinite(c);
    l->m.contention = c;
    l->estimated_json = est ? dump_compact(est) : bench__xstrdup("[]");
    l->sources_json = json_object_size(src) ? dump_compact(src) : NULL;
    return NULL;
}

int results_line_parse(const char *text, size_t len, struct results_line *out, char *err,
                       size_t err_size)
{
    if (results_line_parse_fast(text, len, out))
        return 0;
    return results_line_parse_jansson(text, len, out, err, err_size);
}

int results_line_parse_jansson(const char *text, size_t len, struct results_line *out, char *err,
                               size_t err_size)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!o)
        return tool_json_error(err, err_size, "not JSON: %s (column %d)", je.text, je.column);
    struct results_line *l = out;
    l->root = o;
    const char *bad = NULL;
    const json_t *sv = json_object_get(o, "schema_version");
    const json_t *run = json_object_get(o, "run");
    const json_t *rc = json_object_get(o, "returncode");
    const json_t *wp = json_object_get(o, "whole_process");
    const json_t *metrics = json_object_get(o, "metrics");
    int64_t epoch;
    if (!json_is_object(o))
        bad = "the line is not a JSON object";
    else if (!json_is_integer(sv) || json_integer_value(sv) != RESULTS_SCHEMA_VERSION)
        bad = "\"schema_version\" is not 1";
    else if (!req_str(o, "bench_id", &l->m.bench_id) || strlen(l->m.bench_id) != 16)
        bad = "\"bench_id\" is not a YYYYMMDDTHHMMSSZ string";
    else if (!req_str(o, "timestamp_utc", &l->timestamp_utc) ||
             !results_time_parse(l->timestamp_utc, &epoch))
        bad = "\"timestamp_utc\" is not an RFC 3339 UTC time";
    else if (!req_str(o, "profile", &l->m.profile) || !results_profile_ok(l->m.profile))
        bad = "\"profile\" is not a profile name";
    else if (!req_str(o, "scenario", &l->m.scenario) || !l->m.scenario[0])
        bad = "\"scenario\" is not a non-empty string";
    else if (!req_str(o, "operation", &l->m.operation))
        bad = "\"operation\" is not a string";
    else if (!req_str(o, "subject", &l->m.subject) || !l->m.subject[0])
        bad = "\"subject\" is not a non-empty string";
    else if (!json_is_integer(run) || json_integer_value(run) < 0)
        bad = "\"run\" is not a whole number";
    else if (!json_is_integer(rc) || json_integer_value(rc) < -255 || json_integer_value(rc) > 255)
        bad = "\"returncode\" is not an exit code";
    else if (!results_num_or_null(json_object_get(o, "value_ns"), &l->m.value_ns) ||
             !json_object_get(o, "value_ns") || (isfinite(l->m.value_ns) && l->m.value_ns < 0))
        bad = "\"value_ns\" is not a number of ns or null";
    else if (!json_is_boolean(wp))
        bad = "\"whole_process\" is not true or false";
    else if (!json_is_object(metrics))
        bad = "\"metrics\" is not an object";
    else if (!req_str(o, "host_id", &l->m.host_id) || !l->m.host_id[0])
        bad = "\"host_id\" is not a non-empty string";
    else if (!opt_str(o, "skip_reason", &l->skip_reason) || !opt_str(o, "failure", &l->failure) ||
             !opt_str(o, "host", &l->host) || !opt_str(o, "platform", &l->platform) ||
             !opt_str(o, "machine", &l->machine) || !opt_str(o, "cpu_model", &l->cpu_model) ||
             !opt_str(o, "compiler", &l->compiler) ||
             !opt_str(o, "library_version", &l->library_version) ||
             !opt_str(o, "source_revision", &l->source_revision))
        bad = "a provenance field is neither a string nor null";
    if (!bad)
        bad = line_facts_read(o, l);
    if (bad) {
        json_decref(o);
        free(l->estimated_json);
        free(l->sources_json);
        memset(out, 0, sizeof *out);
        return tool_json_error(err, err_size, "%s", bad);
    }
    l->m.run = (int64_t)json_integer_value(run);
    l->m.returncode = (int)json_integer_value(rc);
    l->m.whole_process = json_is_true(wp);
    if (l->m.returncode != 0)
        l->m.value_ns = NAN; /* a failure or skip has no value, whatever the line says */
    l->metrics_json = json_dumps(metrics, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    if (!l->metrics_json)
        bench__out_of_memory();
    return 0;
}

void results_line_free(struct results_line *line)
{
    json_decref(line->root);
    free(line->text);
    free(line->metrics_json);
    free(line->estimated_json);
    free(line->sources_json);
    memset(line, 0, sizeof *line);
}
