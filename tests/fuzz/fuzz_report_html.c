/* SPDX-License-Identifier: MIT */
/* fuzz_report_html.c: the libFuzzer target over the reader of the report document, the HTML
 * dashboard of `libbench report --html` (results/results_html.c): any text rendered into one page
 * or refused with one clean line. Chart.js is a stand-in of a few bytes. Seeds: the report
 * documents of tests/data/ (report-*.json). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "results/results_html.h"
#include "util/atomic_file.h"

static char chartjs[] = "/tmp/fuzz_report_html.chartjs.XXXXXX";

static void remove_chartjs(void)
{
    unlink(chartjs);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    int fd = mkstemp(chartjs);
    fuzz_invariant(fd >= 0, "a stand-in Chart.js file");
    static const char js[] = "/* Chart.js stand-in */ window.Chart = function () {};\n";
    fuzz_invariant(write(fd, js, sizeof js - 1) == (ssize_t)(sizeof js - 1), "it is written");
    close(fd);
    atexit(remove_chartjs);
    results_html_chartjs_path = chartjs;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct bench__text page = {0};
    char *error = NULL;
    int rc = results_html_render(text, &page, &error);
    if (rc != 0) {
        fuzz_invariant(rc == -1 && page.data == NULL, "a refusal returns -1 and no page");
        fuzz_check_message(error);
    } else {
        fuzz_invariant(error == NULL && page.len > 0, "a page and no error");
        fuzz_invariant(strstr(page.data, "</html>") != NULL, "the page is whole");
    }
    free(error);
    free(page.data);
    free(text);
    return 0;
}
