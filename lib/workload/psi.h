/* SPDX-License-Identifier: MIT */
/* psi.h: the PSI diagnostic source (system-wide /proc/pressure stall totals) and its pure parser
 * and window delta. Diagnostics only: nothing here may feed or be subtracted from a wall part. */
#ifndef BENCH_SOURCES_PSI_H
#define BENCH_SOURCES_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform/os.h"
#include "../util/hidden.h"

/* Parse the text of one pressure file (len bytes; need not be NUL-terminated). Only the
 * monotonic `total=<µs>` field of a line labelled `some ` or `full ` (label at line start,
 * with the space) is read; avg10/60/300 are ignored, lines with other labels are skipped.
 * The total is a whitespace-separated token `total=` + 1..18 digits ended by a space, tab or
 * newline: a run ending at end-of-buffer is a torn read. Returns 0 when a `some` total parsed
 * (*full_total_us = -1 when there is no `full` line), -1 otherwise (both outputs -1): no
 * `some` line, a `full` without `some`, a repeated label, or a `some`/`full` line whose
 * total is missing, glued, torn, empty or 19+ digits long. */
BENCH__HIDDEN int bench__psi_parse(const char *text, size_t len, int64_t *some_total_us,
                                   int64_t *full_total_us);

/* What open found: io decides availability; memory and cpu are probed separately and a
 * masked one reads -1 (NaN deltas) and is named in `status`. */
struct bench__psi {
    bool available;                /* /proc/pressure/io parsed at open */
    bool memory;                   /* /proc/pressure/memory parsed at open */
    bool cpu;                      /* /proc/pressure/cpu parsed at open */
    struct bench__os_file file[3]; /* io, memory, cpu: open while the edges read them */
    char status[448];
};

/* Probe the three files through the os seam. True iff /proc/pressure/io parses; otherwise
 * `reason` says why (naming the errno and what it likely means) and p->status repeats it.
 * The files the edges read stay open until bench__psi_close (called whatever open returned). */
BENCH__HIDDEN bool bench__psi_open(struct bench__psi *p, char *reason, size_t reason_size);
/* Close what open kept open. */
BENCH__HIDDEN void bench__psi_close(struct bench__psi *p);

/* One edge reading, totals in µs; -1 = unknown (masked, unreadable, unparsable, no line). */
struct bench__psi_snapshot {
    int64_t io_some, io_full, mem_some, mem_full, cpu_some;
};

/* Read the files open found usable; everything -1 when the source is unavailable. */
BENCH__HIDDEN void bench__psi_read(struct bench__psi *p, struct bench__psi_snapshot *s);

/* Indices of bench__psi_delta's output. */
enum {
    BENCH__PSI_IO_SOME,
    BENCH__PSI_IO_FULL,
    BENCH__PSI_MEM_SOME,
    BENCH__PSI_MEM_FULL,
    BENCH__PSI_CPU_SOME,
    BENCH__PSI_N
};

/* Window deltas in ns, in the order ioSome, ioFull, memSome, memFull, cpuSome: b − a taken in
 * integer µs, then × 1000. Unknown at either edge or backwards → NaN, never 0. */
BENCH__HIDDEN void bench__psi_delta(const struct bench__psi_snapshot *a,
                                    const struct bench__psi_snapshot *b, double ns[5]);

#endif /* BENCH_SOURCES_PSI_H */
