/* SPDX-License-Identifier: MIT */
/* export.h: the BENCH_API export macro. Only declarations marked with it are
 * part of the ABI; everything else in libbench is built with hidden visibility. */
#ifndef BENCH_EXPORT_H
#define BENCH_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define BENCH_API __attribute__((visibility("default")))
#define BENCH_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#define BENCH_NORETURN __attribute__((noreturn))
#else
#define BENCH_API
#define BENCH_PRINTF(fmt_index, first_arg)
#define BENCH_NORETURN
#endif

#ifdef __cplusplus
#define BENCH_BEGIN_DECLS extern "C" {
#define BENCH_END_DECLS }
#else
#define BENCH_BEGIN_DECLS
#define BENCH_END_DECLS
#endif

#endif /* BENCH_EXPORT_H */
