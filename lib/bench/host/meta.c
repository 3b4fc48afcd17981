/* SPDX-License-Identifier: MIT */
/* meta.c: owns the facts about the host and the build that the JSON meta records (date,
 * hostname, os, arch, compiler, cpu). It reads /proc/cpuinfo once and measures nothing. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../util/alloc.h"
#include "meta.h"

static char *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    char *model = NULL;
    while (f && !model && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        v += strspn(v, " \t");
        v[strcspn(v, "\n")] = '\0';
        model = bench__xstrdup(v);
    }
    if (f)
        fclose(f);
    return model ? model : bench__xstrdup("");
}

void bench__meta_collect(struct bench__meta *meta, const struct bench__suite *suite,
                         uint64_t min_time_ms)
{
    memset(meta, 0, sizeof *meta);
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(meta->date, sizeof meta->date, "%Y-%m-%d", &tm);
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    meta->hostname = bench__xstrdup(host);
#if defined(__linux__)
    meta->os = "linux";
#elif defined(__APPLE__)
    meta->os = "macos";
#elif defined(_WIN32)
    meta->os = "windows";
#elif defined(__unix__)
    meta->os = "posix";
#else
    meta->os = "unknown";
#endif
#if defined(__x86_64__)
    meta->arch = "x86_64";
#elif defined(__aarch64__)
    meta->arch = "aarch64";
#elif defined(__i386__)
    meta->arch = "x86";
#else
    meta->arch = "unknown";
#endif
    const char *compiler = "";
    for (size_t i = 0; i < suite->count && !*compiler; i++)
        if (suite->entries[i].test->kind != BENCH_KIND_TEST && suite->entries[i].test->compiler)
            compiler = suite->entries[i].test->compiler;
    meta->compiler = bench__xstrdup(compiler);
    meta->cpu = cpu_model();
    meta->online_cpus = sysconf(_SC_NPROCESSORS_ONLN);
    meta->min_time_ms = min_time_ms;
    meta->clock_overhead_ns = NAN;
}

void bench__meta_free(struct bench__meta *meta)
{
    free(meta->hostname);
    free(meta->compiler);
    free(meta->cpu);
    for (size_t i = 0; i < meta->n_provenance; i++)
        free(meta->provenance[i]);
    free(meta->provenance);
    memset(meta, 0, sizeof *meta);
}
