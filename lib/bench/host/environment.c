/* SPDX-License-Identifier: MIT */
/* environment.c: owns the once-per-run check of the environment (see environment.h): what it
 * reads (through the fault-injection seam), what it records for the document's meta and the
 * warnings it prints. It measures nothing and never stops a run: an unreadable setting is
 * unknown, with its reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../platform/os.h"
#include "../../sources/perf_group.h"
#include "../../sources/source.h"
#include "../../util/alloc.h"
#include "../../util/text.h"
#include "contention.h"
#if BENCH__LINUX
#include <linux/perf_event.h>
#endif
#include "environment.h"

#define MAX_GOVERNOR_CPUS 256 /* a larger machine is judged by its first 256 CPUs */

/* ---- the parsers (pure) ------------------------------------------------------------------ */

double bench__loadavg_parse(const char *text)
{
    if (!text)
        return NAN;
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0) || !isfinite(v) || (*end != ' ' && *end != '\n'))
        return NAN;
    return v;
}

int bench__cpuinfo_hypervisor(const char *text)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            return -1; /* a torn line says nothing */
        if (!strncmp(line, "flags", 5)) {
            const char *colon = memchr(line, ':', (size_t)(end - line));
            if (!colon)
                return -1;
            for (const char *p = colon + 1; p < end;) {
                while (p < end && (*p == ' ' || *p == '\t'))
                    p++;
                const char *word = p;
                while (p < end && *p != ' ' && *p != '\t')
                    p++;
                if (p - word == 10 && !memcmp(word, "hypervisor", 10))
                    return 1;
            }
            return 0;
        }
        line = end + 1;
    }
    return -1;
}

/* ---- recording ---------------------------------------------------------------------------- */

static BENCH_PRINTF(3, 4) void warn(struct bench__environment *env, FILE *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = bench__xvasprintf(fmt, ap);
    va_end(ap);
    fprintf(err, "warning: %s\n", line);
    env->warnings = bench__xrealloc(env->warnings, (env->n_warnings + 1) * sizeof *env->warnings);
    env->warnings[env->n_warnings++] = line;
}

static BENCH_PRINTF(3, 4) void unknown(struct bench__environment *env, const char *key,
                                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = bench__xvasprintf(fmt, ap);
    va_end(ap);
    env->unknown = bench__xrealloc(env->unknown, (env->n_unknown + 1) * sizeof *env->unknown);
    env->unknown[env->n_unknown++] = (struct bench__kv){bench__xstrdup(key), why};
}

/* A small /sys or /proc file's first line (newline dropped) into buf: 0 or -errno. */
static int read_line(const char *path, char *buf, size_t size)
{
    ssize_t n = bench__os_read_file(path, buf, size);
    if (n < 0)
        return (int)n;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* ---- the checks ----------------------------------------------------------------------------- */

static void check_governor(struct bench__environment *env, FILE *err)
{
    unsigned cpus = env->cpus ? env->cpus : 1;
    if (cpus > MAX_GOVERNOR_CPUS)
        cpus = MAX_GOVERNOR_CPUS;
    char seen[8][64]; /* the distinct governors, first seen first */
    size_t n_seen = 0;
    bool slow = false;
    for (unsigned c = 0; c < cpus; c++) {
        char path[96], value[64];
        bench__fmt(path, sizeof path, "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_governor", c);
        int rc = read_line(path, value, sizeof value);
        if (rc < 0 && c == 0) {
            unknown(env, "governor",
                    "%s: %s (no cpufreq driver: the hypervisor or the firmware sets the clock)",
                    path, strerror(-rc));
            return;
        }
        if (rc < 0)
            continue; /* an offline CPU */
        slow |= strcmp(value, "performance") != 0;
        bool known = false;
        for (size_t i = 0; i < n_seen && !known; i++)
            known = !strcmp(seen[i], value);
        if (!known && n_seen < sizeof seen / sizeof seen[0])
            memcpy(seen[n_seen++], value, sizeof value);
    }
    char list[8 * 65] = "";
    for (size_t i = 0; i < n_seen; i++) {
        if (i)
            strcat(list, ",");
        strcat(list, seen[i]);
    }
    env->governor = bench__xstrdup(list);
    if (slow)
        warn(env, err,
             "environment: the CPU frequency governor is '%s' — the clock may change between "
             "samples; for steady numbers set 'performance' (sudo cpupower frequency-set -g "
             "performance)",
             env->governor);
}

static void check_boost(struct bench__environment *env, FILE *err)
{
    static const char no_turbo[] = "/sys/devices/system/cpu/intel_pstate/no_turbo";
    static const char boost[] = "/sys/devices/system/cpu/cpufreq/boost";
    char value[16];
    const char *path = no_turbo, *off = "1";
    int rc = read_line(no_turbo, value, sizeof value);
    if (rc == 0)
        env->boost = !strcmp(value, "0");
    else {
        path = boost;
        off = "0";
        rc = read_line(boost, value, sizeof value);
        if (rc == 0)
            env->boost = !strcmp(value, "1");
    }
    if (rc < 0) {
        env->boost = -1;
        unknown(env, "boost", "%s and %s: %s", no_turbo, boost, strerror(-rc));
        return;
    }
    if (env->boost)
        warn(env, err,
             "environment: CPU boost (turbo) is on — the clock follows temperature and load; for "
             "steady numbers turn it off (echo %s | sudo tee %s)",
             off, path);
}

static void check_build(struct bench__environment *env, const struct bench__suite *suite, FILE *err)
{
    env->build = "optimized";
    for (size_t i = 0; i < suite->count; i++) {
        const struct bench_test *t = suite->entries[i].test;
        unsigned want = BENCH_BUILD_NDEBUG | BENCH_BUILD_OPTIMIZED;
        if (t->kind == BENCH_KIND_TEST || (t->build & want) == want)
            continue;
        bool unoptimized = !(t->build & BENCH_BUILD_OPTIMIZED);
        env->build = unoptimized ? "unoptimized" : "asserts";
        warn(env, err,
             "%s was compiled %s — benchmark numbers may be meaningless; build with "
             "optimization and -DNDEBUG (e.g. meson --buildtype=release)",
             t->file, unoptimized ? "without optimization" : "without NDEBUG (asserts enabled)");
        return;
    }
}

static void check_pmu(struct bench__environment *env, FILE *err)
{
    char cpuinfo[16384];
    ssize_t n = bench__os_read_file("/proc/cpuinfo", cpuinfo, sizeof cpuinfo);
    env->hypervisor = n < 0 ? -1 : bench__cpuinfo_hypervisor(cpuinfo);
    if (env->hypervisor < 0)
        unknown(env, "hypervisor", "/proc/cpuinfo: %s",
                n < 0 ? strerror((int)-n) : "no flags line");

#if !BENCH__LINUX
    env->hardware_pmu = -1;
    unknown(env, "hardwarePmu", BENCH__OFF_PLATFORM " (perf_event_open is Linux's)");
#else
    /* one user-space cycle counter of this process, opened disabled and closed at once */
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_CPU_CYCLES;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    int fd = bench__os.perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    int e = errno;
    if (fd >= 0) {
        bench__os.close(fd);
        env->hardware_pmu = 1;
        return;
    }
    const char *name = bench__perf_errno_name(e);
    char errname[32];
    bench__fmt(errname, sizeof errname, "%s", name ? name : "an error");
    if (e != ENOENT && e != EOPNOTSUPP && e != ENODEV) {
        env->hardware_pmu = -1;
        unknown(env, "hardwarePmu", "perf_event_open(cycles): %s (%s)", errname, strerror(e));
        return;
    }
    env->hardware_pmu = 0;
    warn(env, err,
         "environment: no hardware PMU (perf_event_open(cycles): %s%s) — hardware counters "
         "(--perf) cannot be read; run on bare metal, or give the virtual machine a PMU (KVM: "
         "-cpu host)",
         errname, env->hypervisor == 1 ? "; the CPU reports a hypervisor: a virtual machine" : "");
#endif
}

static void check_load(struct bench__environment *env, FILE *err)
{
    char text[128];
    ssize_t n = bench__os_read_file("/proc/loadavg", text, sizeof text);
    env->load_avg = n < 0 ? NAN : bench__loadavg_parse(text);
    if (isnan(env->load_avg)) {
        unknown(env, "loadAverage", "/proc/loadavg: %s",
                n < 0 ? strerror((int)-n) : "not a load average");
        return;
    }
    if (env->cpus == 0 || env->load_avg < BENCH__LOAD_WARNING_PER_CPU * env->cpus)
        return;
    warn(env, err,
         "environment: the load average is %.2f on %u CPUs at start — other processes compete "
         "for the CPUs; measure on a quieter machine, and read each row's contention (a † in "
         "the table)",
         env->load_avg, env->cpus);
}

void bench__environment_check(struct bench__environment *env, const struct bench__suite *suite,
                              FILE *err)
{
    memset(env, 0, sizeof *env);
    env->boost = env->hardware_pmu = env->hypervisor = -1;
    env->load_avg = NAN;
    check_build(env, suite, err); /* first: the warning a run has always begun with */
    struct bench__cpu_stat stat;
    int rc = bench__cpu_stat_read(&stat, true);
    if (rc == 0 && stat.cpus > 0)
        env->cpus = stat.cpus;
    else
        unknown(env, "cpus", "/proc/stat: %s", rc < 0 ? strerror(-rc) : "no cpuN line");
    check_governor(env, err);
    check_boost(env, err);
    check_pmu(env, err);
    check_load(env, err);
}

void bench__environment_free(struct bench__environment *env)
{
    free(env->governor);
    for (size_t i = 0; i < env->n_warnings; i++)
        free(env->warnings[i]);
    free(env->warnings);
    for (size_t i = 0; i < env->n_unknown; i++) {
        free(env->unknown[i].key);
        free(env->unknown[i].value);
    }
    free(env->unknown);
    memset(env, 0, sizeof *env);
}
