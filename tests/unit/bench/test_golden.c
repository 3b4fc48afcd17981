/* SPDX-License-Identifier: MIT */
/* test_golden.c: whole --bench runs on a fake clock and a fake host (every OS call through the
 * fault-injection seam), compared byte for byte with the documents and tables kept in
 * tests/golden/. A change to the layout of the library must leave these outputs unchanged; a
 * change that means to alter them regenerates the files (LIBBENCH_GOLDEN_UPDATE=1) and shows
 * the difference in review. Host facts of the JSON meta (date, hostname, cpu, compiler, arch)
 * and the debug-build warning (dropped from stderr; its file masked in the document) are the only
 * parts normalised. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bench/shim.h>

/* The suite below is recorded as a debug build whatever this build is, so that the environment
 * the document records (its "build" and the warning) is the same in every build directory. */
#undef BENCH__BUILD_NDEBUG
#define BENCH__BUILD_NDEBUG 0u
#undef BENCH__BUILD_OPTIMIZED
#define BENCH__BUILD_OPTIMIZED 0u

#include "fake_host.h"
#include "golden_seam.h"

#ifndef GOLDEN_DIR
#error "GOLDEN_DIR must name tests/golden"
#endif

/* ---- the fake clock: time passes only where a body says so ------------------------------ */

static int64_t fake_now;

static int64_t fake_clock(void)
{
    return fake_now;
}

/* ---- the fake host: counters that advance with every reading ---------------------------- */

static uint64_t rusage_calls, io_reads, sched_reads, psi_reads, stat_reads, stat_busy;

static void set_tv(struct timeval *tv, uint64_t us)
{
    tv->tv_sec = (time_t)(us / 1000000);
    tv->tv_usec = (suseconds_t)(us % 1000000);
}

static int fake_getrusage(int who, struct rusage *ru)
{
    memset(ru, 0, sizeof *ru);
    uint64_t k = ++rusage_calls;
    uint64_t extra = who == RUSAGE_SELF ? 2 : 0; /* the process is a little ahead */
    set_tv(&ru->ru_utime, 3 * k + extra);
    set_tv(&ru->ru_stime, k + extra);
    ru->ru_minflt = (long)(2 * k);
    ru->ru_majflt = 0;
    ru->ru_nvcsw = (long)(k / 3);
    ru->ru_nivcsw = (long)(k / 5);
    return 0;
}

/* The text of the fake /proc files, computed at each open: counters advance with every read. */
static const char *fake_content(const char *path, char *text, size_t size)
{
    if (!strcmp(path, "/proc/self/io")) {
        uint64_t k = ++io_reads;
        snprintf(text, size,
                 "rchar: %llu\nwchar: %llu\nsyscr: %llu\nsyscw: %llu\nread_bytes: %llu\n"
                 "write_bytes: %llu\ncancelled_write_bytes: 0\n",
                 (unsigned long long)(1000 + 160 * k), (unsigned long long)(500 + 8 * k),
                 (unsigned long long)(40 + 2 * k), (unsigned long long)(20 + k),
                 (unsigned long long)(4096 * (k / 4)), (unsigned long long)(512 * (k / 2)));
    } else if (!strcmp(path, "/proc/thread-self/schedstat")) {
        uint64_t k = ++sched_reads;
        snprintf(text, size, "%llu %llu %llu\n", (unsigned long long)(1000000 + 900 * k),
                 (unsigned long long)(250 * k), (unsigned long long)(10 + k));
    } else if (!strncmp(path, "/proc/pressure/", 15)) {
        uint64_t k = ++psi_reads;
        bool cpu = !strcmp(path + 15, "cpu");
        snprintf(text, size, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n%s",
                 (unsigned long long)(7000 + 3 * k),
                 cpu ? "" : "full avg10=0.00 avg60=0.00 avg300=0.00 total=900\n");
    } else if (!strcmp(path, "/proc/stat")) {
        /* a two-CPU machine whose other processes are busy for 10 % of each span between two
         * reads, and for 75 % of every second one: rows come out alternately unmarked and
         * marked (contention 0.1 and 0.75, less this process's few fake µs) */
        uint64_t k = ++stat_reads;
        stat_busy += k % 4 == 0 ? 300 : 40;
        uint64_t total = 400 * k;
        snprintf(text, size,
                 "cpu  %llu 0 0 %llu 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n"
                 "cpu1 0 0 0 0 0 0 0 0 0 0\nintr 0\n",
                 (unsigned long long)stat_busy, (unsigned long long)(total - stat_busy));
    } else if (!strcmp(path, "/proc/sys/kernel/perf_event_paranoid")) {
        snprintf(text, size, "2\n");
    } else {
        return NULL; /* no tracefs, no other /proc file */
    }
    return text;
}

static void install_fake_host(void)
{
    rusage_calls = io_reads = sched_reads = psi_reads = stat_reads = stat_busy = 0;
    golden_seam_install(fake_clock, fake_getrusage);
    fake_host_files(fake_content);
    fake_host_refuse("libpfm.so.4: cannot open shared object file: No such file or directory");
}

/* ---- the suite: every kind of row and window --------------------------------------------- */

BENCHMARK(loop_100ns)
{
    BENCH_ITER(b)
    {
        fake_now += 100;
    }
}

BENCHMARK(loop_pinned, .iterations = 7)
{
    BENCH_ITER(b)
    {
        fake_now += 30;
    }
}

BENCHMARK(whole_body)
{
    (void)b;
    fake_now += 2500;
}

static void step_1000(void *state)
{
    uint64_t *calls = state;
    ++*calls;
    fake_now += 1000 + (int64_t)(*calls % 3) * 10;
}

static int fails_at_5(void *state, const char **message)
{
    uint64_t *calls = state;
    if (*calls >= 5) {
        *message = "result mismatch at call 5\nnot shown";
        return 1;
    }
    return 0;
}

static void skip_setup(void *state)
{
    (void)state;
    bench_skip(NULL, "fixture missing");
}

BENCHMARK(matrix)
{
    bench_provenance(b, "allocator=libc");
    uint64_t calls = 0;
    struct bench_label fast[] = {{"impl", "fast"}, {"dataset", "small"}};
    struct bench_label slow[] = {{"dataset", "small"}, {"impl", "slow"}};
    struct bench_label big[] = {{"impl", "fast"}, {"dataset", "big"}};
    struct bench_metric metrics[] = {
        {"items", 10, BENCH_RATE}, {"depth", 4, BENCH_LEVEL}, {"cycles", 1, BENCH_LEVEL}};
    bench_case(b, BENCH_CASE_DEF(.name = "decode", .labels = fast, .n_labels = 2, .state = &calls,
                                 .state_size = sizeof calls, .timed = step_1000, .metrics = metrics,
                                 .n_metrics = 3));
    bench_case(b, BENCH_CASE_DEF(.name = "decode", .labels = big, .n_labels = 2, .state = &calls,
                                 .state_size = sizeof calls, .timed = step_1000, .iterations = 40));
    bench_case(b,
               BENCH_CASE_DEF(.name = "decode", .labels = slow, .n_labels = 2, .state = &calls,
                              .state_size = sizeof calls, .timed = step_1000, .after = fails_at_5));
    bench_case(b, BENCH_CASE_DEF(.name = "skips", .labels = slow, .n_labels = 1, .timed = step_1000,
                                 .setup = skip_setup));
    struct bench_label bad[] = {{"impl", "a\x1f"
                                         "b"}};
    bench_case(b,
               BENCH_CASE_DEF(.name = "refused", .labels = bad, .n_labels = 1, .timed = step_1000));
}

BENCHMARK(body_fails)
{
    BENCH_ITER(b)
    {
        fake_now += 10;
        if (fake_now > 0) /* always: a failure whose message names no file */
            bench_fail(b, "the result is wrong at %lld ns", (long long)fake_now);
    }
}

BENCHMARK(body_skips)
{
    bench_skip(b, "not on this host");
}

static void window_work(void *state)
{
    (void)state;
    fake_now += 40000;
}

static void window_skips(void *state)
{
    (void)state;
    bench_skip(NULL, "no input here");
}

WORKLOAD(phases, .reps = 2)
{
    WORKLOAD_WINDOW(b, "parse")
    {
        fake_now += 120000;
    }
    workload_window(b, "sum", window_work, NULL);
    WORKLOAD_WINDOW(b, "parse")
    {
        fake_now += 80000;
    }
    WORKLOAD_WINDOW(b, "outer")
    {
        workload_window(b, "inner", window_work, NULL);
    }
    BENCH_CHECK(workload_window(b, "skips", window_skips, NULL) == 2);
}

WORKLOAD(whole)
{
    (void)b;
    fake_now += 3000000;
}

WORKLOAD(fails)
{
    WORKLOAD_WINDOW(b, "bad")
    {
        fake_now += 500;
        if (fake_now > 0)
            bench_fail(b, "the window's result is wrong");
    }
}

/* ---- running and comparing ---------------------------------------------------------------- */

/* Drop or mask the lines that describe the host rather than the run. */
static char *normalise(const char *text)
{
    static const char *const masked[] = {"    \"date\": ", "    \"hostname\": ", "    \"arch\": ",
                                         "    \"compiler\": ", "    \"cpu\": "};
    size_t len = strlen(text);
    char *out = malloc(len + 64 * 16 + 1);
    assert_non_null(out);
    size_t o = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        bool drop = !strncmp(p, "warning: ", 9) && strstr(p, "was compiled") &&
                    (!nl || strstr(p, "was compiled") < nl);
        const char *mask = NULL;
        for (size_t i = 0; i < sizeof masked / sizeof masked[0] && !mask; i++)
            if (!strncmp(p, masked[i], strlen(masked[i])))
                mask = masked[i];
        /* the debug-build warning in the document names the file by its build path */
        const char *path_at = strstr(p, " was compiled without");
        if (!drop && path_at && (!nl || path_at < nl) && n > 0) {
            const char *indent_end = p + strspn(p, " ");
            const char *comma = n >= 2 && p[n - 2] == ',' ? "," : "";
            o += (size_t)sprintf(out + o, "%.*s\"(file)%.*s%s\n", (int)(indent_end - p), p,
                                 (int)(n - (size_t)(path_at - p) - 1 - (*comma ? 1 : 0)), path_at,
                                 comma);
        } else if (mask) {
            const char *comma = n >= 2 && p[n - 2] == ',' ? "," : "";
            o += (size_t)sprintf(out + o, "%s\"(host)\"%s\n", mask, comma);
        } else if (!drop) {
            memcpy(out + o, p, n);
            o += n;
        }
        p += n;
    }
    out[o] = '\0';
    return out;
}

static int failures;

static void compare_with(const char *name, const char *suffix, const char *produced_path)
{
    size_t len;
    char *raw = fake_host_slurp(produced_path, &len);
    if (!raw)
        raw = strdup("(no file)\n");
    char *got = normalise(raw);
    free(raw);
    char golden[1024];
    snprintf(golden, sizeof golden, "%s/%s.%s", GOLDEN_DIR, name, suffix);
    const char *update = getenv("LIBBENCH_GOLDEN_UPDATE");
    if (update && *update == '1') {
        FILE *f = fopen(golden, "wb");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
        free(got);
        return;
    }
    char *want = fake_host_slurp(golden, &len);
    if (!want || strcmp(want, got) != 0) {
        char kept[1100];
        snprintf(kept, sizeof kept, "%s.%s.%s", produced_path, name, suffix);
        FILE *f = fopen(kept, "wb");
        if (f) {
            fputs(got, f);
            fclose(f);
        }
        print_error("%s.%s differs from %s (produced output kept at %s)\n", name, suffix, golden,
                    kept);
        failures++;
    }
    free(want);
    free(got);
}

/* Run bench_main with args (NULL-terminated, after the program name) on the fake host; its
 * stdout, stderr and JSON document are compared with the golden ones. */
static void golden_run(const char *name, int expected_status, const char *const *args)
{
    fake_now = 1000000;
    install_fake_host();
    struct fake_host_run run;
    fake_host_main("test_golden", args, &run);
    golden_seam_reset();
    int status = run.status;

    if (status != expected_status) {
        print_error("%s: exit status %d, expected %d\n", name, status, expected_status);
        failures++;
    }
    compare_with(name, "stdout", run.out);
    compare_with(name, "stderr", run.err);
    if (run.has_json)
        compare_with(name, "json", run.json);
}

static void test_golden_outputs(void **state)
{
    (void)state;
    failures = 0;
    /* benchmarks only: every row kind, the default table per BENCHMARK */
    golden_run("timing", 1,
               (const char *const[]){"--bench", "-i", "^test_golden\\.(loop|whole|matrix|body)",
                                     "JSON", NULL});
    /* the counting sources on the fake host: perf refused, perf-sw refused, tier0 counting,
     * syscalls without tracefs; grouped and sorted tables */
    golden_run("counting", 1,
               (const char *const[]){"--bench", "--perf", "--syscalls=read", "--metrics=all",
                                     "--group-by=impl", "--sort-by=name", "-i",
                                     "^test_golden\\.(loop|whole|matrix)", "JSON", NULL});
    /* an explicit metric list, one of its names unknown: a usage error found at the end (no
     * client column matched it either), after the tables and the document */
    golden_run("metric_list", 2,
               (const char *const[]){"--bench", "--metrics=syscr,min-flt,cache-hit,nosuch*", "-i",
                                     "^test_golden\\.(loop_100ns|matrix)", "JSON", NULL});
    /* workloads: windows with tier0 totals, the wall decomposition, PSI */
    golden_run("workloads", 1,
               (const char *const[]){"--bench", "--metrics=all", "-i",
                                     "^test_golden\\.(phases|whole|fails)", "JSON", NULL});
    golden_run("workloads_plain", 1,
               (const char *const[]){"--bench", "-i", "^test_golden\\.(phases|whole|fails)", "JSON",
                                     NULL});
    golden_run("group_list", 1,
               (const char *const[]){"--bench", "--group-by=list", "-i", "^test_golden\\.", NULL});
    golden_run("list_metrics", 0, (const char *const[]){"--list-metrics", NULL});
    golden_run("list_metrics_syscalls", 0,
               (const char *const[]){"--list-metrics", "--syscalls=read,write", NULL});
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
