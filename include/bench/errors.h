/* SPDX-License-Identifier: MIT */
/* errors.h: what libbench functions return, in three kinds, and bench_strerror(). A call that
 * can fail returns 0 or a negative BENCH_E* code (enum bench_error). A call that reports an
 * outcome returns a non-negative status: a body's or window's (enum bench_status) or a process
 * exit status (enum bench_exit); bench_smoke may also return a negative BENCH_E* code when it
 * could not run the body. One sentinel, BENCH_NOT_DISPATCHED (-1), is bench_dispatch's "not mine"
 * and no BENCH_E* code ever takes its value. There is no global "last error". */
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
    BENCH_ESTRUCT = -1002, /* a size-prefixed struct (or an array stride) is too small, larger than
                              4096 bytes, or has an unknown non-zero tail */
    BENCH_ESTATE = -1003,  /* called where it has no meaning (no test is running) */
    BENCH_EDUP = -1004     /* a name is registered twice (a test, a case in a run, a label key) */
};

/* The outcome of one body or window (bench_smoke, bench_workload_window); never negative. */
enum bench_status {
    BENCH_STATUS_PASSED = 0, /* it ran to its end */
    BENCH_STATUS_FAILED = 1, /* a check, bench_fail or a case's `after` failed it */
    BENCH_STATUS_SKIPPED = 2 /* it called bench_skip (never a failure) */
};

/* The process exit status bench_main (and bench_dispatch) returns; never negative. */
enum bench_exit {
    BENCH_EXIT_OK = 0,     /* nothing failed (skips are fine) */
    BENCH_EXIT_FAILED = 1, /* a test, benchmark row, window or workload failed */
    BENCH_EXIT_USAGE = 2   /* a usage or start-up error, or a check of the command line failed */
};

/* bench_dispatch: argv holds no bench-mode flag, so nothing ran (neither an error nor a
 * status). */
#define BENCH_NOT_DISPATCHED (-1)

/* A static, never-NULL message for a code (unknown codes get a generic message). */
BENCH_API const char *bench_strerror(int code);

BENCH_END_DECLS

#endif /* BENCH_ERRORS_H */
