/* SPDX-License-Identifier: MIT */
/* capabilities.c: owns the capability blocks of the window sources (wall, psi: probed through
 * their own open and closed again) and bench_catalog_open, here because this is the lowest layer
 * that knows both the counting sources and the window sources. It measures nothing. */
#include <string.h>

#include <bench/errors.h>

#include "../util/text.h"
#include "capabilities.h"
#include "psi.h"
#include "wall.h"

static void wall_block(struct bench__catalog_block *b)
{
    struct bench__wall w;
    bench__wall_open(&w);
    /* getrusage always answers (RUSAGE_SELF when RUSAGE_THREAD is refused): counting is present;
     * an unreadable schedstat is the narrower fact of the run-queue line, not an absence */
    bench__caps_present(&b->caps, BENCH__CAP_COUNTING);
    if (!bench__wall_runqueue_disclosure(&w, b->detail, sizeof b->detail))
        bench__fmt(b->detail, sizeof b->detail, "workload: runqueue wait read from %s (%s scope)",
                   w.sched_path, w.thread_scope ? "thread" : "process");
    bench__wall_close(&w);
}

static void psi_block(struct bench__catalog_block *b)
{
    struct bench__psi p;
    char reason[BENCH__REASON_MAX];
    if (bench__psi_open(&p, reason, sizeof reason)) {
        bench__caps_present(&b->caps, BENCH__CAP_COUNTING);
        bench__fmt(b->detail, sizeof b->detail, "%s", p.status);
    } else {
        bench__caps_absent(&b->caps, BENCH__CAP_COUNTING, "%s", reason);
    }
    bench__psi_close(&p);
}

void bench__window_blocks(struct bench__catalog_block out[BENCH__WINDOW_BLOCKS])
{
    memset(out, 0, BENCH__WINDOW_BLOCKS * sizeof *out);
    out[0].name = "wall";
    wall_block(&out[0]);
    out[1].name = "psi";
    psi_block(&out[1]);
}

int bench__catalog_open_all(const struct bench__config *cfg, bench_catalog_t **out)
{
    struct bench__catalog_block blocks[BENCH__WINDOW_BLOCKS];
    bench__window_blocks(blocks);
    return bench__catalog_snapshot(cfg, blocks, BENCH__WINDOW_BLOCKS, out);
}

int bench_catalog_open(bench_catalog_t **out)
{
    if (!out)
        return BENCH_EINVAL;
    *out = NULL;
    return bench__catalog_open_all(NULL, out);
}
