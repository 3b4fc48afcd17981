/* SPDX-License-Identifier: MIT */
/* grown.c: a descriptor, option structs, a case definition and its label and metric elements
 * each one field larger than this libbench's, as a program built against a later header passes
 * them, through the real entry points (bench_register, bench_main, bench_case). GROWN_TAIL names
 * the struct whose appended field is set non-zero (test, benchmark, workload, case, label or
 * metric); unset, every appended field is zero and everything must be accepted, run and
 * measured. With GROWN_SMOKE=<name>, the program
 * prints what bench_smoke(<name>) returns instead. Driven by run_abi.py. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bench/shim.h>

/* Today's struct followed by one appended field: the layout of a later version of it. */
struct grown_test {
    struct bench_test now;
    uint64_t appended;
};
struct grown_benchmark_opts {
    struct bench_benchmark_opts now;
    uint64_t appended;
};
struct grown_workload_opts {
    struct bench_workload_opts now;
    uint64_t appended;
};
struct grown_case_def {
    struct bench_case_def now;
    uint64_t appended;
};
/* Array elements: their stride is the definition's label_size / metric_size. */
struct grown_label {
    struct bench_label now;
    uint64_t appended;
};
struct grown_metric {
    struct bench_metric now;
    uint64_t appended;
};

static int tail_set(const char *which)
{
    const char *tail = getenv("GROWN_TAIL");
    return tail && !strcmp(tail, which);
}

/* ---- a case definition, from a plain test (inert) and from a benchmark (measured) ---------- */

static unsigned calls; /* timed calls made inertly, outside --bench */

struct counter {
    uint64_t value;
};

static void count_timed(void *state)
{
    struct counter *c = state;
    c->value = c->value * 3 + 1;
    bench_do_not_optimize(c->value);
    calls++;
}

static int grown_case(bench_t *b)
{
    static struct grown_label labels[2];
    static struct grown_metric metrics[2];
    memset(labels, 0, sizeof labels);
    memset(metrics, 0, sizeof metrics);
    labels[0].now = (struct bench_label){"abi", "grown"};
    labels[1].now = (struct bench_label){"stride", "wide"};
    labels[1].appended = tail_set("label") ? 1 : 0;
    metrics[0].now = (struct bench_metric){"items", 8, BENCH_RATE};
    metrics[1].now = (struct bench_metric){"depth", 5, BENCH_LEVEL};
    metrics[1].appended = tail_set("metric") ? 1 : 0;
    struct counter state = {1};
    struct grown_case_def def;
    memset(&def, 0, sizeof def);
    def.now = (struct bench_case_def){.size = sizeof def,
                                      .name = "grown_case",
                                      .labels = &labels[0].now,
                                      .n_labels = 2,
                                      .state = &state,
                                      .state_size = sizeof state,
                                      .timed = count_timed,
                                      .metrics = &metrics[0].now,
                                      .n_metrics = 2,
                                      .iterations = 16,
                                      .label_size = sizeof labels[0],
                                      .metric_size = sizeof metrics[0]};
    def.appended = tail_set("case") ? 1 : 0;
    return bench_case(b, &def.now);
}

/* A refused definition: the case itself, or one of its elements. */
static bool case_refused(void)
{
    return tail_set("case") || tail_set("label") || tail_set("metric");
}

static void plain_body(bench_t *b)
{
    calls = 0;
    int rc = grown_case(b);
    if (case_refused()) {
        BENCH_CHECK(rc == BENCH_ESTRUCT);
        BENCH_CHECK(calls == 0);
    } else {
        BENCH_CHECK(rc == 0);
        BENCH_CHECK(calls == 1); /* run once, inertly */
    }
}

static void matrix_body(bench_t *b)
{
    int rc = grown_case(b);
    BENCH_CHECK(rc == (case_refused() ? BENCH_ESTRUCT : 0));
}

/* ---- a batched benchmark with pinned iterations, and a workload with repetitions ----------- */

static void measured_body(bench_t *b)
{
    uint64_t x = 1;
    BENCH_ITER(b)
    {
        x = x * 7 + 3;
        bench_do_not_optimize(x);
    }
}

static void window_body(bench_t *b)
{
    uint64_t x = 1;
    WORKLOAD_WINDOW(b, "step")
    {
        for (int i = 0; i < 1000; i++) {
            x = x * 5 + 1;
            bench_do_not_optimize(x);
        }
    }
}

/* ---- the descriptors ------------------------------------------------------------------------ */

static struct grown_benchmark_opts measured_opts, matrix_opts;
static struct grown_workload_opts window_opts;
static struct grown_test plain, measured, matrix, window;

static void describe(struct grown_test *t, uint32_t kind, const char *name, uint32_t line,
                     void (*fn)(bench_t *))
{
    memset(t, 0, sizeof *t);
    t->now = (struct bench_test){.size = sizeof *t,
                                 .kind = kind,
                                 .name = name,
                                 .file = __FILE__,
                                 .line = line,
                                 .build = BENCH__BUILD_NDEBUG | BENCH__BUILD_OPTIMIZED,
                                 .compiler = BENCH__COMPILER,
                                 .fn = fn};
}

__attribute__((constructor)) static void register_grown(void)
{
    describe(&plain, BENCH_KIND_TEST, "plain", __LINE__, plain_body);
    plain.appended = tail_set("test") ? 1 : 0;

    memset(&measured_opts, 0, sizeof measured_opts);
    measured_opts.now =
        (struct bench_benchmark_opts){.size = sizeof measured_opts, .iterations = 64};
    measured_opts.appended = tail_set("benchmark") ? 1 : 0;
    describe(&measured, BENCH_KIND_BENCHMARK, "measured", __LINE__, measured_body);
    measured.now.benchmark = &measured_opts.now;

    memset(&matrix_opts, 0, sizeof matrix_opts);
    matrix_opts.now = (struct bench_benchmark_opts){.size = sizeof matrix_opts};
    describe(&matrix, BENCH_KIND_BENCHMARK, "matrix", __LINE__, matrix_body);
    matrix.now.benchmark = &matrix_opts.now;

    memset(&window_opts, 0, sizeof window_opts);
    window_opts.now = (struct bench_workload_opts){.size = sizeof window_opts, .reps = 3};
    window_opts.appended = tail_set("workload") ? 1 : 0;
    describe(&window, BENCH_KIND_WORKLOAD, "window", __LINE__, window_body);
    window.now.workload = &window_opts.now;

    bench_register(&plain.now);
    bench_register(&measured.now);
    bench_register(&matrix.now);
    bench_register(&window.now);
}

int main(int argc, char **argv)
{
    const char *smoke = getenv("GROWN_SMOKE");
    if (smoke) {
        int rc = bench_smoke(smoke);
        printf("bench_smoke(%s) = %d%s\n", smoke, rc,
               rc == BENCH_ESTRUCT ? " (BENCH_ESTRUCT)" : "");
        return 0;
    }
    return bench_main(argc, argv);
}
