/* SPDX-License-Identifier: MIT */
/* json.c: owns the --json document of `libbench run` (docs/reference/run-json.md and its
 * schema): the machine and the options, the rusage columns, one row per command in the shape of
 * a --bench-json row with its runs, rusage, regime and failure; jansson, written atomically. No
 * statistics of its own (stats.c). */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <bench/bench.h>

#include "run.h"
#include "common/json.h"
#include "util/alloc.h"
#include "util/atomic_file.h"
#include "util/signal_name.h"
#include "util/text.h"

#define RUN_JSON_SCHEMA 1

static const char *const unit_names[] = {"ns", "bytes", "count"};

const char *const run_output_names[3] = {"null", "pipe", "inherit"};

/* Every insertion checked once: a failure (out of memory in jansson) is the one OOM policy. */
static void put(json_t *o, const char *key, json_t *v)
{
    if (!v || json_object_set_new(o, key, v) != 0)
        bench__out_of_memory();
}

static void append(json_t *a, json_t *v)
{
    if (!v || json_array_append_new(a, v) != 0)
        bench__out_of_memory();
}

/* Text from outside (names, commands, stderr): UTF-8 repaired, as the --bench-json writer does. */
static json_t *text(const char *s)
{
    char *fixed = bench__utf8_repair(s ? s : "");
    if (!fixed)
        bench__out_of_memory();
    json_t *j = json_string(fixed);
    free(fixed);
    return j;
}

/* A number: an integer when it is one (all samples and counts are), else a real; null for NaN. */
static json_t *number(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        return json_integer((json_int_t)v);
    return json_real(v);
}

static json_t *summary_json(struct bench__summary s)
{
    json_t *j = json_object();
    put(j, "median", number(s.median));
    put(j, "deviation", number(s.mad));
    put(j, "min", number(s.min));
    put(j, "max", number(s.max));
    return j;
}

/* ---- meta --------------------------------------------------------------------------------- */

static json_t *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    char line[512];
    json_t *j = NULL;
    while (f && !j && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *v = strchr(line, ':');
        if (!v)
            continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        line[strcspn(line, "\n")] = '\0';
        j = text(v);
    }
    if (f)
        fclose(f);
    return j ? j : json_string("");
}

static const char *os_name(void)
{
#if defined(__linux__)
    return "linux";
#elif defined(__APPLE__)
    return "macos";
#else
    return "posix";
#endif
}

static const char *arch_name(void)
{
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__i386__)
    return "x86";
#else
    return "unknown";
#endif
}

static json_t *meta_json(const struct run_state *st)
{
    json_t *m = json_object();
    char day[16] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(day, sizeof day, "%Y-%m-%d", &tm);
    put(m, "date", json_string(day));
    char host[HOST_NAME_MAX + 1] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    put(m, "hostname", text(host));
    put(m, "os", json_string(os_name()));
    put(m, "arch", json_string(arch_name()));
    struct utsname u;
    put(m, "kernel", uname(&u) == 0 ? text(u.release) : json_string(""));
    put(m, "cpu", cpu_model());
    put(m, "clock", json_string("CLOCK_MONOTONIC"));
    put(m, "runs", json_integer((json_int_t)st->runs));
    put(m, "warmup", json_integer((json_int_t)st->warmup));
    char seed[32];
    bench__fmt(seed, sizeof seed, "%llu", (unsigned long long)st->seed);
    put(m, "seed", json_string(seed));
    put(m, "timeoutNs", st->timeout_ns ? json_integer(st->timeout_ns) : json_null());
    put(m, "output", json_string(run_output_names[st->output]));
    put(m, "shell", json_boolean(st->shell));
    if (st->n_files) {
        json_t *r = json_object(), *files = json_array();
        put(r, "requested", json_string(bench__regime_json_word(st->regime)));
        put(r, "files", files);
        for (size_t i = 0; i < st->n_files; i++)
            append(files, text(st->files[i]));
        put(m, "regime", r);
    } else {
        put(m, "regime", json_null());
    }
    put(m, "harnessMaxRssAtStartBytes",
        st->harness_maxrss_start > 0 ? json_integer(st->harness_maxrss_start) : json_null());
    put(m, "harnessMaxRssBytes",
        st->harness_maxrss > 0 ? json_integer(st->harness_maxrss) : json_null());
    json_t *schedule = json_array();
    put(m, "schedule", schedule);
    for (size_t r = 0; r < st->runs; r++) {
        json_t *run = json_array();
        append(schedule, run);
        for (size_t k = 0; k < st->n_cmds; k++) {
            size_t ci = st->schedule[r * st->n_cmds + k];
            if (ci != SIZE_MAX)
                append(run, json_integer((json_int_t)ci));
        }
    }
    return m;
}

static json_t *columns_json(void)
{
    json_t *a = json_array();
    for (int f = 0; f < TOOL_RU_N; f++) {
        json_t *c = json_object();
        put(c, "name", json_string(tool_ru_fields[f].name));
        put(c, "header", json_string(tool_ru_fields[f].header));
        put(c, "unit", json_string(unit_names[tool_ru_fields[f].unit]));
        put(c, "source", json_string("wait4"));
        put(c, "reported", json_boolean(tool_ru_reported((enum tool_ru_field)f)));
        put(c, "meaning", json_string(tool_ru_fields[f].meaning));
        append(a, c);
    }
    return a;
}

/* ---- rows --------------------------------------------------------------------------------- */

static json_t *failure_json(const struct run_state *st, const struct run_failure *f)
{
    const struct tool_child *s = f->sample;
    json_t *j = json_object();
    put(j, "run", f->run ? json_integer((json_int_t)f->run) : json_null());
    put(j, "warmup", json_boolean(f->warmup));
    put(j, "prepare", json_boolean(f->prepare));
    put(j, "exitStatus", s->outcome == TOOL_EXITED ? json_integer(s->status) : json_null());
    char sig[32] = "";
    if (s->outcome == TOOL_SIGNALED) {
        const char *abbrev = bench__signal_abbrev(s->signal);
        if (abbrev)
            bench__fmt(sig, sizeof sig, "SIG%s", abbrev);
        else
            bench__fmt(sig, sizeof sig, "%d", s->signal);
    }
    put(j, "signal", s->outcome == TOOL_SIGNALED ? json_string(sig) : json_null());
    put(j, "timedOut", json_boolean(s->outcome == TOOL_TIMED_OUT));
    put(j, "cannotStart",
        s->outcome == TOOL_CANNOT_START ? json_string(strerror(s->error)) : json_null());
    if (st->output == TOOL_OUTPUT_PIPE && s->outcome != TOOL_CANNOT_START) {
        char *tail = tool_child_tail(s, SIZE_MAX);
        put(j, "stderrTail", text(tail));
        free(tail);
    } else {
        put(j, "stderrTail", json_null());
    }
    return j;
}

static json_t *stamp_json(const struct run_stamp *s)
{
    json_t *j = json_object();
    put(j, "effective", json_string(bench__regime_json_word(s->effective)));
    put(j, "residentBefore", number(s->resident_before));
    put(j, "residentAfter", number(s->resident_after));
    if (s->note)
        put(j, "note", text(s->note));
    return j;
}

static json_t *row_json(const struct run_state *st, const struct run_command *c)
{
    bool ok = !c->failure && c->done > 0;
    json_t *row = json_object();
    put(row, "name", text(c->name));
    put(row, "labels", json_object());
    struct bench__summary wall =
        ok ? run_summarize(c->wall_ns, c->done) : (struct bench__summary){NAN, NAN, NAN, NAN};
    struct bench__summary ru[TOOL_RU_N];
    double *v = bench__xcalloc(c->done ? c->done : 1, sizeof *v);
    for (int f = 0; f < TOOL_RU_N; f++) {
        for (size_t r = 0; r < c->done; r++)
            v[r] = c->ru[r * TOOL_RU_N + f];
        ru[f] = ok ? run_summarize(v, c->done) : (struct bench__summary){NAN, NAN, NAN, NAN};
    }
    free(v);
    put(row, "iterations", ok ? json_integer(1) : json_null());
    put(row, "samples", ok ? json_integer((json_int_t)c->done) : json_null());
    put(row, "medianNs", number(wall.median));
    put(row, "deviationNs", number(wall.mad));
    put(row, "minNs", number(wall.min));
    put(row, "maxNs", number(wall.max));
    json_t *metrics = json_object();
    put(row, "metrics", metrics);
    for (int f = 0; ok && f < TOOL_RU_N; f++)
        put(metrics, tool_ru_fields[f].name, number(ru[f].median));
    put(row, "error", c->failure ? text(c->failure->message) : json_string(""));

    put(row, "kind", json_string(c->kind == RUN_KIND_SHELL_STARTUP ? "shellStartup" : "command"));
    put(row, "command", text(c->text));
    json_t *argv = json_array();
    put(row, "argv", argv);
    for (char **w = c->prog.argv; w && *w; w++)
        append(argv, text(*w));
    put(row, "prepare", c->prepare_text ? text(c->prepare_text) : json_null());
    put(row, "completedRuns", json_integer((json_int_t)c->done));
    put(row, "failure", c->failure ? failure_json(st, c->failure) : json_null());
    if (st->n_files) {
        json_t *r = json_object();
        size_t reached;
        const char *note;
        run_regime_summary(st, c, &reached, &note);
        put(r, "requested", json_string(bench__regime_json_word(st->regime)));
        put(r, "effective",
            !ok                  ? json_null()
            : reached == c->done ? json_string(bench__regime_json_word(st->regime))
                                 : json_string(bench__regime_json_word(BENCH_CACHE_STEADY)));
        put(r, "runsAtRequested", ok ? json_integer((json_int_t)reached) : json_null());
        if (ok && note && *note)
            put(r, "note", text(note));
        put(row, "regime", r);
    } else {
        put(row, "regime", json_null());
    }
    if (ok) {
        json_t *rs = json_object();
        for (int f = 0; f < TOOL_RU_N; f++)
            put(rs, tool_ru_fields[f].name, summary_json(ru[f]));
        put(row, "rusage", rs);
    } else {
        put(row, "rusage", json_null());
    }
    json_t *runs = json_array();
    put(row, "runs", runs);
    for (size_t r = 0; ok && r < c->done; r++) {
        json_t *run = json_object(), *values = json_object();
        append(runs, run);
        put(run, "run", json_integer((json_int_t)r + 1));
        put(run, "wallNs", number(c->wall_ns[r]));
        put(run, "rusage", values);
        for (int f = 0; f < TOOL_RU_N; f++)
            put(values, tool_ru_fields[f].name, number(c->ru[r * TOOL_RU_N + f]));
        if (c->stamps)
            put(run, "regime", stamp_json(&c->stamps[r]));
    }
    return row;
}

int run_report_json(const struct run_state *st, const char *path, char *err, size_t err_size)
{
    json_t *doc = json_object();
    if (!doc)
        bench__out_of_memory();
    put(doc, "tool", json_string("libbench run"));
    put(doc, "schema", json_integer(RUN_JSON_SCHEMA));
    put(doc, "version", json_string(bench_version_string()));
    put(doc, "meta", meta_json(st));
    put(doc, "columns", columns_json());
    json_t *rows = json_array();
    put(doc, "rows", rows);
    for (size_t i = 0; i < st->n_cmds; i++)
        append(rows, row_json(st, &st->cmds[i]));
    int rc = tool_json_write(doc, path, err, err_size);
    json_decref(doc);
    return rc;
}
