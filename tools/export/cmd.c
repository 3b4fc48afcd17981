/* SPDX-License-Identifier: MIT */
/* cmd.c: owns `libbench export`: its command line, reading the document, the table on
 * standard output and the exit status (0 written, 1 a document or output problem, 2 usage). It
 * measures and compares nothing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "common/args.h"
#include "util/text.h"

void export_usage(FILE *out)
{
    fputs("usage: libbench export --format=csv|markdown DOC.json\n"
          "\n"
          "Write the rows of a libbench document (what --bench-json or `libbench run --json`\n"
          "wrote) as a table on standard output: CSV for a spreadsheet (ns and the metrics'\n"
          "units, an empty field where nothing was measured), or a Markdown table for a\n"
          "pull-request comment (numbers as libbench's tables show them, an em dash where\n"
          "nothing was measured). Never a 0 for a value that was not measured.\n"
          "\n"
          "options:\n"
          "  --format FORMAT     csv or markdown (required)\n"
          "  -h, --help          print this help and exit\n"
          "\n"
          "exit status: 0 written, 1 the document could not be read or the output written,\n"
          "2 a usage error\n",
          out);
}

int export_main(int argc, char **argv)
{
    const char *format = NULL, *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            export_usage(stdout);
            return 0;
        }
        if (tool_option_is(arg, "--format", &value)) {
            tool_take_value(argc, argv, &i, &value);
            if (!value)
                return tool_usage_error("export", "--format needs a value (csv or markdown)%s", "");
            if (format)
                return tool_usage_error("export", "--format given more than once%s", "");
            if (strcmp(value, "csv") && strcmp(value, "markdown"))
                return tool_usage_error("export", "--format: unknown format '%s' (csv or markdown)",
                                        value);
            format = value;
            continue;
        }
        if (!strcmp(arg, "--") && i + 1 < argc) {
            arg = argv[++i];
        } else if (tool_looks_like_option(arg)) {
            return tool_usage_error("export", "unknown option '%s'", arg);
        }
        if (path)
            return tool_usage_error("export", "one document only, not also '%s'", arg);
        path = arg;
    }
    if (!format)
        return tool_usage_error("export", "missing --format (csv or markdown)%s", "");
    if (!path)
        return tool_usage_error("export", "missing the document (DOC.json)%s", "");

    struct export_doc doc;
    char err[512];
    if (export_doc_load(path, &doc, err, sizeof err) != 0) {
        char shown[256];
        bench__sanitize_copy(path, shown, sizeof shown);
        fprintf(stderr, "error: %s: %s\n", shown, err);
        export_doc_free(&doc);
        return 1;
    }
    if (!strcmp(format, "csv"))
        export_csv(&doc, stdout);
    else
        export_markdown(&doc, stdout);
    export_doc_free(&doc);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "error: cannot write the table: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
