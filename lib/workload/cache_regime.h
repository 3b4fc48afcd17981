/* SPDX-License-Identifier: MIT */
/* cache_regime.h: page-cache regime control of the workload model: fs probes,
 * residency, the pure stamp policy, and the prep. The consume-once rule belongs to the driver. */
#ifndef BENCH_CACHE_REGIME_H
#define BENCH_CACHE_REGIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/window.h"

/* Residency thresholds of the stamp policy: a cold set more than 10 % resident, or a warm set
 * less than 90 %, did not reach its regime (exactly at the threshold passes). */
#define BENCH__COLD_RESIDENT_MAX 0.10
#define BENCH__WARM_RESIDENT_MIN 0.90

/* Linux statfs f_type magics the policy distinguishes (ramfs has the top bit of 32 set). */
#define BENCH__TMPFS_MAGIC UINT64_C(0x01021994)
#define BENCH__RAMFS_MAGIC UINT64_C(0x858458f6)
#define BENCH__ZFS_MAGIC UINT64_C(0x2fc12fc1)

/* The filesystem kinds the policy distinguishes. UNKNOWN = the probe failed (thresholds
 * still apply, with an "fs type unprobed" note). */
enum bench__fs_kind { BENCH__FS_OTHER, BENCH__FS_TMPFS, BENCH__FS_ZFS, BENCH__FS_UNKNOWN };

/* Pure: the kind of a statfs f_type already zero-extended from the platform's native word
 * (tmpfs and ramfs -> TMPFS, zfs -> ZFS, anything else -> OTHER). A sign-extended ramfs magic
 * (0xffffffff858458f6) is not a magic and gives OTHER: callers must zero-extend. */
BENCH__HIDDEN enum bench__fs_kind bench__fs_kind_of_magic(uint64_t f_type);

/* The kind of the filesystem holding an open fd (fstatfs through the seam) or a path (opened
 * O_PATH, so a FIFO or a device is never really opened); UNKNOWN when the probe fails. */
BENCH__HIDDEN enum bench__fs_kind bench__fs_kind_of_fd(int fd);
BENCH__HIDDEN enum bench__fs_kind bench__fs_kind_of_path(const char *path);

/* One open file's page-cache residency: mmap of the whole file (read-only, shared) + mincore,
 * pages counted with the sysconf(_SC_PAGESIZE) stride. An empty file is 0/0 and succeeds
 * (mmap of length 0 is never attempted). Returns 0, or -errno (fstat, mmap or mincore failed,
 * not a regular file, unusable page size, a file larger than the address space). */
BENCH__HIDDEN int bench__residency_pages(int fd, uint64_t *pages, uint64_t *resident);

/* The page-weighted resident fraction, in [0, 1], of a set of open files (fds < 0 are
 * skipped). NaN when no file was measurable or the measurable ones hold no page at all. */
BENCH__HIDDEN double bench__residency(const int *fds, size_t n);

/* The pure stamp policy: requested regime + whether the prep worked (and why
 * not) + filesystem kind of the set (+ whether it was mixed) + residency before/after -> the
 * honest stamp in *out (fully overwritten, present = true). Downgrades to steady only on
 * evidence: a prep failure, cold on tmpfs, or a threshold miss where mincore is evidence. */
BENCH__HIDDEN void bench__regime_policy(enum bench_cache_regime requested, bool prep_ok,
                                        const char *prep_reason, enum bench__fs_kind fs,
                                        bool mixed_fs, double before, double after,
                                        struct bench__regime_stamp *out);

/* Prepare n files under a regime and stamp the result into *out. Each file is opened
 * O_RDONLY|O_CLOEXEC|O_NONBLOCK and must be a regular file (FIFOs and devices are refused with
 * a reason, promptly). Residency is measured before; cold = fdatasync then
 * POSIX_FADV_DONTNEED per file, warm = read through in 64 KiB chunks, steady = nothing (the
 * before probe is also the after); residency after; the fs kind of the set; then the policy.
 * Never fails: every problem becomes a downgrade or a note. Never touches drop_caches. */
BENCH__HIDDEN void bench__regime_prepare(enum bench_cache_regime regime, const char *const *paths,
                                         size_t n, struct bench__regime_stamp *out);

#endif /* BENCH_CACHE_REGIME_H */
