/* SPDX-License-Identifier: MIT */
/* version.c: owns bench_version() and bench_version_string(), the version of the libbench that
 * is loaded (<bench/version.h>). At the bottom layer so that every layer may name it (the JSON
 * documents record it); it knows no caller. */
#include <bench/version.h>

unsigned bench_version(void)
{
    return BENCH_VERSION_NUMBER;
}

const char *bench_version_string(void)
{
    return BENCH_VERSION_STRING;
}
