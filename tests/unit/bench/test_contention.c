/* SPDX-License-Identifier: MIT */
/* test_contention.c: the contention of a row and the environment check: the /proc/stat,
 * /proc/loadavg and /proc/cpuinfo parsers on captured, old, torn and hostile text; the span rules
 * (NaN, never 0, when a span is too short or an edge failed; clamped to [0, 1]); the edges and
 * the whole check through the fault-injection seam (a fake kernel: no privileges, no real
 * governor needed); one live reading of the real /proc/stat. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fake_host.h"
#include "bench/host/contention.h"
#include "bench/host/environment.h"
#include "platform/os.h"

#define N(a) (sizeof(a) / sizeof *(a))

/* Captured on the development VM (Linux 6.x, 2 vCPUs) with `head -3 /proc/stat`. */
#define CAPTURED                                                                                   \
    "cpu  1038913 64181 258173 1076968 5003 0 1559 3986 0 0\n"                                     \
    "cpu0 479214 25447 125504 590510 1068 0 409 2000 0 0\n"                                        \
    "cpu1 559699 38734 132669 486457 3934 0 1150 1986 0 0\n"                                       \
    "intr 1 2 3\n"

struct stat_case {
    const char *what, *text;
    int rc;
    uint64_t total, idle;
    unsigned cpus;
};

static const struct stat_case stat_cases[] = {
    {"captured", CAPTURED, 0, 1038913 + 64181 + 258173 + 1076968 + 5003 + 1559 + 3986,
     1076968 + 5003, 2},
    {"guest time is not counted twice", "cpu  10 0 0 10 0 0 0 0 99 99\n", 0, 20, 10, 0},
    {"a 2.4 kernel: four fields", "cpu  1 2 3 4\ncpu0 1 2 3 4\n", 0, 10, 4, 1},
    {"tabs", "cpu \t1\t2 3 4\n", 0, 10, 4, 0},
    {"a torn cpuN line is not counted", "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu1 1 2", 0, 10, 4, 1},
    {"cpufreq lines are not CPUs", "cpu  1 2 3 4\ncpu0 1\ncpufreq 1\n", 0, 10, 4, 1},
    /* refused */
    {"empty", "", -1, 0, 0, 0},
    {"no cpu line first", "intr 1\ncpu  1 2 3 4\n", -1, 0, 0, 0},
    {"cpu0 is not the total", "cpu0 1 2 3 4\n", -1, 0, 0, 0},
    {"torn first line", "cpu  1038913 64181 2581", -1, 0, 0, 0},
    {"three fields", "cpu  1 2 3\n", -1, 0, 0, 0},
    {"glued", "cpu  1 2x 3 4\n", -1, 0, 0, 0},
    {"negative", "cpu  1 -2 3 4\n", -1, 0, 0, 0},
    {"absurdly large", "cpu  1 2 3 99999999999999999999999\n", -1, 0, 0, 0},
};

static void test_cpu_stat_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < N(stat_cases); i++) {
        const struct stat_case *c = &stat_cases[i];
        struct bench__cpu_stat s;
        int rc = bench__cpu_stat_parse(c->text, &s);
        if (rc != c->rc ||
            (rc == 0 && (s.total != c->total || s.idle != c->idle || s.cpus != c->cpus)))
            fail_msg("%s: rc %d total %llu idle %llu cpus %u", c->what, rc,
                     (unsigned long long)s.total, (unsigned long long)s.idle, s.cpus);
    }
    struct bench__cpu_stat s;
    assert_int_equal(bench__cpu_stat_parse(NULL, &s), -1);
}

static struct bench__contention_edge edge(uint64_t total, uint64_t idle, int64_t own_ns)
{
    struct bench__contention_edge e = {0};
    e.stat.total = total;
    e.stat.idle = idle;
    e.own_ns = own_ns;
    return e;
}

#define assert_nan(v) assert_true(isnan(v))

static void test_span_rules(void **state)
{
    (void)state;
    /* 400 ticks of machine time, 250 busy, 50 of them this process's (0.5 s at 100 Hz) */
    struct bench__contention acc = {0};
    struct bench__contention_edge a = edge(1000, 500, 0), b = edge(1400, 650, 500000000);
    bench__contention_add(&acc, &a, &b);
    assert_true(fabs(bench__contention_value(&acc, 100) - 200.0 / 400) < 1e-12);
    /* rounds add their spans */
    struct bench__contention_edge c = edge(2000, 1000, 500000000), d = edge(2400, 1400, 500000000);
    bench__contention_add(&acc, &c, &d);
    assert_true(fabs(bench__contention_value(&acc, 100) - 200.0 / 800) < 1e-12);
    /* this process alone: a little below zero reads 0, a measured 0 */
    acc = (struct bench__contention){0};
    a = edge(0, 0, 0), b = edge(100, 0, 1010000000);
    bench__contention_add(&acc, &a, &b);
    assert_true(bench__contention_value(&acc, 100) == 0);
    /* under the minimum span: not measured */
    acc = (struct bench__contention){0};
    b = edge(BENCH__CONTENTION_MIN_TICKS - 1, 0, 0);
    bench__contention_add(&acc, &a, &b);
    assert_nan(bench__contention_value(&acc, 100));
    assert_int_equal(bench__contention_gap(&acc, 100), BENCH__CONTENTION_SHORT); /* said why */
    b = edge(BENCH__CONTENTION_MIN_TICKS, 0, 0);
    acc = (struct bench__contention){0};
    bench__contention_add(&acc, &a, &b);
    assert_true(bench__contention_value(&acc, 100) == 1);
    assert_int_equal(bench__contention_gap(&acc, 100), 0);
    /* a failed edge: not measured, and later spans do not repair it */
    acc = (struct bench__contention){0};
    struct bench__contention_edge bad = edge(0, 0, 0);
    bad.err = -ENOENT;
    bench__contention_add(&acc, &a, &bad);
    assert_int_equal(acc.err, -ENOENT);
    bench__contention_add(&acc, &c, &d);
    assert_nan(bench__contention_value(&acc, 100));
    assert_int_equal(bench__contention_gap(&acc, 100), BENCH__CONTENTION_UNREADABLE);
    /* counters that ran backwards */
    acc = (struct bench__contention){0};
    a = edge(1000, 500, 0), b = edge(900, 400, 0);
    bench__contention_add(&acc, &a, &b);
    assert_nan(bench__contention_value(&acc, 100));
    acc = (struct bench__contention){0};
    a = edge(1000, 500, 10), b = edge(1400, 500, 5);
    bench__contention_add(&acc, &a, &b);
    assert_nan(bench__contention_value(&acc, 100));
}

/* ---- through the seam ----------------------------------------------------------------------- */

static int stat_reads;
static bool stat_missing;
static const char *governor[2], *no_turbo, *boost, *cpuinfo, *loadavg;

static const char *fake_files(const char *path, char *text, size_t size)
{
    if (!strcmp(path, "/proc/stat")) {
        if (stat_missing)
            return NULL;
        int k = ++stat_reads;
        snprintf(text, size, "cpu  %d 0 0 %d 0 0 0 0 0 0\ncpu0 0\ncpu1 0\n", 150 * k, 250 * k);
        return text;
    }
    if (!strcmp(path, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"))
        return governor[0];
    if (!strcmp(path, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"))
        return governor[1];
    if (!strcmp(path, "/sys/devices/system/cpu/intel_pstate/no_turbo"))
        return no_turbo;
    if (!strcmp(path, "/sys/devices/system/cpu/cpufreq/boost"))
        return boost;
    if (!strcmp(path, "/proc/cpuinfo"))
        return cpuinfo;
    if (!strcmp(path, "/proc/loadavg"))
        return loadavg;
    return NULL;
}

static int rusage_calls;

static int fake_getrusage(int who, struct rusage *ru)
{
    (void)who;
    memset(ru, 0, sizeof *ru);
    ru->ru_utime.tv_sec = ++rusage_calls; /* one second of this process per reading */
    return 0;
}

static int pmu_errno;

static int fake_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags)
{
    (void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
    if (pmu_errno) {
        errno = pmu_errno;
        return -1;
    }
    return 99;
}

static int closed_fd;
static int (*host_close)(int fd);

static int fake_close(int fd)
{
    if (fd != 99)
        return host_close(fd); /* a fake file */
    closed_fd = fd;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    stat_reads = rusage_calls = closed_fd = 0;
    stat_missing = false;
    governor[0] = governor[1] = no_turbo = boost = cpuinfo = loadavg = NULL;
    pmu_errno = ENOENT;
    fake_host_files(fake_files);
    bench__os.getrusage = fake_getrusage;
    bench__os.perf_event_open = fake_perf_event_open;
    host_close = bench__os.close;
    bench__os.close = fake_close;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    bench__os_reset();
    return 0;
}

static void test_edges_through_the_seam(void **state)
{
    (void)state;
    struct bench__contention acc = {0};
    struct bench__contention_edge a, b;
    bench__contention_edge_read(&a);
    bench__contention_edge_read(&b);
    assert_int_equal(a.err, 0);
    assert_int_equal(a.stat.total, 400);
    assert_int_equal(a.stat.idle, 250);
    bench__contention_add(&acc, &a, &b);
    /* 400 ticks, 150 busy, 100 of them this process's second at 100 Hz */
    assert_true(fabs(bench__contention_value(&acc, 100) - 50.0 / 400) < 1e-12);
    struct bench__cpu_stat big;
    assert_int_equal(bench__cpu_stat_read(&big, true), 0);
    assert_int_equal(big.cpus, 2);
    stat_missing = true;
    bench__contention_edge_read(&b);
    assert_int_equal(b.err, -ENOENT);
    acc = (struct bench__contention){0};
    bench__contention_add(&acc, &a, &b);
    assert_true(isnan(bench__contention_value(&acc, 100)));
}

static const struct bench_benchmark_opts bench_opts = {.size = sizeof bench_opts};

static void one_test_suite(struct bench__suite *suite, struct bench__entry *entry,
                           struct bench_test *test, uint32_t build)
{
    memset(test, 0, sizeof *test);
    test->size = sizeof *test;
    test->kind = BENCH_KIND_BENCHMARK;
    test->name = "b";
    test->file = "suite.c";
    test->build = build;
    test->benchmark = &bench_opts;
    memset(entry, 0, sizeof *entry);
    entry->test = test;
    entry->full_name = (char *)"suite.b";
    suite->entries = entry;
    suite->count = 1;
}

static char *check_text(struct bench__environment *env, uint32_t build)
{
    struct bench__suite suite;
    struct bench__entry entry;
    struct bench_test test;
    one_test_suite(&suite, &entry, &test, build);
    char *text = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&text, &len);
    bench__environment_check(env, &suite, err);
    fclose(err);
    return text;
}

static const char *unknown_reason(const struct bench__environment *env, const char *key)
{
    for (size_t i = 0; i < env->n_unknown; i++)
        if (!strcmp(env->unknown[i].key, key))
            return env->unknown[i].value;
    return NULL;
}

/* A badly set machine: every check warns, once, naming the setting and what to do. */
static void test_environment_warns(void **state)
{
    (void)state;
    governor[0] = "powersave\n";
    governor[1] = "performance\n";
    no_turbo = "0\n";
    cpuinfo = "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n\n";
    loadavg = "1.43 1.55 1.39 1/93 32303\n";
    struct bench__environment env;
    char *text = check_text(&env, BENCH_BUILD_OPTIMIZED);
    assert_string_equal(env.governor, "powersave,performance");
    assert_int_equal(env.boost, 1);
    assert_string_equal(env.build, "asserts");
    assert_int_equal(env.hardware_pmu, 0);
    assert_int_equal(env.hypervisor, 1);
    assert_true(env.load_avg == 1.43);
    assert_int_equal(env.cpus, 2);
    assert_int_equal(env.n_unknown, 0);
    assert_int_equal(env.n_warnings, 5);
    static const char *const lines[] = {
        "warning: suite.c was compiled without NDEBUG (asserts enabled) — benchmark numbers may "
        "be meaningless; build with optimization and -DNDEBUG (e.g. meson --buildtype=release)\n",
        "warning: environment: the CPU frequency governor is 'powersave,performance' — the clock "
        "may change between samples; for steady numbers set 'performance' (sudo cpupower "
        "frequency-set -g performance)\n",
        "warning: environment: CPU boost (turbo) is on — the clock follows temperature and load; "
        "for steady numbers turn it off (echo 1 | sudo tee "
        "/sys/devices/system/cpu/intel_pstate/no_turbo)\n",
        "warning: environment: no hardware PMU (perf_event_open(cycles): ENOENT; the CPU reports "
        "a hypervisor: a virtual machine) — hardware counters (--perf) cannot be read; run on "
        "bare metal, or give the virtual machine a PMU (KVM: -cpu host)\n",
        "warning: environment: the load average is 1.43 on 2 CPUs at start — other processes "
        "compete for the CPUs; measure on a quieter machine, and read each row's contention (a "
        "† in the table)\n",
    };
    const char *p = text;
    for (size_t i = 0; i < N(lines); i++) {
        if (strncmp(p, lines[i], strlen(lines[i])) != 0)
            fail_msg("line %zu: got %s", i, p);
        p += strlen(lines[i]);
        /* the document keeps the same line without its "warning: " and newline */
        size_t body = strlen(lines[i]) - strlen("warning: ") - 1;
        assert_int_equal(strlen(env.warnings[i]), body);
        assert_memory_equal(env.warnings[i], lines[i] + strlen("warning: "), body);
    }
    assert_string_equal(p, "");
    free(text);
    bench__environment_free(&env);
}

/* A machine set up for benchmarking: nothing is said. */
static void test_environment_quiet(void **state)
{
    (void)state;
    governor[0] = governor[1] = "performance\n";
    no_turbo = NULL;
    boost = "0\n"; /* acpi-cpufreq and amd-pstate say it here */
    cpuinfo = "processor\t: 0\nflags\t\t: fpu vme lahf_lm\n\n";
    loadavg = "0.99 0.50 0.20 1/93 32303\n";
    pmu_errno = 0;
    struct bench__environment env;
    char *text = check_text(&env, BENCH_BUILD_OPTIMIZED | BENCH_BUILD_NDEBUG);
    assert_string_equal(text, "");
    assert_string_equal(env.governor, "performance");
    assert_int_equal(env.boost, 0);
    assert_string_equal(env.build, "optimized");
    assert_int_equal(env.hardware_pmu, 1);
    assert_int_equal(closed_fd, 99); /* the probe's counter is closed at once */
    assert_int_equal(env.hypervisor, 0);
    assert_int_equal(env.n_warnings, 0);
    assert_int_equal(env.n_unknown, 0);
    free(text);
    bench__environment_free(&env);
    /* boost on, said in the cpufreq file: its own way to turn it off */
    boost = "1\n";
    text = check_text(&env, BENCH_BUILD_OPTIMIZED | BENCH_BUILD_NDEBUG);
    assert_non_null(strstr(text, "(echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost)"));
    free(text);
    bench__environment_free(&env);
}

/* Nothing readable: every value unknown with its reason, nothing said but the build. */
static void test_environment_unknown(void **state)
{
    (void)state;
    stat_missing = true;
    pmu_errno = EACCES;
    struct bench__environment env;
    char *text = check_text(&env, 0);
    assert_string_equal(env.build, "unoptimized");
    assert_int_equal(env.n_warnings, 1);
    assert_non_null(strstr(text, "warning: suite.c was compiled without optimization"));
    assert_null(strstr(text, "environment"));
    assert_null(env.governor);
    assert_int_equal(env.boost, -1);
    assert_int_equal(env.hardware_pmu, -1);
    assert_int_equal(env.hypervisor, -1);
    assert_true(isnan(env.load_avg));
    assert_int_equal(env.cpus, 0);
    assert_int_equal(env.n_unknown, 6);
    assert_string_equal(unknown_reason(&env, "cpus"), "/proc/stat: No such file or directory");
    assert_non_null(strstr(unknown_reason(&env, "governor"), "no cpufreq driver"));
    assert_non_null(strstr(unknown_reason(&env, "boost"), "no_turbo"));
    assert_string_equal(unknown_reason(&env, "hardwarePmu"),
                        "perf_event_open(cycles): EACCES (Permission denied)");
    assert_string_equal(unknown_reason(&env, "hypervisor"),
                        "/proc/cpuinfo: No such file or directory");
    assert_string_equal(unknown_reason(&env, "loadAverage"),
                        "/proc/loadavg: No such file or directory");
    free(text);
    bench__environment_free(&env);
    /* a high load with the CPU count unknown is recorded, not judged */
    loadavg = "9.00 9.00 9.00 1/93 1\n";
    text = check_text(&env, BENCH_BUILD_OPTIMIZED | BENCH_BUILD_NDEBUG);
    assert_true(env.load_avg == 9);
    assert_string_equal(text, "");
    free(text);
    bench__environment_free(&env);
}

static void test_small_parsers(void **state)
{
    (void)state;
    assert_true(bench__loadavg_parse("0.00 0.01 0.05 1/93 3\n") == 0);
    assert_true(bench__loadavg_parse("12.5\n") == 12.5);
    assert_true(isnan(bench__loadavg_parse("")));
    assert_true(isnan(bench__loadavg_parse("-1.0 2 3\n")));
    assert_true(isnan(bench__loadavg_parse("nan 2 3\n")));
    assert_true(isnan(bench__loadavg_parse("1.5x 2 3\n")));
    assert_true(isnan(bench__loadavg_parse("1.5"))); /* torn */
    assert_true(isnan(bench__loadavg_parse(NULL)));
    assert_int_equal(bench__cpuinfo_hypervisor("flags\t: fpu hypervisor\n"), 1);
    assert_int_equal(bench__cpuinfo_hypervisor("flags\t: hypervisor_x fpu\n"), 0);
    assert_int_equal(bench__cpuinfo_hypervisor("processor: 0\nflags: fpu\nflags: hypervisor\n"),
                     0); /* the first CPU's line decides */
    assert_int_equal(bench__cpuinfo_hypervisor("processor: 0\nBogoMIPS: 50\n"), -1); /* arm64 */
    assert_int_equal(bench__cpuinfo_hypervisor("flags\t: fpu hyperv"), -1);          /* torn */
    assert_int_equal(bench__cpuinfo_hypervisor("flags without colon\n"), -1);
    assert_int_equal(bench__cpuinfo_hypervisor(""), -1);
}

/* The real kernel: two readings a moment apart parse, and never run backwards. */
static void test_live(void **state)
{
    (void)state;
    bench__os_reset();
    struct bench__contention_edge a, b;
    bench__contention_edge_read(&a);
    if (a.err == -ENOENT)
        skip(); /* no /proc/stat here */
    assert_int_equal(a.err, 0);
    volatile double x = 0;
    for (int i = 0; i < 10000000; i++)
        x += i;
    (void)x; /* the loop only passes time */
    bench__contention_edge_read(&b);
    assert_int_equal(b.err, 0);
    struct bench__contention acc = {0};
    bench__contention_add(&acc, &a, &b);
    assert_int_equal(acc.err, 0);
    assert_true(b.own_ns > a.own_ns);
    double v = bench__contention_value(&acc, bench__ticks_per_s());
    assert_true(isnan(v) || (v >= 0 && v <= 1));
    struct bench__cpu_stat s;
    assert_int_equal(bench__cpu_stat_read(&s, true), 0);
    assert_true(s.cpus >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_stat_parse),
        cmocka_unit_test(test_span_rules),
        cmocka_unit_test(test_small_parsers),
        cmocka_unit_test_setup_teardown(test_edges_through_the_seam, setup, teardown),
        cmocka_unit_test_setup_teardown(test_environment_warns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_environment_quiet, setup, teardown),
        cmocka_unit_test_setup_teardown(test_environment_unknown, setup, teardown),
        cmocka_unit_test(test_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
