/* SPDX-License-Identifier: MIT */
/* formats.c: owns the choice of the --bench-json document's format (--bench-format), the name a
 * row takes in the foreign formats, and writing the chosen one. It renders no format itself
 * (json.c, gbench.c and bmf.c do) and measures nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/atomic_file.h"
#include "../util/text.h"
#include "formats.h"
#include "json.h"

static const char *const names[] = {
    [BENCH__DOC_LIBBENCH] = "libbench",
    [BENCH__DOC_GBENCH] = "gbench",
    [BENCH__DOC_BMF] = "bmf",
};

int bench__doc_format_parse(const char *word, enum bench__doc_format *format)
{
    for (size_t i = 0; word && i < sizeof names / sizeof *names; i++)
        if (!strcmp(word, names[i])) {
            *format = (enum bench__doc_format)i;
            return 0;
        }
    return -1;
}

const char *bench__doc_format_name(enum bench__doc_format format)
{
    return (size_t)format < sizeof names / sizeof *names ? names[format] : "?";
}

static int fail(const char *path, int e, char *err, size_t err_size)
{
    if (err && err_size > 0) {
        char shown[400]; /* one line whatever the path holds; a longer one is cut, and marked */
        bench__sanitize_copy(path, shown, sizeof shown);
        bench__fmt(err, err_size, "cannot write '%s': %s", shown, bench__write_file_strerror(e));
    }
    return -e;
}

int bench__document_write(const struct bench__report *report, enum bench__doc_format format,
                          const char *path, char *err, size_t err_size)
{
    if (format == BENCH__DOC_LIBBENCH)
        return bench__json_write(report, path, err, err_size);
    if (!path)
        return fail("", EINVAL, err, err_size);
    if (!*path)
        return fail(path, ENOENT, err, err_size);
    char *data =
        format == BENCH__DOC_GBENCH ? bench__gbench_render(report) : bench__bmf_render(report);
    if (!data)
        return fail(path, ENOMEM, err, err_size);
    int e = bench__write_file(path, data, strlen(data));
    free(data);
    return e ? fail(path, e, err, err_size) : 0;
}
