/* SPDX-License-Identifier: MIT */
/* args.h: the option grammar every command of the `libbench` tool shares: "--opt=VALUE" or
 * "--opt VALUE" (a value is never another option), whole and decimal numbers in the grammar of
 * the test binaries' options (docs/reference/cli.md, "Option syntax"). Pure functions. */
#ifndef LIBBENCH_TOOLS_COMMON_ARGS_H
#define LIBBENCH_TOOLS_COMMON_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* A whole number: decimal digits only (no sign, 0x, exponent or spaces), at most max. */
bool tool_parse_whole(const char *text, uint64_t max, uint64_t *out);
/* A decimal number: digits, optionally a point and more digits (no sign, exponent, hex, spaces,
 * inf or nan); finite. */
bool tool_parse_decimal(const char *text, double *out);
/* A word that is an option, not a value: "-" followed by something other than a digit or '.'
 * ("-1" and "-.5" are values, refused later by the number grammar, with their own message). */
bool tool_looks_like_option(const char *word);
/* Whether arg names the option `name`, as "--name" (*value NULL) or "--name=value". */
bool tool_option_is(const char *arg, const char *name, const char **value);
/* The value of the option at argv[*i] when *value is NULL ("--opt VALUE"): the next word, unless
 * there is none or it is an option; advances *i past it. Whether *value is now set. */
bool tool_take_value(int argc, char **argv, int *i, const char **value);
/* A usage error of `libbench <command>` on stderr: "error: " fmt (its one %s the argument arg,
 * sanitized and cut to fit; "" when arg is NULL), then " (see libbench <command> --help)".
 * Always 2, the exit status of a usage error. */
int tool_usage_error(const char *command, const char *fmt, const char *arg);

#endif /* LIBBENCH_TOOLS_COMMON_ARGS_H */
