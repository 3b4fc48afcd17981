/* SPDX-License-Identifier: MIT */
/* render_report_html.c: a test helper that renders a report document into the HTML dashboard
 * (tools/results/results_html.c), so tests can render fixtures without a results store. It only
 * reads the file and calls the renderer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results_html.h"

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: render_report_html REPORT.json OUT.html [CHART_JS]\n");
        return 2;
    }
    if (argc == 4)
        results_html_chartjs_path = argv[3];
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger)
                free(text);
            text = bigger;
        }
    }
    fclose(f);
    if (!text) {
        fprintf(stderr, "render_report_html: out of memory\n");
        return 1;
    }
    text[len] = '\0';
    char *error = NULL;
    int rc = results_html_write(text, argv[2], &error);
    if (rc != 0)
        fprintf(stderr, "render_report_html: %s\n", error);
    free(error);
    free(text);
    return rc == 0 ? 0 : 1;
}
