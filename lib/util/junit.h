/* SPDX-License-Identifier: MIT */
/* junit.h: the one JUnit XML writer (and the XML text escaping under it), shared by test mode's
 * and bench mode's --junit and the tools' compare and report --junit (which may use lib/util and
 * nothing above it, so the writer lives here). It builds text; writing the file is the caller's. */
#ifndef BENCH_UTIL_JUNIT_H
#define BENCH_UTIL_JUNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "atomic_file.h"
#include "hidden.h"

/* Append len bytes of s as XML character data (an attribute value when attr): &, <, >, " and '
 * become entities; in an attribute tab, newline and carriage return become character references
 * (kept through attribute normalisation); every byte that does not start a well-formed UTF-8
 * sequence, and every character XML 1.0 does not allow (control characters, U+FFFE, U+FFFF),
 * becomes U+FFFD. The result is always well-formed, so "]]>" and the like need nothing more. */
BENCH__HIDDEN void bench__xml_escape(struct bench__text *t, const char *s, size_t len, bool attr);
/* The same for a NUL-terminated string (NULL appends nothing). */
BENCH__HIDDEN void bench__xml_escape_str(struct bench__text *t, const char *s, bool attr);

enum bench__junit_result {
    BENCH__JUNIT_PASS,
    BENCH__JUNIT_FAILURE, /* an assertion failed: <failure> */
    BENCH__JUNIT_ERROR,   /* it never got to an answer (crash, time-out, no process): <error> */
    BENCH__JUNIT_SKIP,    /* <skipped> */
};

struct bench__junit_property {
    const char *name;
    const char *value;
};

/* One <testcase>. Every text may hold anything (it is escaped); NULL means absent. */
struct bench__junit_case {
    const char *classname; /* required by Jenkins' schema: never NULL */
    const char *name;
    const char *file; /* the file attribute, with line when line > 0 */
    unsigned line;
    double time_s; /* seconds; NaN or negative: written as 0 (the schema requires a number) */
    enum bench__junit_result result;
    const char *type;    /* failure and error: the type attribute */
    const char *message; /* failure, error, skip: the message attribute */
    const char *body;    /* failure and error: the element's text (body_len bytes) */
    size_t body_len;
    const char *out; /* <system-out> (out_len bytes) */
    size_t out_len;
    const struct bench__junit_property *props;
    size_t n_props;
};

/* The document of n cases: the XML declaration, a single <testsuites> root named `name` holding
 * one <testsuite> of the same name, with the counts (tests, failures, errors, skipped) the schema
 * wants consistent with the cases, and time_s (NaN: the sum of the cases' times). Malloc'd text,
 * its length in *len. */
BENCH__HIDDEN char *bench__junit_text(const char *name, const struct bench__junit_case *cases,
                                      size_t n, double time_s, size_t *len);
/* The same written atomically to path (bench__write_file): 0, or its error
 * (bench__write_file_strerror says it). */
BENCH__HIDDEN int bench__junit_write(const char *path, const char *name,
                                     const struct bench__junit_case *cases, size_t n,
                                     double time_s);

#endif /* BENCH_UTIL_JUNIT_H */
