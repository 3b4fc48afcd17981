/* SPDX-License-Identifier: MIT */
/* summary.h: what compare's and report's --summary share: a GitHub-flavoured Markdown table cell
 * that cannot break its table or inject HTML, and the append to the summary file
 * ($GITHUB_STEP_SUMMARY is appended to, never replaced). */
#ifndef LIBBENCH_TOOLS_COMMON_SUMMARY_H
#define LIBBENCH_TOOLS_COMMON_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

/* A --summary's table is at most 30 lines, its header and separator included: at most this many
 * rows; the rest are counted in one line under the table. */
#define TOOL_SUMMARY_ROWS_MAX 28

/* The marks of a summary's rows and verdicts, the same in compare's and report's. */
#define TOOL_MARK_BAD "\xe2\x9d\x8c"              /* U+274C: a regression, a failure */
#define TOOL_MARK_WARN "\xe2\x9a\xa0\xef\xb8\x8f" /* U+26A0: look at it */
#define TOOL_MARK_UNKNOWN "\xe2\x9d\x94"          /* U+2754: not measured */
#define TOOL_MARK_GOOD "\xe2\x9c\x85"             /* U+2705: nothing to see */

/* "| text " with '|', '\', '`', '*', '_', '[' and ']' backslash-escaped, '<', '>' and '&' as
 * entities, a control character as a space and invalid UTF-8 as U+FFFD. */
void tool_md_cell(FILE *out, const char *text);
/* A summary is written to memory, then appended to its file in one go (a job's earlier steps
 * keep what they wrote). _open: the stream (NULL when out of memory, said in err). _rest: under a
 * table of `shown` of n items, the line that counts the ones left out (`what`: "cell", "row").
 * _close: the blank line that ends the section, then the text appended to path (created 0644 less
 * the umask when missing); 0, or -1 with the reason in err. */
struct tool_summary {
    FILE *out;
    char *text;
    size_t len;
};
FILE *tool_summary_open(struct tool_summary *s, char *err, size_t err_size);
void tool_summary_rest(FILE *out, size_t shown, size_t n, const char *what);
int tool_summary_close(struct tool_summary *s, const char *path, char *err, size_t err_size);

#endif /* LIBBENCH_TOOLS_COMMON_SUMMARY_H */
