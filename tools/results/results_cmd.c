/* SPDX-License-Identifier: MIT */
/* results_cmd.c: owns `libbench results`: its command line (`rebuild`: the index recreated from
 * raw/ alone, results_ingest.c; `push DIR URL`: a local store's raw objects copied into a
 * PostgreSQL store, results_push.c) and its exit status (0 done, 1 it could not be, 2 usage). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_tool.h"
#include "common/args.h"
#include "common/output.h"
#include "util/text.h"

void results_usage(FILE *out)
{
    fputs(
        "usage: libbench results rebuild [--results DIR|URL]\n"
        "       libbench results push DIR postgresql://...\n"
        "\n"
        "rebuild: recreate the index DIR/index.sqlite from the raw objects under DIR/raw/\n"
        "alone: built in a file of its own, then put in place in one step; the same raw\n"
        "objects give the same index, whatever order they were recorded in. A damaged index\n"
        "(not a database, damaged pages, another schema, a directory, a symbolic link) is kept\n"
        "aside, under a name this prints. What cannot be read goes to DIR/ingest-errors/.\n"
        "With a postgresql:// URL, the index tables of that store are emptied and filled\n"
        "again from the raw objects on the server, in one transaction.\n"
        "\n"
        "push: copy every raw object of the local store DIR into the PostgreSQL store (those\n"
        "already there with the same bytes are left as they are: pushing again changes nothing).\n"
        "\n"
        "options:\n"
        "  --results DIR|URL  the store (default: $LIBBENCH_RESULTS, else results)\n"
        "  -h, --help         print this help and exit\n"
        "\n"
        "exit status: 0 done, 1 it could not be done, 2 a usage error\n",
        out);
}

/* `results rebuild`: dir as given, shown as messages name it (pg: a PostgreSQL store's URL). */
static int rebuild(const char *dir, const char *shown, bool pg)
{
    struct results_rebuilt o;
    char err[512];
    if (results_store_rebuild(dir, &o, err, sizeof err) != 0) {
        fprintf(stderr, "error: %s\n", err);
        free(o.aside);
        return 1;
    }
    if (pg)
        printf("rebuilt the index tables of %s from its %zu raw object%s", shown, o.objects,
               o.objects == 1 ? "" : "s");
    else
        printf("rebuilt %s/%s from %zu raw object%s", shown, RESULTS_INDEX_FILE, o.objects,
               o.objects == 1 ? "" : "s");
    if (o.rejected)
        printf(" (%zu line%s refused: see %s/ingest-errors/)", o.rejected,
               o.rejected == 1 ? "" : "s", shown);
    if (o.late)
        printf(" and %zu recorded while it ran", o.late);
    putchar('\n');
    if (o.aside) {
        char why[256];
        bench__sanitize_copy(o.why, why, sizeof why);
        printf("the damaged index (%s) is kept as %s/%s\n", why, shown, o.aside);
    }
    free(o.aside);
    return tool_stdout_finish() != 0 ? 1 : 0;
}

int results_main(int argc, char **argv)
{
    const char *dir = NULL, *sub = NULL, *operands[2] = {NULL, NULL};
    int n_operands = 0;
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
        if (!sub && (!strcmp(arg, "rebuild") || !strcmp(arg, "push"))) {
            sub = arg;
            continue;
        }
        if (sub && !strcmp(sub, "push") && n_operands < 2) {
            operands[n_operands++] = arg;
            continue;
        }
        return tool_usage_error("results", "unknown subcommand '%s' (rebuild, push)", arg);
    }
    if (!sub)
        return tool_usage_error("results", "missing the subcommand (rebuild, push)%s", "");
    if (!strcmp(sub, "push")) {
        if (dir)
            return tool_usage_error("results", "push takes DIR and URL, not --results%s", "");
        if (n_operands != 2)
            return tool_usage_error("results", "push needs DIR and a postgresql:// URL%s", "");
        enum results_location_kind from, to;
        if (results_location("results", operands[0], &from) != 0)
            return 2;
        if (from != RESULTS_LOCATION_DIRECTORY)
            return tool_usage_error("results", "push: DIR must be a local store's directory%s", "");
        if (results_location("results", operands[1], &to) != 0)
            return 2;
        if (to != RESULTS_LOCATION_POSTGRESQL)
            return tool_usage_error("results",
                                    "push: the second operand must be a postgresql:// "
                                    "URL%s",
                                    "");
        return results_push_main(operands[0], operands[1]);
    }
    if (!dir)
        dir = results_location_default(); /* LIBBENCH_RESULTS */
    enum results_location_kind kind;
    if (results_location("results", dir, &kind) != 0)
        return 2;
    if (!dir)
        dir = RESULTS_DEFAULT_DIR;
    char *shown = NULL; /* a URL: without its password */
#ifdef LIBBENCH_HAVE_PG
    if (kind == RESULTS_LOCATION_POSTGRESQL)
        shown = results_pg_redact(dir);
#endif
    int rc = rebuild(dir, shown ? shown : dir, shown != NULL);
    free(shown);
    return rc;
}
