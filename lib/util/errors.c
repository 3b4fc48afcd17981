/* SPDX-License-Identifier: MIT */
/* errors.c: owns bench_strerror(), the message of every BENCH_E* code (<bench/errors.h>). At the
 * bottom layer so that every layer may name an error; it knows no caller and keeps no state. */
#include <bench/errors.h>

const char *bench_strerror(int code)
{
    switch (code) {
    case BENCH_OK: return "success";
    case BENCH_ENOENT: return "no such test, file or entry";
    case BENCH_ENOMEM: return "out of memory";
    case BENCH_EINVAL: return "invalid argument";
    case BENCH_ENAME: return "a name or label is empty or contains the 0x1F separator";
    case BENCH_ESTRUCT:
        return "a size-prefixed struct is too small or has an unknown non-zero tail";
    case BENCH_ESTATE: return "called where it has no meaning (no test is running)";
    case BENCH_EDUP: return "a name is registered twice";
    default: return "unknown libbench error";
    }
}
