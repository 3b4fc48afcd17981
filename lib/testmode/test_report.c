/* SPDX-License-Identifier: MIT */
/* test_report.c: owns test mode's documents for CI: the TAP 14 stream (--tap) and the JUnit XML
 * file (--junit), from the results the runner kept. It decides no outcome and runs nothing. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/atomic_file.h"
#include "../util/junit.h"
#include "../util/signal_name.h"
#include "../util/text.h"
#include "test_report.h"

/* The most bytes of a test's output in its TAP diagnostics, its last ones (the JUnit file keeps
 * all the runner kept): TAP::Parser's YAMLish reader matches a quoted scalar with a regular
 * expression that gives up past 32766 repetitions, and a replaced byte is 3 of them. */
#define TAP_OUTPUT_MAX (8u * 1024u)

/* The line a failure names: a check's own ("FILE:LINE: check failed: ..."), else the test's. */
static unsigned failure_line(const struct bench__entry *e, const char *message)
{
    size_t n = strlen(e->test->file);
    if (message && !strncmp(message, e->test->file, n) && message[n] == ':') {
        char *end;
        unsigned long line = strtoul(message + n + 1, &end, 10);
        if (end > message + n + 1 && *end == ':' && line > 0 && line <= UINT32_MAX)
            return (unsigned)line;
    }
    return (unsigned)e->test->line;
}

/* The message without the "FILE:LINE: " a check put first (the file and line are said apart). */
static const char *failure_text(const struct bench__entry *e, const char *message)
{
    size_t n = strlen(e->test->file);
    if (!strncmp(message, e->test->file, n)) {
        const char *p = message + n;
        if (*p == ':' && (p = strchr(p + 1, ':')) != NULL && p[1] == ' ')
            return p + 2;
    }
    return message;
}

void bench__tap_begin(FILE *out, unsigned version, size_t n_tests)
{
    fprintf(out, "TAP version %u\n1..%zu\n", version, n_tests);
}

/* A test point's description: on one line, '#' and '\' escaped (TAP 14's rule), control
 * characters as '?', UTF-8 repaired (bench__utf8_repair). */
static void tap_description(FILE *out, const char *text)
{
    char *repaired = bench__utf8_repair(text);
    for (const char *s = repaired; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '#' || c == '\\')
            fputc('\\', out);
        fputc(c < 0x20 || c == 0x7f ? '?' : c, out);
    }
    free(repaired);
}

/* A YAML double-quoted scalar, as TAP::Parser's YAMLish reads it back: \\, \", \n, \t and \xNN
 * for the other control characters; a byte that does not start well-formed UTF-8 becomes U+FFFD
 * (the XML escaper's rule, through a scratch text). */
static void yaml_quoted(FILE *out, const char *s, size_t len)
{
    struct bench__text clean = {0};
    bench__xml_escape(&clean, s, len, false); /* only to repair: the entities are undone below */
    fputc('"', out);
    for (const char *p = clean.data; p && *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '&') { /* &amp; &lt; &gt; &#13; back to their characters */
            static const struct {
                const char *entity;
                char c;
            } entities[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&#13;", '\r'}};
            for (size_t i = 0; i < sizeof entities / sizeof *entities; i++)
                if (!strncmp(p, entities[i].entity, strlen(entities[i].entity))) {
                    c = (unsigned char)entities[i].c;
                    p += strlen(entities[i].entity) - 1;
                    break;
                }
        }
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
    free(clean.data);
}

void bench__tap_result(FILE *out, size_t index, const struct bench__entry *e,
                       const struct bench__test_result *res)
{
    bool failed = res->outcome == BENCH__FAILED;
    fprintf(out, "%s %zu - ", failed ? "not ok" : "ok", index + 1);
    tap_description(out, e->full_name);
    if (res->outcome == BENCH__SKIPPED) {
        fputs(" # SKIP ", out);
        tap_description(out, res->detail ? res->detail : "skipped");
    }
    fputc('\n', out);
    if (!failed)
        return;
    const char *message = res->detail ? res->detail : "failed";
    fputs("  ---\n  message: ", out);
    yaml_quoted(out, message, strlen(message));
    fputs("\n  severity: fail\n  at:\n    file: ", out);
    yaml_quoted(out, e->test->file, strlen(e->test->file));
    fprintf(out, "\n    line: %u\n", failure_line(e, res->detail));
    if (res->how == BENCH__HOW_DIED && res->signal) {
        const char *abbrev = bench__signal_abbrev(res->signal);
        if (abbrev)
            fprintf(out, "  signal: SIG%s\n", abbrev);
        else
            fprintf(out, "  signal: %d\n", res->signal);
    }
    if (res->duration_ns >= 0)
        fprintf(out, "  duration_ms: %.3f\n", (double)res->duration_ns / 1e6);
    if (res->output.len) {
        size_t len = res->output.len < TAP_OUTPUT_MAX ? res->output.len : TAP_OUTPUT_MAX;
        fputs("  output: ", out);
        yaml_quoted(out, res->output.data + res->output.len - len, len);
        fputc('\n', out);
        if (len < res->output.len || res->output.truncated)
            fputs("  output_truncated: \"only its last 8 KiB are shown here\"\n", out);
    }
    fputs("  ...\n", out);
}

/* The error's type: the signal's name for a crash, else what ended it. */
static const char *error_type(const struct bench__test_result *res, char *buf, size_t size)
{
    switch (res->how) {
    case BENCH__HOW_DIED:
        if (res->signal) {
            const char *abbrev = bench__signal_abbrev(res->signal);
            if (abbrev)
                snprintf(buf, size, "SIG%s", abbrev);
            else
                snprintf(buf, size, "signal %d", res->signal);
            return buf;
        }
        return "exited";
    case BENCH__HOW_TIMED_OUT: return "timeout";
    case BENCH__HOW_NOT_RUN: return "not run";
    case BENCH__HOW_REPORTED: break;
    }
    return "failure";
}

static void fill_case(struct bench__junit_case *k, const struct bench__entry *e,
                      const struct bench__test_result *res, char *type, size_t type_size,
                      char **body)
{
    size_t name_len = strlen(e->test->name), full_len = strlen(e->full_name);
    *k = (struct bench__junit_case){
        .name = e->test->name,
        .file = e->test->file,
        .line = e->test->line,
        .time_s = res->duration_ns >= 0 ? (double)res->duration_ns / 1e9 : 0.0,
    };
    /* the classname: the file stem ("<file-stem>.<name>" without ".<name>") */
    char *classname =
        bench__xstrndup(e->full_name, full_len > name_len ? full_len - name_len - 1 : full_len);
    k->classname = classname;
    *body = NULL;
    if (res->outcome == BENCH__PASSED)
        return;
    if (res->outcome == BENCH__SKIPPED) {
        k->result = BENCH__JUNIT_SKIP;
        k->message = res->detail ? res->detail : "skipped";
        return;
    }
    k->result = res->how == BENCH__HOW_REPORTED ? BENCH__JUNIT_FAILURE : BENCH__JUNIT_ERROR;
    k->type = error_type(res, type, type_size);
    k->message = res->detail ? res->detail : "failed";
    /* the body: where and what; what it printed goes to <system-out> (said here when cut) */
    *body = bench__xasprintf("%s:%u: %s\n%s", e->test->file, failure_line(e, k->message),
                             failure_text(e, k->message),
                             res->output.truncated ? "(its output was cut at 1 MiB)\n" : "");
    k->body = *body;
    k->body_len = strlen(*body);
    if (res->output.len) {
        k->out = res->output.data;
        k->out_len = res->output.len;
    }
}

int bench__junit_tests_write(const char *path, const char *suite_name,
                             const struct bench__suite *suite, const size_t *tests,
                             const struct bench__test_result *results, size_t n, double elapsed_s)
{
    struct bench__junit_case *cases = bench__xcalloc(n + 1, sizeof *cases);
    char **bodies = bench__xcalloc(n + 1, sizeof *bodies);
    char(*types)[32] = bench__xcalloc(n + 1, sizeof *types);
    for (size_t i = 0; i < n; i++)
        fill_case(&cases[i], &suite->entries[tests[i]], &results[i], types[i], sizeof types[i],
                  &bodies[i]);
    int rc = bench__junit_write(path, suite_name, cases, n, elapsed_s);
    for (size_t i = 0; i < n; i++) {
        free((char *)cases[i].classname);
        free(bodies[i]);
    }
    free(types);
    free(bodies);
    free(cases);
    return rc;
}
