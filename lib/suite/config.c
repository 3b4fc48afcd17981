/* SPDX-License-Identifier: MIT */
/* config.c: owns the queries on a parsed run configuration (see config.h). The parsing itself is
 * entry/cli.c's. */
#include <string.h>

#include "config.h"

const struct bench__source_flag *bench__config_flag(const struct bench__config *cfg,
                                                    const char *name)
{
    for (size_t i = 0; name && i < cfg->n_source_flags; i++)
        if (!strcmp(cfg->source_flags[i].name, name))
            return &cfg->source_flags[i];
    return NULL;
}
