/* SPDX-License-Identifier: MIT */
/* formats.h: the formats of the --bench-json document (--bench-format): libbench's own (json.h),
 * Google Benchmark's JSON and Bencher's BMF. docs/reference/formats.md says what each holds. */
#ifndef BENCH_REPORT_FORMATS_H
#define BENCH_REPORT_FORMATS_H

#include <stddef.h>

#include "../model/report.h"

/* The format a --bench-format word names ("libbench", "gbench", "bmf"): 0, or -1 for another
 * word. The word of a format. */
BENCH__HIDDEN int bench__doc_format_parse(const char *word, enum bench__doc_format *format);
BENCH__HIDDEN const char *bench__doc_format_name(enum bench__doc_format format);

/* The documents as text (malloc'd, ends with a newline); NULL when out of memory. */
BENCH__HIDDEN char *bench__gbench_render(const struct bench__report *report);
BENCH__HIDDEN char *bench__bmf_render(const struct bench__report *report);

/* Write the document in `format` to path, as bench__json_write does (atomically; on failure the
 * target is untouched and err holds the reason). Returns 0 or a negative errno. */
BENCH__HIDDEN int bench__document_write(const struct bench__report *report,
                                        enum bench__doc_format format, const char *path, char *err,
                                        size_t err_size);

#endif /* BENCH_REPORT_FORMATS_H */
