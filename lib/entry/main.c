/* SPDX-License-Identifier: MIT */
/* main.c: owns the program entry points (bench_main, bench_dispatch), the order in which
 * a run is decided (parse, help/version, load the suite, the checks before anything runs,
 * filter, list, bench, test). The version and error-message queries are lib/util's
 * (version.c, errors.c), where every layer may call them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../bench/measuring/run.h"
#include "../bench/supervising/run.h"
#include "../testmode/runner.h"
#include "cli.h"
#include "preflight.h"

/* What nobody received is no success: a write to stdout that failed (a full disk, /dev/full, a
 * closed descriptor), at the end or earlier, is said in one line, and a run that had not failed
 * exits 1 (docs/reference/cli.md, "Errors and exit status"). */
static int stdout_status(int status)
{
    errno = 0;
    int flushed = fflush(stdout);
    int e = errno;
    if (flushed == 0 && !ferror(stdout))
        return status;
    fprintf(stderr, "error: cannot write standard output: %s\n",
            e ? strerror(e) : "an earlier write failed");
    return status ? status : 1;
}

int bench_main(int argc, char **argv)
{
    struct bench__config cfg;
    char err[BENCH__ERROR_MAX];
    if (bench__config_parse(&cfg, argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s (see --help)\n", err);
        return 2;
    }
    int status = 0;
    if (cfg.help) {
        bench__print_usage(stdout, cfg.argv0);
        goto done;
    }
    if (cfg.version) {
        printf("libbench %s\n", bench_version_string());
        goto done;
    }
    struct bench__suite suite;
    if (bench__suite_load(&suite, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        status = 2;
        goto done;
    }
    status = bench__preflight(&cfg, &suite, stderr);
    if (status != 0) {
        bench__suite_free(&suite);
        goto done;
    }
    bench__suite_filter(&suite, &cfg);
    if (cfg.list)
        status = bench__list_tests(&suite, stdout);
    else if (cfg.bench && cfg.bench_serve)
        status = bench__serve(&cfg, &suite);
    else if (cfg.bench || cfg.list_metrics || cfg.metrics_help)
        status = bench__run_bench(&cfg, &suite);
    else
        status = bench__run_tests(&cfg, &suite);
    bench__suite_free(&suite);
done:
    status = stdout_status(status);
    bench__config_free(&cfg);
    return status;
}

int bench_dispatch(int argc, char **argv)
{
    if (!bench__argv_wants_bench(argc, argv))
        return BENCH_NOT_DISPATCHED;
    return bench_main(argc, argv);
}
