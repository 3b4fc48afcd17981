/* SPDX-License-Identifier: MIT */
/* ip_sampling.h: the sampling perf_event of --profile: user-space instruction pointers and
 * call chains of the calling thread, read from the mmap ring buffer. It keeps raw addresses;
 * symbolize.h turns them into functions and lines. */
#ifndef BENCH_SOURCES_IP_SAMPLING_H
#define BENCH_SOURCES_IP_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/hidden.h"
#include "source.h"
#include "unwind.h"

#define BENCH__PROFILE_HZ_DEFAULT 1000u
#define BENCH__PROFILE_HZ_MAX 100000u
/* above it, no user stacks in samples (frame pointers, with the reason): reading a 16 KiB copy
 * per sample takes about as long as the period, so the ring's reads could never catch up */
#define BENCH__PROFILE_HZ_STACKS_MAX 20000u
/* "frame-pointer": keep the kernel's frame-pointer chains, no user stacks (cli.md) */
#define BENCH__PROFILE_UNWIND_ENV "BENCH_PROFILE_UNWIND"

struct bench__ip_sampling;

/* Open a disabled sampling event on the calling thread: hardware cycles where a PMU exists,
 * else the cpu-clock software event, `hz` samples per second. NULL with the reason (naming the
 * event, the errno and what it likely means) when neither opens. */
BENCH__HIDDEN struct bench__ip_sampling *bench__ip_sampling_open(unsigned hz, char *reason,
                                                                 size_t reason_size);
BENCH__HIDDEN void bench__ip_sampling_close(struct bench__ip_sampling *s);
/* "cycles" or "cpu-clock". */
BENCH__HIDDEN const char *bench__ip_sampling_event(const struct bench__ip_sampling *s);
/* Call chains are recorded (the kernel follows frame pointers). */
BENCH__HIDDEN bool bench__ip_sampling_chains(const struct bench__ip_sampling *s);
/* Where callers come from: "dwarf" (libdw unwinds a copy of each sample's user stack) or
 * "frame-pointer" with the reason (the architecture, the kernel refused the stack in samples,
 * libdw absent); NULL without call chains. Prepares the libdw session the first time. */
BENCH__HIDDEN const char *bench__ip_sampling_unwinder(struct bench__ip_sampling *s,
                                                      const char **reason);
/* Of the pass's samples, those DWARF unwinding failed on, kept on their frame-pointer chain,
 * and the first one's reason (NULL when none); bench__ip_sampling_fell_back: sample i is one. */
BENCH__HIDDEN uint64_t bench__ip_sampling_fp_samples(const struct bench__ip_sampling *s,
                                                     const char **reason);
BENCH__HIDDEN bool bench__ip_sampling_fell_back(const struct bench__ip_sampling *s, size_t i);

/* A pass: begin forgets the samples kept so far; enable and disable bracket the sampled code
 * (disable drains the ring buffer into the kept samples). */
BENCH__HIDDEN void bench__ip_sampling_begin(struct bench__ip_sampling *s);
BENCH__HIDDEN void bench__ip_sampling_enable(struct bench__ip_sampling *s);
BENCH__HIDDEN void bench__ip_sampling_disable(struct bench__ip_sampling *s);
/* Read the ring buffer into the kept samples while the event stays enabled (no system call: a
 * pass drains between batches, so a high rate does not fill the ring; disable drains too). The
 * samples taken while it reads are marked as its own (bench__ip_sampling_own). The user stacks
 * are set aside, not unwound; past 64 MiB of them it unwinds them with the event off for that
 * while (two ioctls, their samples its own too). */
BENCH__HIDDEN void bench__ip_sampling_drain(struct bench__ip_sampling *s);

/* What the pass kept: samples, each a list of addresses (the sampled one first, then return
 * addresses of its callers); samples the kernel lost; throttling seen; the event's running time
 * since begin (NaN when unreadable). */
BENCH__HIDDEN size_t bench__ip_sampling_count(const struct bench__ip_sampling *s);
BENCH__HIDDEN const uint64_t *bench__ip_sampling_stack(const struct bench__ip_sampling *s, size_t i,
                                                       size_t *n);
BENCH__HIDDEN uint64_t bench__ip_sampling_lost(const struct bench__ip_sampling *s);
/* Sample i was taken while this file enabled the event or read the ring (libbench's own work,
 * whichever code it landed in: libc's memcpy, realloc): the harness's, not the body's. */
BENCH__HIDDEN bool bench__ip_sampling_own(const struct bench__ip_sampling *s, size_t i);
BENCH__HIDDEN bool bench__ip_sampling_throttled(const struct bench__ip_sampling *s);
BENCH__HIDDEN double bench__ip_sampling_running_ns(const struct bench__ip_sampling *s);

/* libbench's own code, to tell the harness's samples from the body's (issue 32, point 13): the
 * executable range [lo, hi) of the mapped file that holds libbench. False with the reason when
 * that file also holds `body` (libbench linked statically into the benchmark) or is not found:
 * then no sample can be told to be the harness's. */
BENCH__HIDDEN bool bench__ip_sampling_own_code(void (*body)(void), uint64_t *lo, uint64_t *hi,
                                               char *reason, size_t reason_size);

/* The ipSampling capability: an event opened and closed (present), or absent with the reason. */
BENCH__HIDDEN void bench__ip_sampling_caps(struct bench__caps *caps, unsigned hz);

/* Decode the records of a ring buffer's bytes (pure, for tests and the drain): samples of the
 * layout this file asks for (ip, pid/tid, callchain, and with stacks the user registers and stack,
 * set aside for bench__ip_sampling_unwind) are appended, lost records counted.
 * `data` is the ring of `size` bytes (a power of two), read from `tail` to `head`. */
BENCH__HIDDEN void bench__ip_sampling_decode(struct bench__ip_sampling *s,
                                             const unsigned char *data, size_t size, uint64_t tail,
                                             uint64_t head);
/* Unwind the samples decoded since the last call: each one's chain becomes the unwinder's, or
 * stays on frame pointers (counted, with the reason). The drain calls it once the event is
 * disabled, so that the unwinding is never sampled. */
BENCH__HIDDEN void bench__ip_sampling_unwind(struct bench__ip_sampling *s);
/* An empty sample store for the decoder's tests (no event). */
BENCH__HIDDEN struct bench__ip_sampling *bench__ip_sampling_store(bool chains);
/* An unwinder of one sample: bench__unwind's contract. */
typedef size_t (*bench__ip_unwind_fn)(void *arg, const struct bench__user_stack *st,
                                      const uint64_t *fp, size_t n_fp, uint64_t *out, size_t max,
                                      char *reason, size_t reason_size);
/* The same for samples with chains, user registers and stacks, unwound by `unwind` (NULL:
 * frame pointers, `reason` says why). */
BENCH__HIDDEN struct bench__ip_sampling *
bench__ip_sampling_store_stacks(bench__ip_unwind_fn unwind, void *arg, const char *reason);

#endif /* BENCH_SOURCES_IP_SAMPLING_H */
