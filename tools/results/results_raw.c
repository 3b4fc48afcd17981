/* SPDX-License-Identifier: MIT */
/* results_raw.c: owns the raw line of the results history (docs/reference/results.md, "The raw
 * line"): a document's rows turned into lines (results_line.c reads a line back). Pure: it reads
 * and writes no file, and opens no index. A value that was not measured stays null; nothing here
 * turns it into 0. The store's names (keys, record times, profiles, sources) are results_key.c's.
 * Over 600 lines because both kinds of document (--bench-json, libbench run) and their limits are
 * one writer of one format. */
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

/* ---- a document into lines ---- */

static const char *meta_str(const json_t *meta, const char *key)
{
    const json_t *v = json_object_get(meta, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* host_id: the first 12 hex digits of SHA-256 over host, platform, machine and CPU model. */
static void host_id_of(const char *host, const char *platform, const char *machine, const char *cpu,
                       char out[13])
{
    char *text =
        bench__xasprintf("%s%c%s%c%s%c%s", host ? host : "", 0x1f, platform ? platform : "", 0x1f,
                         machine ? machine : "", 0x1f, cpu ? cpu : "");
    char hex[65];
    tool_sha256_hex(text, strlen(text), hex);
    free(text);
    memcpy(out, hex, 12);
    out[12] = '\0';
}

struct doc_ctx {
    const struct results_record_info *info;
    size_t doc_index;
    const char *source; /* "bench-json" or "run-json" */
    const char *host, *platform, *machine, *cpu, *compiler, *version;
    const json_t *provenance; /* meta.provenance of a --bench-json document, or NULL */
    json_t *sources;          /* the document's "source NAME=HASH" facts, then --source's */
    char host_id[13];
    struct bench__text *out;
    long lines;
    /* the limits (results_doc_lines): checked before a line is written where they can be */
    bool is_run;
    size_t row0;       /* the index in the document of the rows given to bench_doc/run_doc */
    size_t start;      /* out->len before the document's first line */
    size_t line_floor; /* no line of the document is shorter */
    bool over;         /* its lines would make the object larger than the store reads */
};

/* The timing contracts a line's value was measured under (docs/reference/results.md). */
#define CONTRACT_IN_PROCESS "libbench-median-per-iteration/1"
#define CONTRACT_PROCESS "libbench-process-wall/1"
#define RUSAGE_SOURCE "os_wait4_child_rusage"

/* What a line says beyond its value (docs/reference/results.md, "The raw line"); a field left
 * zero is null (or empty) in the line. */
struct line_facts {
    const json_t *samples, *mad, *contention; /* the row's, as the document has them */
    const json_t *estimated;                  /* its estimatedMetrics, or NULL */
    const json_t *rusage;                     /* a run's rusage object, or NULL */
    const char *cache_requested;              /* cold or warm, or NULL */
    const char *cache_state, *cache_reason;   /* warm, purged or unknown (and why), or NULL */
};

/* ---- the line's text, written directly (tool_json_put_*: the bytes jansson's compact dump of
 * the same object gave, every key in the same order) ---- */

static void put_raw(struct bench__text *t, const char *s)
{
    tool_json_put(t, s, strlen(s));
}

/* ,"key": */
static void put_key(struct bench__text *t, const char *key)
{
    tool_json_put(t, ",\"", 2);
    put_raw(t, key);
    tool_json_put(t, "\":", 2);
}

static void put_str(struct bench__text *t, const char *key, const char *s)
{
    put_key(t, key);
    tool_json_put_string(t, s, strlen(s));
}

/* A string or null (a string that is not UTF-8 has no JSON text: its key is left out). */
static void put_str_or_null(struct bench__text *t, const char *key, const char *s)
{
    if (!s) {
        put_key(t, key);
        put_raw(t, "null");
    } else if (tool_json_utf8(s)) {
        put_str(t, key, s);
    }
}

/* A key whose value is not known is left out (docs/reference/results.md, "The raw line": an
 * absent key reads as null); so is a string that is not UTF-8. */
static void put_known_str(struct bench__text *t, const char *key, const char *s)
{
    if (s && tool_json_utf8(s))
        put_str(t, key, s);
}

/* A value of the document, left out when null (or absent), an empty array or an empty object. */
static void put_known_value(struct bench__text *t, const char *key, const json_t *v)
{
    if (!v || json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0) ||
        (json_is_object(v) && json_object_size(v) == 0))
        return;
    put_key(t, key);
    tool_json_put_value(t, v);
}

/* A whole rusage value of the run's object, scaled down by `div` (ns to µs, bytes to KiB); left
 * out when absent, null or not a whole number. */
static void put_rusage_field(struct bench__text *t, const char *key, const json_t *ru,
                             const char *doc_key, json_int_t div)
{
    const json_t *v = ru ? json_object_get(ru, doc_key) : NULL;
    json_int_t n;
    if (json_is_integer(v))
        n = json_integer_value(v) / div;
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 9e15)
        n = (json_int_t)json_real_value(v) / div;
    else
        return;
    put_key(t, key);
    tool_json_put_integer(t, (long long)n);
}

/* The keys that follow "provenance" (issue 28 and the seed's raw line): the row's samples, MAD
 * and contention, the estimate marks, the subject's role, the page cache, the run's rusage out
 * of `metrics`, the timing contract, the binary and the sources. */
static void put_facts(struct doc_ctx *c, bool whole_process, const struct line_facts *f)
{
    const struct results_record_info *info = c->info;
    struct bench__text *t = c->out;
    put_known_value(t, "sample_count", f->samples);
    put_known_value(t, "mad_ns", f->mad);
    put_known_value(t, "contention", f->contention);
    put_known_value(t, "estimated_metrics", json_is_array(f->estimated) ? f->estimated : NULL);
    put_known_str(t, "subject_role", info->subject_role);
    put_known_str(t, "cache_mode_requested", f->cache_requested);
    put_known_str(t, "page_cache_state", f->cache_state);
    put_known_str(t, "page_cache_reason", f->cache_reason);
    static const struct {
        const char *line, *doc;
        json_int_t div;
    } ru[] = {{"cpu_user_us", "user-ns", 1000},
              {"cpu_sys_us", "sys-ns", 1000},
              {"peak_rss_kib", "max-rss-bytes", 1024},
              {"io_read_blocks", "inblock", 1},
              {"io_write_blocks", "oublock", 1},
              {"major_page_faults", "majflt", 1},
              {"minor_page_faults", "minflt", 1},
              {"vol_cs", "vol-cs", 1},
              {"invol_cs", "invol-cs", 1}};
    for (size_t i = 0; i < sizeof ru / sizeof ru[0]; i++)
        put_rusage_field(t, ru[i].line, f->rusage, ru[i].doc, ru[i].div);
    if (f->rusage)
        put_str(t, "rusage_source", RUSAGE_SOURCE);
    put_str(t, "timing_contract_version", whole_process ? CONTRACT_PROCESS : CONTRACT_IN_PROCESS);
    put_known_str(t, "binary_sha256", info->binary_sha256);
    put_known_value(t, "sources", c->sources);
}

/* Appends one line; metrics is the row's object (NULL: {}). */
static void put_line(struct doc_ctx *c, const char *scenario, const char *operation, size_t run,
                     double value_ns, bool whole_process, int returncode, const char *skip_reason,
                     const char *failure, const json_t *metrics, const struct line_facts *facts)
{
    const struct results_record_info *info = c->info;
    struct bench__text *t = c->out;
    put_raw(t, "{\"schema_version\":");
    tool_json_put_integer(t, RESULTS_SCHEMA_VERSION);
    put_str(t, "bench_id", info->bench_id);
    put_str(t, "timestamp_utc", info->timestamp_utc);
    put_str(t, "profile", info->profile);
    put_str(t, "scenario", scenario);
    put_str(t, "operation", operation);
    put_key(t, "run");
    tool_json_put_integer(t, (long long)run);
    if (tool_json_utf8(info->subject)) /* a key without a JSON string is left out */
        put_str(t, "subject", info->subject);
    put_key(t, "value_ns");
    if (isfinite(value_ns))
        tool_json_put_real(t, value_ns);
    else
        put_raw(t, "null");
    put_key(t, "whole_process");
    put_raw(t, whole_process ? "true" : "false");
    put_key(t, "returncode");
    tool_json_put_integer(t, returncode);
    put_str_or_null(t, "skip_reason", skip_reason);
    put_str_or_null(t, "failure", failure);
    put_key(t, "metrics");
    if (metrics)
        tool_json_put_value(t, metrics);
    else
        put_raw(t, "{}");
    put_str(t, "source", c->source);
    put_key(t, "document");
    tool_json_put_integer(t, (long long)c->doc_index);
    put_str(t, "host_id", c->host_id);
    put_known_str(t, "host", c->host);
    put_known_str(t, "platform", c->platform);
    put_known_str(t, "machine", c->machine);
    put_known_str(t, "cpu_model", c->cpu);
    put_known_str(t, "compiler", c->compiler);
    put_known_str(t, "library_version", c->version);
    put_known_str(t, "source_revision", info->source_revision);
    put_known_str(t, "recorder_version", info->recorder_version);
    put_known_value(t, "provenance", c->provenance);
    static const struct line_facts none = {0};
    put_facts(c, whole_process, facts ? facts : &none);
    tool_json_put(t, "}\n", 2);
    c->lines++;
    if (c->out->len > RESULTS_OBJECT_MAX_BYTES)
        c->over = true; /* the document is refused whole (doc_finish) */
}

static void reject(json_t *rejected, size_t row, const char *reason)
{
    json_t *r = json_object();
    json_object_set_new(r, "row", json_integer((json_int_t)row));
    json_object_set_new(r, "reason", json_string(reason));
    json_array_append_new(rejected, r);
}

/* Whether `lines` more lines of the document fit in the object (each at least line_floor
 * bytes); when not, the document is over, before they are written. */
static bool room_for(struct doc_ctx *c, size_t lines)
{
    size_t left = RESULTS_OBJECT_MAX_BYTES -
                  (c->out->len < RESULTS_OBJECT_MAX_BYTES ? c->out->len : RESULTS_OBJECT_MAX_BYTES);
    if (lines > left / c->line_floor)
        c->over = true;
    return !c->over;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The operation of an in-process row: its labels "k=v,k2=v2" in key order ("" without). */
static char *labels_text(const json_t *labels, char *err, size_t size)
{
    size_t n = json_object_size(labels);
    const char **keys = bench__xcalloc(n ? n : 1, sizeof *keys);
    size_t k = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)labels, key, v)
    {
        if (!json_is_string(v)) {
            tool_json_error(err, size, "label '%s' is %s, not a string", key,
                            tool_json_type_name(v));
            free(keys);
            return NULL;
        }
        keys[k++] = key;
    }
    qsort(keys, k, sizeof *keys, key_cmp);
    struct bench__text t = {0};
    bench__text_append("", 0, &t);
    for (size_t i = 0; i < k; i++) {
        const char *val = json_string_value(json_object_get(labels, keys[i]));
        if (i)
            bench__text_append(",", 1, &t);
        bench__text_append(keys[i], strlen(keys[i]), &t);
        bench__text_append("=", 1, &t);
        bench__text_append(val, strlen(val), &t);
    }
    free(keys);
    return t.data ? t.data : bench__xstrdup("");
}

/* The skip reason of a row without an error and without a value. */
#define NOT_MEASURED "not_measured"

/* A row's number kept on its line only when it is what the field means; anything else is null
 * there (the row's value is what a line is refused for, not these). */
static const json_t *whole_number(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 ? v : NULL;
}

static const json_t *non_negative(const json_t *v)
{
    return json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0 ? v
                                                                                            : NULL;
}

/* The sources of the document's lines: its provenance facts "source NAME=HASH" (a fact of
 * another shape stays a fact only), then --source, which wins for the same NAME. */
static json_t *doc_sources(const json_t *provenance, const json_t *given)
{
    json_t *sources = json_object();
    size_t i;
    const json_t *fact;
    json_array_foreach(provenance, i, fact)
    {
        const char *f = json_string_value(fact);
        if (f && !strncmp(f, "source ", 7))
            (void)results_source_add(sources, f + 7);
    }
    if (given)
        json_object_update(sources, (json_t *)given);
    return sources;
}

static void bench_doc(struct doc_ctx *c, const json_t *rows, size_t run, json_t *rejected)
{
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        char why[256];
        const json_t *name = json_object_get(row, "name");
        const json_t *labels = json_object_get(row, "labels");
        const json_t *error = json_object_get(row, "error");
        const json_t *metrics = json_object_get(row, "metrics");
        double median;
        if (!json_is_object(row)) {
            tool_json_error(why, sizeof why, "the row is %s, not an object",
                            tool_json_type_name(row));
        } else if (!json_is_string(name) || !json_string_length(name)) {
            tool_json_error(why, sizeof why, "\"name\" is %s, not a non-empty string",
                            tool_json_type_name(name));
        } else if (labels && !json_is_object(labels)) {
            tool_json_error(why, sizeof why, "\"labels\" is %s, not an object",
                            tool_json_type_name(labels));
        } else if (!json_is_string(error)) {
            tool_json_error(why, sizeof why, "\"error\" is %s, not a string",
                            tool_json_type_name(error));
        } else if (!results_num_or_null(json_object_get(row, "medianNs"), &median) ||
                   (isfinite(median) && median < 0)) {
            tool_json_error(why, sizeof why, "\"medianNs\" is not a number of ns or null");
        } else if (metrics && !json_is_object(metrics)) {
            tool_json_error(why, sizeof why, "\"metrics\" is %s, not an object",
                            tool_json_type_name(metrics));
        } else {
            char *op = labels ? labels_text(labels, why, sizeof why) : bench__xstrdup("");
            if (op) {
                const char *e = json_string_value(error);
                bool failed = e[0] != '\0';
                /* no error and no value: not measured, which is no failure of the code under
                 * test; a skip with a reason (docs/reference/results.md, "The raw line") */
                bool unmeasured = !failed && !isfinite(median);
                struct line_facts f = {0};
                if (!failed) {
                    f.samples = whole_number(json_object_get(row, "samples"));
                    f.mad = non_negative(json_object_get(row, "deviationNs"));
                    f.contention = non_negative(json_object_get(row, "contention"));
                    f.estimated = results_strings(json_object_get(row, "estimatedMetrics"));
                }
                put_line(c, json_string_value(name), op, run, failed ? NAN : median, false,
                         failed       ? 1
                         : unmeasured ? BENCH__RESULT_SKIP
                                      : 0,
                         unmeasured ? NOT_MEASURED : NULL, failed ? e : NULL,
                         metrics && !failed ? metrics : NULL, &f);
                free(op);
                continue;
            }
        }
        reject(rejected, c->row0 + i, why);
    }
}

/* The exit code a failed command's line carries: its exit status, else 1. */
static int failure_code(const json_t *failure)
{
    const json_t *st = json_object_get(failure, "exitStatus");
    if (json_is_integer(st) && json_integer_value(st) != 0 && json_integer_value(st) != 77 &&
        json_integer_value(st) > -256 && json_integer_value(st) < 256)
        return (int)json_integer_value(st);
    return 1;
}

/* The page cache of one run of a command (`regime` of its row and of the run): what was asked,
 * and the state the seed names: purged (the run found the files evicted: effective cold), warm,
 * or unknown (the regime was not reached: steadyState, never a cold label); the reason is the
 * run's note, or how much of the files was resident before it. */
static void page_cache(const json_t *row_regime, const json_t *run_regime, struct line_facts *f,
                       char *reason, size_t size)
{
    const json_t *req = json_object_get(row_regime, "requested");
    if (!json_is_string(req))
        return;
    f->cache_requested = json_string_value(req);
    const char *eff = json_string_value(json_object_get(run_regime, "effective"));
    const char *note = json_string_value(json_object_get(run_regime, "note"));
    const json_t *before = json_object_get(run_regime, "residentBefore");
    f->cache_state = !eff                   ? "unknown"
                     : !strcmp(eff, "cold") ? "purged"
                     : !strcmp(eff, "warm") ? "warm"
                                            : "unknown";
    if (note) {
        f->cache_reason = note;
    } else if (eff && json_is_number(before)) {
        bench__fmt(reason, size, "%s: %.0f%% of the files' pages resident before the run", eff,
                   json_number_value(before) * 100);
        f->cache_reason = reason;
    } else if (!eff) {
        f->cache_reason = "the run has no regime stamp";
    }
}

static void run_doc(struct doc_ctx *c, const json_t *rows, size_t base, size_t runs,
                    json_t *rejected)
{
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        char why[256] = "";
        const json_t *name = json_object_get(row, "name");
        const json_t *command = json_object_get(row, "command");
        const json_t *list = json_object_get(row, "runs");
        const json_t *failure = json_object_get(row, "failure");
        const json_t *error = json_object_get(row, "error");
        if (!json_is_object(row))
            tool_json_error(why, sizeof why, "the row is %s, not an object",
                            tool_json_type_name(row));
        else if (!json_is_string(name) || !json_string_length(name))
            tool_json_error(why, sizeof why, "\"name\" is %s, not a non-empty string",
                            tool_json_type_name(name));
        else if (!json_is_string(command))
            tool_json_error(why, sizeof why, "\"command\" is %s, not a string",
                            tool_json_type_name(command));
        else if (!json_is_array(list))
            tool_json_error(why, sizeof why, "\"runs\" is %s, not an array",
                            tool_json_type_name(list));
        else if (failure && !json_is_null(failure) && !json_is_object(failure))
            tool_json_error(why, sizeof why, "\"failure\" is %s, not an object or null",
                            tool_json_type_name(failure));
        if (why[0]) {
            reject(rejected, c->row0 + i, why);
            continue;
        }
        if (!room_for(c, json_array_size(list) + (json_is_object(failure) ? runs + 1 : 0)))
            return; /* the document is refused whole (doc_finish) */
        /* which run numbers (1-based) the document accounts for */
        size_t n_seen = runs + json_array_size(list) + 2;
        bool *seen = bench__xcalloc(n_seen, sizeof *seen);
        size_t k;
        json_t *r;
        json_array_foreach(list, k, r)
        {
            const json_t *num = json_object_get(r, "run");
            double wall;
            if (!json_is_integer(num) || json_integer_value(num) < 1 ||
                json_integer_value(num) > (json_int_t)runs ||
                !results_num_or_null(json_object_get(r, "wallNs"), &wall) ||
                (isfinite(wall) && wall < 0)) {
                char w[160];
                bench__fmt(w, sizeof w,
                           "runs[%zu]: not a run with a \"run\" from 1 to meta.runs (%zu) and a "
                           "\"wallNs\"",
                           k, runs);
                reject(rejected, c->row0 + i, w);
                continue;
            }
            size_t n = (size_t)json_integer_value(num);
            if (n < n_seen)
                seen[n] = true;
            const json_t *ru = json_object_get(r, "rusage");
            bool unmeasured = !isfinite(wall); /* as in bench_doc */
            struct line_facts f = {.rusage = json_is_object(ru) ? ru : NULL};
            char reason[160];
            page_cache(json_object_get(row, "regime"), json_object_get(r, "regime"), &f, reason,
                       sizeof reason);
            /* the rusage has its own fields now (rusage_source): `metrics` keeps the rest */
            put_line(c, json_string_value(name), json_string_value(command), base + n - 1, wall,
                     true, unmeasured ? BENCH__RESULT_SKIP : 0, unmeasured ? NOT_MEASURED : NULL,
                     NULL, NULL, &f);
        }
        if (json_is_object(failure)) {
            const json_t *fr = json_object_get(failure, "run");
            /* no run, or one past meta.runs (a warm-up run): after the timed runs */
            size_t n = json_is_integer(fr) && json_integer_value(fr) >= 1 &&
                               json_integer_value(fr) <= (json_int_t)runs
                           ? (size_t)json_integer_value(fr)
                           : runs + 1;
            const char *e = json_is_string(error) && json_string_length(error)
                                ? json_string_value(error)
                                : "the command failed";
            if (n < n_seen)
                seen[n] = true;
            put_line(c, json_string_value(name), json_string_value(command), base + n - 1, NAN,
                     true, failure_code(failure), NULL, e, NULL, NULL);
            /* the runs after a failure were not run: a skip each, not fewer samples */
            char skip[96];
            bench__fmt(skip, sizeof skip, "aborted_after_failed_run:%zu", n);
            for (size_t m = 1; m <= runs && !c->over; m++)
                if (!seen[m])
                    put_line(c, json_string_value(name), json_string_value(command), base + m - 1,
                             NAN, true, BENCH__RESULT_SKIP, skip, NULL, NULL, NULL);
        }
        free(seen);
    }
}

/* No line of the document is shorter: its keys and punctuation, the values every line of it
 * holds, and the shortest of the others ("" or null, 0, {}). Keys added to the line only make
 * lines longer: a floor still. */
static size_t line_floor(const struct doc_ctx *c)
{
    static const char *const keys[] = {
        "schema_version", "bench_id", "timestamp_utc", "profile",  "scenario",
        "operation",      "run",      "subject",       "value_ns", "whole_process",
        "returncode",     "metrics",  "source",        "document", "host_id",
        "skip_reason",    "failure"};
    size_t n = 2 + sizeof keys / sizeof *keys - 1; /* the braces, the commas between */
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        n += strlen(keys[i]) + 3; /* "key": */
    /* schema_version 1, scenario "", operation "", run 0, value_ns 0, whole_process true,
     * returncode 0, metrics {}, document 0 */
    n += 1 + 2 + 2 + 1 + 1 + 4 + 1 + 2 + 1;
    const struct results_record_info *info = c->info;
    const char *strings[] = {info->bench_id, info->timestamp_utc, info->profile,
                             info->subject,  c->source,           c->host_id};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        n += strlen(strings[i]) + 2;
    /* a key that is not known is left out; one that is: its string at least */
    const char *optional[] = {c->host,
                              c->platform,
                              c->machine,
                              c->cpu,
                              c->compiler,
                              c->version,
                              info->source_revision,
                              info->recorder_version};
    static const char *const optional_keys[] = {
        "host",     "platform",        "machine",         "cpu_model",
        "compiler", "library_version", "source_revision", "recorder_version"};
    for (size_t i = 0; i < sizeof optional / sizeof *optional; i++)
        n += optional[i] ? strlen(optional_keys[i]) + 4 + strlen(optional[i]) + 2 : 0;
    n += 4 + 4; /* skip_reason and failure: null at least */
    /* provenance: its text when it holds strings only (a number's text is made shorter) */
    size_t i;
    const json_t *v;
    bool strings_only = c->provenance != NULL;
    json_array_foreach(c->provenance, i, v) strings_only = strings_only && json_is_string(v);
    if (strings_only && json_array_size(c->provenance) > 0)
        n += strlen("provenance") + 4 + json_dumpb(c->provenance, NULL, 0, JSON_COMPACT);
    return n;
}

/* The checks of a document's top level, and the context its lines share. rows_array: "rows" is
 * an array, of n_rows rows. *runs: the repetitions the document stands for. 0, or -1 with the
 * reason in err. */
static int doc_start(struct doc_ctx *c, const json_t *doc, bool rows_array, size_t n_rows,
                     size_t *runs, char *err, size_t err_size)
{
    const json_t *meta = json_object_get(doc, "meta");
    const json_t *schema = json_object_get(doc, "schema");
    const json_t *tool = json_object_get(doc, "tool");
    bool is_run = json_is_string(tool) && !strcmp(json_string_value(tool), "libbench run");
    if (is_run && !(json_is_integer(schema) && json_integer_value(schema) == 1))
        return tool_json_error(err, err_size,
                               "a libbench run document of schema %s, not 1 (this reader's)",
                               json_is_integer(schema) ? "other" : "unknown");
    if (!is_run && !(json_is_integer(schema) && json_integer_value(schema) == 2))
        return tool_json_error(err, err_size,
                               "not a --bench-json document of schema 2 nor a `libbench run "
                               "--json` document of schema 1");
    if (!json_is_object(meta))
        return tool_json_error(err, err_size, "\"meta\" is %s, not an object",
                               tool_json_type_name(meta));
    if (!rows_array)
        return tool_json_error(err, err_size, "\"rows\" is %s, not an array",
                               tool_json_type_name(json_object_get(doc, "rows")));
    c->is_run = is_run;
    c->source = is_run ? "run-json" : "bench-json";
    c->host = meta_str(meta, "hostname");
    c->platform = meta_str(meta, "os");
    c->machine = meta_str(meta, "arch");
    c->cpu = meta_str(meta, "cpu");
    c->compiler = is_run ? NULL : meta_str(meta, "compiler");
    c->version = is_run ? meta_str(doc, "version") : NULL;
    c->provenance = json_object_get(meta, "provenance");
    if (!json_is_array(c->provenance))
        c->provenance = NULL;
    host_id_of(c->host, c->platform, c->machine, c->cpu, c->host_id);
    *runs = 1;
    if (is_run) {
        const json_t *r = json_object_get(meta, "runs");
        if (!json_is_integer(r) || json_integer_value(r) < 1)
            return tool_json_error(err, err_size, "\"meta.runs\" is not a whole number of runs");
        /* each row allocates and may write a skip line per run: the count is bounded */
        if (json_integer_value(r) > RESULTS_RUNS_MAX)
            return tool_json_error(err, err_size, "\"meta.runs\" is %lld, over %u runs",
                                   (long long)json_integer_value(r), RESULTS_RUNS_MAX);
        *runs = (size_t)json_integer_value(r);
    }
    c->sources = doc_sources(c->provenance, c->info->sources); /* freed by the caller */
    c->line_floor = line_floor(c);
    c->start = c->out->len;
    if (!is_run && !room_for(c, n_rows)) /* a --bench-json row gives one line */
        return tool_json_error(err, err_size,
                               "its %zu rows would make the raw object larger than %zu MiB, the "
                               "most the store reads",
                               n_rows, RESULTS_OBJECT_MAX_BYTES >> 20);
    return 0;
}

/* Lines of rows[0..], the rows from index row0 of the document; a refused row's entry in
 * `rejected` gets the row as its "value". */
static void doc_rows(struct doc_ctx *c, const json_t *rows, size_t row0, size_t base, size_t runs,
                     json_t *rejected)
{
    size_t from = json_array_size(rejected);
    c->row0 = row0;
    if (c->is_run)
        run_doc(c, rows, base, runs, rejected);
    else
        bench_doc(c, rows, base, rejected);
    if (c->out->len > RESULTS_OBJECT_MAX_BYTES)
        c->over = true;
    for (size_t k = from; k < json_array_size(rejected); k++) {
        json_t *r = json_array_get(rejected, k);
        size_t row = (size_t)json_integer_value(json_object_get(r, "row"));
        json_object_set(r, "value", json_array_get(rows, row - row0));
    }
}

/* Takes the document's lines and refused rows back (it is refused whole). */
static void doc_take_back(struct doc_ctx *c, json_t *rejected, size_t first_rejected)
{
    if (c->out->data) {
        c->out->len = c->start;
        c->out->data[c->start] = '\0';
    }
    while (json_array_size(rejected) > first_rejected)
        json_array_remove(rejected, json_array_size(rejected) - 1);
    c->lines = 0;
}

static long doc_finish(struct doc_ctx *c, size_t *run_base, size_t runs, json_t *rejected,
                       size_t first_rejected, char *err, size_t err_size)
{
    if (c->over) {
        doc_take_back(c, rejected, first_rejected);
        return tool_json_error(err, err_size,
                               "its lines would make the raw object larger than %zu MiB, the most "
                               "the store reads",
                               RESULTS_OBJECT_MAX_BYTES >> 20);
    }
    *run_base += runs;
    return c->lines;
}

long results_doc_lines(const json_t *doc, size_t doc_index, const struct results_record_info *info,
                       size_t *run_base, struct bench__text *out, json_t *rejected, char *err,
                       size_t err_size)
{
    struct doc_ctx c = {.info = info, .doc_index = doc_index, .out = out};
    if (!json_is_object(doc))
        return tool_json_error(err, err_size, "the document is %s, not an object",
                               tool_json_type_name(doc));
    const json_t *rows = json_object_get(doc, "rows");
    size_t runs, first = json_array_size(rejected);
    if (doc_start(&c, doc, json_is_array(rows), json_array_size(rows), &runs, err, err_size) != 0)
        return -1;
    doc_rows(&c, rows, 0, *run_base, runs, rejected);
    long lines = doc_finish(&c, run_base, runs, rejected, first, err, err_size);
    json_decref(c.sources);
    return lines;
}

#define ROWS_PER_BATCH 256 /* rows parsed and held at once by results_doc_text_lines */

long results_doc_text_lines(const char *text, size_t len, size_t doc_index,
                            const struct results_record_info *info, size_t *run_base,
                            struct bench__text *out, json_t *rejected, char *err, size_t err_size)
{
    struct doc_ctx c = {.info = info, .doc_index = doc_index, .out = out};
    struct tool_json_doc d;
    size_t runs, first = json_array_size(rejected);
    long rc = tool_json_doc_open(text, len, JSON_REJECT_DUPLICATES, &d, err, err_size);
    if (rc == 0 && d.type != JSON_OBJECT)
        rc = tool_json_error(err, err_size, "the document is %s, not an object",
                             tool_json_type_name_of(d.type));
    struct tool_json_rows it;
    tool_json_rows_begin(&d, &it);
    if (rc == 0 && doc_start(&c, d.head, d.rows_array, d.n_rows, &runs, err, err_size) != 0) {
        tool_json_rows_check(&it, err, err_size); /* not JSON is the first reason */
        rc = -1;
    }
    if (rc != 0) {
        tool_json_doc_free(&d);
        return -1;
    }
    json_t *batch = json_array(), *row;
    size_t row0 = 0, index;
    int got;
    while (!c.over && (got = tool_json_rows_next(&it, &row, &index, err, err_size)) != 0) {
        if (got < 0) { /* not JSON after all: the document is refused whole */
            rc = -1;
            doc_take_back(&c, rejected, first);
            break;
        }
        json_array_append_new(batch, row);
        if (json_array_size(batch) == ROWS_PER_BATCH || index + 1 == d.n_rows) {
            doc_rows(&c, batch, row0, *run_base, runs, rejected);
            row0 = index + 1;
            json_array_clear(batch);
        }
    }
    json_decref(batch);
    if (rc == 0 && c.over && tool_json_rows_check(&it, err, err_size) != 0) {
        doc_take_back(&c, rejected, first); /* not JSON is the first reason */
        rc = -1;
    }
    tool_json_doc_free(&d);
    long lines = rc == 0 ? doc_finish(&c, run_base, runs, rejected, first, err, err_size) : -1;
    json_decref(c.sources);
    return lines;
}
