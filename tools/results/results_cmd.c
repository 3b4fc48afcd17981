/* SPDX-License-Identifier: MIT */
/* results_cmd.c: owns `libbench results`: its command line (`rebuild`: the index recreated from
 * raw/ alone, results_ingest.c) and its exit status (0 rebuilt, 1 it could not be, 2 usage). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_tool.h"
#include "common/args.h"
#include "common/output.h"
#include "util/text.h"

void results_usage(FILE *out)
{
    fputs("usage: libbench results rebuild [--results DIR]\n"
          "\n"
          "Recreate the index DIR/index.sqlite from the raw objects under DIR/raw/ alone: built\n"
          "in a file of its own, then put in place in one step; the same raw objects give the\n"
          "same index, whatever order they were recorded in. A damaged index (not a database,\n"
          "damaged pages, another schema, a directory, a symbolic link) is kept aside, under a\n"
          "name this prints. What cannot be read goes to DIR/ingest-errors/.\n"
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
    enum results_location_kind kind;
    if (results_location("results", dir, &kind) != 0)
        return 2;
    if (!dir)
        dir = RESULTS_DEFAULT_DIR;
    struct results_rebuilt o;
    char err[512];
    if (results_store_rebuild(dir, &o, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        free(o.aside);
        return 1;
    }
    printf("rebuilt %s/%s from %zu raw object%s", dir, RESULTS_INDEX_FILE, o.objects,
           o.objects == 1 ? "" : "s");
    if (o.rejected)
        printf(" (%zu line%s refused: see %s/ingest-errors/)", o.rejected,
               o.rejected == 1 ? "" : "s", dir);
    if (o.late)
        printf(" and %zu recorded while it ran", o.late);
    putchar('\n');
    if (o.aside) {
        char why[256];
        bench__sanitize_copy(o.why, why, sizeof why);
        printf("the damaged index (%s) is kept as %s/%s\n", why, dir, o.aside);
    }
    free(o.aside);
    return tool_stdout_finish() != 0 ? 1 : 0;
}
