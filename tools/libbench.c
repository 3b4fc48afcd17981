/* SPDX-License-Identifier: MIT */
/* libbench.c: owns the `libbench` command-line tool's entry point: subcommand dispatch,
 * --help and --version. Each subcommand lives in its own files (run_*.c, compare_*.c, export_*.c).
 */
#include <stdio.h>
#include <string.h>

#include <bench/bench.h>

#include "compare/compare.h"
#include "export/export.h"
#include "run/run.h"
#ifdef LIBBENCH_HAVE_RESULTS
#include "results/results_tool.h"
#endif
#include "util/text.h"

static void usage(FILE *out)
{
    fputs("usage: libbench COMMAND [ARGS...]\n"
          "\n"
          "commands:\n"
          "  run         measure whole processes: wall time and rusage of each run of one or\n"
          "              more commands, interleaved; median, MAD, min, max\n"
          "  compare     compare two builds (or their --bench-json documents, or two commands)\n"
          "              with an A/A control: per-cell deltas, confidence intervals, a verdict\n"
          "  export      write a document's rows as CSV or a Markdown table on standard output\n"
          "  record      keep a run's documents in the results store (raw JSONL and an index)\n"
          "  report      the recorded runs compared: each row's state, sorted worst first\n"
          "  results     the results store itself: `results rebuild` recreates its index\n"
          "\n"
          "  libbench --help       print this help and exit\n"
          "  libbench --version    print the libbench version and exit\n"
          "\n",
          out);
    run_usage(out);
    fputs("\n", out);
    compare_usage(out);
    fputs("\n", out);
    export_usage(out);
#ifdef LIBBENCH_HAVE_RESULTS
    fputs("\n", out);
    record_usage(out);
    fputs("\n", out);
    report_usage(out);
    fputs("\n", out);
    results_usage(out);
#endif
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("error: missing command (see libbench --help)\n", stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("libbench %s\n", bench_version_string());
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return run_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return compare_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "export"))
        return export_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "record") || !strcmp(cmd, "report") || !strcmp(cmd, "results")) {
#ifdef LIBBENCH_HAVE_RESULTS
        if (!strcmp(cmd, "record"))
            return record_main(argc - 1, argv + 1);
        if (!strcmp(cmd, "report"))
            return report_main(argc - 1, argv + 1);
        return results_main(argc - 1, argv + 1);
#else
        fprintf(stderr, "error: libbench %s is not built: %s\n", cmd, LIBBENCH_RESULTS_MISSING);
        return 2;
#endif
    }
    char shown[128];
    bench__sanitize_copy(cmd, shown, sizeof shown);
    if (cmd[0] == '-')
        fprintf(stderr, "error: unknown option '%s' (see libbench --help)\n", shown);
    else
        fprintf(stderr, "error: unknown command '%s' (see libbench --help)\n", shown);
    return 2;
}
