/* SPDX-License-Identifier: MIT */
/* libbench.c: owns the `libbench` command-line tool's entry point: subcommand dispatch,
 * --help and --version. Each subcommand lives in its own files (run_*.c, compare_*.c, export_*.c).
 */
#include <stdio.h>
#include <string.h>

#include <bench/bench.h>

#include "compare_tool.h"
#include "export_tool.h"
#include "run_tool.h"
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
    char shown[128];
    bench__sanitize_copy(cmd, shown, sizeof shown);
    if (cmd[0] == '-')
        fprintf(stderr, "error: unknown option '%s' (see libbench --help)\n", shown);
    else
        fprintf(stderr, "error: unknown command '%s' (see libbench --help)\n", shown);
    return 2;
}
