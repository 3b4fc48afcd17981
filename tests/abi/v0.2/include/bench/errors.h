/* SPDX-License-Identifier: MIT */
/* errors.h: the error codes libbench functions return (0 or a negative code) and
 * bench_strerror(). There is no global "last error". */
#ifndef BENCH_ERRORS_H
#define BENCH_ERRORS_H

#include <bench/export.h>

BENCH_BEGIN_DECLS

/* Codes below -1000 are libbench's own; the others equal -errno on Linux. */
enum bench_error {
    BENCH_OK = 0,
    BENCH_ENOENT = -2,     /* no such test, file or entry */
    BENCH_ENOMEM = -12,    /* out of memory */
    BENCH_EINVAL = -22,    /* an argument is malformed */
    BENCH_ENAME = -1001,   /* a name or label contains 0x1F or is empty */
    BENCH_ESTRUCT = -1002, /* a size-prefixed struct is too small or has an unknown non-zero tail */
    BENCH_ESTATE = -1003,  /* called where it has no meaning (no test is running) */
    BENCH_EDUP = -1004     /* a name is registered twice (a test, a case in a run, a label key) */
};

/* A static, never-NULL message for a code (unknown codes get a generic message). */
BENCH_API const char *bench_strerror(int code);

BENCH_END_DECLS

#endif /* BENCH_ERRORS_H */
