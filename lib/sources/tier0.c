/* SPDX-License-Identifier: MIT */
/* tier0.c: placeholder until the tier0 source lands; reports itself absent. */
#include "source.h"

static void *open_absent(const struct bench__config *cfg, struct bench__caps *caps, char *status,
                         size_t status_size)
{
    (void)cfg;
    (void)status_size;
    status[0] = '\0';
    bench__caps_absent(caps, BENCH__CAP_COUNTING, "not built yet");
    return NULL;
}

const struct bench__source_ops bench__source_tier0 = {
    .name = "tier0",
    .request_flag = "--perf",
    .open = open_absent,
};
