/* SPDX-License-Identifier: MIT */
/* results_cmd.c: owns `libbench results`: its command line (`rebuild`: the index recreated from
 * raw/ alone, results_store.c) and its exit status (0 rebuilt, 1 it could not be, 2 usage). */
#include <stdio.h>
#include <string.h>

#include "results_tool.h"
#include "common/args.h"
#include "util/text.h"

void results_usage(FILE *out)
{
    fputs("usage: libbench results rebuild [--results DIR]\n"
          "\n"
          "Recreate the index DIR/index.sqlite from the raw objects under DIR/raw/ alone, in\n"
          "one transaction: the same raw objects give the same index, whatever order they were\n"
          "recorded in. Lines that cannot be read go to DIR/ingest-errors/.\n"
          "\n"
          "options:\n"
          "  --results DIR   the store (default: results)\n"
          "  -h, --help      print this help and exit\n"
          "\n"
          "exit status: 0 rebuilt, 1 it could not be rebuilt, 2 a usage error\n",
          out);
}

int results_main(int argc, char **argv)
{
    const char *dir = NULL;
    bool rebuild = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            results_usage(stdout);
            return 0;
        }
        if (tool_option_is(arg, "--results", &value)) {
            tool_take_value(argc, argv, &i, &value);
            if (!value)
                return tool_usage_error("results", "--results needs a value%s", "");
            if (dir)
                return tool_usage_error("results", "--results given more than once%s", "");
            dir = value;
            continue;
        }
        if (tool_looks_like_option(arg))
            return tool_usage_error("results", "unknown option '%s'", arg);
        if (!strcmp(arg, "rebuild") && !rebuild) {
            rebuild = true;
            continue;
        }
        return tool_usage_error("results", "unknown subcommand '%s' (rebuild)", arg);
    }
    if (!rebuild)
        return tool_usage_error("results", "missing the subcommand (rebuild)%s", "");
    if (!dir)
        dir = RESULTS_DEFAULT_DIR;
    size_t objects, rejected;
    char err[512];
    if (results_store_rebuild(dir, &objects, &rejected, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    printf("rebuilt %s/index.sqlite from %zu raw object%s", dir, objects, objects == 1 ? "" : "s");
    if (rejected)
        printf(" (%zu line%s refused: see %s/ingest-errors/)", rejected, rejected == 1 ? "" : "s",
               dir);
    putchar('\n');
    return 0;
}
