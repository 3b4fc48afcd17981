/* SPDX-License-Identifier: MIT */
/* runner.c: owns test mode: one forked worker process per test (at most --jobs at once), each
 * ended when it runs past --timeout, or (--isolate=worker) test_worker.c's long-lived workers;
 * result lines streamed in suite order, the live progress line, the summary, the failure recap
 * and the exit status. It does not parse options or measure anything (platform/workers.c owns
 * the workers' process groups and signals). Over 600 lines: both isolation modes feed the same
 * result streaming and recap, which stay here; the worker protocol is in test_worker.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
#include "../util/format.h"
#include "../util/signal_name.h"
#include "../util/text.h"
#include "runner.h"
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

struct buffer {
    char *data;
    size_t len;
    bool truncated;
};

struct result {
    bool done;
    enum bench__outcome outcome;
    char *detail;       /* check message, bench_fail text, skip reason or death; NULL: none */
    bool detail_inline; /* show detail in parentheses on the result line */
    struct buffer output;
    int64_t duration_ns;
};

struct slot {
    pid_t pid; /* 0 = free */
    size_t index;
    int out_fd, res_fd; /* -1 once closed */
    int pidfd;          /* readable once the worker exited; -1: none (exit is polled) */
    int out_w;          /* the runner's copy of the output pipe's write end, or -1 */
    bool exited;        /* its pidfd was readable */
    bool reaped;
    int status;
    int64_t start_ns; /* bench__workers_clock_ns() before its fork: the time stopped is left out */
    bool timed_out;   /* killed (with its process group) at its deadline */
};

struct run {
    const struct bench__config *cfg;
    const struct bench__suite *suite;
    struct bench__term term;
    size_t *tests; /* suite indices of BENCH_TEST entries */
    size_t n_tests;
    struct result *results;
    struct slot *slots;
    size_t n_slots;
    size_t next_launch, next_print, done;
    int devnull; /* every worker's standard input (-1: it keeps the runner's) */
    int64_t start_ns, last_paint_ns;
    unsigned spinner;
    bool progress_shown;
};

static void buffer_append(struct buffer *b, const char *data, size_t n, size_t cap)
{
    if (b->len + n > cap) {
        b->truncated = true;
        n = cap > b->len ? cap - b->len : 0;
    }
    if (n == 0)
        return;
    char *grown = realloc(b->data, b->len + n + 1);
    if (!grown) {
        b->truncated = true;
        return;
    }
    b->data = grown;
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* ---- the worker process ------------------------------------------------------------ */

BENCH_NORETURN static void run_child(struct run *r, const struct bench__entry *e, int out_w,
                                     int res_w)
{
    for (size_t i = 0; i < r->n_slots; i++) {
        if (r->slots[i].pid == 0)
            continue;
        if (r->slots[i].out_fd >= 0)
            close(r->slots[i].out_fd);
        if (r->slots[i].res_fd >= 0)
            close(r->slots[i].res_fd);
        if (r->slots[i].pidfd >= 0)
            close(r->slots[i].pidfd);
        if (r->slots[i].out_w >= 0)
            close(r->slots[i].out_w);
    }
    if (r->devnull >= 0)
        dup2(r->devnull, STDIN_FILENO);
    dup2(out_w, STDOUT_FILENO);
    dup2(out_w, STDERR_FILENO);
    close(out_w);
    setvbuf(stdout, NULL, _IONBF, 0); /* nothing is lost when the test crashes */
    signal(SIGPIPE, SIG_DFL);
    struct bench_ctx ctx = {.entry = e, .result_fd = res_w};
    bench__current = &ctx;
    e->test->fn(&ctx);
    ctx.message[0] = '\0';
    bench__finish(&ctx, BENCH__PASSED);
}

static int launch(struct run *r, struct slot *s, size_t index)
{
    const struct bench__entry *e = &r->suite->entries[r->tests[index]];
    int out[2], res[2];
    if (bench__pipe2(out, O_CLOEXEC) != 0)
        return -errno;
    /* non-blocking at both ends: the worker writes one report shorter than PIPE_BUF into the
     * empty pipe (it never blocks), and the runner reads it once the worker was reaped */
    if (bench__pipe2(res, O_CLOEXEC | O_NONBLOCK) != 0) {
        int err = -errno;
        close(out[0]);
        close(out[1]);
        return err;
    }
    fflush(stdout);
    fflush(stderr);
    /* before the fork, on the clock that stands still while the runner is stopped: a stop that
     * comes now (it waits while the fork blocks signals) never counts against the worker */
    int64_t start = bench__workers_clock_ns();
    pid_t pid = bench__workers_fork((size_t)(s - r->slots));
    if (pid < 0) {
        int err = -errno;
        close(out[0]), close(out[1]), close(res[0]), close(res[1]);
        return err;
    }
    if (pid == 0) {
        close(out[0]);
        close(res[0]);
        run_child(r, e, out[1], res[1]);
    }
    close(res[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    /* the worker is not reaped before this: the pid is still its own */
    int pidfd = bench__pidfd_open(pid);
    /* With a pidfd, the runner holds the output pipe's write end until the worker is reaped:
     * the pipe never ends while the worker exits, so its exit wakes the runner once (on the
     * pidfd), not twice (end of the pipe, then the exit). Without, the end of the pipe is what
     * says the worker is exiting. */
    if (pidfd < 0) {
        close(out[1]);
        out[1] = -1;
    }
    *s = (struct slot){.pid = pid,
                       .index = index,
                       .out_fd = out[0],
                       .res_fd = res[0],
                       .pidfd = pidfd,
                       .out_w = out[1],
                       .start_ns = start};
    return 0;
}

/* Read what a pipe holds now; close it at end of file. */
static void drain(int *fd, struct buffer *b, size_t cap)
{
    char chunk[8192];
    while (*fd >= 0) {
        ssize_t n = read(*fd, chunk, sizeof chunk);
        if (n > 0) {
            buffer_append(b, chunk, (size_t)n, cap);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(*fd);
            *fd = -1;
        }
        return;
    }
}

/* The results stay small (the detail on the heap, only when there is one): every page the
 * runner holds is copied into, and torn down with, every worker it forks. */
static void set_detail(struct result *res, const char *text)
{
    free(res->detail);
    res->detail = text[0] ? bench__xstrdup(text) : NULL;
}

static void describe_death(struct result *res, int status)
{
    char detail[DETAIL_MAX];
    res->outcome = BENCH__FAILED;
    res->detail_inline = true;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
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

static void finish_slot(struct run *r, struct slot *s)
{
    struct result *res = &r->results[s->index];
    res->duration_ns = bench__workers_clock_ns() - s->start_ns;
    /* The worker is reaped: its report, written at once, is all in the pipe now (one read
     * takes it; what a grandchild that holds the pipe may add later is not read). */
    char report[DETAIL_MAX + 1];
    ssize_t n;
    do
        n = read(s->res_fd, report, sizeof report);
    while (n < 0 && errno == EINTR);
    if (s->out_fd >= 0)
        close(s->out_fd);
    close(s->res_fd);
    if (s->pidfd >= 0)
        close(s->pidfd);
    if (s->out_w >= 0)
        close(s->out_w);
    enum bench__outcome outcome;
    char message[DETAIL_MAX];
    bool reported =
        n > 0 && bench__outcome_decode(report, (size_t)n, &outcome, message, sizeof message) == 0;
    bench__workers_forget((size_t)(s - r->slots));
    if (s->timed_out) {
        res->outcome = BENCH__FAILED;
        res->detail_inline = true;
        char detail[64];
        bench__fmt(detail, sizeof detail, "timed out after %u s", r->cfg->timeout);
        set_detail(res, detail);
    } else if (WIFSIGNALED(s->status) || !reported) {
        describe_death(res, s->status);
    } else {
        res->outcome = outcome;
        set_detail(res, message);
        res->detail_inline = outcome == BENCH__SKIPPED;
    }
    res->done = true;
    r->done++;
    *s = (struct slot){.pid = 0, .out_fd = -1, .res_fd = -1, .pidfd = -1, .out_w = -1};
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
    const struct result *res = &r->results[index];
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
    int64_t now = bench__clock_ns();
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
        struct result *res = &r->results[r->next_print];
        print_result(r, stdout, r->next_print, res->outcome == BENCH__FAILED || r->cfg->verbose);
        /* shown (or not to be shown): the recap never shows output */
        free(res->output.data);
        res->output = (struct buffer){0};
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
    size_t *order = malloc(failed * sizeof *order);
    if (!order)
        return;
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

/* ---- the pool ----------------------------------------------------------------------- */

/* Kill the workers past --timeout (with their process groups: the slot finishes once reaped);
 * returns the ms until the nearest deadline of the others (rounded up), or -1 when none. */
static int enforce_deadlines(struct run *r)
{
    if (r->cfg->timeout == 0)
        return -1;
    const int64_t limit = (int64_t)r->cfg->timeout * 1000000000LL;
    /* the time the runner (and its workers with it) spent stopped does not count */
    int64_t now = bench__workers_clock_ns();
    int64_t nearest = -1;
    for (size_t i = 0; i < r->n_slots; i++) {
        struct slot *s = &r->slots[i];
        if (s->pid == 0 || s->reaped || s->timed_out)
            continue;
        int64_t ran = now - s->start_ns;
        if (ran >= limit) {
            bench__workers_kill(i);
            s->timed_out = true;
            continue;
        }
        if (nearest < 0 || limit - ran < nearest)
            nearest = limit - ran;
    }
    if (nearest < 0)
        return -1;
    int64_t ms = (nearest + 999999) / 1000000;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static void pool_loop(struct run *r)
{
    struct pollfd *fds = calloc(2 * r->n_slots, sizeof *fds);
    struct slot **owner = calloc(2 * r->n_slots, sizeof *owner);
    while (r->done < r->n_tests) {
        for (size_t i = 0; i < r->n_slots && r->next_launch < r->n_tests; i++) {
            if (r->slots[i].pid != 0)
                continue;
            size_t index = r->next_launch++;
            int rc = launch(r, &r->slots[i], index);
            if (rc < 0) {
                struct result *res = &r->results[index];
                res->outcome = BENCH__FAILED;
                res->detail_inline = true;
                char detail[DETAIL_MAX];
                bench__fmt(detail, sizeof detail, "could not start a worker process: %s",
                           strerror(-rc));
                set_detail(res, detail);
                res->done = true;
                r->done++;
            }
        }
        stream_results(r);
        if (r->done >= r->n_tests)
            break;
        /* The output pipe is drained while the worker runs (it would block on a full pipe);
         * the result pipe never fills (one short message), so it is read once the worker was
         * reaped; the exit is seen on the worker's pidfd, or polled every millisecond without. */
        size_t nfds = 0;
        bool waiting_for_exit = false;
        for (size_t i = 0; i < r->n_slots; i++) {
            struct slot *s = &r->slots[i];
            if (s->pid == 0)
                continue;
            if (s->out_fd >= 0)
                fds[nfds] = (struct pollfd){.fd = s->out_fd, .events = POLLIN}, owner[nfds++] = s;
            if (s->pidfd >= 0 && !s->reaped)
                fds[nfds] = (struct pollfd){.fd = s->pidfd, .events = POLLIN}, owner[nfds++] = s;
            else if (s->out_fd < 0)
                waiting_for_exit = true;
        }
        int timeout = waiting_for_exit ? 1 : r->term.animate ? 50 : 200;
        int deadline = enforce_deadlines(r);
        if (deadline >= 0 && deadline < timeout)
            timeout = deadline;
        int ready = poll(fds, nfds, timeout);
        if (ready < 0 && errno != EINTR)
            break;
        for (size_t k = 0; k < nfds && ready > 0; k++) {
            struct slot *s = owner[k];
            if (fds[k].revents == 0)
                continue;
            if (fds[k].fd == s->out_fd)
                drain(&s->out_fd, &r->results[s->index].output, OUTPUT_CAP);
            else
                s->exited = true;
        }
        for (size_t i = 0; i < r->n_slots; i++) {
            struct slot *s = &r->slots[i];
            if (s->pid == 0)
                continue;
            if (!s->reaped && (s->exited || s->pidfd < 0)) {
                pid_t got = waitpid(s->pid, &s->status, WNOHANG);
                /* ECHILD: the program ignores SIGCHLD and the kernel reaped the worker (its
                 * status is lost; what it reported still counts) */
                s->reaped = got == s->pid || (got < 0 && errno == ECHILD);
            }
            /* Done when the worker exited and its pipes are empty (a grandchild may keep
             * them open: what is there now is all we take). */
            if (s->reaped) {
                drain(&s->out_fd, &r->results[s->index].output, OUTPUT_CAP);
                finish_slot(r, s);
            }
        }
        if (r->term.animate && bench__clock_ns() - r->last_paint_ns >= PAINT_INTERVAL_NS)
            paint_progress(r);
    }
    stream_results(r);
    free(fds);
    free(owner);
}

/* ---- --isolate=worker: the same results from long-lived workers (test_worker.c) ----- */

static void worker_end(void *arg, struct bench__test_end *end)
{
    struct run *r = arg;
    struct result *res = &r->results[end->index];
    char text[256];
    res->duration_ns = end->duration_ns;
    res->output = (struct buffer){
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
        res->detail_inline = true;
        bench__fmt(text, sizeof text, "timed out after %u s", r->cfg->timeout);
        set_detail(res, text);
        break;
    case BENCH__END_NO_WORKER:
        res->outcome = BENCH__FAILED;
        res->detail_inline = true;
        bench__fmt(text, sizeof text, "could not start a worker process: %s",
                   strerror(-end->error));
        set_detail(res, text);
        break;
    }
    res->done = true;
    r->done++;
}

static void worker_tick(void *arg)
{
    struct run *r = arg;
    stream_results(r);
    if (r->term.animate && r->done < r->n_tests &&
        bench__clock_ns() - r->last_paint_ns >= PAINT_INTERVAL_NS)
        paint_progress(r);
}

static void run_in_workers(struct run *r)
{
    struct bench__test_pool pool = {
        .suite = r->suite,
        .tests = r->tests,
        .n_tests = r->n_tests,
        .n_workers = r->n_slots,
        .timeout = r->cfg->timeout,
        .output_cap = OUTPUT_CAP,
        .idle_ms = r->term.animate ? 50 : 200,
        .arg = r,
        .end = worker_end,
        .tick = worker_tick,
    };
    bench__test_workers_run(&pool);
}

int bench__run_tests(const struct bench__config *cfg, const struct bench__suite *suite)
{
    struct run r = {
        .cfg = cfg, .suite = suite, .term = bench__term_probe(STDOUT_FILENO, cfg->no_colors)};
    size_t benchmarks = 0, workloads = 0;
    r.tests = calloc(suite->count + 1, sizeof *r.tests);
    if (!r.tests) {
        fprintf(stderr, "error: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < suite->count; i++) {
        switch (suite->entries[i].test->kind) {
        case BENCH_KIND_BENCHMARK: benchmarks++; break;
        case BENCH_KIND_WORKLOAD: workloads++; break;
        default: r.tests[r.n_tests++] = i; break;
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t jobs = cfg->jobs ? cfg->jobs : (cpus > 0 ? (size_t)cpus : 1);
    r.n_slots = jobs < r.n_tests ? jobs : (r.n_tests ? r.n_tests : 1);
    r.results = calloc(r.n_tests + 1, sizeof *r.results);
    r.slots = calloc(r.n_slots, sizeof *r.slots);
    if (!r.results || !r.slots) {
        free(r.tests), free(r.results), free(r.slots);
        fprintf(stderr, "error: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < r.n_slots; i++)
        r.slots[i].out_fd = r.slots[i].res_fd = r.slots[i].pidfd = r.slots[i].out_w = -1;
    r.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    /* stdout gets a buffer of ours (line-buffered on a terminal, as by default): a worker that
     * makes it unbuffered then has no malloc'd buffer to free (freeing writes to pages it shares
     * with the runner, each one a page fault in every worker) */
    fflush(stdout);
    setvbuf(stdout, stdout_buffer, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, sizeof stdout_buffer);
    r.start_ns = bench__clock_ns();
    if (r.term.animate && r.n_tests)
        paint_progress(&r);
    bench__workers_begin(r.n_slots);
    if (cfg->isolate == BENCH__ISOLATE_WORKER)
        run_in_workers(&r);
    else
        pool_loop(&r);
    bench__workers_end();
    int64_t elapsed = bench__clock_ns() - r.start_ns;
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
    printf("\nSummary: %zu passed, %zu failed", passed, failed);
    if (skipped)
        printf(", %zu skipped", skipped);
    if (benchmarks)
        printf(", %zu benchmarks (run with --bench)", benchmarks);
    if (workloads)
        printf(", %zu workloads (run with --bench)", workloads);
    printf(" in %s\n", dur);
    if (failed)
        print_recap(&r, failed);
    fflush(stdout);
    for (size_t i = 0; i < r.n_tests; i++) {
        free(r.results[i].output.data);
        free(r.results[i].detail);
    }
    free(r.results);
    free(r.slots);
    free(r.tests);
    if (r.devnull >= 0)
        close(r.devnull);
    return failed ? 1 : 0;
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
