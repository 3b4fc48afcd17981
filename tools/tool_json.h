/* SPDX-License-Identifier: MIT */
/* tool_json.h: how the commands of the `libbench` tool print a JSON document: jansson's text,
 * indented by 2, keys in insertion order, every real in its shortest form that reads back as the
 * same double, and a final newline. */
#ifndef LIBBENCH_TOOL_JSON_H
#define LIBBENCH_TOOL_JSON_H

#include <jansson.h>

#include "util/atomic_file.h"

/* Append the document's text to out; 0, or -1 when out of memory (out may hold a part). */
int tool_json_dump(const json_t *doc, struct bench__text *out);

#endif /* LIBBENCH_TOOL_JSON_H */
