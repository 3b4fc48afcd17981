/* SPDX-License-Identifier: MIT */
/* history.c: a small nightly suite for the results history's end-to-end test (run_results.py,
 * case html) and the tutorial's simulated week (docs/tutorials/week.sh). Four benchmarks doing
 * real work; two environment variables break them on purpose, as a bad commit would:
 *   HISTORY_SLOW=NAME[,NAME...]  those benchmarks do HISTORY_SLOW_FACTOR times the work
 *                                (default 8): a real slowdown, measured as such;
 *   HISTORY_FAIL=NAME[,NAME...]  those benchmarks fail a check, so their row is an error row.
 * Nothing else changes between runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bench/shim.h>

/* Whether name is one of the comma-separated names of the environment variable var. */
static int named_in(const char *var, const char *name)
{
    const char *list = getenv(var);
    size_t len = strlen(name);
    while (list && *list) {
        const char *end = strchr(list, ',');
        size_t n = end ? (size_t)(end - list) : strlen(list);
        if (n == len && !memcmp(list, name, n))
            return 1;
        list = end ? end + 1 : NULL;
    }
    return 0;
}

/* How many times a benchmark repeats its work: 1, or the slowdown factor when it is slowed. */
static unsigned work_factor(const char *name)
{
    if (!named_in("HISTORY_SLOW", name))
        return 1;
    const char *f = getenv("HISTORY_SLOW_FACTOR");
    long v = f ? strtol(f, NULL, 10) : 8;
    return v >= 1 && v <= 1000 ? (unsigned)v : 8;
}

static unsigned char buffer[4096];

static void fill(void)
{
    for (size_t i = 0; i < sizeof buffer; i++)
        buffer[i] = (unsigned char)(i * 131 + 7);
}

/* FNV-1a over 4 KiB. */
BENCHMARK(checksum)
{
    fill();
    unsigned factor = work_factor("checksum");
    BENCH_CHECK(!named_in("HISTORY_FAIL", "checksum"));
    BENCH_ITER(b)
    {
        uint32_t h = 2166136261u;
        for (unsigned k = 0; k < factor; k++)
            for (size_t i = 0; i < sizeof buffer; i++)
                h = (h ^ buffer[i]) * 16777619u;
        bench_do_not_optimize(h);
    }
}

/* Decimal numbers parsed out of a line of text. */
BENCHMARK(parse)
{
    static const char line[] = "12 345 6789 10 111213 14 1516 17181920 21 2223 24252627 28";
    unsigned factor = work_factor("parse");
    BENCH_CHECK(!named_in("HISTORY_FAIL", "parse"));
    BENCH_ITER(b)
    {
        unsigned long sum = 0;
        for (unsigned k = 0; k < factor; k++) {
            const char *p = line;
            while (*p) {
                char *end;
                sum += strtoul(p, &end, 10);
                p = *end ? end + 1 : end;
            }
        }
        bench_do_not_optimize(sum);
    }
}

/* Insertion sort of 64 integers in reverse order. */
BENCHMARK(sort)
{
    unsigned factor = work_factor("sort");
    BENCH_CHECK(!named_in("HISTORY_FAIL", "sort"));
    BENCH_ITER(b)
    {
        int v[64];
        for (unsigned k = 0; k < factor; k++) {
            for (int i = 0; i < 64; i++)
                v[i] = 64 - i;
            for (int i = 1; i < 64; i++) {
                int x = v[i], j = i - 1;
                while (j >= 0 && v[j] > x) {
                    v[j + 1] = v[j];
                    j--;
                }
                v[j + 1] = x;
            }
            bench_do_not_optimize(v[0]);
        }
    }
}

/* A byte histogram of 4 KiB. */
BENCHMARK(histogram)
{
    fill();
    unsigned factor = work_factor("histogram");
    BENCH_CHECK(!named_in("HISTORY_FAIL", "histogram"));
    BENCH_ITER(b)
    {
        uint32_t counts[256] = {0};
        for (unsigned k = 0; k < factor; k++)
            for (size_t i = 0; i < sizeof buffer; i++)
                counts[buffer[i]]++;
        bench_do_not_optimize(counts[7]);
    }
}

BENCH_MAIN()
