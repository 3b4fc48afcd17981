/* SPDX-License-Identifier: MIT */
/* runner.c: owns test mode's rendering: each test's end, from fork_server.c (a process per test,
 * --isolate=test) or test_worker.c (long-lived workers, --isolate=worker), turned into a result;
 * result lines (or --tap's test points) streamed in suite order, the live progress line, the
 * summary, the failure recap, when --junit's file is written, and the exit status. It does not
 * parse options, measure anything or start processes (those two files do; platform/workers.c owns
 * the process groups and signals), nor spell TAP or JUnit (test_report.c does). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../report/table.h"
#include "../report/term.h"
#include "../suite/context.h"
#include "../util/clock.h"
#include "../util/alloc.h"
#include "../util/atomic_file.h"
#include "../util/format.h"
#include "../util/signal_name.h"
#include "../util/text.h"
#include "runner.h"
#include "test_report.h"
#include "fork_server.h"
#include "test_worker.h"
#include "../platform/fds.h"
#include "../platform/workers.h"

#define OUTPUT_CAP (1u << 20) /* captured output kept per test */
#define DETAIL_MAX 1200       /* the longest detail kept, with its NUL */
#define PAINT_INTERVAL_NS 50000000LL

static char stdout_buffer[BUFSIZ];

#define SGR_GREEN "\033[32m"
#define SGR_RED_BOLD "\033[1;31m"
#define SGR_YELLOW "\033[33m"
#define SGR_RESET "\033[0m"

struct run {
    const struct bench__config *cfg;
    const struct bench__suite *suite;
    struct bench__term term;
    size_t *tests; /* suite indices of BENCH_TEST entries */
    size_t n_tests;
    struct bench__test_result *results;
    size_t n_jobs;
    size_t next_print, done;
    int64_t start_ns, last_paint_ns;
    unsigned spinner;
    bool progress_shown;
};

/* The results stay small (the detail on the heap, only when there is one): every page the
 * runner holds is copied into, and torn down with, every process it forks (a fork server, a
 * worker), and the fork servers' copies into every test's process. */
static void set_detail(struct bench__test_result *res, const char *text)
{
    free(res->detail);
    res->detail = text[0] ? bench__xstrdup(text) : NULL;
}

static void describe_death(struct bench__test_result *res, int status)
{
    char detail[DETAIL_MAX];
    res->outcome = BENCH__FAILED;
    res->detail_inline = true;
    res->how = BENCH__HOW_DIED;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        res->signal = sig;
        const char *abbrev = bench__signal_abbrev(sig);
        const char *text = strsignal(sig);
        if (abbrev)
            bench__fmt(detail, sizeof detail, "killed by SIG%s: %s%s", abbrev, text ? text : "",
                       WCOREDUMP(status) ? ", core dumped" : "");
        else
            bench__fmt(detail, sizeof detail, "killed by signal %d", sig);
    } else {
        bench__fmt(detail, sizeof detail, "exited with status %d before the test finished",
                   WEXITSTATUS(status));
    }
    set_detail(res, detail);
}

/* ---- rendering ---------------------------------------------------------------------- */

static void print_indented(FILE *out, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        fprintf(out, "    %.*s\n", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

static void print_result(const struct run *r, FILE *out, size_t index, bool with_output)
{
    const struct bench__test_result *res = &r->results[index];
    const struct bench__entry *e = &r->suite->entries[r->tests[index]];
    bool color = r->term.color;
    static const char *const symbol[] = {"\xe2\x9c\x93", "\xe2\x9c\x97", "\xe2\x8a\x98"};
    static const char *const sgr[] = {SGR_GREEN, SGR_RED_BOLD, SGR_YELLOW};
    const char *detail = res->detail ? res->detail : "skipped";
    const char *name = e->full_name;
    char fitted[512];
    if (r->term.animate && !r->cfg->verbose) {
        /* on a terminal a compact line fits its width: the name is cut from the left (a line
         * one cell short of the width, as some terminals wrap a full one) */
        size_t used =
            4 + (res->detail_inline ? 3 + bench__display_width(detail, strlen(detail)) : 0);
        size_t width = (size_t)r->term.width;
        name = bench__term_cut_left(e->full_name, width > used + 9 ? width - used - 1 : 8, fitted,
                                    sizeof fitted);
    }
    fprintf(out, " %s%s %s", color ? sgr[res->outcome] : "", symbol[res->outcome], name);
    if (res->detail_inline)
        fprintf(out, " (%s)", detail);
    if (color)
        fputs(SGR_RESET, out);
    if (r->cfg->verbose) {
        char dur[32];
        bench__format_ns((double)res->duration_ns, dur, sizeof dur);
        fprintf(out, " (%s) [%s:%u]", dur, e->test->file, e->test->line);
    }
    fputc('\n', out);
    if (!res->detail_inline && res->detail)
        print_indented(out, res->detail, strlen(res->detail));
    if (with_output && res->output.len) {
        fputs("    --- output ---\n", out);
        print_indented(out, res->output.data, res->output.len);
        if (res->output.truncated)
            fputs("    [output truncated]\n", out);
    }
}

static void erase_progress(struct run *r)
{
    if (r->progress_shown) {
        fputs("\r\033[2K", stdout);
        r->progress_shown = false;
    }
}

static void paint_progress(struct run *r)
{
    static const char *const frames[] = {
        "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9", "\xe2\xa0\xb8", "\xe2\xa0\xbc",
        "\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7", "\xe2\xa0\x87", "\xe2\xa0\x8f"};
    char elapsed[32];
    int64_t now = bench__clock_deadline_ns();
    bench__format_ns((double)(now - r->start_ns), elapsed, sizeof elapsed);
    fputs("\033[?2026h", stdout);
    erase_progress(r);
    fprintf(stdout, "%s %zu/%zu (%s)", frames[r->spinner++ % 10], r->done, r->n_tests, elapsed);
    fputs("\033[?2026l", stdout);
    fflush(stdout);
    r->progress_shown = true;
    r->last_paint_ns = now;
}

/* Print every finished result that has no unfinished one before it. */
static void stream_results(struct run *r)
{
    if (r->next_print >= r->n_tests || !r->results[r->next_print].done)
        return;
    if (r->term.animate)
        fputs("\033[?2026h", stdout);
    erase_progress(r);
    while (r->next_print < r->n_tests && r->results[r->next_print].done) {
        struct bench__test_result *res = &r->results[r->next_print];
        if (r->cfg->tap)
            bench__tap_result(stdout, r->next_print, &r->suite->entries[r->tests[r->next_print]],
                              res);
        else
            print_result(r, stdout, r->next_print,
                         res->outcome == BENCH__FAILED || r->cfg->verbose);
        /* shown (or not to be shown): the recap never shows output; --junit keeps a failure's */
        if (!(r->cfg->junit && res->outcome == BENCH__FAILED)) {
            free(res->output.data);
            res->output = (struct bench__test_output){0};
        }
        r->next_print++;
    }
    if (r->term.animate)
        fputs("\033[?2026l", stdout);
    fflush(stdout);
    if (r->term.animate && r->done < r->n_tests)
        paint_progress(r);
}

static int compare_failed(const void *pa, const void *pb, void *arg)
{
    const struct run *r = arg;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return strcmp(r->suite->entries[r->tests[a]].full_name,
                  r->suite->entries[r->tests[b]].full_name);
}

static void print_recap(struct run *r, size_t failed)
{
    size_t *order = bench__xmalloc(failed * sizeof *order);
    size_t k = 0;
    for (size_t i = 0; i < r->n_tests; i++)
        if (r->results[i].outcome == BENCH__FAILED)
            order[k++] = i;
    qsort_r(order, failed, sizeof *order, compare_failed, r);
    printf("\nFailed tests (%zu):\n", failed);
    for (size_t i = 0; i < failed; i++)
        print_result(r, stdout, order[i], false);
    char *argv0 = bench__shell_quote(r->cfg->argv0);
    printf("\nTo rerun:\n");
    for (size_t i = 0; i < failed; i++) {
        char *escaped = bench__regex_escape(r->suite->entries[r->tests[order[i]]].full_name);
        char *pattern = bench__xasprintf("^%s$", escaped);
        char *quoted = bench__shell_quote(pattern);
        printf("  %s -i %s\n", argv0, quoted);
        free(quoted);
        free(pattern);
        free(escaped);
    }
    free(argv0);
    free(order);
}

/* ---- the processes: fork_server.c's (--isolate=test) or test_worker.c's (worker) ---- */

static void pool_end(void *arg, struct bench__test_end *end)
{
    struct run *r = arg;
    struct bench__test_result *res = &r->results[end->index];
    char text[256];
    res->duration_ns = end->duration_ns;
    res->output = (struct bench__test_output){
        .data = end->output, .len = end->output_len, .truncated = end->output_truncated};
    switch (end->kind) {
    case BENCH__END_REPORTED:
        res->outcome = end->outcome;
        set_detail(res, end->message);
        res->detail_inline = end->outcome == BENCH__SKIPPED;
        break;
    case BENCH__END_DIED: describe_death(res, end->status); break;
    case BENCH__END_TIMED_OUT:
        res->outcome = BENCH__FAILED;
        res->how = BENCH__HOW_TIMED_OUT;
        res->detail_inline = true;
        bench__fmt(text, sizeof text, "timed out after %u s%s", r->cfg->timeout,
                   end->unanswered ? " (its fork server did not answer)" : "");
        set_detail(res, text);
        break;
    case BENCH__END_NO_WORKER:
        res->outcome = BENCH__FAILED;
        res->how = BENCH__HOW_NOT_RUN;
        res->detail_inline = true;
        bench__fmt(text, sizeof text, "could not start a worker process: %s",
                   strerror(-end->error));
        set_detail(res, text);
        break;
    }
    res->done = true;
    r->done++;
}

static void pool_tick(void *arg)
{
    struct run *r = arg;
    stream_results(r);
    if (r->term.animate && r->done < r->n_tests &&
        bench__clock_deadline_ns() - r->last_paint_ns >= PAINT_INTERVAL_NS)
        paint_progress(r);
}

static void run_pool(struct run *r)
{
    struct bench__test_pool pool = {
        .suite = r->suite,
        .tests = r->tests,
        .n_tests = r->n_tests,
        .n_workers = r->n_jobs,
        .timeout = r->cfg->timeout,
        .output_cap = OUTPUT_CAP,
        .idle_ms = r->term.animate ? 50 : 200,
        .arg = r,
        .end = pool_end,
        .tick = pool_tick,
    };
    int rc = r->cfg->isolate == BENCH__ISOLATE_WORKER ? bench__test_workers_run(&pool)
                                                      : bench__fork_servers_run(&pool);
    /* a test that never ended was not run (or not to its end): failed, never passed */
    char text[256];
    if (rc < 0)
        bench__fmt(text, sizeof text, "not run: the runner could not wait for its process (%s)",
                   strerror(-rc));
    else
        bench__fmt(text, sizeof text, "not run: its end never came back");
    for (size_t i = 0; i < r->n_tests; i++) {
        struct bench__test_result *res = &r->results[i];
        if (res->done)
            continue;
        res->outcome = BENCH__FAILED;
        res->how = BENCH__HOW_NOT_RUN;
        res->detail_inline = true;
        res->duration_ns = -1;
        set_detail(res, text);
        res->done = true;
        r->done++;
    }
    stream_results(r);
}

int bench__run_tests(const struct bench__config *cfg, const struct bench__suite *suite)
{
    struct run r = {
        .cfg = cfg, .suite = suite, .term = bench__term_probe(STDOUT_FILENO, cfg->no_colors)};
    if (cfg->tap) /* a TAP stream holds no colour and no progress line */
        r.term.color = r.term.animate = false;
    size_t benchmarks = 0, workloads = 0;
    r.tests = bench__xcalloc(suite->count + 1, sizeof *r.tests);
    for (size_t i = 0; i < suite->count; i++) {
        switch (suite->entries[i].test->kind) {
        case BENCH_KIND_BENCHMARK: benchmarks++; break;
        case BENCH_KIND_WORKLOAD: workloads++; break;
        default: r.tests[r.n_tests++] = i; break;
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t jobs = cfg->jobs ? cfg->jobs : (cpus > 0 ? (size_t)cpus : 1);
    r.n_jobs = jobs < r.n_tests ? jobs : (r.n_tests ? r.n_tests : 1);
    r.results = bench__xcalloc(r.n_tests + 1, sizeof *r.results);
    /* stdout gets a buffer of ours (line-buffered on a terminal, as by default): a fork server
     * or worker that makes it unbuffered then has no malloc'd buffer to free (freeing writes to
     * pages it shares with the runner, each one a page fault) */
    fflush(stdout);
    setvbuf(stdout, stdout_buffer, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, sizeof stdout_buffer);
    r.start_ns = bench__clock_deadline_ns();
    if (cfg->tap)
        bench__tap_begin(stdout, cfg->tap, r.n_tests);
    if (r.term.animate && r.n_tests)
        paint_progress(&r);
    bench__workers_begin(r.n_jobs);
    run_pool(&r);
    bench__workers_end();
    int64_t elapsed = bench__clock_deadline_ns() - r.start_ns;
    if (r.term.animate) {
        erase_progress(&r);
        fflush(stdout);
    }

    size_t passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < r.n_tests; i++) {
        switch (r.results[i].outcome) {
        case BENCH__PASSED: passed++; break;
        case BENCH__FAILED: failed++; break;
        case BENCH__SKIPPED: skipped++; break;
        }
    }
    char dur[32];
    bench__format_ns((double)elapsed, dur, sizeof dur);
    printf(cfg->tap ? "# Summary: %zu passed, %zu failed" : "\nSummary: %zu passed, %zu failed",
           passed, failed);
    if (skipped)
        printf(", %zu skipped", skipped);
    if (benchmarks)
        printf(", %zu benchmarks (run with --bench)", benchmarks);
    if (workloads)
        printf(", %zu workloads (run with --bench)", workloads);
    printf(" in %s\n", dur);
    if (failed && !cfg->tap)
        print_recap(&r, failed);
    fflush(stdout);
    int status = failed ? 1 : 0;
    if (cfg->junit) {
        const char *slash = strrchr(cfg->argv0, '/');
        int rc = bench__junit_tests_write(cfg->junit, slash ? slash + 1 : cfg->argv0, suite,
                                          r.tests, r.results, r.n_tests, (double)elapsed / 1e9);
        if (rc) {
            char shown[1024];
            bench__sanitize_copy(cfg->junit, shown, sizeof shown);
            fprintf(stderr, "error: --junit: cannot write '%s': %s\n", shown,
                    bench__write_file_strerror(rc));
            status = 1;
        }
    }
    for (size_t i = 0; i < r.n_tests; i++) {
        free(r.results[i].output.data);
        free(r.results[i].detail);
    }
    free(r.results);
    free(r.tests);
    return status;
}

int bench__list_tests(const struct bench__suite *suite, FILE *out)
{
    for (size_t i = 0; i < suite->count; i++) {
        const struct bench_test *t = suite->entries[i].test;
        fprintf(out, "%s%s\n", suite->entries[i].full_name,
                t->kind == BENCH_KIND_BENCHMARK  ? " @benchmark"
                : t->kind == BENCH_KIND_WORKLOAD ? " @workload"
                                                 : "");
    }
    return 0;
}
